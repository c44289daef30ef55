//! Checkpoints as a user meets them: a run killed (SIGKILL) or interrupted (SIGINT) and resumed
//! from its last checkpoint writes frames and series byte for byte equal to an uninterrupted
//! run's, also when the resumed part runs on another thread count, for the small dam break and
//! for a scene with an emitter and a moving wall; truncated, bit-flipped and foreign checkpoints
//! are refused (exit 2) without touching the output folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn pbf(args: &[&str]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_pbf"))
        .current_dir(root())
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).to_string() + &String::from_utf8_lossy(&o.stdout),
    )
}

/// The frames, obstacle surfaces and series files of a run folder (name -> bytes).
fn outputs(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let keep = name.starts_with("frame_")
                || name.starts_with("obstacles_")
                || name.ends_with(".pvd")
                || name.ends_with(".series")
                || name == "energy.csv"
                || name == "forces.csv";
            keep.then(|| (name, std::fs::read(e.path()).unwrap()))
        })
        .collect()
}

fn all_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().to_string(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

fn checkpoints(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pbfck"))
        .collect();
    v.sort();
    v
}

/// Start `pbf run scene --checkpoint-every every` into `dir`; once a checkpoint of at least
/// step `after` exists, send `signal` (KILL or INT) and wait for the process to end.
fn run_and_stop(scene: &str, steps: &str, dir: &Path, every: &str, after: u64, signal: &str) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbf"))
        .current_dir(root())
        .args(["run", scene, "--steps", steps, "--quiet", "--threads", "2"])
        .args(["--checkpoint-every", every, "-o", dir.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    loop {
        let reached = dir.exists()
            && checkpoints(dir).iter().any(|p| {
                let s = p.file_stem().unwrap().to_string_lossy();
                s.trim_start_matches("checkpoint_").parse::<u64>().unwrap() >= after
            });
        if reached {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "{scene} ended before step {after}"
        );
        assert!(t.elapsed() < Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(5));
    }
    let ok = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let code = child.wait().unwrap().code();
    match signal {
        "KILL" => assert_eq!(code, None, "{scene}: killed"),
        _ => assert_eq!(code, Some(130), "{scene}: interrupted"),
    }
}

/// A small tank with a nozzle pouring in from the left, a paddle sliding at 1 m/s and a block
/// dropped later: everything a checkpoint must carry beyond positions and velocities.
const INFLOW_AND_PADDLE: &str = r#"
name = "inflow_paddle"
[tank]
min = [0.0, 0.0, 0.0]
max = [1.2, 0.8, 0.4]
[[fluid]]
min = [0.6, 0.0, 0.0]
max = [1.2, 0.2, 0.4]
[[fluid]]
min = [0.8, 0.5, 0.1]
max = [1.0, 0.7, 0.3]
start = 0.12
[[emitter]]
shape = "rect"
center = [0.1, 0.5, 0.2]
direction = [1.0, -0.3, 0.0]
size = [0.15, 0.1]
speed = 1.5
end = 0.5
[[obstacle]]
shape = "box"
center = [1.1, 0.2, 0.2]
half_extents = [0.02, 0.2, 0.19]
motion = { type = "sine", amplitude = [0.08, 0.0, 0.0], period = 0.5 }
[particles]
radius = 0.0125
[time]
dt = 0.002
end = 0.4
[output]
fps = 100.0
"#;

#[test]
fn a_killed_or_interrupted_run_resumed_writes_the_uninterrupted_frames() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let paddle = t.join("inflow_paddle.toml");
    std::fs::write(&paddle, INFLOW_AND_PADDLE).unwrap();
    let paddle = paddle.to_str().unwrap().to_string();
    // Each run is stopped soon after its checkpoint at step `after`, well before its end (a slow
    // machine has about a second to see the checkpoint appear).
    for (scene, steps, every, after) in [
        ("configs/dam_break_small.toml", "300", "10", 50),
        (paddle.as_str(), "300", "7", 70),
    ] {
        let whole = t.join("whole");
        let (code, text) = pbf(&[
            "run",
            scene,
            "--steps",
            steps,
            "--quiet",
            "-o",
            whole.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{text}");
        let reference = outputs(&whole);
        assert!(reference.len() > 10);
        for (signal, threads) in [("KILL", "1"), ("KILL", "2"), ("INT", "1")] {
            let dir = t.join(format!("part_{signal}_{threads}"));
            run_and_stop(scene, steps, &dir, every, after, signal);
            let last = checkpoints(&dir).pop().expect("a checkpoint");
            let (code, text) = pbf(&[
                "run",
                scene,
                "--steps",
                steps,
                "--quiet",
                "--threads",
                threads,
                "--resume",
                last.to_str().unwrap(),
                "-o",
                dir.to_str().unwrap(),
            ]);
            assert_eq!(code, Some(0), "{scene} {signal} {threads}: {text}");
            let resumed = outputs(&dir);
            assert_eq!(
                resumed.keys().collect::<Vec<_>>(),
                reference.keys().collect::<Vec<_>>(),
                "{scene} {signal} {threads}"
            );
            for (name, bytes) in &reference {
                assert!(
                    resumed[name] == *bytes,
                    "{scene}, {signal}, resumed on {threads} threads from {}: {name} differs",
                    last.display()
                );
            }
            // At most the two newest checkpoints are kept.
            assert!(checkpoints(&dir).len() <= 2);
            std::fs::remove_dir_all(&dir).unwrap();
        }
        std::fs::remove_dir_all(&whole).unwrap();
    }
}

#[test]
fn damaged_or_foreign_checkpoints_are_refused_and_nothing_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let d = dir.to_str().unwrap();
    let small = "configs/dam_break_small.toml";
    let (code, text) = pbf(&[
        "run",
        small,
        "--steps",
        "40",
        "--checkpoint-every",
        "20",
        "--quiet",
        "-o",
        d,
    ]);
    assert_eq!(code, Some(0), "{text}");
    let good = checkpoints(&dir).pop().unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let truncated = tmp.path().join("truncated.pbfck");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let flipped = tmp.path().join("flipped.pbfck");
    let mut b = bytes.clone();
    let k = b.len() - 1000;
    b[k] ^= 0x10;
    std::fs::write(&flipped, &b).unwrap();
    let not_one = tmp.path().join("scene.pbfck");
    std::fs::copy(root().join(small), &not_one).unwrap();
    let missing = tmp.path().join("checkpoint_000000099.pbfck");
    let before = all_files(&dir);
    for (ck, sets, expect) in [
        (&truncated, vec![], "the checkpoint is truncated"),
        (&flipped, vec![], "the checkpoint is corrupt"),
        (&not_one, vec![], "not a pbf checkpoint"),
        (
            &good,
            vec!["--set", "pbf.xsph=0.02"],
            "the checkpoint is of another scene (only time.end, output and name may change): pbf.xsph: 0.01 then, 0.02 now",
        ),
        (
            &good,
            vec!["--set", "particles.radius=0.02"],
            "particles.radius",
        ),
        (
            &good,
            vec!["--format", "vtk"],
            "resume it with --format vtu",
        ),
        (&good, vec!["--until", "0.16"], "nothing to do"),
        (&missing, vec![], "cannot read the checkpoint: No such file"),
    ] {
        let mut args = vec!["run", small, "--quiet", "-o", d];
        args.extend(["--resume", ck.to_str().unwrap()]);
        if !sets.contains(&"--until") {
            args.extend(["--steps", "80"]);
        }
        args.extend(sets.iter().copied());
        let (code, text) = pbf(&args);
        assert_eq!(code, Some(2), "{expect}: {text}");
        assert!(text.contains(expect), "expected '{expect}' in: {text}");
        // The cause once, not repeated by the error chain.
        assert_eq!(
            text.matches("os error").count(),
            text.contains("os error") as usize,
            "{text}"
        );
        assert!(
            all_files(&dir) == before,
            "{expect}: the output folder changed"
        );
    }
    // What may change: the end time and the output rate.
    let (code, text) = pbf(&[
        "run",
        small,
        "--steps",
        "60",
        "--set",
        "output.fps=60",
        "--quiet",
        "-o",
        d,
        "--resume",
        good.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{text}");
}
