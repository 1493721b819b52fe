//! Stage `colour` (GPU: `colour_manifolds`, or `colour_init` / `colour_claim` / `colour_round` /
//! `colour_keys` / the sort by colour / `colour_ranges` in `shaders/rigid/colour.wgsl`): the
//! solver's batches. A colour is a set of
//! manifolds that share no dynamic body, so one thread per manifold may write its bodies without
//! atomics, and the colours run one after the other. The colouring is the greedy first-fit one
//! in decreasing [`claim_priority`], computed in parallel by Jones–Plassmann rounds with integer
//! max and bitwise or only, so the CPU and every GPU get the same colours whichever way the
//! rounds are dispatched.

use super::types::*;

/// An awake dynamic body (the static world [`NONE`] is not).
fn is_dynamic(bodies: &[GpuBody], i: u32) -> bool {
    i != NONE
        && bodies
            .get(i as usize)
            .is_some_and(|b| b.kind == body_kind::DYNAMIC && b.awake != 0)
}

/// Colouring rounds: a manifold still waiting after them (a chain of decreasing priorities
/// longer than this) goes to [`SEQUENTIAL_COLOUR`]. Also the number of round passes of a
/// large scene (`colour_round`, then `colour_round_listed` after
/// [`COLOUR_ROUNDS_OVER_ALL`]).
pub const COLOUR_ROUNDS: u32 = 32;

/// Rounds of the colouring in passes that visit every pair slot; the last of them lists the
/// manifolds still waiting (in `order`), and the rounds after it visit that list alone, in a
/// pass of their own after the list's indirect arguments are copied (`rigid_colour`). A wall
/// of boxes colours about a tenth of its manifolds a round (the 5k wall: 14,950 waiting at
/// round 0, 1,903 after 12, none after 22), so the later rounds visit an eighth as many slots
/// or fewer; the result is the same, since a round's outcome depends only on which
/// manifolds wait.
pub const COLOUR_ROUNDS_OVER_ALL: u32 = 12;
const _: () = assert!(COLOUR_ROUNDS_OVER_ALL >= 1 && COLOUR_ROUNDS_OVER_ALL < COLOUR_ROUNDS);

/// The colour that takes every manifold no independent colour (`0..MAX_COLOURS − 1`) holds;
/// it is solved by one thread, in index order, so nothing is dropped.
pub const SEQUENTIAL_COLOUR: u32 = MAX_COLOURS - 1;

/// The first colour of the tail of a solver with `slots` colour slots
/// (`GpuRigidParams::colour_slots`; 0 or more than [`MAX_COLOURS`] mean [`MAX_COLOURS`]): a
/// sweep dispatches colours `0..slots − 1` one by one and then one workgroup that solves the
/// colours from `slots − 1` on, one after the other with a barrier between them (the same
/// batches in the same order, so the same result as one dispatch each).
pub fn tail_colour(slots: u32) -> u32 {
    if slots == 0 || slots > MAX_COLOURS {
        MAX_COLOURS - 1
    } else {
        slots - 1
    }
}

/// With `auto_grow`, a step whose tail holds more manifolds than this adds a colour slot for
/// the next steps: the tail is one workgroup, fast for a few rounds of [`RIGID_WG`] manifolds
/// and slow for a whole colour of a large scene.
pub const TAIL_MAX_MANIFOLDS: u32 = 4 * RIGID_WG;

/// Pair capacities up to this colour in one single-workgroup dispatch (`colour_manifolds`);
/// larger ones run the rounds as passes (`colour_init`, `colour_claim`, the
/// [`COLOUR_ROUNDS`] round passes, the first [`COLOUR_ROUNDS_OVER_ALL`] over every manifold
/// and the rest over those still waiting, `colour_keys`, the sort by colour and
/// `colour_ranges`), because
/// software adapters cut one invocation's loops short after about 65535 iterations.
pub const COLOUR_FUSED_MAX_MANIFOLDS: u32 = 16384;

/// The result of [`colour`]: batches of manifolds that share no dynamic body.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Colouring {
    /// Colour of every manifold ([`NONE`] when it needs no solving); also written into
    /// `GpuManifold::colour`.
    pub colours: Vec<u32>,
    /// Manifold indices sorted by colour, by index inside a colour.
    pub order: Vec<u32>,
    /// `MAX_COLOURS + 1` offsets into `order`: colour `c` is `order[start[c]..start[c + 1]]`.
    pub colour_start: Vec<u32>,
    /// Colours in use.
    pub colour_count: u32,
    /// Manifolds put in [`SEQUENTIAL_COLOUR`] because the independent colours ran out.
    pub uncoloured: u32,
    /// Contact manifolds with at least one point (joints' slots not counted).
    pub manifolds: u32,
    /// The highest first-fit colour any manifold asked for, plus one (above
    /// [`SEQUENTIAL_COLOUR`] when a body's contacts needed more colours than there are).
    pub colours_wanted: u32,
    /// Colouring rounds that coloured something (at most [`COLOUR_ROUNDS`]).
    pub rounds: u32,
    /// Manifolds in the tail, the colours from [`tail_colour`]`(slots)` on.
    pub tail: u32,
}

impl Colouring {
    /// The manifolds of colour `c`, in the order the solver visits them.
    pub fn batch(&self, c: u32) -> &[u32] {
        let c = c as usize;
        match (self.colour_start.get(c), self.colour_start.get(c + 1)) {
            (Some(&s), Some(&e)) => self.order.get(s as usize..e as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// Writes every manifold's [`GpuManifold::dynamic`] bits: which of its bodies the solver moves
/// this step (an awake dynamic body), as the GPU colouring's `colour_reset` does once per step
/// for every slot, so that the colouring rounds and the solver sweeps read them with the body
/// ids instead of each body's kind and awake flag.
pub fn mark_dynamic(bodies: &[GpuBody], manifolds: &mut [GpuManifold]) {
    for m in manifolds.iter_mut() {
        if m.dynamic & MANIFOLD_SENSOR != 0 {
            // A sensor's pair moves no body (the narrow phase set the bit).
            m.dynamic = MANIFOLD_SENSOR;
            continue;
        }
        m.dynamic = if is_dynamic(bodies, m.body_a) {
            MANIFOLD_DYNAMIC_A
        } else {
            0
        } | if is_dynamic(bodies, m.body_b) {
            MANIFOLD_DYNAMIC_B
        } else {
            0
        };
    }
}

/// Whether a slot is a contact manifold with points (what [`Colouring::manifolds`] counts; a
/// joint's slot is not one; WGSL `colour_contact`).
pub fn is_contact(m: &GpuManifold) -> bool {
    m.count > 0 && m.joint == 0
}

/// A manifold is solved when it has points and at least one awake dynamic body.
pub(crate) fn needs_solve(bodies: &[GpuBody], m: &GpuManifold) -> bool {
    let awake_dynamic =
        |i: u32| is_dynamic(bodies, i) && bodies.get(i as usize).is_some_and(|b| b.awake != 0);
    m.count > 0
        && m.dynamic & MANIFOLD_SENSOR == 0
        && (awake_dynamic(m.body_a) || awake_dynamic(m.body_b))
}

/// Order-independent claim priority of manifold k: a bijection on 31 bits of k + 1, so it is
/// unique, never 0 (`CLAIM_FREE`) and never `CLAIM_TAKEN`. Hashing instead of using k
/// avoids the index-ordered chains (manifold k touching k+1) that would colour one per round.
pub fn claim_priority(k: u32) -> u32 {
    const MASK: u32 = 0x7fff_ffff;
    let mut x = (k + 1) & MASK;
    x ^= x >> 16;
    x = x.wrapping_mul(0x045d_9f3b) & MASK;
    x ^= x >> 16;
    x = x.wrapping_mul(0x045d_9f3b) & MASK;
    x ^= x >> 16;
    x
}

/// Stage `colour` (GPU: `colour_manifolds`, or `colour_init` / `colour_claim` /
/// `colour_round` / `colour_keys` / the sort / `colour_ranges`): deterministic colouring such that no two manifolds of a
/// colour share a dynamic body, then a counting sort of manifold indices by colour.
///
/// The colouring is the greedy one in decreasing [`claim_priority`], computed by
/// Jones–Plassmann rounds: in each round every waiting manifold (it needs solving and has no
/// colour) claims its dynamic bodies with `max(claim, priority)`; one that holds all of them
/// has no waiting neighbour of higher priority, and takes the lowest colour that none of its
/// bodies' coloured manifolds uses (first fit, from a 32-bit mask per body). Winners of a round
/// share no body. Integer max and bitwise or do not depend on the order of the claims, so the
/// result is the same on the CPU and on any GPU, whichever way the rounds are dispatched. A
/// manifold whose first fit is [`SEQUENTIAL_COLOUR`] or above, or that still waits after
/// [`COLOUR_ROUNDS`] rounds, goes to [`SEQUENTIAL_COLOUR`] and is counted in `uncoloured`.
/// Writes every manifold's colour and its `dynamic` bits ([`mark_dynamic`]).
pub fn colour(bodies: &[GpuBody], manifolds: &mut [GpuManifold]) -> Colouring {
    colour_in(bodies, manifolds, MAX_COLOURS)
}

/// [`colour`] for a solver of `slots` colour slots: the same colours (the slots only decide
/// which colours a sweep dispatches one by one and which the tail solves), and the tail's
/// size.
pub fn colour_in(bodies: &[GpuBody], manifolds: &mut [GpuManifold], slots: u32) -> Colouring {
    mark_dynamic(bodies, manifolds);
    let sequential = SEQUENTIAL_COLOUR;
    let n = manifolds.len();
    let solvable: Vec<bool> = manifolds.iter().map(|m| needs_solve(bodies, m)).collect();
    let dyn_bodies: Vec<[Option<usize>; 2]> = manifolds
        .iter()
        .map(|m| {
            let d = |i: u32| is_dynamic(bodies, i).then_some(i as usize);
            // A manifold of a body with itself claims it once.
            let b = if m.body_b == m.body_a {
                None
            } else {
                d(m.body_b)
            };
            [d(m.body_a), b]
        })
        .collect();
    let manifold_count = manifolds.iter().filter(|m| is_contact(m)).count() as u32;
    let mut colours = vec![NONE; n];
    let mut claims = vec![0u32; bodies.len()];
    let mut masks = vec![0u32; bodies.len()];
    let mut waiting: Vec<usize> = (0..n).filter(|&k| solvable[k]).collect();
    let (mut colours_wanted, mut rounds) = (0u32, 0u32);
    for r in 0..COLOUR_ROUNDS {
        if waiting.is_empty() {
            break;
        }
        for &k in &waiting {
            for &b in dyn_bodies[k].iter().flatten() {
                claims[b] = 0;
            }
        }
        for &k in &waiting {
            let p = claim_priority(k as u32);
            for &b in dyn_bodies[k].iter().flatten() {
                claims[b] = claims[b].max(p);
            }
        }
        let (won, still): (Vec<usize>, Vec<usize>) = waiting.iter().partition(|&&k| {
            let p = claim_priority(k as u32);
            dyn_bodies[k].iter().flatten().all(|&b| claims[b] == p)
        });
        for &k in &won {
            let used = dyn_bodies[k]
                .iter()
                .flatten()
                .fold(0u32, |acc, &b| acc | masks[b]);
            let c = (!used).trailing_zeros().min(sequential);
            if c < sequential {
                for &b in dyn_bodies[k].iter().flatten() {
                    masks[b] |= 1 << c;
                }
            }
            colours[k] = c;
            colours_wanted = colours_wanted.max(c + 1);
            rounds = r + 1;
        }
        waiting = still;
    }
    for &k in &waiting {
        colours[k] = sequential;
    }
    let uncoloured = colours.iter().filter(|&&c| c == sequential).count() as u32;
    let colour_count = colours
        .iter()
        .filter(|&&c| c != NONE)
        .map(|&c| c + 1)
        .max()
        .unwrap_or(0);
    // Counting sort, index order inside a colour.
    let mut colour_start = vec![0u32; MAX_COLOURS as usize + 1];
    for &col in colours.iter().filter(|&&col| col != NONE) {
        colour_start[col as usize + 1] += 1;
    }
    for i in 0..MAX_COLOURS as usize {
        colour_start[i + 1] += colour_start[i];
    }
    let mut cursor = colour_start.clone();
    let mut order = vec![0u32; colour_start[MAX_COLOURS as usize] as usize];
    for (k, &col) in colours.iter().enumerate() {
        if col != NONE {
            order[cursor[col as usize] as usize] = k as u32;
            cursor[col as usize] += 1;
        }
    }
    for (m, &col) in manifolds.iter_mut().zip(&colours) {
        m.colour = col;
    }
    let tail = colour_start[MAX_COLOURS as usize] - colour_start[tail_colour(slots) as usize];
    Colouring {
        colours,
        order,
        colour_start,
        colour_count,
        uncoloured,
        manifolds: manifold_count,
        colours_wanted,
        rounds,
        tail,
    }
}

/// What the CPU solver sweeps: stage `colour`'s batches.
#[derive(Clone, Debug)]
pub enum Batches {
    /// The colouring of the whole scene, colour after colour.
    Colours(Colouring),
    /// With the block solver ([`crate::rigid::step::block_solver`]): bin by bin, each bin's colours in order.
    Blocks(crate::rigid::solver::block::BlockOrder),
}

impl Batches {
    /// Stage `colour` on the CPU: [`crate::rigid::solver::block::block_colour`] when the step runs block by
    /// block, else [`colour_in`]; writes every manifold's colour and `dynamic` bits.
    pub fn colour(
        params: &GpuRigidParams,
        bodies: &[GpuBody],
        manifolds: &mut [GpuManifold],
    ) -> Self {
        if crate::rigid::step::block_solver(params) {
            Self::Blocks(crate::rigid::solver::block::block_colour(
                params, bodies, manifolds,
            ))
        } else {
            Self::Colours(colour_in(bodies, manifolds, params.colour_slots))
        }
    }

    /// The batches as a colouring (with blocks, a batch is one bin's colour).
    pub fn colouring(&self) -> &Colouring {
        match self {
            Self::Colours(c) => c,
            Self::Blocks(b) => &b.batches,
        }
    }

    /// Colours in use.
    pub fn colours(&self) -> u32 {
        match self {
            Self::Colours(c) => c.colour_count,
            Self::Blocks(b) => b.colours,
        }
    }
}
