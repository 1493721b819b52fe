#!/bin/bash
# Runs on the lent device from the repository root (carry: [".gl", ".gpu"]): the benchmarks
# (sequential), nexus when python3 and numpy are there (put its wheel in .gpu/), then the whole
# test suite (parallel) with rapier on the host CPU beside it. Usage: bash .gpu/run.sh [deadline-s]
source "$(dirname "$0")/common.sh" "${1:-360}"
{ el rigid; timeout 90 $B/rigid_bench --sizes 5000,20000,100000 --scenes pyramid,rain --no-cpu --no-rapier --no-rapier-default;
  el relax1; timeout 30 $B/rigid_bench --sizes 5000,20000 --scenes pyramid --no-cpu --no-rapier --no-rapier-default --relax 1;
  el blocks; timeout 60 $B/rigid_bench --sizes 5000,20000,100000 --scenes pyramid,rain --no-cpu --no-rapier --no-rapier-default --blocks;
  el blocks_relax1; timeout 30 $B/rigid_bench --sizes 5000,20000 --scenes pyramid --no-cpu --no-rapier --no-rapier-default --blocks --relax 1 --block-sweeps 1;
  # The jointed scenes: the joint grid at 20x20, 50x50 and Box3D's 100x100, the ragdoll rain at
  # 100 and Box2D's 1,000 ragdolls (sizes are bodies: 12 a ragdoll).
  el joint_grid; timeout 40 $B/rigid_bench --sizes 400,2500,10000 --scenes joint_grid --no-cpu --no-rapier --no-rapier-default;
  el ragdoll_rain; timeout 60 $B/rigid_bench --sizes 1200,12000 --scenes ragdoll_rain --no-cpu --no-rapier --no-rapier-default; el done; } > $OUT/rigid.log 2>&1
{ el grains; timeout 20 $B/bench --grains-only --no-cpu;
  el particles; timeout 60 $B/bench --sizes 1000000,10000000 --no-cpu;
  # Where the cloud's cost per particle jumps (issue 10: 4M at 2.8 TB/s, 10M at 0.9 TB/s).
  el cloud_sweep; timeout 60 $B/bench --particles-only --no-cpu --sizes 3000000,4000000,5000000,6000000,7000000,8000000,10000000; el done; } > $OUT/particles.log 2>&1
{ el show; timeout 30 $B/fireworks --show --gpu-timing --headless --frames 3000 --out /tmp/show.png; el done;
  if python3 -c 'import numpy' 2>/dev/null; then
    el nexus; python3 -m zipfile -e .gpu/*.whl /tmp/nx; PYTHONPATH=/tmp/nx timeout 50 python3 benches/nexus/pyramid.py --any-adapter --sizes 100,200 --configs default --drift-sizes 100 --no-passes; el done
  fi; } > $OUT/show_nexus.log 2>&1
( timeout $(left) $B/rigid_bench --sizes 5000,20000 --scenes pyramid --no-gpu --no-cpu > /tmp/rapier.log 2>&1
  timeout $(left) $B/rigid_bench --sizes 2500,10000 --scenes joint_grid --no-gpu >> /tmp/rapier.log 2>&1
  timeout $(left) $B/rigid_bench --sizes 1200,12000 --scenes ragdoll_rain --no-gpu >> /tmp/rapier.log 2>&1; cp /tmp/rapier.log $OUT/rapier.log ) &
run_suite
if ! grep -q '^parity_stages rc=0' /tmp/tl/RC; then
  L=$(left); timeout $L $B/tests/particles_parity_stages --test-threads 1 > /tmp/tl/particles_parity_stages_1thread.log 2>&1; echo "particles_parity_stages --test-threads 1 rc=$?" >> $OUT/tests.log
fi
wait
el end >> $OUT/tests.log
