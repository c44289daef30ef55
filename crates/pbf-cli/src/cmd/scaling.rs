//! `pbf scaling SCENE`: the step's time at several particle counts and thread counts.

use crate::args::{MAX_THREADS, check_memory, input, output_dir, write_text};
use crate::progress::interrupt_flag;
use anyhow::Result;
use pbf::experiments::bench_search::cpu_name;
use pbf::experiments::scaling::{ScalingError, SizeRun, csv, svg, table};
use pbf::run::{Silent, step_loop};
use pbf::scene::Scene;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Scene file (TOML), e.g. configs/dam_break.toml.
    scene: PathBuf,
    /// Particle counts to aim for, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [30_000usize, 120_000, 500_000, 1_000_000, 2_000_000])]
    particles: Vec<usize>,
    /// Thread counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [1usize, 2])]
    threads: Vec<usize>,
    /// Timed steps per run.
    #[arg(long, default_value_t = 10)]
    steps: u64,
    /// Output folder (default: out/<scene name>/).
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Override a scene key by its dotted path (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// No progress lines.
    #[arg(long)]
    quiet: bool,
}

/// Grid errors are the user's input (exit 2); the rest fail the run (exit 1).
fn report(e: ScalingError) -> anyhow::Error {
    match e {
        ScalingError::Grid(_) => input(e),
        e => e.into(),
    }
}

pub fn main(a: Args) -> Result<ExitCode> {
    let base = Scene::load(&a.scene, &a.set).map_err(input)?;
    check_memory(&base, &a.scene)?;
    if a.particles.is_empty() || a.particles.contains(&0) {
        return Err(input(anyhow::anyhow!(
            "--particles needs counts of at least 1"
        )));
    }
    if a.threads.is_empty() || a.threads.iter().any(|&t| !(1..=MAX_THREADS).contains(&t)) {
        return Err(input(anyhow::anyhow!(
            "--threads needs counts from 1 to {MAX_THREADS}"
        )));
    }
    if a.steps == 0 {
        return Err(input(anyhow::anyhow!("--steps must be at least 1")));
    }
    let n0 = base.sample_fluid().len() as f64;
    // The radius is scaled from the particles at t = 0 and the first steps are timed: water
    // that only enters later (nozzles, blocks with a start time) gives nothing to scale from.
    if n0 == 0.0 {
        return Err(input(anyhow::anyhow!(
            "{}: no particle at t = 0 (its water enters later, from emitters or blocks with a \
             start time), and scaling times a scene's first steps: give it a fluid block at t = 0",
            a.scene.display()
        )));
    }
    let (r0, ratio) = (
        base.particles.radius,
        base.kernel_radius() / base.particles.radius,
    );
    // Every size's scene is checked (keys, memory) before the output folder is touched.
    let scenes = a
        .particles
        .iter()
        .map(|&target| {
            let r = r0 * (n0 / target as f64).cbrt() as f32;
            let mut sets = a.set.clone();
            sets.push(format!("particles.radius={r}"));
            sets.push(format!("particles.kernel_radius={}", ratio * r));
            let scene = Scene::load(&a.scene, &sets).map_err(input)?;
            check_memory(&scene, &a.scene)?;
            Ok(scene)
        })
        .collect::<Result<Vec<_>>>()?;
    let dir = output_dir(&a.output, &base.name)?;
    let mut rows = Vec::new();
    let stop = interrupt_flag();
    let mut interrupted = false;
    for scene in &scenes {
        let r = scene.particles.radius;
        let mut size = SizeRun::new(scene, &a.threads).map_err(report)?;
        let ended = step_loop(&mut size, a.steps + 1, stop, &mut Silent).map_err(report)?;
        if ended.interrupted {
            interrupted = true;
            break;
        }
        for row in size.rows(r).map_err(report)? {
            if !a.quiet {
                eprintln!(
                    "{} particles, {} thread{}: {:.1} ms per step, {:.1} ns per particle-step",
                    row.particles,
                    row.threads,
                    if row.threads == 1 { "" } else { "s" },
                    row.step_s * 1e3,
                    row.ns_per_particle_step()
                );
            }
            rows.push(row);
        }
    }
    // Interrupted: the sizes that finished (the one under way is dropped).
    if rows.is_empty() {
        eprintln!("interrupted before the first size finished: nothing written");
        return Ok(ExitCode::from(130));
    }
    write_text(&dir, "scaling.csv", &csv(&rows))?;
    write_text(
        &dir,
        "scaling.svg",
        &svg(&base.name, &rows).map_err(|e| anyhow::anyhow!(e))?,
    )?;
    outln!("{}", cpu_name());
    out!("{}", table(&rows));
    outln!(
        "wrote {} and {}",
        dir.join("scaling.csv").display(),
        dir.join("scaling.svg").display()
    );
    if interrupted {
        eprintln!(
            "interrupted: {} of {} particle counts finished; the table and files cover those",
            rows.len() / a.threads.len(),
            a.particles.len()
        );
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}
