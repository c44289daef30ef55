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
//! Owns: [`Support`] (a particle's `Φ`: the walls' and solids' shares added) and how it turns
//! `D` into the extra correction. Does not touch: the tables (the colliders sample them).

use glam::{Vec3A, Vec4};

/// The largest share of the moment a wall may take in any direction: `(1 − Φ)⁻¹` is at most
/// 1 / (1 − 0.7) = 3.3, reached only by particles pushed closer than r / 2 to a wall.
pub const MAX_SHARE: f32 = 0.7;

/// The colliders' share `Φ = diag(diag) + across · n nᵀ` of a particle's kernel moment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Support {
    /// The share along each world axis (a tank's walls; a solid's share along its surface).
    pub diag: Vec3A,
    /// A solid's surface normal (unit).
    pub normal: Vec3A,
    /// How much more a solid takes across its surface than along it (≥ 0).
    pub across: f32,
}

impl Support {
    /// No collider within h.
    pub const NONE: Support = Support {
        diag: Vec3A::ZERO,
        normal: Vec3A::ZERO,
        across: 0.0,
    };

    /// A solid's share: `along` in every direction, `across` (≥ `along`) along `normal`.
    pub fn solid(normal: Vec3A, along: f32, across: f32) -> Support {
        Support {
            diag: Vec3A::splat(along),
            normal,
            across: (across - along).max(0.0),
        }
    }

    pub fn is_none(&self) -> bool {
        self.diag == Vec3A::ZERO && self.across == 0.0
    }

    /// Two colliders near one particle: the shares along add, and the one taking more across
    /// its surface keeps its normal (two solids within h of one particle are rare; a thin
    /// plate is one solid).
    pub fn and(self, o: Support) -> Support {
        let (normal, across) = if o.across > self.across {
            (o.normal, o.across)
        } else {
            (self.normal, self.across)
        };
        Support {
            diag: self.diag + o.diag,
            normal,
            across,
        }
    }

    /// The solids' share as stored per particle: `(n √across, along)` (the solids' share along
    /// their surfaces is the same in every direction).
    pub fn pack(&self) -> Vec4 {
        (self.normal * self.across.sqrt()).extend(self.diag.x)
    }

    /// The inverse of [`pack`](Self::pack).
    pub fn unpack(v: Vec4) -> Support {
        let u = Vec3A::from(v.truncate());
        let across = u.length_squared();
        Support {
            diag: Vec3A::splat(v.w),
            normal: if across > 0.0 {
                u / across.sqrt()
            } else {
                Vec3A::ZERO
            },
            across,
        }
    }

    /// The extra correction `(1 − Φ)⁻¹ D − D` for the λ-difference sum `D`, with `Φ` scaled
    /// down where it would exceed [`MAX_SHARE`] in some direction.
    #[inline]
    pub fn extra(&self, d: Vec3A) -> Vec3A {
        if self.across == 0.0 {
            let keep = Vec3A::ONE - self.diag.min(Vec3A::splat(MAX_SHARE));
            return d / keep - d;
        }
        // Φ's largest eigenvalue is at most diag's largest plus across (Weyl).
        let bound = self.diag.max_element() + self.across;
        let scale = if bound > MAX_SHARE {
            MAX_SHARE / bound
        } else {
            1.0
        };
        // (A − c n nᵀ)⁻¹ d with A = 1 − scale · diag (Sherman–Morrison).
        let inv_a = Vec3A::ONE / (Vec3A::ONE - scale * self.diag);
        let c = scale * self.across;
        let (an, ad) = (inv_a * self.normal, inv_a * d);
        let x = ad + an * (c * self.normal.dot(ad) / (1.0 - c * self.normal.dot(an)));
        x - d
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Mat3;

    /// `extra` against the matrix inverse of `1 − Φ`, built term by term.
    #[test]
    fn extra_is_the_inverse_of_the_fluids_share() {
        let n = Vec3A::new(0.3, -0.5, 0.8).normalize();
        let cases = [
            Support::NONE,
            Support {
                diag: Vec3A::new(0.15, 0.49, 0.15),
                ..Support::NONE
            },
            Support::solid(n, 0.1, 0.4),
            Support::solid(n, 0.1, 0.4).and(Support {
                diag: Vec3A::new(0.0, 0.3, 0.1),
                ..Support::NONE
            }),
        ];
        let d = Vec3A::new(1.0, -2.0, 0.5);
        for s in cases {
            let m = s.normal;
            let outer = Mat3::from_cols((m * m.x).into(), (m * m.y).into(), (m * m.z).into());
            let phi = Mat3::from_diagonal(s.diag.into()) + s.across * outer;
            let want = (Mat3::IDENTITY - phi).inverse() * glam::Vec3::from(d) - glam::Vec3::from(d);
            let got = s.extra(d);
            assert!(
                (glam::Vec3::from(got) - want).length() < 1e-5 * want.length().max(1.0),
                "{s:?}: {got} against {want}"
            );
        }
    }

    #[test]
    fn a_share_too_large_is_capped() {
        // A particle pushed onto the wall: the fluid keeps at least 1 − MAX_SHARE.
        let s = Support {
            diag: Vec3A::new(0.95, 0.0, 0.0),
            ..Support::NONE
        };
        let e = s.extra(Vec3A::X);
        assert!((e.x - (1.0 / (1.0 - MAX_SHARE) - 1.0)).abs() < 1e-5, "{e}");
        let t = Support::solid(Vec3A::Y, 0.5, 0.99);
        let e = t.extra(Vec3A::Y);
        assert!(e.is_finite() && e.y <= 1.0 / (1.0 - MAX_SHARE), "{e}");
    }

    #[test]
    fn packing_keeps_a_solids_share() {
        let s = Support::solid(Vec3A::new(0.0, 0.6, 0.8), 0.12, 0.45);
        let u = Support::unpack(s.pack());
        assert!((u.diag - s.diag).length() < 1e-6);
        assert!((u.normal - s.normal).length() < 1e-6);
        assert!((u.across - s.across).abs() < 1e-6);
        assert!(Support::unpack(Support::NONE.pack()).is_none());
    }
}
