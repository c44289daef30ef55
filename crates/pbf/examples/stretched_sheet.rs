//! A thin sheet of water stretched in zero gravity, with and without surface tension: writes
//! `.vtu` frames and a ParaView series for each into `OUT/with` and `OUT/without`.
//!
//! The sheet of `configs/thin_sheet.toml` is two particles thick and 0.3 m square (r = 0.005,
//! 1,800 particles); every particle starts moving away from the sheet's axis at `SPEED` m/s ×
//! its distance / 0.15 m (a uniformly stretching sheet, as a splash's sheet is). With surface
//! tension (Akinci et al. 2013) it tears and each piece pulls itself into a drop; without, nothing holds it and the
//! particles part from their neighbors in the sheet's plane. The test
//! `a_stretched_sheet_breaks_into_drops_with_surface_tension_and_comes_apart_without` checks the
//! same at 0.2 m/s.
//!
//! `cargo run --release -p pbf --example stretched_sheet -- OUT [SPEED]` (default 0.2).

use glam::Vec3A;
use pbf::scene::Scene;
use pbf::solver::Solver;
use std::io::Write;
use std::path::Path;

/// The sheet's scene, `configs/thin_sheet.toml` of this repository.
const SHEET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/thin_sheet.toml");

fn run(out: &Path, speed: f32, surface_tension: bool) -> std::io::Result<()> {
    std::fs::create_dir_all(out)?;
    let sets = if surface_tension {
        vec!["surface_tension.method=\"akinci2013\"".to_string()]
    } else {
        vec![]
    };
    let scene = Scene::load(Path::new(SHEET), &sets).expect("configs/thin_sheet.toml");
    let mut s = Solver::new(&scene).expect("the sheet's solver");
    let c = Vec3A::splat(0.8);
    for (v, x) in s.fluid.v.iter_mut().zip(&s.fluid.x) {
        *v = (*x - c) * Vec3A::new(1.0, 0.0, 1.0) * (speed / 0.15);
    }
    let dt = scene.time.dt as f64;
    let mut series = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n<Collection>\n",
    );
    for (k, t) in [0.0, 0.25, 0.5, 1.0, 1.5, 2.0].into_iter().enumerate() {
        while s.time - t < -0.5 * dt {
            s.step();
        }
        let name = format!("frame_{k:05}.vtu");
        let mut f = std::io::BufWriter::new(std::fs::File::create(out.join(&name))?);
        s.fluid.frame(k, t, s.origin()).write_vtu(&mut f)?;
        f.flush()?;
        series += &format!("<DataSet timestep=\"{t}\" file=\"{name}\"/>\n");
    }
    series += "</Collection>\n</VTKFile>\n";
    std::fs::write(out.join("sheet.pvd"), series)
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let Some(out) = args.get(1) else {
        eprintln!("usage: stretched_sheet OUT [SPEED]");
        std::process::exit(2);
    };
    let speed: f32 = args
        .get(2)
        .map_or(0.2, |s| s.parse().expect("SPEED: a number"));
    let out = Path::new(out);
    run(&out.join("with"), speed, true)?;
    run(&out.join("without"), speed, false)?;
    println!(
        "wrote {0}/with/sheet.pvd and {0}/without/sheet.pvd",
        out.display()
    );
    Ok(())
}
