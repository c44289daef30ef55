//! The checkpoint file: versioned, checksummed, written whole or not at all, the last two kept.
//!
//! Owns: the layout, [`write()`], [`read()`], [`checkpoint_name`], [`latest_checkpoint`] and their
//! errors. Does not touch: what the state means (the solver and the run restore it).
//!
//! Layout (little-endian): the magic `PBFSTATE`, the format version (u32), the header's length
//! (u64) and the header (JSON: scene name and key, step, time, inflow, run bookkeeping), the
//! particle count n (u64), positions (n × 3 f32), velocities (n × 3 f32), ids (n u32), the
//! vorticity confinement's swirl of the last step (n f32; version 2 on, a version 1 file reads
//! as zeros), and a CRC-32 of every byte before it. Floats are stored bit for bit (the header's f64 time as its bits). A file that is short, has another magic or version, or
//! whose checksum does not match is refused.

use super::{Checkpoint, RunState, SolverState};
use crate::inflow::InflowState;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"PBFSTATE";
/// The format version this code writes and reads.
pub const VERSION: u32 = 2;
/// The oldest version this code reads (version 1 has no swirl: it reads as zeros).
const OLDEST: u32 = 1;

/// Why a checkpoint cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("{path}: cannot read the checkpoint")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a pbf checkpoint")]
    NotACheckpoint { path: PathBuf },
    #[error(
        "{path}: checkpoint format version {found}, this pbf reads versions {OLDEST} to {VERSION}"
    )]
    Version { path: PathBuf, found: u32 },
    #[error("{path}: the checkpoint is truncated ({len} bytes; its header says {want})")]
    Truncated { path: PathBuf, len: u64, want: u64 },
    #[error("{path}: the checkpoint is corrupt (checksum {found:08x}, stored {stored:08x})")]
    Corrupt {
        path: PathBuf,
        found: u32,
        stored: u32,
    },
    #[error("{path}: the checkpoint's header is unreadable: {message}")]
    Header { path: PathBuf, message: String },
}

/// The JSON header.
#[derive(Serialize, Deserialize)]
struct Header {
    scene_name: String,
    scene_key: serde_json::Value,
    steps: u64,
    /// The simulated time's bits (f64::to_bits): exact whatever a JSON reader does with floats.
    time_bits: u64,
    inflow: Option<InflowState>,
    run: RunState,
    /// What the positions are relative to (absent in files of builds before origins: 0).
    #[serde(default)]
    origin: [f32; 3],
}

/// The file name of the checkpoint taken after step `step`.
pub fn checkpoint_name(step: u64) -> String {
    format!("checkpoint_{step:09}.pbfck")
}

/// The checkpoints in `dir`, by step (oldest first).
fn checkpoints(dir: &Path) -> Vec<(u64, PathBuf)> {
    let mut found: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let step = name
                .strip_prefix("checkpoint_")?
                .strip_suffix(".pbfck")?
                .parse()
                .ok()?;
            Some((step, e.path()))
        })
        .collect();
    found.sort();
    found
}

/// The newest checkpoint in `dir`, if any.
pub fn latest_checkpoint(dir: &Path) -> Option<PathBuf> {
    checkpoints(dir).pop().map(|(_, p)| p)
}

/// Write `c` into `dir` as [`checkpoint_name`] of its step: through a temporary file, fsync
/// and rename, so the file is whole or absent; before it, all but the newest earlier
/// checkpoint are removed (so the last two are kept). Returns the path.
pub fn write(dir: &Path, c: &Checkpoint) -> std::io::Result<PathBuf> {
    let s = &c.solver;
    let header = Header {
        scene_name: c.scene_name.clone(),
        scene_key: c.scene_key.clone(),
        steps: s.steps,
        time_bits: s.time.to_bits(),
        inflow: s.inflow.clone(),
        run: c.run.clone(),
        origin: s.origin,
    };
    let json = serde_json::to_vec(&header).map_err(std::io::Error::other)?;
    let n = s.x.len();
    let mut bytes = Vec::with_capacity(8 + 4 + 8 + json.len() + 8 + n * 32 + 4);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.extend_from_slice(&(json.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&json);
    bytes.extend_from_slice(&(n as u64).to_le_bytes());
    for a in [&s.x, &s.v] {
        for p in a.iter() {
            for f in p {
                bytes.extend_from_slice(&f.to_le_bytes());
            }
        }
    }
    for id in &s.id {
        bytes.extend_from_slice(&id.to_le_bytes());
    }
    for w in &s.swirl {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    let path = dir.join(checkpoint_name(s.steps));
    // Keep the newest before writing the next: at most two exist at any moment, and one of
    // them is whole even if this process is killed half-way.
    let all = checkpoints(dir);
    for (_, old) in all.iter().take(all.len().saturating_sub(1)) {
        if *old != path {
            std::fs::remove_file(old)?;
        }
    }
    crate::io::write_atomic(&path, |tmp| {
        let mut f = std::fs::File::create(tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()
    })?;
    // The rename itself made durable.
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(path)
}

/// Read a checkpoint, refusing a truncated, corrupt or foreign file.
pub fn read(path: &Path) -> Result<Checkpoint, CheckpointError> {
    let p = || path.to_path_buf();
    let bytes = std::fs::read(path).map_err(|source| CheckpointError::Io { path: p(), source })?;
    let len = bytes.len() as u64;
    if bytes.len() < 12 || &bytes[..8] != MAGIC {
        return Err(CheckpointError::NotACheckpoint { path: p() });
    }
    let u32_at = |k: usize| u32::from_le_bytes(bytes[k..k + 4].try_into().unwrap());
    let u64_at = |k: usize| u64::from_le_bytes(bytes[k..k + 8].try_into().unwrap());
    let version = u32_at(8);
    if !(OLDEST..=VERSION).contains(&version) {
        return Err(CheckpointError::Version {
            path: p(),
            found: version,
        });
    }
    let truncated = |want: u64| CheckpointError::Truncated {
        path: p(),
        len,
        want,
    };
    if len < 20 {
        return Err(truncated(20));
    }
    let hlen = u64_at(12);
    let body = 20u64.saturating_add(hlen);
    if len < body.saturating_add(8) {
        return Err(truncated(body.saturating_add(12)));
    }
    let n = u64_at(body as usize);
    let want = body
        .saturating_add(8)
        .saturating_add(n.saturating_mul(if version >= 2 { 32 } else { 28 }))
        .saturating_add(4);
    if len != want {
        return Err(truncated(want));
    }
    let end = bytes.len() - 4;
    let (found, stored) = (crc32fast::hash(&bytes[..end]), u32_at(end));
    if found != stored {
        return Err(CheckpointError::Corrupt {
            path: p(),
            found,
            stored,
        });
    }
    let header: Header =
        serde_json::from_slice(&bytes[20..body as usize]).map_err(|e| CheckpointError::Header {
            path: p(),
            message: e.to_string(),
        })?;
    let n = n as usize;
    let f32_at = |k: usize| f32::from_le_bytes(bytes[k..k + 4].try_into().unwrap());
    let start = body as usize + 8;
    let vec3 = |base: usize| -> Vec<[f32; 3]> {
        (0..n)
            .map(|i| std::array::from_fn(|a| f32_at(base + 12 * i + 4 * a)))
            .collect()
    };
    let x = vec3(start);
    let v = vec3(start + 12 * n);
    let id = (0..n).map(|i| u32_at(start + 24 * n + 4 * i)).collect();
    let swirl = if version >= 2 {
        (0..n).map(|i| f32_at(start + 28 * n + 4 * i)).collect()
    } else {
        vec![0.0; n]
    };
    Ok(Checkpoint {
        scene_name: header.scene_name,
        scene_key: header.scene_key,
        solver: SolverState {
            steps: header.steps,
            time: f64::from_bits(header.time_bits),
            origin: header.origin,
            x,
            v,
            id,
            swirl,
            inflow: header.inflow,
        },
        run: header.run,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::summary::{Phases, Watch};
    use crate::scene::Format;

    fn sample(steps: u64) -> Checkpoint {
        let n = 1000;
        let f = |k: usize, a: usize| ((k * 7919 + a * 104729) % 10007) as f32 * 1.37e-3 - 3.1;
        Checkpoint {
            scene_name: "s".into(),
            scene_key: serde_json::json!({ "pbf": { "xsph": 0.01f32 } }),
            solver: SolverState {
                steps,
                // Not a short decimal: its bits must come back.
                time: 0.1 + 0.2 + steps as f64 * 0.002_000_000_094_994_9,
                origin: [1024.0, 0.0, -0.5],
                x: (0..n).map(|k| std::array::from_fn(|a| f(k, a))).collect(),
                v: (0..n)
                    .map(|k| std::array::from_fn(|a| -f(k, a + 3)))
                    .collect(),
                id: (0..n as u32).rev().collect(),
                swirl: (0..n).map(|k| f(k, 6).abs() * 1e-3).collect(),
                inflow: Some(InflowState {
                    progress: vec![3, 1],
                    added: 77,
                    shut: vec![false, true],
                }),
            },
            run: RunState {
                format: Format::Vtu,
                next_frame: 4,
                frames: vec![
                    (0.0, "frame_00000.vtu".into()),
                    (1.0 / 30.0, "frame_00001.vtu".into()),
                ],
                obstacle_frames: Vec::new(),
                particles_start: 900,
                particle_steps: 123_456,
                phases: Phases {
                    step: 1.0 / 3.0,
                    ..Phases::default()
                },
                counters: Default::default(),
                watch: Watch::new(0.01),
                fast_steps: 2,
                measures: vec![crate::io::energy::Measures {
                    time: 0.1,
                    particles: 900,
                    kinetic: 1.0 / 3.0,
                    potential: 2.0 / 7.0,
                    density_error_pct: 0.125,
                    density_max: 1001.5,
                    speed_mean: 0.2,
                    speed_max: 0.7,
                    top: 0.3,
                }],
                solve: crate::pressure::SolveTally {
                    solves: 3,
                    iterations: 9,
                    iterations_max: 3,
                    error_sum: 0.1 / 3.0,
                    error_max: 0.02,
                },
                forces: vec![crate::io::forces::ForceRow {
                    time: 0.1,
                    forces: vec![[1.0 / 3.0, -9.81e-7, 2.5e12], [0.0, -0.0, 7.0 / 9.0]],
                }],
                impulse: vec![[1e-300, -1.0 / 7.0, 3.0], [0.1, 0.2, 0.3]],
            },
        }
    }

    #[test]
    fn written_state_reads_back_bit_for_bit_and_two_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        for steps in [10, 20, 30] {
            let c = sample(steps);
            let path = write(dir.path(), &c).unwrap();
            assert_eq!(read(&path).unwrap(), c);
        }
        let left: Vec<u64> = checkpoints(dir.path()).iter().map(|c| c.0).collect();
        assert_eq!(left, vec![20, 30]);
        assert_eq!(
            latest_checkpoint(dir.path()).unwrap(),
            dir.path().join(checkpoint_name(30))
        );
    }

    #[test]
    fn a_version_1_file_reads_with_no_swirl() {
        let dir = tempfile::tempdir().unwrap();
        let c = sample(10);
        let path = write(dir.path(), &c).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        // Version 1: the same bytes without the swirl array, the checksum taken again.
        let n = c.solver.x.len();
        let swirl_at = bytes.len() - 4 - 4 * n;
        let mut old = bytes[..swirl_at].to_vec();
        old[8..12].copy_from_slice(&1u32.to_le_bytes());
        let crc = crc32fast::hash(&old);
        old.extend_from_slice(&crc.to_le_bytes());
        let v1 = dir.path().join("v1.pbfck");
        std::fs::write(&v1, &old).unwrap();
        let back = read(&v1).unwrap();
        assert_eq!(back.solver.x, c.solver.x);
        assert_eq!(back.solver.id, c.solver.id);
        assert_eq!(back.solver.swirl, vec![0.0; n]);
        // A version from the future is refused by name.
        old[8..12].copy_from_slice(&(VERSION + 1).to_le_bytes());
        std::fs::write(&v1, &old).unwrap();
        let e = read(&v1).unwrap_err().to_string();
        assert!(e.contains("version 3"), "{e}");
    }

    #[test]
    fn every_damaged_byte_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), &sample(5)).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let bad = dir.path().join("bad.pbfck");
        // Any single flipped bit, in the header, the arrays or the checksum.
        for k in (0..bytes.len()).step_by(97) {
            let mut b = bytes.clone();
            b[k] ^= 1 << (k % 8);
            std::fs::write(&bad, &b).unwrap();
            assert!(
                read(&bad).is_err(),
                "a flipped bit at byte {k} was accepted"
            );
        }
        // Any truncation.
        for len in [0, 7, 12, 19, 30, bytes.len() / 2, bytes.len() - 1] {
            std::fs::write(&bad, &bytes[..len]).unwrap();
            assert!(read(&bad).is_err(), "{len} bytes accepted");
        }
    }
}
