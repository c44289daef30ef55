//! Neighbor search against an independent brute-force reference, written here from the documented
//! rule (j is a neighbor of i iff `(dx*dx + dy*dy) + dz*dz <= h*h` in f32, self included), on many
//! kinds of clouds; plus counters and thread-count independence.

use glam::Vec3A;
use nsearch::{Backend, CellSize, GridSpec, NeighborSearch, SearchMode, SearchStats};
use proptest::prelude::*;

/// The reference: every pair, in the slot order the search used, straight from the rule.
fn reference(sorted: &[Vec3A], h: f32) -> Vec<Vec<u32>> {
    let h2 = h * h;
    sorted
        .iter()
        .map(|&p| {
            (0..sorted.len() as u32)
                .filter(|&j| {
                    let q = sorted[j as usize];
                    let (dx, dy, dz) = (q.x - p.x, q.y - p.y, q.z - p.z);
                    (dx * dx + dy * dy) + dz * dz <= h2
                })
                .collect()
        })
        .collect()
}

fn lists(ns: &NeighborSearch) -> Vec<Vec<u32>> {
    (0..ns.lists().len())
        .map(|i| ns.lists().neighbors(i).to_vec())
        .collect()
}

fn sorted_points(ns: &NeighborSearch) -> Vec<Vec3A> {
    let s = ns.sorted_positions();
    (0..s.len()).map(|i| s.get(i)).collect()
}

/// Run all three modes on `points` over `spec`; check each against the reference and return the
/// pruned and unpruned stats.
fn check_all(points: &[Vec3A], spec: GridSpec) -> (SearchStats, SearchStats) {
    let backends = [Backend::Portable, Backend::Avx2, Backend::Avx512];
    let mut results = Vec::new();
    for b in backends.into_iter().filter(|b| b.available()) {
        results.push((b, check_backend(points, spec, b)));
    }
    for (k, r) in &results[1..] {
        assert_eq!(
            *r, results[0].1,
            "{k} and {} backends disagree on the counters",
            results[0].0
        );
    }
    results[0].1
}

/// The paper's counters of a pruned search, counted here from scratch: every non-empty cell of a
/// particle's stencil is visited; it is pruned when the squared distance from the particle to the
/// bounding box of the cell's particles (Ericson: the squared excess per axis, summed
/// `(x + y) + z`) exceeds h², and its particles are candidates otherwise.
/// Returns (candidates, cells visited, cells pruned).
fn pruned_counters(ns: &NeighborSearch) -> (u64, u64, u64) {
    let grid = ns.grid();
    let spec = grid.spec();
    let start = grid.cell_start();
    let pts = sorted_points(ns);
    let r = spec.cell_size.reach() as i64;
    let h2 = spec.radius * spec.radius;
    let (mut candidates, mut visited, mut pruned) = (0u64, 0u64, 0u64);
    for (i, p) in pts.iter().enumerate() {
        let c = spec.coords_of(grid.sorted_keys()[i] as usize);
        for dz in -r..=r {
            for dy in -r..=r {
                for dx in -r..=r {
                    let q = [c[0] as i64 + dx, c[1] as i64 + dy, c[2] as i64 + dz];
                    if (0..3).any(|a| q[a] < 0 || q[a] >= spec.dims[a] as i64) {
                        continue;
                    }
                    let key = spec.key_of(q.map(|v| v as usize));
                    let (s, e) = (start[key] as usize, start[key + 1] as usize);
                    if e == s {
                        continue;
                    }
                    visited += 1;
                    let (mut lo, mut hi) = (pts[s], pts[s]);
                    for q in &pts[s..e] {
                        lo = lo.min(*q);
                        hi = hi.max(*q);
                    }
                    let ex = |a: usize| {
                        let d = (lo[a] - p[a]).max(p[a] - hi[a]).max(0.0);
                        d * d
                    };
                    if (ex(0) + ex(1)) + ex(2) <= h2 {
                        candidates += (e - s) as u64;
                    } else {
                        pruned += 1;
                    }
                }
            }
        }
    }
    (candidates, visited, pruned)
}

fn check_backend(points: &[Vec3A], spec: GridSpec, backend: Backend) -> (SearchStats, SearchStats) {
    let mut stats = Vec::new();
    let mut expected = None;
    for mode in [SearchMode::Pruned, SearchMode::Unpruned, SearchMode::Brute] {
        let mut ns = NeighborSearch::new(spec, mode)
            .with_backend(backend)
            .unwrap();
        assert_eq!(ns.backend(), backend);
        ns.build(points);
        let st = ns.search();
        assert_eq!(ns.lists().len(), points.len());
        if mode == SearchMode::Pruned {
            assert_eq!(
                (st.candidates, st.cells_visited, st.cells_pruned),
                pruned_counters(&ns),
                "pruned counters (candidates, cells visited, cells pruned) differ from a count \
                 from scratch"
            );
        }
        let exp = expected.get_or_insert_with(|| reference(&sorted_points(&ns), spec.radius));
        let got = lists(&ns);
        for (i, (g, e)) in got.iter().zip(exp.iter()).enumerate() {
            assert_eq!(
                g, e,
                "{mode} mode: neighbors of slot {i} differ from brute force"
            );
        }
        assert_eq!(st.neighbors as usize, ns.lists().total());
        assert_eq!(
            st.neighbors as usize,
            exp.iter().map(Vec::len).sum::<usize>()
        );
        // The permutation is a permutation, and slot i holds input point perm[i].
        let perm = ns.grid().permutation();
        let mut seen = vec![false; points.len()];
        for (slot, &from) in perm.iter().enumerate() {
            assert!(
                !std::mem::replace(&mut seen[from as usize], true),
                "slot taken twice"
            );
            assert_eq!(ns.sorted_positions().get(slot), points[from as usize]);
        }
        stats.push(st);
    }
    let (pr, un) = (stats[0], stats[1]);
    assert_eq!(pr.neighbors, un.neighbors);
    assert_eq!(pr.cells_visited, un.cells_visited);
    assert!(pr.candidates <= un.candidates);
    assert_eq!(un.cells_pruned, 0);
    assert!(pr.cells_pruned <= pr.cells_visited);
    (pr, un)
}

fn spec_around(points: &[Vec3A], h: f32, cell: CellSize) -> GridSpec {
    GridSpec::around(points, h, cell).unwrap()
}

fn vec3() -> impl Strategy<Value = Vec3A> {
    (0f32..1.0, 0f32..1.0, 0f32..1.0).prop_map(|(x, y, z)| Vec3A::new(x, y, z))
}

fn cell_size() -> impl Strategy<Value = CellSize> {
    prop_oneof![Just(CellSize::H), Just(CellSize::Half)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn uniform_random(points in prop::collection::vec(vec3(), 0..600), h in 0.03f32..0.3, cell in cell_size()) {
        check_all(&points, spec_around(&points, h, cell));
    }

    #[test]
    fn jittered_lattice(n in 1usize..9, jitter in 0f32..0.01, seed in 0u64..1000, cell in cell_size()) {
        let points = nsearch::points::jittered_lattice(n, 0.02, jitter, true, seed);
        check_all(&points, spec_around(&points, 0.04, cell));
    }

    /// Cells of about 9-12 particles, whose stencil rows mostly hold at most 32: groups of more
    /// than 8 particles in the AVX-512 backend's flat walk, next to groups too crowded for it.
    #[test]
    fn crowded_cells(points in prop::collection::vec(vec3(), 900..1100), h in 0.2f32..0.24) {
        check_all(&points, spec_around(&points, h, CellSize::H));
    }

    /// A few tight clusters: crowded cells (more than 8 particles, so several vector steps per
    /// cell) next to empty ones.
    #[test]
    fn tight_clusters(centers in prop::collection::vec(vec3(), 1..5),
                      offsets in prop::collection::vec((-1f32..1.0, -1f32..1.0, -1f32..1.0), 1..400),
                      h in 0.02f32..0.2, cell in cell_size()) {
        let points: Vec<Vec3A> = offsets.iter().enumerate()
            .map(|(k, &(a, b, c))| centers[k % centers.len()] + Vec3A::new(a, b, c) * 0.01)
            .collect();
        check_all(&points, spec_around(&points, h, cell));
    }

    /// Points on a lattice whose spacing is the radius itself: many pairs at distance exactly h,
    /// and many points exactly on (nominal) cell faces.
    #[test]
    fn exactly_on_faces(n in 1usize..7, h in prop_oneof![Just(0.25f32), Just(0.1), Just(0.04), Just(1.0)],
                        cell in cell_size()) {
        let mut points = Vec::new();
        for z in 0..n { for y in 0..n { for x in 0..n {
            points.push(Vec3A::new(x as f32, y as f32, z as f32) * h);
        }}}
        let spec = GridSpec::new(Vec3A::ZERO, Vec3A::splat(n as f32 * h), h, cell).unwrap();
        let (_, un) = check_all(&points, spec);
        // Each interior point sees its 6 face neighbors at exactly h, and itself.
        if n >= 3 {
            prop_assert!(un.neighbors >= 7 * (n as u64 - 2).pow(3));
        }
    }

    /// A domain smaller than the cloud: outside points are clamped into border cells, never lost.
    #[test]
    fn points_outside_domain(points in prop::collection::vec(
                                 (-2f32..3.0, -2f32..3.0, -2f32..3.0).prop_map(|(x, y, z)| Vec3A::new(x, y, z)), 0..400),
                             h in 0.1f32..0.6, cell in cell_size()) {
        let spec = GridSpec::new(Vec3A::ZERO, Vec3A::ONE, h, cell).unwrap();
        check_all(&points, spec);
    }

    /// A window of a larger domain's grid (as the solver cuts one every step around the fluid):
    /// the same particle order, lists and counters as the whole grid, for both modes, and
    /// right against the reference; some points lie outside the domain.
    #[test]
    fn window_of_a_larger_domain(points in prop::collection::vec(
                                     (0.2f32..0.7, -0.3f32..0.5, 0.3f32..0.45).prop_map(|(x, y, z)| Vec3A::new(x, y, z)), 1..400),
                                 h in 0.03f32..0.2, cell in cell_size()) {
        let full = GridSpec::new(Vec3A::ZERO, Vec3A::new(1.0, 2.0, 1.5), h, cell).unwrap();
        let window = full.window(&points);
        prop_assert!((0..3).all(|a| window.dims[a] <= full.dims[a]));
        prop_assert!(window.dims.iter().product::<usize>() < full.dims.iter().product::<usize>());
        check_all(&points, window);
        for mode in [SearchMode::Pruned, SearchMode::Unpruned] {
            let mut a = NeighborSearch::new(full, mode);
            let mut b = NeighborSearch::new(window, mode);
            a.build(&points);
            b.build(&points);
            let (sa, sb) = (a.search(), b.search());
            prop_assert_eq!(a.grid().permutation(), b.grid().permutation());
            prop_assert_eq!(lists(&a), lists(&b));
            prop_assert_eq!(sa, sb);
        }
    }

    /// Everything in one cell.
    #[test]
    fn one_cell(points in prop::collection::vec(vec3(), 0..200), cell in cell_size()) {
        let pts: Vec<Vec3A> = points.iter().map(|p| *p * 0.01 + Vec3A::splat(0.5)).collect();
        let spec = GridSpec::new(Vec3A::ZERO, Vec3A::ONE, 0.5, cell).unwrap();
        check_all(&pts, spec);
    }
}

#[test]
fn empty_and_single() {
    let spec = GridSpec::new(Vec3A::ZERO, Vec3A::ONE, 0.1, CellSize::H).unwrap();
    let (pr, _) = check_all(&[], spec);
    assert_eq!(pr, SearchStats::default());
    let (pr, un) = check_all(&[Vec3A::splat(0.5)], spec);
    assert_eq!((pr.neighbors, un.neighbors, un.candidates), (1, 1, 1));
}

#[test]
fn pruning_cuts_candidates_on_a_lattice() {
    let points = nsearch::points::jittered_lattice(20, 0.02, 0.002, true, 7);
    let (pr, un) = check_all(&points, spec_around(&points, 0.04, CellSize::H));
    // The paper reports about a third fewer; on this lattice far more cells are out of reach.
    assert!(
        (pr.candidates as f64) < 0.66 * un.candidates as f64,
        "pruned {} vs unpruned {} candidates",
        pr.candidates,
        un.candidates
    );
    assert!(pr.cells_pruned > 0);
}

#[test]
fn identical_for_any_thread_count() {
    let points = nsearch::points::collapsing_column(30_000, 0.02, 0.003, true, 3);
    let spec = spec_around(&points, 0.04, CellSize::H);
    for mode in [SearchMode::Pruned, SearchMode::Unpruned] {
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let mut ns = NeighborSearch::new(spec, mode);
                ns.build(&points);
                let st = ns.search();
                (ns.grid().permutation().to_vec(), ns.lists().to_csr(), st)
            })
        };
        let one = run(1);
        let four = run(4);
        assert!(one.1.1.len() > points.len(), "expected real neighbor lists");
        assert_eq!(
            one.0, four.0,
            "{mode}: permutation differs between 1 and 4 threads"
        );
        assert_eq!(
            one.1, four.1,
            "{mode}: CSR lists differ between 1 and 4 threads"
        );
        assert_eq!(
            one.2, four.2,
            "{mode}: counters differ between 1 and 4 threads"
        );
    }
}

/// Rebuilding on new positions reuses buffers and still gives the right lists.
#[test]
fn rebuild_reuses_buffers() {
    let a = nsearch::points::jittered_lattice(10, 0.02, 0.004, true, 1);
    let b = nsearch::points::collapsing_column(900, 0.02, 0.004, true, 2);
    let spec = GridSpec::new(Vec3A::splat(-0.01), Vec3A::splat(0.5), 0.04, CellSize::H).unwrap();
    let mut ns = NeighborSearch::new(spec, SearchMode::Pruned);
    for pts in [&a, &b, &a] {
        ns.build(pts);
        ns.search();
        assert_eq!(lists(&ns), reference(&sorted_points(&ns), 0.04));
    }
}

/// A pair whose f32 distance rounds down to exactly h although the points lie in cells two apart
/// at cell width h: x = 1 - 2^-24 and x = 2 with h = 1 (2 - (1 - 2^-24) rounds to 1). The grid's
/// cell margin keeps them within one cell; without it the grid would miss this neighbor.
#[test]
fn rounding_at_cell_faces() {
    let below_one = f32::from_bits(1.0f32.to_bits() - 1);
    let points = [Vec3A::new(below_one, 0.5, 0.5), Vec3A::new(2.0, 0.5, 0.5)];
    let dx = points[1].x - points[0].x;
    assert_eq!(dx, 1.0, "the premise: the f32 difference rounds to h");
    let spec = GridSpec::new(Vec3A::ZERO, Vec3A::splat(3.0), 1.0, CellSize::H).unwrap();
    let (pr, _) = check_all(&points, spec);
    assert_eq!(pr.neighbors, 4, "each point has itself and the other");
}

#[test]
fn stencil_pairs_bound_the_pairs_and_count_coincident_points_exactly() {
    // The unpruned search tests every stencil particle once: its candidate count is the bound.
    for cell in [CellSize::H, CellSize::Half] {
        let pts = nsearch::points::jittered_lattice(12, 0.02, 0.004, true, 4);
        let mut ns = NeighborSearch::new(spec_around(&pts, 0.045, cell), SearchMode::Unpruned);
        ns.build(&pts);
        let bound = ns.grid().stencil_pairs();
        let stats = ns.search();
        assert_eq!(bound, stats.candidates, "{cell:?}");
        let brute = reference(&sorted_points(&ns), 0.045);
        assert!(bound >= brute.iter().map(|l| l.len() as u64).sum::<u64>());
    }
    // n copies of one point: n² pairs.
    let same = vec![Vec3A::splat(0.3); 500];
    let mut ns = NeighborSearch::new(spec_around(&same, 0.1, CellSize::H), SearchMode::Unpruned);
    ns.build(&same);
    assert_eq!(ns.grid().stencil_pairs(), 500 * 500);
}
