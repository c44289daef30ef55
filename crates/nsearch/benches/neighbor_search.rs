//! Grid construction and neighbor search, pruned against unpruned, timed separately, on shuffled
//! clouds of about 32k, 256k and 1M particles: a jittered lattice (spacing 2r, h = 4r, r = 0.01)
//! and a collapsing water column (a dam-break-like shape at the same spacing and radius).
//!
//! `cargo bench --bench neighbor_search` (filter with e.g. `-- lattice/1000000`).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::Vec3A;
use nsearch::points::{collapsing_column, jittered_lattice};
use nsearch::{CellSize, GridSpec, NeighborSearch, SearchMode};
use std::hint::black_box;
use std::time::Duration;

const R: f32 = 0.01;
const SPACING: f32 = 2.0 * R;
const H: f32 = 4.0 * R;

fn clouds() -> Vec<(&'static str, Vec<Vec3A>)> {
    let mut v = Vec::new();
    for n in [32usize, 64, 100] {
        v.push((
            "lattice",
            jittered_lattice(n, SPACING, 0.1 * SPACING, true, 1),
        ));
    }
    for n in [32_768usize, 262_144, 1_000_000] {
        v.push((
            "column",
            collapsing_column(n, SPACING, 0.1 * SPACING, true, 2),
        ));
    }
    v
}

fn bench(c: &mut Criterion) {
    for (name, points) in clouds() {
        let spec = GridSpec::around(&points, H, CellSize::H).unwrap();
        let mut group = c.benchmark_group(name);
        if points.len() > 100_000 {
            group
                .sample_size(10)
                .measurement_time(Duration::from_secs(4));
        }
        for mode in [SearchMode::Unpruned, SearchMode::Pruned] {
            let mut ns = NeighborSearch::new(spec, mode);
            ns.build(&points);
            ns.search();
            let id = |what: &str| BenchmarkId::new(format!("{what}/{mode}"), points.len());
            group.bench_function(id("construction"), |b| {
                b.iter(|| ns.build(black_box(&points)))
            });
            ns.build(&points);
            group.bench_function(id("search"), |b| b.iter(|| black_box(ns.search())));
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
