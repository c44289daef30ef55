//! The tank: the inside of an axis-aligned box, as a collider.
//!
//! Owns: [`BoxTank`] (projection back inside, and the walls' density from the table, counting
//! the regions behind its edges and corners once: `wall_overlap`). Does not touch: other
//! colliders.

use super::Collider;
use super::support::Support;
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
    /// The walls are mirrors (`mirror`): no density or support from the table.
    mirrored: bool,
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
            mirrored: false,
        }
    }

    /// The tank whose walls are mirrors ([`super::mirror`], summed by the density constraint):
    /// it keeps particles in and pulls with adhesion, and adds no density or support of its
    /// own.
    pub fn mirrored(self) -> Self {
        BoxTank {
            mirrored: true,
            ..self
        }
    }
}

impl BoxTank {
    /// The walls within h of `p`.
    #[inline]
    fn near_walls(&self, p: Vec3A) -> NearWalls {
        let h = self.table.h;
        let mut near = NearWalls {
            w: [(0, 0.0, 0.0); 6],
            n: 0,
        };
        for a in 0..3 {
            for (d, sign) in [(p[a] - self.min[a], 1.0), (self.max[a] - p[a], -1.0)] {
                if d < h {
                    near.w[near.n] = (a, d, sign);
                    near.n += 1;
                }
            }
        }
        near
    }

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

    /// Each wall within h pulls toward itself: `−A(d) n`, n the wall's inward normal; the
    /// lattice behind an edge or a corner pulls once (as [`density`](Self::density) counts it).
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
        // Toward a low wall is −, toward a high wall +: the opposite of ∂d/∂p.
        let near = self.near_walls(p);
        near.pairs(|(ai, di, si), (aj, dj, sj)| {
            let [ei, ej] = self.overlap.edge_adhesion(di, dj);
            a[ai] += si * ei;
            a[aj] += sj * ej;
        });
        near.triples(|(ai, di, si), (aj, dj, sj), (ak, dk, sk)| {
            let [ci, cj, ck] = self.overlap.corner_adhesion([di, dj, dk]);
            a[ai] -= si * ci;
            a[aj] -= sj * cj;
            a[ak] -= sk * ck;
        });
        a
    }

    /// Each wall within h takes its share along its plane on the other two axes and across it
    /// on its own (the walls' shares added, so the region behind an edge counts twice: within
    /// 2r of an edge, where the cap of [`super::support::MAX_SHARE`] bounds it).
    #[inline]
    fn support(&self, p: Vec3A) -> Support {
        if self.mirrored || self.far_from_walls(p) {
            return Support::NONE;
        }
        let mut diag = Vec3A::ZERO;
        for a in 0..3 {
            for d in [p[a] - self.min[a], self.max[a] - p[a]] {
                let [along, across] = self.table.support(d);
                diag += Vec3A::splat(along);
                diag[a] += across - along;
            }
        }
        Support { diag }
    }

    /// The distance to the nearest wall, negative outside the tank (NaN stays NaN).
    fn clearance(&self, p: Vec3A) -> f32 {
        (p - self.min).min(self.max - p).min_element()
    }

    /// `Σ_walls ρ(d) − Σ_edges ρ_ab + Σ_corners ρ_abc` (see `wall_overlap`): the lattice beyond
    /// the walls, the regions behind an edge or a corner counted once.
    #[inline]
    fn density(&self, p: Vec3A) -> (f32, Vec3A) {
        if self.mirrored || self.far_from_walls(p) {
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
        let near = self.near_walls(p);
        near.pairs(|(ai, di, si), (aj, dj, sj)| {
            let (e, ei, ej) = self.overlap.edge(di, dj);
            rho -= e;
            grad[ai] -= ei * si;
            grad[aj] -= ej * sj;
        });
        near.triples(|(ai, di, si), (aj, dj, sj), (ak, dk, sk)| {
            let (c, dc) = self.overlap.corner([di, dj, dk]);
            rho += c;
            grad[ai] += dc[0] * si;
            grad[aj] += dc[1] * sj;
            grad[ak] += dc[2] * sk;
        });
        (rho, grad)
    }
}

/// The walls within h of a point: (axis, distance, ∂d/∂p along the axis: +1 for the low wall,
/// −1 for the high one).
struct NearWalls {
    w: [(usize, f32, f32); 6],
    n: usize,
}

impl NearWalls {
    /// Each pair of walls of different axes (the tank's edges near the point), once.
    #[inline]
    fn pairs(&self, mut f: impl FnMut((usize, f32, f32), (usize, f32, f32))) {
        let w = &self.w[..self.n];
        for i in 0..w.len() {
            for j in i + 1..w.len() {
                if w[i].0 != w[j].0 {
                    f(w[i], w[j]);
                }
            }
        }
    }

    /// Each triple of walls of three different axes (the tank's corners near the point), once.
    #[inline]
    fn triples(&self, mut f: impl FnMut((usize, f32, f32), (usize, f32, f32), (usize, f32, f32))) {
        let w = &self.w[..self.n];
        for i in 0..w.len() {
            for j in i + 1..w.len() {
                for k in j + 1..w.len() {
                    if w[i].0 != w[j].0 && w[i].0 != w[k].0 && w[j].0 != w[k].0 {
                        f(w[i], w[j], w[k]);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sph::{KernelKind, Kernels};

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
        for (kind, hr) in [
            (KernelKind::Poly6Spiky, 4.0f32),
            (KernelKind::Poly6Spiky, 5.4),
            (KernelKind::CubicSpline, 4.0),
            (KernelKind::WendlandC2, 4.0),
            (KernelKind::WendlandC2, 5.12),
        ] {
            let k = Kernels::with_kind(hr * r, kind);
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
                            sum += k.w(p.distance_squared(x)) as f64;
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
                eprintln!("{kind:?}, h = {hr}r, {what}: {rho:.2}");
                assert!(
                    (rho / 1000.0 - 1.0).abs() < 0.006,
                    "h = {hr}r, {what}: {rho}"
                );
            }
        }
    }

    /// The adhesion of the lattice beyond the walls (Akinci's spline over every site behind any
    /// wall, brute force, averaged over the offsets along the walls) against the tank's, for
    /// particles of the rest lattice at a face, an edge and a corner. At a face the two agree;
    /// at an edge or a corner the walls summed pull the region behind it two or three times
    /// (3.35 against 2.25 at an edge, 3.35 against 1.19 at a corner) and the tank must remove
    /// most of that. What is left is each wall's table averaging over the lattice's offset
    /// along the other wall's normal, where the lattice behind an edge is aligned (the face's
    /// pull is 3.35 averaged, 3.05 aligned).
    #[test]
    fn adhesion_at_edges_and_corners_is_the_lattice_behind_the_walls() {
        use crate::boundary::wall_table::adhesion_spline;
        use crate::sph::lattice::rest_lattice;
        let r = 0.01f32;
        let s = 2.0 * r as f64;
        let k = Kernels::new(4.0 * r);
        let h = k.h as f64;
        let (mass, _) = rest_lattice(&k, s as f32, 1000.0);
        let t = BoxTank::new(Vec3A::ZERO, Vec3A::ONE, r, WallTable::new(&k, r, mass));
        // Sites r + i s on every axis; behind a wall where any coordinate is negative.
        let lattice = |p: [f64; 3], free: &[usize]| -> [f64; 3] {
            let n = 8usize;
            let offsets = n.pow(free.len() as u32);
            let mut a = [0.0f64; 3];
            for o in 0..offsets {
                let mut q = p;
                let mut rest = o;
                for &f in free {
                    q[f] += (rest % n) as f64 * s / n as f64;
                    rest /= n;
                }
                let c = q.map(|x| ((x - r as f64) / s).round() as i64);
                for i in -4..=4 {
                    for j in -4..=4 {
                        for l in -4..=4 {
                            let idx = [c[0] + i, c[1] + j, c[2] + l];
                            if idx.iter().all(|&x| x >= 0) {
                                continue;
                            }
                            let x = idx.map(|x| r as f64 + x as f64 * s);
                            let d = [x[0] - q[0], x[1] - q[1], x[2] - q[2]];
                            let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                            let w = mass as f64 * adhesion_spline(h, len) / len;
                            for ax in 0..3 {
                                a[ax] += w * d[ax] / offsets as f64;
                            }
                        }
                    }
                }
            }
            a
        };
        let r = r as f64;
        let mid = r + 20.0 * s;
        for (what, p, free) in [
            ("face", [r, mid, mid], &[1, 2][..]),
            ("face, 0.6 h out", [0.6 * h, mid, mid], &[1, 2]),
            ("edge", [r, r, mid], &[2]),
            ("edge, second layer", [r + s, r, mid], &[2]),
            ("corner", [r, r, r], &[]),
        ] {
            let want = lattice(p, free);
            let got = t.adhesion(Vec3A::new(p[0] as f32, p[1] as f32, p[2] as f32));
            // Each wall's pull alone, the region behind an edge counted by both.
            let plain: Vec<f32> = p.iter().map(|&x| -t.table.adhesion(x as f32)).collect();
            eprintln!("{what}: tank {got}, lattice {want:.4?}, walls summed {plain:.4?}");
            let err = |a: &[f32]| {
                (0..3)
                    .map(|ax| (a[ax] as f64 - want[ax]).abs())
                    .fold(0.0, f64::max)
            };
            let (e_tank, e_plain) = (err(&got.to_array()), err(&plain));
            // The lateral averaging's share: 3% of a face's pull.
            let face = t.table.adhesion(r as f32) as f64;
            assert!(
                e_tank <= 0.03 * face || e_tank <= 0.25 * e_plain,
                "{what}: off by {e_tank}, the walls summed by {e_plain}"
            );
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
