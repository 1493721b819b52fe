#!/usr/bin/env bash
# Builds the release test binaries, the benchmarks and the fireworks example, strips them and
# packs them into .gpu/bins.tar.xz for a lent GPU machine (which has no Rust and no network).
# Run from the repository root; see benches/device/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .gpu
log=$(mktemp)
cargo test --release --no-run --all-features 2>&1 | tee "$log" | grep -E '^error' || true
cargo build --release --examples
cargo build --release -p wgphys-rigid-bench
cargo build --release -p wgphys-particle-bench
stage=$(mktemp -d)
mkdir -p "$stage/tests"
grep 'Executable' "$log" | sed 's/.*(\(.*\))/\1/' | while read -r f; do
  cp "$f" "$stage/tests/$(basename "$f" | sed 's/-[0-9a-f]*$//')"
done
cp target/release/rigid_bench target/release/bench target/release/examples/fireworks \
  target/release/stream_probe "$stage/"
strip "$stage"/tests/* "$stage/rigid_bench" "$stage/bench" "$stage/fireworks" "$stage/stream_probe"
{ git log -1 --format='%h %s'; git status --short; } > "$stage/COMMIT"
# VARIANTS="name=<commit> ...": also those commits' rigid benchmarks, as rigid_bench_<name>,
# which focus.sh alternates with the checkout's (before/after rows on one device). Each is built
# in a worktree sharing this checkout's target/; the checkout's benchmark is relinked after.
# BASE=<commit> is short for VARIANTS="base=<commit>".
VARIANTS="${VARIANTS:-${BASE:+base=$BASE}}"
if [ -n "$VARIANTS" ]; then
  root=$(pwd)
  for v in $VARIANTS; do
    name=${v%%=*}; rev=${v#*=}
    wt=$(mktemp -d)/variant
    git worktree add --detach "$wt" "$rev" >/dev/null
    (cd "$wt" && CARGO_TARGET_DIR="$root/target" cargo build --release -p wgphys-rigid-bench)
    cp target/release/rigid_bench "$stage/rigid_bench_$name"
    strip "$stage/rigid_bench_$name"
    git worktree remove --force "$wt"
    echo "$name: $(git log -1 --format='%h %s' "$rev")" >> "$stage/COMMIT"
  done
  # The variants' builds left theirs at target/release/rigid_bench; cargo sees the checkout's
  # as fresh, so relink it.
  touch benches/rigid/src/main.rs
  cargo build --release -p wgphys-rigid-bench
fi
tar -cJf .gpu/bins.tar.xz -C "$stage" .
cp benches/device/common.sh benches/device/run.sh benches/device/focus.sh .gpu/
ls -la .gpu/bins.tar.xz
