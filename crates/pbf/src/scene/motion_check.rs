//! Doubts about where solids are and what moves in a scene: jets and solids faster than the
//! step can follow, solids whose motion shuts fluid against a tank wall or another solid, solids
//! that stand closer to a wall than a particle fits (or than two layers of them do), and solids
//! that never enter the tank.
//!
//! Owns: [`Scene::motion_warnings`] (part of [`Scene::warnings`]). Does not touch: validation
//! (a scene that warns still runs) or the motions themselves (`boundary::motion`).

use super::Scene;
use super::schema::ObstacleSpec;
use crate::boundary::motion::Motion;
use crate::boundary::shape::Shape;
use glam::{Mat3, Vec3A};

/// Samples of a motion over the run, besides its path's own times.
const SAMPLES: usize = 2000;

impl Scene {
    /// - A solid whose box lies wholly outside the tank at every time of the run (a mistake:
    ///   it touches no water).
    /// - A block whose velocity, an emitter whose speed carries its particles more than h in one
    ///   step, and a solid
    ///   whose motion does (fastest over the run, from its offsets at [`SAMPLES`] times and at
    ///   its path's times): neighbors are found once per step, so the step misses some.
    /// - A moving solid whose box (its shape's bounds, rotated) comes closer than 2r to a tank
    ///   wall it started at least 2r from, with fluid between them at the start (lattice sites
    ///   of the blocks in the box's shadow on that wall): a particle needs 2r between them (each
    ///   surface keeps it r away), so fluid caught there has no room and is squeezed into the
    ///   solid. (A paddle that slides into the wall behind it, with no water there, is fine.)
    /// - A moving solid that closes on another to less than 2r, flat face to flat face, with
    ///   fluid between them at the start (`closing_on`): a squeeze like it.
    /// - A solid that does not move and leaves a gap narrower than 2r to a tank wall (a sphere
    ///   hovering a few millimetres over the floor, a gate over a slot thinner than a particle):
    ///   no particle fits there, so no water passes (the walls slide one pressed in back out,
    ///   `boundary/crevice.rs`); a user who meant a slot learns it is not resolved. Two solids
    ///   that do not move, with flat faces closer than 2r across a slot (`slot_between`), alike.
    ///   A slot from 2r to under 4r (one layer of particles) likewise (`slot_doubt`).
    pub(super) fn motion_warnings(&self) -> Vec<String> {
        let (dt, h, s) = (self.time.dt, self.kernel_radius(), self.spacing());
        let mut out = Vec::new();
        for (k, b) in self.fluid.iter().enumerate() {
            let v = Vec3A::from_array(b.velocity).length();
            if v * dt > h {
                out.push(format!(
                    "fluid[{k}].velocity ({v} m/s) moves the block {:.4} m in one step of \
                     time.dt = {dt} s, more than the kernel radius h = {h} m (neighbors are \
                     found once per step); dt <= {:.2e} s keeps it within h",
                    v * dt,
                    h / v
                ));
            }
        }
        for (k, e) in self.emitter.iter().enumerate() {
            if e.speed * dt > h {
                out.push(format!(
                    "emitter[{k}].speed = {} m/s moves its particles {:.4} m in one step of \
                     time.dt = {dt} s, more than the kernel radius h = {h} m (neighbors are \
                     found once per step); dt <= {:.2e} s keeps it within h",
                    e.speed,
                    e.speed * dt,
                    h / e.speed
                ));
            }
        }
        let end = super::seconds(self.time.end);
        // Every block's lattice sites, taken only if a solid closes on a wall.
        let sites = std::cell::OnceCell::new();
        for (k, o) in self.obstacle.iter().enumerate() {
            let motion = o.motion();
            let fixed = matches!(motion, Motion::Fixed);
            let mut times: Vec<f64> = (0..=if fixed { 0 } else { SAMPLES })
                .map(|j| end * j as f64 / SAMPLES as f64)
                .collect();
            match &motion {
                Motion::Fixed => {}
                Motion::Path { times: knots, .. } => {
                    times.extend(knots.iter().filter(|&&t| t > 0.0 && t < end))
                }
                Motion::Linear {
                    start, end: stop, ..
                } => times.extend([*start, *stop].iter().filter(|&&t| t > 0.0 && t < end)),
                // Its extremes (the closest it comes to a wall), however short the period
                // against the samples' spacing.
                Motion::Sine { period, phase, .. } => {
                    let first = sine_time(0.5, *period, *phase);
                    times.extend([first, first + 0.5 * period].iter().filter(|&&t| t < end))
                }
            }
            times.sort_by(f64::total_cmp);
            times.dedup();
            let offsets: Vec<Vec3A> = times.iter().map(|&t| motion.offset(t)).collect();
            let reach = world_half_extents(o.shape(), Mat3::from_quat(o.rotation()));
            let c0 = Vec3A::from_array(o.center);
            let (lo, hi) = (
                Vec3A::from_array(self.tank.min),
                Vec3A::from_array(self.tank.max),
            );
            // The gaps between the solid's box and each wall.
            let gaps = |off: Vec3A| {
                let c = c0 + off;
                [c - reach - lo, hi - c - reach]
            };
            let in_tank = |off: &Vec3A| {
                let c = c0 + *off;
                (c - reach).cmplt(hi).all() && (c + reach).cmpgt(lo).all()
            };
            if !offsets.iter().any(in_tank) {
                out.push(format!(
                    "obstacle[{k}] lies wholly outside the tank (min {:?}, max {:?}){}: it \
                     touches no water (is its center in the tank's coordinates?)",
                    self.tank.min,
                    self.tank.max,
                    if fixed { "" } else { " over its whole motion" }
                ));
                continue;
            }
            if fixed {
                let rot = Mat3::from_quat(o.rotation());
                let at_rest = gaps(Vec3A::ZERO);
                for (side, name) in [(0, "min"), (1, "max")] {
                    for a in 0..3 {
                        let gap = at_rest[side][a];
                        // A slot, not a point or a line: a face parallel to the wall. Touching
                        // (or into the wall, to rounding) leaves no gap to ask about.
                        if let Some(doubt) = slot_doubt(gap, s)
                            && faces(o.shape(), rot, a)
                        {
                            out.push(format!(
                                "obstacle[{k}] stands {gap:.4} m from the tank's {}-{name} \
                                 wall, {doubt}",
                                ["x", "y", "z"][a]
                            ));
                        }
                    }
                }
                // A pair of fixed solids is looked at once, from the one listed first.
                for j in k + 1..self.obstacle.len() {
                    if matches!(self.obstacle[j].motion(), Motion::Fixed) {
                        out.extend(self.slot_between(k, j));
                    }
                }
                continue;
            }
            // Fastest: the largest mean speed between consecutive times.
            let (mut fastest, mut at) = (0.0f32, 0.0);
            for j in 1..times.len() {
                let span = (times[j] - times[j - 1]) as f32;
                let v = (offsets[j] - offsets[j - 1]).length() / span;
                if span > 0.0 && v > fastest {
                    (fastest, at) = (v, times[j - 1]);
                }
            }
            // A sine's fastest is known: sampling would miss it when the period is short
            // against the samples' spacing (a period that divides it looks like no motion).
            if let Motion::Sine {
                amplitude,
                period,
                phase,
            } = &motion
            {
                let peak = (std::f64::consts::TAU * amplitude.length() as f64 / period) as f32;
                if peak > fastest {
                    (fastest, at) = (peak, sine_time(0.0, *period, *phase));
                }
            }
            if fastest * dt > h {
                out.push(format!(
                    "obstacle[{k}].motion reaches {fastest:.3} m/s (near t = {at:.3} s): the \
                     fluid it pushes moves {:.4} m in one step of time.dt = {dt} s, more than \
                     the kernel radius h = {h} m (neighbors are found once per step); \
                     dt <= {:.2e} s keeps it within h",
                    fastest * dt,
                    h / fastest
                ));
            }
            let start = gaps(motion.offset(0.0));
            let c_start = c0 + motion.offset(0.0);
            // The fluid that starts between the solid's box and the wall, in its shadow.
            let caught = |a: usize, side: usize| {
                let sites = sites.get_or_init(|| self.lattice_sites());
                sites
                    .iter()
                    .filter(|p| {
                        let beyond = if side == 0 {
                            p[a] < c_start[a] - reach[a]
                        } else {
                            p[a] > c_start[a] + reach[a]
                        };
                        beyond && (0..3).all(|b| b == a || (p[b] - c_start[b]).abs() < reach[b])
                    })
                    .count()
            };
            for (side, name) in [(0, "min"), (1, "max")] {
                for a in 0..3 {
                    if start[side][a] < s {
                        continue;
                    }
                    let gap: Vec<f32> = offsets.iter().map(|&off| gaps(off)[side][a]).collect();
                    let Some(first) = gap.iter().position(|&g| g < s) else {
                        continue;
                    };
                    let (when, closest) = (
                        times[first],
                        gap.iter().copied().fold(f32::INFINITY, f32::min),
                    );
                    let n = caught(a, side);
                    if n > 0 {
                        out.push(format!(
                            "obstacle[{k}].motion brings it closer to the tank's {}-{name} \
                             wall than the 2r = {s} m a particle needs between them from about \
                             t = {when:.3} s (its box {:.4} m from the wall at the start, \
                             {closest:.4} m at the closest), with {n} particles of the fluid \
                             blocks between them: fluid caught there is squeezed into the solid",
                            ["x", "y", "z"][a],
                            start[side][a]
                        ));
                    }
                }
            }
            for j in 0..self.obstacle.len() {
                // A pair that both move is looked at once, from the one listed first.
                let both = !matches!(self.obstacle[j].motion(), Motion::Fixed);
                if j != k && !(both && j < k) {
                    out.extend(self.closing_on(k, j, &times, &sites));
                }
            }
        }
        out
    }

    /// A moving solid `k` closing on solid `j` (flat faces square to one world axis facing each
    /// other, as a paddle driven against a block) to less than the 2r a particle needs, with
    /// fluid between them at the start: what is caught there has no room (`boundary/crevice.rs`
    /// slides a particle out of a crevice that has a mouth along a curved or turned surface;
    /// flat faces closing give it none, and it is held halfway between them, within r of both). Looked at the times
    /// `times` of `k`'s motion.
    fn closing_on(
        &self,
        k: usize,
        j: usize,
        times: &[f64],
        sites: &std::cell::OnceCell<Vec<Vec3A>>,
    ) -> Option<String> {
        let s = self.spacing();
        let (a_, b_) = (&self.obstacle[k], &self.obstacle[j]);
        let ((ra, ea), (rb, eb)) = (turned(a_), turned(b_));
        let (ma, mb) = (a_.motion(), b_.motion());
        let centers = |t: f64| {
            (
                Vec3A::from_array(a_.center) + ma.offset(t),
                Vec3A::from_array(b_.center) + mb.offset(t),
            )
        };
        // The gap between the two boxes across axis `a` at `t`, if they overlap along the others.
        let gap = |t: f64, a: usize| {
            let (ca, cb) = centers(t);
            let apart = (0..3).any(|b| b != a && (ca[b] - cb[b]).abs() >= ea[b] + eb[b]);
            (!apart).then(|| (ca[a] - cb[a]).abs() - ea[a] - eb[a])
        };
        for a in 0..3 {
            if !(faces(a_.shape(), ra, a) && faces(b_.shape(), rb, a)) {
                continue;
            }
            if gap(0.0, a).is_none_or(|g| g < s) {
                continue;
            }
            let Some(first) = times.iter().position(|&t| gap(t, a).is_some_and(|g| g < s)) else {
                continue;
            };
            let closest = times
                .iter()
                .filter_map(|&t| gap(t, a))
                .fold(f32::INFINITY, f32::min);
            // The fluid that starts between them, where both boxes face each other.
            let (ca, cb) = centers(0.0);
            let n = sites
                .get_or_init(|| self.lattice_sites())
                .iter()
                .filter(|p| {
                    let (lo, hi) = (ca[a].min(cb[a]), ca[a].max(cb[a]));
                    let (ela, elb) = if ca[a] < cb[a] { (ea, eb) } else { (eb, ea) };
                    p[a] > lo + ela[a]
                        && p[a] < hi - elb[a]
                        && (0..3).all(|b| {
                            b == a || ((p[b] - ca[b]).abs() < ea[b] && (p[b] - cb[b]).abs() < eb[b])
                        })
                })
                .count();
            if n > 0 {
                return Some(format!(
                    "obstacle[{k}].motion brings it closer to obstacle[{j}] across {} than the \
                     2r = {s} m a particle needs between them from about t = {:.3} s ({:.4} m \
                     apart at the start, {closest:.4} m at the closest), with {n} particles of \
                     the fluid blocks between them: fluid caught there has no room (it is \
                     squeezed to less than r from both and squirts out)",
                    ["x", "y", "z"][a],
                    times[first],
                    gap(0.0, a).unwrap_or(0.0)
                ));
            }
        }
        None
    }
}

impl Scene {
    /// Two fixed solids `k` and `j` whose flat faces (square to one world axis, facing each
    /// other) stand closer than the 2r a particle needs between them: a slot no water passes
    /// (the crevice rules hold a particle pressed in halfway between them, or slide it out).
    /// Touching or overlapping solids (a gap under 1% of r) leave no slot to ask about.
    fn slot_between(&self, k: usize, j: usize) -> Option<String> {
        let s = self.spacing();
        let (a_, b_) = (&self.obstacle[k], &self.obstacle[j]);
        let ((ra, ea), (rb, eb)) = (turned(a_), turned(b_));
        let (ca, cb) = (Vec3A::from_array(a_.center), Vec3A::from_array(b_.center));
        (0..3).find_map(|a| {
            // Facing each other across `a`: the boxes overlap along the other two axes by more
            // than a particle, so the slot has an opening water could enter.
            let facing = (0..3).all(|b| b == a || (ca[b] - cb[b]).abs() < ea[b] + eb[b] - s);
            let gap = (ca[a] - cb[a]).abs() - ea[a] - eb[a];
            let doubt = slot_doubt(gap, s)?;
            (facing && faces(a_.shape(), ra, a) && faces(b_.shape(), rb, a)).then(|| {
                format!(
                    "obstacle[{k}] and obstacle[{j}] stand {gap:.4} m apart across {}, {doubt}",
                    ["x", "y", "z"][a]
                )
            })
        })
    }
}

/// The first time `t >= 0` at which a sine of `period` and `phase` has the phase `k π`
/// (`k = 0`: fastest, `k = 1/2`: at its largest offset).
fn sine_time(k: f64, period: f64, phase: f64) -> f64 {
    let turn = std::f64::consts::PI;
    let n = ((phase - k * turn) / turn).ceil();
    ((k + n) * turn - phase) / std::f64::consts::TAU * period
}

/// What a slot `gap` wide between a flat face and a wall or another face does not resolve
/// (spacing `s` = 2r), said after where it is:
/// - narrower than 2r, no particle fits (but touching, under 1% of r or into the other surface
///   to rounding, leaves no slot to ask about);
/// - from 2r to under 4r, one layer fits and not two: a lone layer between two surfaces is
///   pressed into neither (its only pushes across the slot are the two surfaces' density
///   gradients, equal and opposite), so it carries little of the water's pressure: a box lifted
///   2r off the floor under 0.3 m of water is pushed up by 0.03 of ρ g V, at 4r by 1.16
///   (docs/results.md, stop 59).
fn slot_doubt(gap: f32, s: f32) -> Option<String> {
    let (tight, two) = (s * (1.0 - 1e-4), 2.0 * s * (1.0 - 1e-4));
    if gap > 0.01 * (0.5 * s) && gap < tight {
        Some(format!(
            "less than the 2r = {s} m a particle needs between them: no water passes there (a \
             gap of 2r or more, or a smaller particles.radius, lets it through)"
        ))
    } else if (tight..two).contains(&gap) {
        Some(format!(
            "room for one layer of particles and not two (4r = {} m): a lone layer between two \
             surfaces carries little of the water's pressure, so the push on the faces across \
             it (forces.csv) is not resolved (a gap of 4r or more, or a smaller \
             particles.radius, resolves it)",
            2.0 * s
        ))
    } else {
        None
    }
}

/// An obstacle's rotation as a matrix, and the half extents of the world box that holds it.
fn turned(o: &ObstacleSpec) -> (Mat3, Vec3A) {
    let rot = Mat3::from_quat(o.rotation());
    (rot, world_half_extents(o.shape(), rot))
}

/// Whether `shape` turned by `rot` shows a flat face to the walls across world axis `a` (a box
/// with a face, a cylinder with an end, square to that axis).
fn faces(shape: Shape, rot: Mat3, a: usize) -> bool {
    let square = |v: Vec3A| v[a].abs() > 1.0 - 1e-4;
    match shape {
        Shape::Box { .. } => (0..3).any(|i| square(Vec3A::from(rot.col(i)))),
        Shape::Cylinder { .. } => square(Vec3A::from(rot.col(1))),
        Shape::Sphere { .. } => false,
    }
}

/// Half extents of the world box that holds `shape` turned by `rot` (exact for each kind: a
/// box's corners, a cylinder's rims, a sphere's radius).
fn world_half_extents(shape: Shape, rot: Mat3) -> Vec3A {
    match shape {
        Shape::Box { half } => Vec3A::from_array(std::array::from_fn(|a| {
            (0..3).map(|i| rot.row(a)[i].abs() * half[i]).sum()
        })),
        Shape::Cylinder {
            radius,
            half_length,
        } => {
            let axis = Vec3A::from(rot.col(1));
            Vec3A::from_array(std::array::from_fn(|a| {
                axis[a].abs() * half_length + radius * (1.0 - axis[a] * axis[a]).max(0.0).sqrt()
            }))
        }
        Shape::Sphere { radius } => Vec3A::splat(radius),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    #[test]
    fn a_sine_s_fastest_and_farthest_times_are_its_phase_s() {
        let (period, tau) = (0.3, std::f64::consts::TAU);
        for phase in [0.0, 0.4, -2.0, 7.5] {
            let arg = |t: f64| tau * t / period + phase;
            let fastest = sine_time(0.0, period, phase);
            let farthest = sine_time(0.5, period, phase);
            for t in [fastest, farthest] {
                assert!((0.0..period).contains(&t), "phase {phase}: t = {t}");
            }
            assert!(arg(fastest).sin().abs() < 1e-9, "phase {phase}");
            assert!(
                (arg(farthest).sin().abs() - 1.0).abs() < 1e-9,
                "phase {phase}"
            );
            // The other extreme half a period later.
            let other = arg(farthest + 0.5 * period).sin();
            assert!((other + arg(farthest).sin()).abs() < 1e-9, "phase {phase}");
        }
    }

    #[test]
    fn world_boxes_of_turned_shapes() {
        // A cylinder along y turned 90 degrees about x lies along z.
        let rot = Mat3::from_quat(Quat::from_rotation_x(std::f32::consts::FRAC_PI_2));
        let c = world_half_extents(
            Shape::Cylinder {
                radius: 0.1,
                half_length: 0.5,
            },
            rot,
        );
        assert!(
            (c - Vec3A::new(0.1, 0.1, 0.5)).abs().max_element() < 1e-4,
            "{c}"
        );
        // A cube turned 45 degrees about z reaches half a diagonal along x and y.
        let rot = Mat3::from_quat(Quat::from_rotation_z(std::f32::consts::FRAC_PI_4));
        let b = world_half_extents(
            Shape::Box {
                half: Vec3A::splat(1.0),
            },
            rot,
        );
        let d = 2f32.sqrt();
        assert!(
            (b - Vec3A::new(d, d, 1.0)).abs().max_element() < 1e-5,
            "{b}"
        );
    }
}
