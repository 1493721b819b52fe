// The block solver's entry points (solve.wgsl's stages, swept block by block); CPU twin:
// src/rigid/solver/block.rs. Its colouring, block_colour, is in colour.wgsl.

// ---------------------------------------------------------------------------------------------
// Block entry points (params.block_shift > 0; src/rigid/solver/block.rs): one indirect dispatch
// per partition, workgroup g solving the g-th non-empty bin of it (block_colour lists them; the
// leftover bin: one workgroup), `sweeps` times its colours in order with a barrier between
// colours. The bin's range in `order` is blocks[2b] to blocks[2b + 1]; each position of a colour's
// run holds the run's end in colour_sort_keys (block_colour).

// Threads of a block workgroup: one warp on NVIDIA; a bin's colour holds tens of contacts in a
// wall of boxes. lavapipe runs each 8 lanes of a workgroup with barriers as a coroutine, and its
// block sweeps were 2x slower with 64 threads than with 16 (BENCHMARKS.md, "Block solver").
const SOLVE_BLOCK_WG: u32 = 32u;
var<workgroup> solve_block_runs: array<u32, MAX_COLOURS>;
var<workgroup> solve_block_count: u32;

fn solve_block(stage: u32, part: u32, g: u32, t: u32, sweeps: u32) {
    var bin = block_leftover_bin();
    if (part < BLOCK_PARTITIONS) {
        bin = blocks[block_list_base(part) + g];
    }
    // Thread 0 lists where each colour's run ends (block_colour left the end at every position
    // of a run; a bin holds at most MAX_COLOURS runs), so that a run costs the workgroup one
    // barrier.
    if (t == 0u) {
        var pos = blocks[2u * bin];
        let end = blocks[2u * bin + 1u];
        var count = 0u;
        while (pos < end && count < MAX_COLOURS) {
            solve_block_runs[count] = colour_sort_keys[pos];
            pos = colour_sort_keys[pos] & ~BLOCK_RUN_SEQUENTIAL;
            count++;
        }
        solve_block_count = count;
    }
    let count = workgroupUniformLoad(&solve_block_count);
    let start = blocks[2u * bin];
    for (var s = 0u; s < sweeps; s++) {
        var pos = start;
        for (var r = 0u; r < count; r++) {
            let run = solve_block_runs[r] & ~BLOCK_RUN_SEQUENTIAL;
            let sequential = (solve_block_runs[r] & BLOCK_RUN_SEQUENTIAL) != 0u;
            solve_run(stage, t, SOLVE_BLOCK_WG, pos, run, sequential);
            storageBarrier();
            workgroupBarrier();
            pos = run;
        }
    }
}

// The warm-apply sweep runs through this entry too (`warm` in its pass record), as with
// solve_contact.
@compute @workgroup_size(SOLVE_BLOCK_WG)
fn solve_contact_block(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let stage = select(SOLVE_STAGE_CONTACT, SOLVE_STAGE_WARM, pass_info.warm != 0u);
    solve_block(stage, pass_info.colour, wg.x, t, 1u);
}

@compute @workgroup_size(SOLVE_BLOCK_WG)
fn solve_relax_block(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    solve_block(SOLVE_STAGE_RELAX, pass_info.colour, wg.x, t, params.block_sweeps);
}

@compute @workgroup_size(SOLVE_BLOCK_WG)
fn solve_restitution_block(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    solve_block(SOLVE_STAGE_RESTITUTION, pass_info.colour, wg.x, t, 1u);
}

@compute @workgroup_size(SOLVE_BLOCK_WG)
fn solve_position_block(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    solve_block(SOLVE_STAGE_POSITION, pass_info.colour, wg.x, t, 1u);
}
