//! Boundaries as colliders: each keeps particles out of its solid and adds the solid's
//! contribution to a particle's density, so the fluid feels the walls (without it PBF pulls
//! particles onto the walls: the sticking the AABB paper reports with its penalty walls).
//!
//! Owns: the [`Collider`] interface and the [`ColliderSet`] the solver holds; in files of their
//! own the tank ([`tank::BoxTank`]), obstacles ([`obstacle::Obstacle`]: a [`shape::Shape`] placed,
//! rotated and moved by a [`motion::Motion`]), the wall density table
//! ([`wall_table::WallTable`]), the tank's walls as mirrors ([`mirror::MirrorWalls`], when
//! the scene asks for them) and the solids' pushes on the fluid, booked per solid for the force
//! on each ([`push`]). Does not touch: particles.

mod crevice;
pub mod curvature;
use crevice::out_of_solids;
pub mod mesh;
pub mod mirror;
pub mod motion;
mod near;
use near::Near;
pub mod obstacle;
pub mod push;
pub mod shape;
pub mod support;
pub mod tank;
pub mod wall_overlap;
pub mod wall_push;
pub mod wall_table;

pub use mesh::Mesh;
pub use mirror::MirrorWalls;
pub use motion::Motion;
pub use obstacle::Obstacle;
pub use shape::Shape;
pub use support::Support;
pub use tank::BoxTank;
pub use wall_overlap::WallOverlap;
pub use wall_push::TankWalls;
pub use wall_table::WallTable;

use crate::par::CHUNK;
use glam::{Vec3A, Vec4};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Something solid the fluid must stay out of and feel.
pub trait Collider: Send + Sync {
    /// Move `p` out of the solid (to at least the particle radius from its surface).
    fn project(&self, p: Vec3A) -> Vec3A;
    /// [`project`](Self::project) for a particle that was at `from` when the step began (and
    /// the solid where [`set_step`](Self::set_step) says it was then): out on the side it came
    /// from, so a solid thinner than a step's travel is never crossed. By default the same as
    /// `project`.
    fn project_from(&self, p: Vec3A, _from: Vec3A) -> Vec3A {
        self.project(p)
    }
    /// The solid's density contribution at `p` and its gradient with respect to `p`.
    fn density(&self, p: Vec3A) -> (f32, Vec3A);
    /// The wall's share of the kernel moment of a particle at `p` (see [`support`]): the tank's
    /// lattice walls only; none by default (solids carry no share: `support`'s module doc).
    fn support(&self, _p: Vec3A) -> Support {
        Support::NONE
    }
    /// The adhesion acceleration per unit β at `p` (Akinci et al. 2013: toward the surface,
    /// see [`WallTable::adhesion`]); none by default.
    fn adhesion(&self, _p: Vec3A) -> Vec3A {
        Vec3A::ZERO
    }
    /// The signed distance from `p` to the solid's surface, positive on the fluid's side (for
    /// the run's watch of how close particles come, and the inflow's: where a site may emit and
    /// a jet is guided; not used by the density solve or the projections).
    fn clearance(&self, p: Vec3A) -> f32;
    /// The world box outside which `project` and `density` leave a particle alone (`None`:
    /// anywhere), where the solid is now: passes skip whole chunks of particles outside it.
    fn reach(&self) -> Option<(Vec3A, Vec3A)> {
        None
    }
    /// Move to where the solid is at time `t` (a moving solid's pose is a function of time
    /// alone); a fixed solid ignores it.
    fn set_time(&mut self, _t: f64) {}
    /// Move to where the solid is at the end `t1` of a step that began at `t0`, remembering
    /// where it was at `t0` (for [`project_from`](Self::project_from)).
    fn set_step(&mut self, _t0: f64, t1: f64) {
        self.set_time(t1);
    }
    /// The solid's surface where it is now, for output (`None`: not drawn, like the tank,
    /// which ParaView users see as the domain).
    fn surface_mesh(&self) -> Option<Mesh> {
        None
    }
}

/// The colliders of a scene, in two groups applied in this order: the **walls** (the tank: a
/// few comparisons per particle, evaluated inside the step's fused passes) and the **solids**
/// (obstacles: shapes, rotations, motions), evaluated in passes of their own so their cost has
/// a timer of its own (the step's collision handling, [`take_time`](Self::take_time)). Scenes
/// without solids run no extra pass.
pub struct ColliderSet {
    walls: Vec<Box<dyn Collider>>,
    solids: Vec<Box<dyn Collider>>,
    /// The tank's walls as mirrors (`pbf.walls = "mirror"`; the tank then adds no density of
    /// its own): the density constraint sums the images ([`mirror`]).
    mirror: Option<MirrorWalls>,
    /// Wall-clock time of the solids' passes since the last [`take_time`](Self::take_time), ns.
    spent_ns: AtomicU64,
    /// Each solid's pushes on the fluid since the last
    /// [`take_push_counts`](Self::take_push_counts)
    /// ([`push`]).
    pushes: push::Pushes,
    /// The tank's six walls, when their pushes are booked ([`wall_push`]).
    tank: Option<TankWalls>,
    /// The walls' pushes since the last `take_push_counts`, in [`wall_push::WALLS`]' order.
    wall_pushes: push::Pushes,
}

impl ColliderSet {
    /// `walls` evaluated inside the fused passes, then `solids` in passes of their own.
    pub fn new(walls: Vec<Box<dyn Collider>>, solids: Vec<Box<dyn Collider>>) -> Self {
        ColliderSet {
            pushes: push::Pushes::new(solids.len()),
            tank: None,
            wall_pushes: push::Pushes::new(wall_push::WALLS.len()),
            walls,
            solids,
            mirror: None,
            spent_ns: AtomicU64::new(0),
        }
    }

    /// The set with the tank's walls as `mirror` (the tank among `walls` must then add no
    /// density of its own: [`BoxTank::mirrored`]).
    pub fn with_mirror(mut self, mirror: Option<MirrorWalls>) -> Self {
        self.mirror = mirror;
        self
    }

    /// The set that books the pushes of the tank's walls on each of them ([`wall_push`]):
    /// `tank` must be the box of the tank among the walls.
    pub fn with_tank_walls(mut self, tank: TankWalls) -> Self {
        self.tank = Some(tank);
        self
    }

    /// The walls as mirrors, if the scene asks for them.
    #[inline]
    pub fn mirror(&self) -> Option<&MirrorWalls> {
        self.mirror.as_ref()
    }

    /// Whether there are solids (and so passes of their own).
    pub fn has_solids(&self) -> bool {
        !self.solids.is_empty()
    }

    /// The drawn colliders' surfaces where they are now, as one mesh (`None` if none is drawn).
    pub fn surface_mesh(&self) -> Option<Mesh> {
        let mut all = Mesh::default();
        for c in self.walls.iter().chain(&self.solids) {
            if let Some(m) = c.surface_mesh() {
                all.append_placed(&m, glam::Quat::IDENTITY, Vec3A::ZERO);
            }
        }
        (!all.is_empty()).then_some(all)
    }

    /// Every collider to where it is at time `t`.
    pub fn set_time(&mut self, t: f64) {
        for c in self.walls.iter_mut().chain(&mut self.solids) {
            c.set_time(t);
        }
    }

    /// Every collider to where it is at the end `t1` of a step that began at `t0` (see
    /// [`Collider::set_step`]).
    pub fn set_step(&mut self, t0: f64, t1: f64) {
        for c in self.walls.iter_mut().chain(&mut self.solids) {
            c.set_step(t0, t1);
        }
    }

    /// The closest any of `p` comes to the walls, and to the solids (`f32::INFINITY` without
    /// any), as signed distances (negative: inside). Exact minima, so any thread count agrees.
    pub fn clearance(&self, p: &[Vec3A]) -> (f32, f32) {
        let closest = |cs: &[Box<dyn Collider>]| {
            p.par_iter()
                .with_min_len(CHUNK)
                .map(|&p| {
                    cs.iter()
                        .map(|c| c.clearance(p))
                        .fold(f32::INFINITY, f32::min)
                })
                .reduce(|| f32::INFINITY, f32::min)
        };
        (closest(&self.walls), closest(&self.solids))
    }

    /// How far `p` is from the closest wall or solid where they are now (signed: negative
    /// inside).
    pub fn clearance_at(&self, p: Vec3A) -> f32 {
        self.walls
            .iter()
            .chain(&self.solids)
            .map(|c| c.clearance(p))
            .fold(f32::INFINITY, f32::min)
    }

    /// Seconds spent in the solids' passes since the last call (the step's collision handling).
    pub fn take_time(&self) -> f64 {
        self.spent_ns.swap(0, Ordering::Relaxed) as f64 * 1e-9
    }

    fn timed<T>(&self, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let r = f();
        let ns = t.elapsed().as_nanos() as u64;
        self.spent_ns.fetch_add(ns, Ordering::Relaxed);
        r
    }

    /// One point out of every collider, walls first, for a particle that was at `from` when the
    /// step began: the solids push it out on the side it came from
    /// ([`Collider::project_from`]). The step's passes use
    /// [`project_walls`](Self::project_walls) and then [`project_solids`](Self::project_solids),
    /// which give the same result.
    #[inline]
    pub fn project_from(&self, p: Vec3A, from: Vec3A) -> Vec3A {
        let q = self.project_walls(p);
        let (s, last) = out_of_solids(q, from, self.solids.iter().map(|c| c.as_ref()));
        self.back_inside(q, s, from, last)
    }

    /// One point out of the walls (inside a fused pass).
    #[inline]
    pub fn project_walls(&self, mut p: Vec3A) -> Vec3A {
        for c in &self.walls {
            p = c.project(p);
        }
        p
    }

    /// Every point out of the solids (and, if a solid pushed it through a wall, back inside): a
    /// pass of its own, timed; nothing without solids. `from[i]` is where particle `i` was when
    /// the step began: each leaves a solid on the side it came from
    /// ([`Collider::project_from`]). Each move of an `owned` particle (`None`: all) is booked
    /// on the solid that moved it last ([`push`]).
    pub fn project_solids(&self, p: &mut [Vec3A], from: &[Vec3A], owned: Option<&[bool]>) {
        if self.solids.is_empty() {
            return;
        }
        self.timed(|| {
            p.par_chunks_mut(NEAR_CHUNK)
                .zip(from.par_chunks(NEAR_CHUNK))
                .enumerate()
                .for_each(|(b, (chunk, from))| {
                    let near = self.near(chunk);
                    if near.is_empty() {
                        return;
                    }
                    let mut booked = push::Booked::new(&self.pushes);
                    for (o, (p, &x)) in chunk.iter_mut().zip(from).enumerate() {
                        let before = *p;
                        let (s, last) = out_of_solids(before, x, near.iter());
                        *p = self.back_inside(before, s, x, last);
                        if *p != before && push::owns(owned, b * NEAR_CHUNK + o) {
                            // A slide may end on the walls' say: the move is still the solid's.
                            let k = near.indexed().find(|(_, c)| last.is(*c)).map(|(k, _)| k);
                            if let Some(k) = k {
                                booked.book(k, *p - before);
                            }
                        }
                    }
                })
        });
    }

    /// The solids whose reach overlaps the box of `chunk`'s points, in order (a solid leaves a
    /// point outside its reach alone, so skipping it changes nothing).
    fn near(&self, chunk: &[Vec3A]) -> Near<'_> {
        let (lo, hi) = chunk.iter().fold(
            (Vec3A::splat(f32::INFINITY), Vec3A::splat(f32::NEG_INFINITY)),
            |(lo, hi), &p| (lo.min(p), hi.max(p)),
        );
        let mut near = Near::default();
        for (k, c) in self.solids.iter().enumerate() {
            // A non-finite point (NaN fails every comparison) keeps every solid: the step's
            // check reports it.
            let apart = c
                .reach()
                .is_some_and(|(a, b)| hi.cmplt(a).any() || lo.cmpgt(b).any());
            if !apart {
                near.push(k, c.as_ref());
            }
        }
        near
    }

    /// The solids' density at every point, as `(∇ρ, ρ)` in `out` (a pass of its own, timed),
    /// for [`density`](Self::density); `out` is left empty without solids.
    pub fn solid_density(&self, p: &[Vec3A], out: &mut Vec<Vec4>) {
        if self.solids.is_empty() {
            out.clear();
            return;
        }
        out.resize(p.len(), Vec4::ZERO);
        self.timed(|| {
            out.par_chunks_mut(NEAR_CHUNK)
                .zip(p.par_chunks(NEAR_CHUNK))
                .for_each(|(out, p)| {
                    let near = self.near(p);
                    for (o, &p) in out.iter_mut().zip(p) {
                        *o = fold_solids(&near, p);
                    }
                })
        });
    }

    /// The share of a particle's kernel moment (at `p`) that the walls take (solids take none:
    /// `support`'s module doc).
    #[inline]
    pub fn support(&self, p: Vec3A) -> Support {
        self.walls
            .iter()
            .fold(Support::NONE, |s, c| s.and(c.support(p)))
    }

    /// The density all colliders add at particle `i` (at `p`) and its gradient: the walls'
    /// here, the solids' from `solid` ([`solid_density`](Self::solid_density) of this pass's
    /// positions; empty without solids).
    #[inline]
    pub fn density(&self, i: usize, p: Vec3A, solid: &[Vec4]) -> (f32, Vec3A) {
        let (r, g) = fold_density(&self.walls, p);
        match solid.get(i) {
            Some(s) => (r + s.w, g + Vec3A::from(s.truncate())),
            None => (r, g),
        }
    }

    /// Add `dt β a(p_i)` to every velocity, `a` the adhesion acceleration per unit β of all
    /// colliders at the particle's position (a gather; the solids' part timed as collision
    /// handling and booked on each solid, as the displacement `dt Δv` of a step `dt` long, for
    /// the `owned` particles: [`push`]; the walls' part booked on the tank's walls likewise:
    /// [`wall_push`]).
    pub fn add_adhesion(
        &self,
        p: &[Vec3A],
        v: &mut [Vec3A],
        dt_beta: f32,
        dt: f32,
        owned: Option<&[bool]>,
    ) {
        v.par_chunks_mut(CHUNK)
            .zip(p.par_chunks(CHUNK))
            .enumerate()
            .for_each(|(b, (v, p))| {
                let mut book = self.wall_book();
                for (o, (v, &p)) in v.iter_mut().zip(p).enumerate() {
                    let a = self
                        .walls
                        .iter()
                        .fold(Vec3A::ZERO, |a, c| a + c.adhesion(p));
                    *v += dt_beta * a;
                    if let Some(book) = &mut book
                        && a != Vec3A::ZERO
                        && push::owns(owned, b * CHUNK + o)
                    {
                        book.push(p, (dt * dt_beta) * a);
                        book.end_particle();
                    }
                }
            });
        if self.solids.is_empty() {
            return;
        }
        self.timed(|| {
            v.par_chunks_mut(NEAR_CHUNK)
                .zip(p.par_chunks(NEAR_CHUNK))
                .enumerate()
                .for_each(|(b, (v, p))| {
                    let near = self.near(p);
                    let mut booked = push::Booked::new(&self.pushes);
                    for (o, (v, &p)) in v.iter_mut().zip(p).enumerate() {
                        let own = push::owns(owned, b * NEAR_CHUNK + o);
                        let a = near.indexed().fold(Vec3A::ZERO, |a, (k, c)| {
                            let ak = c.adhesion(p);
                            if own && ak != Vec3A::ZERO {
                                booked.book(k, (dt * dt_beta) * ak);
                            }
                            a + ak
                        });
                        *v += dt_beta * a;
                    }
                })
        });
    }

    /// The density all colliders add at one point, and its gradient (for single points).
    pub fn density_at(&self, p: Vec3A) -> (f32, Vec3A) {
        let (r, g) = fold_density(&self.walls, p);
        let (sr, sg) = fold_density(&self.solids, p);
        (r + sr, g + sg)
    }
}

/// Particles per chunk in the solids' passes: each chunk keeps the solids whose reach overlaps
/// its points' box ([`ColliderSet::near`]). Particles are in cell order, so 32 of them span a
/// couple of cells, where the solver's 256 span a row of the grid: in a bed of many small
/// solids, a row's box keeps dozens that each particle would test one by one.
const NEAR_CHUNK: usize = 32;

/// The near solids' `(∇ρ, ρ)` at `p`.
#[inline]
fn fold_solids(near: &Near, p: Vec3A) -> Vec4 {
    let (r, g) = near.iter().fold((0.0, Vec3A::ZERO), |(r, g), c| {
        let (cr, cg) = c.density(p);
        (r + cr, g + cg)
    });
    g.extend(r)
}

/// The summed density of `colliders` at `p` and its gradient.
#[inline]
fn fold_density(colliders: &[Box<dyn Collider>], p: Vec3A) -> (f32, Vec3A) {
    colliders.iter().fold((0.0, Vec3A::ZERO), |(r, g), c| {
        let (cr, cg) = c.density(p);
        (r + cr, g + cg)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sph::Kernels;
    use crate::sph::lattice::rest_lattice;
    use glam::Quat;

    const R: f32 = 0.01;
    const H: f32 = 0.04;

    fn table() -> WallTable {
        let k = Kernels::new(H);
        let (mass, _) = rest_lattice(&k, 2.0 * R, 1000.0);
        WallTable::new(&k, R, mass)
    }

    /// A rotated plate, a tilted cylinder and a moving sphere in a 1 m tank.
    fn obstacles() -> Vec<Obstacle> {
        let rot = |x: f32, y: f32, z: f32| {
            Quat::from_rotation_z(z.to_radians())
                * Quat::from_rotation_y(y.to_radians())
                * Quat::from_rotation_x(x.to_radians())
        };
        let sine = Motion::Sine {
            amplitude: Vec3A::new(0.1, 0.05, 0.0),
            period: 1.0,
            phase: 0.3,
        };
        vec![
            Obstacle::new(
                Shape::Box {
                    half: Vec3A::new(0.3, 0.01, 0.2),
                },
                Vec3A::new(0.4, 0.5, 0.5),
                rot(10.0, 25.0, -20.0),
                Motion::Fixed,
                R,
                table(),
            ),
            Obstacle::new(
                Shape::Cylinder {
                    radius: 0.08,
                    half_length: 0.2,
                },
                Vec3A::new(0.7, 0.3, 0.4),
                rot(40.0, 0.0, 30.0),
                Motion::Fixed,
                R,
                table(),
            ),
            Obstacle::new(
                Shape::Sphere { radius: 0.1 },
                Vec3A::new(0.3, 0.8, 0.6),
                Quat::IDENTITY,
                sine,
                R,
                table(),
            ),
        ]
    }

    fn set(solids: bool) -> ColliderSet {
        let tank = BoxTank::new(Vec3A::ZERO, Vec3A::ONE, R, table());
        let solids: Vec<Box<dyn Collider>> = if solids {
            obstacles()
                .into_iter()
                .map(|o| Box::new(o) as Box<dyn Collider>)
                .collect()
        } else {
            Vec::new()
        };
        ColliderSet::new(vec![Box::new(tank)], solids)
    }

    /// Numbers uniform in [0, 1) from `seed` (a linear congruential generator: the same on every
    /// machine).
    fn uniform(mut seed: u64) -> impl FnMut() -> f32 {
        move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    /// Points over the whole tank: sorted along x (chunks are slabs, most far from every solid,
    /// as after the step's reorder into cells), a few outside the tank.
    fn points() -> Vec<Vec3A> {
        let mut u = uniform(12345);
        let mut p: Vec<Vec3A> = (0..20_000)
            .map(|_| Vec3A::new(1.1 * u() - 0.05, 1.1 * u() - 0.05, 1.1 * u() - 0.05))
            .collect();
        p.sort_by(|a, b| a.x.total_cmp(&b.x));
        p
    }

    #[test]
    fn reach_box_holds_every_point_an_obstacle_acts_on() {
        // Outside its reach box a point is farther from the solid than h + r (the shapes' exact
        // signed distance), so neither the projection nor the density can act there.
        for mut o in obstacles() {
            o.set_time(0.37);
            let (lo, hi) = o.reach().unwrap();
            let mut outside = 0;
            for p in points() {
                if p.cmplt(lo).any() || p.cmpgt(hi).any() {
                    outside += 1;
                    assert!(o.distance(p) > H + R, "{p} at {}", o.distance(p));
                }
            }
            assert!(
                outside > 10_000,
                "the box is tight enough to skip most points"
            );
        }
    }

    #[test]
    fn solid_passes_equal_the_colliders_one_point_at_a_time() {
        let mut c = set(true);
        c.set_time(0.37);
        let pts = points();
        // Projection: walls in the fused pass, then the solids' pass = every collider in order.
        let mut p: Vec<Vec3A> = pts.iter().map(|&p| c.project_walls(p)).collect();
        c.project_solids(&mut p, &pts, None);
        let mut moved = 0;
        for (k, (&q, &x)) in p.iter().zip(&pts).enumerate() {
            assert_eq!(q, c.project_from(x, x), "point {k}");
            moved += (q != c.project_walls(x)) as usize;
        }
        assert!(moved > 50, "the obstacles moved {moved} points");
        // Density: the solids' pass read back by index = the per-point sum of every collider.
        let mut solid = Vec::new();
        c.solid_density(&pts, &mut solid);
        let mut felt = 0;
        for (i, &x) in pts.iter().enumerate() {
            let (r, g) = c.density(i, x, &solid);
            let (r0, g0) = c.density_at(x);
            assert!(
                (r - r0).abs() <= 1e-6 * r0.abs().max(1.0),
                "point {i}: {r} vs {r0}"
            );
            assert!(
                (g - g0).length() <= 1e-5 * g0.length().max(1.0),
                "point {i}"
            );
            felt += (solid[i].w > 0.0) as usize;
        }
        assert!(felt > 50, "the obstacles' density reached {felt} points");
        assert!(c.take_time() > 0.0 && c.take_time() == 0.0);
    }

    #[test]
    fn a_solid_never_pushes_a_point_out_of_the_tank() {
        // A paddle whose bottom face is the floor (as the paper's sliding wall): points it
        // overtakes near the floor are nearer its bottom face than its sides, and were pushed
        // through the floor (seen at paper scale: a particle 6 mm below it).
        let paddle = Obstacle::new(
            Shape::Box {
                half: Vec3A::new(0.03, 0.3, 0.6),
            },
            Vec3A::new(0.5, 0.3, 0.5),
            Quat::IDENTITY,
            Motion::Fixed,
            R,
            table(),
        );
        let tank = BoxTank::new(Vec3A::ZERO, Vec3A::ONE, R, table());
        let c = ColliderSet::new(vec![Box::new(tank)], vec![Box::new(paddle)]);
        let mut pts: Vec<Vec3A> = (0..400)
            .map(|k| Vec3A::new(0.47 + 0.00015 * k as f32, R + 0.0001 * (k % 7) as f32, 0.5))
            .collect();
        let one: Vec<Vec3A> = pts.iter().map(|&p| c.project_from(p, p)).collect();
        let from = pts.clone();
        pts.iter_mut().for_each(|p| *p = c.project_walls(*p));
        c.project_solids(&mut pts, &from, None);
        assert_eq!(pts, one);
        for p in &pts {
            assert!(p.y >= R - 1e-6, "{p} is below the floor's r");
        }
    }

    #[test]
    fn a_thin_solid_overtaken_or_crossed_in_one_step_keeps_every_point_on_its_side() {
        // A plate 4 mm thick (thinner than r = 10 mm), tilted, moving 25 mm along its normal in
        // one step; points start in front of it (within its extent, r to 2.5r from its front
        // face) and move up to 30 mm toward it or past it. Each ends at least r in front of the
        // plate where it is at the step's end: never behind it, never inside it.
        let rot = Quat::from_rotation_z(0.3) * Quat::from_rotation_x(-0.4);
        let normal = rot * Vec3A::Y;
        let speed = 0.025 / 0.01;
        let mut plate = Obstacle::new(
            Shape::Box {
                half: Vec3A::new(0.2, 0.002, 0.2),
            },
            Vec3A::splat(0.5),
            rot,
            Motion::Linear {
                velocity: normal * speed,
                start: 0.0,
                end: 1.0,
            },
            R,
            table(),
        );
        plate.set_step(0.0, 0.01);
        let (start, end) = (Vec3A::splat(0.5), Vec3A::splat(0.5) + 0.025 * normal);
        let mut u = uniform(7);
        let (mut crossed, mut overtaken) = (0, 0);
        for _ in 0..2000 {
            let local = Vec3A::new(
                0.3 * u() - 0.15,
                0.002 + R * (1.0 + 1.5 * u()),
                0.3 * u() - 0.15,
            );
            let from = start + rot * local;
            let to = from - normal * (0.03 * u()) + (rot * Vec3A::X) * (0.01 * u() - 0.005);
            let out = plate.project_from(to, from);
            // Height above the plate's front face where it ends the step.
            let h = (out - end).dot(normal) - 0.002;
            assert!(
                h >= R * 0.999,
                "{from} -> {to}: ends {h} m above the front face"
            );
            crossed += ((to - end).dot(normal) < -0.002) as usize;
            overtaken += ((to - end).dot(normal) < 0.0) as usize;
        }
        assert!(
            crossed > 300 && overtaken > 600,
            "{crossed} crossed, {overtaken} overtaken"
        );
        // Far from the solid, or staying on its side beyond r: untouched.
        let away = end + normal * (2.0 * R);
        assert_eq!(plate.project_from(away, away + normal * 0.02), away);
    }

    #[test]
    fn without_solids_no_pass_runs() {
        let c = set(false);
        let pts = points();
        let mut p = pts.clone();
        c.project_solids(&mut p, &pts, None);
        assert_eq!(p, pts);
        let mut solid = vec![Vec4::ONE];
        c.solid_density(&pts, &mut solid);
        assert!(solid.is_empty());
        assert_eq!(c.density(3, pts[3], &solid), c.density_at(pts[3]));
        assert_eq!(c.take_time(), 0.0);
    }
}
