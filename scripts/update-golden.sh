#!/usr/bin/env bash
# Rewrites tests/golden/*.out from the current binary. Review the diff before committing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/build/scaleout}"
for case in "$root"/tests/golden/*.cmd; do
  cmake -DSCALEOUT="$bin" -DCASE="$case" -DROOT="$root" -DUPDATE=ON -P "$root/tests/golden/run_golden.cmake"
done
rm -f "$root"/tests/golden/*.actual
git -C "$root" diff --stat -- tests/golden
