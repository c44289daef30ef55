//! One particle frame: the snapshot the solver hands over, and its two file formats (`.vtu` XML
//! UnstructuredGrid with inline base64 data, and legacy 4.2 big-endian binary `.vtk`).
//!
//! Owns: [`Frame`] and its encodings. Does not touch: where files go or when (writer, run).

use glam::Vec3A;
use std::io::Write;
use vtkio::model::*;

/// One frame's particle data, in particle-id order: positions and named point arrays (the
/// fields the particles list, see `Fluid::frame`).
#[derive(Clone, Debug, Default)]
pub struct Frame {
    pub index: usize,
    /// Simulated time of the frame.
    pub time: f64,
    pub points: Vec<Vec3A>,
    pub arrays: Vec<PointArray>,
    /// The obstacles' surfaces at the frame's time, if the scene has obstacles (written as a
    /// series of its own).
    pub obstacles: Option<crate::boundary::Mesh>,
}

/// One named point array of a frame.
#[derive(Clone, Debug)]
pub struct PointArray {
    pub name: &'static str,
    pub data: ArrayData,
}

/// A point array's values, one per particle.
#[derive(Clone, Debug)]
pub enum ArrayData {
    U32(Vec<u32>),
    F32(Vec<f32>),
    Vec3(Vec<Vec3A>),
}

impl PointArray {
    pub fn u32(name: &'static str, v: Vec<u32>) -> Self {
        PointArray {
            name,
            data: ArrayData::U32(v),
        }
    }

    pub fn f32(name: &'static str, v: Vec<f32>) -> Self {
        PointArray {
            name,
            data: ArrayData::F32(v),
        }
    }

    pub fn vec3(name: &'static str, v: Vec<Vec3A>) -> Self {
        PointArray {
            name,
            data: ArrayData::Vec3(v),
        }
    }

    /// The array as a vtkio attribute (a scalar or a 3-vector).
    fn attribute(&self) -> Attribute {
        match &self.data {
            ArrayData::U32(v) => Attribute::scalars(self.name, 1).with_data(v.clone()),
            ArrayData::F32(v) => Attribute::scalars(self.name, 1).with_data(v.clone()),
            ArrayData::Vec3(v) => Attribute::vectors(self.name).with_data(Frame::flat(v)),
        }
    }
}

impl Frame {
    /// The obstacles' mesh as a vtkio model: an unstructured grid of triangles.
    pub fn obstacles_vtk(&self) -> Option<Vtk> {
        let m = self.obstacles.as_ref()?;
        let n = m.triangles.len() as u64;
        Some(Vtk {
            version: Version::new(),
            title: format!("pbf obstacles {} t={}", self.index, self.time),
            byte_order: ByteOrder::BigEndian,
            file_path: None,
            data: DataSet::inline(UnstructuredGridPiece {
                points: IOBuffer::F32(Self::flat(&m.points)),
                cells: Cells {
                    cell_verts: VertexNumbers::XML {
                        connectivity: m.triangles.iter().flatten().map(|&k| k as u64).collect(),
                        offsets: (1..=n).map(|k| 3 * k).collect(),
                    },
                    types: vec![CellType::Triangle; m.triangles.len()],
                },
                data: Attributes::new(),
            }),
        })
    }

    fn flat(v: &[Vec3A]) -> Vec<f32> {
        v.iter().flat_map(|p| p.to_array()).collect()
    }

    /// The frame as a vtkio model: one VERTEX cell per particle, the point arrays in order.
    pub fn to_vtk(&self) -> Vtk {
        let n = self.points.len() as u64;
        Vtk {
            version: Version::new(),
            title: format!("pbf frame {} t={}", self.index, self.time),
            byte_order: ByteOrder::BigEndian,
            file_path: None,
            data: DataSet::inline(UnstructuredGridPiece {
                points: IOBuffer::F32(Self::flat(&self.points)),
                cells: Cells {
                    cell_verts: VertexNumbers::XML {
                        connectivity: (0..n).collect(),
                        offsets: (1..=n).collect(),
                    },
                    types: vec![CellType::Vertex; self.points.len()],
                },
                data: Attributes {
                    point: self.arrays.iter().map(PointArray::attribute).collect(),
                    cell: vec![],
                },
            }),
        }
    }
}

/// Inline binary `DataArray`s of a VTK XML file: the byte count as a big-endian u64 header,
/// then the values big-endian, base64-encoded as one stream (as VTK and vtkio write them),
/// streamed through a small buffer: a frame's arrays are never held again as raw bytes or text
/// (that took 40 B a particle more while a frame was written).
struct ArrayWriter {
    raw: Vec<u8>,
}

/// Bytes encoded at a time (a multiple of 3, so base64 needs no padding between chunks).
const ENCODE_CHUNK: usize = 3 << 14;

impl ArrayWriter {
    fn new() -> Self {
        ArrayWriter {
            raw: Vec::with_capacity(ENCODE_CHUNK + 16),
        }
    }

    /// Write `<DataArray ...>` with the `count` values `bytes_be` yields (each value's
    /// big-endian bytes).
    fn write<const B: usize>(
        &mut self,
        w: &mut impl Write,
        attrs: &str,
        count: usize,
        bytes_be: impl Iterator<Item = [u8; B]>,
    ) -> std::io::Result<()> {
        use base64::engine::general_purpose::STANDARD;
        write!(w, "<DataArray {attrs} format=\"binary\">")?;
        let mut enc = base64::write::EncoderWriter::new(&mut *w, &STANDARD);
        enc.write_all(&((count * B) as u64).to_be_bytes())?;
        self.raw.clear();
        let mut written = 0;
        for v in bytes_be {
            self.raw.extend_from_slice(&v);
            if self.raw.len() >= ENCODE_CHUNK {
                enc.write_all(&self.raw)?;
                written += self.raw.len();
                self.raw.clear();
            }
        }
        enc.write_all(&self.raw)?;
        written += self.raw.len();
        debug_assert_eq!(written, count * B);
        enc.finish()?.write_all(b"</DataArray>")
    }

    /// [`ArrayWriter::write`] for f32 values.
    fn f32s(&mut self, w: &mut impl Write, attrs: &str, v: &[f32]) -> std::io::Result<()> {
        self.write(w, attrs, v.len(), v.iter().map(|x| x.to_be_bytes()))
    }

    /// [`ArrayWriter::write`] for 3-vectors, as three f32 each.
    fn vec3s(&mut self, w: &mut impl Write, attrs: &str, v: &[Vec3A]) -> std::io::Result<()> {
        let values = v.iter().flat_map(|p| p.to_array()).map(|x| x.to_be_bytes());
        self.write(w, attrs, 3 * v.len(), values)
    }
}

impl Frame {
    /// Write the frame as a VTK XML UnstructuredGrid (`.vtu`): one VERTEX cell per particle, the
    /// point arrays of [`Frame::to_vtk`], binary data inline in base64, big-endian, UInt64
    /// headers: the layout vtkio writes, which ParaView, VTK and splashsurf read. Written here
    /// rather than through vtkio's XML writer, which took 55-75 ms per 117k-particle frame (its
    /// XML serializer escapes and copies every base64 string) against about 15 ms here, and on
    /// two cores that time came out of the solver's.
    pub fn write_vtu(&self, w: &mut impl Write) -> std::io::Result<()> {
        let n = self.points.len();
        let mut a = ArrayWriter::new();
        write!(
            w,
            "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" \
             byte_order=\"BigEndian\" header_type=\"UInt64\"><UnstructuredGrid>\
             <Piece NumberOfPoints=\"{n}\" NumberOfCells=\"{n}\">\
             <PointData{}>",
            self.active_arrays()
        )?;
        let vec3 = r#"type="Float32" NumberOfComponents="3""#;
        for p in &self.arrays {
            let name = p.name;
            match &p.data {
                ArrayData::U32(v) => a.write(
                    w,
                    &format!(r#"type="UInt32" Name="{name}""#),
                    v.len(),
                    v.iter().map(|x| x.to_be_bytes()),
                )?,
                ArrayData::F32(v) => a.f32s(w, &format!(r#"type="Float32" Name="{name}""#), v)?,
                ArrayData::Vec3(v) => a.vec3s(w, &format!(r#"{vec3} Name="{name}""#), v)?,
            }
        }
        w.write_all(b"</PointData><Points>")?;
        a.vec3s(w, &format!(r#"{vec3} Name="Points""#), &self.points)?;
        w.write_all(b"</Points><Cells>")?;
        let conn = (0..n).map(|i| (i as u64).to_be_bytes());
        let offsets = (0..n).map(|i| (i as u64 + 1).to_be_bytes());
        a.write(w, r#"type="UInt64" Name="connectivity""#, n, conn)?;
        a.write(w, r#"type="UInt64" Name="offsets""#, n, offsets)?;
        // VTK_VERTEX = 1.
        a.write(w, r#"type="UInt8" Name="types""#, n, (0..n).map(|_| [1u8]))?;
        w.write_all(b"</Cells></Piece></UnstructuredGrid></VTKFile>\n")
    }
}

impl Frame {
    /// ParaView's active arrays as XML attributes: the first scalar and the first vector
    /// (` Scalars="id" Vectors="velocity"`), for a piece and for the `.pvtu` naming it.
    pub fn active_arrays(&self) -> String {
        let first = |vector: bool| {
            self.arrays
                .iter()
                .find(|p| matches!(p.data, ArrayData::Vec3(_)) == vector)
                .map_or(String::new(), |p| {
                    format!(
                        " {}=\"{}\"",
                        if vector { "Vectors" } else { "Scalars" },
                        p.name
                    )
                })
        };
        first(false) + &first(true)
    }
}
