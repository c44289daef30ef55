//! The split of the domain into slabs of whole cell planes across one axis (the longest), one
//! per process, balanced by particle count.
//!
//! Owns: [`Slabs`] (the planes each process owns, who owns a plane, the balance). Does not
//! touch: particles or messages.

/// Slab `r` owns the domain's cell planes `z` in `bounds[r]..bounds[r + 1]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slabs {
    bounds: Vec<usize>,
}

/// Why the domain cannot be split.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the domain has {planes} cell planes along its longest axis; {ranks} processes need at least {need} \
     ({min} per process, so a process's ghosts come only from its two neighbors)"
)]
pub struct TooFewPlanes {
    pub planes: usize,
    pub ranks: usize,
    pub min: usize,
    pub need: usize,
}

impl Slabs {
    /// `ranks` slabs over the planes whose particle counts are `counts` (one per plane), each
    /// at least `min` planes thick, with particle counts as even as whole planes allow: slab
    /// `r` ends at the first plane where the running count reaches `(r + 1) / ranks` of the
    /// total.
    pub fn balanced(counts: &[u64], ranks: usize, min: usize) -> Result<Slabs, TooFewPlanes> {
        let planes = counts.len();
        let min = min.max(1);
        if ranks == 0 || planes < ranks * min {
            return Err(TooFewPlanes {
                planes,
                ranks,
                min,
                need: ranks * min,
            });
        }
        let total: u64 = counts.iter().sum();
        let mut bounds = vec![0usize; ranks + 1];
        bounds[ranks] = planes;
        let mut running = 0u64;
        let mut z = 0usize;
        for r in 0..ranks - 1 {
            let start = bounds[r];
            // Room for the slabs after this one.
            let last_end = planes - (ranks - 1 - r) * min;
            let target = total as u128 * (r as u128 + 1) / ranks as u128;
            let mut end = start + min;
            while z < end {
                running += counts[z];
                z += 1;
            }
            while end < last_end && (running as u128) < target {
                running += counts[z];
                z += 1;
                end += 1;
            }
            bounds[r + 1] = end;
        }
        Ok(Slabs { bounds })
    }

    pub fn ranks(&self) -> usize {
        self.bounds.len() - 1
    }

    /// The planes of slab `r`.
    pub fn planes(&self, r: usize) -> std::ops::Range<usize> {
        self.bounds[r]..self.bounds[r + 1]
    }

    /// The slab that owns plane `z`.
    pub fn owner(&self, z: usize) -> usize {
        // The last slab whose start is at or below z.
        (self.bounds[1..self.ranks()].partition_point(|&b| b <= z)).min(self.ranks() - 1)
    }

    /// Particles per slab for the particle counts per plane `counts`.
    pub fn loads(&self, counts: &[u64]) -> Vec<u64> {
        (0..self.ranks())
            .map(|r| counts[self.planes(r)].iter().sum())
            .collect()
    }
}

/// The axis slabs cut: the one along which the domain has the most cells (of equals, z,
/// then y: z is the major axis of the cell order, where ghosts are two contiguous ends).
pub fn slab_axis(domain: &nsearch::GridSpec) -> usize {
    (0..3).max_by_key(|&a| (domain.dims[a], a)).unwrap_or(2)
}

/// The largest load over the mean (1 is perfect balance).
pub fn imbalance(loads: &[u64]) -> f64 {
    let total: u64 = loads.iter().sum();
    if total == 0 {
        return 1.0;
    }
    let max = *loads.iter().max().unwrap_or(&0) as f64;
    max * loads.len() as f64 / total as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_counts_split_evenly_and_every_plane_has_one_owner() {
        let counts = vec![10u64; 12];
        let s = Slabs::balanced(&counts, 4, 2).unwrap();
        assert_eq!(s.loads(&counts), vec![30, 30, 30, 30]);
        for r in 0..4 {
            for z in s.planes(r) {
                assert_eq!(s.owner(z), r);
            }
        }
        assert!((imbalance(&s.loads(&counts)) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn skewed_counts_keep_the_minimum_thickness_and_balance_what_planes_allow() {
        // Most particles in the first planes (water at the bottom of a tall tank).
        let counts: Vec<u64> = (0..40).map(|z| if z < 10 { 1000 } else { 1 }).collect();
        let s = Slabs::balanced(&counts, 4, 2).unwrap();
        for r in 0..4 {
            assert!(s.planes(r).len() >= 2, "slab {r}: {:?}", s.planes(r));
        }
        assert_eq!(s.planes(3).end, 40);
        let loads = s.loads(&counts);
        assert_eq!(loads.iter().sum::<u64>(), counts.iter().sum::<u64>());
        // Whole planes of 1000: the best split of ~10,030 in four is 3000/3000/3000/1030.
        assert!(imbalance(&loads) < 1.25, "{loads:?}");
    }

    #[test]
    fn slabs_cut_the_longest_axis() {
        let spec = |max: [f32; 3]| {
            nsearch::GridSpec::new(
                glam::Vec3A::ZERO,
                glam::Vec3A::from_array(max),
                0.1,
                nsearch::CellSize::H,
            )
            .unwrap()
        };
        assert_eq!(slab_axis(&spec([4.0, 3.0, 1.5])), 0);
        assert_eq!(slab_axis(&spec([1.0, 3.0, 1.5])), 1);
        assert_eq!(slab_axis(&spec([1.0, 1.0, 1.0])), 2);
    }

    #[test]
    fn too_few_planes_is_an_error_naming_what_is_needed() {
        let e = Slabs::balanced(&[1, 1, 1], 2, 2).unwrap_err();
        assert_eq!(e.need, 4);
        assert!(e.to_string().contains("at least 4"));
    }
}
