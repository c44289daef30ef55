//! XSPH viscosity (Schechter & Bridson 2012, as Macklin & Müller 2013 use it): each velocity is
//! pulled toward its neighbors' average, `Δv_i = c Σ_j (m/ρ_j) (v_j − v_i) W_ij` (poly6).
//!
//! Owns: [`Xsph`] and its pair term. Does not touch: other forces or positions.

use super::{ForceInput, NonPressureForce, PairSum};
use crate::particles::Fluid;
use crate::sph::sums::Chunk;
use glam::Vec3A;

/// XSPH viscosity with coefficient `c`.
pub struct Xsph {
    c: f32,
}

impl Xsph {
    pub fn new(c: f32) -> Self {
        Xsph { c }
    }
}

impl NonPressureForce for Xsph {
    fn name(&self) -> &'static str {
        "XSPH viscosity"
    }

    fn prepare(&mut self, _: &ForceInput, _: &mut Fluid) {}

    /// `Σ_j vol_j d³ (v_j − v_i)`: XSPH's sum without the poly6 constant.
    #[inline(always)]
    fn add_pairs(&self, input: &ForceInput, i: usize, c: &Chunk, sum: &mut PairSum) {
        let vi = input.vv[i].truncate().into();
        let (dx, dy, dz, vol) = c.gather_diff_w(input.vv, vi);
        let w = c.poly6(input.kernels.h2) * vol;
        sum.x += w * dx;
        sum.y += w * dy;
        sum.z += w * dz;
    }

    fn velocity_change(&self, input: &ForceInput, _: &Fluid, _: usize, sum: Vec3A) -> Vec3A {
        (self.c * input.kernels.poly6_coef()) * sum
    }
}
