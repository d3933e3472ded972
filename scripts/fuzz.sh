#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang++ and AddressSanitizer +
# UndefinedBehaviorSanitizer in build-fuzz, replays the known findings in
# fuzz/regressions/<target>/, then runs each target for SECONDS (default 60)
# on a copy of its seed corpus (fuzz/corpus/<target>/, plus its regression
# inputs once they pass). Fails on any regression that still fails, and on
# any crash, hang (10 s per input), memory blow-up (2 GiB) or sanitizer
# report; prints the executions of each target. A failing input is left in
# build-fuzz/artifacts/<target>/ (rerun it with: build-fuzz/fuzz/<target> FILE).
#
# The mutation seed rotates: FUZZ_SEED when set (0: random), else the day
# number (days since 1970-01-01, UTC), so that each day's CI run searches
# anew and a finding replays the same day, or any day with FUZZ_SEED=N. The
# seed is printed first.
#
# FUZZ_KEEP=1 grows the corpus in the repository: after each target's run,
# the inputs that add coverage (libFuzzer -merge=1) are copied into
# fuzz/corpus/<target>/, at most FUZZ_KEEP_MAX_LEN bytes each (default 8192)
# and at most FUZZ_KEEP_MAX_FILES files per target (default 150; the
# smallest new inputs first). Review and commit them.
#
# FUZZ_TARGETS="fuzz_emit fuzz_launch" runs only those targets.
#
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${1:-60}
seed=${FUZZ_SEED:-$(($(date -u +%s) / 86400))}
keep=${FUZZ_KEEP:-0}
keep_max_len=${FUZZ_KEEP_MAX_LEN:-8192}
keep_max_files=${FUZZ_KEEP_MAX_FILES:-150}
build=$root/build-fuzz
all_targets=(fuzz_workload fuzz_hf_config fuzz_catalog fuzz_validation_csv fuzz_cli fuzz_jobs
  fuzz_plan_finite fuzz_emit fuzz_launch)
read -r -a targets <<<"${FUZZ_TARGETS:-${all_targets[*]}}"

echo "fuzz seed $seed (replay: FUZZ_SEED=$seed scripts/fuzz.sh $seconds)"

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

  # Known findings: each must pass before it joins the corpus.
  regressions=$root/fuzz/regressions/$t
  if compgen -G "$regressions/*" >/dev/null; then
    log=$build/logs/$t.regressions.log
    if "$build/fuzz/$t" -runs=1 -timeout=10 -rss_limit_mb=2048 "$regressions"/* >"$log" 2>&1; then
      cp "$regressions"/* "$corpus/"
    else
      echo "!! $t: a known finding in fuzz/regressions/$t still fails; last lines of $log:"
      tail -n 30 "$log"
      status=1
      summary+=("$(printf '%-22s %12s  REGRESSION still fails' "$t" -)")
    fi
  fi

  log=$build/logs/$t.log
  echo "== $t: ${seconds} s"
  rc=0
  "$build/fuzz/$t" "$corpus" -seed="$seed" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  if [[ $rc -ne 0 ]] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log"; then
    echo "!! $t failed (exit $rc); last lines of $log:"
    tail -n 60 "$log"
    ls -l "$artifacts"
    status=1
    summary+=("$(printf '%-22s %12s %8s  FAILED (exit %d)' "$t" "${execs:-?}" "${rate:-?}" "$rc")")
  else
    summary+=("$(printf '%-22s %12s %8s  ok' "$t" "${execs:-?}" "${rate:-?}")")
  fi

  if [[ $keep == 1 ]]; then
    # Merge into a copy of the repository's corpus, then copy the new files
    # (also after a failure: the failing input is in artifacts/, not in the
    # run's corpus).
    staged=$build/keep/$t
    rm -rf "$staged"
    mkdir -p "$staged"
    cp "$root/fuzz/corpus/$t/"* "$staged/"
    "$build/fuzz/$t" -merge=1 -max_len="$keep_max_len" -timeout=10 -rss_limit_mb=2048 \
      "$staged" "$corpus" >"$build/logs/$t.merge.log" 2>&1 || {
      echo "!! $t: merge failed; see $build/logs/$t.merge.log"
      status=1
      continue
    }
    have=$(find "$root/fuzz/corpus/$t" -type f | wc -l)
    added=0
    while IFS= read -r f; do
      name=$(basename "$f")
      [[ -e $root/fuzz/corpus/$t/$name ]] && continue
      if ((have >= keep_max_files)); then
        echo "   $t: corpus holds $keep_max_files files (FUZZ_KEEP_MAX_FILES); not adding more"
        break
      fi
      cp "$f" "$root/fuzz/corpus/$t/$name"
      have=$((have + 1))
      added=$((added + 1))
    done < <(find "$staged" -type f -size -"$((keep_max_len + 1))"c -printf '%s %p\n' |
      sort -n | cut -d' ' -f2-)
    echo "   $t: kept $added new inputs in fuzz/corpus/$t ($have files)"
  fi
done
echo
echo "fuzz seed $seed"
printf '%-22s %12s %8s\n' target executions 'exec/s'
printf '%s\n' "${summary[@]}"
exit $status
