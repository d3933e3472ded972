#include "app/inputs.hpp"

#include <algorithm>
#include <thread>

#include "io/catalog_reader.hpp"
#include "io/files.hpp"

namespace scaleout::app {

namespace {

constexpr const char* kFormatNames[] = {"text", "json", "csv", "html"};  // in enum order

}  // namespace

const char* to_string(Format f) { return kFormatNames[static_cast<int>(f)]; }

Format parse_format(const std::string& name) {
  for (int i = 0; i < 4; ++i) {
    if (name == kFormatNames[i]) return static_cast<Format>(i);
  }
  return Format::text;
}

Objective parse_objective(const std::string& name) {
  if (name == "time") return Objective::time;
  if (name == "energy") return Objective::energy;
  return Objective::cost;
}

Catalog load_catalog(const Options& o, report::EntryFiles* files) {
  Catalog c = io::builtin_catalog();
  for (const std::string& path : o.catalogs) {
    const std::string text = io::read_text_file(path);
    if (!files) {
      io::read_catalog(text, path, c);
      continue;
    }
    // Read into a copy whose entries carry a mark instead of their source:
    // an entry without the mark afterwards came from this file.
    static const std::string kMark = "\x01unchanged";
    Catalog marked = c;
    auto mark = [&](auto entry) {
      entry.source = kMark;
      marked.add(std::move(entry));
    };
    for (const Gpu* g : c.all<Gpu>()) mark(*g);
    for (const Server* v : c.all<Server>()) mark(*v);
    for (const Fabric* f : c.all<Fabric>()) mark(*f);
    io::read_catalog(text, path, marked);
    for (const Gpu* g : marked.all<Gpu>()) {
      if (g->source == kMark)
        marked.add(*c.find_gpu(g->id));
      else
        files->gpus[g->id] = path;
    }
    for (const Server* v : marked.all<Server>()) {
      if (v->source == kMark)
        marked.add(*c.find_server(v->id));
      else
        files->servers[v->id] = path;
    }
    for (const Fabric* f : marked.all<Fabric>()) {
      if (f->source == kMark)
        marked.add(*c.find_fabric(f->id));
      else
        files->fabrics[f->id] = path;
    }
    c = std::move(marked);
  }
  return c;
}

double cloud_price(const Catalog& catalog, const io::RunInput& in, const RunSettings& s,
                   const std::string& gpu_id) {
  if (in.usd_per_gpu_hour) return *in.usd_per_gpu_hour;
  const CloudPrice* p = catalog.cloud_price(gpu_id, s.cloud_pricing);
  return p ? p->usd_per_gpu_hour : 0.0;
}

double server_price(const Catalog& catalog, const io::RunInput& in, const std::string& server_id) {
  if (in.server_usd) return *in.server_usd;
  const PurchasePrice* p = catalog.find_purchase_price(server_id);
  return p ? p->usd : 0.0;
}

int thread_count(const Options& o) {
  return o.threads > 0 ? o.threads
                       : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace scaleout::app
