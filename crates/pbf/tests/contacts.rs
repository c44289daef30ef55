//! Fluid blocks that touch at the start fill as one body of water: where two boxes there at
//! time 0 share a face, the later one leaves out the sites that would crowd the earlier one's
//! (closer than the spacing 2r), so the water does not start compressed at the face and fly
//! apart.

use glam::Vec3A;
use pbf::solver::Solver;

mod common;

use common::scene_from;

/// Water in zero gravity, as one box 0.8 m long or as two meeting at x = `face`. At r = 0.01 the
/// faces at 0.49 put each block's centred lattice 0.005 m inside it (24.5 and 15.5 spacings
/// round up), so the rows either side of the face are r apart.
fn water(face: Option<f32>) -> String {
    let blocks = match face {
        None => "[[fluid]]\nmin = [0.0, 0.0, 0.0]\nmax = [0.8, 0.4, 0.4]\n".to_string(),
        Some(x) => format!(
            "[[fluid]]\nmin = [0.0, 0.0, 0.0]\nmax = [{x}, 0.4, 0.4]\n[[fluid]]\nmin = [{x}, 0.0, 0.0]\nmax = [0.8, 0.4, 0.4]\n"
        ),
    };
    format!(
        "[tank]\nmin = [0.0, 0.0, 0.0]\nmax = [1.0, 1.0, 0.4]\n[particles]\nradius = 0.01\n[time]\ndt = 0.002\nend = 0.1\n[physics]\ngravity = [0.0, 0.0, 0.0]\n{blocks}"
    )
}

#[test]
fn touching_blocks_start_no_closer_than_the_spacing_and_stay_as_calm_as_one() {
    let fastest = |text: &str| {
        let scene = scene_from(text, &[]);
        let mut s = Solver::new(&scene).unwrap();
        let mut top = 0.0f32;
        for _ in 0..50 {
            s.step();
            top = top.max(s.max_speed());
        }
        top
    };
    let one = fastest(&water(None));
    for face in [0.49, 0.5, 0.405] {
        let scene = scene_from(&water(Some(face)), &[]);
        let pts = scene.sample_fluid();
        // Brute force over the particles near the face: none closer than the spacing.
        let near: Vec<Vec3A> = pts
            .iter()
            .copied()
            .filter(|p| (p.x - face).abs() < 0.03)
            .collect();
        for (i, a) in near.iter().enumerate() {
            for b in &near[i + 1..] {
                assert!(a.distance(*b) > 0.0199, "face {face}: {a} and {b}");
            }
        }
        // The two hold the single box's water to within a layer of the face (20 x 20 sites).
        let single = scene_from(&water(None), &[]).sample_fluid().len();
        assert!(
            single - pts.len() <= 400,
            "face {face}: {} against {single}",
            pts.len()
        );
        // And move about as little as it does (in zero gravity only its contact with the
        // walls moves it; a face 1.5 spacings wide at 0.405 is a seam of lower density). Rows
        // r apart at the face used to fly apart at 3.2 m/s.
        let two = fastest(&water(Some(face)));
        assert!(
            two < one + 0.05,
            "face {face}: {two} m/s against {one} m/s for one box"
        );
    }
}

/// Water at rest 0.4 m deep in a 0.2 m square tank (gravity, the hydrostatic start) written as
/// one block, as blocks stacked on one another with faces between lattice rows, and as two
/// side by side: the same particles at the same places. (Stacked, the upper blocks used to
/// start at ρ0 on their own lattices, a seam of lower density under each, and the lowest
/// compressed for its own depth only: the water sank at 0.2 m/s at once.)
#[test]
fn blocks_stacked_at_rest_fill_as_one_block() {
    let tank = "[tank]\nmin = [0.0, 0.0, 0.0]\nmax = [0.2, 0.5, 0.2]\n[particles]\nradius = 0.01\n[time]\ndt = 0.004\nend = 1.0\n";
    let block = |lo: [f32; 3], hi: [f32; 3]| format!("[[fluid]]\nmin = {lo:?}\nmax = {hi:?}\n");
    let sorted = |text: String| {
        let scene = scene_from(&text, &[]);
        let mut pts: Vec<[f32; 3]> = scene.sample_fluid().iter().map(|p| p.to_array()).collect();
        pts.sort_by(|a, b| a.partial_cmp(b).unwrap());
        (scene, pts)
    };
    let (one_scene, one) = sorted(format!("{tank}{}", block([0.0; 3], [0.2, 0.4, 0.2])));
    assert!(
        one_scene.start_excess(0).is_some(),
        "one block starts compressed"
    );
    assert_eq!(one.len(), 2000);
    let layouts = [
        // Two stacked, the face between rows (0.15).
        block([0.0; 3], [0.2, 0.15, 0.2]) + &block([0.0, 0.15, 0.0], [0.2, 0.4, 0.2]),
        // Three stacked, faces at 0.13 and 0.29.
        block([0.0; 3], [0.2, 0.13, 0.2])
            + &block([0.0, 0.13, 0.0], [0.2, 0.29, 0.2])
            + &block([0.0, 0.29, 0.0], [0.2, 0.4, 0.2]),
        // Side by side, the face at x = 0.09.
        block([0.0; 3], [0.09, 0.4, 0.2]) + &block([0.09, 0.0, 0.0], [0.2, 0.4, 0.2]),
    ];
    for blocks in layouts {
        let (scene, pts) = sorted(format!("{tank}{blocks}"));
        assert_eq!(pts.len(), one.len(), "{blocks}");
        for (a, b) in pts.iter().zip(&one) {
            let d = Vec3A::from_array(*a).distance(Vec3A::from_array(*b));
            assert!(d < 1e-6, "{blocks}: {a:?} against one block's {b:?}");
        }
        for k in 0..scene.fluid.len() {
            assert_eq!(scene.start_excess(k), one_scene.start_excess(0), "{blocks}");
        }
    }
}

/// A narrower block stacked at rest on a wider one, its faces off the lower block's rows (laid
/// on them, its outer rows move up to r / 2 past its own faces): each of its layers is
/// compressed alike, every site of a layer at one height, and below where it was laid out.
#[test]
fn a_narrower_block_stacked_at_rest_is_compressed_alike_to_its_edges() {
    let text = "[tank]\nmin = [0.0, 0.0, 0.0]\nmax = [0.2, 0.5, 0.2]\n[particles]\nradius = 0.01\n[time]\ndt = 0.004\nend = 1.0\n[[fluid]]\nmin = [0.0, 0.0, 0.0]\nmax = [0.2, 0.2, 0.2]\n[[fluid]]\nmin = [0.05, 0.2, 0.0]\nmax = [0.15, 0.4, 0.2]\n";
    let scene = scene_from(text, &[]);
    let upper: Vec<Vec3A> = scene
        .sample_fluid()
        .into_iter()
        .filter(|p| p.y > 0.2)
        .collect();
    assert!(
        upper.len() >= 400,
        "{} sites in the upper block",
        upper.len()
    );
    // Laid out at 0.21, 0.23, ...: each placed layer holds one height, below its laid-out one.
    let mut layers: std::collections::BTreeMap<i32, Vec<f32>> = Default::default();
    for p in &upper {
        layers
            .entry(((p.y - 0.21) / 0.02).round() as i32)
            .or_default()
            .push(p.y);
    }
    for (k, ys) in &layers {
        let laid = 0.21 + 0.02 * *k as f32;
        let (lo, hi) = ys
            .iter()
            .fold((f32::MAX, f32::MIN), |(a, b), &y| (a.min(y), b.max(y)));
        assert!(hi - lo < 1e-6, "layer {k}: {lo} to {hi}");
        assert!(
            hi < laid - 1e-5,
            "layer {k} at {hi}, laid out at {laid}: not compressed"
        );
    }
}
