//! The nozzle's guide: particles in the first kernel radius of a jet move with the emitter's
//! velocity.
//!
//! Owns: [`Zone`] (the region in front of a nozzle whose particles are guided) and [`Guides`]
//! (the zones active in a step, and the velocity they impose). Does not touch: when layers leave
//! or where there is room (`mod`, `room`), or the step (the solver asks [`Guides::velocity`]).
//!
//! Why: a freshly emitted layer has fluid on one side only. PBF's artificial pressure `s_corr`
//! (and any one-sided force) then pushes it back toward the nozzle, the layer before it has not
//! moved a whole spacing on when the next one is due, and the room test refuses that layer:
//! measured, a jet in zero gravity or a horizontal one delivered 2/3 of its schedule. Inflow
//! boundaries of the field (DualSPHysics' inlet buffer, SPlisHSPlasH's emitter) hold the
//! particles near the inlet to the inflow velocity instead; so does this one. A particle is
//! guided while its position at the start of the step lies in the nozzle's zone: from half a
//! spacing behind the nozzle to one kernel radius in front of it, across the nozzle's footprint
//! (its sites' extent, plus half a spacing). By then it has a full kernel's worth of fluid
//! behind it and leaves the zone into a stream whose back is held. The zone stays active until
//! the last layer has left it, and is released while the nozzle is shut: its last layer found
//! room for no particle (under water in a full tank, a solid over it). Held there, the guided
//! particles pumped the water round against the pressure they built (a hose filling a closed
//! box: 0.44 m/s mean for as long as it was open). A particle whose free run ahead (a zone's
//! length along the jet, or a wide jet's area over its perimeter: [`Zone::free_run`]) meets a
//! wall or solid is not guided ([`Guides::velocity`]): the jet reaches the wall as free water,
//! under its pressure.
//! Membership is a pure function of the position, so it needs no per-particle state and does
//! not depend on the thread count.

use crate::boundary::ColliderSet;
use glam::Vec3A;

/// The cross-section of a zone, in the nozzle's axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Footprint {
    /// Half widths along the nozzle's two axes.
    Rect { half_u: f32, half_v: f32 },
    /// Radius about the nozzle's axis.
    Circle { radius: f32 },
}

/// The region in front of a nozzle whose particles move with its velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Zone {
    pub center: Vec3A,
    /// Unit direction of the jet.
    pub direction: Vec3A,
    /// The nozzle's axes across the direction.
    pub axes: (Vec3A, Vec3A),
    pub footprint: Footprint,
    /// From `-behind` to `ahead` along the direction.
    pub behind: f32,
    pub ahead: f32,
    /// The imposed velocity (direction × speed).
    pub velocity: Vec3A,
}

impl Zone {
    /// How much free run a guided particle needs ahead of it: the zone's length, or more for
    /// a wide jet, its area over its perimeter (half a round jet's radius). Held to its
    /// velocity, the jet pushes the water between it and a wall out sideways through the gap
    /// the free run leaves, at `U · area / (perimeter · gap)`: no faster than the jet itself
    /// when the gap is at least area / perimeter.
    pub fn free_run(&self) -> f32 {
        let across = match self.footprint {
            Footprint::Rect { half_u, half_v } => half_u * half_v / (half_u + half_v),
            Footprint::Circle { radius } => radius / 2.0,
        };
        self.ahead.max(across)
    }

    /// Whether `p` lies in the zone.
    #[inline]
    pub fn holds(&self, p: Vec3A) -> bool {
        let r = p - self.center;
        let a = r.dot(self.direction);
        if !(a >= -self.behind && a < self.ahead) {
            return false;
        }
        let (u, v) = (r.dot(self.axes.0), r.dot(self.axes.1));
        match self.footprint {
            Footprint::Rect { half_u, half_v } => u.abs() < half_u && v.abs() < half_v,
            Footprint::Circle { radius } => u * u + v * v < radius * radius,
        }
    }
}

/// The zones active in one step.
#[derive(Clone, Debug, Default)]
pub struct Guides {
    zones: Vec<Zone>,
    /// How far from every wall and solid a point must be for a particle there to be free
    /// of them (r, less a rounding margin).
    keep: f32,
}

impl Guides {
    /// The zones `zones`, whose particles are guided while the point their free run ahead
    /// ([`Zone::free_run`]) is at least `keep` from every collider.
    pub fn new(zones: Vec<Zone>, keep: f32) -> Self {
        Guides { zones, keep }
    }

    pub fn is_empty(&self) -> bool {
        self.zones.is_empty()
    }

    /// The velocity imposed on a particle at `p` (at the start of the step), if any: that of
    /// the first zone, in the scene's order, that holds it, while the jet has free run ahead
    /// of it: the point [`Zone::free_run`] further along the jet lies clear of every wall and
    /// solid (`colliders` where they are in this step).
    ///
    /// A guided particle ignores the pressure, so a zone reaching into a wall (a tap a few
    /// centimetres over the floor, a nozzle facing a wall) made a piston of the jet: it
    /// squeezed the water between itself and the wall out sideways at twice the jet's speed
    /// (a 1.5 m/s tap 6 cm over the floor: 3.3 m/s along it; a 30 cm square one at 1 m/s,
    /// 8 cm over it: 4 m/s), or drove layers onto each other against the wall and shot one
    /// out at 20 m/s (1 m/s, 5 cm from the wall). Released that far before the wall, the jet
    /// meets it as free water.
    #[inline]
    pub fn velocity(&self, p: Vec3A, colliders: &ColliderSet) -> Option<Vec3A> {
        let z = self.zones.iter().find(|z| z.holds(p))?;
        let ahead = p + z.direction * z.free_run();
        (colliders.clearance_at(ahead) >= self.keep).then_some(z.velocity)
    }
}
