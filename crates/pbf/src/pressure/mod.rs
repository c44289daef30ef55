//! The density (pressure) solve: corrects the predicted positions so the fluid keeps its rest
//! density.
//!
//! Owns: the [`DensitySolver`] trait and its input, and the solvers: [`pbf::PbfConstraints`]
//! (Macklin & Müller 2013). Does not touch: the order of the step (the solver), velocities,
//! or non-pressure forces.

pub mod correction;
pub mod pbf;

use crate::boundary::ColliderSet;
use crate::par::Scratch;
use crate::sph::Kernels;
use glam::Vec3A;
use nsearch::NeighborLists;

/// What a density solve reads: this step's neighbor lists (on the predicted positions), the
/// kernels, the colliders, and the particle mass and rest density.
pub struct DensityInput<'a> {
    pub lists: &'a NeighborLists,
    pub kernels: &'a Kernels,
    pub colliders: &'a ColliderSet,
    pub mass: f32,
    pub rest_density: f32,
    /// A stop request, looked at before each iteration (see [`DensitySolver::solve`]).
    pub stop: Option<&'a std::sync::atomic::AtomicBool>,
}

/// A method that corrects predicted positions toward the rest density (PBF's constraint
/// iterations now; DFSPH-like or error-controlled solves later). Each pass over the particles
/// is a gather (each particle writes only its own slot), so results do not depend on the thread
/// count.
pub trait DensitySolver: Send + Sync {
    /// The method's name, for reports.
    fn name(&self) -> &'static str;

    /// Correct `p` (the predicted positions, in the lists' slot order) in place; `density`
    /// gets each particle's density as the last iteration measured it. `scratch` is the step's
    /// shared buffers, free to use while this runs. Returns false, at once, when `input.stop`
    /// is set before an iteration (the step is then abandoned).
    fn solve(
        &mut self,
        input: &DensityInput,
        p: &mut Vec<Vec3A>,
        density: &mut [f32],
        scratch: &mut Scratch,
    ) -> bool;
}
