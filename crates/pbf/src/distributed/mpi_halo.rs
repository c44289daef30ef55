//! The slabs' exchange over MPI (rsmpi on the system's Open MPI): migration after prediction,
//! ghost planes, ghost refreshes, global sums, and the bytes and time they cost.
//!
//! Owns: [`MpiHalo`] (the communicator, the slabs, each held particle's order key, the ghost
//! counts and the exchange report). Does not touch: what the step computes; the run (frames,
//! summary) is `mpi_run`'s.
//!
//! Migration is one `MPI_Alltoallv` (a particle may go to any slab, so a re-balance moves
//! particles in the same call); ghosts and refreshes are `MPI_Sendrecv`-like pairs with the
//! two neighbor slabs only (slabs are at least as thick as the ghost layer). Only the thread
//! that runs the step calls MPI (the rayon workers never do), so MPI is initialized for one
//! thread.

use super::slabs::Slabs;
use super::{Halo, Plain, bytes_of, bytes_of_mut};
use crate::particles::Fluid;
use glam::Vec3A;
use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use nsearch::GridSpec;
use parking_lot::Mutex;
use std::ops::Range;
use std::time::Instant;

/// A particle on the move (migration or ghost): its state, predicted position and order key.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct Moving {
    x: [f32; 3],
    v: [f32; 3],
    p: [f32; 3],
    id: u32,
    key: u64,
}
// 48 bytes, no padding (9 f32 + u32 = 40, then an 8-aligned u64).
unsafe impl Plain for Moving {}

/// The communicator, used only by the thread that runs the step.
struct Comm(SimpleCommunicator);
// SAFETY: MPI is called from one thread at a time (the step's); the handle is an integer or
// pointer MPI owns, valid for the program's life.
unsafe impl Send for Comm {}
unsafe impl Sync for Comm {}

/// What the exchanges cost so far (this process's share; sum or max them over processes).
#[derive(Clone, Copy, Debug, Default)]
pub struct ExchangeReport {
    /// Bytes sent: particles migrating to other slabs, ghost particles, ghost refreshes.
    pub migration_bytes: u64,
    pub ghost_bytes: u64,
    pub refresh_bytes: u64,
    /// Particles migrated out, ghosts received (summed over steps).
    pub migrated: u64,
    pub ghosts: u64,
    /// Seconds in exchanges and global sums.
    pub seconds: f64,
    pub steps: u64,
}

struct State {
    slabs: Slabs,
    /// Order key of each held particle between steps (its slot in the last step's global
    /// order; its index in the scene's particle list before the first step).
    keys: Vec<u64>,
    /// Ghosts before the owned particles, owned particles, ghosts after them (cell order).
    below: usize,
    owned: usize,
    above: usize,
    /// Owned particles in this slab's first / last ghost-layer planes (the first / last owned
    /// slots in cell order): what the slab below / above holds as ghosts.
    send_down: usize,
    send_up: usize,
    report: ExchangeReport,
    // Buffers, reused every step.
    out: Vec<Moving>,
    dest: Vec<u32>,
    incoming: Vec<Moving>,
    down: Vec<Moving>,
    up: Vec<Moving>,
    from_below: Vec<Moving>,
    from_above: Vec<Moving>,
    keep: Vec<usize>,
    staged: Staged,
}

/// The owned particles of a step being assembled (migration merged in), before the ghosts.
#[derive(Default)]
struct Staged {
    x: Vec<Vec3A>,
    v: Vec<Vec3A>,
    id: Vec<u32>,
    p: Vec<Vec3A>,
    keys: Vec<u64>,
}

impl Staged {
    fn clear(&mut self) {
        self.x.clear();
        self.v.clear();
        self.id.clear();
        self.p.clear();
        self.keys.clear();
    }
}

/// The fluid split into slabs over MPI processes (see the module docs of
/// [`crate::distributed`]).
pub struct MpiHalo {
    comm: Comm,
    rank: usize,
    size: usize,
    /// Cell planes of ghosts each side (the search stencil's reach).
    reach: usize,
    /// The grid over the whole domain (its cell planes are the slabs').
    domain: GridSpec,
    state: Mutex<State>,
}

impl MpiHalo {
    /// This process's halo in `comm`, over `slabs`, holding particles whose order keys are
    /// `keys`; ghosts `reach` cell planes deep.
    pub fn new(
        comm: SimpleCommunicator,
        domain: GridSpec,
        slabs: Slabs,
        reach: usize,
        keys: Vec<u64>,
    ) -> Self {
        let (rank, size) = (comm.rank() as usize, comm.size() as usize);
        assert_eq!(slabs.ranks(), size, "one slab per process");
        let owned = keys.len();
        MpiHalo {
            comm: Comm(comm),
            rank,
            size,
            reach,
            domain,
            state: Mutex::new(State {
                slabs,
                keys,
                below: 0,
                owned,
                above: 0,
                send_down: 0,
                send_up: 0,
                report: ExchangeReport::default(),
                out: Vec::new(),
                dest: Vec::new(),
                incoming: Vec::new(),
                down: Vec::new(),
                up: Vec::new(),
                from_below: Vec::new(),
                from_above: Vec::new(),
                keep: Vec::new(),
                staged: Staged::default(),
            }),
        }
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// The slabs now.
    pub fn slabs(&self) -> Slabs {
        self.state.lock().slabs.clone()
    }

    /// New slabs from the next exchange on (particles move in its migration).
    pub fn set_slabs(&self, slabs: Slabs) {
        assert_eq!(slabs.ranks(), self.size);
        self.state.lock().slabs = slabs;
    }

    /// The exchanges' cost so far, this process's.
    pub fn report(&self) -> ExchangeReport {
        self.state.lock().report
    }

    /// A sum over processes, elementwise.
    pub fn sum_all(&self, local: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; local.len()];
        self.comm
            .0
            .all_reduce_into(local, &mut out[..], SystemOperation::sum());
        out
    }

    /// Sums over processes, elementwise.
    pub fn sum_f64s(&self, local: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0f64; local.len()];
        self.comm
            .0
            .all_reduce_into(local, &mut out[..], SystemOperation::sum());
        out
    }

    /// Largest values over processes, elementwise.
    pub fn max_f64s(&self, local: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0f64; local.len()];
        self.comm
            .0
            .all_reduce_into(local, &mut out[..], SystemOperation::max());
        out
    }

    /// The order key of each particle this process holds (between steps: its own, in order).
    pub fn keys(&self) -> Vec<u64> {
        self.state.lock().keys.clone()
    }

    /// The largest over processes.
    pub fn max_f64(&self, x: f64) -> f64 {
        let mut out = 0.0f64;
        self.comm
            .0
            .all_reduce_into(&x, &mut out, SystemOperation::max());
        out
    }

    /// The sum over processes.
    pub fn sum_f64(&self, x: f64) -> f64 {
        let mut out = 0.0f64;
        self.comm
            .0
            .all_reduce_into(&x, &mut out, SystemOperation::sum());
        out
    }

    /// The communicator (for the run's gathers).
    pub fn comm(&self) -> &SimpleCommunicator {
        &self.comm.0
    }

    /// Send `send` to `to` and receive `recv.len()` items from `from` at once (either may be
    /// absent: the slab at an end of the domain).
    fn shift<T: Plain>(&self, to: Option<usize>, send: &[T], from: Option<usize>, recv: &mut [T]) {
        let world = &self.comm.0;
        mpi::request::scope(|scope| {
            let req = to.map(|r| {
                world
                    .process_at_rank(r as i32)
                    .immediate_send(scope, bytes_of(send))
            });
            if let Some(r) = from {
                world
                    .process_at_rank(r as i32)
                    .receive_into(bytes_of_mut(recv));
            }
            if let Some(req) = req {
                req.wait();
            }
        });
    }

    /// [`shift`](Self::shift) of a count, then of that many items into `recv` (resized).
    fn shift_vec<T: Plain + Default>(
        &self,
        to: Option<usize>,
        send: &[T],
        from: Option<usize>,
        recv: &mut Vec<T>,
    ) {
        let mut n = [0u64];
        self.shift(to, &[send.len() as u64], from, &mut n);
        recv.clear();
        recv.resize(n[0] as usize, T::default());
        self.shift(to, send, from, recv);
    }

    fn below_rank(&self) -> Option<usize> {
        (self.rank > 0).then(|| self.rank - 1)
    }

    fn above_rank(&self) -> Option<usize> {
        (self.rank + 1 < self.size).then_some(self.rank + 1)
    }
}

fn moving(f: &Fluid, p: &[Vec3A], key: u64, i: usize) -> Moving {
    Moving {
        x: f.x[i].to_array(),
        v: f.v[i].to_array(),
        p: p[i].to_array(),
        id: f.id[i],
        key,
    }
}

/// Append `m` to the held arrays.
fn push(f: &mut Fluid, p: &mut Vec<Vec3A>, keys: &mut Vec<u64>, m: &Moving) {
    f.x.push(Vec3A::from_array(m.x));
    f.v.push(Vec3A::from_array(m.v));
    f.id.push(m.id);
    p.push(Vec3A::from_array(m.p));
    keys.push(m.key);
}

impl Halo for MpiHalo {
    fn exchange_particles(&self, f: &mut Fluid, p: &mut Vec<Vec3A>, domain: &GridSpec) {
        let t = Instant::now();
        let mut guard = self.state.lock();
        let s = &mut *guard;
        let n = f.len();
        assert_eq!(s.keys.len(), n, "one order key per held particle");
        let plane = |q: Vec3A| domain.cell_coords(q)[2];

        // 1. Migration: every particle to the slab of its predicted cell (one all-to-all).
        s.dest.clear();
        s.dest
            .extend(p.iter().map(|&q| s.slabs.owner(plane(q)) as u32));
        let mut counts = vec![0i32; self.size];
        for &d in &s.dest {
            counts[d as usize] += 1;
        }
        counts[self.rank] = 0;
        // Outgoing, grouped by destination in held (key) order.
        let mut displs = vec![0i32; self.size];
        for r in 1..self.size {
            displs[r] = displs[r - 1] + counts[r - 1];
        }
        let total_out = displs[self.size - 1] + counts[self.size - 1];
        s.out.clear();
        s.out.resize(total_out as usize, Moving::default());
        let mut fill = displs.clone();
        for i in 0..n {
            let d = s.dest[i] as usize;
            if d != self.rank {
                s.out[fill[d] as usize] = moving(f, p, s.keys[i], i);
                fill[d] += 1;
            }
        }
        let mut rcounts = vec![0i32; self.size];
        self.comm.0.all_to_all_into(&counts[..], &mut rcounts[..]);
        let mut rdispls = vec![0i32; self.size];
        for r in 1..self.size {
            rdispls[r] = rdispls[r - 1] + rcounts[r - 1];
        }
        let total_in = (rdispls[self.size - 1] + rcounts[self.size - 1]) as usize;
        s.incoming.clear();
        s.incoming.resize(total_in, Moving::default());
        {
            const B: i32 = std::mem::size_of::<Moving>() as i32;
            let scale = |v: &[i32]| v.iter().map(|c| c * B).collect::<Vec<i32>>();
            let send = Partition::new(bytes_of(&s.out), scale(&counts), scale(&displs));
            let mut recv = PartitionMut::new(
                bytes_of_mut(&mut s.incoming),
                scale(&rcounts),
                scale(&rdispls),
            );
            self.comm.0.all_to_all_varcount_into(&send, &mut recv);
        }
        s.report.migration_bytes += (total_out as usize * std::mem::size_of::<Moving>()) as u64;
        s.report.migrated += total_out as u64;
        s.incoming.sort_unstable_by_key(|m| m.key);

        // The particles this slab now owns, in key order: those that stay merged with those
        // that came (both already in key order).
        let mut keep = std::mem::take(&mut s.keep);
        keep.clear();
        keep.extend((0..n).filter(|&i| s.dest[i] as usize == self.rank));
        let mut st = std::mem::take(&mut s.staged);
        st.clear();
        let Staged {
            x,
            v,
            id,
            p: pp,
            keys,
        } = &mut st;
        let (mut a, mut b) = (0usize, 0usize);
        while a < keep.len() || b < s.incoming.len() {
            let take_kept =
                b >= s.incoming.len() || (a < keep.len() && s.keys[keep[a]] < s.incoming[b].key);
            if take_kept {
                let i = keep[a];
                x.push(f.x[i]);
                v.push(f.v[i]);
                id.push(f.id[i]);
                pp.push(p[i]);
                keys.push(s.keys[i]);
                a += 1;
            } else {
                let m = s.incoming[b];
                x.push(Vec3A::from_array(m.x));
                v.push(Vec3A::from_array(m.v));
                id.push(m.id);
                pp.push(Vec3A::from_array(m.p));
                keys.push(m.key);
                b += 1;
            }
        }
        let owned = x.len();

        // 2. Ghosts: the owned particles in this slab's first and last `reach` planes go to
        // the slab below and above (in key order); theirs come back.
        let planes = s.slabs.planes(self.rank);
        s.down.clear();
        s.up.clear();
        for i in 0..owned {
            let z = plane(pp[i]);
            let m = || Moving {
                x: x[i].to_array(),
                v: v[i].to_array(),
                p: pp[i].to_array(),
                id: id[i],
                key: keys[i],
            };
            if self.rank > 0 && z < planes.start + self.reach {
                s.down.push(m());
            }
            if self.rank + 1 < self.size && z + self.reach >= planes.end {
                s.up.push(m());
            }
        }
        let (down, up) = (std::mem::take(&mut s.down), std::mem::take(&mut s.up));
        let (mut from_above, mut from_below) = (
            std::mem::take(&mut s.from_above),
            std::mem::take(&mut s.from_below),
        );
        self.shift_vec(self.below_rank(), &down, self.above_rank(), &mut from_above);
        self.shift_vec(self.above_rank(), &up, self.below_rank(), &mut from_below);
        s.report.ghost_bytes += ((down.len() + up.len()) * std::mem::size_of::<Moving>()) as u64;
        s.report.ghosts += (from_above.len() + from_below.len()) as u64;

        // 3. Held: [ghosts from below][owned][ghosts from above]. Ghost cells lie outside the
        // slab's planes, so the sort by cell (z major) keeps this split.
        f.x.clear();
        f.v.clear();
        f.id.clear();
        p.clear();
        s.keys.clear();
        for m in &from_below {
            push(f, p, &mut s.keys, m);
        }
        f.x.extend_from_slice(x);
        f.v.extend_from_slice(v);
        f.id.extend_from_slice(id);
        p.extend_from_slice(pp);
        s.keys.extend_from_slice(keys);
        for m in &from_above {
            push(f, p, &mut s.keys, m);
        }
        let held = f.x.len();
        f.density.resize(held, 0.0);
        f.vorticity.resize(held, Vec3A::ZERO);
        f.neighbors.resize(held, 0);
        s.below = from_below.len();
        s.owned = owned;
        s.above = from_above.len();
        s.send_down = down.len();
        s.send_up = up.len();
        s.down = down;
        s.up = up;
        s.from_above = from_above;
        s.from_below = from_below;
        s.keep = keep;
        s.staged = st;
        s.report.seconds += t.elapsed().as_secs_f64();
        s.report.steps += 1;
    }

    fn owned(&self, n: usize) -> Range<usize> {
        let s = self.state.lock();
        debug_assert_eq!(s.below + s.owned + s.above, n);
        s.below..s.below + s.owned
    }

    fn refresh_bytes(&self, data: &mut [u8], elem: usize) {
        let t = Instant::now();
        let (below, owned, above, send_down, send_up) = {
            let s = self.state.lock();
            (s.below, s.owned, s.above, s.send_down, s.send_up)
        };
        debug_assert_eq!(data.len(), (below + owned + above) * elem);
        let (lo, rest) = data.split_at_mut(below * elem);
        let (mid, hi) = rest.split_at_mut(owned * elem);
        // Down: my first planes to the slab below; the slab above's into my upper ghosts.
        self.shift(
            self.below_rank(),
            &mid[..send_down * elem],
            self.above_rank(),
            hi,
        );
        // Up: my last planes to the slab above; the slab below's into my lower ghosts.
        self.shift(
            self.above_rank(),
            &mid[(owned - send_up) * elem..],
            self.below_rank(),
            lo,
        );
        let mut s = self.state.lock();
        s.report.refresh_bytes += ((send_down + send_up) * elem) as u64;
        s.report.seconds += t.elapsed().as_secs_f64();
    }

    fn sum(&self, x: u64) -> u64 {
        let mut out = 0u64;
        self.comm
            .0
            .all_reduce_into(&x, &mut out, SystemOperation::sum());
        out
    }

    fn agree(&self, room: &mut [bool], sites: &[Vec3A]) {
        let t = Instant::now();
        let slabs = self.state.lock().slabs.clone();
        let mine: Vec<u8> = room
            .iter()
            .zip(sites)
            .map(|(&free, &q)| {
                (free && slabs.owner(self.domain.cell_coords(q)[2]) == self.rank) as u8
            })
            .collect();
        let mut all = vec![0u8; mine.len()];
        // Each site has one owner: the sum is its decision.
        self.comm
            .0
            .all_reduce_into(&mine[..], &mut all[..], SystemOperation::sum());
        for (r, a) in room.iter_mut().zip(all) {
            *r = a > 0;
        }
        self.state.lock().report.seconds += t.elapsed().as_secs_f64();
    }

    fn keep_owned(&self, f: &mut Fluid, held: usize) {
        let mut guard = self.state.lock();
        let s = &mut *guard;
        let (below, owned) = (s.below, s.owned);
        // The particles every process added after the step: those in this slab stay, after
        // the owned ones, keyed after every particle of the step (as one process appends them).
        let added = f.len() - held;
        let planes = s.slabs.planes(self.rank);
        let new_base = (self.size as u64) << 40;
        let base = (self.rank as u64) << 40;
        s.keys.clear();
        s.keys.extend((0..owned as u64).map(|i| base + i));
        let mut w = below + owned;
        for j in 0..added {
            let i = held + j;
            if planes.contains(&self.domain.cell_coords(f.x[i])[2]) {
                f.x[w] = f.x[i];
                f.v[w] = f.v[i];
                f.id[w] = f.id[i];
                f.density[w] = f.density[i];
                f.vorticity[w] = f.vorticity[i];
                f.neighbors[w] = f.neighbors[i];
                s.keys.push(new_base + j as u64);
                w += 1;
            }
        }
        let r = below..w;
        fn keep<T: Copy>(v: &mut Vec<T>, r: &std::ops::Range<usize>) {
            v.truncate(r.end);
            v.copy_within(r.clone(), 0);
            v.truncate(r.len());
        }
        keep(&mut f.x, &r);
        keep(&mut f.v, &r);
        keep(&mut f.id, &r);
        keep(&mut f.density, &r);
        keep(&mut f.vorticity, &r);
        keep(&mut f.neighbors, &r);
        s.owned = r.len();
        s.below = 0;
        s.above = 0;
    }
}

/// So the run keeps a handle on the halo the solver steps with.
impl Halo for std::sync::Arc<MpiHalo> {
    fn exchange_particles(&self, f: &mut Fluid, p: &mut Vec<Vec3A>, d: &GridSpec) {
        (**self).exchange_particles(f, p, d)
    }
    fn owned(&self, n: usize) -> Range<usize> {
        (**self).owned(n)
    }
    fn refresh_bytes(&self, data: &mut [u8], elem: usize) {
        (**self).refresh_bytes(data, elem)
    }
    fn sum(&self, x: u64) -> u64 {
        (**self).sum(x)
    }
    fn agree(&self, room: &mut [bool], sites: &[Vec3A]) {
        (**self).agree(room, sites)
    }
    fn keep_owned(&self, f: &mut Fluid, held: usize) {
        (**self).keep_owned(f, held)
    }
}
