//! The tank: the inside of an axis-aligned box, as a collider.
//!
//! Owns: [`BoxTank`] (projection back inside, and the walls' density from the table). Does not
//! touch: other colliders.

use super::Collider;
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
}

impl BoxTank {
    pub fn new(min: Vec3A, max: Vec3A, r: f32, table: WallTable) -> Self {
        BoxTank { min, max, r, table }
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

    #[inline]
    fn density(&self, p: Vec3A) -> (f32, Vec3A) {
        if self.far_from_walls(p) {
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
