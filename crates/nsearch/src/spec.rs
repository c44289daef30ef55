//! The search spec: what a search is asked for. The radius and cell size ([`GridSpec`],
//! [`CellSize`]), whether cells are pruned ([`SearchMode`]), and the one distance rule every mode
//! and backend shares ([`dist2`], [`Aabb::dist2`]).
//!
//! Owns: grid geometry (origin, cell width, cell counts, cell keys), the modes, the distance
//! functions. Does not touch: particle data, the sort, or the search walk.
//!
//! ## Geometry
//! The domain (a scene's tank, or a point cloud's bounding box) is cut into cubic cells whose width
//! is the search radius `h` (3 x 3 x 3 stencil) or `h/2` (5 x 5 x 5 stencil), each enlarged by a
//! relative [`CELL_MARGIN`] of 1e-5. The margin guarantees that two particles whose f32 distance
//! passes the `<= h` test are never more than `reach` cells apart even when one of them lies
//! exactly on a cell face and rounding goes the wrong way; it changes no neighbor, only which cell
//! a particle sits in. Cell coordinates are computed in f64 for the same reason.
//!
//! A particle outside the domain is clamped into the border cell: never dropped, never an
//! out-of-bounds index. Clamping is monotone and 1-Lipschitz in cell units, so two particles whose
//! unclamped cells are within the stencil are still within it after clamping, and the search stays
//! exact (a far-away particle just makes its border cell crowded).

use glam::Vec3A;
use rayon::prelude::*;

/// Relative enlargement of the cell width over the stencil's nominal width (see module docs).
pub const CELL_MARGIN: f32 = 1e-5;

/// Largest number of cells a grid may have (about 1 GiB of per-cell data); a larger request is an
/// error rather than an allocation failure.
pub const MAX_CELLS: usize = 1 << 27;

/// Which cell size / stencil the grid uses.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum CellSize {
    /// Cell width = h, 3 x 3 x 3 stencil (the paper's choice and the default).
    #[default]
    #[serde(rename = "h")]
    H,
    /// Cell width = h/2, 5 x 5 x 5 stencil (fewer candidates, more cells visited).
    #[serde(rename = "half")]
    Half,
}

impl CellSize {
    /// Both sizes.
    pub const ALL: [CellSize; 2] = [CellSize::H, CellSize::Half];

    /// Stencil reach in cells on each side of a particle's own cell.
    pub fn reach(self) -> usize {
        match self {
            CellSize::H => 1,
            CellSize::Half => 2,
        }
    }
}

/// An axis-aligned box in f32.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    pub min: Vec3A,
    pub max: Vec3A,
}

impl Aabb {
    /// The empty box: contains nothing, every distance to it is +inf.
    pub const EMPTY: Aabb = Aabb {
        min: Vec3A::splat(f32::INFINITY),
        max: Vec3A::splat(f32::NEG_INFINITY),
    };

    /// Bounding box of a set of points (EMPTY for none).
    pub fn of_points(points: &[Vec3A]) -> Aabb {
        points.iter().fold(Aabb::EMPTY, |b, &p| Aabb {
            min: b.min.min(p),
            max: b.max.max(p),
        })
    }

    /// Squared distance from `p` to the box (0 inside), as in Ericson, *Real-Time Collision
    /// Detection* 5.1.3.1: the sum over axes of the squared excess beyond the box.
    ///
    /// It is summed in the same order as [`dist2`], `(x + y) + z`, so it is never larger than the
    /// f32 squared distance from `p` to any point inside the box: float subtraction, squaring and
    /// addition are monotone, and each axis's excess is at most that axis's |difference|. Hence a
    /// box rejected by `aabb_dist2 > h*h` holds no particle that `dist2 <= h*h` would accept, and
    /// pruning never changes the neighbor lists.
    #[inline(always)]
    pub fn dist2(&self, p: Vec3A) -> f32 {
        let below = self.min - p;
        let above = p - self.max;
        let e = below.max(above).max(Vec3A::ZERO);
        let e2 = e * e;
        (e2.x + e2.y) + e2.z
    }
}

/// `max(a, b)` as one plain instruction (`maxss`): `f32::max` also handles NaN, which costs a
/// compare and a blend per lane in hot loops. Positions are finite, so the results agree.
#[inline(always)]
pub fn fmax(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

/// The squared distance used by every search mode: `(dx*dx + dy*dy) + dz*dz` in f32, with
/// `d = b - a`. Symmetric in `a` and `b` (negation is exact).
#[inline(always)]
pub fn dist2(a: Vec3A, b: Vec3A) -> f32 {
    let d = b - a;
    (d.x * d.x + d.y * d.y) + d.z * d.z
}

/// How to search.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// Uniform grid with per-cell AABB pruning (the paper's method; default).
    #[default]
    Pruned,
    /// Plain uniform grid: every particle of every stencil cell is tested.
    Unpruned,
    /// All pairs, O(n^2): a reference for tests.
    Brute,
}

impl SearchMode {
    /// Every mode.
    pub const ALL: [SearchMode; 3] = [SearchMode::Pruned, SearchMode::Unpruned, SearchMode::Brute];

    pub fn name(self) -> &'static str {
        match self {
            SearchMode::Pruned => "pruned",
            SearchMode::Unpruned => "unpruned",
            SearchMode::Brute => "brute",
        }
    }
}

impl std::fmt::Display for SearchMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Grid geometry: origin, cell width, cell counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridSpec {
    /// Search radius h.
    pub radius: f32,
    /// Cell size choice.
    pub cell_size: CellSize,
    /// Lower corner of the domain.
    pub origin: Vec3A,
    /// Cell width (nominal width times 1 + CELL_MARGIN).
    pub cell: f32,
    /// Cells along x, y, z (each at least 1).
    pub dims: [usize; 3],
    /// Where this grid's first cell sits among the cells of the domain grid it was cut from
    /// ([`GridSpec::window`]); 0 for a grid over a whole domain.
    pub offset: [usize; 3],
}

/// Error for a grid that cannot be built.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum GridError {
    #[error("search radius must be positive and finite, got {0}")]
    BadRadius(f32),
    #[error("domain corners must be finite with min <= max, got min {min:?} max {max:?}")]
    BadDomain { min: [f32; 3], max: [f32; 3] },
    #[error(
        "the grid would need {cells} cells ({dims:?}), more than the limit of {limit}; \
         use a larger radius or a smaller domain"
    )]
    TooManyCells {
        cells: usize,
        dims: [usize; 3],
        limit: usize,
    },
}

impl GridSpec {
    /// A grid covering `[min, max]` for search radius `radius`.
    pub fn new(
        min: Vec3A,
        max: Vec3A,
        radius: f32,
        cell_size: CellSize,
    ) -> Result<Self, GridError> {
        if !(radius.is_finite() && radius > 0.0) {
            return Err(GridError::BadRadius(radius));
        }
        if !(min.is_finite() && max.is_finite() && min.cmple(max).all()) {
            return Err(GridError::BadDomain {
                min: min.to_array(),
                max: max.to_array(),
            });
        }
        let nominal = radius / cell_size.reach() as f32;
        let cell = nominal * (1.0 + CELL_MARGIN);
        let ext = max - min;
        let mut dims = [1usize; 3];
        for (a, d) in dims.iter_mut().enumerate() {
            // At least one cell; a point on the max face falls in the last cell by clamping.
            *d = ((ext[a] as f64 / cell as f64).ceil() as usize).max(1);
        }
        let cells = dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
        match cells {
            Some(c) if c <= MAX_CELLS => Ok(GridSpec {
                radius,
                cell_size,
                origin: min,
                cell,
                dims,
                offset: [0; 3],
            }),
            _ => Err(GridError::TooManyCells {
                cells: cells.unwrap_or(usize::MAX),
                dims,
                limit: MAX_CELLS,
            }),
        }
    }

    /// A grid around the bounding box of `points` (a unit box at the origin for none).
    pub fn around(points: &[Vec3A], radius: f32, cell_size: CellSize) -> Result<Self, GridError> {
        let b = bounds(points);
        if points.is_empty() {
            return GridSpec::new(Vec3A::ZERO, Vec3A::ONE, radius, cell_size);
        }
        GridSpec::new(b.min, b.max, radius, cell_size)
    }

    /// Total number of cells.
    pub fn num_cells(&self) -> usize {
        self.dims[0] * self.dims[1] * self.dims[2]
    }

    /// Integer cell coordinates of `p`, clamped into the grid. Computed in f64 (see module docs).
    #[inline(always)]
    pub fn cell_coords(&self, p: Vec3A) -> [usize; 3] {
        let inv = 1.0 / self.cell as f64;
        std::array::from_fn(|a| {
            let t = (p[a] as f64 - self.origin[a] as f64) * inv;
            // Clamped in f64 to the cells of this grid (as offsets into the domain grid), then
            // truncated: for t >= 0 that is floor(t). NaN goes to the low border (its
            // comparison fails), +inf to the high one. Branch-free, so a loop of it vectorizes.
            let lo = self.offset[a] as f64;
            // (Below 2^31 for any grid `new` makes; the cap keeps a hand-made spec defined too.)
            let hi = ((self.offset[a] + self.dims[a] - 1) as f64).min(i32::MAX as f64);
            let t = if t >= lo { t } else { lo };
            let t = if t <= hi { t } else { hi };
            // SAFETY: t is in [lo, hi]: finite, >= 0 and <= i32::MAX.
            (unsafe { t.to_int_unchecked::<i32>() }) as usize - self.offset[a]
        })
    }

    /// Cell keys of `points` into `keys` (same length): [`key_of`](Self::key_of) of
    /// [`cell_coords`](Self::cell_coords), in a plain loop the compiler vectorizes.
    pub fn keys_into(&self, points: &[Vec3A], keys: &mut [u32]) {
        debug_assert_eq!(points.len(), keys.len());
        for (k, &p) in keys.iter_mut().zip(points) {
            *k = self.key_of(self.cell_coords(p)) as u32;
        }
    }

    /// The smallest grid of this grid's own cells (same origin, cell width, cell boundaries)
    /// that holds every point of `points`: a window, so a scene's grid spans the fluid, not the
    /// whole tank. Cells keep their order (z, then y, then x), so a sort into the window's cells
    /// puts particles in the same order as a sort into this grid's, and a search over the window
    /// gives the same lists, slot for slot: every cell left out is empty. (A point outside this
    /// grid is clamped into its border cells by both alike.) For no points, this grid.
    pub fn window(&self, points: &[Vec3A]) -> GridSpec {
        if points.is_empty() {
            return *self;
        }
        let b = bounds(points);
        // Cell coordinates are monotone in each coordinate, so every point's cell lies between
        // those of the box's corners.
        let (lo, hi) = (self.cell_coords(b.min), self.cell_coords(b.max));
        GridSpec {
            dims: std::array::from_fn(|a| hi[a] - lo[a] + 1),
            offset: std::array::from_fn(|a| self.offset[a] + lo[a]),
            ..*self
        }
    }

    /// Linear cell key of integer cell coordinates: x fastest.
    #[inline(always)]
    pub fn key_of(&self, c: [usize; 3]) -> usize {
        c[0] + self.dims[0] * (c[1] + self.dims[1] * c[2])
    }

    /// Cell coordinates of a linear key.
    #[inline(always)]
    pub fn coords_of(&self, key: usize) -> [usize; 3] {
        let x = key % self.dims[0];
        let yz = key / self.dims[0];
        [x, yz % self.dims[1], yz / self.dims[1]]
    }
}

/// The bounding box of `points`, in parallel ([`Aabb::EMPTY`] for none).
pub(crate) fn bounds(points: &[Vec3A]) -> Aabb {
    points.par_chunks(1 << 14).map(Aabb::of_points).reduce(
        || Aabb::EMPTY,
        |a, b| Aabb {
            min: a.min.min(b.min),
            max: a.max.max(b.max),
        },
    )
}
