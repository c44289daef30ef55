//! Point clouds: generated jittered lattices and dam-break-like collapsing columns (for
//! benchmarks and tests), and `.xyz` point files (raw little-endian f32 triples, as splashsurf
//! reads them).
//!
//! Owns: generation of positions and the `.xyz` format. Does not touch: the grid or the search.

use glam::Vec3A;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::path::{Path, PathBuf};

/// A jittered cubic lattice: `n^3` points at `spacing`, each coordinate moved by a uniform offset
/// in `[-jitter, jitter]`, optionally shuffled (memory order unrelated to space). Deterministic
/// for a given `seed`.
pub fn jittered_lattice(
    n: usize,
    spacing: f32,
    jitter: f32,
    shuffle: bool,
    seed: u64,
) -> Vec<Vec3A> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut pts = Vec::with_capacity(n * n * n);
    for z in 0..n {
        for y in 0..n {
            for x in 0..n {
                let base = Vec3A::new(x as f32, y as f32, z as f32) * spacing;
                pts.push(base + jitter_vec(&mut rng, jitter));
            }
        }
    }
    if shuffle {
        pts.shuffle(&mut rng);
    }
    pts
}

/// A dam-break-like cloud: a lattice (spacing, jitter as above) filling a water column that has
/// started to collapse: full height `height` at the back wall (x = 0), a surface falling as
/// `height * (1 - (x / front)^2)` towards the front at `x = front`, then a thin sheet of
/// `3 * spacing` running along the floor to `x = 2 * front`; `depth` deep in z. Roughly `count`
/// points (the lattice is scaled to match).
pub fn collapsing_column(
    count: usize,
    spacing: f32,
    jitter: f32,
    shuffle: bool,
    seed: u64,
) -> Vec<Vec3A> {
    // Shape in units of `spacing`: front F, height H = F, depth D = F; volume about
    // (2/3) F^3 + 3 F * D = (2/3 + 3 / F) F^3 lattice cells.
    let f = ((count as f64) / (2.0 / 3.0 + 0.03)).cbrt();
    let f = f.max(2.0);
    let (front, height, depth) = (f, f, f);
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut pts = Vec::with_capacity(count + count / 8);
    let (nx, ny, nz) = ((2.0 * front) as usize, height as usize, depth as usize);
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let (xf, yf) = (x as f64 + 0.5, y as f64 + 0.5);
                let surface = if xf < front {
                    (height * (1.0 - (xf / front).powi(2))).max(3.0)
                } else {
                    3.0
                };
                if yf <= surface {
                    let base = Vec3A::new(x as f32, y as f32, z as f32) * spacing;
                    pts.push(base + jitter_vec(&mut rng, jitter));
                }
            }
        }
    }
    if shuffle {
        pts.shuffle(&mut rng);
    }
    pts
}

fn jitter_vec(rng: &mut Pcg64Mcg, jitter: f32) -> Vec3A {
    if jitter > 0.0 {
        Vec3A::new(
            rng.random_range(-jitter..=jitter),
            rng.random_range(-jitter..=jitter),
            rng.random_range(-jitter..=jitter),
        )
    } else {
        Vec3A::ZERO
    }
}

/// Why a point file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum XyzError {
    #[error("{path}: cannot read the point file")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path}: size {len} bytes is not a multiple of 12: expected raw little-endian f32 x y z triples"
    )]
    Size { path: PathBuf, len: u64 },
    #[error("{path}: point {index} is not finite ({value:?})")]
    NotFinite {
        path: PathBuf,
        index: usize,
        value: [f32; 3],
    },
}

/// Read positions from an `.xyz` file (raw little-endian f32 triples); every point must be
/// finite.
pub fn read_xyz(path: &Path) -> Result<Vec<Vec3A>, XyzError> {
    let bytes = std::fs::read(path).map_err(|source| XyzError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if bytes.len() % 12 != 0 {
        return Err(XyzError::Size {
            path: path.to_path_buf(),
            len: bytes.len() as u64,
        });
    }
    let pts: Vec<Vec3A> = bytes
        .chunks_exact(12)
        .map(|c| {
            let f = |k: usize| f32::from_le_bytes([c[k], c[k + 1], c[k + 2], c[k + 3]]);
            Vec3A::new(f(0), f(4), f(8))
        })
        .collect();
    check_finite(path, &pts)?;
    Ok(pts)
}

/// An error naming the first point of `pts` (read from `path`) that is not finite.
pub fn check_finite(path: &Path, pts: &[Vec3A]) -> Result<(), XyzError> {
    match pts.iter().enumerate().find(|(_, p)| !p.is_finite()) {
        Some((index, p)) => Err(XyzError::NotFinite {
            path: path.to_path_buf(),
            index,
            value: p.to_array(),
        }),
        None => Ok(()),
    }
}

/// Write positions as raw little-endian f32 triples (`.xyz`).
pub fn write_xyz(path: &Path, points: &[Vec3A]) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(points.len() * 12);
    for p in points {
        for v in p.to_array() {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    }
    std::fs::write(path, bytes)
}
