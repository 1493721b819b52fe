#!/bin/bash
# A shorter device run than run.sh, for a session with one call left (session 18): the rigid
# wall with the step submitted phase by phase (the default on hardware) and whole
# (--submit-whole), a profile per dispatch, the cloud's cliff (examples/stream_probe after a
# big upload, the cloud spawned whole and a million a step), then the whole test suite.
# Usage, on the device from the repository root (carry: [".gl", ".gpu"]): bash .gpu/focus.sh
# [deadline-s]
source "$(dirname "$0")/common.sh" "${1:-360}"
R="$B/rigid_bench --scenes pyramid --no-cpu --no-rapier --no-rapier-default"
{ for k in 1 2; do
    el "phase by phase $k"; timeout 30 $R --sizes 5000,20000
    el "whole $k"; timeout 30 $R --sizes 5000,20000 --submit-whole
  done
  el "100k phase by phase"; timeout 45 $R --sizes 100000
  el "100k whole"; timeout 45 $R --sizes 100000 --submit-whole
  el "relax1 phase"; timeout 20 $R --sizes 5000,20000 --relax 1
  el "relax1 whole"; timeout 20 $R --sizes 5000,20000 --relax 1 --submit-whole; el done; } > $OUT/rigid.log 2>&1
{ for c in 4 6 12; do el "colour slots $c"; timeout 20 $R --sizes 5000 --colour-slots $c --pipelined 0; done
  el dispatch; timeout 50 $R --sizes 5000,100000 --steps 30 --warmup 10 --pipelined 0 --dispatch-timing; el done; } > $OUT/dispatch.log 2>&1
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
