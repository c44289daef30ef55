//! # pbf: position-based fluids with AABB-pruned neighbor search
//!
//! A multithreaded CPU solver for Position Based Fluids (Macklin & Müller 2013) built around the
//! uniform-grid neighbor search with per-cell axis-aligned bounding boxes of Takeshita's
//! *AABB Pruning* paper.
//!
//! Where things live:
//! - [`neighbors`]: grid construction (parallel counting sort, per-cell AABBs) and the pruned,
//!   unpruned and brute-force searches into cached CSR neighbor lists, with counters;
//! - [`points`]: point clouds for benchmarks (jittered lattices, `.xyz`, `.vtu`/`.vtk` frames);
//! - [`pbf`]: the solver step (Macklin & Müller 2013), with vorticity confinement and XSPH;
//! - [`boundary`]: colliders (the tank now), with the wall density the fluid feels;
//! - [`output`]: VTU / VTK frames, the PVD series, the background writer;
//! - [`scene`]: TOML scene files, overrides, validation, fluid block sampling;
//! - [`sph`]: smoothing kernels (poly6, spiky), normalisation tested;
//! - [`bench`](mod@bench): the timing harness behind `pbf bench-search`;
//! - [`scaling`]: time per particle-step against particle and thread count (`pbf scaling`);
//! - [`compare`]: pruned against unpruned on one simulation (`pbf compare`): the paper's
//!   Tables 1 and 2, its Figure 5 as SVG, a CSV of every step;
//! - [`validation`]: the surge front of a collapsing column against Martin & Moyce's
//!   experiment (`pbf validate`).
//!
//! ## Example: one neighbor search
//! ```
//! use glam::Vec3A;
//! use pbf::neighbors::{CellSize, GridSpec, NeighborSearch, SearchMode};
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

pub mod bench;
pub mod boundary;
pub mod compare;
pub mod neighbors;
pub mod output;
pub mod pbf;
pub mod points;
pub mod scaling;
pub mod scene;
pub mod sph;
pub mod validation;
