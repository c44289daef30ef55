//! The timing harness behind `pbf bench-search`: grid construction and search, pruned against
//! unpruned, on one point set, with medians over repetitions and a check that both modes give the
//! same lists.
//!
//! Owns: timing and the report. Does not touch: the search internals.

use glam::Vec3A;
use nsearch::{
    Backend, BackendUnavailable, CellSize, GridError, GridSpec, NeighborSearch, SearchMode,
    SearchStats,
};
use std::time::Instant;

/// Why the bench could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Grid(#[from] GridError),
    #[error(transparent)]
    Backend(#[from] BackendUnavailable),
    #[error(
        "the neighbor lists of these points could take up to {:.1} GB (their stencils hold up to {pairs} candidate pairs), more than the {:.1} GB this machine has available; use a smaller radius or fewer coincident points",
        *need as f64 / 1e9,
        *available as f64 / 1e9
    )]
    Memory {
        pairs: u64,
        need: u64,
        available: u64,
    },
}

/// What one mode measured.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ModeReport {
    /// Median construction time (sort, gather, AABBs when pruned), ms.
    pub construction_ms: f64,
    /// Median search time, ms.
    pub search_ms: f64,
    /// Median of construction + search per repetition, ms.
    pub total_ms: f64,
    pub candidates_per_particle: f64,
    pub neighbors_per_particle: f64,
    pub cells_visited_per_particle: f64,
    pub cells_pruned_per_particle: f64,
    /// Bytes held by grid, sorted positions and lists.
    pub memory_bytes: usize,
    /// The raw counters of one search.
    pub stats: SearchStats,
}

/// Both modes and their comparison.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Modes {
    pub pruned: ModeReport,
    pub unpruned: ModeReport,
}

/// The whole `bench-search` result (the `--json` object).
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchReport {
    pub particles: usize,
    pub radius: f32,
    pub threads: usize,
    /// The search backend that ran (see [`Backend`]).
    pub backend: Backend,
    /// The CPU it ran on ([`cpu_name`]).
    pub cpu: String,
    pub reps: usize,
    pub cell_size: CellSize,
    pub grid_dims: [usize; 3],
    /// True when both modes produced the same lists (order included) and the same neighbor count.
    pub identical: bool,
    pub modes: Modes,
    /// 1 - pruned / unpruned candidates, in percent.
    pub candidate_reduction_pct: f64,
    /// 1 - pruned / unpruned median (construction + search), in percent.
    pub time_reduction_pct: f64,
}

/// The CPU this process runs on, to keep beside its timings: the model name with its family and
/// model numbers (a VM may name only the vendor's line, e.g. "AMD EPYC"), from `/proc/cpuinfo`;
/// `unknown` where that cannot be read. Read once per process.
pub fn cpu_name() -> &'static str {
    static NAME: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    NAME.get_or_init(|| {
        let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
            return "unknown".into();
        };
        let field = |key: &str| {
            info.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == key).then(|| v.trim().to_string())
            })
        };
        match (field("model name"), field("cpu family"), field("model")) {
            (Some(name), Some(f), Some(m)) => format!("{name} (family {f}, model {m})"),
            (Some(name), _, _) => name,
            _ => "unknown".into(),
        }
    })
}

/// Median of a non-empty slice.
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        0.5 * (s[m - 1] + s[m])
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Time both modes `reps` times each on `points` (alternating which goes first, so drift on a
/// shared machine hits both alike) and compare their lists. Runs in the current rayon pool.
pub fn bench_search(
    points: &[Vec3A],
    radius: f32,
    cell_size: CellSize,
    backend: Backend,
    reps: usize,
) -> Result<BenchReport, BenchError> {
    let spec = GridSpec::around(points, radius, cell_size)?;
    let modes = [SearchMode::Pruned, SearchMode::Unpruned];
    let mut ns: Vec<NeighborSearch> = modes
        .iter()
        .map(|&m| NeighborSearch::new(spec, m).with_backend(backend))
        .collect::<Result<_, _>>()?;
    let reps = reps.max(1);
    let mut times = vec![(Vec::new(), Vec::new(), Vec::new()); 2];
    let mut stats = [SearchStats::default(); 2];
    // Both modes hold their lists: refuse what cannot fit before searching.
    ns[0].build(points);
    let pairs = ns[0].grid().stencil_pairs();
    let need = pairs.saturating_mul(2 * 4);
    if let Some(available) = crate::io::summary::available_memory_bytes()
        && need > available
    {
        return Err(BenchError::Memory {
            pairs,
            need,
            available,
        });
    }
    // One warm-up each: first-touch page faults are not what we measure.
    for s in ns.iter_mut() {
        s.build(points);
        s.search();
    }
    for rep in 0..reps {
        let order: [usize; 2] = if rep % 2 == 0 { [0, 1] } else { [1, 0] };
        for m in order {
            let t = Instant::now();
            ns[m].build(points);
            let c = ms(t);
            let t = Instant::now();
            stats[m] = ns[m].search();
            let s = ms(t);
            times[m].0.push(c);
            times[m].1.push(s);
            times[m].2.push(c + s);
        }
    }
    let n = points.len().max(1) as f64;
    let report = |m: usize| ModeReport {
        construction_ms: median(&times[m].0),
        search_ms: median(&times[m].1),
        total_ms: median(&times[m].2),
        candidates_per_particle: stats[m].candidates as f64 / n,
        neighbors_per_particle: stats[m].neighbors as f64 / n,
        cells_visited_per_particle: stats[m].cells_visited as f64 / n,
        cells_pruned_per_particle: stats[m].cells_pruned as f64 / n,
        memory_bytes: ns[m].memory_bytes(),
        stats: stats[m],
    };
    let (pruned, unpruned) = (report(0), report(1));
    let identical = stats[0].neighbors == stats[1].neighbors
        && ns[0].lists().first_difference(ns[1].lists()).is_none();
    let pct = |a: f64, b: f64| if b > 0.0 { 100.0 * (1.0 - a / b) } else { 0.0 };
    Ok(BenchReport {
        particles: points.len(),
        radius,
        threads: rayon::current_num_threads(),
        backend: ns[0].backend(),
        cpu: cpu_name().to_string(),
        reps,
        cell_size,
        grid_dims: spec.dims,
        identical,
        candidate_reduction_pct: pct(
            pruned.stats.candidates as f64,
            unpruned.stats.candidates as f64,
        ),
        time_reduction_pct: pct(pruned.total_ms, unpruned.total_ms),
        modes: Modes { pruned, unpruned },
    })
}
