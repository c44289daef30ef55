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
//! the last layer has left it. Membership is a pure function of the position, so it needs no
//! per-particle state and does not depend on the thread count.

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
}

impl Guides {
    pub fn new(zones: Vec<Zone>) -> Self {
        Guides { zones }
    }

    pub fn is_empty(&self) -> bool {
        self.zones.is_empty()
    }

    /// The velocity imposed on a particle at `p` (at the start of the step), if any: the first
    /// zone, in the scene's order, that holds it.
    #[inline]
    pub fn velocity(&self, p: Vec3A) -> Option<Vec3A> {
        self.zones.iter().find(|z| z.holds(p)).map(|z| z.velocity)
    }
}
