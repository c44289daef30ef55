//! What a scene will need, counted from its keys alone (nothing is sampled or allocated), so a
//! scene too big for the machine is refused before it can run out of memory.
//!
//! Owns: [`Scene::memory_estimate`] and [`Estimate`]. Does not touch: sampling (`sample`) or
//! the simulation.

use super::{NozzleKind, Scene};

/// A scene's size: particles at the start and at most (every emitter site free, every later
/// block placed), grid cells, and the bytes a run of it holds (an estimate).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub particles_start: f64,
    pub particles_most: f64,
    pub cells: f64,
    /// Neighbors per particle at rest: the lattice sites within h, about (4/3) π (h / 2r)³.
    pub neighbors: f64,
    pub bytes: f64,
}

/// Grid bytes per cell: its start offset and its box.
const CELL_BYTES: f64 = 36.0;

/// A frame's bytes per particle (`Fluid::frame`): position, velocity and vorticity (16 each),
/// id, density and neighbor count (4 each).
const FRAME_BYTES: f64 = 60.0;

impl Estimate {
    /// The part of [`bytes`](Self::bytes) the grid takes.
    pub fn grid_bytes(&self) -> f64 {
        self.cells * CELL_BYTES
    }
}

impl Scene {
    /// The scene's size (see [`Estimate`]); blocks count their whole lattice (obstacles
    /// ignored), so it is an upper bound on particles. Counts are floating point: a radius far
    /// too small gives a huge number, not an overflow.
    pub fn memory_estimate(&self) -> Estimate {
        let s = self.spacing() as f64;
        let h = self.kernel_radius() as f64;
        let mut start = 0.0;
        let mut most = 0.0;
        for b in &self.fluid {
            // As `sample` fills: round(L / s) sites a side, or the peer's ceil(L / s) - 1.
            let n: f64 = (0..3)
                .map(|a| {
                    let l = (b.max[a] - b.min[a]) as f64;
                    match self.particles.fill {
                        super::Fill::Volume => (l / s).round().max(1.0),
                        super::Fill::Splishsplash => {
                            ((l / s - 1e-4).ceil().max(2.0) - 1.0).max(1.0)
                        }
                    }
                })
                .product();
            most += n;
            if b.start <= 0.0 {
                start += n;
            }
        }
        for e in &self.emitter {
            let sites = match e.shape {
                NozzleKind::Rect => {
                    let [w, ht] = e.size.unwrap_or_default();
                    ((w as f64 / s).round().max(1.0)) * ((ht as f64 / s).round().max(1.0))
                }
                // The disc's bounding square of sites: an upper bound.
                NozzleKind::Circle => (2.0 * e.radius.unwrap_or_default() as f64 / s + 3.0).powi(2),
            };
            let period = s / e.speed as f64;
            let open = e.closes(self.time.end) - e.start;
            let layers = (open as f64 / period).floor().max(0.0) + 1.0;
            most += sites * layers;
        }
        let cells: f64 = (0..3)
            .map(|a| {
                ((self.tank.max[a] - self.tank.min[a]) as f64 / h)
                    .ceil()
                    .max(1.0)
            })
            .product();
        let neighbors = 4.0 / 3.0 * std::f64::consts::PI * (h / s).powi(3);
        // Per particle: ~8 vectors of 16 bytes and ~8 scalars of solver state, a vector for
        // each sum a force reads (XSPH's smoothing; the confinement's η and the velocities
        // with swirl; surface tension's normals and positions with volumes) and one for
        // obstacles (their density), neighbor indices, grid arrays; per cell:
        // start offset and box. (The paper's dam break at its scale: 603 MB against 577
        // measured after three steps; 524 against 497 with those forces off.)
        let on = |b: bool| if b { 1.0 } else { 0.0 };
        let sums = on(self.pbf.xsph != 0.0)
            + 2.0 * on(self.pbf.vorticity != 0.0)
            + 2.0 * on(self.surface_tension.method != super::SurfaceTensionMethod::None)
            + on(!self.obstacle.is_empty());
        let vectors = 8.0 + sums;
        // Frames in flight: the snapshot the writer is writing and one more the solver may
        // have made meanwhile, each FRAME_BYTES a particle (the vtu writer streams its arrays;
        // the legacy format copies the one it writes once more into vtkio's model). (The
        // paper's dam break, a frame every 10 steps: 677 MB against 645 measured over its first
        // 60 steps, 580 without frames.)
        let frames = match self.output.format {
            super::Format::None => 0.0,
            super::Format::Vtu => 2.0,
            super::Format::Vtk => 3.0,
        };
        let bytes = most
            * (vectors * 16.0 + 8.0 * 4.0 + 4.0 * neighbors + 24.0 + frames * FRAME_BYTES)
            + cells * CELL_BYTES;
        Estimate {
            particles_start: start,
            particles_most: most,
            cells,
            neighbors,
            bytes,
        }
    }
}
