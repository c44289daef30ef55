//! One full PBF step (construction, search, 3 iterations, vorticity, XSPH; no output) on the
//! dam-break scenes: `cargo bench --bench step`.

use criterion::{Criterion, criterion_group, criterion_main};
use pbf::scene::Scene;
use pbf::solver::Solver;
use std::path::Path;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("step");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    for (name, file) in [
        ("dam_break_small", "configs/dam_break_small.toml"),
        ("dam_break", "configs/dam_break.toml"),
    ] {
        let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let scene = Scene::load(&root.join(file), &[]).unwrap();
        let mut solver = Solver::new(&scene).unwrap();
        // A few steps in, so the water is moving and the arrays are in cell order.
        for _ in 0..5 {
            solver.step();
        }
        let id = format!("{name}/{}", solver.fluid.len());
        group.bench_function(id, |b| b.iter(|| solver.step()));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
