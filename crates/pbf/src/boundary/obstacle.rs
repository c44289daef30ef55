//! An obstacle: a solid shape placed in the tank, rotated, optionally moving, as a collider.
//!
//! Owns: [`Obstacle`]: its pose at the current time, the projection of particles out of it and
//! its wall density. Does not touch: the shapes' geometry (`shape`), motions (`motion`) or the
//! tank.
//!
//! A particle is kept at least r from the surface: one that came closer than r (or entered the
//! solid) is moved out along the surface normal to r plus a tenth of its overshoot, as the tank
//! does. Out along the *nearest* surface, unless that is the far side from where the particle
//! was when the step began (the solid where it was then): a plate thinner than a step's
//! relative travel, overtaken or crossed, would then pass it through. Such a particle leaves
//! through the plane that touched the solid at the point nearest to where it was (a supporting
//! plane: for these convex shapes the whole solid lies behind it), so it stays on its side. A
//! particle that ends the step beyond a thin solid altogether (its path, relative to the
//! solid, came within r of it and it is now on the far side) is brought back the same way.
//!
//! A moving obstacle moves its surface, so the particles it pushes take its velocity through
//! the position update `v = (p − x) / dt`. The density the solid adds is the tank's
//! wall table at the distance to the nearest surface, less the part beyond the solid's
//! thickness there (exact for a slab, so a plate thinner than h adds only its own mass); beside a
//! sphere or a cylinder's side, the table scaled by the share of the kernel the curved solid
//! holds (`curvature`). A solid does not carry the fluid's pressure gradient (`support`: that
//! stirred water at rest).

use super::Collider;
use super::curvature::{curved_table, cylinder_weight, sphere_weight};
use super::mesh::Mesh;
use super::motion::Motion;
use super::shape::Shape;
use super::wall_table::WallTable;
use glam::{Quat, Vec3A};

/// A placed, possibly moving solid.
#[derive(Clone, Debug)]
pub struct Obstacle {
    shape: Shape,
    /// The centre at rest (the scene's `center`); the motion's offset is added to it.
    rest_center: Vec3A,
    rotation: Quat,
    inverse: Quat,
    motion: Motion,
    /// Particle radius: particles are kept this far from the surface.
    r: f32,
    table: WallTable,
    /// The table of a sphere or a cylinder's side (`curvature`): the flat one scaled by how
    /// much of the kernel the curved solid holds; `None` for a box.
    curved: Option<WallTable>,
    /// The centre at the current time (see [`Collider::set_time`]).
    center: Vec3A,
    /// The centre when the step under way began (see [`Collider::set_step`]).
    start_center: Vec3A,
    /// Half extents of the world-axis box around the centre beyond which particles are
    /// unaffected: the rotated shape's box (the rotation is fixed) grown by the kernel radius
    /// (for the density) and r (for the projection).
    reach_box: Vec3A,
}

impl Obstacle {
    /// `shape` centred at `center`, turned by `rotation`, moved by `motion`; particles of radius
    /// `r`, with the wall density `table`. Placed at time 0.
    pub fn new(
        shape: Shape,
        center: Vec3A,
        rotation: Quat,
        motion: Motion,
        r: f32,
        table: WallTable,
    ) -> Self {
        let margin = table.h.max(r) + r;
        // |R| times the local half extents: the world box of the rotated shape.
        let m = glam::Mat3A::from_quat(rotation);
        let he = shape.half_extents();
        let reach_box =
            m.x_axis.abs() * he.x + m.y_axis.abs() * he.y + m.z_axis.abs() * he.z + margin;
        let curved = match shape {
            Shape::Box { .. } => None,
            Shape::Sphere { radius } => Some(curved_table(&table, |d| {
                sphere_weight(&table.kernels, radius as f64, d)
            })),
            Shape::Cylinder { radius, .. } => Some(curved_table(&table, |d| {
                cylinder_weight(&table.kernels, radius as f64, d)
            })),
        };
        let mut o = Obstacle {
            shape,
            curved,
            rest_center: center,
            rotation,
            inverse: rotation.inverse(),
            motion,
            r,
            table,
            center,
            start_center: center,
            reach_box,
        };
        o.set_time(0.0);
        o
    }

    /// The signed distance from `p` to the surface at the current time (negative inside).
    #[inline]
    pub fn distance(&self, p: Vec3A) -> f32 {
        self.shape
            .surface(self.inverse * (p - self.center))
            .distance
    }

    /// The surface seen from `p` (in the solid's frame), if `p` is within h of it: where the
    /// solid's density and adhesion act.
    #[inline]
    fn within_h(&self, p: Vec3A) -> Option<super::shape::Surface> {
        if self.beyond_reach(p) {
            return None;
        }
        let s = self.shape.surface(self.inverse * (p - self.center));
        (s.distance < self.table.h).then_some(s)
    }

    /// The density and its gradient at the surface point `s` (within h) describes.
    fn density_at(&self, s: &super::shape::Surface) -> (f32, Vec3A) {
        let (table, far) = self.table_at(s);
        let (mut rho, mut drho) = table.at(s.distance);
        if let Some(far) = far {
            let (f, df) = table.at(far);
            (rho, drho) = (rho - f, drho - df);
        }
        (rho, drho * (self.rotation * s.normal))
    }

    /// The table that applies at the surface point `s`, and the distance of the solid's far
    /// side there, whose lattice the flat table counts and the solid does not have (none beside
    /// a curved side: its table holds the whole solid).
    #[inline]
    fn table_at(&self, s: &super::shape::Surface) -> (&WallTable, Option<f32>) {
        match &self.curved {
            Some(c) if s.curved => (c, None),
            _ => (&self.table, Some(s.distance + s.thickness)),
        }
    }

    /// Whether `p` lies outside the box where the solid acts (see `reach_box`).
    #[inline]
    fn beyond_reach(&self, p: Vec3A) -> bool {
        (p - self.center).abs().cmpgt(self.reach_box).any()
    }

    /// `p`, `height` above a surface whose outward normal is `normal` (in the solid's frame),
    /// moved out along it to r plus a tenth of its overshoot.
    #[inline]
    fn lift(&self, p: Vec3A, normal: Vec3A, height: f32) -> Vec3A {
        p + (1.1 * (self.r - height)) * (self.rotation * normal)
    }

    /// Whether the straight path from `a` to `b` (in the solid's frame) comes within r of the
    /// surface, tested at points no more than r apart (a solid with its r margin is at least 2r
    /// thick, so a path across it has a point inside the margin).
    fn path_touches(&self, a: Vec3A, b: Vec3A) -> bool {
        let n = ((b - a).length() / self.r).ceil().clamp(1.0, 64.0) as u32;
        (1..n).any(|k| self.shape.surface(a.lerp(b, k as f32 / n as f32)).distance < self.r)
    }

    /// The centre at the current time.
    pub fn center(&self) -> Vec3A {
        self.center
    }

    pub fn rotation(&self) -> Quat {
        self.rotation
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }
}

impl Collider for Obstacle {
    #[inline]
    fn project(&self, p: Vec3A) -> Vec3A {
        if self.beyond_reach(p) {
            return p;
        }
        let s = self.shape.surface(self.inverse * (p - self.center));
        if s.distance < self.r {
            self.lift(p, s.normal, s.distance)
        } else {
            p
        }
    }

    #[inline]
    fn project_from(&self, p: Vec3A, from: Vec3A) -> Vec3A {
        if self.beyond_reach(p) {
            return p;
        }
        let r = self.r;
        let q = self.inverse * (p - self.center);
        let s = self.shape.surface(q);
        // Where the particle was, relative to the solid, when the step began.
        let q0 = self.inverse * (from - self.start_center);
        let near = s.distance < r;
        // Crossing a solid without ending within r of it takes a travel of at least 2r.
        if !near && (q - q0).length_squared() < 4.0 * r * r {
            return p;
        }
        let s0 = self.shape.surface(q0);
        // Did it come from another side: inside r now, or (a solid thinner than the step's
        // travel) across it, its path coming within r of it? A face at right angles to the one
        // it came from counts: out through it may lead into a wall the solid stands against (a
        // paddle on the tank's floor), from where the wall puts it back inside.
        let other_side = s0.distance > 0.0
            && s.normal.dot(s0.normal) <= 1e-3
            && (near || self.path_touches(q0, q));
        if other_side {
            // Out through the supporting plane at the point nearest its start, to r above it.
            let touch = q0 - s0.distance * s0.normal;
            let height = (q - touch).dot(s0.normal);
            if height < r {
                return self.lift(p, s0.normal, height);
            }
            p
        } else if near {
            self.lift(p, s.normal, s.distance)
        } else {
            p
        }
    }

    #[inline]
    fn density(&self, p: Vec3A) -> (f32, Vec3A) {
        self.within_h(p)
            .map_or((0.0, Vec3A::ZERO), |s| self.density_at(&s))
    }

    /// Toward the surface, `−(A(d) − A(d + thickness)) n` (a plate thinner than h pulls with
    /// its own lattice only, as its density counts).
    fn adhesion(&self, p: Vec3A) -> Vec3A {
        let Some(s) = self.within_h(p) else {
            return Vec3A::ZERO;
        };
        let (table, far) = self.table_at(&s);
        let pull = table.adhesion(s.distance) - far.map_or(0.0, |f| table.adhesion(f));
        -pull * (self.rotation * s.normal)
    }

    fn clearance(&self, p: Vec3A) -> f32 {
        self.distance(p)
    }

    fn reach(&self) -> Option<(Vec3A, Vec3A)> {
        Some((self.center - self.reach_box, self.center + self.reach_box))
    }

    fn set_time(&mut self, t: f64) {
        self.center = self.rest_center + self.motion.offset(t);
        self.start_center = self.center;
    }

    fn set_step(&mut self, t0: f64, t1: f64) {
        self.start_center = self.rest_center + self.motion.offset(t0);
        self.center = self.rest_center + self.motion.offset(t1);
    }

    fn surface_mesh(&self) -> Option<Mesh> {
        let mut m = Mesh::default();
        m.append_placed(&self.shape.mesh(), self.rotation, self.center);
        Some(m)
    }
}
