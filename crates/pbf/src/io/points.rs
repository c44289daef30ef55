//! Point files for `pbf bench-search`: `.xyz` (raw little-endian f32 triples, read by
//! [`nsearch::points`]) and the points of `.vtu` / `.vtk` frames (through vtkio).
//!
//! Owns: reading positions from files. Does not touch: the grid or the solver.

use glam::Vec3A;
use nsearch::points::XyzError;
use std::path::{Path, PathBuf};

/// Why a point file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PointsError {
    /// Unreadable, a bad `.xyz` size, or a point that is not finite.
    #[error(transparent)]
    File(#[from] XyzError),
    #[error("{path}: could not read VTK file: {message}")]
    Vtk { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    Content { path: PathBuf, message: String },
    #[error("{path}: unknown point file type: expected .xyz, .vtu or .vtk")]
    Extension { path: PathBuf },
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
        "xyz" => nsearch::points::read_xyz(path)?,
        "vtu" | "vtk" => read_vtk(path)?,
        _ => {
            return Err(PointsError::Extension {
                path: path.to_path_buf(),
            });
        }
    };
    nsearch::points::check_finite(path, &pts)?;
    if pts.is_empty() {
        return Err(PointsError::Content {
            path: path.to_path_buf(),
            message: "holds no points".into(),
        });
    }
    if ext == "xyz" && looks_like_text(path) {
        return Err(PointsError::Content {
            path: path.to_path_buf(),
            message: "looks like a text file: .xyz must be raw little-endian f32 x y z triples \
                      (binary)"
                .into(),
        });
    }
    Ok(pts)
}

/// Whether the file's first 4 kB are printable ASCII text with line breaks (raw f32 triples of
/// real coordinates are not).
fn looks_like_text(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut head));
    read.is_ok()
        && head.contains(&b'\n')
        && head
            .iter()
            .all(|&b| b == b'\n' || b == b'\r' || b == b'\t' || (0x20..0x7f).contains(&b))
}

fn read_vtk(path: &Path) -> Result<Vec<Vec3A>, PointsError> {
    use vtkio::model::{DataSet, Piece};
    let err = |message: String| PointsError::Vtk {
        path: path.to_path_buf(),
        message,
    };
    if !path.exists() {
        return Err(PointsError::File(XyzError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        }));
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
