#!/usr/bin/env bash
# Rewrites tests/golden/*.out from the current binary. Review the diff before committing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/build/scaleout}"
for case in "$root"/tests/golden/*.cmd; do
  cmake -DSCALEOUT="$bin" -DCASE="$case" -DROOT="$root" -DUPDATE=ON -P "$root/tests/golden/run_golden.cmake"
done
# Launch files of plan --emit (tests/golden/launch/).
out="$(mktemp -d)"
cmake -DSCALEOUT="$bin" -DROOT="$root" -DWORKLOAD=examples/plan-llama3-70b-pretrain.yaml \
  -DOUTDIR="$out/launch" -DUPDATE=ON -P "$root/tests/golden/run_launch_golden.cmake"
rm -rf "$out"
# Launch files of a plan with hostile ids (tests/golden/launch-hostile/), written by the unit test.
SCALEOUT_UPDATE_GOLDEN=1 "$(dirname "$bin")/tests/scaleout_tests" --gtest_filter=LaunchHostile.MatchesGoldenFiles >/dev/null
rm -f "$root"/tests/golden/*.actual
git -C "$root" diff --stat -- tests/golden
