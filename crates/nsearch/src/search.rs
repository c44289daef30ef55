//! The searcher: grid, sorted positions, lists and the chosen backend, for one search mode.
//!
//! Owns: [`NeighborSearch`] (build, then search, every step) and [`search`], the grid search
//! over one sorted grid. Does not touch: the backends' loops (`backend`) or the walk (`walk`).
//!
//! ## The one neighbor rule (all modes)
//! Particle `j` is a neighbor of particle `i` iff `dist2(x_i, x_j) <= h * h`, with
//! [`dist2`](crate::dist2) computed in f32 as `(dx*dx + dy*dy) + dz*dz`. The particle itself
//! is included (distance 0), as SPH sums need. Indices are slots in cell order (the order of the
//! sorted positions the search was given), and each list is in ascending slot order.
//!
//! ## Modes
//! - `unpruned`: the plain uniform grid: every particle of every stencil cell is a candidate.
//!   The cells of one stencil row (x - r ..= x + r) are consecutive keys and therefore one
//!   contiguous slot range, so a row is scanned as one run.
//! - `pruned`: the paper's AABB pruning: a stencil cell is skipped when the squared distance from
//!   the particle to the cell's box exceeds `h * h` (Ericson's per-axis excess). The particle's own
//!   cell is tested like any other, as the paper argues. Gives exactly the unpruned lists.
//! - `brute`: every pair, O(n^2); a reference for tests only.

use crate::backend::{Backend, search_block};
use crate::brute::brute_force;
use crate::grid::Grid;
use crate::lists::{NeighborLists, SearchStats};
use crate::positions::SoaPositions;
use crate::spec::{GridSpec, SearchMode};
use glam::Vec3A;

/// The backend asked for cannot run on this CPU.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("this CPU cannot run the {0} search backend")]
pub struct BackendUnavailable(pub Backend);

/// Search neighbors of every particle of `sorted` (positions in the cell order of the grid's
/// last sort) on `backend` and store them in `lists`. `Pruned` needs the grid's AABBs
/// ([`Grid::gather_sorted`] with boxes); `Brute` ignores the grid.
///
/// # Panics
/// If `backend` cannot run on this CPU (see [`Backend::available`]), or `sorted` is not from
/// the grid's last sort.
pub fn search(
    grid: &Grid,
    sorted: &SoaPositions,
    mode: SearchMode,
    backend: Backend,
    lists: &mut NeighborLists,
) -> SearchStats {
    let n = sorted.len();
    let radius = grid.spec().radius;
    let h2 = radius * radius;
    match mode {
        SearchMode::Brute => brute_force(sorted, radius, lists),
        SearchMode::Unpruned | SearchMode::Pruned => {
            assert_eq!(grid.len(), n, "positions not from the grid's last sort");
            assert!(backend.available(), "{}", BackendUnavailable(backend));
            let aabbs =
                if mode == SearchMode::Pruned {
                    Some(grid.boxes().expect(
                        "pruned search needs the boxes of Grid::gather_sorted after the sort",
                    ))
                } else {
                    None
                };
            let backend = backend.resolve();
            lists.fill(n, |lo, hi, out, counts| {
                search_block(backend, (grid, sorted, aabbs, h2, lo, hi), out, counts)
            })
        }
    }
}

/// Grid + sorted positions + lists for one search mode and backend: the whole per-step neighbor
/// search.
#[derive(Debug)]
pub struct NeighborSearch {
    mode: SearchMode,
    backend: Backend,
    grid: Grid,
    sorted: SoaPositions,
    lists: NeighborLists,
}

impl NeighborSearch {
    /// A searcher on the fastest backend this CPU runs.
    pub fn new(spec: GridSpec, mode: SearchMode) -> Self {
        NeighborSearch {
            mode,
            backend: Backend::Auto.resolve(),
            grid: Grid::new(spec),
            sorted: SoaPositions::default(),
            lists: NeighborLists::new(),
        }
    }

    /// This searcher on `backend` (resolved: `Auto` becomes the fastest this CPU runs); fails,
    /// changing nothing, when the CPU cannot run it.
    pub fn with_backend(mut self, backend: Backend) -> Result<Self, BackendUnavailable> {
        self.set_backend(backend)?;
        Ok(self)
    }

    /// Switch to `backend` (see [`with_backend`](Self::with_backend)).
    pub fn set_backend(&mut self, backend: Backend) -> Result<(), BackendUnavailable> {
        if !backend.available() {
            return Err(BackendUnavailable(backend));
        }
        self.backend = backend.resolve();
        Ok(())
    }

    /// The backend searches run on (never `Auto`).
    pub fn backend(&self) -> Backend {
        self.backend
    }

    pub fn mode(&self) -> SearchMode {
        self.mode
    }

    pub fn set_mode(&mut self, mode: SearchMode) {
        self.mode = mode;
    }

    /// Construction: sort `positions` into cell order, gather them, and (pruned) build the AABBs.
    pub fn build(&mut self, positions: &[Vec3A]) {
        self.grid.sort(positions);
        let aabbs = self.mode == SearchMode::Pruned;
        self.grid.gather_sorted(positions, &mut self.sorted, aabbs);
    }

    /// Search on the positions of the last [`build`](Self::build).
    pub fn search(&mut self) -> SearchStats {
        search(
            &self.grid,
            &self.sorted,
            self.mode,
            self.backend,
            &mut self.lists,
        )
    }

    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    pub fn grid_mut(&mut self) -> &mut Grid {
        &mut self.grid
    }

    /// Positions in cell order (slot order of the lists).
    pub fn sorted_positions(&self) -> &SoaPositions {
        &self.sorted
    }

    pub fn lists(&self) -> &NeighborLists {
        &self.lists
    }

    /// Bytes held by grid, sorted positions and lists (capacities).
    pub fn memory_bytes(&self) -> usize {
        self.grid.memory_bytes() + self.sorted.memory_bytes() + self.lists.memory_bytes()
    }
}
