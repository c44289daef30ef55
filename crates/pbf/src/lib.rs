//! # pbf: position-based fluids on the AABB-pruned neighbor search
//!
//! A multithreaded CPU solver for Position Based Fluids (Macklin & Müller 2013) built around the
//! uniform-grid neighbor search with per-cell bounding boxes of Takeshita's *AABB Pruning* paper
//! (the [`nsearch`] crate).
//!
//! Where things live:
//! - [`scene`]: TOML scene files, `--set` overrides, validation, fluid block sampling;
//! - [`particles`]: the one list of per-particle fields ([`Fluid`](particles::Fluid));
//! - [`solver`]: the step (predict, construction, search, density solve, forces), timed by
//!   phase as the paper's Table 1;
//! - [`checkpoint`]: the complete state at a step boundary, saved and read back exactly;
//! - [`boundary`]: colliders (the tank, obstacles), with the wall density the fluid feels;
//! - [`inflow`]: particles added during a run (emitters, timed blocks);
//! - [`sph`]: smoothing kernels (poly6, spiky), normalisation tested;
//! - [`io`]: VTU / VTK frames, the series files, atomic writes, the writer thread, point files;
//! - [`run`]: the one step loop every command drives (stop flag, finite check, progress, frames,
//!   summary);
//! - [`distributed`]: the fluid split over processes (MPI slabs behind the feature `mpi`), and
//!   the [`Halo`](distributed::Halo) calls the step makes for it;
//! - [`experiments`]: pruned against unpruned (`compare`: the paper's Tables 1 and 2 and Figure
//!   5), scaling, the Martin & Moyce validation and the search bench, with one report writer.
//!
//! Every parallel loop is a gather (each particle writes only its own slot), so results are
//! bit-identical for any thread count.

pub mod boundary;
pub mod checkpoint;
pub mod distributed;
pub mod experiments;
pub mod forces;
pub mod inflow;
pub mod io;
pub mod par;
pub mod particles;
pub mod pressure;
pub mod run;
pub mod scene;
pub mod solver;
pub mod sph;

pub use nsearch;
