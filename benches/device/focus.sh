#!/bin/bash
# A shorter device run than run.sh, for a session with one call left: the rigid wall before and
# after this checkout's changes, alternated (rigid_bench_base, from `BASE=<commit> bash
# benches/device/pack.sh`; without it, the checkout's rows only), a profile per dispatch, the
# cloud's cliff (examples/stream_probe after a big upload, the cloud spawned whole and a million
# a step), then the whole test suite.
# Usage, on the device from the repository root (carry: [".gl", ".gpu"]): bash .gpu/focus.sh
# [deadline-s]
source "$(dirname "$0")/common.sh" "${1:-360}"
args="--scenes pyramid --no-cpu --no-rapier --no-rapier-default"
R="$B/rigid_bench $args"
{ for k in 1 2 3; do
    if [ -x $B/rigid_bench_base ]; then el "base $k"; timeout 30 $B/rigid_bench_base $args --sizes 5000,20000; fi
    el "this checkout $k"; timeout 30 $R --sizes 5000,20000
  done
  if [ -x $B/rigid_bench_base ]; then el "100k base"; timeout 45 $B/rigid_bench_base $args --sizes 100000; fi
  el "100k this checkout"; timeout 45 $R --sizes 100000
  el "relax1"; timeout 20 $R --sizes 5000,20000 --relax 1; el done; } > $OUT/rigid.log 2>&1
{ el dispatch; timeout 50 $R --sizes 5000,100000 --steps 30 --warmup 10 --pipelined 0 --dispatch-timing; el done; } > $OUT/dispatch.log 2>&1
# The cloud's cliff (BENCHMARKS.md, session 18): after a 10M cloud world the device runs every
# kernel slower, a bare one too, until the process ends. Is it the bulk spawn's one upload of
# about a gigabyte? Then the probe slows after --upload 1000, and a cloud spawned a million a
# step (--spawn-chunk) leaves the device fast.
{ el probe_upload; timeout 40 $B/stream_probe --fill random --sizes 3000000 --upload 1000
  el cloud_whole; timeout 40 $B/bench --particles-only --no-cpu --probe-after --sizes 3000000,10000000,3000000
  el cloud_chunked; timeout 60 $B/bench --particles-only --no-cpu --probe-after --spawn-chunk 1000000 --sizes 3000000,10000000,3000000
  el done; } > $OUT/cloud.log 2>&1
run_suite
el end >> $OUT/tests.log
