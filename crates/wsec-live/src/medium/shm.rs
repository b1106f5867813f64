//! `shm:NAME`: the embedded wireless medium in shared memory, for nodes on one host (the
//! `air` hub's UDP stays for nodes elsewhere).
//!
//! `wsec air --shm NAME` creates `/dev/shm/wsec-air-NAME`: a header (magic, version,
//! geometry, loss settings, the ring's head, a table of [`NODES`] node entries) and a
//! broadcast ring of fixed-size slots. A node maps the file and takes a free entry of the
//! table (lock-free, no round trip to the hub); its id is that entry.
//!
//! Sending: a writer claims as many consecutive slots as the frame needs with one
//! `fetch_add` on the head (a frame over one slot's payload spans several: the A-MSDUs of
//! 3839 and 7935 octets the cores will send, up to [`MAX_FRAME`] as the UDP hub), takes
//! each slot by CAS on its sequence word (to `BUSY | n+1`: one writer per slot even if a
//! writer was lapped by a whole ring), writes sender, length, time and payload, then
//! publishes `n+1`: continuation slots first, the first slot last, so a reader that sees
//! the first published finds the rest published too (or overwritten, which it detects).
//!
//! Receiving: each node keeps its own cursor. A slot is copied, then its sequence word
//! read again (a seqlock): a slot overwritten while being read is counted lost, never
//! delivered. A reader more than a ring behind skips ahead to half a ring behind the head
//! and counts what it skipped (a radio's overrun). Its own frames are skipped; loss is
//! emulated per receiver copy (seeded, as the hub's `--loss`). A slot claimed but not
//! published for [`STALL`] (its writer killed mid-copy) is skipped and counted.
//!
//! Wake-ups: the node's loop polls a descriptor (with the TAP and the control socket), so
//! each node has a FIFO `NAME.d/NONCE-ID-GEN` next to the segment (no descriptor passing,
//! no hub in the path; a futex cannot be polled with them). Before it sleeps a node sets
//! the `waiting` word of its entry, and re-checks the ring ([`Medium::prepare_wait`]); a
//! writer, after a burst ([`Medium::flush`], or every [`WAKE_EVERY`] frames), swaps the
//! `waiting` word of every other node to 0 and writes one byte to the FIFO of those that
//! had it set: at most one system call per sleeping reader per burst, none for a reader
//! that is busy.
//!
//! Ordering: the writer publishes (release stores of the sequence words), then a SeqCst
//! fence, then reads `waiting`; the reader stores `waiting = 1`, a SeqCst fence, then
//! reads the sequence word at its cursor. The two fences are ordered one way or the other:
//! if the writer's comes first the reader sees the frame and does not sleep; if the
//! reader's comes first the writer sees `waiting = 1` (or a later 0 of another writer,
//! which wakes it) and writes the byte. No wake-up is lost.
//!
//! The slots are read and written only through atomics (relaxed word copies: plain moves
//! on x86), so a torn copy is a detected race, not undefined behaviour. Each slot carries
//! a checksum of its words (Fletcher-64 over meta, time and payload): a writer lapped by a
//! whole ring while it copies (preempted that long) may still be storing into a slot the
//! next writer took over and published; the sequence word cannot show that, the checksum
//! does, and such a frame is counted torn, never delivered. Every value read from the
//! file is checked before use: the file is another process's to write.
use super::Medium;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// "WSECAIR" and a format byte: what the first word of a segment holds.
pub const MAGIC: u64 = u64::from_le_bytes(*b"WSECAIR1");
/// The layout version; a node refuses a segment of another.
pub const VERSION: u64 = 1;
/// Where `shm:NAME` segments live.
pub const SHM_DIR: &str = "/dev/shm";
/// Octets of the header before the first slot (two pages).
pub const HEADER_BYTES: usize = 8192;
/// Entries of the node table (ids fit the 64-bit `attached` mask).
pub const NODES: usize = 64;
/// Largest frame (radiotap + MPDU, and an FCS where one is given) carried, as the UDP hub's
/// datagrams. Nodes put their frames on the ring without an FCS (`super::radiotap`).
pub const MAX_FRAME: usize = super::air::MAX_FRAME;
/// A slot claimed but not published for this long is skipped: its writer died mid-copy
/// (a live one copies 2 KB in well under a microsecond; this is room for preemption).
pub const STALL: Duration = Duration::from_millis(100);
/// A writer checks for sleeping readers at least every this many frames of a burst, so a
/// reader on the other CPU starts on a long burst before it ends.
pub const WAKE_EVERY: u32 = 32;
/// Octets of a slot before its payload: sequence, meta, time, checksum.
const SLOT_HDR: usize = 32;
const SLOT_HDR_WORDS: usize = SLOT_HDR / 8;
/// Sequence word of a slot being written (with the number it will have).
const BUSY: u64 = 1 << 63;
const META_VOID: u64 = 1;

// Header words.
const H_MAGIC: usize = 0;
const H_VERSION: usize = 1;
const H_SLOTS: usize = 2;
const H_SLOT_BYTES: usize = 3;
const H_NODES: usize = 4;
const H_TOTAL: usize = 5;
const H_LOSS: usize = 6;
const H_SEED: usize = 7;
const H_HUB_PID: usize = 8;
const H_NONCE: usize = 9;
/// The head on a cache line of its own: every writer's `fetch_add`.
const H_HEAD: usize = 16;
const H_ATTACHES: usize = 24;
const H_ATTACHED: usize = 25;
const H_FRAMES: usize = 32;
const H_OCTETS: usize = 33;
const H_TABLE: usize = 64;
/// A cache line per entry: other nodes write a reader's `waiting` word.
const ENTRY_WORDS: usize = 8;
const E_OWNER: usize = 0;
const E_WAITING: usize = 1;
const _: () = assert!((H_TABLE + NODES * ENTRY_WORDS) * 8 <= HEADER_BYTES);

fn invalid(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

/// The slot layout of a segment, chosen by the hub and recorded in the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Slots in the ring: a power of two.
    pub slots: usize,
    /// Octets per slot, header included: a multiple of 64 (cache lines).
    pub slot_bytes: usize,
}

impl Geometry {
    /// 8192 slots of 2 KiB (16 MiB): a 1500-octet MSDU's frame in one slot, about 100 ms
    /// of a gigabit of such frames for a reader that is behind.
    pub const DEFAULT: Geometry = Geometry { slots: 8192, slot_bytes: 2048 };

    /// Payload octets per slot.
    pub fn payload(self) -> usize {
        self.slot_bytes - SLOT_HDR
    }
    /// Slots the largest frame takes.
    pub fn max_parts(self) -> usize {
        MAX_FRAME.div_ceil(self.payload())
    }
    /// Octets of the whole segment.
    pub fn total(self) -> usize {
        HEADER_BYTES + self.slots * self.slot_bytes
    }
    /// The geometry if it is one a segment may have: bounded sizes (at most 256 MiB), the
    /// largest frame at most a quarter of the ring and 255 slots.
    pub fn check(self) -> io::Result<Geometry> {
        let ok = self.slots.is_power_of_two()
            && (16..=1 << 20).contains(&self.slots)
            && self.slot_bytes.is_multiple_of(64)
            && (128..=1 << 16).contains(&self.slot_bytes)
            && self.slots.checked_mul(self.slot_bytes).is_some_and(|b| b <= 256 << 20)
            && self.max_parts() <= 255
            && self.max_parts() * 4 <= self.slots;
        if ok {
            Ok(self)
        } else {
            Err(invalid(format!("shm medium: no valid geometry: {} slots of {} octets", self.slots, self.slot_bytes)))
        }
    }
}

/// Sender, length and place in its frame of a slot, packed in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Meta {
    len: u32,
    sender: u8,
    part: u8,
    parts: u8,
    flags: u8,
}

impl Meta {
    fn pack(self) -> u64 {
        self.len as u64 | (self.sender as u64) << 32 | (self.part as u64) << 40 | (self.parts as u64) << 48 | (self.flags as u64) << 56
    }
    fn unpack(w: u64) -> Meta {
        Meta { len: w as u32, sender: (w >> 32) as u8, part: (w >> 40) as u8, parts: (w >> 48) as u8, flags: (w >> 56) as u8 }
    }
}

/// Fletcher-64 over words: cheap (two adds a word, in the copy loops) and it sees a slot
/// whose words come from two frames.
#[derive(Clone, Copy)]
struct Sum(u64, u64);

impl Sum {
    fn new(meta: u64, ts: u64) -> Sum {
        Sum(0, 0).add(meta).add(ts)
    }
    fn add(self, w: u64) -> Sum {
        let a = self.0.wrapping_add(w);
        Sum(a, self.1.wrapping_add(a))
    }
    fn value(self) -> u64 {
        self.0 ^ self.1.rotate_left(32)
    }
}

/// The octets of a frame given in parts, as the little words of a slot: whole words
/// straight from the current part, a word across two parts (or the zero-padded last one)
/// assembled octet by octet.
struct Words<'a> {
    parts: &'a [&'a [u8]],
    cur: &'a [u8],
}

impl<'a> Words<'a> {
    fn new(parts: &'a [&'a [u8]]) -> Words<'a> {
        Words { parts, cur: &[] }
    }

    fn next_word(&mut self) -> u64 {
        while self.cur.is_empty() {
            let Some((first, rest)) = self.parts.split_first() else { return 0 };
            self.cur = first;
            self.parts = rest;
        }
        if let Some((w, rest)) = self.cur.split_first_chunk::<8>() {
            self.cur = rest;
            return u64::from_ne_bytes(*w);
        }
        let mut x = [0u8; 8];
        let mut k = 0;
        while k < 8 {
            if self.cur.is_empty() {
                let Some((first, rest)) = self.parts.split_first() else { break };
                self.cur = first;
                self.parts = rest;
                continue;
            }
            let n = self.cur.len().min(8 - k);
            x[k..k + n].copy_from_slice(&self.cur[..n]);
            self.cur = &self.cur[n..];
            k += n;
        }
        u64::from_ne_bytes(x)
    }
}

/// The memory of a ring: a shared mapping of the segment file, or (tests) the heap.
enum Mem {
    Map(Mapping),
    #[cfg(test)]
    Heap(Box<[AtomicU64]>),
}

impl Mem {
    fn words(&self) -> &[AtomicU64] {
        match self {
            Mem::Map(m) => m.words(),
            #[cfg(test)]
            Mem::Heap(b) => b,
        }
    }
}

/// A `MAP_SHARED` read-write mapping of a whole file, used only through atomics.
struct Mapping {
    ptr: NonNull<AtomicU64>,
    words: usize,
}

impl Mapping {
    fn map(file: &File, len: usize) -> io::Result<Mapping> {
        if len == 0 || !len.is_multiple_of(8) {
            return Err(invalid("shm medium: mapping length"));
        }
        // SAFETY: a new mapping at an address the kernel chooses (no existing memory is
        // touched) of `len` octets of an open file; failure is MAP_FAILED, checked below.
        let p =
            unsafe { libc::mmap(core::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, file.as_raw_fd(), 0) };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ptr = NonNull::new(p as *mut AtomicU64).ok_or_else(|| invalid("shm medium: mapped at address 0"))?;
        Ok(Mapping { ptr, words: len / 8 })
    }

    fn words(&self) -> &[AtomicU64] {
        // SAFETY: the mapping is page-aligned (so aligned for AtomicU64, which has u64's
        // layout), `words * 8` octets long, readable and writable, and stays mapped until
        // Drop, which the borrow of self outlives. All access goes through atomics, so
        // concurrent writes by other threads or processes are not data races.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.words) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the region `map` mapped; no borrow of it outlives self.
        unsafe { libc::munmap(self.ptr.as_ptr() as *mut libc::c_void, self.words * 8) };
    }
}

// SAFETY: the mapping is plain shared memory accessed only through atomics (which are
// Send and Sync); the pointer is owned by this value and unmapped only in Drop.
unsafe impl Send for Mapping {}
// SAFETY: as above: &Mapping only hands out &[AtomicU64].
unsafe impl Sync for Mapping {}

/// Why a frame was not put on the ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Longer than [`MAX_FRAME`]: nothing was claimed.
    Oversize,
    /// A slot it claimed was taken by a writer a ring ahead (this one was preempted that
    /// long): the frame is lost, as in a collision.
    Lapped,
}

/// The ring and header of a segment, in whatever memory backs it.
pub struct Ring {
    mem: Mem,
    geo: Geometry,
    mask: u64,
}

impl Ring {
    fn new(mem: Mem, geo: Geometry) -> io::Result<Ring> {
        let geo = geo.check()?;
        if mem.words().len() * 8 != geo.total() {
            return Err(invalid("shm medium: the memory does not match the geometry"));
        }
        Ok(Ring { mem, geo, mask: geo.slots as u64 - 1 })
    }

    /// A ring on the heap with a fresh header (tests of the ring alone).
    #[cfg(test)]
    fn on_heap(geo: Geometry, loss: f64, seed: u64) -> Ring {
        let words: Box<[AtomicU64]> = (0..geo.total() / 8).map(|_| AtomicU64::new(0)).collect();
        let r = Ring::new(Mem::Heap(words), geo).unwrap();
        r.init(loss, seed, 0, 0);
        r
    }

    fn w(&self, i: usize) -> &AtomicU64 {
        &self.mem.words()[i]
    }

    /// Writes a fresh header; the magic last (release), for anyone who looks early.
    fn init(&self, loss: f64, seed: u64, pid: u32, nonce: u64) {
        let g = self.geo;
        for (i, v) in [
            (H_VERSION, VERSION),
            (H_SLOTS, g.slots as u64),
            (H_SLOT_BYTES, g.slot_bytes as u64),
            (H_NODES, NODES as u64),
            (H_TOTAL, g.total() as u64),
            (H_LOSS, loss.to_bits()),
            (H_SEED, seed),
            (H_HUB_PID, pid as u64),
            (H_NONCE, nonce),
        ] {
            self.w(i).store(v, Ordering::Relaxed);
        }
        self.w(H_MAGIC).store(MAGIC, Ordering::Release);
    }

    fn head(&self) -> &AtomicU64 {
        self.w(H_HEAD)
    }

    fn entry(&self, id: usize, word: usize) -> &AtomicU64 {
        self.w(H_TABLE + (id % NODES) * ENTRY_WORDS + word)
    }

    fn slot(&self, n: u64) -> &[AtomicU64] {
        let words = self.geo.slot_bytes / 8;
        let at = HEADER_BYTES / 8 + (n & self.mask) as usize * words;
        &self.mem.words()[at..at + words]
    }

    /// The hub's loss probability, as the header has it (an out-of-range value: none).
    pub fn loss(&self) -> f64 {
        let l = f64::from_bits(self.w(H_LOSS).load(Ordering::Relaxed));
        if (0.0..1.0).contains(&l) {
            l
        } else {
            0.0
        }
    }

    fn seed(&self) -> u64 {
        self.w(H_SEED).load(Ordering::Relaxed)
    }

    /// Frames and octets the writers have reported carried (added at each flush).
    pub fn carried(&self) -> (u64, u64) {
        (self.w(H_FRAMES).load(Ordering::Relaxed), self.w(H_OCTETS).load(Ordering::Relaxed))
    }

    /// Puts one frame on the ring as `sender` (see the module text); the slots it took.
    pub fn publish(&self, sender: u8, ts_ns: u64, frame: &[u8]) -> Result<u64, Refused> {
        self.publish_parts(sender, ts_ns, &[frame])
    }

    /// [`Ring::publish`] of the concatenation of `parts` (a radiotap header and an MPDU
    /// go on the ring without being joined in a buffer first).
    pub fn publish_parts(&self, sender: u8, ts_ns: u64, parts_in: &[&[u8]]) -> Result<u64, Refused> {
        let total: usize = parts_in.iter().map(|p| p.len()).sum();
        if total > MAX_FRAME {
            return Err(Refused::Oversize);
        }
        let pay = self.geo.payload();
        let parts = total.div_ceil(pay).max(1);
        let n0 = self.head().fetch_add(parts as u64, Ordering::Relaxed);
        let mut took = 0;
        while took < parts && self.take(n0 + took as u64) {
            took += 1;
        }
        if took < parts {
            // Give back what was taken, marked void, so no reader waits on it.
            for i in 0..took as u64 {
                let s = self.slot(n0 + i);
                s[1].store(Meta { len: 0, sender, part: 0, parts: 1, flags: META_VOID as u8 }.pack(), Ordering::Relaxed);
                self.release(n0 + i);
            }
            return Err(Refused::Lapped);
        }
        let mut src = Words::new(parts_in);
        for i in 0..parts {
            let s = self.slot(n0 + i as u64);
            let meta = Meta { len: total as u32, sender, part: i as u8, parts: parts as u8, flags: 0 }.pack();
            s[1].store(meta, Ordering::Relaxed);
            s[2].store(ts_ns, Ordering::Relaxed);
            let words = (total - i * pay).min(pay).div_ceil(8);
            let mut sum = Sum::new(meta, ts_ns);
            for w in &s[SLOT_HDR_WORDS..SLOT_HDR_WORDS + words] {
                let x = src.next_word();
                sum = sum.add(x);
                w.store(x, Ordering::Relaxed);
            }
            s[3].store(sum.value(), Ordering::Relaxed);
        }
        // Continuation slots first, the first slot last.
        let mut ok = true;
        for i in (0..parts as u64).rev() {
            ok &= self.release(n0 + i);
        }
        if ok {
            Ok(parts as u64)
        } else {
            Err(Refused::Lapped)
        }
    }

    /// Takes slot `n` for writing: its sequence word from anything older to `BUSY | n+1`
    /// (an older BUSY is a writer that died or was lapped: taken over). False if a later
    /// frame holds it.
    fn take(&self, n: u64) -> bool {
        let seq = &self.slot(n)[0];
        let mine = n + 1;
        let mut cur = seq.load(Ordering::Relaxed);
        loop {
            if cur & !BUSY >= mine {
                return false;
            }
            match seq.compare_exchange_weak(cur, BUSY | mine, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => break,
                Err(c) => cur = c,
            }
        }
        // The seqlock writer's fence: a reader whose copy sees any of the stores that
        // follow also sees BUSY (or later) when it reads the sequence word again.
        fence(Ordering::Release);
        true
    }

    /// Publishes slot `n` (release: its contents are visible to whoever sees `n+1`);
    /// false if another writer took it over meanwhile.
    fn release(&self, n: u64) -> bool {
        self.slot(n)[0].compare_exchange(BUSY | (n + 1), n + 1, Ordering::Release, Ordering::Relaxed).is_ok()
    }

    /// Takes a free entry of the node table for process `pid`; entries of dead processes
    /// are reclaimed when none is free. The id and the owner word (generation, pid).
    fn attach(&self, pid: u32, dead: &dyn Fn(u32) -> bool) -> io::Result<(u8, u64)> {
        let generation = (self.w(H_ATTACHES).fetch_add(1, Ordering::Relaxed) + 1) & 0xffff_ffff;
        let owner = generation.max(1) << 32 | pid as u64;
        for pass in 0..2 {
            for id in 0..NODES {
                if self.entry(id, E_OWNER).compare_exchange(0, owner, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                    self.entry(id, E_WAITING).store(0, Ordering::Relaxed);
                    return Ok((id as u8, owner));
                }
            }
            if pass == 0 {
                self.reap(dead);
            }
        }
        Err(io::Error::new(io::ErrorKind::AddrInUse, format!("shm medium: all {NODES} node entries are in use")))
    }

    /// Marks entry `id` as one to wake (its FIFO exists).
    fn set_attached(&self, id: u8) {
        self.w(H_ATTACHED).fetch_or(1 << (id as usize % NODES), Ordering::Release);
    }

    fn detach(&self, id: u8, owner: u64) {
        self.w(H_ATTACHED).fetch_and(!(1 << (id as usize % NODES)), Ordering::AcqRel);
        self.entry(id as usize, E_WAITING).store(0, Ordering::Relaxed);
        let _ = self.entry(id as usize, E_OWNER).compare_exchange(owner, 0, Ordering::AcqRel, Ordering::Relaxed);
    }

    /// Frees the entries of processes that are gone; their (id, owner) words.
    fn reap(&self, dead: &dyn Fn(u32) -> bool) -> Vec<(u8, u64)> {
        let mut v = Vec::new();
        for id in 0..NODES {
            let o = self.entry(id, E_OWNER).load(Ordering::Acquire);
            if o != 0 && dead(o as u32) {
                // Out of the mask first, so writers stop waking it, then free.
                self.w(H_ATTACHED).fetch_and(!(1 << id), Ordering::AcqRel);
                self.entry(id, E_WAITING).store(0, Ordering::Relaxed);
                if self.entry(id, E_OWNER).compare_exchange(o, 0, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                    v.push((id as u8, o));
                }
            }
        }
        v
    }
}

/// What a reader counted. Losses are in slots (a frame is one slot up to 2016 octets, all
/// of today's frames): every slot the cursor passes is counted once, in one of them.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RxStats {
    /// Frames delivered and their octets.
    pub frames: u64,
    pub octets: u64,
    /// Slots of this node's own frames, skipped.
    pub own: u64,
    /// Slots of frames the loss emulation dropped.
    pub dropped: u64,
    /// Slots lost: overwritten before they were read, torn, void, stalled or skipped.
    pub lost: u64,
    /// Times the reader was more than a ring behind and skipped ahead.
    pub overruns: u64,
    /// Copies found overwritten when checked (each also counted in `lost`).
    pub torn: u64,
    /// Slots skipped after [`STALL`] unpublished (each also counted in `lost`).
    pub stalled: u64,
}

/// One reader's place in the ring.
pub struct Reader {
    cursor: u64,
    /// Frames of this sender are skipped (None: the hub's recorder, which hears all).
    own: Option<u8>,
    loss: f64,
    rng: u64,
    /// The slot the cursor waits on and since when.
    stall: Option<(u64, Instant)>,
    stall_limit: Duration,
    pub stats: RxStats,
}

impl Reader {
    /// A reader from the ring's current head (what was sent before it attached is not
    /// heard), skipping `own`'s frames, losing a copy with probability `loss`.
    pub fn new(ring: &Ring, own: Option<u8>, loss: f64, seed: u64) -> Reader {
        let rng = (seed ^ (own.map_or(0xff, |i| i as u64) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1;
        let loss = if (0.0..1.0).contains(&loss) { loss } else { 0.0 };
        Reader { cursor: ring.head().load(Ordering::Acquire), own, loss, rng, stall: None, stall_limit: STALL, stats: RxStats::default() }
    }

    /// xorshift64*, as the UDP hub's loss pattern.
    fn uniform(&mut self) -> f64 {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        (self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn lose(&mut self, slots: u64) {
        self.stats.lost += slots;
        self.cursor += slots;
        self.stall = None;
    }

    /// True if [`Reader::next`] would do something now: a frame (or a loss to count) at
    /// the cursor, not merely a slot still being written.
    pub fn ready(&self, ring: &Ring) -> bool {
        let head = ring.head().load(Ordering::Acquire);
        if self.cursor >= head {
            return false;
        }
        if head - self.cursor > ring.geo.slots as u64 {
            return true;
        }
        let want = self.cursor + 1;
        let s = ring.slot(self.cursor)[0].load(Ordering::Acquire);
        s == want || s & !BUSY > want || matches!(self.stall, Some((c, t0)) if c == self.cursor && t0.elapsed() >= self.stall_limit)
    }

    /// The next frame for this reader into `out`: its sender and send time.
    pub fn next(&mut self, ring: &Ring, out: &mut Vec<u8>) -> Option<(u8, u64)> {
        self.next_with(ring, out, || {})
    }

    /// [`Reader::next`], calling `mid` between the copy and its check (tests race it).
    fn next_with(&mut self, ring: &Ring, out: &mut Vec<u8>, mut mid: impl FnMut()) -> Option<(u8, u64)> {
        let slots = ring.geo.slots as u64;
        let pay = ring.geo.payload();
        loop {
            let head = ring.head().load(Ordering::Acquire);
            if self.cursor >= head {
                // Never past the head (a header rewritten under us: start again there).
                self.cursor = head;
                self.stall = None;
                return None;
            }
            if head - self.cursor > slots {
                let to = head - slots / 2;
                self.stats.overruns += 1;
                self.lose(to - self.cursor);
                continue;
            }
            let n = self.cursor;
            let s = ring.slot(n);
            let s1 = s[0].load(Ordering::Acquire);
            if s1 != n + 1 {
                if s1 & !BUSY > n + 1 {
                    self.lose(1); // overwritten by a later frame
                    continue;
                }
                // Claimed, not yet published.
                let now = Instant::now();
                match self.stall {
                    Some((c, t0)) if c == n => {
                        if now.duration_since(t0) >= self.stall_limit {
                            self.stats.stalled += 1;
                            self.lose(1);
                            continue;
                        }
                    }
                    _ => self.stall = Some((n, now)),
                }
                return None;
            }
            self.stall = None;
            let meta = Meta::unpack(s[1].load(Ordering::Relaxed));
            let ts = s[2].load(Ordering::Relaxed);
            fence(Ordering::Acquire);
            if s[0].load(Ordering::Relaxed) != n + 1 {
                self.stats.torn += 1;
                self.lose(1);
                continue;
            }
            let parts = meta.parts as usize;
            let len = meta.len as usize;
            let sane = meta.flags & META_VOID as u8 == 0
                && meta.part == 0
                && (1..=ring.geo.max_parts()).contains(&parts)
                && len <= MAX_FRAME
                && len <= parts * pay
                && (parts == 1 || len > (parts - 1) * pay)
                && (meta.sender as usize) < NODES;
            if !sane {
                // Void (given up by its writer), a continuation whose first slot was
                // lost, or garbage.
                self.lose(1);
                continue;
            }
            if self.own == Some(meta.sender) {
                self.stats.own += parts as u64;
                self.cursor += parts as u64;
                continue;
            }
            if self.loss > 0.0 && self.uniform() < self.loss {
                self.stats.dropped += parts as u64;
                self.cursor += parts as u64;
                continue;
            }
            out.clear();
            out.resize(len, 0);
            let mut whole = true;
            for (i, dst) in out.chunks_mut(pay).chain(len.eq(&0).then_some(&mut [][..])).enumerate() {
                let si = ring.slot(n + i as u64);
                if i > 0 {
                    whole &= si[0].load(Ordering::Acquire) == n + i as u64 + 1;
                }
                let m = si[1].load(Ordering::Relaxed);
                whole &= Meta::unpack(m) == Meta { part: i as u8, ..meta };
                let mut sum = Sum::new(m, si[2].load(Ordering::Relaxed));
                let words = &si[SLOT_HDR_WORDS..];
                let whole_words = dst.len() / 8;
                // Whole words with fixed-size copies (no memcpy call per word), then the
                // tail's octets.
                let mut chunks = dst.chunks_exact_mut(8);
                for (d, w) in (&mut chunks).zip(words) {
                    let w = w.load(Ordering::Relaxed);
                    sum = sum.add(w);
                    *<&mut [u8; 8]>::try_from(d).expect("chunks of 8") = w.to_ne_bytes();
                }
                let tail = chunks.into_remainder();
                if !tail.is_empty() {
                    let w = words[whole_words].load(Ordering::Relaxed);
                    sum = sum.add(w);
                    let n = tail.len();
                    tail.copy_from_slice(&w.to_ne_bytes()[..n]);
                }
                whole &= sum.value() == si[3].load(Ordering::Relaxed);
            }
            mid();
            fence(Ordering::Acquire);
            let intact = (0..parts as u64).all(|i| ring.slot(n + i)[0].load(Ordering::Relaxed) == n + i + 1);
            if !(whole && intact) {
                self.stats.torn += 1;
                self.lose(1);
                continue;
            }
            self.cursor += parts as u64;
            self.stats.frames += 1;
            self.stats.octets += len as u64;
            return Some((meta.sender, ts));
        }
    }
}

/// The segment of `shm:NAME`: `/dev/shm/wsec-air-NAME`. A name is 1 to 64 of
/// `A-Z a-z 0-9 . _ -`, not starting with a dot.
pub fn path_of(name: &str) -> io::Result<PathBuf> {
    let ok =
        (1..=64).contains(&name.len()) && !name.starts_with('.') && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if !ok {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("shm medium name {name:?}: 1 to 64 of A-Z a-z 0-9 . _ - (not starting with a dot)"),
        ));
    }
    Ok(Path::new(SHM_DIR).join(format!("wsec-air-{name}")))
}

/// The directory of the nodes' FIFOs of the segment at `path`: `path` + `.d`.
pub fn fifo_dir(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".d");
    PathBuf::from(p)
}

/// True if no process `pid` exists (kill(pid, 0): ESRCH).
fn pid_gone(pid: u32) -> bool {
    let Ok(p) = libc::pid_t::try_from(pid) else { return true };
    if p <= 0 {
        return true;
    }
    // SAFETY: signal 0 sends nothing; it only checks that the process exists.
    let r = unsafe { libc::kill(p, 0) };
    r != 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// A mapped segment file and what identifies it.
pub struct Segment {
    ring: Arc<Ring>,
    path: PathBuf,
    /// (device, inode) of the file: a hub restarted makes a new one.
    ino: (u64, u64),
    nonce: u64,
}

impl Segment {
    /// Maps an existing segment after checking its header against the file: the right
    /// magic, version and geometry, and a file of this user not writable by others.
    pub fn open(path: &Path) -> io::Result<Segment> {
        let f = std::fs::OpenOptions::new().read(true).write(true).custom_flags(libc::O_NOFOLLOW).open(path)?;
        let md = f.metadata()?;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let euid = unsafe { libc::geteuid() };
        if !md.file_type().is_file() || md.uid() != euid || md.mode() & 0o022 != 0 {
            return Err(invalid(format!("{}: not a segment of this user (a regular file, not writable by others)", path.display())));
        }
        let mut h = [0u8; 10 * 8];
        f.read_exact_at(&mut h, 0).map_err(|_| invalid(format!("{}: too short for a segment header", path.display())))?;
        let word = |i: usize| u64::from_ne_bytes(h[i * 8..i * 8 + 8].try_into().unwrap_or([0; 8]));
        if word(H_MAGIC) != MAGIC {
            return Err(invalid(format!("{}: not a wsec shm medium (bad magic)", path.display())));
        }
        if word(H_VERSION) != VERSION {
            return Err(invalid(format!("{}: layout version {}, this wsec reads {VERSION}", path.display(), word(H_VERSION))));
        }
        let size = |i: usize| usize::try_from(word(i)).unwrap_or(usize::MAX);
        let geo = Geometry { slots: size(H_SLOTS), slot_bytes: size(H_SLOT_BYTES) }.check()?;
        if word(H_NODES) != NODES as u64 || word(H_TOTAL) != geo.total() as u64 || md.len() != geo.total() as u64 {
            return Err(invalid(format!("{}: header and file size disagree", path.display())));
        }
        let ring = Ring::new(Mem::Map(Mapping::map(&f, geo.total())?), geo)?;
        Ok(Segment {
            nonce: ring.w(H_NONCE).load(Ordering::Relaxed),
            ring: Arc::new(ring),
            path: path.to_path_buf(),
            ino: (md.dev(), md.ino()),
        })
    }

    /// Creates a segment at `path` (replacing one whose hub is gone) and its FIFO
    /// directory; refused if a live hub serves the name. Written under a temporary name
    /// and renamed, so a node never maps a half-made header.
    pub fn create(path: &Path, geo: Geometry, loss: f64, seed: u64) -> io::Result<Segment> {
        let geo = geo.check()?;
        if !(0.0..1.0).contains(&loss) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "loss must be in [0, 1)"));
        }
        if let Ok(old) = Segment::open(path) {
            let pid = old.ring.w(H_HUB_PID).load(Ordering::Relaxed);
            if pid != std::process::id() as u64 && !pid_gone(pid as u32) {
                return Err(io::Error::new(io::ErrorKind::AddrInUse, format!("{}: served by a running hub (pid {pid})", path.display())));
            }
        }
        use rand_core::RngCore;
        let nonce = rand_core::OsRng.next_u64();
        let name = path.file_name().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "segment path has no file name"))?;
        let tmp = path.with_file_name(format!(".{}.{}.{nonce:016x}", name.to_string_lossy(), std::process::id()));
        let f =
            std::fs::OpenOptions::new().read(true).write(true).create_new(true).mode(0o600).custom_flags(libc::O_NOFOLLOW).open(&tmp)?;
        let made = (|| {
            f.set_len(geo.total() as u64)?;
            let ring = Ring::new(Mem::Map(Mapping::map(&f, geo.total())?), geo)?;
            ring.init(loss, seed, std::process::id(), nonce);
            // FIFOs of an earlier hub's nodes go with it.
            let dir = fifo_dir(path);
            match std::fs::symlink_metadata(&dir) {
                Ok(m) if m.is_dir() => std::fs::remove_dir_all(&dir)?,
                Ok(_) => std::fs::remove_file(&dir)?,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
            std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
            std::fs::rename(&tmp, path)?;
            let md = f.metadata()?;
            Ok(Segment { ring: Arc::new(ring), path: path.to_path_buf(), ino: (md.dev(), md.ino()), nonce })
        })();
        if made.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        made
    }

    pub fn ring(&self) -> &Ring {
        &self.ring
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn fifo_path(&self, id: u8, owner: u64) -> PathBuf {
        fifo_dir(&self.path).join(format!("{:016x}-{id}-{}", self.nonce, owner >> 32))
    }

    /// True while `path` is still this segment's file.
    fn is_current(&self) -> bool {
        std::fs::symlink_metadata(&self.path).is_ok_and(|m| (m.dev(), m.ino()) == self.ino)
    }

    /// Frees the entries of dead processes and removes their FIFOs (the hub, each second).
    pub fn reap(&self) -> usize {
        let gone = self.ring.reap(&pid_gone);
        for (id, owner) in &gone {
            let _ = std::fs::remove_file(self.fifo_path(*id, *owner));
        }
        gone.len()
    }
}

/// Opens a FIFO read-write and non-blocking: never EPIPE/ENXIO whoever else has it open.
fn open_fifo(p: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new().read(true).write(true).custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW).open(p)
}

/// What a node's writer counted.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TxStats {
    pub frames: u64,
    pub octets: u64,
    /// Frames over [`MAX_FRAME`], refused.
    pub refused: u64,
    /// Frames lost because their slot was taken by a writer a ring ahead.
    pub lapped: u64,
    /// Bytes written to sleeping readers' FIFOs.
    pub wakes: u64,
    /// Times the node found a new segment at its path and moved to it (a hub restarted).
    pub reattached: u64,
}

/// A node's attachment to a `shm:` medium.
pub struct ShmMedium {
    seg: Segment,
    id: u8,
    owner: u64,
    fifo: File,
    fifo_path: PathBuf,
    reader: Reader,
    channel: u8,
    /// The hub's recorder: hears every frame, no loss.
    record: bool,
    /// `waiting` set by [`Medium::prepare_wait`], not yet cleared.
    armed: bool,
    /// Wake-up bytes writers took our flag for and that are not yet read from the FIFO.
    owed: u64,
    /// Frames and octets since the last wake check.
    pending: u32,
    pending_octets: u64,
    /// Other nodes' FIFOs, opened on first need, per id with the owner word they are for.
    peers: Vec<Option<(u64, File)>>,
    tx: TxStats,
    /// Receive counters of segments left behind (a hub restart).
    rx_before: RxStats,
}

impl ShmMedium {
    /// Attaches to the segment of `shm:NAME`.
    pub fn open(name: &str, channel: u8) -> io::Result<ShmMedium> {
        let path = path_of(name)?;
        Self::attach(&path, channel).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => {
                io::Error::new(io::ErrorKind::NotFound, format!("no shm medium {name} ({}): start `wsec air --shm {name}`", path.display()))
            }
            _ => e,
        })
    }

    /// Attaches to the segment at `path`.
    pub fn attach(path: &Path, channel: u8) -> io::Result<ShmMedium> {
        Self::join(Segment::open(path)?, channel, false)
    }

    fn join(seg: Segment, channel: u8, record: bool) -> io::Result<ShmMedium> {
        let (id, owner) = seg.ring.attach(std::process::id(), &pid_gone)?;
        let fifo_path = seg.fifo_path(id, owner);
        let fifo = (|| {
            match std::fs::remove_file(&fifo_path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
            let c = std::ffi::CString::new(fifo_path.as_os_str().as_encoded_bytes()).map_err(|_| invalid("FIFO path"))?;
            // SAFETY: c is a NUL-terminated path that lives across the call.
            if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
                let e = io::Error::last_os_error();
                return Err(io::Error::new(e.kind(), format!("FIFO {}: {e} (is the hub running?)", fifo_path.display())));
            }
            open_fifo(&fifo_path)
        })();
        let fifo = match fifo {
            Ok(f) => f,
            Err(e) => {
                seg.ring.detach(id, owner);
                return Err(e);
            }
        };
        seg.ring.set_attached(id);
        let (loss, seed) = if record { (0.0, 0) } else { (seg.ring.loss(), seg.ring.seed()) };
        let reader = Reader::new(&seg.ring, (!record).then_some(id), loss, seed);
        Ok(ShmMedium {
            seg,
            id,
            owner,
            fifo,
            fifo_path,
            reader,
            channel,
            record,
            armed: false,
            owed: 0,
            pending: 0,
            pending_octets: 0,
            peers: (0..NODES).map(|_| None).collect(),
            tx: TxStats::default(),
            rx_before: RxStats::default(),
        })
    }

    /// This node's id on the segment.
    pub fn id(&self) -> u8 {
        self.id
    }

    pub fn rx_stats(&self) -> RxStats {
        let (a, b) = (self.rx_before, self.reader.stats);
        RxStats {
            frames: a.frames + b.frames,
            octets: a.octets + b.octets,
            own: a.own + b.own,
            dropped: a.dropped + b.dropped,
            lost: a.lost + b.lost,
            overruns: a.overruns + b.overruns,
            torn: a.torn + b.torn,
            stalled: a.stalled + b.stalled,
        }
    }

    pub fn tx_stats(&self) -> TxStats {
        self.tx
    }

    /// The next frame into `buf` and the time its sender put it on the ring (ns since the
    /// epoch, as the sender's clock said).
    pub fn recv_frame(&mut self, buf: &mut Vec<u8>) -> Option<u64> {
        if self.armed {
            self.disarm();
        }
        self.reader.next(&self.seg.ring, buf).map(|(_, ts)| ts)
    }

    /// Clears our `waiting` word; a writer that cleared it first owes us a byte in the
    /// FIFO: read what has come.
    fn disarm(&mut self) {
        self.armed = false;
        if self.seg.ring.entry(self.id as usize, E_WAITING).swap(0, Ordering::Relaxed) == 0 {
            self.owed += 1;
        }
        let mut b = [0u8; 64];
        while self.owed > 0 {
            match (&self.fifo).read(&mut b[..self.owed.min(64) as usize]) {
                Ok(n) if n > 0 => self.owed -= n as u64,
                // Not written yet (the writer is between its swap and its write): the
                // next disarm reads it.
                _ => break,
            }
        }
    }

    /// Wakes the readers that sleep (see the module text for the ordering).
    fn wake(&mut self) {
        if self.pending == 0 {
            return;
        }
        let ring = self.seg.ring.clone();
        ring.w(H_FRAMES).fetch_add(self.pending as u64, Ordering::Relaxed);
        ring.w(H_OCTETS).fetch_add(self.pending_octets, Ordering::Relaxed);
        self.pending = 0;
        self.pending_octets = 0;
        fence(Ordering::SeqCst);
        let mut others = ring.w(H_ATTACHED).load(Ordering::Acquire) & !(1u64 << self.id);
        while others != 0 {
            let i = others.trailing_zeros() as usize;
            others &= others - 1;
            let w = ring.entry(i, E_WAITING);
            if w.load(Ordering::Relaxed) != 0 && w.swap(0, Ordering::Relaxed) != 0 {
                self.poke(i);
            }
        }
    }

    /// One byte to node `i`'s FIFO (a full FIFO already has bytes: nothing lost).
    fn poke(&mut self, i: usize) {
        let owner = self.seg.ring.entry(i, E_OWNER).load(Ordering::Acquire);
        if owner == 0 {
            return;
        }
        if !matches!(&self.peers[i], Some((o, _)) if *o == owner) {
            self.peers[i] = open_fifo(&self.seg.fifo_path(i as u8, owner)).ok().map(|f| (owner, f));
        }
        if let Some((_, f)) = &self.peers[i] {
            if (&*f).write(&[1]).is_ok() {
                self.tx.wakes += 1;
            }
        }
    }

    /// Moves to a new segment at the same path (the hub was restarted): the old one has
    /// no recorder and no new nodes any more.
    fn follow(&mut self) {
        if self.seg.is_current() {
            return;
        }
        let Ok(seg) = Segment::open(&self.seg.path) else { return };
        if let Ok(mut new) = Self::join(seg, self.channel, self.record) {
            new.tx = self.tx;
            new.tx.reattached += 1;
            new.rx_before = self.rx_stats();
            *self = new;
        }
    }
}

impl Drop for ShmMedium {
    fn drop(&mut self) {
        self.wake();
        self.seg.ring.detach(self.id, self.owner);
        let _ = std::fs::remove_file(&self.fifo_path);
    }
}

impl Medium for ShmMedium {
    fn send(&mut self, mpdu: &[u8]) -> io::Result<()> {
        // Radiotap without an FCS (see `super::radiotap`), gathered onto the ring.
        let rt = super::radiotap(self.channel, false);
        let len = (rt.len() + mpdu.len()) as u64;
        let ts = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        match self.seg.ring.publish_parts(self.id, ts, &[&rt, mpdu]) {
            Ok(_) => {
                self.tx.frames += 1;
                self.tx.octets += len;
                self.pending += 1;
                self.pending_octets += len;
            }
            // Counted and reported at exit; the node goes on, as a radio's "too long to send".
            Err(Refused::Oversize) => self.tx.refused += 1,
            Err(Refused::Lapped) => self.tx.lapped += 1,
        }
        if self.pending >= WAKE_EVERY {
            self.wake();
        }
        Ok(())
    }

    fn recv(&mut self, buf: &mut Vec<u8>) -> io::Result<bool> {
        Ok(self.recv_frame(buf).is_some())
    }

    fn fd(&self) -> RawFd {
        self.fifo.as_raw_fd()
    }

    fn flush(&mut self) -> io::Result<()> {
        self.wake();
        Ok(())
    }

    fn prepare_wait(&mut self) -> io::Result<bool> {
        self.wake();
        self.seg.ring.entry(self.id as usize, E_WAITING).store(1, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        self.armed = true;
        if self.reader.ready(&self.seg.ring) {
            self.disarm();
            return Ok(true);
        }
        Ok(false)
    }

    fn tick(&mut self) -> io::Result<()> {
        self.follow();
        Ok(())
    }

    fn describe(&self) -> String {
        let (r, t) = (self.rx_stats(), self.tx);
        format!(
            "shm {} id {}: out {} frames ({} octets), refused (too long) {}, lapped {}, wake-ups sent {}; in {} frames ({} octets), own skipped {}, loss emulated {}, lost {} (overruns {}, torn {}, stalled {}){}",
            self.seg.path.display(),
            self.id,
            t.frames,
            t.octets,
            t.refused,
            t.lapped,
            t.wakes,
            r.frames,
            r.octets,
            r.own,
            r.dropped,
            r.lost,
            r.overruns,
            r.torn,
            r.stalled,
            if t.reattached > 0 { format!(", moved to a new segment {} time(s)", t.reattached) } else { String::new() }
        )
    }
}

/// What the `shm` hub counted.
#[derive(Debug, Default, Clone, Copy)]
pub struct ShmHubStats {
    /// Frames and octets the nodes put on the ring (reported at their flushes).
    pub frames: u64,
    pub octets: u64,
    /// Frames written to the capture, and what its reader lost.
    pub recorded: u64,
    pub record_lost: u64,
    /// Entries of dead nodes freed.
    pub reaped: u64,
}

/// Frames (send time, bytes) from the recorder to the capture writer, a batch at a time.
pub(crate) type Batch = Vec<(u64, Vec<u8>)>;

/// Capture buffer: records are staged here and written whole.
const PCAP_BUF: usize = 1 << 20;
/// The capture is written out at least this often (a killed hub leaves a readable file up
/// to the last write).
pub const PCAP_FLUSH: Duration = Duration::from_millis(200);

/// `wsec air --shm NAME`: the segment, its recorder and the node table's housekeeping.
pub struct ShmHub {
    recorder: Option<ShmMedium>,
    pcap: Option<File>,
    seg: Segment,
}

impl ShmHub {
    /// Creates the segment at `path` (see [`Segment::create`]) and the capture file.
    pub fn create(path: &Path, geo: Geometry, loss: f64, seed: u64, pcap: Option<&Path>) -> io::Result<ShmHub> {
        let pcap = pcap.map(File::create).transpose()?;
        let seg = Segment::create(path, geo, loss, seed)?;
        let recorder = match pcap {
            Some(_) => Some(ShmMedium::join(Segment::open(path)?, 0, true)?),
            None => None,
        };
        Ok(ShmHub { recorder, pcap, seg })
    }

    pub fn path(&self) -> &Path {
        self.seg.path()
    }

    pub fn geometry(&self) -> Geometry {
        self.seg.ring.geo
    }

    /// Runs until `stop`: records the air (a writer thread behind a bounded queue, so a
    /// slow disk costs the capture's reader its place in the ring, not the nodes), frees
    /// dead nodes' entries each second. The capture is complete when this returns.
    pub fn run(&mut self, stop: &AtomicBool) -> io::Result<ShmHubStats> {
        let mut st = ShmHubStats::default();
        let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(64);
        let writer = self.pcap.take().map(|f| std::thread::spawn(move || write_pcap(f, rx)));
        let mut last_reap = Instant::now();
        let mut queue = Some(tx);
        while !stop.load(Ordering::Relaxed) {
            match self.recorder.as_mut() {
                Some(r) => {
                    if !r.prepare_wait()? {
                        let mut p = libc::pollfd { fd: r.fd(), events: libc::POLLIN, revents: 0 };
                        // SAFETY: one valid pollfd; EINTR (a signal: stop) is fine.
                        unsafe { libc::poll(&mut p, 1, 100) };
                    }
                    record(r, &mut queue, &mut st);
                }
                None => std::thread::sleep(Duration::from_millis(100)),
            }
            if last_reap.elapsed() >= Duration::from_secs(1) {
                last_reap = Instant::now();
                st.reaped += self.seg.reap() as u64;
            }
        }
        if let Some(r) = self.recorder.as_mut() {
            record(r, &mut queue, &mut st);
            st.record_lost = r.rx_stats().lost;
        }
        drop(queue);
        if let Some(w) = writer {
            w.join().map_err(|_| io::Error::other("capture writer panicked"))??;
        }
        (st.frames, st.octets) = self.seg.ring.carried();
        Ok(st)
    }
}

/// What the recorder has waiting, in batches, to the writer thread.
fn record(r: &mut ShmMedium, queue: &mut Option<std::sync::mpsc::SyncSender<Batch>>, st: &mut ShmHubStats) {
    loop {
        let mut batch = Vec::new();
        while batch.len() < 256 {
            let mut b = Vec::new();
            match r.recv_frame(&mut b) {
                Some(ts) => batch.push((ts, b)),
                None => break,
            }
        }
        if batch.is_empty() {
            return;
        }
        let n = batch.len() as u64;
        // A failed writer ends the recording (its error comes at the join).
        if queue.as_ref().is_some_and(|q| q.send(batch).is_ok()) {
            st.recorded += n;
        } else {
            *queue = None;
        }
    }
}

/// The capture writer: records go into a [`std::io::BufWriter`] and out at least every
/// [`PCAP_FLUSH`], and always whole (a flush when a quarter of the buffer is used, so
/// the buffer never writes out part of a record on its own).
pub(crate) fn write_pcap(f: File, rx: std::sync::mpsc::Receiver<Batch>) -> io::Result<()> {
    use wsec::capture::{radio::LINKTYPE_RADIOTAP, writer::CaptureWriter, Packet};
    let mut w = CaptureWriter::pcap(io::BufWriter::with_capacity(PCAP_BUF, f), LINKTYPE_RADIOTAP, true)?;
    w.flush()?;
    let (mut staged, mut last) = (0usize, Instant::now());
    loop {
        let left = PCAP_FLUSH.saturating_sub(last.elapsed());
        match rx.recv_timeout(left) {
            Ok(batch) => {
                for (ts_ns, data) in batch {
                    staged += 16 + data.len();
                    w.write(&Packet { linktype: LINKTYPE_RADIOTAP, ts_ns, data })?;
                    if staged >= PCAP_BUF / 4 {
                        w.flush()?;
                        (staged, last) = (0, Instant::now());
                    }
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if last.elapsed() >= PCAP_FLUSH {
            if staged > 0 {
                w.flush()?;
            }
            (staged, last) = (0, Instant::now());
        }
    }
    w.finish()?.flush()
}

impl Drop for ShmHub {
    fn drop(&mut self) {
        self.recorder = None;
        if self.seg.is_current() {
            let _ = std::fs::remove_file(&self.seg.path);
            let _ = std::fs::remove_dir_all(fifo_dir(&self.seg.path));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: Geometry = Geometry { slots: 64, slot_bytes: 2048 };

    /// A frame whose every octet says who sent it and which it is.
    fn frame(sender: u8, i: u64, len: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(len);
        v.extend((0..len).map(|k| (k as u64).wrapping_mul(31).wrapping_add(i * 7 + sender as u64) as u8));
        if len >= 9 {
            v[0] = sender;
            v[1..9].copy_from_slice(&i.to_le_bytes());
        }
        v
    }

    fn ident(f: &[u8]) -> (u8, u64) {
        (f[0], u64::from_le_bytes(f[1..9].try_into().unwrap()))
    }

    #[test]
    fn frames_wrap_around_the_ring_and_span_slots() {
        let ring = Ring::on_heap(SMALL, 0.0, 1);
        let mut r = Reader::new(&ring, Some(1), 0.0, 1);
        let pay = SMALL.payload();
        // Lengths from empty to the largest frame, up to 9 slots each, round the ring 7 times.
        let lens = [0, 1, 9, 100, pay - 1, pay, pay + 1, 2 * pay, 3839, 7935, MAX_FRAME];
        let mut out = Vec::new();
        let (mut slots, mut octets) = (0, 0);
        for i in 0..200u64 {
            let len = lens[i as usize % lens.len()];
            octets += len as u64;
            let f = frame(0, i, len);
            slots += ring.publish(0, 1000 + i, &f).unwrap();
            assert_eq!(r.next(&ring, &mut out), Some((0, 1000 + i)), "frame {i} of {len} octets");
            assert_eq!(out, f, "frame {i} of {len} octets");
            assert_eq!(r.next(&ring, &mut out), None);
        }
        assert!(slots > 5 * SMALL.slots as u64, "{slots} slots: the ring wrapped");
        assert_eq!(r.stats, RxStats { frames: 200, octets, ..Default::default() });
        assert_eq!(ring.head().load(Ordering::Relaxed), slots);
    }

    #[test]
    fn a_frame_given_in_parts_arrives_whole() {
        let ring = Ring::on_heap(SMALL, 0.0, 1);
        let mut r = Reader::new(&ring, Some(1), 0.0, 1);
        let pay = SMALL.payload();
        let mut out = Vec::new();
        // Cuts at every offset of a word and across slot boundaries, empty parts too.
        for (i, len) in [0, 1, 7, 8, 9, 14 + 1500, pay - 3, pay + 5, 3 * pay + 1, 7935].into_iter().enumerate() {
            let f = frame(0, i as u64, len);
            for cut in [0, 1, 3, 8, 13, 14, len / 2, len.saturating_sub(1), len] {
                let cut = cut.min(len);
                let (a, b) = f.split_at(cut);
                ring.publish_parts(0, 7, &[a, &[], b]).unwrap();
                assert_eq!(r.next(&ring, &mut out), Some((0, 7)), "{len} octets cut at {cut}");
                assert_eq!(out, f, "{len} octets cut at {cut}");
            }
        }
        assert_eq!(ring.publish_parts(0, 7, &[&vec![0; MAX_FRAME], &[1]]), Err(Refused::Oversize));
    }

    #[test]
    fn a_slow_reader_skips_ahead_and_counts_what_it_lost() {
        let ring = Ring::on_heap(SMALL, 0.0, 1);
        let mut r = Reader::new(&ring, Some(1), 0.0, 1);
        for i in 0..200 {
            ring.publish(0, 0, &frame(0, i, 100)).unwrap();
        }
        let mut out = Vec::new();
        let mut got = Vec::new();
        while r.next(&ring, &mut out).is_some() {
            got.push(ident(&out).1);
        }
        // Half a ring behind the head: the newest 32 frames, in order.
        assert_eq!(got, (168..200).collect::<Vec<_>>());
        assert_eq!((r.stats.lost, r.stats.overruns, r.stats.frames), (168, 1, 32));
        // Within a ring: nothing lost.
        for i in 200..250 {
            ring.publish(0, 0, &frame(0, i, 100)).unwrap();
        }
        let mut n = 0;
        while r.next(&ring, &mut out).is_some() {
            assert_eq!(ident(&out).1, 200 + n);
            n += 1;
        }
        assert_eq!((n, r.stats.lost), (50, 168));
    }

    #[test]
    fn a_copy_overwritten_while_read_is_torn_not_delivered() {
        let ring = Ring::on_heap(SMALL, 0.0, 1);
        let mut r = Reader::new(&ring, Some(1), 0.0, 1);
        ring.publish(0, 0, &frame(0, 0, 500)).unwrap();
        let mut out = Vec::new();
        // While the reader holds its copy of frame 0, a ring's worth is written over it.
        let mut once = true;
        let got = r.next_with(&ring, &mut out, || {
            if std::mem::take(&mut once) {
                for i in 1..=SMALL.slots as u64 {
                    ring.publish(2, 0, &frame(2, i, 500)).unwrap();
                }
            }
        });
        // The reader then goes on with frame 1: its slot is intact.
        assert_eq!(got, Some((2, 0)));
        assert_eq!(ident(&out), (2, 1));
        assert_eq!((r.stats.torn, r.stats.lost), (1, 1));
        // A lapped writer's late store into a slot published by the writer that took it
        // over: the sequence word is fine, the checksum is not.
        let ring = Ring::on_heap(SMALL, 0.0, 1);
        let mut r = Reader::new(&ring, Some(1), 0.0, 1);
        ring.publish(0, 0, &frame(0, 0, 500)).unwrap();
        ring.publish(0, 0, &frame(0, 1, 500)).unwrap();
        ring.slot(0)[SLOT_HDR_WORDS + 20].fetch_xor(1 << 9, Ordering::Relaxed);
        assert_eq!(r.next(&ring, &mut out).map(|_| ident(&out)), Some((0, 1)));
        assert_eq!((r.stats.torn, r.stats.lost, r.stats.frames), (1, 1, 1));
        // A continuation slot taken by a writer a ring ahead while a frame of three is
        // copied: the frame is lost, and the slots after its first are passed.
        let ring = Ring::on_heap(SMALL, 0.0, 1);
        let mut r = Reader::new(&ring, Some(1), 0.0, 1);
        ring.publish(0, 0, &frame(0, 0, 2 * SMALL.payload() + 10)).unwrap();
        let mut once = true;
        let got = r.next_with(&ring, &mut out, || {
            if std::mem::take(&mut once) {
                assert!(ring.take(2 + SMALL.slots as u64));
            }
        });
        assert_eq!(got, None);
        assert_eq!((r.stats.torn, r.stats.lost, r.stats.frames, r.cursor), (1, 3, 0, 3));
    }

    #[test]
    fn own_frames_are_skipped_void_and_stalled_slots_passed() {
        let ring = Ring::on_heap(SMALL, 0.0, 1);
        let pay = SMALL.payload();
        let mut a = Reader::new(&ring, Some(0), 0.0, 1);
        let mut b = Reader::new(&ring, Some(1), 0.0, 1);
        let mut out = Vec::new();
        ring.publish(0, 0, &frame(0, 0, 3000)).unwrap();
        ring.publish(1, 0, &frame(1, 0, 50)).unwrap();
        assert_eq!(a.next(&ring, &mut out), Some((1, 0)));
        assert_eq!(a.next(&ring, &mut out), None);
        assert_eq!((a.stats.own, a.stats.frames), (2, 1), "its own frame of two slots skipped");
        assert_eq!(b.next(&ring, &mut out).map(|_| ident(&out)), Some((0, 0)));
        assert_eq!(b.next(&ring, &mut out), None);
        assert_eq!((b.stats.own, b.stats.frames), (1, 1));
        // A slot claimed by a writer that never publishes (killed mid-copy): the reader
        // waits, then skips it after its stall limit and goes on.
        b.stall_limit = Duration::from_millis(30);
        ring.head().fetch_add(1, Ordering::Relaxed);
        ring.publish(0, 0, &frame(0, 9, 50)).unwrap();
        assert_eq!(b.next(&ring, &mut out), None);
        assert!(!b.ready(&ring));
        std::thread::sleep(Duration::from_millis(40));
        assert!(b.ready(&ring));
        assert_eq!(b.next(&ring, &mut out).map(|_| ident(&out)), Some((0, 9)));
        assert_eq!((b.stats.stalled, b.stats.lost), (1, 1));
        // A writer that finds a slot of its frame taken by a later frame gives back what
        // it took, void: readers pass void and lapped slots without waiting, and skip the
        // slot it never took after the stall limit.
        let n = ring.head().load(Ordering::Relaxed);
        ring.slot(n + 1)[0].store(n + 1 + SMALL.slots as u64 + 1, Ordering::Relaxed);
        assert_eq!(ring.publish(0, 0, &frame(0, 10, 3 * pay)), Err(Refused::Lapped));
        assert_eq!(ring.head().load(Ordering::Relaxed), n + 3);
        assert_eq!(Meta::unpack(ring.slot(n)[1].load(Ordering::Relaxed)).flags, META_VOID as u8);
        ring.publish(0, 0, &frame(0, 11, 50)).unwrap();
        assert_eq!(b.next(&ring, &mut out), None, "waits on the slot never taken");
        assert_eq!(b.cursor, n + 2);
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(b.next(&ring, &mut out).map(|_| ident(&out)), Some((0, 11)));
        assert_eq!((b.stats.stalled, b.stats.lost, b.stats.frames), (2, 4, 3));
    }

    #[test]
    fn oversize_is_refused_and_claims_nothing() {
        let ring = Ring::on_heap(SMALL, 0.0, 1);
        assert_eq!(ring.publish(0, 0, &vec![0u8; MAX_FRAME + 1]), Err(Refused::Oversize));
        assert_eq!(ring.head().load(Ordering::Relaxed), 0);
        assert_eq!(ring.publish(0, 0, &vec![0u8; MAX_FRAME]), Ok(MAX_FRAME.div_ceil(SMALL.payload()) as u64));
    }

    #[test]
    fn loss_is_emulated_per_receiver_and_reproducible() {
        let ring = Ring::on_heap(Geometry { slots: 4096, slot_bytes: 256 }, 0.25, 7);
        let mut a = Reader::new(&ring, Some(1), ring.loss(), ring.seed());
        let mut b = Reader::new(&ring, Some(2), ring.loss(), ring.seed());
        let mut a2 = Reader::new(&ring, Some(1), ring.loss(), ring.seed());
        for i in 0..2000 {
            ring.publish(0, 0, &frame(0, i, 60)).unwrap();
        }
        let mut out = Vec::new();
        let mut got = |r: &mut Reader| {
            let mut v = Vec::new();
            while r.next(&ring, &mut out).is_some() {
                v.push(ident(&out).1);
            }
            v
        };
        let (ga, gb, ga2) = (got(&mut a), got(&mut b), got(&mut a2));
        assert_eq!(ga, ga2, "same seed, same receiver: same pattern");
        assert_ne!(ga, gb, "each receiver loses its own copies");
        for (g, r) in [(&ga, &a), (&gb, &b)] {
            assert_eq!(g.len() as u64 + r.stats.dropped, 2000);
            assert!((1300..1700).contains(&g.len()), "{} of 2000 delivered at 25% loss", g.len());
        }
    }

    #[test]
    fn bad_geometry_and_names_are_errors() {
        for (slots, bytes) in [(63, 2048), (0, 2048), (64, 100), (64, 2000), (1 << 21, 2048), (16, 2048), (1 << 20, 1 << 16)] {
            assert!(Geometry { slots, slot_bytes: bytes }.check().is_err(), "{slots} x {bytes}");
        }
        assert!(Geometry::DEFAULT.check().is_ok());
        for bad in ["", ".x", "a/b", "a b", "ä", &"x".repeat(65)] {
            assert!(path_of(bad).is_err(), "{bad:?}");
        }
        assert_eq!(path_of("lab-1.x_y").unwrap(), Path::new("/dev/shm/wsec-air-lab-1.x_y"));
    }

    /// Nodes on threads, each sending bursts and reading between them, on a small ring
    /// (so readers fall behind and slots are overwritten under them): every delivered
    /// frame is intact, from another node, with its time, and each sender's frames come
    /// in order; every slot each reader passed is accounted for once.
    #[test]
    fn writers_and_readers_on_threads_every_frame_checked() {
        const N: usize = 4;
        const PER: u64 = 20_000;
        let geo = Geometry { slots: 1024, slot_bytes: 512 };
        let pay = geo.payload();
        let ring = Arc::new(Ring::on_heap(geo, 0.0, 1));
        let done = Arc::new(AtomicU64::new(0));
        // Every reader from slot 0, before any thread sends.
        let readers: Vec<Reader> = (0..N as u8).map(|id| Reader::new(&ring, Some(id), 0.0, 1)).collect();
        let threads: Vec<_> = (0..N as u8)
            .zip(readers)
            .map(|(id, mut r)| {
                let (ring, done) = (ring.clone(), done.clone());
                std::thread::spawn(move || {
                    let mut last = [None::<u64>; N];
                    let (mut out, mut claimed, mut delivered_slots) = (Vec::new(), 0u64, 0u64);
                    let mut drain = |r: &mut Reader, delivered_slots: &mut u64| {
                        while let Some((s, ts)) = r.next(&ring, &mut out) {
                            let (fs, i) = ident(&out);
                            assert_ne!(s, id, "own frame delivered");
                            assert_eq!((fs, ts), (s, i), "sender and time as written");
                            assert_eq!(out, frame(s, i, out.len()), "content of frame {i} from {s}");
                            assert!(last[s as usize] < Some(i), "order of {s}: {i} after {:?}", last[s as usize]);
                            last[s as usize] = Some(i);
                            *delivered_slots += out.len().div_ceil(pay) as u64;
                        }
                    };
                    let mut x = 0x1234_5678u64 + id as u64;
                    let mut sent = 0;
                    while sent < PER {
                        for _ in 0..1 + x % 16 {
                            x ^= x << 13;
                            x ^= x >> 7;
                            x ^= x << 17;
                            let len = 9 + (x % 1400) as usize;
                            if sent < PER {
                                claimed += len.div_ceil(pay) as u64;
                                // A writer lapped a whole ring (preempted that long) loses
                                // its frame; readers count its slots as lost.
                                assert!(matches!(ring.publish(id, sent, &frame(id, sent, len)), Ok(_) | Err(Refused::Lapped)));
                                sent += 1;
                            }
                        }
                        drain(&mut r, &mut delivered_slots);
                    }
                    done.fetch_add(1, Ordering::SeqCst);
                    while done.load(Ordering::SeqCst) < N as u64 {
                        drain(&mut r, &mut delivered_slots);
                        std::thread::yield_now();
                    }
                    drain(&mut r, &mut delivered_slots);
                    (r.stats, claimed, r.cursor, delivered_slots)
                })
            })
            .collect();
        let res: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let head = ring.head().load(Ordering::SeqCst);
        assert_eq!(head, res.iter().map(|r| r.1).sum::<u64>(), "no claim lost or doubled");
        for (i, (st, claimed, cursor, delivered_slots)) in res.iter().enumerate() {
            eprintln!("node {i}: {st:?}");
            assert_eq!(*cursor, head, "node {i} read to the end");
            assert!(st.own <= *claimed);
            assert!(st.frames > 0, "node {i} heard nothing");
            assert_eq!(st.lost + st.own + st.dropped + delivered_slots, head, "node {i}: every slot once");
        }
    }

    /// A segment in a fresh directory of its own (not /dev/shm: tests run in parallel).
    fn segment(tag: &str, loss: f64) -> (PathBuf, Segment) {
        let dir = std::env::temp_dir().join(format!("wsec-shm-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("wsec-air-t");
        let seg = Segment::create(&path, SMALL, loss, 5).unwrap();
        (dir, seg)
    }

    fn readable(fd: RawFd, ms: i32) -> bool {
        let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd for the length given.
        unsafe { libc::poll(&mut p, 1, ms) == 1 }
    }

    fn mpdu(i: u32, len: usize) -> Vec<u8> {
        let mut m = vec![0x08, 0x02];
        m.extend((0..len).map(|k| (k as u32 ^ i) as u8));
        m[2..6].copy_from_slice(&i.to_le_bytes());
        m
    }

    #[test]
    fn a_burst_wakes_a_sleeping_node_once_and_a_busy_one_never() {
        let (dir, seg) = segment("wake", 0.0);
        let mut a = ShmMedium::attach(seg.path(), 6).unwrap();
        let mut b = ShmMedium::attach(seg.path(), 6).unwrap();
        assert_ne!(a.id(), b.id());
        let mut buf = Vec::new();
        assert!(!b.prepare_wait().unwrap(), "nothing on the air");
        assert!(!readable(b.fd(), 0));
        for i in 0..3 {
            a.send(&mpdu(i, 100)).unwrap();
        }
        assert!(!readable(b.fd(), 20), "no wake-up before the burst ends");
        a.flush().unwrap();
        assert!(readable(b.fd(), 1000), "the end of the burst wakes the sleeper");
        a.send(&mpdu(3, 100)).unwrap();
        a.flush().unwrap();
        assert_eq!(a.tx_stats().wakes, 1, "one wake-up for a reader that has not looked yet");
        for i in 0..4 {
            assert!(b.recv(&mut buf).unwrap());
            assert_eq!(super::super::decap(&buf).unwrap(), mpdu(i, 100), "frame {i}");
        }
        assert!(!b.recv(&mut buf).unwrap());
        assert!(!readable(b.fd(), 0), "the wake-up byte was read");
        // A node that has not said it sleeps is not woken; its next look finds the frames.
        a.send(&mpdu(4, 100)).unwrap();
        a.flush().unwrap();
        assert_eq!(a.tx_stats().wakes, 1);
        assert!(b.prepare_wait().unwrap(), "frames waiting: do not sleep");
        assert!(b.recv(&mut buf).unwrap());
        // A long burst wakes the sleeper after WAKE_EVERY frames, before it ends.
        assert!(!b.prepare_wait().unwrap());
        for i in 0..WAKE_EVERY {
            a.send(&mpdu(10 + i, 100)).unwrap();
        }
        assert!(readable(b.fd(), 1000));
        assert_eq!(a.tx_stats().wakes, 2);
        // No node hears itself; the frames and the refused one are counted.
        assert!(!a.recv(&mut buf).unwrap());
        a.send(&vec![0u8; MAX_FRAME]).unwrap();
        assert_eq!((a.rx_stats().own, a.tx_stats().frames, a.tx_stats().refused), (5 + WAKE_EVERY as u64, 5 + WAKE_EVERY as u64, 1));
        assert!(a.describe().contains("refused (too long) 1"), "{}", a.describe());
        drop((a, b, seg));
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A sender on one thread, a sleeper on another, bursts of random sizes: every wait
    /// ends with frames (no wake-up lost, or the poll would time out), every frame comes.
    #[test]
    fn no_wake_up_is_lost_between_threads() {
        let (dir, seg) = segment("race", 0.0);
        let mut a = ShmMedium::attach(seg.path(), 6).unwrap();
        let mut b = ShmMedium::attach(seg.path(), 6).unwrap();
        const FRAMES: u32 = 20_000;
        // The sender stays within half the ring of the receiver: this is about wake-ups.
        let heard = Arc::new(AtomicU64::new(0));
        let h2 = heard.clone();
        let rx = std::thread::spawn(move || {
            let (mut buf, mut next, mut sleeps, mut arms) = (Vec::new(), 0u32, 0u32, 0u32);
            while next < FRAMES {
                arms += 1;
                if !b.prepare_wait().unwrap() {
                    sleeps += 1;
                    assert!(readable(b.fd(), 5000), "a wake-up was lost after frame {next}");
                }
                while b.recv(&mut buf).unwrap() {
                    assert_eq!(super::super::decap(&buf).unwrap(), mpdu(next, 40 + next as usize % 200));
                    next += 1;
                    h2.store(next as u64, Ordering::Relaxed);
                }
            }
            (sleeps, arms, b.rx_stats())
        });
        let mut x = 99u64;
        let mut i = 0;
        while i < FRAMES {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            while i as u64 > heard.load(Ordering::Relaxed) + SMALL.slots as u64 / 2 - 8 {
                std::thread::yield_now();
            }
            for _ in 0..=x % 8 {
                if i < FRAMES {
                    a.send(&mpdu(i, 40 + i as usize % 200)).unwrap();
                    i += 1;
                }
            }
            a.flush().unwrap();
            if x.is_multiple_of(3) {
                std::thread::yield_now();
            }
        }
        let (sleeps, arms, st) = rx.join().unwrap();
        eprintln!("{sleeps} sleeps, {arms} waits armed, {} wake-ups for {FRAMES} frames; {st:?}", a.tx_stats().wakes);
        assert_eq!((st.frames, st.lost), (FRAMES as u64, 0));
        // At most one wake-up per time the reader armed its `waiting` word. (Not per
        // sleep: a writer may swap the word of a reader whose re-check then found frames
        // and did not sleep; that reader reads the byte it is owed at its next disarm.)
        assert!(a.tx_stats().wakes <= arms as u64, "{} wake-ups, {arms} arms", a.tx_stats().wakes);
        drop((a, seg));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_hub_records_every_frame_readable_while_it_runs() {
        let dir = std::env::temp_dir().join(format!("wsec-shm-test-hub-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (path, pcap) = (dir.join("wsec-air-h"), dir.join("air.pcap"));
        let mut hub = ShmHub::create(&path, SMALL, 0.0, 1, Some(&pcap)).unwrap();
        // A second hub on a name a live hub serves is refused (this test's pid is the
        // hub's; pid 1 stands for another live hub).
        Segment::open(&path).unwrap().ring.w(H_HUB_PID).store(1, Ordering::Relaxed);
        let e = Segment::create(&path, SMALL, 0.0, 1).err().expect("refused");
        assert_eq!(e.kind(), io::ErrorKind::AddrInUse, "{e}");
        Segment::open(&path).unwrap().ring.w(H_HUB_PID).store(std::process::id() as u64, Ordering::Relaxed);
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let mut a = ShmMedium::attach(&path, 6).unwrap();
        let run = std::thread::spawn(move || {
            let st = hub.run(&s2);
            (st, hub)
        });
        // A small ring: bursts of 20 with pauses, so the recorder keeps up.
        let sent: Vec<Vec<u8>> = (0..300).map(|i| mpdu(i, 60 + i as usize)).collect();
        for burst in sent.chunks(20) {
            for m in burst {
                a.send(m).unwrap();
            }
            a.flush().unwrap();
            std::thread::sleep(Duration::from_millis(5));
        }
        // While the hub runs the file fills, every PCAP_FLUSH: it has them all within a
        // few flushes (more on a loaded machine, where the recorder's thread waits its turn).
        let read = |p: &Path| -> Vec<Vec<u8>> { wsec::capture::CaptureReader::open(p).unwrap().map(|r| r.unwrap().data).collect() };
        let t0 = Instant::now();
        while read(&pcap).len() < 300 && t0.elapsed() < 25 * PCAP_FLUSH {
            std::thread::sleep(PCAP_FLUSH / 4);
        }
        assert_eq!(read(&pcap).len(), 300, "the capture is readable and complete while the hub runs");
        stop.store(true, Ordering::Relaxed);
        let (st, hub) = run.join().unwrap();
        let st = st.unwrap();
        assert_eq!((st.frames, st.recorded, st.record_lost), (300, 300, 0));
        let got = read(&pcap);
        assert_eq!(got.len(), 300);
        for (g, m) in got.iter().zip(&sent) {
            assert_eq!(super::super::decap(g).unwrap(), &m[..]);
        }
        drop(hub);
        assert!(!path.exists() && !fifo_dir(&path).exists(), "the hub removes its segment");
        drop(a);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn dead_nodes_entries_are_reclaimed_a_full_table_refused() {
        let (dir, seg) = segment("table", 0.0);
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        for _ in 0..NODES {
            seg.ring.attach(dead, &|_| false).unwrap();
        }
        // Full of a dead process's entries: the next node frees them and takes one.
        let a = ShmMedium::attach(seg.path(), 6).unwrap();
        let used = |seg: &Segment| (0..NODES).filter(|&i| seg.ring.entry(i, E_OWNER).load(Ordering::Relaxed) != 0).count();
        assert_eq!(used(&seg), 1);
        // The hub's reaping: a dead process's entries, nothing else.
        seg.ring.attach(dead, &|_| false).unwrap();
        assert_eq!((seg.reap(), used(&seg)), (1, 1));
        for _ in 0..NODES - 1 {
            seg.ring.attach(std::process::id(), &|_| false).unwrap();
        }
        let e = ShmMedium::attach(seg.path(), 6).err().expect("no free entry");
        assert_eq!(e.kind(), io::ErrorKind::AddrInUse, "{e}");
        drop((a, seg));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn damaged_segments_are_errors() {
        let (dir, seg) = segment("bad", 0.0);
        let good = std::fs::read(seg.path()).unwrap();
        let p = dir.join("damaged");
        let word = |i: usize, v: u64| {
            let mut b = good.clone();
            b[i * 8..i * 8 + 8].copy_from_slice(&v.to_ne_bytes());
            b
        };
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("empty", vec![]),
            ("short header", good[..40].to_vec()),
            ("bad magic", word(H_MAGIC, 7)),
            ("other version", word(H_VERSION, 2)),
            ("slots not a power of two", word(H_SLOTS, 63)),
            ("slots beyond the file", word(H_SLOTS, 128)),
            ("slot size", word(H_SLOT_BYTES, 100)),
            ("nodes", word(H_NODES, 65)),
            ("total", word(H_TOTAL, 1 << 40)),
            ("truncated", good[..good.len() - 64].to_vec()),
        ];
        for (what, bytes) in cases {
            let _ = std::fs::remove_file(&p);
            std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&p).unwrap().write_all(&bytes).unwrap();
            assert!(Segment::open(&p).is_err(), "{what}");
            assert!(ShmMedium::attach(&p, 6).is_err(), "{what}");
        }
        // Writable by others: not trusted.
        std::fs::write(&p, &good).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert!(Segment::open(&p).is_err());
        assert!(ShmMedium::open("no-such-medium-here", 6).err().expect("no segment").to_string().contains("wsec air --shm"));
        drop(seg);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn nodes_follow_a_restarted_hub_and_loss_is_the_hubs() {
        let (dir, seg) = segment("follow", 0.0);
        let path = seg.path().to_path_buf();
        let mut a = ShmMedium::attach(&path, 6).unwrap();
        let mut b = ShmMedium::attach(&path, 6).unwrap();
        // The hub restarts (with 50% loss): a new segment at the path.
        std::fs::remove_file(&path).unwrap();
        let seg2 = Segment::create(&path, SMALL, 0.5, 9).unwrap();
        a.tick().unwrap();
        b.tick().unwrap();
        assert!(a.describe().contains("moved to a new segment 1 time(s)"), "{}", a.describe());
        let mut buf = Vec::new();
        let mut got = 0;
        for i in 0..1000 {
            a.send(&mpdu(i, 50)).unwrap();
            while b.recv(&mut buf).unwrap() {
                got += 1;
            }
        }
        let st = b.rx_stats();
        assert_eq!((got, st.dropped), (st.frames, 1000 - st.frames));
        assert!((350..650).contains(&got), "{got} of 1000 at 50% loss");
        drop((a, b, seg, seg2));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
