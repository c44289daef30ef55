//! Surface tension after Akinci, Akinci & Teschner 2013 ("Versatile surface tension and adhesion
//! for SPH fluids"): a cohesion force with a spline kernel of its own, plus a curvature term
//! that minimises the surface area, both symmetrised by a correction for particle deficiency at
//! the surface.
//!
//! For neighbors `j ≠ i` within h, with `r = p_i − p_j`:
//! - normals `n_i = h Σ_j (m/ρ_j) ∇W_ij` (`pbf.kernel`'s gradient; near zero inside the fluid,
//!   about unit length at the surface), summed by the kinematics pass (`sph::kinematics`) with
//!   the step's densities, so they cost no neighbor pass of their own: each neighbor's `ρ_j` is
//!   the density solve's last measurement, one correction before the final positions (the same
//!   density when an error-controlled solve stops on a density pass). Removing the normals' own
//!   pass saved about 6% of a paper-scale step with surface tension on (docs/results.md, stop
//!   34);
//! - cohesion `F_coh = −γ m_i m_j C(|r|) r / |r|`, with `C(r) = 32 / (π h⁹) ·`
//!   `(h − r)³ r³` for `h/2 < r ≤ h`, `2 (h − r)³ r³ − h⁶/64` for `0 < r ≤ h/2`;
//! - curvature `F_curv = −γ m_i (n_i − n_j)`;
//! - `F_i = Σ_j K_ij (F_coh + F_curv)`, `K_ij = 2ρ0 / (ρ_i + ρ_j)`;
//!
//! applied as `Δv_i = dt F_i / m_i`. γ is the scene's `surface_tension.coefficient`. Every sum is
//! antisymmetric in i and j, so the force conserves momentum.
//!
//! Owns: [`SurfaceTension`] (γ) and its pair term. Does not touch: other forces,
//! positions, or solids (fluid–solid adhesion, the same paper's third term, is the colliders'
//! own: `boundary::Collider::adhesion`, applied by the solver after the forces).

use super::{ForceInput, NonPressureForce, PairSum};
use crate::particles::Fluid;
use crate::sph::kinematics::Needs;
use crate::sph::sums::Chunk;
use glam::Vec3A;
use wide::f32x8;

/// Akinci et al. 2013 surface tension of strength `gamma`.
pub struct SurfaceTension {
    gamma: f32,
}

impl SurfaceTension {
    pub fn new(gamma: f32) -> Self {
        SurfaceTension { gamma }
    }

    /// The cohesion spline without its constant `32 / (π h⁹)`, per lane, for `r` in (0, h].
    #[inline(always)]
    fn spline(r: f32x8, h: f32) -> f32x8 {
        let e = (f32x8::splat(h) - r).fast_max(f32x8::ZERO);
        let a = e * e * e * (r * r * r);
        let h6 = h * h * h * h * h * h;
        let inner = f32x8::splat(2.0) * a - f32x8::splat(h6 / 64.0);
        r.simd_gt(f32x8::splat(0.5 * h)).select(a, inner)
    }
}

impl NonPressureForce for SurfaceTension {
    fn name(&self) -> &'static str {
        "surface tension (Akinci 2013)"
    }

    /// The normals, with each particle's volume `m / ρ_i` in w (`ForceInput::normals`: the
    /// pair term reads both of a neighbor in one load).
    fn needs(&self) -> Needs {
        Needs {
            normals: true,
            ..Needs::NONE
        }
    }

    /// Nothing: the normals are the kinematics pass's.
    fn prepare(&mut self, _: &ForceInput, _: &mut Fluid) {}

    /// `Σ_j K_ij (m C(|r|) r / |r| + (n_i − n_j))` without the constant of C in the first term
    /// (folded in below), `K_ij = 2ρ0 / (ρ_i + ρ_j)` with `ρ = m / vol`.
    #[inline(always)]
    fn add_pairs(&self, input: &ForceInput, i: usize, c: &Chunk, sum: &mut PairSum) {
        let h = input.kernels.h;
        let (m, rho0) = (input.mass, input.rest_density);
        let r = c.r2.sqrt();
        // Self and padding lanes: no pair (r = 0 or mask 0).
        let pair = c.r2.simd_gt(f32x8::ZERO).select(c.mask, f32x8::ZERO);
        let ni = input.normals[i];
        let (dnx, dny, dnz, vol_j) = c.gather_diff_w(input.normals, ni.truncate().into());
        let rho_i = m / ni.w;
        let rho_j = f32x8::splat(m) / vol_j;
        let kij = f32x8::splat(2.0 * rho0) / (f32x8::splat(rho_i) + rho_j) * pair;
        let coef = 32.0 / (std::f32::consts::PI * h.powi(9));
        let safe_r = pair.simd_gt(f32x8::ZERO).select(r, f32x8::ONE);
        let coh = f32x8::splat(m * coef) * Self::spline(r, h) / safe_r;
        // n_i − n_j = −(n_j − n_i).
        sum.x += kij * (coh * c.x - dnx);
        sum.y += kij * (coh * c.y - dny);
        sum.z += kij * (coh * c.z - dnz);
    }

    fn velocity_change(&self, input: &ForceInput, _: &Fluid, _: usize, sum: Vec3A) -> Vec3A {
        // F_i / m_i = −γ Σ_j K_ij (m_j C r/|r| + (n_i − n_j)).
        (-self.gamma * input.dt) * sum
    }
}
