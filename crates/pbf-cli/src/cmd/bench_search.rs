//! `pbf bench-search`: time grid construction and neighbor search, pruned against unpruned, on
//! one point set (a file or a generated cloud).

use crate::args::{choice, input, with_threads};
use anyhow::{Result, bail};
use nsearch::points::{collapsing_column, jittered_lattice};
use nsearch::{Backend, CellSize};
use pbf::experiments::bench_search::{BenchReport, ModeReport, bench_search};
use pbf::io::points::read_points;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Point file: raw little-endian f32 xyz triples (.xyz), or a .vtu / .vtk frame.
    #[arg(conflicts_with_all = ["lattice", "column"], required_unless_present_any = ["lattice", "column"])]
    points: Option<PathBuf>,
    /// Generate a jittered lattice of N x N x N points instead of reading a file.
    #[arg(long, value_name = "N", conflicts_with = "column")]
    lattice: Option<usize>,
    /// Generate a collapsing water column (a dam-break-like shape) of about N points.
    #[arg(long, value_name = "N")]
    column: Option<usize>,
    /// Spacing of the generated points.
    #[arg(long, default_value_t = 0.02, allow_negative_numbers = true)]
    spacing: f32,
    /// Uniform jitter of each generated coordinate, in [-J, J].
    #[arg(
        long,
        value_name = "J",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    jitter: f32,
    /// Shuffle the generated points' memory order (as an unsorted simulation state would be).
    #[arg(long)]
    shuffle: bool,
    /// Seed of the jitter and shuffle.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Search radius h (default: 2 x lattice spacing).
    #[arg(long, value_name = "H", allow_negative_numbers = true)]
    radius: Option<f32>,
    /// Cell width: h (3x3x3 stencil) or half (h/2, 5x5x5 stencil).
    #[arg(long, default_value = "h", value_parser = choice(&CellSize::ALL))]
    cell_size: CellSize,
    /// Timed repetitions per mode (medians are reported).
    #[arg(long, value_name = "K", default_value_t = 7, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    reps: u64,
    /// Search backend (the SIMD path): auto (the fastest this CPU runs), portable, avx2 or
    /// avx512. All give the same lists; only the speed differs.
    #[arg(long, alias = "kernel", default_value = "auto", value_parser = choice(&Backend::ALL))]
    backend: Backend,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

pub fn main(a: Args) -> Result<ExitCode> {
    let generated = a.lattice.or(a.column);
    let (pts, default_radius) = match (&a.points, generated) {
        (Some(path), _) => (read_points(path).map_err(input)?, None),
        (None, Some(n)) => {
            if n == 0 {
                return Err(input(anyhow::anyhow!(
                    "--{} must be at least 1",
                    if a.lattice.is_some() {
                        "lattice"
                    } else {
                        "column"
                    }
                )));
            }
            if !(a.spacing.is_finite() && a.spacing > 0.0) {
                return Err(input(anyhow::anyhow!(
                    "--spacing must be positive, got {}",
                    a.spacing
                )));
            }
            if !(a.jitter.is_finite() && a.jitter >= 0.0) {
                return Err(input(anyhow::anyhow!(
                    "--jitter must be >= 0, got {}",
                    a.jitter
                )));
            }
            let pts = if a.lattice.is_some() {
                jittered_lattice(n, a.spacing, a.jitter, a.shuffle, a.seed)
            } else {
                collapsing_column(n, a.spacing, a.jitter, a.shuffle, a.seed)
            };
            (pts, Some(2.0 * a.spacing))
        }
        (None, None) => bail!("give a point file, --lattice N or --column N"),
    };
    let radius = match (a.radius, default_radius) {
        (Some(h), _) => h,
        (None, Some(h)) => h,
        (None, None) => {
            return Err(input(anyhow::anyhow!(
                "--radius is required with a point file"
            )));
        }
    };
    if !(radius.is_finite() && radius > 0.0) {
        return Err(input(anyhow::anyhow!(
            "--radius must be positive, got {radius}"
        )));
    }
    let report = with_threads(a.threads, || {
        bench_search(&pts, radius, a.cell_size, a.backend, a.reps as usize)
    })?
    .map_err(input)?;
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report);
    }
    if !report.identical {
        eprintln!("error: pruned and unpruned neighbor lists differ");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn print_report(r: &BenchReport) {
    outln!(
        "{} particles, radius {}, cell {} ({}x{}x{} cells), {} threads, {} backend, median of {} reps, {}",
        r.particles,
        r.radius,
        match r.cell_size {
            CellSize::H => "h",
            CellSize::Half => "h/2",
        },
        r.grid_dims[0],
        r.grid_dims[1],
        r.grid_dims[2],
        r.threads,
        r.backend,
        r.reps,
        r.cpu
    );
    outln!(
        "{:<10} {:>15} {:>11} {:>11} {:>12} {:>11} {:>10}",
        "mode",
        "construction ms",
        "search ms",
        "sum ms",
        "candidates/p",
        "neighbors/p",
        "memory MB"
    );
    let row = |name: &str, m: &ModeReport| {
        outln!(
            "{:<10} {:>15.2} {:>11.2} {:>11.2} {:>12.2} {:>11.2} {:>10.1}",
            name,
            m.construction_ms,
            m.search_ms,
            m.total_ms,
            m.candidates_per_particle,
            m.neighbors_per_particle,
            m.memory_bytes as f64 / 1e6
        )
    };
    row("unpruned", &r.modes.unpruned);
    row("pruned", &r.modes.pruned);
    outln!(
        "pruning: {:.1}% fewer candidates, {:.1}% less construction + search time; lists {}",
        r.candidate_reduction_pct,
        r.time_reduction_pct,
        if r.identical { "identical" } else { "DIFFER" }
    );
}
