//! The step of Position Based Fluids (Macklin & Müller 2013), multithreaded with rayon: the
//! pipeline that calls the parts in order and times each phase (the AABB paper's Table 1).
//!
//! Owns: [`Solver`] (the parts, the step's order, scratch buffers, phase times). Does not touch:
//! what a part computes (the density solve in `pressure`, forces in `forces`, colliders in
//! `boundary`, the search in `nsearch`), or files.
//!
//! ## One step (dt fixed)
//! 1. Predicted `p = project(x + dt·(v + dt·g))` (colliders keep it inside the tank; `v` itself
//!    is left for step 5 to set).
//!    A particle in front of an open nozzle (`inflow::guide`, decided on `x`) takes the
//!    nozzle's velocity instead, here, after the density solve (its `p` back to
//!    `project(x + dt·v_e)`) and after the forces.
//! 2. **Construction**: grid built on `p` (the window of the tank's cells that holds every `p`:
//!    the same order and lists as a grid over the whole tank, without its empty cells), then
//!    every particle array is reordered into cell order
//!    (so neighbors sit close in memory; `id` keeps each particle's identity for output).
//! 3. **Search**: neighbor lists on `p`, cached for the whole step.
//! 4. **Density solve** ([`DensitySolver`]: PBF's constraint iterations), correcting `p`.
//! 5. `v = (p − x) / dt`; densities at the corrected positions, each particle's volume, and in
//!    the same neighbor walk the velocity sums the forces read (`sph::kinematics`: the curl,
//!    the smoothed velocity difference).
//! 6. **Non-pressure forces** ([`ForceSet`]: vorticity confinement, XSPH), all from the
//!    velocities of 5: `v_i ← (v_i + Δv_1) + Δv_2 …` in one gather.
//! 7. `x = p`.
//!
//! The particle mass is calibrated so that a particle inside the rest lattice (spacing 2r) has
//! exactly ρ0 (`sph::lattice`); the wall density uses the same lattice (see `boundary`).
//! Every parallel loop is a gather (each particle writes only its own slot, summing its
//! neighbors in a fixed order), so results are bit-identical for any thread count.

mod compare;
mod measures;
mod solid_forces;

pub use compare::{CompareStep, ModeStep};

use crate::boundary::ColliderSet;
use crate::distributed::{Alone, Halo, refresh};
use crate::forces::{ForceInput, ForceSet};
use crate::inflow::Inflow;
use crate::inflow::guide::Guides;
use crate::par::{CHUNK, Scratch, par_gather};
use crate::particles::Fluid;
use crate::pressure::{DensityInput, DensitySolver};
use crate::scene::Scene;
use crate::sph::Kernels;
use crate::sph::kinematics::{KinematicsIn, KinematicsOut, kinematics};
use glam::{DVec3, Vec3A, Vec4};
use nsearch::{Backend, BackendUnavailable, GridSpec, NeighborSearch, SearchMode, SearchStats};
use rayon::prelude::*;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Wall-clock time of one step's phases, in seconds (the paper's Table 1 columns).
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct StepTimes {
    /// Grid construction and reordering of the particle arrays.
    pub construction: f64,
    pub search: f64,
    /// Everything else: the density solve, velocity update, forces.
    pub behavior: f64,
    /// Of the step: collision handling for obstacles (their projection and wall-density passes,
    /// in the prediction and in the behavior); 0 without obstacles.
    pub collisions: f64,
    /// Of the behavior: the density solve (the constraint iterations, walls and solids
    /// included).
    pub density_solve: f64,
    /// Of the behavior: the non-pressure forces' walk and adhesion (the sums they read from the
    /// kinematics pass are not in it).
    pub forces: f64,
    pub step: f64,
    /// The density solve's iterations and the density error it reached (not a time).
    #[serde(skip)]
    pub solve: crate::pressure::SolveStats,
}

/// What a solver is made of (see [`Solver::from_parts`]; a scene builds them in
/// `scene::build`).
pub struct SolverParts {
    pub fluid: Fluid,
    /// The scene's initial particles, `fluid`'s or more (when this process holds part of them):
    /// new particles are numbered from here.
    pub particles_total: usize,
    /// Particles added during the run (emitters, timed blocks), if any.
    pub inflow: Option<Inflow>,
    pub kernels: Kernels,
    pub colliders: ColliderSet,
    /// The grid over the whole domain; each step's grid is a window of it.
    pub domain: GridSpec,
    pub search_mode: SearchMode,
    pub gravity: Vec3A,
    /// The tank's lowest corner along gravity (its lower corner without gravity): where the
    /// measures take heights and potential energy from.
    pub lowest_corner: Vec3A,
    /// Where the simulation's coordinates start in the scene's (see `Scene::origin`): the
    /// solver's positions are relative to it; frames and obstacle surfaces add it back.
    pub origin: Vec3A,
    pub dt: f32,
    pub rest_density: f32,
    /// Particle mass (calibrated on the rest lattice).
    pub mass: f32,
    pub density_solver: Box<dyn DensitySolver>,
    /// The non-pressure forces, applied in the set's order.
    pub forces: Box<dyn ForceSet>,
    /// Fluid–solid adhesion β (0: none).
    pub adhesion: f32,
}

/// The solver: its parts, the neighbor search, state and scratch buffers.
pub struct Solver {
    pub fluid: Fluid,
    inflow: Option<Inflow>,
    kernels: Kernels,
    colliders: ColliderSet,
    search: NeighborSearch,
    domain: GridSpec,
    gravity: Vec3A,
    lowest_corner: Vec3A,
    /// See [`SolverParts::origin`].
    origin: Vec3A,
    dt: f32,
    /// `dt` as the decimal the scene writes (`scene::seconds`): the clock is `steps × dt_seconds`.
    dt_seconds: f64,
    rho0: f32,
    mass: f32,
    density_solver: Box<dyn DensitySolver>,
    forces: Box<dyn ForceSet>,
    /// Fluid–solid adhesion β (Akinci et al. 2013; 0: none).
    adhesion: f32,
    /// The nozzles' guide zones active in this step (none without emitters).
    guides: Guides,
    /// A stop request (an interrupt), looked at before each constraint iteration: a step it
    /// stops is abandoned and undone (see [`Solver::step`]).
    stop: Option<&'static AtomicBool>,
    /// The other processes' part of the fluid ([`Alone`] in one process), and which slots
    /// this process owns (filled only when it shares the fluid).
    halo: Box<dyn Halo>,
    owned: Vec<bool>,
    /// Each solid's impulse on the fluid (N s) not yet taken (`solid_forces`).
    solid_impulse: Vec<DVec3>,
    /// Simulated time.
    pub time: f64,
    pub steps: u64,
    // Scratch, reused every step.
    /// Predicted (then corrected) positions.
    p: Vec<Vec3A>,
    /// Buffers the phases share: the reorder's and the density solve's, then the velocities with
    /// the volume `m / ρ` in w (`v4`, read by the forces: one load per neighbor for both) and
    /// the new velocities (`v3`).
    scratch: Scratch,
    tmp_u32: Vec<u32>,
    tmp_f32: Vec<f32>,
}

impl Solver {
    /// A solver for `scene`, its fluid blocks sampled into particles at rest (see
    /// [`crate::scene::build`]).
    pub fn new(scene: &Scene) -> Result<Solver, nsearch::GridError> {
        crate::scene::build::solver(scene)
    }

    /// [`Solver::new`] holding only the initial particles whose position `keep` accepts (a
    /// process of a split run), with their scene ids.
    pub fn keeping(
        scene: &Scene,
        keep: &dyn Fn(Vec3A) -> bool,
    ) -> Result<Solver, nsearch::GridError> {
        crate::scene::build::solver_keeping(scene, keep)
    }

    /// A solver from its parts, at time 0.
    pub fn from_parts(parts: SolverParts) -> Solver {
        let mut fluid = parts.fluid;
        // Room for every particle the schedule can add: no reallocation during the run.
        let mut inflow = parts.inflow;
        if let Some(inflow) = &mut inflow {
            fluid.reserve(inflow.most());
            inflow.set_base(parts.particles_total);
        }
        Solver {
            fluid,
            inflow,
            kernels: parts.kernels,
            colliders: parts.colliders,
            search: NeighborSearch::new(parts.domain, parts.search_mode),
            domain: parts.domain,
            gravity: parts.gravity,
            lowest_corner: parts.lowest_corner,
            origin: parts.origin,
            dt: parts.dt,
            dt_seconds: crate::scene::seconds(parts.dt),
            rho0: parts.rest_density,
            mass: parts.mass,
            density_solver: parts.density_solver,
            forces: parts.forces,
            adhesion: parts.adhesion,
            guides: Guides::default(),
            stop: None,
            halo: Box::new(Alone),
            owned: Vec::new(),
            solid_impulse: Vec::new(),
            time: 0.0,
            steps: 0,
            p: Vec::new(),
            scratch: Scratch::default(),
            tmp_u32: Vec::new(),
            tmp_f32: Vec::new(),
        }
    }

    /// The grid over the whole domain (each step's grid is a window of it).
    pub fn domain(&self) -> &GridSpec {
        &self.domain
    }

    /// The time step (s).
    pub fn dt(&self) -> f32 {
        self.dt
    }

    /// The kernel (and search) radius h (m).
    pub fn kernel_radius(&self) -> f32 {
        self.kernels.h
    }

    /// Particle mass (calibrated, see the module docs).
    pub fn mass(&self) -> f32 {
        self.mass
    }

    /// Where the solver's coordinates start in the scene's: a position `x` of the solver is
    /// `origin + x` in the scene (see `Scene::origin`; zero for a scene near the origin).
    pub fn origin(&self) -> Vec3A {
        self.origin
    }

    pub fn rest_density(&self) -> f32 {
        self.rho0
    }

    pub fn neighbor_search(&self) -> &NeighborSearch {
        &self.search
    }

    /// The density solve's and the forces' names, in the order the step runs them.
    pub fn methods(&self) -> Vec<&'static str> {
        std::iter::once(self.density_solver.name())
            .chain(self.forces.names())
            .collect()
    }

    /// A neighbor search like the solver's own (same grid and backend), in `mode`.
    pub fn new_search(&self, mode: SearchMode) -> NeighborSearch {
        NeighborSearch::new(*self.search.grid().spec(), mode)
            .with_backend(self.search.backend())
            .expect("the solver's own backend runs on this CPU")
    }

    /// Run the neighbor search on `backend` (the fastest this CPU runs by default); fails,
    /// changing nothing, when this CPU cannot run it. Results are the same on every backend.
    pub fn set_search_backend(&mut self, backend: Backend) -> Result<(), BackendUnavailable> {
        self.search.set_backend(backend)
    }

    /// Share the fluid with other processes through `halo` (see [`crate::distributed`]): from
    /// now on each step exchanges particles and ghosts, and the fluid holds this process's own
    /// particles between steps.
    pub fn set_halo(&mut self, halo: Box<dyn Halo>) {
        self.halo = halo;
    }

    /// The other processes' part of the fluid.
    pub fn halo(&self) -> &dyn Halo {
        &*self.halo
    }

    /// Look at `flag` during each step: once it is set, the step under way is abandoned at its
    /// next constraint iteration and undone, so a long step (many iterations) stops at once
    /// and the state stays that of the last whole step (what a checkpoint saves).
    pub fn stop_on(&mut self, flag: &'static AtomicBool) {
        self.stop = Some(flag);
    }

    /// Advance one step; returns its phase times and search counters. If a stop request (see
    /// [`stop_on`](Self::stop_on)) abandoned it, the state is as before it and `steps` has
    /// not advanced.
    pub fn step(&mut self) -> (StepTimes, SearchStats) {
        let t_step = Instant::now();
        self.colliders.take_time();
        self.colliders.take_push_counts(); // an abandoned step's, if any
        self.predict();
        // Particles into the slabs that own their predicted cells, ghosts in (other processes).
        self.halo
            .exchange_particles(&mut self.fluid, &mut self.p, &self.domain);

        // 2. Construction: grid on p, then all arrays into cell order.
        let t = Instant::now();
        self.fit_grid();
        self.search.build(&self.p);
        self.reorder();
        let construction = t.elapsed().as_secs_f64();

        // 3. Search.
        let t = Instant::now();
        let stats = self.search.search();
        let search = t.elapsed().as_secs_f64();

        // 4.-7. Particle behavior.
        let t = Instant::now();
        let b = self.behavior();
        let behavior = t.elapsed().as_secs_f64();

        if b.whole {
            self.book_solid_impulse();
            self.finish_step();
        } else {
            self.undo_reorder();
        }
        let times = StepTimes {
            construction,
            search,
            behavior,
            density_solve: b.density_solve,
            forces: b.forces,
            collisions: self.colliders.take_time(),
            step: t_step.elapsed().as_secs_f64(),
            solve: self.density_solver.last_solve(),
        };
        (times, stats)
    }

    /// Cut the grid of this step: the window of the domain's cells that holds every predicted
    /// position (see [`GridSpec::window`]: the same particle order and lists as the whole
    /// domain's grid, without its empty cells, which cost memory traffic in every construction).
    fn fit_grid(&mut self) {
        let spec = self.domain.window(&self.p);
        self.search.grid_mut().set_spec(spec);
    }

    /// Step 1, external forces and predicted positions: the first thing every kind of step
    /// does (this step's nozzle guides and solid poses are set here, so no step misses them).
    fn predict(&mut self) {
        if let Some(inflow) = &self.inflow {
            self.guides = inflow.guides(self.time);
        }
        let n = self.fluid.len();
        let (dt, g) = (self.dt, self.gravity);
        // Moving solids to where they are at the end of this step.
        let end = self.time_after(self.steps + 1);
        self.colliders.set_step(self.time, end);
        let colliders = &self.colliders;
        let guides = &self.guides;
        self.p.resize(n, Vec3A::ZERO);
        // The velocities are not written here (step 5 sets them all): until then the state
        // (x, v, id) changes only by the reorder, so an abandoned step can be undone exactly.
        let (x, v) = (&self.fluid.x, &self.fluid.v);
        colliders.gather_in_walls(&mut self.p, x, None, |i, _| {
            let v = guides.velocity(x[i], colliders).unwrap_or(v[i] + dt * g);
            x[i] + dt * v
        });
        colliders.project_solids(&mut self.p, &self.fluid.x, None);
    }

    /// The predicted positions and every state field into the cell order of the last build.
    fn reorder(&mut self) {
        let perm = self.search.grid().permutation();
        let tmp = &mut self.scratch.v3;
        nsearch::gather(perm, &self.p, tmp);
        std::mem::swap(&mut self.p, tmp);
        self.fluid
            .reorder(perm, tmp, &mut self.tmp_u32, &mut self.tmp_f32);
        self.halo.sorted(perm, &self.p);
    }

    /// Put x, v, id and swirl back into the order before this step's reorder (the only change an
    /// abandoned step made to them): `old[perm[slot]] = new[slot]`.
    fn undo_reorder(&mut self) {
        let perm = self.search.grid().permutation();
        let f = &mut self.fluid;
        let tmp = &mut self.scratch.v3;
        scatter_back(perm, &mut f.x, tmp);
        scatter_back(perm, &mut f.v, tmp);
        scatter_back(perm, &mut f.id, &mut self.tmp_u32);
        scatter_back(perm, &mut f.swirl, &mut self.tmp_f32);
    }

    /// The simulated time after `steps` steps: from the count, not summed, so it does not drift
    /// from the decimal by the binary rounding of dt.
    fn time_after(&self, steps: u64) -> f64 {
        steps as f64 * self.dt_seconds
    }

    fn finish_step(&mut self) {
        self.steps += 1;
        self.time = self.time_after(self.steps);
        // New particles after the step, at the end of it: the next step sorts them in.
        let held = self.fluid.len();
        if let Some(inflow) = &mut self.inflow {
            inflow.emit(
                self.time,
                &mut self.fluid,
                self.search.grid(),
                &*self.halo,
                &self.colliders,
            );
        }
        self.halo.keep_owned(&mut self.fluid, held);
    }

    /// The obstacles' surfaces where they are now (`None` without obstacles), for output.
    pub fn obstacle_mesh(&self) -> Option<crate::boundary::Mesh> {
        let local = self.colliders.surface_mesh()?;
        if self.origin == Vec3A::ZERO {
            return Some(local);
        }
        let mut m = crate::boundary::Mesh::default();
        m.append_placed(&local, glam::Quat::IDENTITY, self.origin);
        Some(m)
    }

    /// The closest any particle is to the tank's walls and to the obstacles (signed distances,
    /// negative inside; `f32::INFINITY` without obstacles).
    pub fn clearance(&self) -> (f32, f32) {
        self.colliders.clearance(&self.fluid.x)
    }

    /// The fastest particle's speed.
    pub fn max_speed(&self) -> f32 {
        self.fluid
            .v
            .par_iter()
            .with_min_len(CHUNK)
            .map(|v| v.length())
            .reduce(|| 0.0, f32::max)
    }

    /// The state at this step boundary (see [`crate::checkpoint`]).
    pub fn state(&self) -> crate::checkpoint::SolverState {
        let f = &self.fluid;
        crate::checkpoint::SolverState {
            steps: self.steps,
            time: self.time,
            origin: self.origin.to_array(),
            x: f.x.iter().map(|p| p.to_array()).collect(),
            v: f.v.iter().map(|p| p.to_array()).collect(),
            id: f.id.clone(),
            swirl: f.swirl.clone(),
            inflow: self.inflow.as_ref().map(|i| i.state()),
        }
    }

    /// Go on from `state`, taken from a solver of the same scene: the run continues exactly as
    /// the one that saved it would have. An error (and nothing changed) if it cannot belong to
    /// this scene (another inflow, or more particles than the scene can hold).
    pub fn restore(&mut self, state: &crate::checkpoint::SolverState) -> Result<(), String> {
        let n = state.x.len();
        if state.v.len() != n || state.id.len() != n || state.swirl.len() != n {
            return Err("the checkpoint's particle fields differ in length".into());
        }
        let most = self.capacity();
        if n > most {
            return Err(format!(
                "the checkpoint holds {n} particles, the scene at most {most}"
            ));
        }
        let mut ids = vec![false; n];
        for &i in &state.id {
            match ids.get_mut(i as usize) {
                Some(seen) if !*seen => *seen = true,
                _ => return Err(format!("the checkpoint's particle ids are not 0..{n}")),
            }
        }
        match (&mut self.inflow, &state.inflow) {
            (Some(inflow), Some(s)) => inflow.restore(s)?,
            (None, None) => {}
            _ => return Err("the checkpoint's inflow does not match the scene's".into()),
        }
        let rho0 = self.rho0;
        let f = &mut self.fluid;
        // Positions relative to this solver's origin (a checkpoint of a build before origins
        // holds the scene's own coordinates, origin 0).
        let shift = Vec3A::from_array(state.origin) - self.origin;
        f.x = state
            .x
            .iter()
            .map(|&p| Vec3A::from_array(p) + shift)
            .collect();
        f.v = state.v.iter().map(|&p| Vec3A::from_array(p)).collect();
        f.id = state.id.clone();
        f.swirl = state.swirl.clone();
        // Derived fields: recomputed by the next step before anything reads them.
        f.density = vec![rho0; n];
        f.vorticity = vec![Vec3A::ZERO; n];
        f.neighbors = vec![0; n];
        f.reserve(most - n);
        self.steps = state.steps;
        self.time = state.time;
        Ok(())
    }

    /// Particles the inflow has added so far.
    pub fn inflow_added(&self) -> u64 {
        self.inflow.as_ref().map_or(0, |i| i.added())
    }

    /// The most particles this run can hold: those now and every one the inflow may add.
    pub fn capacity(&self) -> usize {
        self.fluid.len() + self.inflow.as_ref().map_or(0, |i| i.most())
    }

    /// 4.-7.: the density solve, velocities, densities, forces, positions (see [`Behavior`]).
    fn behavior(&mut self) -> Behavior {
        let n = self.fluid.len();
        let lists = self.search.lists();
        let k = self.kernels;
        let (m, dt) = (self.mass, self.dt);
        let colliders = &self.colliders;
        let f = &mut self.fluid;

        par_gather(&mut f.neighbors, |i| lists.neighbors(i).len() as u32);
        let has_mask = self.halo.owned_mask(&mut self.owned);

        // 4. Density solve on p.
        let input = DensityInput {
            start: &f.x,
            lists,
            kernels: &k,
            colliders,
            mass: m,
            rest_density: self.rho0,
            stop: self.stop,
            halo: &*self.halo,
            owned: has_mask.then_some(&self.owned[..]),
        };
        let scratch = &mut self.scratch;
        let t = Instant::now();
        let solved = self
            .density_solver
            .solve(&input, &mut self.p, &mut f.density, scratch);
        let density_solve = t.elapsed().as_secs_f64();
        if !solved {
            return Behavior {
                whole: false,
                density_solve,
                forces: 0.0,
            };
        }
        scratch.v3.resize(n, Vec3A::ZERO);
        scratch.v4.resize(n, Vec4::ZERO);
        let guides = &self.guides;
        if !guides.is_empty() {
            // Guided particles where their velocity takes them.
            self.p
                .par_iter_mut()
                .zip(f.x.par_iter())
                .with_min_len(CHUNK)
                .for_each(|(p, &x)| {
                    if let Some(ve) = guides.velocity(x, colliders) {
                        *p = colliders.project_from(x + dt * ve, x);
                    }
                });
        }

        // 5. Velocities from the position change.
        let p = &self.p;
        f.v.par_iter_mut()
            .zip(f.x.par_iter())
            .zip(p.par_iter())
            .with_min_len(CHUNK)
            .for_each(|((v, &x), &p)| *v = (p - x) / dt);

        refresh(&*self.halo, &mut f.v);

        // Densities at the corrected positions (for the forces and output), each particle's
        // volume m / ρ with its velocity, and the velocity sums the forces read, in one pass.
        colliders.solid_density(p, &mut scratch.solid);
        let solid = &scratch.solid;
        let needs = self.forces.needs();
        if needs.smoothing {
            scratch.smoothing.resize(n, Vec3A::ZERO);
        }
        if needs.swirl {
            scratch.eta.resize(n, Vec3A::ZERO);
            // Each neighbor's velocity and swirl in one load (the ghosts' both from owners).
            scratch.vs.resize(n, Vec4::ZERO);
            par_gather(&mut scratch.vs, |i| f.v[i].extend(f.swirl[i]));
        }
        if needs.normals {
            scratch.normals.resize(n, Vec4::ZERO);
            // The normals weigh each neighbor by its volume from the solve's last density (the
            // ghosts' from their owners), read with its position.
            refresh(&*self.halo, &mut f.density);
            scratch.pv.resize(n, Vec4::ZERO);
            par_gather(&mut scratch.pv, |i| p[i].extend(m / f.density[i]));
        }
        kinematics(
            &KinematicsIn {
                lists,
                p,
                v: &f.v,
                kernels: &k,
                mass: m,
                wall: &|i| {
                    let walls = colliders.density(i, p[i], solid).0;
                    match colliders.mirror() {
                        None => walls,
                        Some(mirror) => {
                            walls + m * k.w_coef() * mirror.density_sum(lists, i, p, &k)
                        }
                    }
                },
                vs: &scratch.vs,
                pv: &scratch.pv,
            },
            needs,
            KinematicsOut {
                density: &mut f.density,
                vv: &mut scratch.v4,
                curl: &mut f.vorticity,
                smoothing: &mut scratch.smoothing,
                eta: &mut scratch.eta,
                normals: &mut scratch.normals,
            },
        );
        refresh(&*self.halo, &mut f.density);
        refresh(&*self.halo, &mut scratch.v4);
        if needs.normals {
            refresh(&*self.halo, &mut scratch.normals);
        }

        // 6. Non-pressure forces, all from the velocities of 5.
        let t = Instant::now();
        let input = ForceInput {
            lists,
            kernels: &k,
            p,
            vv: &scratch.v4,
            smoothing: &scratch.smoothing,
            eta: &scratch.eta,
            normals: &scratch.normals,
            dt,
            mass: m,
            rest_density: self.rho0,
            halo: &*self.halo,
        };
        self.forces.prepare(&input, f);
        self.forces.apply(&input, f, &mut scratch.v3);
        std::mem::swap(&mut f.v, &mut scratch.v3);
        if self.adhesion > 0.0 {
            let owned = has_mask.then_some(&self.owned[..]);
            colliders.add_adhesion(p, &mut f.v, dt * self.adhesion, dt, owned);
        }
        let forces = t.elapsed().as_secs_f64();
        if !guides.is_empty() {
            // The forces do not act on guided particles.
            f.v.par_iter_mut()
                .zip(f.x.par_iter())
                .zip(p.par_iter())
                .with_min_len(CHUNK)
                .for_each(|((v, &x), &p)| {
                    if guides.velocity(x, colliders).is_some() {
                        *v = (p - x) / dt;
                    }
                });
        }

        // 7. Positions.
        f.x.copy_from_slice(&self.p);
        Behavior {
            whole: true,
            density_solve,
            forces,
        }
    }
}

/// `a` back into the order before the permutation `perm` (`old[perm[slot]] = new[slot]`),
/// through `tmp`: the inverse of `nsearch::gather`.
fn scatter_back<T: Copy + Default>(perm: &[u32], a: &mut Vec<T>, tmp: &mut Vec<T>) {
    tmp.clear();
    tmp.resize(a.len(), T::default());
    for (slot, &old) in perm.iter().enumerate() {
        tmp[old as usize] = a[slot];
    }
    std::mem::swap(a, tmp);
}

/// What the behavior phase of a step did.
struct Behavior {
    /// False when a stop request abandoned the step, having changed nothing of x, v and id.
    whole: bool,
    /// Seconds of the density solve and of the forces.
    density_solve: f64,
    forces: f64,
}
