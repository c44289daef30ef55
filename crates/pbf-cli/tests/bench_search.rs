//! The `pbf` binary as a user runs it: `bench-search` output, point files, and bad input.

use std::process::Command;

fn pbf(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pbf"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(args)
        .output()
        .expect("run pbf")
}

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "pbf failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
}

#[test]
fn bench_search_json_on_a_lattice() {
    let out = pbf(&[
        "bench-search",
        "--lattice",
        "16",
        "--spacing",
        "0.02",
        "--jitter",
        "0.002",
        "--shuffle",
        "--radius",
        "0.04",
        "--reps",
        "3",
        "--threads",
        "2",
        "--json",
    ]);
    let v = json(&out);
    assert_eq!(v["particles"], 4096);
    assert_eq!(v["threads"], 2);
    assert_eq!(v["identical"], true);
    assert!((v["radius"].as_f64().unwrap() - 0.04).abs() < 1e-6);
    // The CPU is kept beside the timings: on Linux it starts with /proc/cpuinfo's model name.
    let cpu = v["cpu"].as_str().expect("cpu recorded");
    assert_eq!(cpu, pbf::experiments::bench_search::cpu_name());
    if let Ok(info) = std::fs::read_to_string("/proc/cpuinfo")
        && let Some(name) = info
            .lines()
            .find_map(|l| l.strip_prefix("model name"))
            .map(|r| r.trim_start_matches([' ', '\t', ':']).trim())
    {
        assert!(cpu.starts_with(name), "{cpu} against {name}");
    }
    let (p, u) = (&v["modes"]["pruned"], &v["modes"]["unpruned"]);
    for m in [p, u] {
        for key in [
            "construction_ms",
            "search_ms",
            "candidates_per_particle",
            "neighbors_per_particle",
        ] {
            assert!(m[key].as_f64().unwrap() > 0.0, "{key} missing or zero");
        }
    }
    assert_eq!(p["neighbors_per_particle"], u["neighbors_per_particle"]);
    assert!(p["candidates_per_particle"].as_f64() < u["candidates_per_particle"].as_f64());
    // About 28 neighbors (self included) on this lattice, as in the issue; fewer near the surface.
    let nb = p["neighbors_per_particle"].as_f64().unwrap();
    assert!((20.0..32.0).contains(&nb), "neighbors per particle {nb}");
}

#[test]
fn bench_search_on_a_collapsing_column() {
    let v = json(&pbf(&[
        "bench-search",
        "--column",
        "5000",
        "--jitter",
        "0.002",
        "--shuffle",
        "--reps",
        "1",
        "--json",
    ]));
    let n = v["particles"].as_u64().unwrap();
    assert!((4000..6500).contains(&n), "about 5000 particles, got {n}");
    assert_eq!(v["identical"], true);
    assert!(
        (v["radius"].as_f64().unwrap() - 0.04).abs() < 1e-6,
        "default radius 2 x spacing"
    );
}

#[test]
fn bench_search_table_and_xyz_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cloud.xyz");
    let pts = nsearch::points::jittered_lattice(10, 0.1, 0.01, true, 5);
    nsearch::points::write_xyz(&path, &pts).unwrap();
    let out = pbf(&[
        "bench-search",
        path.to_str().unwrap(),
        "--radius",
        "0.2",
        "--reps",
        "1",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("1000 particles, radius 0.2"), "{text}");
    assert!(text.contains("lists identical"), "{text}");
    assert!(
        text.contains("pruned") && text.contains("unpruned"),
        "{text}"
    );
}

#[test]
fn bad_point_files_exit_2_and_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.xyz");
    std::fs::write(&bad, [0u8; 13]).unwrap();
    let missing = dir.path().join("missing.xyz");
    let nan = dir.path().join("nan.xyz");
    nsearch::points::write_xyz(&nan, &[glam::Vec3A::new(0.0, f32::NAN, 0.0)]).unwrap();
    let other = dir.path().join("cloud.csv");
    std::fs::write(&other, "1,2,3\n").unwrap();
    for (path, expect) in [
        (&bad, "not a multiple of 12"),
        (&missing, "cannot read the point file"),
        (&nan, "not finite"),
        (&other, "expected .xyz, .vtu or .vtk"),
    ] {
        let out = pbf(&["bench-search", path.to_str().unwrap(), "--radius", "0.1"]);
        assert_eq!(out.status.code(), Some(2), "{path:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(path.file_name().unwrap().to_str().unwrap()),
            "{err}"
        );
        assert!(err.contains(expect), "{err}");
        assert!(
            err.matches("os error").count() <= 1,
            "cause said once: {err}"
        );
        assert!(out.stdout.is_empty(), "nothing on stdout for bad input");
    }
}

#[test]
fn bad_options_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("never");
    let scene = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../configs/dam_break_small.toml"
    );
    for (args, expect) in [
        (
            &["bench-search", "--lattice", "4", "--radius", "-1"][..],
            "--radius must be positive, got -1",
        ),
        (
            &["bench-search", "--lattice", "4", "--jitter", "-0.5"],
            "--jitter must be >= 0",
        ),
        (&["bench-search", "--lattice", "0"], "--lattice"),
        (&["bench-search", "--column", "0"], "--column"),
        (
            &["bench-search", "--lattice", "4", "--column", "100"],
            "--column",
        ),
        (
            &["bench-search", "--lattice", "4", "--threads", "0"],
            "--threads",
        ),
        (&["bench-search"], "<POINTS>"),
        (
            &[
                "run",
                scene,
                "--until",
                "-1",
                "-o",
                out_dir.to_str().unwrap(),
            ],
            "--until must be >= 0, got -1",
        ),
        (
            &[
                "compare",
                scene,
                "--steps",
                "0",
                "-o",
                out_dir.to_str().unwrap(),
            ],
            "0 steps",
        ),
        (
            &[
                "validate",
                "--tolerance",
                "-1",
                "-o",
                out_dir.to_str().unwrap(),
            ],
            "--tolerance must be >= 0, got -1",
        ),
    ] {
        let out = pbf(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(expect),
            "{args:?}: expected '{expect}' in: {err}"
        );
        assert!(!out_dir.exists(), "{args:?} wrote output");
    }
}
