//! The stencil of one cell as units (the run walk's view): pruned, one unit per non-empty cell;
//! unpruned, one unit per non-empty stencil row.
//!
//! Owns: [`Stencil`]. Does not touch: boxes or distances.

use crate::grid::Grid;

/// Most units a stencil can have (5 x 5 x 5 cells).
pub(crate) const MAX_UNITS: usize = 125;

/// The stencil of one cell: its units, in ascending key order. Pruned: one unit per non-empty
/// cell (its box is read from the grid by key). Unpruned: one unit per non-empty stencil row,
/// the row's cells being consecutive keys and so one contiguous slot range. Fixed arrays, rebuilt
/// when the walk over sorted particles enters a new cell (for cells of ~8 particles, once per
/// group, so it is kept to loads and stores).
pub(crate) struct Stencil {
    pub(crate) n: usize,
    pub(crate) key: [u32; MAX_UNITS],
    pub(crate) start: [u32; MAX_UNITS],
    pub(crate) end: [u32; MAX_UNITS],
    /// Bit `u % 32` of word `u / 32` is set when unit `u`'s key follows unit `u - 1`'s (pruned:
    /// neighboring cells of one row, whose slots are one range).
    pub(crate) cont: [u32; MAX_UNITS.div_ceil(32)],
    /// Non-empty cells in the stencil (for the counters).
    pub(crate) nonempty: u64,
    /// Particles in the stencil: an upper bound on one particle's neighbors.
    pub(crate) total: usize,
}

impl Stencil {
    pub(crate) fn new() -> Self {
        Stencil {
            n: 0,
            key: [0; MAX_UNITS],
            start: [0; MAX_UNITS],
            end: [0; MAX_UNITS],
            cont: [0; MAX_UNITS.div_ceil(32)],
            nonempty: 0,
            total: 0,
        }
    }

    #[inline(always)]
    pub(crate) fn build<const PRUNE: bool>(&mut self, grid: &Grid, key: usize) {
        let spec = grid.spec();
        let start = grid.cell_start();
        let r = spec.cell_size.reach();
        let [cx, cy, cz] = spec.coords_of(key);
        let [nx, ny, nz] = spec.dims;
        let (x0, x1) = (cx.saturating_sub(r), (cx + r).min(nx - 1));
        let mut n = 0;
        let mut total = 0;
        let mut nonempty = 0;
        for z in cz.saturating_sub(r)..=(cz + r).min(nz - 1) {
            for y in cy.saturating_sub(r)..=(cy + r).min(ny - 1) {
                let row = spec.key_of([0, y, z]);
                let cells = &start[row + x0..=row + x1 + 1];
                if PRUNE {
                    for (k, w) in cells.windows(2).enumerate() {
                        self.key[n] = (row + x0 + k) as u32;
                        self.start[n] = w[0];
                        self.end[n] = w[1];
                        n += (w[1] > w[0]) as usize;
                    }
                } else {
                    for w in cells.windows(2) {
                        nonempty += (w[1] > w[0]) as u64;
                    }
                    let (s, e) = (cells[0], cells[cells.len() - 1]);
                    self.start[n] = s;
                    self.end[n] = e;
                    n += (e > s) as usize;
                }
                total += (cells[cells.len() - 1] - cells[0]) as usize;
            }
        }
        // The run walk's joins.
        if PRUNE {
            self.cont = [0; MAX_UNITS.div_ceil(32)];
            for u in 1..n {
                if self.key[u] == self.key[u - 1] + 1 {
                    self.cont[u / 32] |= 1 << (u % 32);
                }
            }
        }
        self.n = n;
        self.total = total;
        self.nonempty = if PRUNE { n as u64 } else { nonempty };
    }
}
