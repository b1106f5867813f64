//! AF_PACKET PACKET_MMAP rings (TPACKET_V3) for [`super::packet::PacketSocket`]: frames move
//! through memory shared with the kernel instead of one system call each
//! (Documentation/networking/packet_mmap.rst).
//!
//! - Receive: a block ring. The kernel fills a block with as many frames as fit and hands
//!   it over (`TP_STATUS_USER`) when it is full or when the block timeout
//!   ([`RX_TIMEOUT_MS`]) runs out with at least one frame in it, so a lone frame waits at
//!   most that long (one timer tick on kernels with a jiffy timer: 4 ms at HZ=250). The
//!   socket is readable (poll) when a block is ready; every frame of it is read, then the
//!   block goes back to the kernel.
//! - Transmit: a frame ring (TPACKET_V3 frames, fixed slots). [`Rings::queue`] fills the
//!   next slot and marks it `TP_STATUS_SEND_REQUEST`; [`Rings::flush`] makes one
//!   `send(fd, NULL, 0, MSG_DONTWAIT)` for all of them. A full ring is flushed and waited
//!   for up to [`TX_WAIT_MS`]; a frame still without a slot then is dropped and counted
//!   (`tx ring full drops`), never lost silently.
//!
//! Sizes: the largest frame the media carry is [`super::air::MAX_FRAME`] (16 KiB of
//! radiotap + MPDU + FCS, the hub's and the shared-memory ring's limit; a radio's MTU of
//! 2304 and an A-MSDU of 7935 octets with its headers are well inside). A transmit slot
//! holds that after its 48-octet header ([`TX_FRAME`]); a receive block ([`RX_BLOCK`])
//! holds one such frame with its headers, or some 150 frames of 100 octets. A received
//! frame the block could not hold whole (`tp_snaplen < tp_len`) or longer than `MAX_FRAME`
//! is skipped and counted, never handed on cut.
//!
//! Memory order: `tp_status` (a transmit slot's) and `block_status` (a receive block's)
//! are the hand-over words. They are read with acquire and written with release
//! ordering ([`AtomicU32`] on the shared words), so the frame data the kernel wrote is
//! visible once the status says so, and the kernel sees ours before the status it reads.
use std::cell::Cell;
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU32, Ordering};

// linux/if_packet.h
const PACKET_RX_RING: libc::c_int = 5;
const PACKET_STATISTICS: libc::c_int = 6;
const PACKET_VERSION: libc::c_int = 10;
const PACKET_TX_RING: libc::c_int = 13;
const PACKET_LOSS: libc::c_int = 14;
const PACKET_QDISC_BYPASS: libc::c_int = 20;
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
const TPACKET_V3: libc::c_int = 2;

const TP_STATUS_KERNEL: u32 = 0;
const TP_STATUS_USER: u32 = 1;
const TP_STATUS_SEND_REQUEST: u32 = 1;
const TP_STATUS_SENDING: u32 = 2;
const TP_STATUS_WRONG_FORMAT: u32 = 4;

/// struct tpacket_req3.
#[repr(C)]
struct TpacketReq3 {
    block_size: u32,
    block_nr: u32,
    frame_size: u32,
    frame_nr: u32,
    retire_blk_tov: u32,
    sizeof_priv: u32,
    feature_req_word: u32,
}

/// struct tpacket_stats_v3.
#[repr(C)]
#[derive(Default)]
struct TpacketStatsV3 {
    packets: u32,
    drops: u32,
    freeze_q_cnt: u32,
}

/// TPACKET_ALIGN(sizeof(struct tpacket3_hdr)): where a frame's sockaddr_ll starts (receive)
/// and where its data starts (transmit, `tp_hdrlen - sizeof(struct sockaddr_ll)`).
const HDR3: usize = 48;
// struct tpacket3_hdr
const H_NEXT_OFFSET: usize = 0;
const H_SNAPLEN: usize = 12;
const H_LEN: usize = 16;
const H_STATUS: usize = 20;
const H_MAC: usize = 24;
// struct sockaddr_ll after it: sll_pkttype
const H_PKTTYPE: usize = HDR3 + 10;
// struct tpacket_block_desc: version, offset_to_priv, then tpacket_hdr_v1
const B_STATUS: usize = 8;
const B_NUM_PKTS: usize = 12;
const B_FIRST: usize = 16;
const B_HDR: usize = 48;

/// Receive block size (a multiple of the page size, which it is raised to if smaller).
pub const RX_BLOCK: usize = 32 << 10;
/// Receive blocks: 2 MiB; at a trickle (one frame per block timeout) 64 ms of frames.
pub const RX_BLOCKS: usize = 64;
/// The nominal frame size of the receive request (TPACKET_V3 packs frames by their length;
/// the kernel only checks this against the block).
const RX_FRAME_NOMINAL: usize = 2048;
/// Receive block timeout: a block with frames is handed over after at most this long.
pub const RX_TIMEOUT_MS: u32 = 1;
/// Transmit slot: the header and [`super::air::MAX_FRAME`] octets, 16-aligned.
pub const TX_FRAME: usize = HDR3 + super::air::MAX_FRAME + 16;
/// Transmit block (slots do not cross blocks): seven slots each.
pub const TX_BLOCK: usize = 128 << 10;
/// Transmit blocks: 16 of them, 112 slots, 2 MiB.
pub const TX_BLOCKS: usize = 16;
/// The longest frame a transmit slot holds.
pub const TX_DATA: usize = TX_FRAME - HDR3;
/// How long a frame waits for a transmit slot before it is dropped (and counted).
pub const TX_WAIT_MS: u64 = 100;

/// Counters of the rings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RingStats {
    /// Frames handed on from the receive ring.
    pub rx: u64,
    /// Receive blocks read and given back.
    pub rx_blocks: u64,
    /// Received frames skipped: cut by the block or longer than `MAX_FRAME`.
    pub rx_too_long: u64,
    /// Blocks whose frame headers did not add up (given back unread).
    pub rx_malformed: u64,
    /// Frames the kernel dropped because the receive ring was full (PACKET_STATISTICS).
    pub rx_kernel_drops: u64,
    /// Frames put in the transmit ring.
    pub tx: u64,
    /// send(2) calls that handed transmit frames to the kernel.
    pub tx_sends: u64,
    /// Times a frame found the transmit ring full and waited.
    pub tx_full_waits: u64,
    /// Frames dropped after waiting [`TX_WAIT_MS`] for a slot.
    pub tx_full_drops: u64,
    /// Frames the driver refused (ENOBUFS from the flush: a busy device, as a busy radio).
    pub tx_busy: u64,
}

/// The two rings of one packet socket, mapped into this process.
pub struct Rings {
    fd: RawFd,
    map: *mut u8,
    map_len: usize,
    rx_block: usize,
    rx_blocks: usize,
    tx_block: usize,
    tx_per_block: usize,
    tx_frames: usize,
    /// The receive block read next (or being read).
    rx_cur: usize,
    /// Frames left in the block being read (0: none open).
    rx_left: u32,
    /// Offset of the next frame in the open block.
    rx_off: usize,
    /// The next transmit slot to fill.
    tx_head: usize,
    /// The slot filled last, if frames may still wait for a send(2).
    tx_unsent: Option<usize>,
    /// Whether qdisc bypass was set.
    pub qdisc_bypass: bool,
    stats: RingStats,
    kernel_drops: Cell<u64>,
}

// SAFETY: the mapping belongs to this value alone (no other user-space reference to it
// exists); the only other party is the kernel, through the status words' protocol. Moving
// the value to another thread moves that ownership with it.
unsafe impl Send for Rings {}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn setopt<T>(fd: RawFd, level: libc::c_int, name: libc::c_int, v: &T) -> io::Result<()> {
    // SAFETY: the pointer and length describe *v, which the kernel only reads.
    cvt(unsafe { libc::setsockopt(fd, level, name, v as *const T as *const libc::c_void, core::mem::size_of::<T>() as u32) }).map(|_| ())
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

impl Rings {
    /// Sets both rings up on `fd`, a packet socket not yet bound to a protocol (frames
    /// arriving before the rings would sit in the ordinary queue nobody reads). Must come
    /// before any other use of the socket; on an error the socket is left half set up and
    /// should be closed.
    pub fn setup(fd: RawFd, qdisc_bypass: bool) -> io::Result<Rings> {
        let page = page_size();
        let rx_block = RX_BLOCK.max(page);
        let tx_block = TX_BLOCK.max(page);
        let tx_per_block = tx_block / TX_FRAME;
        setopt(fd, libc::SOL_PACKET, PACKET_VERSION, &TPACKET_V3).map_err(|e| ctx(e, "PACKET_VERSION TPACKET_V3"))?;
        // A transmit frame the kernel finds malformed is skipped rather than stopping the
        // ring for good (its slot could not be taken back); [`Rings::queue`] refuses
        // what the kernel would, so this is a guard only.
        setopt(fd, libc::SOL_PACKET, PACKET_LOSS, &1 as &libc::c_int).map_err(|e| ctx(e, "PACKET_LOSS"))?;
        let rx = TpacketReq3 {
            block_size: rx_block as u32,
            block_nr: RX_BLOCKS as u32,
            frame_size: RX_FRAME_NOMINAL as u32,
            frame_nr: (rx_block / RX_FRAME_NOMINAL * RX_BLOCKS) as u32,
            retire_blk_tov: RX_TIMEOUT_MS,
            sizeof_priv: 0,
            feature_req_word: 0,
        };
        setopt(fd, libc::SOL_PACKET, PACKET_RX_RING, &rx).map_err(|e| ctx(e, "PACKET_RX_RING"))?;
        let tx = TpacketReq3 {
            block_size: tx_block as u32,
            block_nr: TX_BLOCKS as u32,
            frame_size: TX_FRAME as u32,
            frame_nr: (tx_per_block * TX_BLOCKS) as u32,
            retire_blk_tov: 0,
            sizeof_priv: 0,
            feature_req_word: 0,
        };
        setopt(fd, libc::SOL_PACKET, PACKET_TX_RING, &tx).map_err(|e| ctx(e, "PACKET_TX_RING"))?;
        let map_len = rx_block * RX_BLOCKS + tx_block * TX_BLOCKS;
        // SAFETY: a fresh shared mapping of the socket's rings, of exactly their size (the
        // kernel refuses any other); nothing else in the process refers to that range.
        let map = unsafe {
            libc::mmap(core::ptr::null_mut(), map_len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED | libc::MAP_POPULATE, fd, 0)
        };
        if map == libc::MAP_FAILED {
            return Err(ctx(io::Error::last_os_error(), "mmap of the rings"));
        }
        let mut r = Rings {
            fd,
            map: map as *mut u8,
            map_len,
            rx_block,
            rx_blocks: RX_BLOCKS,
            tx_block,
            tx_per_block,
            tx_frames: tx_per_block * TX_BLOCKS,
            rx_cur: 0,
            rx_left: 0,
            rx_off: 0,
            tx_head: 0,
            tx_unsent: None,
            qdisc_bypass: false,
            stats: RingStats::default(),
            kernel_drops: Cell::new(0),
        };
        // Frames go straight to the device's queue, as a NIC's ring would be used; a device
        // too busy to take one answers ENOBUFS (counted as `tx_busy`).
        if qdisc_bypass {
            r.qdisc_bypass = setopt(fd, libc::SOL_PACKET, PACKET_QDISC_BYPASS, &1 as &libc::c_int).is_ok();
        }
        // This socket's own transmissions are not looped into its receive ring (a radio
        // does not hear itself); where the kernel lacks the option, `recv` skips them.
        let _ = setopt(fd, libc::SOL_PACKET, PACKET_IGNORE_OUTGOING, &1 as &libc::c_int);
        // Room in the send buffer for every slot in flight at once, so a flush is never cut
        // short by the buffer (root may force it past wmem_max; otherwise what is allowed).
        let want = (map_len as libc::c_int).saturating_mul(2);
        if setopt(fd, libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, &want).is_err() {
            let _ = setopt(fd, libc::SOL_SOCKET, libc::SO_SNDBUF, &want);
        }
        Ok(r)
    }

    /// Receive ring geometry and transmit slots, for the description.
    pub fn geometry(&self) -> String {
        format!(
            "rx {}x{} KiB blocks ({} ms timeout), tx {} slots of {} octets{}",
            self.rx_blocks,
            self.rx_block >> 10,
            RX_TIMEOUT_MS,
            self.tx_frames,
            TX_DATA,
            if self.qdisc_bypass { ", qdisc bypass" } else { "" }
        )
    }

    fn rx_block_ptr(&self, i: usize) -> *mut u8 {
        // SAFETY: i < rx_blocks, so the block lies inside the mapping.
        unsafe { self.map.add(i * self.rx_block) }
    }

    fn tx_slot_ptr(&self, i: usize) -> *mut u8 {
        let off = self.rx_block * self.rx_blocks + (i / self.tx_per_block) * self.tx_block + (i % self.tx_per_block) * TX_FRAME;
        // SAFETY: i < tx_frames, so the slot lies inside the mapping.
        unsafe { self.map.add(off) }
    }

    /// Reads the status word at `p` with acquire ordering.
    fn load_status(p: *mut u8) -> u32 {
        // SAFETY: callers pass the status word of a block or slot: 4-aligned (block and
        // slot starts are 16-aligned, the words' offsets multiples of 4) and inside the
        // mapping, which lives as long as the Rings the callers borrow. The kernel writes
        // the word concurrently, which is what the atomic access is for.
        unsafe { AtomicU32::from_ptr(p as *mut u32) }.load(Ordering::Acquire)
    }

    /// Writes the status word at `p` with release ordering.
    fn store_status(p: *mut u8, v: u32) {
        // SAFETY: as load_status.
        unsafe { AtomicU32::from_ptr(p as *mut u32) }.store(v, Ordering::Release)
    }

    fn read_u32(p: *const u8, off: usize) -> u32 {
        // SAFETY: callers pass an offset inside a block or slot this process owns at the
        // moment (its status word said so, read with acquire ordering); 4-aligned.
        unsafe { core::ptr::read_volatile(p.add(off) as *const u32) }
    }

    fn read_u16(p: *const u8, off: usize) -> u16 {
        // SAFETY: as read_u32, 2-aligned.
        unsafe { core::ptr::read_volatile(p.add(off) as *const u16) }
    }

    fn give_back_block(&mut self) {
        let b = self.rx_block_ptr(self.rx_cur);
        // Release: every read of the block above happens before the kernel may refill it.
        Self::store_status(at(b, B_STATUS), TP_STATUS_KERNEL);
        self.rx_left = 0;
        self.rx_cur = (self.rx_cur + 1) % self.rx_blocks;
        self.stats.rx_blocks += 1;
    }

    /// Opens the next block if the kernel has handed it over; true if a block is open.
    fn open_block(&mut self) -> bool {
        loop {
            if self.rx_left > 0 {
                return true;
            }
            let b = self.rx_block_ptr(self.rx_cur);
            // Acquire: the block's contents are visible once its status says USER.
            if Self::load_status(at(b, B_STATUS)) & TP_STATUS_USER == 0 {
                return false;
            }
            let n = Self::read_u32(b, B_NUM_PKTS);
            let first = Self::read_u32(b, B_FIRST) as usize;
            if n == 0 || first < B_HDR || first >= self.rx_block {
                if n != 0 {
                    self.stats.rx_malformed += 1;
                }
                self.give_back_block();
                continue;
            }
            self.rx_left = n;
            self.rx_off = first;
            return true;
        }
    }

    /// Whether a received frame is waiting (an open block or one handed over).
    pub fn rx_ready(&mut self) -> bool {
        self.open_block()
    }

    /// The next received frame into `buf` (not this host's own transmissions); false if
    /// none is waiting.
    pub fn recv(&mut self, buf: &mut Vec<u8>) -> bool {
        while self.open_block() {
            let b = self.rx_block_ptr(self.rx_cur);
            let off = self.rx_off;
            let room = self.rx_block - off;
            if room < HDR3 + 20 {
                self.stats.rx_malformed += 1;
                self.give_back_block();
                continue;
            }
            let h = at(b, off);
            let next = Self::read_u32(h, H_NEXT_OFFSET) as usize;
            let snap = Self::read_u32(h, H_SNAPLEN) as usize;
            let len = Self::read_u32(h, H_LEN) as usize;
            let mac = Self::read_u16(h, H_MAC) as usize;
            // SAFETY: H_PKTTYPE < HDR3 + 20 <= room: inside the block this process owns.
            let pkttype = unsafe { core::ptr::read_volatile(h.add(H_PKTTYPE)) };
            if mac < HDR3 || mac.checked_add(snap).is_none_or(|end| end > room) || (self.rx_left > 1 && (next == 0 || next >= room)) {
                self.stats.rx_malformed += 1;
                self.give_back_block();
                continue;
            }
            let keep = pkttype != libc::PACKET_OUTGOING;
            let whole = snap == len && len <= super::air::MAX_FRAME;
            if keep && whole {
                buf.clear();
                // SAFETY: [mac, mac + snap) lies inside this block (checked above), which
                // this process owns until it gives it back below.
                buf.extend_from_slice(unsafe { core::slice::from_raw_parts(h.add(mac), snap) });
            }
            if keep && !whole {
                self.stats.rx_too_long += 1;
            }
            self.rx_left -= 1;
            self.rx_off = off + next;
            if self.rx_left == 0 {
                // The frame is copied: the block goes back at once.
                self.give_back_block();
            }
            if keep && whole {
                self.stats.rx += 1;
                return true;
            }
        }
        false
    }

    /// Puts one frame in the next transmit slot (sent at the next [`Rings::flush`]). A full
    /// ring is flushed and waited for up to [`TX_WAIT_MS`]; then the frame is dropped and
    /// counted. A frame longer than [`TX_DATA`] is refused with EMSGSIZE.
    pub fn queue(&mut self, f: &[u8]) -> io::Result<()> {
        if f.len() > TX_DATA {
            return Err(io::Error::from_raw_os_error(libc::EMSGSIZE));
        }
        let slot = self.tx_slot_ptr(self.tx_head);
        let st = at(slot, H_STATUS);
        let busy = |s: u32| s & (TP_STATUS_SEND_REQUEST | TP_STATUS_SENDING | TP_STATUS_WRONG_FORMAT) != 0;
        if busy(Self::load_status(st)) {
            self.stats.tx_full_waits += 1;
            let deadline = std::time::Instant::now() + std::time::Duration::from_millis(TX_WAIT_MS);
            loop {
                self.flush()?;
                if !busy(Self::load_status(st)) {
                    break;
                }
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                if left.is_zero() {
                    self.stats.tx_full_drops += 1;
                    return Ok(());
                }
                // Writable when the slot at the kernel's head is free again; at most 1 ms
                // at a time, since a slot the kernel has not taken yet wakes nobody.
                let mut p = libc::pollfd { fd: self.fd, events: libc::POLLOUT, revents: 0 };
                // SAFETY: one valid pollfd.
                unsafe { libc::poll(&mut p, 1, 1) };
            }
        }
        // SAFETY: the slot is this process's (status AVAILABLE, read with acquire) and has
        // room for HDR3 + TX_DATA octets; f is at most TX_DATA long.
        unsafe {
            core::ptr::copy_nonoverlapping(f.as_ptr(), slot.add(HDR3), f.len());
            core::ptr::write_volatile(slot.add(H_NEXT_OFFSET) as *mut u32, 0);
            core::ptr::write_volatile(slot.add(H_SNAPLEN) as *mut u32, f.len() as u32);
            core::ptr::write_volatile(slot.add(H_LEN) as *mut u32, f.len() as u32);
        }
        // Release: the frame and its length are visible to the kernel before the request.
        Self::store_status(st, TP_STATUS_SEND_REQUEST);
        self.tx_unsent = Some(self.tx_head);
        self.tx_head = (self.tx_head + 1) % self.tx_frames;
        self.stats.tx += 1;
        Ok(())
    }

    /// Whether frames are queued that no send(2) has taken yet.
    pub fn tx_pending(&self) -> bool {
        self.tx_unsent.is_some()
    }

    /// Hands every queued frame to the kernel: one send(2) (a few if the device pushes
    /// back). A frame the kernel has not taken stays queued for the next flush.
    pub fn flush(&mut self) -> io::Result<()> {
        let Some(last) = self.tx_unsent else { return Ok(()) };
        let st = at(self.tx_slot_ptr(last), H_STATUS);
        for _ in 0..4 {
            // SAFETY: a send of no data: the kernel takes the frames from the ring.
            let r = unsafe { libc::send(self.fd, core::ptr::null(), 0, libc::MSG_DONTWAIT) };
            self.stats.tx_sends += 1;
            if r < 0 {
                let e = io::Error::last_os_error();
                match e.raw_os_error() {
                    // The device refused one frame (dropped by the kernel, as a busy radio
                    // would) and the kernel stopped there: counted, and the rest goes again.
                    Some(libc::ENOBUFS) => self.stats.tx_busy += 1,
                    Some(libc::EAGAIN) | Some(libc::EINTR) => {}
                    _ => return Err(e),
                }
            }
            // The kernel takes the requests in order: once the last one is no longer a
            // request, all were taken.
            if Self::load_status(st) & TP_STATUS_SEND_REQUEST == 0 {
                self.tx_unsent = None;
                return Ok(());
            }
        }
        Ok(())
    }

    /// The counters, with the kernel's receive-ring drops added up so far.
    pub fn stats(&self) -> RingStats {
        let mut s = TpacketStatsV3::default();
        let mut len = core::mem::size_of::<TpacketStatsV3>() as libc::socklen_t;
        // SAFETY: the pointer and length describe s; the kernel writes at most len octets.
        // Reading resets the kernel's counters: they are added up here.
        let r = unsafe { libc::getsockopt(self.fd, libc::SOL_PACKET, PACKET_STATISTICS, &mut s as *mut _ as *mut libc::c_void, &mut len) };
        if r == 0 {
            self.kernel_drops.set(self.kernel_drops.get() + s.drops as u64);
        }
        RingStats { rx_kernel_drops: self.kernel_drops.get(), ..self.stats }
    }
}

/// `p + off` (callers pass offsets inside a block or slot of the mapping).
fn at(p: *mut u8, off: usize) -> *mut u8 {
    p.wrapping_add(off)
}

fn ctx(e: io::Error, what: &str) -> io::Error {
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

impl Drop for Rings {
    fn drop(&mut self) {
        // SAFETY: the mapping made in setup, of that length, unmapped once; no reference
        // into it survives self.
        unsafe { libc::munmap(self.map as *mut libc::c_void, self.map_len) };
    }
}
