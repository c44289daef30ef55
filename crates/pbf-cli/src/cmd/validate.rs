//! `pbf validate`: the surge front of a collapsing column against Martin & Moyce (1952) and
//! Koshizuka & Oka (1996).

use crate::args::{input, load_scene, output_dir, with_threads, write_text};
use crate::progress::{Bar, interrupt_flag};
use anyhow::{Result, bail};
use pbf::experiments::validation::{
    EXPERIMENTS, FrontRun, FrontTrack, MARTIN_MOYCE, Run, csv, json, svg, table,
};
use pbf::run::{step_loop, steps_until};
use pbf::scene::Scene;
use pbf::solver::Solver;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Scene file (TOML): a column standing against the tank's low-x wall, gravity along -y.
    #[arg(default_value = "configs/martin_moyce.toml")]
    scene: PathBuf,
    /// Output folder (default: out/<scene name>/).
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Override a scene key by its dotted path, e.g. --set particles.radius=0.0025 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Particle radii to run, comma-separated (a convergence study: the time step and the
    /// kernel radius scale with the radius); default: the scene's radius.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "R,...",
        allow_negative_numbers = true
    )]
    radii: Vec<f32>,
    /// Exit with 1 if any of Martin & Moyce's points differs from a run by more than P %.
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    tolerance: Option<f64>,
    /// No progress display.
    #[arg(long)]
    quiet: bool,
}

pub fn main(a: Args) -> Result<ExitCode> {
    if let Some(p) = a.tolerance
        && !(p.is_finite() && p >= 0.0)
    {
        return Err(input(anyhow::anyhow!("--tolerance must be >= 0, got {p}")));
    }
    if let Some(r) = a.radii.iter().find(|r| !(r.is_finite() && **r > 0.0)) {
        return Err(input(anyhow::anyhow!(
            "--radii needs positive radii, got {r}"
        )));
    }
    let base = load_scene(&a.scene, &a.set)?;
    // Each radius scales the time step and the kernel radius with it (the front moves the same
    // fraction of a particle per step, and the neighbor count stays the same).
    let r0 = base.particles.radius;
    let scenes = if a.radii.is_empty() {
        vec![base.clone()]
    } else {
        a.radii
            .iter()
            .map(|&r| {
                let mut sets = a.set.clone();
                sets.push(format!("particles.radius={r}"));
                sets.push(format!("time.dt={}", base.time.dt * r / r0));
                sets.push(format!(
                    "particles.kernel_radius={}",
                    base.kernel_radius() * r / r0
                ));
                Scene::load(&a.scene, &sets).map_err(input)
            })
            .collect::<Result<Vec<_>>>()?
    };
    let show = !a.quiet;
    with_threads(a.threads, || -> Result<ExitCode> {
        let mut solvers = Vec::new();
        let mut runs = Vec::new();
        for scene in &scenes {
            // Everything is checked before the first run starts.
            let solver = Solver::new(scene).map_err(input)?;
            // The front is tracked in the solver's coordinates (see `Scene::origin`).
            let track = FrontTrack::new(&scene.local(), &solver.fluid.x)
                .map_err(|e| input(anyhow::anyhow!("{}: {e}", a.scene.display())))?;
            runs.push(Run {
                radius: scene.particles.radius,
                dt: scene.time.dt,
                particles: solver.fluid.len(),
                track,
            });
            solvers.push(solver);
        }
        let dir = output_dir(&a.output, &base.name)?;
        let last_z = MARTIN_MOYCE[MARTIN_MOYCE.len() - 1].1;
        if let Some(run) = runs.iter().find(|r| r.track.reach() < last_z) {
            eprintln!(
                "warning: {}: the front can run {:.2} column widths before the far wall, the \
                 experiment {last_z}: only its points up to there are compared",
                a.scene.display(),
                run.track.reach()
            );
        }
        if let Some(run) = runs.iter().find(|r| (r.track.n2 - 2.0).abs() > 0.1) {
            eprintln!(
                "warning: {}: the column's height is {:.2} times its width, the experiment's 2: \
                 the comparison is only indicative",
                a.scene.display(),
                run.track.n2
            );
        }
        // Run past the last measured time (or to the scene's end, or until the front reaches
        // the far wall).
        let t_last = MARTIN_MOYCE[MARTIN_MOYCE.len() - 1].0;
        let stop = interrupt_flag();
        let mut finished = 0;
        for ((scene, solver), run) in scenes.iter().zip(&mut solvers).zip(&mut runs) {
            let until = run.track.seconds(t_last * 1.02).min(scene.time.end as f64);
            let steps = steps_until(scene, Some(until));
            if show {
                eprintln!(
                    "{}: {}, column a = {:.4} m, n² = {:.3} (the experiment: 2), {steps} steps of {} s to T = {:.2}",
                    scene.name,
                    run.label(),
                    run.track.a,
                    run.track.n2,
                    scene.time.dt,
                    until * run.track.time_scale
                );
            }
            solver.stop_on(stop);
            let mut front = FrontRun {
                solver,
                track: &mut run.track,
            };
            let ended = step_loop(&mut front, steps, stop, &mut Bar::new(show, steps))?;
            if ended.interrupted {
                break;
            }
            finished += 1;
        }
        // Interrupted: report the runs that finished, drop the one under way.
        let planned = runs.len();
        runs.truncate(finished);
        if runs.is_empty() {
            eprintln!("interrupted before the first run finished: nothing written");
            return Ok(ExitCode::from(130));
        }
        write_text(&dir, "validation.csv", &csv(&runs))?;
        write_text(&dir, "validation.json", &json(&base.name, &runs))?;
        write_text(
            &dir,
            "validation.svg",
            &svg(&base.name, &runs).map_err(|e| anyhow::anyhow!(e))?,
        )?;
        outln!("surge front against Martin & Moyce (1952) and Koshizuka & Oka (1996), n² = 2");
        for run in &runs {
            outln!(
                "\n{}: column a = {:.4} m, n² = {:.3}",
                run.label(),
                run.track.a,
                run.track.n2
            );
            for e in &EXPERIMENTS {
                outln!("against {}:", e.name);
                out!("{}", table(e, &run.track.compare_with(e)));
            }
            if run.track.blocked {
                outln!(
                    "the front reached the far wall at T = {:.2}; later points are not compared",
                    run.track.samples.last().map_or(0.0, |s| s.0)
                );
            }
        }
        outln!(
            "\nwrote {}, {} and {}",
            dir.join("validation.csv").display(),
            dir.join("validation.json").display(),
            dir.join("validation.svg").display()
        );
        if finished < planned {
            eprintln!(
                "interrupted: {finished} of {planned} runs finished; the table and files cover those"
            );
            return Ok(ExitCode::from(130));
        }
        for run in &runs {
            let rows = run.track.compare();
            if rows.is_empty() {
                if run.track.blocked {
                    bail!(
                        "{}: the front reached the far wall before the experiment's first time",
                        run.label()
                    );
                }
                bail!(
                    "{}: the run covered none of the experiment's times (is time.end too short?)",
                    run.label()
                );
            }
            if let Some(p) = a.tolerance {
                let worst = rows
                    .iter()
                    .max_by(|x, y| x.error_pct().abs().total_cmp(&y.error_pct().abs()))
                    .expect("rows is not empty");
                if worst.error_pct().abs() > p {
                    bail!(
                        "{}: at T = {:.2} the front is {:+.1}% from Martin & Moyce's, more than --tolerance {p}%",
                        run.label(),
                        worst.t,
                        worst.error_pct()
                    );
                }
            }
        }
        Ok(ExitCode::SUCCESS)
    })?
}
