//! The fluid split over MPI processes gives the one-process run, byte for byte (feature `mpi`;
//! needs `mpirun`, from Open MPI). `mpirun --oversubscribe`: more processes than cores is fine
//! for a check of equality.
#![cfg(feature = "mpi")]

use std::path::Path;
use std::process::Command;

fn pbf(dir: &Path, scene: &str, steps: u32) {
    let o = Command::new(env!("CARGO_BIN_EXE_pbf"))
        .args(["run", scene, "--quiet", "--threads", "2", "--steps"])
        .arg(steps.to_string())
        .arg("-o")
        .arg(dir)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `mpirun -np NP pbf run SCENE --steps STEPS -o DIR ...` from the repository root (as root
/// too), one thread per process.
fn mpirun_cmd(np: u32, dir: &Path, scene: &str, steps: u32, extra: &[&str]) -> Command {
    let mut c = Command::new("mpirun");
    c.args(["--oversubscribe", "-np", &np.to_string()])
        .arg(env!("CARGO_BIN_EXE_pbf"))
        .args(["run", scene, "--threads", "1", "--steps"])
        .arg(steps.to_string())
        .arg("-o")
        .arg(dir)
        .args(extra)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    c
}

fn mpirun(np: u32, dir: &Path, scene: &str, steps: u32, extra: &[&str]) {
    let o = mpirun_cmd(np, dir, scene, steps, &[extra, &["--quiet"]].concat())
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "mpirun -np {np} {scene}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Every frame, obstacle surface and series file of `one` has a byte-identical twin in `many`.
fn same_files(one: &Path, many: &Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(one).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if name.ends_with(".vtu") || name.ends_with(".pvd") || name == "forces.csv" {
            let a = std::fs::read(e.path()).unwrap();
            let b = std::fs::read(many.join(&name))
                .unwrap_or_else(|_| panic!("{name}: missing in the split run"));
            assert!(
                a == b,
                "{name} differs between one process and the split run"
            );
            n += 1;
        }
    }
    n
}

/// The scene `text` (written to a temporary folder, which is returned to keep it) run `steps`
/// steps on one process and, gathered, on `np`: the two output folders.
fn one_and_split(
    text: &str,
    np: u32,
    steps: u32,
) -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("scene.toml");
    std::fs::write(&scene, text).unwrap();
    let scene = scene.to_str().unwrap();
    let (one, many) = (dir.path().join("one"), dir.path().join("split"));
    pbf(&one, scene, steps);
    mpirun(np, &many, scene, steps, &["--gather"]);
    (dir, one, many)
}

#[test]
fn two_processes_write_the_one_process_frames_byte_for_byte() {
    // The dam break; an emitter with obstacles (the cylinders); a moving wall (the paddle).
    for (scene, steps) in [
        ("configs/dam_break_small.toml", 150),
        ("configs/paper_5_cylinders_small.toml", 150),
        ("configs/paper_4_wave_small.toml", 100),
    ] {
        let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        pbf(one.path(), scene, steps);
        mpirun(2, two.path(), scene, steps, &["--gather"]);
        let n = same_files(one.path(), two.path());
        assert!(n >= 10, "{scene}: only {n} files compared");
    }
}

#[test]
fn an_emitter_with_a_moving_obstacle_split_four_ways_is_the_one_process_run() {
    // The cylinders scene with its lower cylinder moving up and down through the jet.
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let text = std::fs::read_to_string(format!("{root}/configs/paper_5_cylinders_small.toml"))
        .unwrap()
        .replacen(
            "center = [1.5, 0.45, 0.675]",
            "center = [1.5, 0.45, 0.675]\nmotion = { type = \"sine\", amplitude = [0.0, 0.15, 0.0], period = 0.8 }",
            1,
        );
    assert!(text.contains("motion"));
    let (_dir, one, four) = one_and_split(&text, 4, 200);
    assert!(same_files(&one, &four) >= 40);
    let csv = |d: &Path| std::fs::read_to_string(d.join("energy.csv")).unwrap();
    assert!(csv(&one).lines().last().unwrap().contains(",") && csv(&one) == csv(&four));
}

#[test]
fn mirror_walls_split_three_ways_are_the_one_process_run() {
    // The dam break with the tank's walls as mirrors (their images are summed from each
    // particle's own list, ghosts included) at h = 5.4r, split across x: the
    // end processes hold the side walls, every process a stretch of the floor.
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let text = std::fs::read_to_string(format!("{root}/configs/dam_break_small.toml"))
        .unwrap()
        .replacen("[pbf]", "[pbf]\nwalls = \"mirror\"", 1)
        .replacen("[particles]", "[particles]\nkernel_radius = 0.135", 1);
    assert!(text.contains("walls = \"mirror\"") && text.contains("0.135"));
    let (_dir, one, three) = one_and_split(&text, 3, 150);
    assert!(same_files(&one, &three) >= 10);
}

#[test]
fn a_block_appearing_over_water_split_across_x_skips_the_sites_one_process_skips() {
    // The slabs cut x (the tank's longest axis); the block appears over the pool's top two
    // layers, so about 400 of its 1,000 sites are taken and must be skipped, each decided by
    // the process that holds the water around it.
    let scene = "name = \"over\"\n\
        [tank]\nmin = [0.0, 0.0, 0.0]\nmax = [0.6, 0.3, 0.2]\n\
        [[fluid]]\nmin = [0.0, 0.0, 0.0]\nmax = [0.6, 0.1, 0.2]\n\
        [[fluid]]\nmin = [0.1, 0.06, 0.0]\nmax = [0.5, 0.16, 0.2]\nstart = 0.05\n\
        [particles]\nradius = 0.01\n[time]\ndt = 0.002\nend = 0.12\n[output]\nfps = 50\n";
    let (_dir, one, three) = one_and_split(scene, 3, 60);
    // The particle count at the last frame (energy.csv's second column).
    let end = |d: &Path| -> u64 {
        let csv = std::fs::read_to_string(d.join("energy.csv")).unwrap();
        let last = csv.lines().last().unwrap().to_string();
        last.split(',').nth(1).unwrap().parse().unwrap()
    };
    let added = end(&one) - 1500;
    assert!(
        (500..900).contains(&added),
        "the block added {added} of its 1000 sites"
    );
    assert_eq!(
        end(&three),
        end(&one),
        "particles at the end, split and not"
    );
    assert!(same_files(&one, &three) >= 8);
    // The exchange report is written with --quiet too (the helper passes it).
    assert!(three.join("mpi.json").exists(), "no mpi.json");
}

/// Positions and point arrays of a `.vtu` by particle id: (id, [x, y, z, arrays...]).
fn by_id(path: &Path) -> Vec<(u32, Vec<f64>)> {
    use vtkio::model::{Attribute, DataSet, Piece};
    let vtk = vtkio::Vtk::import(path).unwrap();
    let DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        panic!("{path:?}: not an unstructured grid")
    };
    let Piece::Inline(p) = &pieces[0] else {
        panic!("{path:?}: not inline")
    };
    let pts: Vec<f64> = p.points.cast_into::<f64>().unwrap();
    let n = pts.len() / 3;
    let mut arrays: Vec<(String, Vec<f64>)> = p
        .data
        .point
        .iter()
        .map(|a| match a {
            Attribute::DataArray(d) => (d.name.clone(), d.data.cast_into::<f64>().unwrap()),
            Attribute::Field { name, .. } => panic!("{path:?}: field {name}"),
        })
        .collect();
    arrays.sort_by(|a, b| a.0.cmp(&b.0));
    let ids = &arrays.iter().find(|a| a.0 == "id").unwrap().1;
    (0..n)
        .map(|i| {
            let mut v = pts[3 * i..3 * i + 3].to_vec();
            for (_, a) in &arrays {
                let c = a.len() / n;
                v.extend_from_slice(&a[c * i..c * i + c]);
            }
            (ids[i] as u32, v)
        })
        .collect()
}

#[test]
fn the_pieces_of_three_processes_hold_each_particle_once_with_the_one_process_values() {
    let scene = "configs/dam_break_small.toml";
    let (one, many) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    pbf(one.path(), scene, 60);
    mpirun(3, many.path(), scene, 60, &[]);
    // The series names the .pvtu files, each names its three pieces.
    let pvd = std::fs::read_to_string(many.path().join("dam_break_small.pvd")).unwrap();
    assert!(pvd.contains("frame_00000.pvtu") && pvd.contains("frame_00007.pvtu"));
    for k in [0usize, 7] {
        let pvtu = std::fs::read_to_string(many.path().join(format!("frame_{k:05}.pvtu"))).unwrap();
        let mut rows = Vec::new();
        for r in 0..3 {
            let piece = format!("frame_{k:05}_p{r}.vtu");
            assert!(pvtu.contains(&piece), "{pvtu}");
            rows.extend(by_id(&many.path().join(piece)));
        }
        rows.sort_by_key(|r| r.0);
        let whole = by_id(&one.path().join(format!("frame_{k:05}.vtu")));
        assert_eq!(rows.len(), whole.len(), "frame {k}: every particle once");
        for (a, b) in rows.iter().zip(&whole) {
            assert_eq!(a.0, b.0, "frame {k}: ids");
            assert_eq!(a.1, b.1, "frame {k}: particle {}", a.0);
        }
    }
}

#[test]
fn a_split_run_s_checkpoint_resumes_on_other_process_counts_as_one_process_would() {
    // An emitter's schedule and new ids are in the state too.
    let scene = "configs/paper_5_cylinders_small.toml";
    let one = tempfile::tempdir().unwrap();
    pbf(one.path(), scene, 120);
    let split = tempfile::tempdir().unwrap();
    mpirun(
        2,
        split.path(),
        scene,
        60,
        &["--gather", "--checkpoint-every", "60"],
    );
    let ck = split.path().join("checkpoint_000000060.pbfck");
    assert!(ck.exists(), "process 0 writes one ordinary checkpoint");
    // Resumed on three processes...
    let three = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(split.path()).unwrap().flatten() {
        std::fs::copy(e.path(), three.path().join(e.file_name())).unwrap();
    }
    mpirun(
        3,
        three.path(),
        scene,
        120,
        &["--gather", "--resume", ck.to_str().unwrap()],
    );
    assert!(same_files(one.path(), three.path()) >= 15);
    // ...and on one.
    let o = Command::new(env!("CARGO_BIN_EXE_pbf"))
        .args(["run", scene, "--quiet", "--steps", "120", "-o"])
        .arg(split.path())
        .arg("--resume")
        .arg(&ck)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(same_files(one.path(), split.path()) >= 15);
    // energy.csv: the split run sums its processes' sums (another order than one process's):
    // every row, every value within 1e-9 of the one-process run's.
    let csv = |d: &Path| -> Vec<Vec<f64>> {
        std::fs::read_to_string(d.join("energy.csv"))
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
            .collect()
    };
    let (a, b) = (csv(one.path()), csv(three.path()));
    assert_eq!(a.len(), b.len(), "one row per frame time and the end");
    for (ra, rb) in a.iter().zip(&b) {
        for (x, y) in ra.iter().zip(rb) {
            assert!(
                (x - y).abs() <= 1e-9 * x.abs().max(1.0),
                "{ra:?} against {rb:?}"
            );
        }
    }
}

#[test]
fn bad_input_under_mpirun_is_said_once_exits_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for extra in [
        // Pieces are .vtu.
        &["--format", "vtk"][..],
        // Three cell planes along the tank's length for four processes.
        &["--set", "particles.radius=0.4"][..],
    ] {
        let o = mpirun_cmd(4, &out, "configs/dam_break_small.toml", 5, extra)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert_eq!(
            err.matches("error:").count(),
            1,
            "{extra:?}: said once\n{err}"
        );
        assert!(err.contains("dam_break_small.toml"), "{err}");
        assert!(!out.exists(), "{extra:?}: nothing written");
    }
}

#[test]
fn an_interrupted_split_run_stops_all_processes_after_one_step_and_resumes_exactly() {
    let scene = "configs/dam_break_small.toml";
    let split = tempfile::tempdir().unwrap();
    let child = mpirun_cmd(
        2,
        split.path(),
        scene,
        100000,
        &["--quiet", "--gather", "--checkpoint-every", "100000"],
    )
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    // Once a few frames are out, interrupt mpirun as Ctrl-C would.
    let t0 = std::time::Instant::now();
    while !split.path().join("frame_00003.vtu").exists() {
        assert!(t0.elapsed().as_secs() < 120, "no frames");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    // Each process exits 130; mpirun, itself interrupted, reports its own failure code.
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("interrupted after step"), "{err}");
    let ck: Vec<_> = std::fs::read_dir(split.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pbfck"))
        .collect();
    assert_eq!(ck.len(), 1, "one checkpoint, at the step all stopped after");
    let name = ck[0].file_name().unwrap().to_string_lossy().to_string();
    let at: u32 = name[11..20].parse().unwrap();
    assert!(at > 0 && at < 100000, "{name}");
    // Going on to a little later gives the one-process run's files.
    let end = at + 20;
    mpirun(
        3,
        split.path(),
        scene,
        end,
        &["--gather", "--resume", ck[0].to_str().unwrap()],
    );
    let one = tempfile::tempdir().unwrap();
    pbf(one.path(), scene, end);
    assert!(same_files(one.path(), split.path()) >= 4);
}

#[test]
fn energy_put_into_a_closed_scene_is_said_once_and_reported_as_one_process_does() {
    // Vorticity confinement 100 times the default pumps the small dam break (faults.rs): split
    // two ways, process 0 warns once, and mpi.json's largest rise is the one-process summary's.
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    let extra = [
        "--set",
        "pbf.vorticity=1.0",
        "--set",
        "output.format=\"none\"",
    ];
    let o = Command::new(env!("CARGO_BIN_EXE_pbf"))
        .args([
            "run",
            "configs/dam_break_small.toml",
            "--quiet",
            "--steps",
            "250",
            "-o",
        ])
        .arg(&one)
        .args(extra)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = mpirun_cmd(
        2,
        &two,
        "configs/dam_break_small.toml",
        250,
        &[&extra[..], &["--quiet"]].concat(),
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(
        err.matches("nothing to put energy in").count(),
        1,
        "said once:\n{err}"
    );
    let read = |p: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
    };
    let (a, b) = (
        read(&one.join("summary.json"))["energy_gain"].clone(),
        read(&two.join("mpi.json"))["energy_gain"].clone(),
    );
    let (pa, pb) = (
        a["max_pct"].as_f64().unwrap(),
        b["max_pct"].as_f64().unwrap(),
    );
    assert!(pa > 5.0 && (pa - pb).abs() < 1e-6 * pa, "{a} against {b}");
    assert_eq!(a["time_s"], b["time_s"]);
}
