//! Point clouds for benchmarks and tests: generated jittered lattices and dam-break-like collapsing
//! columns, and point files (`.xyz` raw little-endian f32 triples as splashsurf reads them, and
//! `.vtu` / `.vtk` frames through vtkio).
//!
//! Owns: generation and reading of positions. Does not touch: the grid or the solver.

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
pub enum PointsError {
    #[error("{path}: cannot read the point file")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path}: size {len} bytes is not a multiple of 12: expected raw little-endian f32 x y z triples"
    )]
    XyzSize { path: PathBuf, len: u64 },
    #[error("{path}: could not read VTK file: {message}")]
    Vtk { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    Content { path: PathBuf, message: String },
    #[error("{path}: unknown point file type: expected .xyz, .vtu or .vtk")]
    Extension { path: PathBuf },
    #[error("{path}: point {index} is not finite ({value:?})")]
    NotFinite {
        path: PathBuf,
        index: usize,
        value: [f32; 3],
    },
}

/// Read positions from `.xyz` (raw little-endian f32 triples), `.vtu` or `.vtk` (the points of an
/// unstructured grid or poly data). Every point must be finite.
pub fn read_points(path: &Path) -> Result<Vec<Vec3A>, PointsError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let pts = match ext.as_str() {
        "xyz" => read_xyz(path)?,
        "vtu" | "vtk" => read_vtk(path)?,
        _ => {
            return Err(PointsError::Extension {
                path: path.to_path_buf(),
            });
        }
    };
    if let Some((index, p)) = pts.iter().enumerate().find(|(_, p)| !p.is_finite()) {
        return Err(PointsError::NotFinite {
            path: path.to_path_buf(),
            index,
            value: p.to_array(),
        });
    }
    Ok(pts)
}

fn read_xyz(path: &Path) -> Result<Vec<Vec3A>, PointsError> {
    let bytes = std::fs::read(path).map_err(|source| PointsError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if bytes.len() % 12 != 0 {
        return Err(PointsError::XyzSize {
            path: path.to_path_buf(),
            len: bytes.len() as u64,
        });
    }
    Ok(bytes
        .chunks_exact(12)
        .map(|c| {
            let f = |k: usize| f32::from_le_bytes([c[k], c[k + 1], c[k + 2], c[k + 3]]);
            Vec3A::new(f(0), f(4), f(8))
        })
        .collect())
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

fn read_vtk(path: &Path) -> Result<Vec<Vec3A>, PointsError> {
    use vtkio::model::{DataSet, Piece};
    let err = |message: String| PointsError::Vtk {
        path: path.to_path_buf(),
        message,
    };
    if !path.exists() {
        return Err(PointsError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        });
    }
    let vtk = vtkio::Vtk::import(path).map_err(|e| err(e.to_string()))?;
    // The points of every inline piece, whichever of the two point-carrying data sets it is.
    fn inline<P>(
        pieces: Vec<Piece<P>>,
        points: impl Fn(P) -> vtkio::IOBuffer,
    ) -> Option<Vec<vtkio::IOBuffer>> {
        pieces
            .into_iter()
            .map(|p| match p {
                Piece::Inline(p) => Some(points(*p)),
                _ => None,
            })
            .collect()
    }
    let buffers = match vtk.data {
        DataSet::UnstructuredGrid { pieces, .. } => inline(pieces, |p| p.points),
        DataSet::PolyData { pieces, .. } => inline(pieces, |p| p.points),
        _ => {
            return Err(PointsError::Content {
                path: path.to_path_buf(),
                message: "expected an UnstructuredGrid or PolyData data set".into(),
            });
        }
    }
    .ok_or_else(|| err("only inline pieces are supported".into()))?;
    let mut pts = Vec::new();
    for b in buffers {
        let v: Vec<f32> = b.cast_into().ok_or_else(|| PointsError::Content {
            path: path.to_path_buf(),
            message: "points are not numeric".into(),
        })?;
        pts.extend(v.chunks_exact(3).map(|c| Vec3A::new(c[0], c[1], c[2])));
    }
    Ok(pts)
}
