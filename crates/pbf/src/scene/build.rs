//! Building the simulation a scene describes: the particles, the colliders, the density solve
//! and the forces, put together as a [`Solver`].
//!
//! Owns: [`solver`], the one place where scene keys become solver parts. Does not touch: the
//! step itself.

use super::{Scene, seconds};
use super::{SurfaceTensionMethod, WallModel};
use crate::boundary::{
    BoxTank, Collider, ColliderSet, MirrorWalls, Obstacle, TankWalls, WallTable,
};
use crate::forces::surface_tension::SurfaceTension;
use crate::forces::vorticity::VorticityConfinement;
use crate::forces::xsph::Xsph;
use crate::inflow::Inflow;
use crate::particles::Fluid;
use crate::pressure::pbf::{ArtificialPressure, IterationCount, PbfConstraints};
use crate::solver::{Solver, SolverParts};
use crate::sph::lattice::rest_lattice;
use glam::Vec3A;
use nsearch::{GridError, GridSpec};

/// The solver for `scene`: its fluid blocks sampled into particles with their velocities, the
/// later blocks and the emitters as its inflow, the tank and the obstacles (in the scene's
/// order) as colliders, PBF's constraint iterations, vorticity confinement, XSPH and, if the
/// scene asks, surface tension.
pub fn solver(scene: &Scene) -> Result<Solver, GridError> {
    solver_keeping(scene, &|_| true)
}

/// [`solver`] holding only the initial particles at positions `keep` accepts (in the solver's
/// coordinates, relative to [`Scene::origin`]), with their scene ids (a process of a split
/// run: see `distributed`). New particles are numbered after all the scene's, kept or not.
/// The solver is built from the scene moved to its origin ([`Scene::translated`]).
pub fn solver_keeping(world: &Scene, keep: &dyn Fn(Vec3A) -> bool) -> Result<Solver, GridError> {
    // Moving by minus a zero origin changes no bit: a scene near the origin is built as it is.
    let origin = world.origin();
    let local = world.local();
    let scene = &local;
    let h = scene.kernel_radius();
    let kernels = scene.kernels();
    let r = scene.particles.radius;
    let rho0 = scene.particles.rest_density;
    let (mass, s0) = rest_lattice(&kernels, scene.spacing(), rho0);
    let (tmin, tmax) = (
        Vec3A::from_array(scene.tank.min),
        Vec3A::from_array(scene.tank.max),
    );
    let table = WallTable::new(&kernels, r, mass);
    let tank = BoxTank::new(tmin, tmax, r, table.clone());
    let (tank, mirror) = match scene.pbf.walls {
        WallModel::Lattice => (tank, None),
        WallModel::Mirror => (tank.mirrored(), Some(MirrorWalls::new(tmin, tmax, h))),
    };
    let walls: Vec<Box<dyn Collider>> = vec![Box::new(tank)];
    let mut solids: Vec<Box<dyn Collider>> = Vec::new();
    for o in &scene.obstacle {
        solids.push(Box::new(Obstacle::new(
            o.shape(),
            Vec3A::from_array(o.center),
            o.rotation(),
            o.motion(),
            r,
            table.clone(),
        )));
    }
    let mut colliders = ColliderSet::new(walls, solids).with_mirror(mirror);
    if scene.output.wall_forces {
        colliders = colliders.with_tank_walls(TankWalls {
            min: tmin,
            max: tmax,
            h,
            table: table.clone(),
        });
    }
    let domain = GridSpec::new(tmin, tmax, h, scene.search.cell_size)?;
    let q = &scene.pbf;
    let s_corr = ArtificialPressure {
        k: q.scorr_k,
        n: q.scorr_n,
        dq: q.scorr_dq,
    };
    let count = match q.max_density_error {
        None => IterationCount::Fixed(q.iterations),
        Some(e) => IterationCount::Controlled {
            min: scene.min_iterations(),
            max: q.max_iterations,
            max_error: e / 100.0,
        },
    };
    let density_solver = PbfConstraints::new(
        count,
        scene.omega(),
        q.relaxation,
        s_corr,
        q.wall_gradient,
        &kernels,
        s0,
        scene.spacing(),
    );
    let (vorticity, xsph) = (VorticityConfinement::new(q.vorticity), Xsph::new(q.xsph));
    let st = &scene.surface_tension;
    let forces: Box<dyn crate::forces::ForceSet> = match st.method {
        SurfaceTensionMethod::None => Box::new((vorticity, xsph)),
        SurfaceTensionMethod::Akinci2013 => {
            Box::new((vorticity, xsph, SurfaceTension::new(st.coefficient)))
        }
    };
    let (mut x, mut v, mut id) = (Vec::new(), Vec::new(), Vec::new());
    let mut total = 0usize;
    scene.for_each_initial_particle(&mut |i, p, u| {
        total += 1;
        if keep(p) {
            x.push(p);
            v.push(u);
            id.push(i);
        }
    });
    let mut fluid = Fluid::at_rest(x, rho0);
    fluid.v = v;
    fluid.id = id;
    Ok(Solver::from_parts(SolverParts {
        fluid,
        particles_total: total,
        inflow: inflow(scene),
        kernels,
        colliders,
        domain,
        search_mode: scene.search.mode,
        gravity: Vec3A::from_array(scene.physics.gravity),
        lowest_corner: Vec3A::from_array(std::array::from_fn(|a| {
            // Lowest along gravity: the upper face on an axis gravity points up.
            if scene.physics.gravity[a] > 0.0 {
                scene.tank.max[a]
            } else {
                scene.tank.min[a]
            }
        })),
        origin: Vec3A::from_array(origin),
        dt: scene.time.dt,
        rest_density: rho0,
        mass,
        density_solver: Box::new(density_solver),
        adhesion: match st.method {
            SurfaceTensionMethod::None => 0.0,
            SurfaceTensionMethod::Akinci2013 => st.adhesion,
        },
        forces,
    }))
}

/// The scene's inflow: the blocks that start later, and the emitters (`None` without either).
pub fn inflow(scene: &Scene) -> Option<Inflow> {
    let mut inflow = Inflow::new(scene.spacing(), scene.particles.rest_density);
    for (k, b) in scene.fluid.iter().enumerate() {
        if b.start > 0.0 {
            let v = Vec3A::from_array(b.velocity);
            inflow.add_block(scene.block_sites(k), v, seconds(b.start));
        }
    }
    for e in &scene.emitter {
        inflow.add_nozzle(
            e.layout(scene.spacing(), scene.kernel_radius(), &scene.tank),
            seconds(e.start),
            seconds(e.closes(scene.time.end)),
        );
    }
    (!inflow.is_empty()).then_some(inflow)
}
