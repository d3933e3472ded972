// The layout-dimension table: one row per field of `Layout` that a workload
// file can set, with its key (the same in a workload's `layout:` section, in
// the validation CSV's header and in `plan`'s fixed fields), its kind and
// range, and how `plan` treats it. The workload reader, the fixed layout of
// `plan` (search/planner.hpp `FixedLayout`), the legality checks of fixed
// values (checks.hpp `FixedLayoutKeys`), the validation CSV's layout columns
// and the planner's option lists are derived from it, so a new parallel
// dimension is a new row here (ARCHITECTURE.md, "How to add a parallel
// dimension").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "workload/workload.hpp"

namespace scaleout {

// The rows, in the order the workload reader reads them.
enum class LayoutKey : std::uint8_t {
  tp,
  pp,
  dp,
  cp,
  ep,
  etp,
  sp,
  micro_batch,
  interleave,
  zero,
  recompute,
  flash_attention,
  offload,
  fp8_param_gather,
  ep_overlap,
  order,
  activation_offload,
  recompute_layers,
  first_stage_layers,
  last_stage_layers,
  pipeline_schedule,
  dp_overlap,
  embedding_in_split,
  loss_in_split,
  recompute_modules,
  shard_group,
  pipeline_layout,
};
inline constexpr std::size_t kLayoutKeys = 27;

enum class DimKind : std::uint8_t {
  integer,  // a whole number in [min, max] (a parallel degree, micro-batch, ZeRO stage)
  flag,     // true/false
  choice,   // one name of `choices`; the value is its index (the enum's value)
  order,    // the rank order, a permutation of tp, cp, dp and pp (no integer value)
  set,      // a set of names of `choices` (a list); the value has bit i for choices[i]
  text,     // a string the reader parses itself (pipeline_layout; no integer value)
};

// How `plan` chooses the value when the file does not fix it.
enum class DimSearch : std::uint8_t {
  none,     // the default (flash_attention, order)
  derived,  // follows from other values (dp from the cluster, sp from tp, fp8 gather from zero)
  options,  // a list per hardware option (`plan_options`), looped over per cell
  saving,   // a memory-saving setting, tried cheapest in time first per candidate
};

struct LayoutDim {
  LayoutKey key;
  const char* name;  // workload `layout:` key, CSV column, plan's fixed field
  DimKind kind;
  long long min = 0, max = 0;            // integer: the range a workload file may give
  std::span<const char* const> choices;  // choice: the names, indexed by the enum's value
  DimSearch search = DimSearch::none;
  bool serving = false;     // a serving replica takes it (tp, pp, ep; dp is the replica count)
  bool csv_column = false;  // a column of the canonical validation CSV
  // integer, flag (0/1), choice (index), set (bits); null for order and text
  int (*get)(const Layout&) = nullptr;
  void (*set)(Layout&, int) = nullptr;
  const char* doc = "";
};

// The table, one row per LayoutKey in its order.
const std::array<LayoutDim, kLayoutKeys>& layout_dims();
const LayoutDim& layout_dim(LayoutKey k);
// The row of a key name, or null.
const LayoutDim* find_layout_dim(std::string_view name);

// A set of rows (which layout keys a file gives).
class LayoutKeySet {
 public:
  bool has(LayoutKey k) const { return (bits_ >> static_cast<unsigned>(k)) & 1U; }
  void add(LayoutKey k) { bits_ |= 1U << static_cast<unsigned>(k); }
  void remove(LayoutKey k) { bits_ &= ~(1U << static_cast<unsigned>(k)); }
  bool empty() const { return bits_ == 0; }

 private:
  std::uint32_t bits_ = 0;
};

// The layout values a file fixes: `values` holds them (the others at
// whatever the reader filled in), `keys` says which are fixed.
struct FixedValues {
  Layout values;
  LayoutKeySet keys;

  bool has(LayoutKey k) const { return keys.has(k); }
  // The fixed value as the table's integer (flag 0/1, choice index), or none.
  std::optional<int> get(LayoutKey k) const {
    if (!keys.has(k)) return std::nullopt;
    return layout_dim(k).get(values);
  }
  void set(LayoutKey k, int v) {
    keys.add(k);
    layout_dim(k).set(values, v);
  }
  void reset(LayoutKey k) { keys.remove(k); }
};

}  // namespace scaleout
