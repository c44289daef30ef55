//! `pbf run SCENE`: simulate a scene and write frames for ParaView.

use crate::args::{Span, choice, load_scene, output_dir, solver, with_threads};
use crate::progress::{Bar, interrupt_flag};
use anyhow::Result;
use nsearch::{Backend, SearchMode};
use pbf::run::{RunOptions, run_header, run_scene};
use pbf::scene::Format;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Scene file (TOML), e.g. configs/dam_break.toml.
    scene: PathBuf,
    /// Output folder (default: out/<scene name>/).
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Frame format (default: the scene's output.format).
    #[arg(long, value_parser = choice(&Format::ALL))]
    format: Option<Format>,
    /// No progress display.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    span: Span,
    /// Neighbor search mode (default: the scene's search.mode).
    #[arg(long, value_parser = choice(&[SearchMode::Pruned, SearchMode::Unpruned]))]
    search: Option<SearchMode>,
    /// Search backend (the SIMD path): auto (the fastest this CPU runs), portable, avx2 or
    /// avx512. All give the same results; only the speed differs.
    #[arg(long, alias = "kernel", default_value = "auto", value_parser = choice(&Backend::ALL))]
    backend: Backend,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Override a scene key by its dotted path, e.g. --set particles.radius=0.025 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

pub fn main(a: Args) -> Result<ExitCode> {
    let mut sets = a.set.clone();
    if let Some(m) = a.search {
        sets.push(format!("search.mode=\"{m}\""));
    }
    let scene = load_scene(&a.scene, &sets)?;
    let steps = a.span.steps(&scene)?;
    let format = a.format.unwrap_or(scene.output.format);
    let show = !a.quiet;
    with_threads(a.threads, || -> Result<ExitCode> {
        // Everything is checked (scene, options, grid, backend) before the output folder is
        // touched: a refused run leaves the earlier run's files as they were.
        let mut solver = solver(&scene, a.backend)?;
        let opts = RunOptions {
            steps,
            format,
            dir: output_dir(&a.output, &scene.name)?,
        };
        pbf::io::clear_earlier_output(&opts.dir, &scene.name)?;
        // Caught from here on: before the header, so whoever waits for it can interrupt.
        let stop = interrupt_flag();
        if show {
            eprintln!("{}", run_header(&scene, solver.fluid.len(), &opts));
        }
        let mut bar = Bar::new(show, opts.steps);
        let report = run_scene(&scene, &mut solver, &opts, stop, &mut bar)?;
        let s = &report.summary;
        if show {
            print!("{}", s.phases.table(s.steps));
            println!("{}", s.counters_line());
            println!("{}", s.watch.line());
            println!(
                "{} frames, summary in {}",
                s.frames,
                report.summary_path.display()
            );
        }
        if s.interrupted {
            eprintln!(
                "interrupted after step {} of {} (t = {:.3} s): {} whole frames and the summary written",
                s.steps, s.steps_planned, s.sim_time_s, s.frames
            );
            return Ok(ExitCode::from(130));
        }
        Ok(ExitCode::SUCCESS)
    })?
}
