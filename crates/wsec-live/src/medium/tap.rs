//! A TAP device (Linux `/dev/net/tun`, IFF_TAP | IFF_NO_PI): the host side of a node.
//! The station's IP stack sends Ethernet frames into it; the core turns them into 802.11
//! data frames (LLC/SNAP) and back.
//!
//! [`Tap::create`] reads and writes one frame per system call. [`Tap::create_with`] and
//! [`TapOptions::offload`] add the virtio-net header and the kernel's TCP offloads
//! ([`super::vnet`]): a read may bring a 64 KiB super-packet, cut here into frames, and
//! [`Tap::send_batch`] writes a run of one flow's segments as one packet. `recv`/`send`
//! keep working on such a TAP, a frame at a time.
use super::vnet::{self, Coalescer, FrameList, Frames, VnetHdr, HEADER_BUF, MAX_FRAME, MAX_GRO_SEGS, VNET_HDR_LEN};
use std::cell::Cell;
use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io::{self, IoSlice, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use wsec::wire::mac::MacAddr;

/// How to open a TAP.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TapOptions {
    /// IFF_VNET_HDR with checksum and TCP (and UDP, where the kernel has it) segmentation
    /// offloads; off: one plain frame per read and write, as [`Tap::create`].
    pub offload: bool,
}

/// What the TAP did, for reports and the offload measurements.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TapStats {
    /// read(2) calls, the ones that found nothing included.
    pub reads: u64,
    /// write(2)/writev(2) calls.
    pub writes: u64,
    /// Packets read with a `gso_type` other than NONE, and their octets.
    pub gso_reads: u64,
    pub gso_octets: u64,
    /// Frames read without GSO whose checksum was completed here (NEEDS_CSUM).
    pub csum_completed: u64,
    /// Frames handed to the caller and given by it.
    pub frames_in: u64,
    pub frames_out: u64,
    /// Packets written that merge several frames.
    pub coalesced: u64,
    /// Packets from the kernel refused (see [`vnet::split`]).
    pub refused: u64,
}

/// The state of an offloading TAP: its read buffer, the frames of the last read not yet
/// taken by `recv`, the coalescer's tables.
#[derive(Debug)]
struct Offload {
    flags: u32,
    queue: Frames,
    taken: usize,
    gro: Coalescer,
}

pub struct Tap {
    file: File,
    name: String,
    /// The IP MTU frames are cut to (set by `configure`).
    mtu: Cell<u32>,
    /// VNET_HDR_LEN + MAX_FRAME + 1 octets: a read that fills it was truncated.
    rbuf: Box<[u8]>,
    offload: Option<Box<Offload>>,
    stats: TapStats,
}

#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// What one read found.
enum Got {
    Nothing,
    /// This many octets in the read buffer.
    Packet(usize),
}

impl Tap {
    /// Creates (or attaches to) the TAP device `name`, non-blocking, one frame per call.
    pub fn create(name: &str) -> io::Result<Tap> {
        Tap::create_with(name, TapOptions::default())
    }

    /// Creates (or attaches to) the TAP device `name`, non-blocking, with `opts`.
    pub fn create_with(name: &str, opts: TapOptions) -> io::Result<Tap> {
        if name.is_empty() || name.len() >= libc::IFNAMSIZ || CString::new(name).is_err() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("bad interface name {name:?}")));
        }
        let file = OpenOptions::new().read(true).write(true).custom_flags(libc::O_NONBLOCK).open("/dev/net/tun")?;
        let mut flags = libc::IFF_TAP | libc::IFF_NO_PI;
        if opts.offload {
            flags |= libc::IFF_VNET_HDR;
        }
        let mut req = IfReq { name: [0; libc::IFNAMSIZ], flags: flags as libc::c_short, _pad: [0; 22] };
        req.name[..name.len()].copy_from_slice(name.as_bytes());
        // SAFETY: TUNSETIFF reads and writes an ifreq, which IfReq lays out.
        let r = unsafe { libc::ioctl(file.as_raw_fd(), libc::TUNSETIFF as _, &mut req as *mut IfReq) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        let offload = if opts.offload {
            let flags = vnet::enable(file.as_raw_fd())?;
            Some(Box::new(Offload { flags, queue: Frames::new(), taken: 0, gro: Coalescer::new() }))
        } else {
            None
        };
        let rbuf = vec![0; VNET_HDR_LEN + MAX_FRAME + 1].into_boxed_slice();
        Ok(Tap { file, name: name.to_string(), mtu: Cell::new(1500), rbuf, offload, stats: TapStats::default() })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The TUN_F_* offloads the kernel accepted (None: a plain TAP).
    pub fn offloads(&self) -> Option<u32> {
        self.offload.as_ref().map(|o| o.flags)
    }

    pub fn stats(&self) -> TapStats {
        self.stats
    }

    /// Sets the MAC address and MTU and brings the device up (with iproute2's `ip`); the
    /// MTU also bounds the frames super-packets are cut into.
    pub fn configure(&self, mac: &MacAddr, mtu: u32) -> io::Result<()> {
        let m = mac.to_string();
        let st = std::process::Command::new("ip")
            .args(["link", "set", "dev", &self.name, "address", &m, "mtu", &mtu.to_string(), "up"])
            .status()?;
        if !st.success() {
            return Err(io::Error::other(format!("ip link set dev {} failed", self.name)));
        }
        self.mtu.set(mtu);
        Ok(())
    }

    /// One read(2) into the read buffer.
    fn read_once(&mut self) -> io::Result<Got> {
        self.stats.reads += 1;
        match self.file.read(&mut self.rbuf) {
            Ok(n) if n == self.rbuf.len() => Err(io::Error::new(io::ErrorKind::InvalidData, "TAP packet beyond 64 KiB")),
            Ok(n) => Ok(Got::Packet(n)),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock || e.kind() == io::ErrorKind::Interrupted => Ok(Got::Nothing),
            Err(e) => Err(e),
        }
    }

    /// Reads one packet, if one is waiting, and appends its frames to `out` (a
    /// super-packet cut into frames of at most the MTU, checksums completed); returns how
    /// many (0: nothing waiting). A packet the offload code refuses is an
    /// `InvalidData` error (counted in `refused`); the next call goes on.
    pub fn recv_batch(&mut self, out: &mut Frames) -> io::Result<usize> {
        // Frames a `recv` left behind come first.
        if let Some(o) = self.offload.as_mut().filter(|o| o.taken < o.queue.len()) {
            let n = o.queue.len() - o.taken;
            for f in o.queue.iter().skip(o.taken) {
                out.push(f);
            }
            o.taken = o.queue.len();
            self.stats.frames_in += n as u64;
            return Ok(n);
        }
        let Got::Packet(len) = self.read_once()? else { return Ok(0) };
        let n = if self.offload.is_some() {
            let r = split_read(&mut self.rbuf[..len], self.mtu.get() as usize, out, &mut self.stats);
            r.inspect_err(|_| self.stats.refused += 1).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?
        } else {
            out.push(&self.rbuf[..len]);
            1
        };
        self.stats.frames_in += n as u64;
        Ok(n)
    }

    /// One Ethernet frame, if one is waiting.
    pub fn recv(&mut self, buf: &mut Vec<u8>) -> io::Result<bool> {
        let Some(mut o) = self.offload.take() else {
            let Got::Packet(len) = self.read_once()? else { return Ok(false) };
            buf.clear();
            buf.extend_from_slice(&self.rbuf[..len]);
            self.stats.frames_in += 1;
            return Ok(true);
        };
        let r = loop {
            if let Some(f) = o.queue.get(o.taken) {
                o.taken += 1;
                buf.clear();
                buf.extend_from_slice(f);
                self.stats.frames_in += 1;
                break Ok(true);
            }
            o.queue.clear();
            o.taken = 0;
            match self.read_once() {
                Ok(Got::Nothing) => break Ok(false),
                // A refused packet is dropped, as a NIC drops a bad frame.
                Ok(Got::Packet(len)) => {
                    if split_read(&mut self.rbuf[..len], self.mtu.get() as usize, &mut o.queue, &mut self.stats).is_err() {
                        self.stats.refused += 1;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::InvalidData => self.stats.refused += 1,
                Err(e) => break Err(e),
            }
        };
        self.offload = Some(o);
        r
    }

    /// Writes one Ethernet frame.
    pub fn send(&mut self, eth: &[u8]) -> io::Result<()> {
        self.stats.frames_out += 1;
        if self.offload.is_some() {
            let zero = VnetHdr::default().encode();
            self.write_parts(&[IoSlice::new(&zero), IoSlice::new(eth)])
        } else {
            self.write_parts(&[IoSlice::new(eth)])
        }
    }

    /// Writes a batch of Ethernet frames: on an offloading TAP, runs of one TCP flow as
    /// one packet each (see [`vnet::Coalescer`]), the others one by one. All are tried;
    /// the first error is returned.
    pub fn send_batch<L: FrameList + ?Sized>(&mut self, frames: &L) -> io::Result<()> {
        let Some(mut o) = self.offload.take() else {
            let mut first = Ok(());
            for i in 0..frames.count() {
                let r = self.send(frames.frame(i));
                first = first.and(r);
            }
            return first;
        };
        self.stats.frames_out += frames.count() as u64;
        o.gro.plan(frames);
        let mut first = Ok(());
        for p in 0..o.gro.packets() {
            let mut hdr = [0; HEADER_BUF];
            let n = o.gro.header(p, frames, &mut hdr);
            let mut iov = [IoSlice::new(&[]); MAX_GRO_SEGS + 1];
            iov[0] = IoSlice::new(&hdr[..n]);
            let mut k = 1;
            for (slot, part) in iov[1..].iter_mut().zip(o.gro.payloads(p, frames)) {
                *slot = IoSlice::new(part);
                k += 1;
            }
            if o.gro.segments(p) > 1 {
                self.stats.coalesced += 1;
            }
            let r = self.write_parts(&iov[..k]);
            first = first.and(r);
        }
        self.offload = Some(o);
        first
    }

    /// One write(2) or writev(2) of a packet.
    fn write_parts(&mut self, parts: &[IoSlice]) -> io::Result<()> {
        self.stats.writes += 1;
        let r = if let [one] = parts { self.file.write(one) } else { self.file.write_vectored(parts) };
        match r {
            Ok(_) => Ok(()),
            // The host is not reading fast enough: drop, as a NIC would.
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(()),
            Err(e) => Err(e),
        }
    }

    pub fn fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }
}

/// Decodes the vnet header of a read and cuts the packet after it into `out`.
fn split_read(read: &mut [u8], mtu: usize, out: &mut Frames, stats: &mut TapStats) -> wsec::Result<usize> {
    let hdr = VnetHdr::decode(read)?;
    let pkt = &mut read[VNET_HDR_LEN..];
    let n = vnet::split(&hdr, pkt, mtu, out)?;
    if hdr.gso_type != vnet::GSO_NONE {
        stats.gso_reads += 1;
        stats.gso_octets += pkt.len() as u64;
    } else if hdr.flags & vnet::F_NEEDS_CSUM != 0 {
        stats.csum_completed += 1;
    }
    Ok(n)
}
