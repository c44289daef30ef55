//! The run walk: the grid search of one block, cell-centric, for every backend.
//!
//! Owns: [`grid_block`] and its group and particle loops. Does not touch: the lanes' arithmetic
//! (the backend's [`Lanes`]) or where hits are stored (its [`StepSink`]).

use super::stencil::{MAX_UNITS, Stencil};
use super::{BlockArgs, reserve};
use crate::backend::{G, Lanes, StepSink};
use crate::grid::CellBoxes;
use crate::lists::SearchStats;
use crate::positions::SoaPositions;

/// Grid search over one block, cell-centric:
/// 1. the block's particles are walked in cell order, in groups of up to `L::GROUP` (8, or 16
///    with AVX-512) of the same cell, which share one stencil;
/// 2. (pruned) each stencil cell's box is tested against the whole group in one vector step, and
///    the results are accumulated into each particle's own bit mask of kept cells (unpruned: every
///    unit is kept);
/// 3. each particle then walks its kept units in ascending order, joining kept cells that are
///    neighbors in one stencil row into one run (their slots are one range, so two kept cells of 8
///    fill one 16-slot step instead of two part-filled ones). Each run is scanned in distance steps
///    of `L::STEP` slots whose kept indices are compacted straight into the particle's list, in
///    ascending slot order.
///
/// Pruning therefore removes exactly the candidates of the skipped cells (the counters are the
/// paper's), and the box tests are shared by the group. The particle-major walk keeps the
/// particle's position and list length in registers. The time of a search is mostly per run and
/// per group, not per candidate (see docs/results.md), which is why pruning saves
/// less time than candidates.
/// Nothing is allocated once the block's buffer has grown.
#[inline(always)]
pub(crate) fn grid_block<const PRUNE: bool, L: Lanes, Q: StepSink<L>>(
    args: BlockArgs,
    out: &mut Vec<u32>,
    counts: &mut [u32],
) -> SearchStats {
    let (grid, _, _, _, lo, hi) = args;
    let keys = grid.sorted_keys();
    let cell_start = grid.cell_start();
    let mut st = SearchStats::default();
    let mut stencil = Stencil::new();
    let mut cur = u32::MAX;
    let mut i0 = lo;
    while i0 < hi {
        let key = keys[i0];
        if key != cur {
            stencil.build::<PRUNE>(grid, key as usize);
            cur = key;
        }
        let g1 = (i0 + L::GROUP)
            .min(hi)
            .min(cell_start[key as usize + 1] as usize);
        group_run_walk::<PRUNE, L, Q>(args, &stencil, (i0, g1), out, counts, &mut st);
        i0 = g1;
    }
    st.neighbors = out.len() as u64;
    st
}

/// Steps 2 and 3 of [`grid_block`] for one group, slots `i0..g1` of one cell (at most
/// `L::GROUP`) in the block of `args`: the box tests (pruned) and the run walk, whose indices are
/// appended to `out` and whose running totals go to `counts`; the counters are added to `st`.
#[inline(always)]
pub(crate) fn group_run_walk<const PRUNE: bool, L: Lanes, Q: StepSink<L>>(
    (_, pos, aabbs, h2, lo, hi): BlockArgs,
    stencil: &Stencil,
    (i0, g1): (usize, usize),
    out: &mut Vec<u32>,
    counts: &mut [u32],
    st: &mut SearchStats,
) {
    let boxes = aabbs.unwrap_or(CellBoxes::NONE);
    let gn = g1 - i0;
    debug_assert!(gn <= L::GROUP && i0 + L::GROUP <= pos.x.len());
    let units = stencil.n;
    let words = units.div_ceil(32);
    // 2. Each particle's kept units, 32 units per word (MAX_UNITS <= 128).
    let mut masks = [[0u32; G]; MAX_UNITS.div_ceil(32)];
    for (w, acc) in masks[..words].iter_mut().enumerate() {
        let (u0, u1) = (32 * w, (32 * w + 32).min(units));
        if PRUNE {
            // SAFETY: i0 is a data slot, so i0 + GROUP is within the padded arrays.
            *acc = unsafe { L::box_word(pos, i0, boxes, &stencil.key[u0..u1], h2) };
        } else {
            *acc = [u32::MAX >> (32 - (u1 - u0)); G];
        }
    }
    // 3. Distance steps straight into the lists.
    reserve(out, gn * stencil.total + L::STEP, i0 - lo, hi - lo);
    let dst = out.as_mut_ptr();
    let cs = &mut counts[i0 - lo..g1 - lo];
    let (at, tested, kept_units) =
        run_walk::<L, Q>(pos, i0, &masks[..words], stencil, h2, dst, out.len(), cs);
    // SAFETY: slots up to `at` were written above, within the reserved capacity.
    unsafe { out.set_len(at) };
    st.candidates += tested;
    st.cells_visited += stencil.nonempty * gn as u64;
    if PRUNE {
        st.cells_pruned += units as u64 * gn as u64 - kept_units;
    }
}

/// The run walk of one group: each particle walks its kept units in ascending order, joining
/// kept cells that are neighbors in one stencil row into one run (one slot range), and scans each
/// run in steps of `L::STEP` slots whose hits go straight to its list. `masks[w][l]` is particle
/// `i0 + l`'s kept units `32 w..`. Returns the new list length, the candidates tested and the
/// kept units.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run_walk<L: Lanes, Q: StepSink<L>>(
    pos: &SoaPositions,
    i0: usize,
    masks: &[[u32; G]],
    stencil: &Stencil,
    h2: f32,
    dst: *mut u32,
    mut at: usize,
    counts: &mut [u32],
) -> (usize, u64, u64) {
    let (mut tested, mut kept_units) = (0u64, 0u64);
    let mut sink = Q::start(at);
    for (i, count) in counts.iter_mut().enumerate() {
        let p = [pos.x[i0 + i], pos.y[i0 + i], pos.z[i0 + i]];
        let mut len = 0usize;
        for (w, acc) in masks.iter().enumerate() {
            let m = acc[i];
            kept_units += m.count_ones() as u64;
            // Kept units that continue a run: kept, key-adjacent to the unit before, which is
            // kept too. Key-adjacent cells are slot-adjacent, so a run is one range.
            let more = m & stencil.cont[w] & (m << 1);
            let mut starts = m & !more;
            while starts != 0 {
                let s = starts.trailing_zeros();
                starts &= starts - 1;
                let run = (!(more >> s >> 1)).trailing_zeros() as usize;
                let u = 32 * w + s as usize;
                let (mut c, e) = (stencil.start[u], stencil.end[u + run]);
                tested += (e - c) as u64;
                // One step per STEP particles of the run.
                loop {
                    let valid = (1u32 << (e - c).min(L::STEP as u32)) - 1;
                    // SAFETY: c is a data slot (padding covers c + STEP); the caller's `dst`
                    // has room for counts.len() * stencil.total + STEP more indices, and this
                    // particle has written at most stencil.total of them before this write.
                    len += unsafe { sink.step(pos, c as usize, p, h2, valid, dst, at + len) };
                    c += L::STEP as u32;
                    if c >= e {
                        break;
                    }
                }
            }
        }
        at += len;
        *count = at as u32;
    }
    // SAFETY: the steps above were given `dst`.
    unsafe { sink.finish(dst) };
    (at, tested, kept_units)
}
