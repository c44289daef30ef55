//! Boundaries as colliders: each keeps particles out of its solid and adds the solid's
//! contribution to a particle's density, so the fluid feels the walls (without it PBF pulls
//! particles onto the walls: the sticking the AABB paper reports with its penalty walls).
//!
//! Owns: the [`Collider`] interface and the [`ColliderSet`] the solver holds; the tank
//! ([`tank::BoxTank`]) and the wall density table ([`wall_table::WallTable`]) in files of their
//! own. Obstacles and moving walls join as further colliders. Does not touch: particles.

pub mod tank;
pub mod wall_table;

pub use tank::BoxTank;
pub use wall_table::WallTable;

use glam::Vec3A;

/// Something solid the fluid must stay out of and feel.
pub trait Collider: Send + Sync {
    /// Move `p` out of the solid (to at least the particle radius from its surface).
    fn project(&self, p: Vec3A) -> Vec3A;
    /// The solid's density contribution at `p` and its gradient with respect to `p`.
    fn density(&self, p: Vec3A) -> (f32, Vec3A);
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
