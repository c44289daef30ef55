//! The grid walks shared by every backend: a block of sorted slots, the stencil of each cell,
//! and the run walk over each particle's kept cells.
//!
//! Owns: the block's arguments ([`BlockArgs`]) and the list buffer's growth ([`reserve`]). Does
//! not touch: lanes (the backends) or the lists' offsets (`lists`).

pub(crate) mod run_walk;
pub(crate) mod stencil;

use crate::grid::{CellBoxes, Grid};
use crate::positions::SoaPositions;

/// Make room for `need` more indices in a block's buffer, growing to the block's projected size
/// (so the lists hold little more memory than they use, and grow once, not by doubling).
#[inline(always)]
pub(crate) fn reserve(out: &mut Vec<u32>, need: usize, done: usize, block_len: usize) {
    if out.capacity() - out.len() < need {
        let per = out.len() / done.max(1) + 1;
        let projected = per * (block_len - done) + need;
        out.reserve_exact(projected);
    }
}

/// The grid search's inputs for one block `[lo, hi)` of sorted slots.
pub(crate) type BlockArgs<'a> = (
    &'a Grid,
    &'a SoaPositions,
    Option<CellBoxes<'a>>,
    f32,
    usize,
    usize,
);
