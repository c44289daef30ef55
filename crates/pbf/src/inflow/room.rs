//! Whether a site has room for a new particle: no particle closer than the lattice spacing.
//!
//! Owns: [`free_sites`] and [`free`]. Does not touch: which sites are due (the schedule).
//!
//! The particles of the last step are found through that step's grid: after a step the fluid's
//! arrays are in the grid's slot order, so a cell's slot range indexes the final positions.
//! (Positions moved during the density solve by far less than a cell, and the stencil reaches a
//! whole kernel radius, at least twice the spacing.) Particles added since the grid was built
//! are checked one by one. Each site is decided on its own, in parallel, so the result does not
//! depend on the thread count.

use glam::Vec3A;
use nsearch::Grid;
use rayon::prelude::*;

/// The sites of `sites` with room (see [`free_sites`]), in their order; with the fluid split
/// over processes, as the process that owns each site decided (`halo`).
pub fn free(
    sites: &[Vec3A],
    x: &[Vec3A],
    grid: &Grid,
    spacing: f32,
    halo: &dyn crate::distributed::Halo,
) -> Vec<Vec3A> {
    let mut room = free_sites(sites, x, grid, spacing);
    halo.agree(&mut room, sites);
    sites
        .iter()
        .zip(room)
        .filter_map(|(&p, free)| free.then_some(p))
        .collect()
}

/// For each of `sites`, whether no particle of `x` lies closer than `spacing`: `x[..grid.len()]`
/// in the slot order of `grid`, the rest (`x[grid.len()..]`) added since.
pub fn free_sites(sites: &[Vec3A], x: &[Vec3A], grid: &Grid, spacing: f32) -> Vec<bool> {
    let d2 = spacing * spacing;
    let sorted = grid.len().min(x.len());
    let spec = grid.spec();
    let start = grid.cell_start();
    let reach = spec.cell_size.reach() as isize;
    let close = |site: Vec3A, p: Vec3A| site.distance_squared(p) < d2;
    sites
        .par_iter()
        .map(|&site| {
            if x[sorted..].iter().any(|&p| close(site, p)) {
                return false;
            }
            if sorted == 0 || start.is_empty() {
                return true;
            }
            let c = spec.cell_coords(site);
            let [nx, ny, nz] = spec.dims.map(|d| d as isize);
            for dz in -reach..=reach {
                for dy in -reach..=reach {
                    for dx in -reach..=reach {
                        let (cx, cy, cz) =
                            (c[0] as isize + dx, c[1] as isize + dy, c[2] as isize + dz);
                        if cx < 0 || cy < 0 || cz < 0 || cx >= nx || cy >= ny || cz >= nz {
                            continue;
                        }
                        let key = spec.key_of([cx as usize, cy as usize, cz as usize]);
                        let (a, b) = (start[key] as usize, start[key + 1] as usize);
                        if x[a..b.min(sorted)].iter().any(|&p| close(site, p)) {
                            return false;
                        }
                    }
                }
            }
            true
        })
        .collect()
}
