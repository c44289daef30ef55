//! `pbf check SCENE`: validate a scene and print its size, without simulating.

use crate::args::{input, load_scene};
use anyhow::Result;
use glam::Vec3A;
use nsearch::GridSpec;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Scene file (TOML), e.g. configs/dam_break.toml.
    scene: PathBuf,
    /// Override a scene key by its dotted path, a number indexing a list, e.g.
    /// --set particles.radius=0.025 or --set obstacle.1.radius=0.05 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

pub fn main(a: Args) -> Result<ExitCode> {
    let scene = load_scene(&a.scene, &a.set)?;
    let n0 = scene.sample_fluid().len();
    // With inflow, the most particles the run can hold (every emitter site free).
    let n = n0 + pbf::scene::build::inflow(&scene).map_or(0, |i| i.most());
    let h = scene.kernel_radius();
    let t = scene.tank;
    let spec = GridSpec::new(
        Vec3A::from_array(t.min),
        Vec3A::from_array(t.max),
        h,
        scene.search.cell_size,
    )
    .map_err(|e| input(anyhow::anyhow!("{}: {e}", a.scene.display())))?;
    let est = scene.memory_estimate();
    let per = est.neighbors;
    let bytes = est.bytes;
    let [nx, ny, nz] = spec.dims;
    outln!("scene       {} ({})", scene.name, a.scene.display());
    if n > n0 {
        outln!("particles   {n0} at the start, up to {n} with inflow (memory below for {n})");
    } else {
        outln!("particles   {n}");
    }
    let s = scene.spacing();
    for (k, e) in scene.emitter.iter().enumerate() {
        // Each particle holds s³: area × speed / s³ a second (the layers' pitch makes it so),
        // of the part of the nozzle inside the tank.
        let (all, sites, pitch) = (
            e.sites(s).len(),
            e.sites_in(s, &scene.tank).len(),
            e.pitch(s),
        );
        let flux = if sites == all {
            format!("area {} m² x speed {} m/s / (2r)³", sig3(e.area()), e.speed)
        } else {
            format!(
                "{sites}/{all} of area {} m² (its sites inside the tank) x speed {} m/s / (2r)³",
                sig3(e.area()),
                e.speed
            )
        };
        outln!(
            "emitter {k}   {sites} sites a layer, a layer every {:.3} ms ({:.4} m apart), from {} s to {} s: {} particles/s = {flux}",
            1e3 * pitch / e.speed,
            pitch,
            e.start,
            e.closes(scene.time.end),
            sig3(sites as f32 * e.speed / pitch),
        );
    }
    let crowded = scene.sites_at_contacts();
    if crowded > 0 {
        outln!(
            "blocks      {crowded} lattice sites of blocks touching an earlier one lie closer than 2r to its sites and get no particle"
        );
    }
    if !scene.obstacle.is_empty() {
        let removed = scene.sites_in_obstacles();
        outln!(
            "obstacles   {}; {removed} lattice sites of the fluid blocks lie inside or within r of one and get no particle",
            scene.obstacle.len()
        );
    }
    outln!(
        "radius      r = {}, spacing {}, kernel radius h = {h}, kernels {} (pbf.kernel)",
        scene.particles.radius,
        scene.spacing(),
        match scene.pbf.kernel {
            pbf::sph::KernelKind::Poly6Spiky => "poly6 density, spiky gradient",
            pbf::sph::KernelKind::CubicSpline => "cubic spline",
            pbf::sph::KernelKind::Spiky => "spiky density and gradient",
            pbf::sph::KernelKind::WendlandC2 => "Wendland C2",
        }
    );
    outln!(
        "grid        {nx} x {ny} x {nz} = {} cells of width {:.6}",
        spec.num_cells(),
        spec.cell
    );
    let origin = scene.origin();
    if origin != [0.0; 3] {
        outln!(
            "origin      {origin:?}: the tank lies far from (0, 0, 0), so the solver works \
             relative to this point (f32 positions keep their precision); frames are in the \
             scene's coordinates"
        );
    }
    outln!("neighbors   about {per:.0} per particle at rest");
    let q = &scene.pbf;
    let count = match q.max_density_error {
        None => format!("{} iterations per step", q.iterations),
        Some(e) => {
            let why = match (q.min_iterations, scene.resting_iterations()) {
                (None, Some(need)) if scene.min_iterations() == need => format!(
                    " (the fewest at which water at rest {:.2} m deep stays within {:.0}% of it)",
                    scene.resting_depth(),
                    100.0 * pbf::scene::hydrostatic::RESTING_SHARE
                ),
                _ => String::new(),
            };
            format!(
                "{} to {} iterations, until the mean density excess is at most {e}%{why}",
                scene.min_iterations(),
                q.max_iterations
            )
        }
    };
    let omega = match q.omega {
        pbf::scene::Omega::Auto => format!(
            "auto: {} / the rest lattice's Jacobi gain",
            pbf::scene::OMEGA_GAIN
        ),
        pbf::scene::Omega::Value(_) => "pbf.omega".to_string(),
    };
    outln!(
        "density     {count}, corrections scaled by omega = {:.3} ({omega})",
        scene.omega()
    );
    let excess: Vec<f32> = (0..scene.fluid.len())
        .filter_map(|k| scene.start_excess(k))
        .collect();
    if let Some(most) = excess.iter().copied().reduce(f32::max) {
        outln!(
            "start       {} of {} blocks rest on the floor and start hydrostatic: density excess {:.4} per metre of depth, {:.2}% at the deepest floor (particles.start_compression)",
            excess.len(),
            scene.fluid.len(),
            scene.hydrostatic_gradient(),
            100.0 * most
        );
    }
    outln!(
        "steps       {} of dt = {} to t = {}",
        (scene.time.end / scene.time.dt).ceil(),
        scene.time.dt,
        scene.time.end
    );
    // What the run's energy watch will do (pbf::io::energy::EnergyWatch).
    match scene.energy_source() {
        Some(source) => outln!("energy      not watched ({source} can put energy in)"),
        None if scene.starts_without_energy() => outln!(
            "energy      not watched (no gravity and water at rest: no energy at the start to compare with)"
        ),
        None => outln!(
            "energy      watched: nothing in the scene puts energy in, so the run warns if kinetic + potential rises more than {:.0}% above its start",
            100.0 * pbf::io::energy::GAIN_WARNING
        ),
    }
    outln!("memory      about {:.0} MB", bytes / 1e6);
    Ok(ExitCode::SUCCESS)
}

/// `x` with at least three significant digits, without an exponent (a nozzle's 7.85e-5 m² is
/// "0.0000785", its 0.785 particles/s "0.785", its 1234.6 "1235").
fn sig3(x: f32) -> String {
    let digits = if x > 0.0 && x < 100.0 {
        (2.0 - x.log10().floor()) as usize
    } else {
        0
    };
    format!("{x:.digits$}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn small_rates_and_areas_keep_three_significant_digits() {
        assert_eq!(super::sig3(7.85e-5), "0.0000785");
        assert_eq!(super::sig3(0.0982), "0.0982");
        assert_eq!(super::sig3(12.345), "12.3");
        assert_eq!(super::sig3(1234.6), "1235");
    }
}
