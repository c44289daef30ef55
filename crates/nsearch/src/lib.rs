//! # nsearch: fixed-radius neighbor search on a uniform grid with AABB pruning
//!
//! The neighbor search of Takeshita's *AABB Pruning* paper as a library of its own: a uniform
//! grid rebuilt on every call (a deterministic parallel counting sort), a bounding box per cell,
//! and a stencil walk that skips every cell whose box lies beyond the radius. The pruned search
//! gives exactly the plain grid's lists (both are first-class, so they can be timed against each
//! other), cached in CSR form with the counters of the paper's Table 2.
//!
//! Where things live:
//! - [`spec`]: radius, cell size, pruned or unpruned ([`GridSpec`], [`CellSize`], [`SearchMode`])
//!   and the distance rule every mode shares;
//! - [`grid`]: construction (counting sort into cell order, per-cell boxes), [`gather`];
//! - [`search`](mod@search): the searcher ([`NeighborSearch`]: build, then search) and
//!   [`search()`];
//! - [`lists`]: [`NeighborLists`] (CSR) and [`SearchStats`] (the paper's counters);
//! - [`backend`]: the SIMD paths ([`Backend`]: portable, AVX2, AVX-512), chosen at run time and
//!   held by the searcher as a value;
//! - [`brute`]: the O(n^2) reference;
//! - [`points`]: generated clouds and `.xyz` files;
//! - `walk` (private): the stencil and the run walk every backend shares.
//!
//! Results never depend on the thread count: every parallel loop writes only its own slots.
//!
//! ## Example: one neighbor search
//! ```
//! use glam::Vec3A;
//! use nsearch::{CellSize, GridSpec, NeighborSearch, SearchMode};
//!
//! // Three particles on a line, 0.03 apart; search radius 0.04.
//! let points = [Vec3A::new(0.0, 0.0, 0.0), Vec3A::new(0.03, 0.0, 0.0), Vec3A::new(0.06, 0.0, 0.0)];
//! let spec = GridSpec::new(Vec3A::ZERO, Vec3A::splat(0.1), 0.04, CellSize::H).unwrap();
//! let mut search = NeighborSearch::new(spec, SearchMode::Pruned);
//! search.build(&points); // construction: sort into cell order, per-cell boxes
//! let stats = search.search(); // neighbor lists, cached until the next build
//!
//! // Lists hold slots in cell order (self included); map them back with the permutation.
//! let perm = search.grid().permutation();
//! let slot_of = |input: u32| perm.iter().position(|&p| p == input).unwrap();
//! let middle: Vec<u32> = search.lists().neighbors(slot_of(1)).iter().map(|&s| perm[s as usize]).collect();
//! assert_eq!(middle, vec![0, 1, 2]);
//! assert_eq!(stats.neighbors, 7); // 3 selves + 2 pairs, both ways
//! ```

pub mod backend;
pub mod brute;
pub mod grid;
pub mod lists;
pub mod points;
pub mod positions;
pub mod search;
pub mod spec;
mod walk;

pub use backend::Backend;
pub use grid::{CellBoxes, Grid, gather};
pub use lists::{BLOCK, NeighborLists, SearchStats};
pub use positions::{PAD, SoaPositions};
pub use search::{BackendUnavailable, NeighborSearch, search};
pub use spec::{Aabb, CellSize, GridError, GridSpec, SearchMode, dist2};
