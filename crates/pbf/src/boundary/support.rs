//! Walls that carry the fluid's pressure gradient.
//!
//! A particle's position correction has two parts: `Σ_j (λ_i + λ_j) ∇W_ij` is `2 λ_i Σ_j ∇W_ij`
//! plus the λ-difference sum `D = Σ_j (λ_j − λ_i) ∇W_ij`, which for a smooth λ field is
//! `A ∇λ`, `A` the kernel moment of the neighbors (`A = Σ_j −(x_j − x_i) ⊗ ∇W_ij`, isotropic
//! inside the fluid). Beside a wall the neighbors on the wall's side are missing, so the particle
//! feels only `(1 − Φ) A ∇λ` of the pressure gradient, `Φ` the wall's share of the moment
//! ([`WallTable::support`](super::WallTable::support)): 0.15 of it along the wall and 0.49
//! across it at the rest distance r (h = 4r). In water at rest the layer along a side wall then
//! sinks, the interior rises, and a slow roll starts from every wall; in a dam break the water
//! running along the floor is held back.
//!
//! The wall supplies the missing part as if the fluid's λ field continued into it linearly (the
//! pressure extrapolation of Adami, Hu & Adams 2012, here for the gradient part only; the
//! `λ_i ∇ρ_wall` term is unchanged, since a wall term larger than the particle's own λ is no
//! longer a projection and water at rest gains energy, docs/results.md): the correction uses
//! `(1 − Φ)⁻¹ D` instead of `D`, `∇λ` estimated from the neighbors the particle has.
//!
//! Only the tank's lattice walls carry it. Solids did too until stop 56 (their share from their
//! own table, along and across their surface), and that stirred water at rest round them: a
//! 12 cm cylinder in still water moved it at 0.0071 m/s after 3 s, a turned box at 0.0070,
//! against 0.0011 and 0.0023 without; with lattice walls at h = 4r it made no difference
//! (docs/results.md, stop 56). A solid now adds its density and its gradient only.
//!
//! Owns: [`Support`] (a particle's `Φ`: the walls' shares added) and how it turns `D` into the
//! extra correction. Does not touch: the tables (the walls sample them).

use glam::Vec3A;

/// The largest share of the moment a wall may take in any direction: `(1 − Φ)⁻¹` is at most
/// 1 / (1 − 0.7) = 3.3, reached only by particles pushed closer than r / 2 to a wall.
pub const MAX_SHARE: f32 = 0.7;

/// The walls' share `Φ = diag(diag)` of a particle's kernel moment (the tank's walls are square
/// to the axes, so `Φ` is diagonal).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Support {
    /// The share along each world axis.
    pub diag: Vec3A,
}

impl Support {
    /// No wall within h.
    pub const NONE: Support = Support { diag: Vec3A::ZERO };

    pub fn is_none(&self) -> bool {
        self.diag == Vec3A::ZERO
    }

    /// Two walls near one particle: their shares add.
    pub fn and(self, o: Support) -> Support {
        Support {
            diag: self.diag + o.diag,
        }
    }

    /// The extra correction `(1 − Φ)⁻¹ D − D` for the λ-difference sum `D`, with `Φ` capped at
    /// [`MAX_SHARE`] in each direction.
    #[inline]
    pub fn extra(&self, d: Vec3A) -> Vec3A {
        let keep = Vec3A::ONE - self.diag.min(Vec3A::splat(MAX_SHARE));
        d / keep - d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `extra` against `(1 − Φ)⁻¹ D − D` in f64, axis by axis.
    #[test]
    fn extra_is_the_inverse_of_the_fluids_share() {
        let d = Vec3A::new(1.0, -2.0, 0.5);
        for diag in [
            Vec3A::ZERO,
            Vec3A::new(0.15, 0.49, 0.15),
            Vec3A::new(0.3, 0.0, 0.6),
        ] {
            let got = Support { diag }.extra(d);
            for a in 0..3 {
                let want = d[a] as f64 / (1.0 - diag[a] as f64) - d[a] as f64;
                assert!((got[a] as f64 - want).abs() < 1e-6, "{diag}: {got}");
            }
        }
    }

    #[test]
    fn a_share_too_large_is_capped() {
        // A particle pushed onto the wall: the fluid keeps at least 1 − MAX_SHARE.
        let s = Support {
            diag: Vec3A::new(0.95, 0.0, 0.0),
        };
        let e = s.extra(Vec3A::X);
        assert!((e.x - (1.0 / (1.0 - MAX_SHARE) - 1.0)).abs() < 1e-5, "{e}");
        assert_eq!(e.y, 0.0);
    }
}
