//! The rest lattice (spacing 2r) as the kernels see it: the calibration of the particle mass and
//! of PBF's constraint scale.
//!
//! Owns: [`rest_lattice`]. Does not touch: particles.

use super::Kernels;
use glam::Vec3A;

/// For a particle inside the rest lattice of spacing `s`: the calibrated mass `m = ρ0 / Σ W`
/// (so such a particle has exactly ρ0), and `S0 = Σ_j |(m/ρ0) ∇W|²`, the scale of PBF's λ
/// denominator.
pub fn rest_lattice(k: &Kernels, s: f32, rho0: f32) -> (f32, f32) {
    let n = (k.h / s).ceil() as i32;
    let (mut sum_w, mut sum_g2) = (0.0f64, 0.0f64);
    for a in -n..=n {
        for b in -n..=n {
            for c in -n..=n {
                let q = Vec3A::new(a as f32, b as f32, c as f32) * s;
                sum_w += k.poly6(q.length_squared()) as f64;
                sum_g2 += k.spiky_grad(q).length_squared() as f64;
            }
        }
    }
    let vol = 1.0 / sum_w; // m / ρ0
    ((rho0 as f64 * vol) as f32, (sum_g2 * vol * vol) as f32)
}
