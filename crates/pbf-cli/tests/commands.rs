//! The simulation commands as a user runs them from the repository root: `pbf run` frames (the
//! same for 1 and 2 threads, read back by vtkio, series files), interrupts (exit 130 with whole
//! frames and summaries), write failures, `pbf compare`, `pbf scaling` and `pbf validate`.

use std::path::Path;

/// The workspace root: scenes are named as a user names them from there.
fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn run_cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pbf"))
        .current_dir(root())
        .args(args)
        .output()
        .unwrap()
}

/// Run `pbf args`, send it SIGINT once `ready` accepts a line it wrote to stderr (`ready` sees
/// every line until then, and may also wait, e.g. for a file), and return its exit code and all
/// it wrote to stderr.
fn interrupted(args: &[&str], mut ready: impl FnMut(&str) -> bool) -> (Option<i32>, String) {
    use std::io::{BufRead, Read};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pbf"))
        .current_dir(root())
        .args(args)
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        assert!(
            err.read_line(&mut line).unwrap() > 0,
            "ended before it was interrupted:\n{seen}"
        );
        seen += &line;
        if ready(&line) {
            break;
        }
    }
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    err.read_to_string(&mut seen).unwrap();
    (child.wait().unwrap().code(), seen)
}

#[test]
fn frames_are_identical_for_1_and_2_threads_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut outs = Vec::new();
    for (t, fmt) in [("1", "vtu"), ("2", "vtu"), ("2", "vtk")] {
        let out = dir.path().join(format!("t{t}{fmt}"));
        let o = run_cli(&[
            "run",
            "configs/dam_break_small.toml",
            "--steps",
            "40",
            "--threads",
            t,
            "--format",
            fmt,
            "--quiet",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        outs.push(out);
    }
    // 40 steps of 4 ms at 30 fps: frames at t = 0 and every ~33 ms, 5 in all.
    for k in 0..5 {
        let name = format!("frame_{k:05}.vtu");
        let a = std::fs::read(outs[0].join(&name)).unwrap();
        let b = std::fs::read(outs[1].join(&name)).unwrap();
        assert!(a == b, "{name} differs between 1 and 2 threads");
    }
    assert!(!outs[0].join("frame_00005.vtu").exists());
    // A shorter rerun into the same folder leaves no frames of the first run behind.
    let o = run_cli(&[
        "run",
        "configs/dam_break_small.toml",
        "--steps",
        "10",
        "--quiet",
        "-o",
        outs[0].to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert!(outs[0].join("frame_00001.vtu").exists() && !outs[0].join("frame_00002.vtu").exists());
    let o = run_cli(&[
        "run",
        "configs/dam_break_small.toml",
        "--steps",
        "40",
        "--quiet",
        "-o",
        outs[0].to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let pvd = std::fs::read_to_string(outs[0].join("dam_break_small.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 5);
    // Legacy frames are listed in ParaView's JSON file series (its .pvd reader cannot read them),
    // with the same times as the .vtu run's .pvd.
    let series = std::fs::read_to_string(outs[2].join("dam_break_small.vtk.series")).unwrap();
    let series: serde_json::Value = serde_json::from_str(&series).unwrap();
    assert_eq!(series["file-series-version"], "1.0");
    let files = series["files"].as_array().unwrap();
    assert_eq!(files.len(), 5);
    for (k, f) in files.iter().enumerate() {
        assert_eq!(f["name"], format!("frame_{k:05}.vtk"));
        let t = format!("timestep=\"{:.6}\"", f["time"].as_f64().unwrap());
        assert!(pvd.contains(&t), "{t} not in the .pvd");
    }
    assert!(!outs[2].join("dam_break_small.pvd").exists());
    // Read back with vtkio: count and arrays.
    for path in [
        outs[0].join("frame_00004.vtu"),
        outs[2].join("frame_00004.vtk"),
    ] {
        let vtk = vtkio::Vtk::import(&path).unwrap();
        let vtkio::model::DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
            panic!("not a grid")
        };
        let vtkio::model::Piece::Inline(p) = &pieces[0] else {
            panic!("not inline")
        };
        assert_eq!(p.num_points(), 6859, "{path:?}");
        let names: Vec<String> = p
            .data
            .point
            .iter()
            .map(|a| match a {
                vtkio::model::Attribute::DataArray(d) => d.name.clone(),
                vtkio::model::Attribute::Field { name, .. } => name.clone(),
            })
            .collect();
        for want in ["id", "velocity", "density", "vorticity", "neighbors"] {
            assert!(
                names.iter().any(|n| n == want),
                "{path:?} lacks {want}: {names:?}"
            );
        }
        let pts = pbf::io::points::read_points(&path).unwrap();
        assert!(pts.iter().all(|q| q.is_finite()));
    }
    // The .vtu (written by our XML writer) holds exactly what vtkio's own legacy writer put in
    // the .vtk of the same frame (the 2-thread runs are the same simulation): points, every
    // point array and the cells, value for value, read back by vtkio.
    for k in 0..5 {
        let a = grid_contents(&outs[1].join(format!("frame_{k:05}.vtu")));
        let b = grid_contents(&outs[2].join(format!("frame_{k:05}.vtk")));
        assert_eq!(a.0.len(), 3 * 6859);
        assert_eq!(a, b, "frame {k}: .vtu and .vtk differ");
    }
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(outs[1].join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["particles"], 6859);
    assert_eq!(summary["steps"], 40);
    assert_eq!(summary["frames"], 5);
    assert_eq!(summary["threads"], 2);
    assert_eq!(summary["cpu"], pbf::experiments::bench_search::cpu_name());
    for k in ["construction", "search", "behavior", "output", "step"] {
        assert!(summary["phases_ms"][k]["mean"].as_f64().unwrap() >= 0.0);
    }
    // The density solve and the forces are parts of the behavior, both timed.
    let ms = |k: &str| summary["phases_ms"][k]["total"].as_f64().unwrap();
    assert!(ms("density_solve") > 0.0 && ms("forces") > 0.0);
    assert!(ms("density_solve") + ms("forces") <= ms("behavior"));
    // No obstacles: no collision passes, nothing timed.
    assert_eq!(summary["phases_ms"]["collisions"]["total"], 0.0);
    assert!(summary["watch"]["obstacle_clearance_m"].is_null());
    assert!(summary["counters"]["neighbors"].as_u64().unwrap() > 40 * 6859);
}

#[test]
fn an_interrupted_run_writes_its_queued_frames_and_summary_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // Far more steps than the test waits for (~3.5 ms each): only the interrupt ends it. The
    // header comes once interrupts are caught; interrupt when frame 3 is on disk.
    let out_arg = out.to_str().unwrap();
    let args = [
        "run",
        "configs/dam_break_small.toml",
        "--steps",
        "20000",
        "-o",
        out_arg,
    ];
    let (code, stderr) = interrupted(&args, |_| {
        let started = std::time::Instant::now();
        while !out.join("frame_00003.vtu").exists() {
            assert!(
                started.elapsed().as_secs() < 120,
                "no frame 3 after 2 minutes"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        true
    });
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("interrupted after step"), "{stderr}");

    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["interrupted"], true);
    assert_eq!(summary["steps_planned"], 20000);
    let steps = summary["steps"].as_u64().unwrap();
    assert!((9..20000).contains(&steps), "{steps} steps");
    // Every frame due by the last step is on disk, whole, and listed: none was lost in the
    // writer's queue. Frames fall every 1/30 s from t = 0.
    let t = summary["sim_time_s"].as_f64().unwrap();
    assert!((t - steps as f64 * 0.004).abs() < 1e-6, "t = {t}");
    let due = (t * 30.0 + 1e-6).floor() as usize + 1;
    assert_eq!(summary["frames"], due as u64);
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut want: Vec<String> = (0..due).map(|k| format!("frame_{k:05}.vtu")).collect();
    want.extend([
        "dam_break_small.pvd".into(),
        "summary.json".into(),
        "energy.csv".into(),
        "energy.svg".into(),
        "forces.csv".into(),
        "forces.svg".into(),
    ]);
    want.sort();
    assert_eq!(names, want, "files left in the output folder");
    // One whole row per frame time, and the last look at the end if it fell between frames.
    let csv = std::fs::read_to_string(out.join("energy.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert!((due..=due + 1).contains(&rows.len()), "{} rows", rows.len());
    assert!(rows.iter().all(|r| r.split(',').count() == 10), "{csv}");
    let pvd = std::fs::read_to_string(out.join("dam_break_small.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), due);
    for k in 0..due {
        let pts = pbf::io::points::read_points(&out.join(format!("frame_{k:05}.vtu"))).unwrap();
        assert_eq!(pts.len(), 6859, "frame {k}");
    }
}

#[test]
fn an_interrupted_compare_reports_the_steps_done_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let args = [
        "compare",
        "configs/dam_break_small.toml",
        "--steps",
        "20000",
        "-o",
        out,
    ];
    // After the header, let it run a few dozen steps.
    let (code, rest) = interrupted(&args, |_| {
        std::thread::sleep(std::time::Duration::from_millis(300));
        true
    });
    assert_eq!(code, Some(130), "{rest}");
    assert!(rest.contains("interrupted after step"), "{rest}");
    let j: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("compare.json")).unwrap()).unwrap();
    assert_eq!(j["interrupted"], true);
    let steps = j["steps"].as_u64().unwrap();
    assert!((1..20000).contains(&steps), "{steps}");
    // The CSV holds exactly the steps the tables cover.
    assert_eq!(
        csv_rows(&dir.path().join("compare.csv")).len() as u64,
        steps
    );
}

#[test]
fn an_interrupted_validation_reports_the_runs_that_finished() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    // Each run announces itself; interrupt once the second (finer, longer) one has started.
    let mut starts = 0;
    let (code, rest) = interrupted(&["validate", "--radii", "0.01,0.005", "-o", out], |l| {
        starts += l.contains(" steps of ") as usize;
        starts == 2
    });
    assert_eq!(code, Some(130), "{rest}");
    assert!(rest.contains("1 of 2 runs finished"), "{rest}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("validation.json")).unwrap())
            .unwrap();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["radius"], 0.01);
    let rows = csv_rows(&dir.path().join("validation.csv"));
    assert!(!rows.is_empty() && rows.iter().all(|r| r["radius"] == 0.01));
}

#[test]
fn a_write_failure_stops_the_run_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    // A file where the output folder should be: the user's -o is wrong (exit 2, before
    // anything runs).
    let blocker = dir.path().join("out");
    std::fs::write(&blocker, "not a folder").unwrap();
    let o = run_cli(&[
        "run",
        "configs/dam_break_small.toml",
        "--steps",
        "2",
        "--quiet",
        "-o",
        blocker.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is a file, not a folder"));
    // A directory where frame 1 should go: frame 0 is written, frame 1 fails (even as root).
    let out = dir.path().join("frames");
    std::fs::create_dir_all(out.join("frame_00001.vtu")).unwrap();
    let o = run_cli(&[
        "run",
        "configs/dam_break_small.toml",
        "--steps",
        "30",
        "--quiet",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("writing frame 1"), "{err}");
    // The frame already written is whole; no temporary file is left behind.
    assert_eq!(
        pbf::io::points::read_points(&out.join("frame_00000.vtu"))
            .unwrap()
            .len(),
        6859
    );
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".part"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}
/// The rows of a CSV file as maps from header to value.
fn csv_rows(path: &std::path::Path) -> Vec<std::collections::HashMap<String, f64>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            head.iter()
                .zip(l.split(','))
                .map(|(h, v)| (h.to_string(), v.parse::<f64>().unwrap()))
                .collect()
        })
        .collect()
}

#[test]
fn compare_times_both_modes_on_the_simulation_pbf_run_makes() {
    let dir = tempfile::tempdir().unwrap();
    let (cmp, run) = (dir.path().join("cmp"), dir.path().join("run"));
    let out = run_cli(&[
        "compare",
        "configs/dam_break_small.toml",
        "--steps",
        "6",
        "--quiet",
        "-o",
        cmp.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    for s in [
        "Table 1",
        "Table 2",
        "(1) Uniform grid",
        "(2) AABB pruning",
        "identical",
    ] {
        assert!(stdout.contains(s), "{s} missing from:\n{stdout}");
    }
    let rows = csv_rows(&cmp.join("compare.csv"));
    assert_eq!(rows.len(), 6);
    for r in &rows {
        assert_eq!(r["unpruned_neighbors"], r["pruned_neighbors"]);
        assert!(r["pruned_candidates"] < r["unpruned_candidates"], "{r:?}");
        assert!(r["pruned_cells_pruned"] > 0.0 && r["unpruned_cells_pruned"] == 0.0);
        assert_eq!(r["unpruned_cells_visited"], r["pruned_cells_visited"]);
    }
    let svg = std::fs::read_to_string(cmp.join("compare.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("search target particles"));
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cmp.join("compare.json")).unwrap()).unwrap();
    assert_eq!(j["identical"], true);
    assert_eq!(j["steps"], 6);
    assert_eq!(j["cpu"], pbf::experiments::bench_search::cpu_name());

    // Timing the second mode must not change the simulation: pbf run, pruned, finds the same
    // neighbors step for step (their sum is in its summary).
    let out = run_cli(&[
        "run",
        "configs/dam_break_small.toml",
        "--steps",
        "6",
        "--format",
        "none",
        "--quiet",
        "-o",
        run.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    let total: f64 = rows.iter().map(|r| r["pruned_neighbors"]).sum();
    assert_eq!(s["counters"]["neighbors"].as_f64().unwrap(), total);
    let cand: f64 = rows.iter().map(|r| r["pruned_candidates"]).sum();
    assert_eq!(s["counters"]["candidates"].as_f64().unwrap(), cand);
    // And it looks at the state as the run does: the same energy.csv and watch.
    assert_eq!(
        std::fs::read(cmp.join("energy.csv")).unwrap(),
        std::fs::read(run.join("energy.csv")).unwrap()
    );
    assert_eq!(j["watch"], s["watch"]);
}

/// A scene that starts empty and fills from a nozzle: the header gives the start count and the
/// most the schedule can add (the figure `pbf check` gives), and compare.json the count searched
/// in the last step, which the nozzle has raised from 0.
#[test]
fn compare_of_an_inflow_scene_reports_its_counts() {
    let dir = tempfile::tempdir().unwrap();
    let scene = "configs/paper_3_plates_small.toml";
    let check = run_cli(&["check", scene]);
    let check = String::from_utf8_lossy(&check.stdout);
    let most: u64 = check
        .split("up to ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no final count in:\n{check}"));
    let out = dir.path().to_str().unwrap();
    let out = run_cli(&["compare", scene, "--steps", "40", "--quiet", "-o", out]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let header = format!("0 particles at the start, up to {most} with inflow");
    assert!(stdout.contains(&header), "{header} missing from:\n{stdout}");
    let j: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("compare.json")).unwrap()).unwrap();
    assert_eq!(j["particles"], 0);
    let end = j["particles_end"].as_u64().unwrap();
    assert!(0 < end && end < most, "{end} of {most}");
}

#[test]
fn scaling_reaches_each_size_with_each_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_cli(&[
        "scaling",
        "configs/dam_break_small.toml",
        "--particles",
        "2000,12000",
        "--threads",
        "1,2",
        "--steps",
        "2",
        "--quiet",
        "-o",
        dir.path().to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = csv_rows(&dir.path().join("scaling.csv"));
    assert_eq!(rows.len(), 4);
    for (r, (target, threads)) in
        rows.iter()
            .zip([(2000.0, 1.0), (2000.0, 2.0), (12000.0, 1.0), (12000.0, 2.0)])
    {
        let n = r["particles"];
        assert!(
            (n / target - 1.0).abs() < 0.2,
            "{n} particles for a target of {target}"
        );
        assert_eq!(r["threads"], threads);
        assert!(r["step_ms"] > 0.0);
        // The kernel radius keeps its ratio to r, so the neighbor count stays near the
        // reference scene's (about 30, fewer in a small block with more surface).
        assert!((15.0..40.0).contains(&r["neighbors"]), "{r:?}");
    }
    assert!(
        std::fs::read_to_string(dir.path().join("scaling.svg"))
            .unwrap()
            .starts_with("<svg")
    );

    // Interrupted during the second, large size: the first size's rows are written, exit 130.
    let part = tempfile::tempdir().unwrap();
    let args = [
        "scaling",
        "configs/dam_break_small.toml",
        "--particles",
        "2000,300000",
        "--threads",
        "1,2",
        "--steps",
        "20",
        "-o",
        part.path().to_str().unwrap(),
    ];
    let (code, rest) = interrupted(&args, |l| l.contains("2 threads:"));
    assert_eq!(code, Some(130), "{rest}");
    let rows = csv_rows(&part.path().join("scaling.csv"));
    assert_eq!(rows.len(), 2, "{rest}");
    assert!(
        rows.iter()
            .all(|r| (r["particles"] / 2000.0 - 1.0).abs() < 0.2)
    );

    let bad = run_cli(&[
        "scaling",
        "configs/dam_break_small.toml",
        "--particles",
        "0",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    let bad = run_cli(&["compare", "configs/no_such_scene.toml", "--steps", "1"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no_such_scene.toml"));
}

/// Validation against experiment and theory, as a user runs it: `pbf validate` on the shipped
/// column (8,000 particles) puts the surge front at each of Martin & Moyce's (1952) 15 times
/// and Koshizuka & Oka's (1996) 8 between their measurement (less 5%) and the front of the
/// frictionless shallow-water solution (Ritter: `x = a + 2 sqrt(g 2a) t`, `Z = 1 + 2T`), and on
/// average ahead of the experiment by 0 to 15% (Koshizuka & Oka's: 0 to 20%): a model with a frictionless floor and no gate leads the measured front (measured:
/// +9.4% on average, as the finer resolutions of the earlier, under-filled column converged to,
/// docs/results.md), and writes the front of every step.
#[test]
fn column_collapse_front_matches_martin_and_moyce() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_cli(&[
        "validate",
        "--tolerance",
        "20",
        "--quiet",
        "-o",
        dir.path().to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("validation.json")).unwrap())
            .unwrap();
    let run = &v["runs"][0];
    // Every covered point of `experiment` (its `points_covered` must be `covered`) between the
    // measurement less 5% and Ritter's front, and the mean difference within `mean_range` %.
    let within = |experiment: &serde_json::Value,
                  covered: usize,
                  mean_range: std::ops::RangeInclusive<f64>| {
        let name = experiment["name"]
            .as_str()
            .unwrap_or("Martin & Moyce (1952)");
        assert_eq!(experiment["points_covered"], covered, "{name}\n{stdout}");
        let points = experiment["points"].as_array().unwrap();
        let mut signed = 0.0;
        for p in points {
            let (t, ze, zs) = (
                p["T"].as_f64().unwrap(),
                p["Z_experiment"].as_f64().unwrap(),
                p["Z_simulation"].as_f64().unwrap(),
            );
            assert!(
                zs >= 0.95 * ze,
                "{name}, T = {t}: front {zs} behind the experiment's {ze}\n{stdout}"
            );
            assert!(
                zs <= 1.0 + 2.0 * t,
                "{name}, T = {t}: front {zs} ahead of Ritter's\n{stdout}"
            );
            signed += p["difference_pct"].as_f64().unwrap();
        }
        let mean = signed / points.len() as f64;
        assert!(
            mean_range.contains(&mean),
            "{name}: mean difference {mean}%\n{stdout}"
        );
    };
    within(run, 15, 0.0..=15.0);
    // Koshizuka & Oka's repetition (1996, a column 14.6 cm wide): the same bounds; their front
    // runs slower late (dZ/dT about 1.2 against Martin & Moyce's 1.4), so the lead may be larger.
    within(&run["experiments"]["koshizuka_oka_1996"], 8, 0.0..=20.0);
    let rows = csv_rows(&dir.path().join("validation.csv"));
    assert!(rows.iter().all(|r| r["radius"] == 0.005));
    // The front after every step to T = 3.4 (t = 0.34 s at dt = 1 ms), moving only forward
    // from the column's width.
    assert!(rows.len() > 300, "{} rows", rows.len());
    assert_eq!((rows[0]["T"], rows[0]["Z"]), (0.0, 1.0));
    assert!(rows.windows(2).all(|w| w[1]["T"] > w[0]["T"]));
    assert!(rows.last().unwrap()["Z"] > 4.0);
    assert!(
        std::fs::read_to_string(dir.path().join("validation.svg"))
            .unwrap()
            .starts_with("<svg")
    );

    // A column that cannot collapse along the floor is bad input, named, and writes nothing.
    let empty = tempfile::tempdir().unwrap();
    let bad = run_cli(&[
        "validate",
        "--set",
        "physics.gravity=[-9.81, 0.0, 0.0]",
        "-o",
        empty.path().to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("martin_moyce.toml") && err.contains("gravity"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(empty.path()).unwrap().count(), 0);
    let bad = run_cli(&[
        "validate",
        "--radii",
        "0.005,0",
        "-o",
        empty.path().to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--radii"));
    assert_eq!(std::fs::read_dir(empty.path()).unwrap().count(), 0);
}

/// Points, point arrays (name, values as f64, components) and the cells (as per-cell vertex lists
/// with their types) of a frame, read by vtkio.
#[allow(clippy::type_complexity)]
fn grid_contents(
    path: &std::path::Path,
) -> (
    Vec<f64>,
    Vec<(String, Vec<f64>, u32)>,
    Vec<Vec<u64>>,
    Vec<vtkio::model::CellType>,
) {
    use vtkio::model::{Attribute, DataSet, ElementType, Piece, VertexNumbers};
    let vtk = vtkio::Vtk::import(path).unwrap();
    let DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        panic!("{path:?}: not an unstructured grid")
    };
    let Piece::Inline(p) = &pieces[0] else {
        panic!("{path:?}: not inline")
    };
    let mut arrays: Vec<(String, Vec<f64>, u32)> = p
        .data
        .point
        .iter()
        .map(|a| match a {
            Attribute::DataArray(d) => {
                let comps = match d.elem {
                    ElementType::Vectors => 3,
                    ElementType::Scalars { num_comp, .. } => num_comp,
                    ElementType::Generic(c) => c,
                    _ => 0,
                };
                (d.name.clone(), d.data.cast_into::<f64>().unwrap(), comps)
            }
            Attribute::Field { name, .. } => panic!("{path:?}: field {name}"),
        })
        .collect();
    arrays.sort_by(|a, b| a.0.cmp(&b.0));
    let cells: Vec<Vec<u64>> = match p.cells.cell_verts.clone() {
        VertexNumbers::XML {
            connectivity,
            offsets,
        } => {
            let mut start = 0;
            offsets
                .iter()
                .map(|&o| {
                    let c = connectivity[start as usize..o as usize].to_vec();
                    start = o;
                    c
                })
                .collect()
        }
        VertexNumbers::Legacy { vertices, .. } => {
            let mut out = Vec::new();
            let mut i = 0;
            while i < vertices.len() {
                let k = vertices[i] as usize;
                out.push(
                    vertices[i + 1..i + 1 + k]
                        .iter()
                        .map(|&v| v as u64)
                        .collect(),
                );
                i += 1 + k;
            }
            out
        }
    };
    (
        p.points.cast_into::<f64>().unwrap(),
        arrays,
        cells,
        p.cells.types.clone(),
    )
}

/// A scene with obstacles writes their surfaces as a series of its own beside the frames: one
/// triangle mesh per frame, at the frame's time (the paddle moves, the rest stays), readable by
/// vtkio; a rerun without obstacles into the same folder leaves none of them behind.
#[test]
fn obstacles_are_written_as_a_series_of_moving_surfaces() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("obs");
    let o = run_cli(&[
        "run",
        "configs/obstacles_small.toml",
        "--steps",
        "40",
        "--quiet",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Collision handling has its own timer: a share of the step, in the summary too.
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let ms = |k: &str| summary["phases_ms"][k]["total"].as_f64().unwrap();
    assert!(ms("collisions") > 0.0 && ms("collisions") < ms("step"));
    // The watch: particles kept about r from every obstacle at every frame time, inside the tank.
    let w = &summary["watch"];
    let r = w["radius_m"].as_f64().unwrap();
    assert!(w["obstacle_clearance_m"].as_f64().unwrap() > 0.5 * r, "{w}");
    assert!(w["tank_clearance_m"].as_f64().unwrap() > 0.0, "{w}");
    assert!(w["max_speed_m_s"].as_f64().unwrap() > 0.1, "{w}");
    let pvd = std::fs::read_to_string(out.join("obstacles_small_obstacles.pvd")).unwrap();
    let frames = std::fs::read_to_string(out.join("obstacles_small.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 5);
    assert_eq!(frames.matches("<DataSet").count(), 5);
    let mesh = |k: usize| {
        let vtk = vtkio::Vtk::import(out.join(format!("obstacles_{k:05}.vtu"))).unwrap();
        let vtkio::model::DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
            panic!("not a grid")
        };
        let vtkio::model::Piece::Inline(p) = &pieces[0] else {
            panic!("not inline")
        };
        assert!(
            p.cells
                .types
                .iter()
                .all(|t| *t == vtkio::model::CellType::Triangle)
        );
        let pts: Vec<f64> = p.points.cast_into().unwrap();
        (p.cells.types.len(), pts)
    };
    let (tri0, pts0) = mesh(0);
    let (tri4, pts4) = mesh(4);
    // Two boxes (12 each), a cylinder (4 x 32) and a sphere (2 x 16 x 32).
    assert_eq!(tri0, 12 + 128 + 1024 + 12);
    assert_eq!(tri4, tri0);
    // The paddle (the last 8 points) has moved in x; nothing else has.
    let n = pts0.len();
    assert_eq!(pts0[..n - 24], pts4[..n - 24]);
    assert!((0..8).all(|k| (pts0[n - 24 + 3 * k] - pts4[n - 24 + 3 * k]).abs() > 1e-3));
    // forces.csv: a line per obstacle and per wall at each frame time after the first and at
    // the end (0.16 s, between frames), finite, with its chart.
    let bodies = |path: &std::path::Path| -> Vec<String> {
        let text = std::fs::read_to_string(path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("time_s,body,fx_N,fy_N,fz_N"));
        lines
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                assert!(
                    f[2..].iter().all(|v| v.parse::<f64>().unwrap().is_finite()),
                    "{l}"
                );
                f[1].to_string()
            })
            .collect()
    };
    let names = bodies(&out.join("forces.csv"));
    assert_eq!(names.len(), 5 * (4 + 6), "{names:?}");
    let walls = [
        "wall_x_min",
        "wall_x_max",
        "wall_y_min",
        "wall_y_max",
        "wall_z_min",
        "wall_z_max",
    ];
    for (k, name) in names.iter().enumerate() {
        let want = match k % 10 {
            b @ 0..4 => format!("obstacle_{b}"),
            w => walls[w - 4].to_string(),
        };
        assert_eq!(*name, want);
    }
    assert!(out.join("forces.svg").exists());
    // A run of a scene without obstacles into the same folder removes them; its forces.csv
    // names the walls alone.
    let small_run = |sets: &[&str]| {
        let mut a = vec![
            "run",
            "configs/dam_break_small.toml",
            "--steps",
            "5",
            "--quiet",
        ];
        a.extend(sets);
        a.extend(["-o", out.to_str().unwrap()]);
        assert!(run_cli(&a).status.success());
    };
    small_run(&[]);
    assert!(!out.join("obstacles_00000.vtu").exists());
    let names = bodies(&out.join("forces.csv"));
    assert!(
        !names.is_empty() && names.iter().all(|n| n.starts_with("wall_")),
        "{names:?}"
    );
    // With `output.wall_forces = false` there is nothing to write.
    small_run(&["--set", "output.wall_forces=false"]);
    assert!(!out.join("forces.csv").exists() && !out.join("forces.svg").exists());
}

/// Output piped into a reader that stops early (`pbf check scene | head -1`): the command ends
/// as any Unix tool does (SIGPIPE), without a panic's message.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_a_command_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pbf"))
        .current_dir(root())
        .args(["check", "configs/dam_break_small.toml"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    // Ended by SIGPIPE (13), or done before the pipe closed.
    assert!(
        out.status.success() || out.status.signal() == Some(13),
        "{:?}: {err}",
        out.status
    );
}

/// Standard output that cannot be written (a full disk) ends a command with a message and
/// exit 1, not a panic; the run's files are complete (the report is printed after them).
#[cfg(target_os = "linux")]
#[test]
fn an_unwritable_stdout_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_pbf"))
        .current_dir(root())
        .args(["run", "configs/dam_break_small.toml", "--steps", "3", "-o"])
        .arg(&out)
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("cannot write to standard output"), "{err}");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["steps"], 3);
}

/// The small dam break moved 10 km along x: `pbf check` says the solver works relative to a
/// point near the tank, and the frames are in the scene's own coordinates (inside its tank).
#[test]
fn a_scene_far_from_the_origin_is_checked_and_written_in_its_own_coordinates() {
    let far = [
        "--set",
        "tank.min=[9998.0, 0.0, -0.75]",
        "--set",
        "tank.max=[10002.0, 3.0, 0.75]",
        "--set",
        "fluid.0.min=[9998.05, 0.05, -0.5]",
        "--set",
        "fluid.0.max=[9999.05, 1.05, 0.5]",
    ];
    let scene = "configs/dam_break_small.toml";
    let check = |extra: &[&str]| {
        let o = run_cli(&[&["check", scene][..], extra].concat());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    assert!(check(&far).contains("origin      [10000.0, 0.0, 0.0]"));
    assert!(!check(&[]).contains("origin "));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let run = [
        &["run", scene, "--steps", "10", "--quiet", "-o", out][..],
        &far,
    ]
    .concat();
    let o = run_cli(&run);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (points, ..) = grid_contents(&dir.path().join("frame_00001.vtu"));
    assert_eq!(points.len(), 6859 * 3);
    assert!(
        points
            .chunks(3)
            .all(|p| (9998.0..=10002.0).contains(&p[0]) && (0.0..=3.0).contains(&p[1])),
        "a point outside the tank"
    );
}
