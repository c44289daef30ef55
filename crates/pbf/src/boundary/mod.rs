//! Boundaries as colliders: each keeps particles out of its solid and adds the solid's
//! contribution to a particle's density, so the fluid feels the walls (without it PBF pulls
//! particles onto the walls: the sticking the AABB paper reports with its penalty walls).
//!
//! Owns: the [`Collider`] interface, the [`ColliderSet`] the solver holds, and the tank
//! ([`BoxTank`]). Obstacles, moving walls and emitters join later as further colliders.
//!
//! ## Wall density (a 1-D density map)
//! The density a solid adds at a particle is what the fluid would add if the fluid's rest lattice
//! (spacing s = 2r, particles r in from the surface) continued beyond the surface:
//! `ρ_wall(d) = m · Σ_{q beyond the wall} W(|p − q|)`, averaged over the particle's lateral
//! offset against that lattice. It depends only on the distance d to the surface, so it is
//! tabulated once (with its derivative) and interpolated, as a density map (Koschier & Bender 2017)
//! for a plane. With the particle mass calibrated on the same lattice (see the solver), a particle
//! resting against a wall sees the rest density, as one in the interior does. Near an edge or a
//! corner of the tank the planes' contributions are added; their overlap (the region behind two
//! walls at once) is counted twice, a small excess confined to edges.

use crate::sph::Kernels;
use glam::Vec3A;

/// Something solid the fluid must stay out of and feel.
pub trait Collider: Send + Sync {
    /// Move `p` out of the solid (to at least the particle radius from its surface).
    fn project(&self, p: Vec3A) -> Vec3A;
    /// The solid's density contribution at `p` and its gradient with respect to `p`.
    fn density(&self, p: Vec3A) -> (f32, Vec3A);
}

/// Tabulated wall density against the distance to a plane.
#[derive(Clone, Debug)]
pub struct WallTable {
    h: f32,
    /// ρ at d = k · h / (len − 1).
    rho: Vec<f32>,
    /// dρ/dd at the same points.
    drho: Vec<f32>,
}

impl WallTable {
    const SAMPLES: usize = 257;

    /// Build for kernel radius `h`, particle radius `r` and particle mass `mass`.
    pub fn new(kernels: &Kernels, r: f32, mass: f32) -> Self {
        let h = kernels.h as f64;
        let s = 2.0 * r as f64;
        let lateral = 8; // offsets per axis
        let reach = (h / s).ceil() as i64 + 1;
        let sum_at = |d: f64| -> f64 {
            let mut total = 0.0;
            for ou in 0..lateral {
                for ov in 0..lateral {
                    let (u0, v0) = (
                        ou as f64 * s / lateral as f64,
                        ov as f64 * s / lateral as f64,
                    );
                    let mut acc = 0.0;
                    for k in 0..=reach {
                        let x = d + r as f64 + k as f64 * s;
                        if x > h {
                            break;
                        }
                        for a in -reach..=reach {
                            for b in -reach..=reach {
                                let (y, z) = (u0 + a as f64 * s, v0 + b as f64 * s);
                                let r2 = x * x + y * y + z * z;
                                acc += kernels.poly6(r2 as f32) as f64;
                            }
                        }
                    }
                    total += acc;
                }
            }
            mass as f64 * total / (lateral * lateral) as f64
        };
        let n = Self::SAMPLES;
        let step = h / (n - 1) as f64;
        let rho: Vec<f64> = (0..n).map(|k| sum_at(k as f64 * step)).collect();
        let drho = (0..n)
            .map(|k| {
                let (a, b) = (k.saturating_sub(1), (k + 1).min(n - 1));
                ((rho[b] - rho[a]) / ((b - a) as f64 * step)) as f32
            })
            .collect();
        WallTable {
            h: kernels.h,
            rho: rho.into_iter().map(|x| x as f32).collect(),
            drho,
        }
    }

    /// (ρ, dρ/dd) at distance `d` from the surface (clamped to [0, h]; 0 beyond h).
    #[inline]
    pub fn at(&self, d: f32) -> (f32, f32) {
        if d >= self.h {
            return (0.0, 0.0);
        }
        let t = (d.max(0.0) / self.h) * (self.rho.len() - 1) as f32;
        let k = (t as usize).min(self.rho.len() - 2);
        let f = t - k as f32;
        (
            self.rho[k] + f * (self.rho[k + 1] - self.rho[k]),
            self.drho[k] + f * (self.drho[k + 1] - self.drho[k]),
        )
    }
}

/// The tank: the inside of an axis-aligned box. Particles are kept `r` inside its walls.
#[derive(Clone, Debug)]
pub struct BoxTank {
    pub min: Vec3A,
    pub max: Vec3A,
    /// Particle radius.
    pub r: f32,
    table: WallTable,
}

impl BoxTank {
    pub fn new(min: Vec3A, max: Vec3A, r: f32, table: WallTable) -> Self {
        BoxTank { min, max, r, table }
    }
}

impl Collider for BoxTank {
    /// Each axis on its own: a particle `δ` past a wall goes back to `δ / 10` inside it. Keeping a
    /// little of the overshoot, rather than clamping onto the wall, keeps particles that entered a
    /// wall at different depths apart: clamping maps every particle past an edge of the tank onto
    /// one line, and past a corner onto one point, where they pile up and, coinciding, can no
    /// longer push each other apart.
    #[inline]
    fn project(&self, p: Vec3A) -> Vec3A {
        let (lo, hi) = (self.min + self.r, self.max - self.r);
        let below = (lo - p).max(Vec3A::ZERO);
        let above = (p - hi).max(Vec3A::ZERO);
        // The result stays within [lo, hi] as long as the overshoot is under 10 tank widths;
        // the clamp guards the rest (and leaves NaN to the solver's check).
        (p + 1.1 * below - 1.1 * above).clamp(lo, hi)
    }

    #[inline]
    fn density(&self, p: Vec3A) -> (f32, Vec3A) {
        // Most particles are farther than h from every wall: the table gives 0 for all six.
        let h = self.table.h;
        if (p - self.min).min_element() >= h && (self.max - p).min_element() >= h {
            return (0.0, Vec3A::ZERO);
        }
        let mut rho = 0.0;
        let mut grad = Vec3A::ZERO;
        for a in 0..3 {
            // Distance to the low wall grows with p[a]: ∂d/∂p = +1; to the high wall, -1.
            let (lo, dlo) = self.table.at(p[a] - self.min[a]);
            let (hi, dhi) = self.table.at(self.max[a] - p[a]);
            rho += lo + hi;
            grad[a] += dlo - dhi;
        }
        (rho, grad)
    }
}

/// The colliders of a scene, applied in order.
pub struct ColliderSet {
    colliders: Vec<Box<dyn Collider>>,
}

impl ColliderSet {
    pub fn new(colliders: Vec<Box<dyn Collider>>) -> Self {
        ColliderSet { colliders }
    }

    #[inline]
    pub fn project(&self, mut p: Vec3A) -> Vec3A {
        for c in &self.colliders {
            p = c.project(p);
        }
        p
    }

    #[inline]
    pub fn density(&self, p: Vec3A) -> (f32, Vec3A) {
        self.colliders.iter().fold((0.0, Vec3A::ZERO), |(r, g), c| {
            let (cr, cg) = c.density(p);
            (r + cr, g + cg)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tank() -> BoxTank {
        let k = Kernels::new(0.04);
        BoxTank::new(
            Vec3A::ZERO,
            Vec3A::ONE,
            0.01,
            WallTable::new(&k, 0.01, 1e-3),
        )
    }

    #[test]
    fn projection_keeps_particles_inside_and_apart() {
        let t = tank();
        // Two particles past the same corner by different amounts stay distinct and inside.
        let a = t.project(Vec3A::new(1.05, -0.02, 1.2));
        let b = t.project(Vec3A::new(1.02, -0.05, 1.1));
        assert_ne!(a, b, "clamping would map both onto the corner");
        for p in [a, b] {
            assert!(
                p.cmpge(Vec3A::splat(0.01)).all() && p.cmple(Vec3A::splat(0.99)).all(),
                "{p}"
            );
        }
        // Inside points are untouched; far outside points still land inside.
        let inside = Vec3A::new(0.3, 0.5, 0.7);
        assert_eq!(t.project(inside), inside);
        let far = t.project(Vec3A::new(50.0, -50.0, 0.5));
        assert!(
            far.cmpge(Vec3A::splat(0.01)).all() && far.cmple(Vec3A::splat(0.99)).all(),
            "{far}"
        );
    }

    #[test]
    fn wall_density_falls_off_and_points_at_the_wall() {
        let t = tank();
        let (near, g_near) = t.density(Vec3A::new(0.01, 0.5, 0.5));
        // The wall lattice starts r beyond the surface, so nothing is felt from d = h - r on.
        let (mid, _) = t.density(Vec3A::new(0.02, 0.5, 0.5));
        let (edge, _) = t.density(Vec3A::new(0.03, 0.5, 0.5));
        let (far, g_far) = t.density(Vec3A::new(0.5, 0.5, 0.5));
        assert!(
            near > mid && mid > 0.0 && edge == 0.0 && far == 0.0,
            "{near} {mid} {edge} {far}"
        );
        assert!(
            g_near.x < 0.0,
            "density grows toward the x = 0 wall: {g_near}"
        );
        assert_eq!(g_far, Vec3A::ZERO);
    }
}
