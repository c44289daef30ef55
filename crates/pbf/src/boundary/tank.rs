//! The tank: the inside of an axis-aligned box, as a collider.
//!
//! Owns: [`BoxTank`] (projection back inside, and the walls' density from the table, counting
//! the regions behind its edges and corners once: `wall_overlap`). Does not touch: other
//! colliders.

use super::Collider;
use super::wall_overlap::WallOverlap;
use super::wall_table::WallTable;
use glam::Vec3A;

/// The tank: the inside of an axis-aligned box. Particles are kept `r` inside its walls.
#[derive(Clone, Debug)]
pub struct BoxTank {
    pub min: Vec3A,
    pub max: Vec3A,
    /// Particle radius.
    pub r: f32,
    table: WallTable,
    overlap: WallOverlap,
}

impl BoxTank {
    pub fn new(min: Vec3A, max: Vec3A, r: f32, table: WallTable) -> Self {
        let overlap = WallOverlap::new(&table);
        BoxTank {
            min,
            max,
            r,
            table,
            overlap,
        }
    }
}

impl BoxTank {
    /// Farther than h from every wall, where the table gives 0 for all six (most particles).
    #[inline]
    fn far_from_walls(&self, p: Vec3A) -> bool {
        let h = self.table.h;
        (p - self.min).min_element() >= h && (self.max - p).min_element() >= h
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

    /// Each wall within h pulls toward itself: `−A(d) n`, n the wall's inward normal.
    #[inline]
    fn adhesion(&self, p: Vec3A) -> Vec3A {
        if self.far_from_walls(p) {
            return Vec3A::ZERO;
        }
        let mut a = Vec3A::ZERO;
        for k in 0..3 {
            a[k] =
                self.table.adhesion(self.max[k] - p[k]) - self.table.adhesion(p[k] - self.min[k]);
        }
        a
    }

    /// The distance to the nearest wall, negative outside the tank (NaN stays NaN).
    fn clearance(&self, p: Vec3A) -> f32 {
        (p - self.min).min(self.max - p).min_element()
    }

    /// `Σ_walls ρ(d) − Σ_edges ρ_ab + Σ_corners ρ_abc` (see `wall_overlap`): the lattice beyond
    /// the walls, the regions behind an edge or a corner counted once.
    #[inline]
    fn density(&self, p: Vec3A) -> (f32, Vec3A) {
        if self.far_from_walls(p) {
            return (0.0, Vec3A::ZERO);
        }
        let h = self.table.h;
        let mut rho = 0.0;
        let mut grad = Vec3A::ZERO;
        // The walls within h: axis, distance, and ∂d/∂p along the axis.
        let mut near = [(0usize, 0.0f32, 0.0f32); 6];
        let mut n = 0;
        for a in 0..3 {
            // Distance to the low wall grows with p[a]: ∂d/∂p = +1; to the high wall, -1.
            let (dl, dh) = (p[a] - self.min[a], self.max[a] - p[a]);
            let (lo, dlo) = self.table.at(dl);
            let (hi, dhi) = self.table.at(dh);
            rho += lo + hi;
            grad[a] += dlo - dhi;
            for (d, sign) in [(dl, 1.0), (dh, -1.0)] {
                if d < h {
                    near[n] = (a, d, sign);
                    n += 1;
                }
            }
        }
        // Edges: two walls of different axes.
        for i in 0..n {
            for j in i + 1..n {
                let ((ai, di, si), (aj, dj, sj)) = (near[i], near[j]);
                if ai == aj {
                    continue;
                }
                let (e, ei, ej) = self.overlap.edge(di, dj);
                rho -= e;
                grad[ai] -= ei * si;
                grad[aj] -= ej * sj;
                // Corners: a third wall of the remaining axis.
                for &(ak, dk, sk) in &near[j + 1..n] {
                    if ak == ai || ak == aj {
                        continue;
                    }
                    let (c, dc) = self.overlap.corner([di, dj, dk]);
                    rho += c;
                    grad[ai] += dc[0] * si;
                    grad[aj] += dc[1] * sj;
                    grad[ak] += dc[2] * sk;
                }
            }
        }
        (rho, grad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sph::Kernels;

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

    /// A particle of the rest lattice filling the tank against a face, an edge and a corner:
    /// the fluid's own sum (brute force over the lattice sites inside the tank) plus the
    /// tank's density is ρ0, within what the walls' lateral averaging leaves (about 0.2% per
    /// wall). Counting the region behind an edge twice gave 3% more at h = 4r.
    #[test]
    fn a_particle_of_the_rest_lattice_sees_rest_density_at_faces_edges_and_corners() {
        use crate::sph::lattice::rest_lattice;
        let r = 0.01f32;
        let s = 2.0 * r;
        for hr in [4.0f32, 5.4] {
            let k = Kernels::new(hr * r);
            let (mass, _) = rest_lattice(&k, s, 1000.0);
            let t = BoxTank::new(Vec3A::ZERO, Vec3A::ONE, r, WallTable::new(&k, r, mass));
            // Lattice sites r + i s inside the unit tank, near the low corner.
            let reach = (k.h / s).ceil() as i32 + 1;
            let fluid = |p: Vec3A| -> f32 {
                let mut sum = 0.0f64;
                let c = ((p - r) / s).round();
                for i in -reach..=reach {
                    for j in -reach..=reach {
                        for l in -reach..=reach {
                            let q = c + Vec3A::new(i as f32, j as f32, l as f32);
                            if q.min_element() < 0.0 {
                                continue;
                            }
                            let x = Vec3A::splat(r) + q * s;
                            sum += k.poly6(p.distance_squared(x)) as f64;
                        }
                    }
                }
                mass * sum as f32
            };
            let mid = r + 20.0 * s;
            for (what, p) in [
                ("interior", Vec3A::splat(mid)),
                ("face", Vec3A::new(r, mid, mid)),
                ("second layer", Vec3A::new(r + s, mid, mid)),
                ("edge", Vec3A::new(r, r, mid)),
                ("edge, second layer", Vec3A::new(r + s, r, mid)),
                ("corner", Vec3A::splat(r)),
                ("corner, inner", Vec3A::new(r + s, r, r + s)),
            ] {
                let rho = fluid(p) + t.density(p).0;
                eprintln!("h = {hr}r, {what}: {rho:.2}");
                assert!(
                    (rho / 1000.0 - 1.0).abs() < 0.006,
                    "h = {hr}r, {what}: {rho}"
                );
            }
        }
    }

    /// The density's gradient is the derivative of the density, edges and corners included
    /// (central differences).
    #[test]
    fn wall_density_gradient_matches_finite_differences() {
        let t = tank();
        let e = 1e-4;
        for p in [
            Vec3A::new(0.013, 0.5, 0.5),
            Vec3A::new(0.012, 0.021, 0.5),
            Vec3A::new(0.5, 0.987, 0.016),
            Vec3A::new(0.014, 0.019, 0.022),
            Vec3A::new(0.985, 0.013, 0.981),
        ] {
            let (_, g) = t.density(p);
            for a in 0..3 {
                let mut d = Vec3A::ZERO;
                d[a] = e;
                let fd = (t.density(p + d).0 - t.density(p - d).0) / (2.0 * e);
                assert!(
                    (fd - g[a]).abs() <= 0.02 * g.abs().max_element() + 1e-3,
                    "{p} axis {a}: {} against {fd}",
                    g[a]
                );
            }
        }
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
