//! Neighbor search: the uniform grid with per-cell AABBs (Takeshita's AABB pruning) and the
//! pruned / unpruned / brute-force searches into cached CSR neighbor lists.
//!
//! A step uses it as: [`NeighborSearch::build`] (construction: keys, counting sort, gather into
//! cell order, per-cell AABBs) then [`NeighborSearch::search`] (lists + counters). Callers reorder
//! their own per-particle arrays with [`Grid::permutation`] and [`gather`].

pub mod grid;
pub mod search;

pub use grid::{Aabb, CellSize, Grid, GridError, GridSpec, dist2, gather};
pub use search::{
    Kernel, NeighborLists, NeighborSearch, SearchMode, SearchStats, SoaPositions, kernel_in_use,
    search, set_kernel,
};
