//! Inflow: particles added while the simulation runs, by emitters (layers leaving a nozzle) and
//! timed fluid blocks.
//!
//! Owns: [`Inflow`] (the schedule of every source and the ids it hands out), the nozzles
//! (`nozzle`), the guide that holds a jet's first kernel radius to its velocity (`guide`) and
//! the room test (`room`). Does not touch: the step (the solver calls
//! [`Inflow::emit`] after each step) or the particles' fields beyond appending
//! ([`Fluid::append`]).
//!
//! An emitter's layer k leaves at `t_k = start + k · pitch / speed` until `end` (the pitch is
//! `s³ n / area` for `n` sites and s = 2r, so that each particle holds `s³` and the jet carries
//! exactly `area × speed`: one spacing when the sites tile the area at spacing s; see
//! `EmitterSpec::pitch`); it is added after the step that reaches `t_k`, each particle where it
//! would be by then (`site + direction · speed · (t − t_k)`), with the emitter's velocity, at
//! every site where no particle is closer than the closest two of its sites are
//! (`EmitterSpec::closest`) and that lies at least r from every wall and solid (a nozzle's part
//! beyond the tank's walls never emits; a solid over the nozzle blocks the sites it covers
//! while it is there). While a nozzle is open (and until its last layer is a kernel radius
//! out), the particles in front of it move with its velocity ([`Inflow::guides`]), so each layer
//! is exactly one pitch ahead of the next and the jet delivers its schedule unless something
//! blocks it. A timed block
//! is added the same way after the step that reaches its start. New particles get the next ids;
//! ids are never reused. Everything is decided per site, so the result does not depend on the
//! thread count.

pub mod guide;
pub mod nozzle;
pub mod room;

use crate::boundary::ColliderSet;
use crate::distributed::Halo;
use crate::particles::Fluid;
use glam::Vec3A;
use guide::{Guides, Zone};
use nsearch::Grid;

/// How far from every wall and solid a new or guided particle must be at lattice spacing `s`:
/// r, less a margin (rounding is not a violation: a site r from a wall by construction stays).
pub fn keep(s: f32) -> f32 {
    0.5 * s * (1.0 - 1e-4)
}

/// Where particles come from.
#[derive(Clone, Debug)]
enum Source {
    /// A fluid block that appears at `start`.
    Block {
        sites: Vec<Vec3A>,
        velocity: Vec3A,
        start: f64,
        done: bool,
    },
    /// A nozzle emitting layers from `start` to `end`.
    Nozzle {
        sites: Vec<Vec3A>,
        /// Where its particles are guided; its velocity is the emitter's.
        zone: Zone,
        start: f64,
        end: f64,
        /// Seconds per layer: `pitch / speed`.
        period: f64,
        /// The room a site needs: no particle closer than this.
        room: f32,
        /// The next layer to leave.
        next: u64,
        /// Whether the last layer that left found room for no particle: the nozzle is shut
        /// (under water in a full tank, a solid over it) and its guide is released.
        shut: bool,
    },
}

/// A nozzle's layout for a lattice spacing: its sites, the distance between its layers, the
/// closest two sites come, and its guide zone (see `nozzle`).
#[derive(Clone, Debug)]
pub struct Nozzle {
    pub sites: Vec<Vec3A>,
    pub pitch: f32,
    pub closest: f32,
    pub zone: Zone,
}

/// Where the schedule stands (for checkpoints): per source in the scene's order, the next
/// layer of a nozzle or whether a block is placed (1) or not (0); the particles added; and per
/// source whether it is a shut nozzle (checkpoints from before it have none: none shut).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InflowState {
    pub progress: Vec<u64>,
    pub added: u64,
    #[serde(default)]
    pub shut: Vec<bool>,
}

/// The inflow schedule of a scene.
#[derive(Clone, Debug)]
pub struct Inflow {
    sources: Vec<Source>,
    spacing: f32,
    rest_density: f32,
    /// Particles added so far.
    added: u64,
    /// Particles before any was added (ids go on from `base + added`).
    base: u64,
}

impl Inflow {
    /// No inflow; new particles are to be created on a lattice of `spacing`.
    pub fn new(spacing: f32, rest_density: f32) -> Self {
        Inflow {
            sources: Vec::new(),
            spacing,
            rest_density,
            added: 0,
            base: 0,
        }
    }

    /// A block of `sites` appearing at `start` with `velocity`.
    pub fn add_block(&mut self, sites: Vec<Vec3A>, velocity: Vec3A, start: f64) {
        self.sources.push(Source::Block {
            sites,
            velocity,
            start,
            done: false,
        });
    }

    /// A nozzle whose layers leave `sites` `pitch` apart with the velocity of `zone` (which
    /// guides them out), from `start` to `end`, where no particle is closer than `closest`.
    pub fn add_nozzle(&mut self, nozzle: Nozzle, start: f64, end: f64) {
        let speed = nozzle.zone.velocity.length() as f64;
        self.sources.push(Source::Nozzle {
            sites: nozzle.sites,
            zone: nozzle.zone,
            start,
            end,
            period: nozzle.pitch as f64 / speed,
            room: nozzle.closest * 0.999,
            next: 0,
            shut: false,
        });
    }

    /// The guide zones active in the step that starts at `t`: those of the nozzles open by then
    /// whose last layer has not yet left the zone.
    pub fn guides(&self, t: f64) -> Guides {
        let zones = self
            .sources
            .iter()
            .filter_map(|s| match s {
                Source::Nozzle {
                    zone,
                    start,
                    end,
                    shut,
                    ..
                } => {
                    let out = (zone.ahead + zone.behind) as f64 / zone.velocity.length() as f64;
                    (!*shut && t + 1e-9 >= *start && t <= *end + out).then_some(*zone)
                }
                Source::Block { .. } => None,
            })
            .collect();
        Guides::new(zones, self.keep())
    }

    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }

    fn keep(&self) -> f32 {
        keep(self.spacing)
    }

    /// The scene's particles before any was added (the first new id).
    pub fn set_base(&mut self, particles: usize) {
        self.base = particles as u64;
    }

    /// Particles added so far.
    pub fn added(&self) -> u64 {
        self.added
    }

    /// Where the schedule stands (see [`InflowState`]).
    pub fn state(&self) -> InflowState {
        InflowState {
            progress: self
                .sources
                .iter()
                .map(|s| match s {
                    Source::Block { done, .. } => *done as u64,
                    Source::Nozzle { next, .. } => *next,
                })
                .collect(),
            added: self.added,
            shut: self
                .sources
                .iter()
                .map(|s| matches!(s, Source::Nozzle { shut: true, .. }))
                .collect(),
        }
    }

    /// Go on from `state` (taken from an inflow of the same scene); an error if it has another
    /// number of sources.
    pub fn restore(&mut self, state: &InflowState) -> Result<(), String> {
        if state.progress.len() != self.sources.len() {
            return Err(format!(
                "the checkpoint has {} inflow sources, the scene {}",
                state.progress.len(),
                self.sources.len()
            ));
        }
        if !state.shut.is_empty() && state.shut.len() != self.sources.len() {
            return Err(format!(
                "the checkpoint has {} inflow sources' states, the scene {} sources",
                state.shut.len(),
                self.sources.len()
            ));
        }
        for (k, (s, &p)) in self.sources.iter_mut().zip(&state.progress).enumerate() {
            match s {
                Source::Block { done, .. } => *done = p != 0,
                Source::Nozzle { next, shut, .. } => {
                    *next = p;
                    *shut = state.shut.get(k).copied().unwrap_or(false);
                }
            }
        }
        self.added = state.added;
        Ok(())
    }

    /// The most particles the schedule can add (every site of every layer and block free).
    pub fn most(&self) -> usize {
        self.sources
            .iter()
            .map(|s| match s {
                Source::Block { sites, .. } => sites.len(),
                Source::Nozzle {
                    sites,
                    start,
                    end,
                    period,
                    ..
                } => sites.len() * (((end - start) / period).floor() as usize + 1),
            })
            .sum()
    }

    /// Add the particles due by time `t` to `fluid`, whose first `grid.len()` particles are in
    /// the slot order of `grid` (the last step's). Returns how many were added. With the fluid
    /// split over processes, each decides the sites in its own slab and `halo` makes every
    /// process agree on all of them, so every process appends every new particle, with the
    /// one-process ids (it keeps its own in [`Halo::keep_owned`]).
    ///
    /// A nozzle's site closer than r to a wall or a solid where `colliders` are now (a moving
    /// solid passing the nozzle, one built over it) gets no particle: there is no room for one
    /// there, and one placed there would be thrown out at once.
    pub fn emit(
        &mut self,
        t: f64,
        fluid: &mut Fluid,
        grid: &Grid,
        halo: &dyn Halo,
        colliders: &ColliderSet,
    ) -> usize {
        let before = fluid.len();
        let keep = self.keep();
        // A block's site needs no particle closer than the spacing (a nozzle's, closer than its
        // own sites come), with a margin for rounding: a layer leaves when the last has moved
        // exactly one pitch on.
        let s = self.spacing * 0.999;
        // A due time within rounding of the step's end counts as reached.
        let reached = |at: f64| at <= t + 1e-9;
        for source in &mut self.sources {
            match source {
                Source::Block {
                    sites,
                    velocity,
                    start,
                    done,
                } => {
                    if !*done && reached(*start) {
                        let new = room::free(sites, &fluid.x, grid, s, halo);
                        let first = (self.base + self.added + (fluid.len() - before) as u64) as u32;
                        fluid.append_from(first, &new, *velocity, self.rest_density);
                        *done = true;
                    }
                }
                Source::Nozzle {
                    sites,
                    zone,
                    start,
                    end,
                    period,
                    room,
                    next,
                    shut,
                } => loop {
                    let at = *start + *next as f64 * *period;
                    if at > *end + 1e-9 || !reached(at) {
                        break;
                    }
                    let shift = zone.velocity * (t - at).max(0.0) as f32;
                    let layer: Vec<Vec3A> = sites
                        .iter()
                        .map(|&p| p + shift)
                        .filter(|&p| colliders.clearance_at(p) >= keep)
                        .collect();
                    let new = room::free(&layer, &fluid.x, grid, *room, halo);
                    let first = (self.base + self.added + (fluid.len() - before) as u64) as u32;
                    fluid.append_from(first, &new, zone.velocity, self.rest_density);
                    *shut = new.is_empty();
                    *next += 1;
                },
            }
        }
        let n = fluid.len() - before;
        self.added += n as u64;
        n
    }
}
