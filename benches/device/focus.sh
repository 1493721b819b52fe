#!/bin/bash
# A shorter device run than run.sh, for a lease with one call left: the rigid wall of this
# checkout alternated with the packed variants (rigid_bench_<name>, from `VARIANTS="base=<commit>
# arms=exp/arms" bash benches/device/pack.sh`; without any, the checkout's rows only), the block
# solver with and without staging, the host's recording probe, a profile per dispatch, the cloud's cliff (stream_probe after a big upload, the cloud
# spawned whole and a million a step), then the whole test suite.
# Usage, on the device from the repository root (carry: [".gl", ".gpu"]): bash .gpu/focus.sh
# [deadline-s]
source "$(dirname "$0")/common.sh" "${1:-360}"
args="--scenes pyramid --no-cpu --no-rapier --no-rapier-default"
R="$B/rigid_bench $args"
short="--steps 60 --warmup 10 --pipelined 0"
# The packed variants (rigid_bench_<name>), alternated with the checkout's benchmark.
V=$(ls $B | grep '^rigid_bench_' || true)
{ for k in 1 2; do
    for v in $V; do el "$v $k"; timeout 30 $B/$v $args $short --sizes 5000,20000; done
    el "this checkout $k"; timeout 30 $R $short --sizes 5000,20000
  done
  for v in $V; do el "100k $v"; timeout 30 $B/$v $args $short --sizes 100000; done
  el "100k this checkout"; timeout 30 $R $short --sizes 100000
  el "relax1"; timeout 20 $R --sizes 5000,20000 --relax 1
  # The block solver with each bin's bodies in workgroup memory (RigidWorld::set_block_staging),
  # alternated with it off: the staged path has only run on lavapipe (2026-11-27, `96b75f9`).
  for k in 1 2; do for st in "" "--block-stage"; do
    el "blocks of 4 cells $st $k"; timeout 25 $R $short --sizes 5000,20000 --blocks --block-cells 4 $st
    el "blocks of 16 cells $st $k"; timeout 15 $R $short --sizes 5000 --blocks $st
  done; done
  # The host's share: encode_step and wgpu's finish timed without submitting (against the
  # row's record + submit), on the same host as the rows.
  el "record probe"; timeout 30 $R --sizes 5000,20000,100000 --steps 12 --warmup 4 --pipelined 0 --record-probe 200
  el done; } > $OUT/rigid.log 2>&1
{ el dispatch; timeout 50 $R --sizes 5000,100000 --steps 30 --warmup 10 --pipelined 0 --dispatch-timing; el done; } > $OUT/dispatch.log 2>&1
# The cloud's cliff (BENCHMARKS.md, 2026-11-27, `7b9c45c`): after a 10M cloud world the device runs every
# kernel slower, a bare one too, until the process ends. Is it the bulk spawn's one upload of
# about a gigabyte? Then the probe slows after --upload 1000, and a cloud spawned a million a
# step (--spawn-chunk) leaves the device fast.
{ el probe_upload; timeout 40 $B/stream_probe --fill random --sizes 3000000 --upload 1000
  el cloud_whole; timeout 40 $B/bench --particles-only --no-cpu --probe-after --sizes 3000000,10000000,3000000
  el cloud_chunked; timeout 60 $B/bench --particles-only --no-cpu --probe-after --spawn-chunk 1000000 --sizes 3000000,10000000,3000000
  el done; } > $OUT/cloud.log 2>&1
run_suite
el end >> $OUT/tests.log
