//! Vorticity confinement (Macklin & Müller 2013, after Fedkiw et al. 2001): puts back the swirl
//! that the position-based solve damps.
//!
//! `ω_i = (1/ρ_i) Σ_j m (v_j − v_i) × ∇_{p_j} W_ij` (taken with the densities, by
//! `sph::kinematics`), `η_i = Σ_j (m/ρ_j) |ω_j| ∇_i W_ij`, `N = η/|η|`, force
//! `f_i = ε_v (N × ω_i)`, applied as `Δv_i = dt · f_i`; `ρ` is the density at the corrected
//! positions.
//!
//! Owns: [`VorticityConfinement`] and its η sum; reads the output field `vorticity` (ω) the
//! kinematics pass writes. Does not touch: other forces or positions.

use super::{ForceInput, NonPressureForce, PairSum};
use crate::par::par_gather;
use crate::particles::Fluid;
use crate::sph::kinematics::Needs;
use crate::sph::sums::Chunk;
use glam::Vec3A;

/// Vorticity confinement of strength `epsilon` (ε_v).
pub struct VorticityConfinement {
    epsilon: f32,
    /// `vol_i |ω_i|`, read by the η sum.
    scalar: Vec<f32>,
}

impl VorticityConfinement {
    pub fn new(epsilon: f32) -> Self {
        VorticityConfinement {
            epsilon,
            scalar: Vec::new(),
        }
    }
}

impl NonPressureForce for VorticityConfinement {
    fn name(&self) -> &'static str {
        "vorticity confinement"
    }

    /// ω, which the vorticity field written for output also is.
    fn needs(&self) -> Needs {
        Needs {
            curl: true,
            smoothing: false,
        }
    }

    /// The η sum, unless the strength is 0 (ω is still taken, for output).
    fn has_pairs(&self) -> bool {
        self.epsilon != 0.0
    }

    /// `vol |ω|` of every particle, for the η sum (no neighbor pass: ω is the kinematics
    /// pass's).
    fn prepare(&mut self, input: &ForceInput, fluid: &mut Fluid) {
        if self.epsilon == 0.0 {
            crate::distributed::refresh(input.halo, &mut fluid.vorticity);
            return;
        }
        let vv = input.vv;
        self.scalar.resize(vv.len(), 0.0);
        let omega = &fluid.vorticity;
        par_gather(&mut self.scalar, |i| vv[i].w * omega[i].length());
        crate::distributed::refresh(input.halo, &mut fluid.vorticity);
        crate::distributed::refresh(input.halo, &mut self.scalar);
    }

    /// `Σ_j s_j g r`, the confinement's `η_i` without the gradient constant
    /// (`s_j = vol_j |ω_j|`).
    #[inline(always)]
    fn add_pairs(&self, input: &ForceInput, _: usize, c: &Chunk, sum: &mut PairSum) {
        let g = c.spiky(input.kernels.h, 0.0) * c.gather_scalar(&self.scalar);
        sum.x += g * c.x;
        sum.y += g * c.y;
        sum.z += g * c.z;
    }

    fn velocity_change(&self, input: &ForceInput, fluid: &Fluid, i: usize, eta: Vec3A) -> Vec3A {
        if self.epsilon == 0.0 {
            return Vec3A::ZERO;
        }
        let eta = input.kernels.spiky_grad_coef() * eta;
        let len = eta.length();
        let force = if len > 1e-12 {
            self.epsilon * (eta / len).cross(fluid.vorticity[i])
        } else {
            Vec3A::ZERO
        };
        input.dt * force
    }
}
