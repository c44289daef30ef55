//! XSPH viscosity (Schechter & Bridson 2012, as Macklin & Müller 2013 use it): each velocity is
//! pulled toward its neighbors' average, `Δv_i = c (1/ρ_i) Σ_j m (v_j − v_i) W_ij` (the density
//! kernel; the sum is the smoothed velocity difference `sph::kinematics` takes with the
//! densities, so XSPH walks no neighbors of its own).
//!
//! Owns: [`Xsph`]. Does not touch: other forces or positions.

use super::{ForceInput, NonPressureForce, PairSum};
use crate::particles::Fluid;
use crate::sph::kinematics::Needs;
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

    /// The smoothed velocity difference (none when c is 0).
    fn needs(&self) -> Needs {
        Needs {
            curl: false,
            smoothing: self.c != 0.0,
            swirl: false,
            normals: false,
        }
    }

    fn has_pairs(&self) -> bool {
        false
    }

    fn prepare(&mut self, _: &ForceInput, _: &mut Fluid) {}

    #[inline(always)]
    fn add_pairs(&self, _: &ForceInput, _: usize, _: &Chunk, _: &mut PairSum) {}

    fn velocity_change(&self, input: &ForceInput, _: &Fluid, i: usize, _: Vec3A) -> Vec3A {
        if self.c == 0.0 {
            return Vec3A::ZERO;
        }
        self.c * input.smoothing[i]
    }
}
