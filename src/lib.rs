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
//! - [`bench`]: the timing harness behind `pbf bench-search`.

pub mod bench;
pub mod neighbors;
pub mod points;
