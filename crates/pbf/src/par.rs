//! The shape of every per-particle pass: a parallel gather, each particle writing only its own
//! slot, so results do not depend on the thread count.
//!
//! Owns: [`par_gather`], [`par_gather2`], the task size [`CHUNK`], and the [`Scratch`] buffers
//! the step's phases share. Does not touch: what a pass computes.

use glam::{Vec3A, Vec4};
use rayon::prelude::*;

/// Per-particle buffers the phases of a step share, so no phase holds memory of its own between
/// its passes (at 1M particles each is 16 MB): a phase may use them only while it runs, and
/// finds their contents unspecified. Resized, never shrunk, so nothing is allocated per step.
#[derive(Debug, Default)]
pub struct Scratch {
    pub v3: Vec<Vec3A>,
    pub v4: Vec<Vec4>,
    /// The solids' density and gradient at each particle (`boundary::ColliderSet::solid_density`;
    /// stays empty in scenes without obstacles).
    pub solid: Vec<Vec4>,
    /// The smoothed velocity differences of the step's kinematics pass
    /// (`sph::kinematics`; stays empty when no force reads them).
    pub smoothing: Vec<Vec3A>,
    /// The vorticity confinement's η from the same pass (stays empty when the confinement is
    /// off).
    pub eta: Vec<Vec3A>,
    /// The surface normals from the same pass, with each particle's volume in w, and the
    /// positions with the solve's volumes that it weighs them by (both stay empty without
    /// surface tension).
    pub normals: Vec<Vec4>,
    pub pv: Vec<Vec4>,
    /// The velocities with each particle's swirl in w, that the kinematics pass walks for the
    /// confinement's η (stays empty when the confinement is off).
    pub vs: Vec<Vec4>,
}

/// Particles per rayon task in the solver's loops.
pub const CHUNK: usize = 256;

/// `out[i] = f(i)` for every particle, in parallel.
pub fn par_gather<T: Send>(out: &mut [T], f: impl Fn(usize) -> T + Sync) {
    out.par_iter_mut()
        .enumerate()
        .with_min_len(CHUNK)
        .for_each(|(i, o)| *o = f(i));
}

/// [`par_gather`] for passes with two outputs: `(a[i], b[i]) = f(i)`.
pub fn par_gather2<A: Send, B: Send>(a: &mut [A], b: &mut [B], f: impl Fn(usize) -> (A, B) + Sync) {
    a.par_iter_mut()
        .zip(b.par_iter_mut())
        .enumerate()
        .with_min_len(CHUNK)
        .for_each(|(i, (x, y))| (*x, *y) = f(i));
}
