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

/// One inline binary `DataArray` of a VTK XML file: the byte count as a big-endian u64 header,
/// then the values big-endian, base64-encoded as one stream (as VTK and vtkio write them).
struct ArrayWriter {
    raw: Vec<u8>,
    text: String,
}

impl ArrayWriter {
    fn new() -> Self {
        ArrayWriter {
            raw: Vec::new(),
            text: String::new(),
        }
    }

    /// Write `<DataArray ...>` with the values `bytes_be` yields (each value's big-endian bytes).
    fn write<const B: usize>(
        &mut self,
        w: &mut impl Write,
        attrs: &str,
        bytes_be: impl ExactSizeIterator<Item = [u8; B]>,
    ) -> std::io::Result<()> {
        use base64::Engine as _;
        let bytes = bytes_be.len() * B;
        self.raw.clear();
        self.raw.reserve(8 + bytes);
        self.raw.extend_from_slice(&(bytes as u64).to_be_bytes());
        self.raw.extend(bytes_be.flatten());
        debug_assert_eq!(self.raw.len(), 8 + bytes);
        self.text.clear();
        base64::engine::general_purpose::STANDARD.encode_string(&self.raw, &mut self.text);
        write!(w, "<DataArray {attrs} format=\"binary\">")?;
        w.write_all(self.text.as_bytes())?;
        w.write_all(b"</DataArray>")
    }

    /// [`ArrayWriter::write`] for f32 values.
    fn f32s(&mut self, w: &mut impl Write, attrs: &str, v: &[f32]) -> std::io::Result<()> {
        self.write(w, attrs, v.iter().map(|x| x.to_be_bytes()))
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
                    v.iter().map(|x| x.to_be_bytes()),
                )?,
                ArrayData::F32(v) => a.f32s(w, &format!(r#"type="Float32" Name="{name}""#), v)?,
                ArrayData::Vec3(v) => {
                    a.f32s(w, &format!(r#"{vec3} Name="{name}""#), &Self::flat(v))?
                }
            }
        }
        w.write_all(b"</PointData><Points>")?;
        a.f32s(
            w,
            &format!(r#"{vec3} Name="Points""#),
            &Self::flat(&self.points),
        )?;
        w.write_all(b"</Points><Cells>")?;
        let conn = (0..n).map(|i| (i as u64).to_be_bytes());
        let offsets = (0..n).map(|i| (i as u64 + 1).to_be_bytes());
        a.write(w, r#"type="UInt64" Name="connectivity""#, conn)?;
        a.write(w, r#"type="UInt64" Name="offsets""#, offsets)?;
        // VTK_VERTEX = 1.
        a.write(w, r#"type="UInt8" Name="types""#, (0..n).map(|_| [1u8]))?;
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
