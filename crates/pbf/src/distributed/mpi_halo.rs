//! The slabs' exchange over MPI (rsmpi on the system's Open MPI): migration after prediction,
//! ghost planes, ghost refreshes, global sums, and the bytes and time they cost.
//!
//! Owns: [`MpiHalo`] (the communicator, the slabs, each held particle's order key, the ghost
//! counts and the exchange report). Does not touch: what the step computes; the run (frames,
//! summary) is `mpi_run`'s.
//!
//! Migration is one `MPI_Alltoallv` (a particle may go to any slab, so a re-balance moves
//! particles in the same call); ghosts and refreshes are `MPI_Sendrecv`-like pairs with the
//! two neighbor slabs only (slabs are at least as thick as the ghost layer). After the sort,
//! ghosts and the boundary planes they copy are found by slot lists (along x or y they are
//! interleaved with the owned cells; along z, the major axis of the cell order, they are the
//! two ends), each in slot order, so the k-th value sent is the k-th ghost of the receiver.
//! Only the thread that runs the step calls MPI (the rayon workers never do).
//!
//! The order key a particle carries between steps is its domain cell of the last sort and its
//! index in that cell (`cell << 20 | index`): sorting by it gives the last step's global order
//! without any process knowing the others' counts. New particles (inflow) get `1 << 63` plus
//! their rank among the step's new particles: after every other, as one process appends them.

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
use std::time::Instant;

/// A particle on the move (migration or ghost): its state, predicted position and order key.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct Moving {
    x: [f32; 3],
    v: [f32; 3],
    p: [f32; 3],
    id: u32,
    swirl: f32,
    pad: u32,
    key: u64,
}
// 56 bytes, no implicit padding (10 f32 + 2 u32 = 48, then an 8-aligned u64).
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
    /// Order key of each held particle between steps (see the module docs; its index in the
    /// scene's particle list before the first step).
    keys: Vec<u64>,
    /// Held particles before the sort: ghosts from the lower slab, owned, ghosts from the
    /// upper slab (in that order; the sort interleaves them when the axis is not z).
    lo_ghosts: usize,
    owned: usize,
    hi_ghosts: usize,
    /// After the sort, in slot order: the slots of the lower and upper ghosts, of the owned
    /// particles in this slab's first and last ghost-layer planes (what the lower and upper
    /// slabs hold as ghosts), and whether each slot is owned.
    slots_lo: Vec<u32>,
    slots_hi: Vec<u32>,
    send_lo: Vec<u32>,
    send_hi: Vec<u32>,
    is_owned: Vec<bool>,
    /// The order key of each slot for the next step (its domain cell and index in it).
    next_keys: Vec<u64>,
    report: ExchangeReport,
    // Buffers, reused every step.
    out: Vec<Moving>,
    /// Each held particle's plane and destination slab (the exchange's).
    planes: Vec<u32>,
    dest: Vec<u32>,
    incoming: Vec<Moving>,
    down: Vec<Moving>,
    up: Vec<Moving>,
    from_below: Vec<Moving>,
    from_above: Vec<Moving>,
    keep: Vec<usize>,
    staged: Staged,
    pack: Vec<u8>,
    unpack: Vec<u8>,
}

/// The owned particles of a step being assembled (migration merged in), before the ghosts.
#[derive(Default)]
struct Staged {
    x: Vec<Vec3A>,
    v: Vec<Vec3A>,
    id: Vec<u32>,
    swirl: Vec<f32>,
    p: Vec<Vec3A>,
    keys: Vec<u64>,
    /// The slab-axis plane of each.
    planes: Vec<u32>,
}

impl Staged {
    fn clear(&mut self) {
        self.x.clear();
        self.v.clear();
        self.id.clear();
        self.swirl.clear();
        self.p.clear();
        self.keys.clear();
        self.planes.clear();
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
    /// The axis the slabs cut (0, 1, 2: x, y, z).
    axis: usize,
    /// The grid over the whole domain (its cell planes are the slabs').
    domain: GridSpec,
    state: Mutex<State>,
}

impl MpiHalo {
    /// This process's halo in `comm`, over `slabs` of the domain's cell planes across `axis`,
    /// holding particles whose order keys are `keys`; ghosts `reach` cell planes deep.
    pub fn new(
        comm: SimpleCommunicator,
        domain: GridSpec,
        axis: usize,
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
            axis,
            domain,
            state: Mutex::new(State {
                slabs,
                keys,
                lo_ghosts: 0,
                owned,
                hi_ghosts: 0,
                slots_lo: Vec::new(),
                slots_hi: Vec::new(),
                send_lo: Vec::new(),
                send_hi: Vec::new(),
                is_owned: Vec::new(),
                next_keys: Vec::new(),
                report: ExchangeReport::default(),
                out: Vec::new(),
                planes: Vec::new(),
                dest: Vec::new(),
                incoming: Vec::new(),
                down: Vec::new(),
                up: Vec::new(),
                from_below: Vec::new(),
                from_above: Vec::new(),
                keep: Vec::new(),
                staged: Staged::default(),
                pack: Vec::new(),
                unpack: Vec::new(),
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

    /// `local` reduced over processes, elementwise, by `op` (sum or max).
    fn reduce<T>(&self, local: &[T], op: SystemOperation) -> Vec<T>
    where
        T: mpi::datatype::Equivalence + Copy + Default,
    {
        let mut out = vec![T::default(); local.len()];
        self.comm.0.all_reduce_into(local, &mut out[..], op);
        out
    }

    /// Sums over processes, elementwise.
    pub fn sum_all(&self, local: &[u64]) -> Vec<u64> {
        self.reduce(local, SystemOperation::sum())
    }

    /// Sums over processes, elementwise.
    pub fn sum_f64s(&self, local: &[f64]) -> Vec<f64> {
        self.reduce(local, SystemOperation::sum())
    }

    /// Largest values over processes, elementwise.
    pub fn max_f64s(&self, local: &[f64]) -> Vec<f64> {
        self.reduce(local, SystemOperation::max())
    }

    /// The order key of each particle this process holds (between steps: its own, in order).
    pub fn keys(&self) -> Vec<u64> {
        self.state.lock().keys.clone()
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

    /// The slab plane of a position.
    fn plane(&self, q: Vec3A) -> usize {
        self.domain.cell_coords(q)[self.axis]
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
        swirl: f.swirl[i],
        pad: 0,
        key,
    }
}

/// Append `m` to the held arrays.
fn push(f: &mut Fluid, p: &mut Vec<Vec3A>, keys: &mut Vec<u64>, m: &Moving) {
    f.push(
        Vec3A::from_array(m.x),
        Vec3A::from_array(m.v),
        m.id,
        m.swirl,
    );
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
        debug_assert_eq!(domain.dims, self.domain.dims);
        let plane = |q: Vec3A| self.plane(q);

        // 1. Migration: every particle to the slab of its predicted cell (one all-to-all).
        // Each particle's plane, once: its slab now, and (if it stays) its ghost layers below.
        s.planes.clear();
        s.planes.extend(p.iter().map(|&q| plane(q) as u32));
        s.dest.clear();
        s.dest
            .extend(s.planes.iter().map(|&z| s.slabs.owner(z as usize) as u32));
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
            swirl,
            p: pp,
            keys,
            planes,
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
                swirl.push(f.swirl[i]);
                pp.push(p[i]);
                keys.push(s.keys[i]);
                planes.push(s.planes[i]);
                a += 1;
            } else {
                let m = s.incoming[b];
                x.push(Vec3A::from_array(m.x));
                v.push(Vec3A::from_array(m.v));
                id.push(m.id);
                swirl.push(m.swirl);
                pp.push(Vec3A::from_array(m.p));
                keys.push(m.key);
                planes.push(plane(Vec3A::from_array(m.p)) as u32);
                b += 1;
            }
        }
        let owned = x.len();

        // 2. Ghosts: the owned particles in this slab's first and last `reach` planes go to
        // the slab below and above (in key order); theirs come back.
        let slab = s.slabs.planes(self.rank);
        s.down.clear();
        s.up.clear();
        for i in 0..owned {
            let z = planes[i] as usize;
            let m = || Moving {
                x: x[i].to_array(),
                v: v[i].to_array(),
                p: pp[i].to_array(),
                id: id[i],
                swirl: swirl[i],
                pad: 0,
                key: keys[i],
            };
            if self.rank > 0 && z < slab.start + self.reach {
                s.down.push(m());
            }
            if self.rank + 1 < self.size && z + self.reach >= slab.end {
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

        // 3. Held: [ghosts from below][owned][ghosts from above] (the sort interleaves them
        // cell by cell; `sorted` finds where each went).
        f.truncate(0);
        p.clear();
        s.keys.clear();
        for m in &from_below {
            push(f, p, &mut s.keys, m);
        }
        for i in 0..owned {
            f.push(x[i], v[i], id[i], swirl[i]);
        }
        p.extend_from_slice(pp);
        s.keys.extend_from_slice(keys);
        for m in &from_above {
            push(f, p, &mut s.keys, m);
        }
        s.lo_ghosts = from_below.len();
        s.owned = owned;
        s.hi_ghosts = from_above.len();
        s.down = down;
        s.up = up;
        s.from_above = from_above;
        s.from_below = from_below;
        s.keep = keep;
        s.staged = st;
        s.report.seconds += t.elapsed().as_secs_f64();
        s.report.steps += 1;
    }

    fn sorted(&self, perm: &[u32], p: &[Vec3A]) {
        let mut guard = self.state.lock();
        let s = &mut *guard;
        let (lo, owned) = (s.lo_ghosts, s.owned);
        let planes = s.slabs.planes(self.rank);
        s.slots_lo.clear();
        s.slots_hi.clear();
        s.send_lo.clear();
        s.send_hi.clear();
        s.is_owned.clear();
        s.next_keys.clear();
        let (has_lo, has_hi) = (self.rank > 0, self.rank + 1 < self.size);
        let mut last_cell = u64::MAX;
        let mut index = 0u64;
        for (slot, (&held, &q)) in perm.iter().zip(p).enumerate() {
            let held = held as usize;
            let c = self.domain.cell_coords(q);
            let own = held >= lo && held < lo + owned;
            s.is_owned.push(own);
            if !own {
                if held < lo {
                    s.slots_lo.push(slot as u32);
                } else {
                    s.slots_hi.push(slot as u32);
                }
            } else {
                let z = c[self.axis];
                if has_lo && z < planes.start + self.reach {
                    s.send_lo.push(slot as u32);
                }
                if has_hi && z + self.reach >= planes.end {
                    s.send_hi.push(slot as u32);
                }
            }
            // The next step's order key: the domain cell and the index in it (slots of a cell
            // are consecutive; ghost cells are whole, so the index is the one-process index).
            let cell = self.domain.key_of(c) as u64;
            index = if cell == last_cell { index + 1 } else { 0 };
            last_cell = cell;
            s.next_keys.push(cell << 20 | index);
        }
    }

    fn owned_mask(&self, mask: &mut Vec<bool>) -> bool {
        let s = self.state.lock();
        mask.clear();
        mask.extend_from_slice(&s.is_owned);
        true
    }

    fn refresh_bytes(&self, data: &mut [u8], elem: usize) {
        let t = Instant::now();
        let mut guard = self.state.lock();
        let s = &mut *guard;
        debug_assert_eq!(data.len(), s.is_owned.len() * elem);
        let (mut pack, mut unpack) = (std::mem::take(&mut s.pack), std::mem::take(&mut s.unpack));
        let mut exchange = |send: &[u32], to, recv: &[u32], from| {
            pack.clear();
            for &k in send {
                let k = k as usize * elem;
                pack.extend_from_slice(&data[k..k + elem]);
            }
            unpack.clear();
            unpack.resize(recv.len() * elem, 0);
            self.shift(to, &pack, from, &mut unpack);
            for (j, &k) in recv.iter().enumerate() {
                let k = k as usize * elem;
                data[k..k + elem].copy_from_slice(&unpack[j * elem..(j + 1) * elem]);
            }
        };
        // Down: my first planes to the slab below, the slab above's into my upper ghosts; then up.
        exchange(
            &s.send_lo,
            self.below_rank(),
            &s.slots_hi,
            self.above_rank(),
        );
        exchange(
            &s.send_hi,
            self.above_rank(),
            &s.slots_lo,
            self.below_rank(),
        );
        s.report.refresh_bytes += ((s.send_lo.len() + s.send_hi.len()) * elem) as u64;
        s.pack = pack;
        s.unpack = unpack;
        s.report.seconds += t.elapsed().as_secs_f64();
    }

    fn sum(&self, x: u64) -> u64 {
        self.sum_all(&[x])[0]
    }

    fn sum_each(&self, x: &mut [u64]) {
        let s = self.sum_all(x);
        x.copy_from_slice(&s);
    }

    fn agree(&self, room: &mut [bool], sites: &[Vec3A]) {
        let t = Instant::now();
        let slabs = self.state.lock().slabs.clone();
        let mine: Vec<u8> = room
            .iter()
            .zip(sites)
            .map(|(&free, &q)| (free && slabs.owner(self.plane(q)) == self.rank) as u8)
            .collect();
        // Each site has one owner: the sum is its decision.
        let all = self.reduce(&mine, SystemOperation::sum());
        for (r, a) in room.iter_mut().zip(all) {
            *r = a > 0;
        }
        self.state.lock().report.seconds += t.elapsed().as_secs_f64();
    }

    fn keep_owned(&self, f: &mut Fluid, held: usize) {
        let mut guard = self.state.lock();
        let s = &mut *guard;
        // The owned slots, in slot order, to the front with their keys for the next step.
        s.keys.clear();
        let mut w = 0usize;
        for i in 0..held {
            if s.is_owned[i] {
                f.copy_within(i, w);
                s.keys.push(s.next_keys[i]);
                w += 1;
            }
        }
        // The particles every process added after the step: those in this slab stay, keyed
        // after every particle of the step (as one process appends them).
        let planes = s.slabs.planes(self.rank);
        for j in 0..f.len() - held {
            let i = held + j;
            if planes.contains(&self.plane(f.x[i])) {
                f.copy_within(i, w);
                s.keys.push((1 << 63) + j as u64);
                w += 1;
            }
        }
        f.truncate(w);
        s.owned = w;
        s.lo_ghosts = 0;
        s.hi_ghosts = 0;
    }
}

/// So the run keeps a handle on the halo the solver steps with.
impl Halo for std::sync::Arc<MpiHalo> {
    fn exchange_particles(&self, f: &mut Fluid, p: &mut Vec<Vec3A>, d: &GridSpec) {
        (**self).exchange_particles(f, p, d)
    }
    fn sorted(&self, perm: &[u32], p: &[Vec3A]) {
        (**self).sorted(perm, p)
    }
    fn owned_mask(&self, mask: &mut Vec<bool>) -> bool {
        (**self).owned_mask(mask)
    }
    fn refresh_bytes(&self, data: &mut [u8], elem: usize) {
        (**self).refresh_bytes(data, elem)
    }
    fn sum(&self, x: u64) -> u64 {
        (**self).sum(x)
    }
    fn sum_each(&self, x: &mut [u64]) {
        (**self).sum_each(x)
    }
    fn agree(&self, room: &mut [bool], sites: &[Vec3A]) {
        (**self).agree(room, sites)
    }
    fn keep_owned(&self, f: &mut Fluid, held: usize) {
        (**self).keep_owned(f, held)
    }
}
