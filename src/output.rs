//! Output for ParaView and splashsurf: particle frames (`.vtu` XML UnstructuredGrid with inline
//! base64 data, or legacy 4.2 big-endian binary `.vtk`), the time series that lets ParaView play
//! them with their simulated times, and the background writer that keeps the solver off the disk.
//!
//! The series is `<name>.pvd` (an XML collection) for `.vtu` frames and `<name>.vtk.series` (ParaView's
//! JSON file series, version 1.0) for legacy `.vtk` frames: ParaView's `.pvd` reader only reads
//! XML datasets and fails on a collection of legacy files ("Could not determine the data type for
//! the first dataset", ParaView 5.11), while its file-series reader opens any format it knows.
//!
//! Owns: file formats, the writer thread and its bounded queue. Does not touch: the solver.
//!
//! Every file is written under a temporary name in the same folder and renamed into place, so an
//! interrupted run leaves only whole frames, and a series file that lists exactly the frames on disk.

use crate::scene::Format;
use glam::Vec3A;
use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use vtkio::model::*;

/// One frame's particle data, in particle-id order.
#[derive(Clone, Debug, Default)]
pub struct Frame {
    pub index: usize,
    /// Simulated time of the frame.
    pub time: f64,
    pub x: Vec<Vec3A>,
    pub v: Vec<Vec3A>,
    pub density: Vec<f32>,
    pub vorticity: Vec<Vec3A>,
    pub neighbors: Vec<u32>,
}

impl Frame {
    /// Snapshot of the solver's arrays (cell order), put back into id order.
    pub fn from_fluid(index: usize, time: f64, f: &crate::pbf::Fluid) -> Frame {
        let n = f.len();
        let mut fr = Frame {
            index,
            time,
            x: vec![Vec3A::ZERO; n],
            v: vec![Vec3A::ZERO; n],
            density: vec![0.0; n],
            vorticity: vec![Vec3A::ZERO; n],
            neighbors: vec![0; n],
        };
        for (slot, &id) in f.id.iter().enumerate() {
            let i = id as usize;
            fr.x[i] = f.x[slot];
            fr.v[i] = f.v[slot];
            fr.density[i] = f.density[slot];
            fr.vorticity[i] = f.vorticity[slot];
            fr.neighbors[i] = f.neighbors[slot];
        }
        fr
    }

    fn flat(v: &[Vec3A]) -> Vec<f32> {
        v.iter().flat_map(|p| p.to_array()).collect()
    }

    /// The frame as a vtkio model: one VERTEX cell per particle, point arrays `id`, `velocity`,
    /// `density`, `vorticity`, `neighbors`.
    pub fn to_vtk(&self) -> Vtk {
        let n = self.x.len() as u64;
        Vtk {
            version: Version::new(),
            title: format!("pbf frame {} t={}", self.index, self.time),
            byte_order: ByteOrder::BigEndian,
            file_path: None,
            data: DataSet::inline(UnstructuredGridPiece {
                points: IOBuffer::F32(Self::flat(&self.x)),
                cells: Cells {
                    cell_verts: VertexNumbers::XML {
                        connectivity: (0..n).collect(),
                        offsets: (1..=n).collect(),
                    },
                    types: vec![CellType::Vertex; self.x.len()],
                },
                data: Attributes {
                    point: vec![
                        Attribute::scalars("id", 1).with_data((0..n as u32).collect::<Vec<u32>>()),
                        Attribute::vectors("velocity").with_data(Self::flat(&self.v)),
                        Attribute::scalars("density", 1).with_data(self.density.clone()),
                        Attribute::vectors("vorticity").with_data(Self::flat(&self.vorticity)),
                        Attribute::scalars("neighbors", 1).with_data(self.neighbors.clone()),
                    ],
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
        let n = self.x.len();
        let mut a = ArrayWriter::new();
        write!(
            w,
            "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" \
             byte_order=\"BigEndian\" header_type=\"UInt64\"><UnstructuredGrid>\
             <Piece NumberOfPoints=\"{n}\" NumberOfCells=\"{n}\">\
             <PointData Scalars=\"id\" Vectors=\"velocity\">"
        )?;
        let vec3 = r#"type="Float32" NumberOfComponents="3""#;
        a.write(
            w,
            r#"type="UInt32" Name="id""#,
            (0..n as u32).map(u32::to_be_bytes),
        )?;
        a.f32s(
            w,
            &format!(r#"{vec3} Name="velocity""#),
            &Self::flat(&self.v),
        )?;
        a.f32s(w, r#"type="Float32" Name="density""#, &self.density)?;
        a.f32s(
            w,
            &format!(r#"{vec3} Name="vorticity""#),
            &Self::flat(&self.vorticity),
        )?;
        let nb = self.neighbors.iter().map(|x| x.to_be_bytes());
        a.write(w, r#"type="UInt32" Name="neighbors""#, nb)?;
        w.write_all(b"</PointData><Points>")?;
        a.f32s(w, &format!(r#"{vec3} Name="Points""#), &Self::flat(&self.x))?;
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

/// File name of frame `index` in `format`.
pub fn frame_name(index: usize, format: Format) -> String {
    let ext = match format {
        Format::Vtk => "vtk",
        _ => "vtu",
    };
    format!("frame_{index:05}.{ext}")
}

/// Write `bytes` (or what `write` produces) to `path` through a temporary file and a rename.
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&Path) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = path.with_file_name(format!(".{name}.part"));
    let r = write(&tmp).and_then(|_| std::fs::rename(&tmp, path));
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r
}

/// Write one frame file into `dir`.
pub fn write_frame(dir: &Path, frame: &Frame, format: Format) -> std::io::Result<PathBuf> {
    let path = dir.join(frame_name(frame.index, format));
    let io = |e: vtkio::Error| std::io::Error::other(e.to_string());
    write_atomic(&path, |tmp| match format {
        Format::Vtk => frame.to_vtk().export_be(tmp).map_err(io),
        _ => {
            let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(tmp)?);
            frame.write_vtu(&mut w)?;
            w.flush()?;
            w.into_inner().map_err(|e| e.into_error())?.sync_data()
        }
    })?;
    Ok(path)
}

/// The `.pvd` collection listing `frames` (time, file name).
pub fn pvd_text(frames: &[(f64, String)]) -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <Collection>\n",
    );
    for (t, f) in frames {
        s.push_str(&format!(
            "    <DataSet timestep=\"{t:.6}\" group=\"\" part=\"0\" file=\"{f}\"/>\n"
        ));
    }
    s.push_str("  </Collection>\n</VTKFile>\n");
    s
}

/// ParaView's JSON file series (`.vtk.series`, version 1.0) listing `frames` (time, file name).
pub fn file_series_text(frames: &[(f64, String)]) -> String {
    let files: Vec<String> = frames
        .iter()
        .map(|(t, f)| format!("    {{ \"name\": \"{f}\", \"time\": {t:.6} }}"))
        .collect();
    format!(
        "{{\n  \"file-series-version\": \"1.0\",\n  \"files\": [\n{}\n  ]\n}}\n",
        files.join(",\n")
    )
}

/// The name of the series file of a run named `name` whose frames are in `format`: `<name>.pvd`
/// for `.vtu` frames, `<name>.vtk.series` for legacy `.vtk` ones (see the module docs).
pub fn series_name(name: &str, format: Format) -> String {
    match format {
        Format::Vtk => format!("{name}.vtk.series"),
        _ => format!("{name}.pvd"),
    }
}

/// The series file's text for `frames` in `format`.
pub fn series_text(format: Format, frames: &[(f64, String)]) -> String {
    match format {
        Format::Vtk => file_series_text(frames),
        _ => pvd_text(frames),
    }
}

/// A small bounded queue (parking_lot mutex + condvars).
struct Queue<T> {
    items: Mutex<(VecDeque<T>, bool)>,
    not_empty: Condvar,
    not_full: Condvar,
    cap: usize,
}

impl<T> Queue<T> {
    fn push(&self, t: T) {
        let mut g = self.items.lock();
        while g.0.len() >= self.cap {
            self.not_full.wait(&mut g);
        }
        g.0.push_back(t);
        self.not_empty.notify_one();
    }

    /// Next item, or None once closed and drained.
    fn pop(&self) -> Option<T> {
        let mut g = self.items.lock();
        loop {
            if let Some(t) = g.0.pop_front() {
                self.not_full.notify_one();
                return Some(t);
            }
            if g.1 {
                return None;
            }
            self.not_empty.wait(&mut g);
        }
    }

    fn close(&self) {
        self.items.lock().1 = true;
        self.not_empty.notify_all();
    }
}

/// Writes frames and the series file on a background thread. The solver hands over a snapshot and
/// goes on; it waits only when two frames are already queued.
pub struct FrameWriter {
    queue: Arc<Queue<Frame>>,
    state: Arc<Mutex<WriterState>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[derive(Default)]
struct WriterState {
    error: Option<String>,
    written: Vec<(f64, String)>,
    /// Seconds spent writing.
    busy: f64,
}

impl FrameWriter {
    /// Start a writer into `dir` (which must exist); the series is [`series_name`].
    pub fn start(dir: PathBuf, name: String, format: Format) -> FrameWriter {
        let queue = Arc::new(Queue {
            items: Mutex::new((VecDeque::new(), false)),
            not_empty: Condvar::new(),
            not_full: Condvar::new(),
            cap: 2,
        });
        let state = Arc::new(Mutex::new(WriterState::default()));
        let (q, st) = (queue.clone(), state.clone());
        let thread = std::thread::Builder::new()
            .name("frame-writer".into())
            .spawn(move || {
                let series = dir.join(series_name(&name, format));
                while let Some(frame) = q.pop() {
                    if st.lock().error.is_some() {
                        continue; // drain after a failure
                    }
                    let t = std::time::Instant::now();
                    let r = write_frame(&dir, &frame, format).and_then(|path| {
                        let file = path.file_name().unwrap().to_string_lossy().to_string();
                        let text = {
                            let mut g = st.lock();
                            g.written.push((frame.time, file));
                            series_text(format, &g.written)
                        };
                        write_atomic(&series, |tmp| std::fs::write(tmp, text))
                    });
                    let mut g = st.lock();
                    g.busy += t.elapsed().as_secs_f64();
                    if let Err(e) = r {
                        g.error = Some(format!(
                            "writing frame {} into {}: {e}",
                            frame.index,
                            dir.display()
                        ));
                    }
                }
            })
            .expect("spawn the frame writer");
        FrameWriter {
            queue,
            state,
            thread: Some(thread),
        }
    }

    /// Queue a frame; fails if an earlier write failed.
    pub fn push(&self, frame: Frame) -> Result<(), String> {
        if let Some(e) = self.state.lock().error.clone() {
            return Err(e);
        }
        self.queue.push(frame);
        Ok(())
    }

    /// Wait for the queue to drain; returns (frames written, seconds spent writing) or the first
    /// error.
    pub fn finish(mut self) -> Result<(usize, f64), String> {
        self.queue.close();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let g = self.state.lock();
        match &g.error {
            Some(e) => Err(e.clone()),
            None => Ok((g.written.len(), g.busy)),
        }
    }
}

impl Drop for FrameWriter {
    fn drop(&mut self) {
        self.queue.close();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
