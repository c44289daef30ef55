//! Each neighbor walk of a step on its own, on the wave scene's small version five steps in
//! (15,840 particles, 68 neighbors each): the density pass and the position correction of one
//! constraint iteration, and the kinematics pass with every sum on, for each pair of kernels
//! (`pbf.kernel`; the positions are the default pair's run): `cargo bench --bench walks`.
//!
//! A walk costs about 40 cycles per chunk of eight neighbors on an AVX2 Zen 3, and the time
//! follows its instruction count (docs/results.md, stop 32), so this is where a change to a
//! pass's sums shows, at a few percent, where a whole step's noise hides it.

use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Vec3A, Vec4};
use pbf::par::CHUNK;
use pbf::pressure::correction::{Correction, correction, density_and_gradients};
use pbf::pressure::pbf::ArtificialPressure;
use pbf::scene::Scene;
use pbf::solver::Solver;
use pbf::sph::kinematics::{KinematicsIn, KinematicsOut, Needs, kinematics};
use pbf::sph::{KernelKind, Kernels};
use rayon::prelude::*;
use std::path::Path;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let scene = Scene::load(&root.join("configs/paper_4_wave_small.toml"), &[]).unwrap();
    let mut solver = Solver::new(&scene).unwrap();
    for _ in 0..5 {
        solver.step();
    }
    let n = solver.fluid.len();
    let lists = solver.neighbor_search().lists();
    let (x, v) = (&solver.fluid.x, &solver.fluid.v);
    // Multipliers of the size a settled solve gives, varying from particle to particle.
    let pl: Vec<Vec4> = (0..n)
        .map(|i| x[i].extend(-1e-4 * ((i * 7919 % 1000) as f32 / 1000.0)))
        .collect();
    let vs: Vec<Vec4> = (0..n)
        .map(|i| v[i].extend((i % 13) as f32 * 0.01))
        .collect();
    let mut group = c.benchmark_group("walks");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(3));
    for kind in KernelKind::ALL {
        let k = Kernels::with_kind(solver.kernel_radius(), kind);
        let id = |pass: &str| format!("{pass}/{kind:?}/{n}");
        pbf::by_shape!(kind, S => {
            // s_corr k as a fraction of S0 = 1, the shipped n and Δq.
            let s_corr = ArtificialPressure { k: 1e-3, n: 4, dq: 0.2 };
            let corr = Correction::new(&k, s_corr, 1.0, scene.spacing());
            let mut sums = vec![(0.0f32, Vec3A::ZERO, 0.0f32); n];
            group.bench_function(id("density"), |b| {
                b.iter(|| {
                    sums.par_iter_mut()
                        .enumerate()
                        .with_min_len(CHUNK)
                        .for_each(|(i, o)| {
                            *o = density_and_gradients::<S>(lists.neighbors(i), i, x, &k)
                        })
                })
        });
        let mut dp = vec![Vec3A::ZERO; n];
        group.bench_function(id("correction"), |b| {
            b.iter(|| {
                dp.par_iter_mut()
                    .enumerate()
                    .with_min_len(CHUNK)
                    .for_each(|(i, o)| {
                        *o = correction::<S>(lists.neighbors(i), i, &pl, &k, &corr)
                    })
            })
        });
        let wall = |_: usize| 0.0f32;
        let input = KinematicsIn {
            lists,
            p: x,
            v,
            kernels: &k,
            mass: solver.mass(),
            wall: &wall,
            vs: &vs,
            pv: &[],
        };
        let needs = Needs {
            curl: true,
            smoothing: true,
            swirl: true,
            normals: false,
        };
        let (mut rho, mut vv) = (vec![0.0f32; n], vec![Vec4::ZERO; n]);
        let (mut curl, mut smooth, mut eta) = (
            vec![Vec3A::ZERO; n],
            vec![Vec3A::ZERO; n],
            vec![Vec3A::ZERO; n],
        );
        group.bench_function(id("kinematics"), |b| {
            b.iter(|| {
                kinematics(
                    &input,
                    needs,
                    KinematicsOut {
                        density: &mut rho,
                        vv: &mut vv,
                        curl: &mut curl,
                        smoothing: &mut smooth,
                        eta: &mut eta,
                        normals: &mut [],
                    },
                )
            })
        });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
