#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang++ and AddressSanitizer +
# UndefinedBehaviorSanitizer in build-fuzz, then runs each for SECONDS
# (default 60) on a copy of its seed corpus (fuzz/corpus/<target>/). Fails on
# any crash, hang (10 s per input), memory blow-up (2 GiB) or sanitizer
# report; prints the executions of each target. A failing input is left in
# build-fuzz/artifacts/<target>/ (rerun it with: build-fuzz/fuzz/<target> FILE).
#
# The mutation seed is fixed (FUZZ_SEED, default 1) so that a CI run replays
# the same search as a local run of the same length; set FUZZ_SEED=0 for a
# random seed when hunting.
#
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${1:-60}
seed=${FUZZ_SEED:-1}
build=$root/build-fuzz
targets=(fuzz_workload fuzz_hf_config fuzz_catalog fuzz_validation_csv fuzz_cli fuzz_jobs)

cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSCALEOUT_FUZZ=ON -DSCALEOUT_BUILD_TESTS=OFF -DSCALEOUT_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j2 --target "${targets[@]}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$build/logs"
status=0
summary=()
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t
  artifacts=$build/artifacts/$t/
  rm -rf "$corpus" "$artifacts"
  mkdir -p "$corpus" "$artifacts"
  cp "$root/fuzz/corpus/$t/"* "$corpus/"
  log=$build/logs/$t.log
  echo "== $t: ${seconds} s"
  rc=0
  "$build/fuzz/$t" "$corpus" -seed="$seed" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  if [[ $rc -ne 0 ]] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log"; then
    echo "!! $t failed (exit $rc); last lines of $log:"
    tail -n 60 "$log"
    ls -l "$artifacts"
    status=1
    summary+=("$(printf '%-22s %12s  FAILED (exit %d)' "$t" "${execs:-?}" "$rc")")
  else
    summary+=("$(printf '%-22s %12s  ok' "$t" "${execs:-?}")")
  fi
done
echo
printf '%-22s %12s\n' target executions
printf '%s\n' "${summary[@]}"
exit $status
