//! Point files: `.vtu` (XML, inline base64) and legacy big-endian `.vtk` frames written by vtkio
//! read back through `pbf::io::points::read_points`, and `.xyz` round trips.

use glam::Vec3A;
use nsearch::points::write_xyz;
use pbf::io::points::read_points;
use vtkio::model::*;

fn frame(points: &[Vec3A]) -> Vtk {
    let n = points.len() as u64;
    Vtk {
        version: Version::new(),
        title: "test frame".into(),
        byte_order: ByteOrder::BigEndian,
        file_path: None,
        data: DataSet::inline(UnstructuredGridPiece {
            points: IOBuffer::F32(points.iter().flat_map(|p| p.to_array()).collect()),
            cells: Cells {
                cell_verts: VertexNumbers::XML {
                    connectivity: (0..n).collect(),
                    offsets: (1..=n).collect(),
                },
                types: vec![CellType::Vertex; points.len()],
            },
            data: Attributes::new(),
        }),
    }
}

#[test]
fn vtu_and_vtk_frames_read_back() {
    let pts = nsearch::points::jittered_lattice(5, 0.1, 0.02, true, 9);
    let dir = tempfile::tempdir().unwrap();
    let vtu = dir.path().join("f.vtu");
    let vtk = dir.path().join("f.vtk");
    frame(&pts).export(&vtu).unwrap();
    frame(&pts).export_be(&vtk).unwrap();
    for path in [&vtu, &vtk] {
        let got = read_points(path).unwrap();
        assert_eq!(got, pts, "{path:?}");
    }
}

#[test]
fn xyz_round_trip_and_errors() {
    let pts = nsearch::points::collapsing_column(2000, 0.02, 0.004, true, 4);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.xyz");
    write_xyz(&path, &pts).unwrap();
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        12 * pts.len() as u64
    );
    assert_eq!(read_points(&path).unwrap(), pts);

    let broken = dir.path().join("broken.vtu");
    std::fs::write(&broken, "<VTKFile type=\"UnstructuredGrid\"><oops").unwrap();
    let e = read_points(&broken).unwrap_err().to_string();
    assert!(
        e.contains("broken.vtu") && e.contains("could not read VTK file"),
        "{e}"
    );
}
