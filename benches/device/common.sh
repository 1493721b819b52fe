#!/bin/bash
# Sourced by run.sh and focus.sh on the lent device (from the repository root, carry:
# [".gl", ".gpu"]): the deadline clock, the Vulkan loader and GL libraries the device lacks, the
# binaries unpacked into $B, info.log, and `run_suite`, the whole test suite in parallel.
# Usage: source .gpu/common.sh [deadline-s]
set -u
DEADLINE=${1:-360}
T0=$(date +%s)
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json WGPU_BACKEND=vulkan XDG_RUNTIME_DIR=/tmp/xdg
mkdir -p /tmp/xdg; chmod 700 /tmp/xdg
B=/tmp/b; mkdir -p $B; tar -xJf .gpu/bins.tar.xz -C $B
el() { echo "[t=$(( $(date +%s) - T0 )) s] $*"; }
{ date; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv; nproc; lscpu | grep 'Model name'; cat $B/COMMIT; } > $OUT/info.log 2>&1

# Every test binary, eight at a time, until the deadline: tests.log (return codes, result lines)
# and failures.log (the output of each binary that failed). Run what must go beside the suite
# before calling it.
run_suite() {
  mkdir -p /tmp/tl; touch /tmp/tl/RC
  local L; L=$(left); el "tests, $L s left" >> $OUT/tests.log
  ls $B/tests/ | timeout $L xargs -P 8 -I{} sh -c "timeout $L $B/tests/{} --test-threads 2 > /tmp/tl/{}.log 2>&1; echo \"{} rc=\$?\" >> /tmp/tl/RC"
  el "suite done" >> $OUT/tests.log
  echo "finished: $(wc -l < /tmp/tl/RC) of $(ls $B/tests | wc -l)" >> $OUT/tests.log
  sort /tmp/tl/RC >> $OUT/tests.log
  for t in $(ls $B/tests); do grep -q "^$t rc=" /tmp/tl/RC || echo "$t: not finished (deadline)"; done >> $OUT/tests.log
  for f in /tmp/tl/*.log; do echo "$(basename $f): $(grep -h '^test result' $f | tr '\n' ' ')"; done >> $OUT/tests.log
  for f in /tmp/tl/*.log; do if ! grep -q 'test result: ok' $f || grep -q 'FAILED\|panicked' $f; then echo "=== $f"; grep -v '^test .* ok$\|XDG_RUNTIME' $f | tail -c 5000; fi; done > $OUT/failures.log 2>&1
}
