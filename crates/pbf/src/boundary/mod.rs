//! Boundaries as colliders: each keeps particles out of its solid and adds the solid's
//! contribution to a particle's density, so the fluid feels the walls (without it PBF pulls
//! particles onto the walls: the sticking the AABB paper reports with its penalty walls).
//!
//! Owns: the [`Collider`] interface and the [`ColliderSet`] the solver holds; in files of their
//! own the tank ([`tank::BoxTank`]), obstacles ([`obstacle::Obstacle`]: a [`shape::Shape`] placed,
//! rotated and moved by a [`motion::Motion`]) and the wall density table
//! ([`wall_table::WallTable`]). Does not touch: particles.

pub mod mesh;
pub mod motion;
pub mod obstacle;
pub mod shape;
pub mod tank;
pub mod wall_table;

pub use mesh::Mesh;
pub use motion::Motion;
pub use obstacle::Obstacle;
pub use shape::Shape;
pub use tank::BoxTank;
pub use wall_table::WallTable;

use glam::Vec3A;

/// Something solid the fluid must stay out of and feel.
pub trait Collider: Send + Sync {
    /// Move `p` out of the solid (to at least the particle radius from its surface).
    fn project(&self, p: Vec3A) -> Vec3A;
    /// The solid's density contribution at `p` and its gradient with respect to `p`.
    fn density(&self, p: Vec3A) -> (f32, Vec3A);
    /// Move to where the solid is at time `t` (a moving solid's pose is a function of time
    /// alone); a fixed solid ignores it.
    fn set_time(&mut self, _t: f64) {}
    /// The solid's surface where it is now, for output (`None`: not drawn, like the tank,
    /// which ParaView users see as the domain).
    fn surface_mesh(&self) -> Option<Mesh> {
        None
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

    /// The drawn colliders' surfaces where they are now, as one mesh (`None` if none is drawn).
    pub fn surface_mesh(&self) -> Option<Mesh> {
        let mut all = Mesh::default();
        for c in &self.colliders {
            if let Some(m) = c.surface_mesh() {
                all.append_placed(&m, glam::Quat::IDENTITY, Vec3A::ZERO);
            }
        }
        (!all.is_empty()).then_some(all)
    }

    /// Every collider to where it is at time `t`.
    pub fn set_time(&mut self, t: f64) {
        for c in &mut self.colliders {
            c.set_time(t);
        }
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
