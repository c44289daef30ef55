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
    /// Where each particle was when the step began (in the lists' slot order): the solids push
    /// a particle out on the side it came from.
    pub start: &'a [Vec3A],
    pub lists: &'a NeighborLists,
    pub kernels: &'a Kernels,
    pub colliders: &'a ColliderSet,
    pub mass: f32,
    pub rest_density: f32,
    /// A stop request, looked at before each iteration (see [`DensitySolver::solve`]).
    pub stop: Option<&'a std::sync::atomic::AtomicBool>,
    /// The other processes' part of the fluid (ghosts refreshed after each pass; nothing with
    /// one process), and which slots hold this process's own particles (the density error is
    /// theirs; `None`: all).
    pub halo: &'a dyn crate::distributed::Halo,
    pub owned: Option<&'a [bool]>,
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

    /// What the last whole solve did.
    fn last_solve(&self) -> SolveStats;
}

/// One solve: the corrections it applied, and the mean density excess
/// `mean_i max(ρ_i/ρ0 − 1, 0)` it measured last (before its last correction when the count is
/// fixed; after it, the error it stopped on, when the error is controlled).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolveStats {
    pub iterations: u32,
    pub density_error: f64,
}

/// The solves of a run: iterations per step (mean, largest) and the density error they
/// reached (mean, largest), for the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SolveTally {
    pub solves: u64,
    pub iterations: u64,
    pub iterations_max: u32,
    pub error_sum: f64,
    pub error_max: f64,
}

impl SolveTally {
    /// Fold in one solve.
    pub fn add(&mut self, s: SolveStats) {
        self.solves += 1;
        self.iterations += s.iterations as u64;
        self.iterations_max = self.iterations_max.max(s.iterations);
        self.error_sum += s.density_error;
        self.error_max = self.error_max.max(s.density_error);
    }

    /// Mean iterations per solve.
    pub fn iterations_mean(&self) -> f64 {
        self.iterations as f64 / self.solves.max(1) as f64
    }

    /// Mean density error reached, in percent.
    pub fn error_mean_pct(&self) -> f64 {
        100.0 * self.error_sum / self.solves.max(1) as f64
    }
}
