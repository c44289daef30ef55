//! Vorticity confinement (Macklin & Müller 2013, after Fedkiw et al. 2001): puts back the swirl
//! that the position-based solve damps.
//!
//! `ω_i = (1/ρ_i) Σ_j m (v_j − v_i) × ∇_{p_j} W_ij`, `η_i = Σ_j (m/ρ_j) |ω_j| ∇_i W_ij`,
//! `N = η/|η|`, force `f_i = ε_v (N × ω_i)`, applied as `Δv_i = dt · f_i`; `ρ` is the density at
//! the corrected positions. Both sums are the kinematics pass's (`sph::kinematics`), so the force
//! costs no neighbor walk of its own: η takes the gradient of the *last* step's `(m/ρ_j) |ω_j|`
//! (the fluid's `swirl`, carried with the particles), at this step's positions, since this
//! step's ω of every neighbor is known only after that pass. Where the confinement points
//! (`N`) lags one step; what it turns (`ω_i`) does not. That keeps about 80% of the
//! confinement's effect on the mean vorticity (the particle-scale part of ∇|ω| decorrelates in a
//! step), and saves a separate η pass, about 10% of a paper-scale step (docs/results.md). The
//! first step, and a particle just added, has no swirl to take the gradient of yet.
//!
//! Owns: [`VorticityConfinement`]; writes the fluid's `swirl` for the next step and reads the
//! output field `vorticity` (ω) and η the kinematics pass writes. Does not touch: other forces
//! or positions.

use super::{ForceInput, NonPressureForce, PairSum};
use crate::par::par_gather;
use crate::particles::Fluid;
use crate::sph::kinematics::Needs;
use crate::sph::sums::Chunk;
use glam::Vec3A;

/// Vorticity confinement of strength `epsilon` (ε_v).
pub struct VorticityConfinement {
    epsilon: f32,
}

impl VorticityConfinement {
    pub fn new(epsilon: f32) -> Self {
        VorticityConfinement { epsilon }
    }
}

impl NonPressureForce for VorticityConfinement {
    fn name(&self) -> &'static str {
        "vorticity confinement"
    }

    /// ω, which the vorticity field written for output also is, and η (unless the strength
    /// is 0).
    fn needs(&self) -> Needs {
        Needs {
            curl: true,
            smoothing: false,
            swirl: self.epsilon != 0.0,
            normals: false,
        }
    }

    /// None: ω and η are the kinematics pass's.
    fn has_pairs(&self) -> bool {
        false
    }

    /// The swirl `vol |ω|` of every particle, for the next step's η.
    fn prepare(&mut self, input: &ForceInput, fluid: &mut Fluid) {
        if self.epsilon == 0.0 {
            crate::distributed::refresh(input.halo, &mut fluid.vorticity);
            return;
        }
        let vv = input.vv;
        let omega = &fluid.vorticity;
        par_gather(&mut fluid.swirl, |i| vv[i].w * omega[i].length());
        crate::distributed::refresh(input.halo, &mut fluid.vorticity);
    }

    fn add_pairs(&self, _: &ForceInput, _: usize, _: &Chunk, _: &mut PairSum) {}

    fn velocity_change(&self, input: &ForceInput, fluid: &Fluid, i: usize, _: Vec3A) -> Vec3A {
        if self.epsilon == 0.0 {
            return Vec3A::ZERO;
        }
        let eta = input.eta[i];
        let len = eta.length();
        let force = if len > 1e-12 {
            self.epsilon * (eta / len).cross(fluid.vorticity[i])
        } else {
            Vec3A::ZERO
        };
        input.dt * force
    }
}
