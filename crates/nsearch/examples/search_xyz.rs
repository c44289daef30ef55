//! Search the neighbors of your own points with the library alone, pruned and unpruned, and print
//! the neighbor statistics (the AABB paper's Table 2 counters) and timings.
//!
//! ```text
//! cargo run --release -p nsearch --example search_xyz -- POINTS.xyz RADIUS [--half] [--backend B]
//! ```
//! `POINTS.xyz`: raw little-endian f32 x y z triples (as splashsurf reads and writes them).
//! `--half`: cells of width h/2 (5 x 5 x 5 stencil) instead of h. `--backend`: auto, portable,
//! avx2 or avx512. With no file, `--demo N` searches a generated jittered lattice of N^3 points.

use nsearch::points::{jittered_lattice, read_xyz};
use nsearch::{Backend, CellSize, GridSpec, NeighborSearch, SearchMode, SearchStats};
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage: search_xyz POINTS.xyz RADIUS [--half] [--backend auto|portable|avx2|avx512]
       search_xyz --demo N [RADIUS] (a jittered lattice of N^3 points at spacing 0.02; radius 0.04)";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Vec<String>) -> Result<ExitCode, String> {
    let mut cell_size = CellSize::H;
    let mut backend = Backend::Auto;
    let mut pos = Vec::new();
    let mut demo = false;
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--half" => cell_size = CellSize::Half,
            "--backend" => {
                backend = it.next().ok_or("--backend needs a value")?.parse()?;
            }
            "--demo" => demo = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(ExitCode::SUCCESS);
            }
            _ => pos.push(a),
        }
    }
    let parse_radius = |s: &String| -> Result<f32, String> {
        let h: f32 = s
            .parse()
            .map_err(|_| format!("RADIUS: not a number: {s:?}"))?;
        if h.is_finite() && h > 0.0 {
            Ok(h)
        } else {
            Err(format!("RADIUS must be positive, got {h}"))
        }
    };
    let (points, radius, source) = if demo {
        let n: usize = pos
            .first()
            .ok_or("--demo needs N")?
            .parse()
            .map_err(|_| "--demo N: N must be a whole number")?;
        let h = pos.get(1).map(parse_radius).transpose()?.unwrap_or(0.04);
        let pts = jittered_lattice(n, 0.02, 0.002, true, 1);
        (pts, h, format!("a jittered lattice of {n}^3 points"))
    } else {
        let [file, radius] = pos.as_slice() else {
            return Err("expected POINTS.xyz and RADIUS".into());
        };
        let pts = read_xyz(file.as_ref()).map_err(|e| e.to_string())?;
        (pts, parse_radius(radius)?, file.clone())
    };
    if points.is_empty() {
        return Err(format!("{source}: no points"));
    }
    let spec = GridSpec::around(&points, radius, cell_size).map_err(|e| e.to_string())?;
    let n = points.len() as f64;
    let [nx, ny, nz] = spec.dims;
    if !backend.available() {
        return Err(nsearch::BackendUnavailable(backend).to_string());
    }
    println!(
        "{source}: {} points, radius {radius}, {nx} x {ny} x {nz} cells of {:.5}, {} backend, {} threads",
        points.len(),
        spec.cell,
        backend.resolve(),
        rayon::current_num_threads()
    );
    println!(
        "{:<9} {:>10} {:>10} {:>13} {:>12} {:>14} {:>13}",
        "mode",
        "build ms",
        "search ms",
        "candidates/p",
        "neighbors/p",
        "cells visited",
        "cells pruned"
    );
    let mut results: Vec<(SearchMode, SearchStats, Vec<u32>)> = Vec::new();
    for mode in [SearchMode::Unpruned, SearchMode::Pruned] {
        let mut ns = NeighborSearch::new(spec, mode)
            .with_backend(backend)
            .map_err(|e| e.to_string())?;
        // One untimed round (first touches of memory), then the median of five.
        let (mut build, mut search) = (Vec::new(), Vec::new());
        let mut stats = SearchStats::default();
        for round in 0..6 {
            let t = Instant::now();
            ns.build(&points);
            let b = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            stats = ns.search();
            let s = t.elapsed().as_secs_f64() * 1e3;
            if round > 0 {
                build.push(b);
                search.push(s);
            }
        }
        println!(
            "{:<9} {:>10.2} {:>10.2} {:>13.2} {:>12.2} {:>14.2} {:>13.2}",
            mode.name(),
            median(&mut build),
            median(&mut search),
            stats.candidates as f64 / n,
            stats.neighbors as f64 / n,
            stats.cells_visited as f64 / n,
            stats.cells_pruned as f64 / n
        );
        // The lists by input index, to check that both modes found the same neighbors.
        let perm = ns.grid().permutation();
        let (offsets, indices) = ns.lists().to_csr();
        let mut by_input = vec![0u32; indices.len()];
        let mut at = 0;
        let mut slot_of = vec![0u32; perm.len()];
        for (slot, &i) in perm.iter().enumerate() {
            slot_of[i as usize] = slot as u32;
        }
        for &slot in &slot_of {
            let (lo, hi) = (
                offsets[slot as usize] as usize,
                offsets[slot as usize + 1] as usize,
            );
            let mut l: Vec<u32> = indices[lo..hi].iter().map(|&s| perm[s as usize]).collect();
            l.sort_unstable();
            by_input[at..at + l.len()].copy_from_slice(&l);
            at += l.len();
        }
        results.push((mode, stats, by_input));
    }
    let (u, p) = (&results[0], &results[1]);
    let identical = u.2 == p.2;
    println!(
        "pruning skipped {:.1}% of the candidates; neighbor lists {}",
        100.0 * (1.0 - p.1.candidates as f64 / u.1.candidates.max(1) as f64),
        if identical { "identical" } else { "DIFFER" }
    );
    Ok(if identical {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
