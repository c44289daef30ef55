//! `pbf compare SCENE`: pruned against unpruned neighbor search on one simulation (the AABB
//! paper's Tables 1 and 2 and Figure 5).

use crate::args::{Span, choice, input, load_scene, output_dir, solver, with_threads, write_text};
use crate::progress::{Bar, interrupt_flag};
use anyhow::Result;
use nsearch::Backend;
use pbf::experiments::bench_search::cpu_name;
use pbf::experiments::compare::{Comparison, csv, means, neighbors_per_particle, svg, tables};
use pbf::io::summary::peak_rss_bytes;
use pbf::run::step_loop;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Scene file (TOML), e.g. configs/dam_break.toml.
    scene: PathBuf,
    /// Output folder (default: out/<scene name>/).
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    #[command(flatten)]
    span: Span,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Override a scene key by its dotted path, e.g. --set search.cell_size=\"half\" (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Search backend (the SIMD path) for both modes: auto (the fastest this CPU runs),
    /// portable, avx2 or avx512.
    #[arg(long, alias = "kernel", default_value = "auto", value_parser = choice(&Backend::ALL))]
    backend: Backend,
    /// No progress display.
    #[arg(long)]
    quiet: bool,
}

pub fn main(a: Args) -> Result<ExitCode> {
    let mut sets = a.set.clone();
    sets.push("search.mode=\"pruned\"".into());
    let scene = load_scene(&a.scene, &sets)?;
    let steps = a.span.steps(&scene)?;
    if steps == 0 {
        return Err(input(anyhow::anyhow!(
            "nothing to compare: --steps / --until give 0 steps of {} s",
            scene.time.dt
        )));
    }
    if !a.backend.available() {
        return Err(input(anyhow::anyhow!(
            "--backend: {}",
            nsearch::BackendUnavailable(a.backend)
        )));
    }
    with_threads(a.threads, || -> Result<ExitCode> {
        let mut solver = solver(&scene, a.backend)?;
        // Only now, every input checked: a refused comparison touches no folder.
        let dir = output_dir(&a.output, &scene.name)?;
        let n = solver.fluid.len();
        let most = solver.capacity();
        let count = if most > n {
            format!("{n} particles at the start, up to {most} with inflow")
        } else {
            format!("{n} particles")
        };
        let threads = rayon::current_num_threads();
        let spec = *solver.neighbor_search().grid().spec();
        let backend = solver.neighbor_search().backend();
        let [nx, ny, nz] = spec.dims;
        let header = format!(
            "{}: {count}, h = {}, {nx} x {ny} x {nz} cells of {:.5}, {steps} steps of {} s, {threads} threads, {backend} search backend, {}",
            scene.name,
            scene.kernel_radius(),
            spec.cell,
            scene.time.dt,
            cpu_name()
        );
        let stop = interrupt_flag();
        if !a.quiet {
            eprintln!("{header}");
        }
        solver.stop_on(stop);
        let frame_dt = 1.0 / pbf::scene::seconds(scene.output.fps);
        let mut cmp = Comparison::new(&mut solver, steps, frame_dt, scene.particles.radius);
        let ended = step_loop(&mut cmp, steps, stop, &mut Bar::new(!a.quiet, steps));
        cmp.finish();
        let records = &cmp.records;
        let interrupted = matches!(ended, Ok(e) if e.interrupted);
        if interrupted && records.is_empty() {
            eprintln!("interrupted before the first step: nothing written");
            return Ok(ExitCode::from(130));
        }
        write_text(&dir, "compare.csv", &csv(records))?;
        write_text(
            &dir,
            "energy.csv",
            &pbf::io::energy::csv_text(&cmp.measures),
        )?;
        ended?;
        write_text(
            &dir,
            "compare.svg",
            &svg(&scene.name, records).map_err(|e| anyhow::anyhow!(e))?,
        )?;
        let (u, p) = means(records);
        let k = records.len().max(1) as f64;
        let json = serde_json::json!({
            "scene": scene.name,
            "particles": n,
            "particles_end": records.last().map_or(n, |r| r.particles),
            "steps": records.len(),
            "steps_planned": steps,
            "interrupted": interrupted,
            "threads": threads,
            "search_backend": backend,
            "cpu": cpu_name(),
            "kernel_radius": scene.kernel_radius(),
            "cell_size": scene.search.cell_size,
            "grid_dims": spec.dims,
            "identical": true,
            "unpruned": u,
            "pruned": p,
            "step_with_both_searches_s": cmp.step_total / k,
            "watch": cmp.watch.json(),
            "fast_steps": cmp.fast_steps,
            "peak_rss_bytes": peak_rss_bytes(),
        });
        write_text(&dir, "compare.json", &serde_json::to_string_pretty(&json)?)?;
        outln!("{header}");
        outln!();
        out!("{}", tables(records));
        outln!();
        outln!(
            "neighbor lists identical in all {} steps; {:.1} neighbors per particle; whole step with pruned search {:.4} s; peak memory {:.0} MB (both searches held)",
            records.len(),
            neighbors_per_particle(records),
            p.total_s,
            peak_rss_bytes() as f64 / 1e6
        );
        outln!("{}", cmp.watch.line());
        outln!(
            "wrote {}, {}, {} and {}",
            dir.join("compare.csv").display(),
            dir.join("compare.svg").display(),
            dir.join("compare.json").display(),
            dir.join("energy.csv").display()
        );
        if interrupted {
            eprintln!(
                "interrupted after step {} of {steps}: the tables and files cover the steps done",
                records.len()
            );
            return Ok(ExitCode::from(130));
        }
        Ok(ExitCode::SUCCESS)
    })?
}
