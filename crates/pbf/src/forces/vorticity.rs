//! Vorticity confinement (Macklin & Müller 2013, after Fedkiw et al. 2001): puts back the swirl
//! that the position-based solve damps.
//!
//! `ω_i = Σ_j (m/ρ_j) (v_j − v_i) × ∇_{p_j} W_ij`, `η_i = Σ_j (m/ρ_j) |ω_j| ∇_i W_ij`,
//! `N = η/|η|`, force `f_i = ε_v (N × ω_i)`, applied as `Δv_i = dt · f_i`; `ρ_j` is the density
//! at the corrected positions.
//!
//! Owns: [`VorticityConfinement`] and its two sums; the output field `vorticity` (ω). Does not
//! touch: other forces or positions.

use super::{ForceInput, NonPressureForce, PairSum};
use crate::par::par_gather2;
use crate::particles::Fluid;
use crate::sph::Kernels;
use crate::sph::sums::{Chunk, chunks, vec3};
use glam::{Vec3A, Vec4};
use wide::f32x8;

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

    /// ω of every particle into `fluid.vorticity`, and `vol |ω|` for the η sum.
    fn prepare(&mut self, input: &ForceInput, fluid: &mut Fluid) {
        let (lists, p, vv, k) = (input.lists, input.p, input.vv, input.kernels);
        let cg = k.spiky_grad_coef();
        self.scalar.resize(p.len(), 0.0);
        par_gather2(&mut fluid.vorticity, &mut self.scalar, |i| {
            let omega = cg * vorticity(lists.neighbors(i), i, p, vv, k);
            (omega, vv[i].w * omega.length())
        });
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

/// `Σ_j vol_j g (r × (v_j − v_i))` for particle `i`: the vorticity `ω_i` without the gradient
/// constant (`(v_j − v_i) × ∇_{p_j} W_ij = cg · g · (r × (v_j − v_i))`), `vol_j = m / ρ_j`,
/// with `vv[j]` holding `v_j` in x, y, z and `vol_j` in w.
#[inline(always)]
fn vorticity(list: &[u32], i: usize, p: &[Vec3A], vv: &[Vec4], k: &Kernels) -> Vec3A {
    let vi = vv[i].truncate().into();
    let z0 = f32x8::ZERO;
    let (mut ax, mut ay, mut az) = (z0, z0, z0);
    for c in chunks(list, i, p) {
        let (dx, dy, dz, vol) = c.gather_diff_w(vv, vi);
        let g = c.spiky(k.h, 0.0) * vol;
        ax += g * (c.y * dz - c.z * dy);
        ay += g * (c.z * dx - c.x * dz);
        az += g * (c.x * dy - c.y * dx);
    }
    vec3(ax, ay, az)
}
