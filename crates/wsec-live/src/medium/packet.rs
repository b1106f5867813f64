//! A raw packet socket (AF_PACKET, SOCK_RAW, all protocols) bound to a named interface:
//! what a monitor-mode Wi-Fi interface with injection is driven through (frames are
//! radiotap + 802.11 both ways). The tests use one end of a veth pair per node.
//!
//! Frames move through PACKET_MMAP rings ([`super::ring`]): a TPACKET_V3 receive ring and
//! a transmit ring that [`super::Medium::flush`] hands to the kernel with one send(2) per
//! burst. Where the rings cannot be set up (an old kernel, no memory) or
//! `WSEC_PACKET_RING=off` is set, the socket moves one frame per system call as before;
//! [`super::Medium::describe`] says which.
use super::ring::{RingStats, Rings};
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// ARPHRD_IEEE80211_RADIOTAP: a monitor interface (mac80211 keeps Ethernet's 14-octet
/// hard header length on it).
const ARPHRD_IEEE80211_RADIOTAP: u16 = 803;

/// How a [`PacketSocket`] moves frames.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// PACKET_MMAP rings (else one system call per frame).
    pub ring: bool,
    /// PACKET_QDISC_BYPASS on the transmit side (frames go to the device's queue).
    pub qdisc_bypass: bool,
}

impl Default for Options {
    /// Rings with qdisc bypass, unless `WSEC_PACKET_RING=off` (or `0`) is set.
    fn default() -> Options {
        let off = std::env::var("WSEC_PACKET_RING").is_ok_and(|v| v == "off" || v == "0");
        Options { ring: !off, qdisc_bypass: true }
    }
}

/// Counters of the per-frame path (the ring's are [`RingStats`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct PlainStats {
    pub rx: u64,
    pub tx: u64,
    /// Frames the kernel would not queue (EAGAIN, ENOBUFS): lost as on a busy radio.
    pub tx_busy: u64,
}

pub struct PacketSocket {
    /// Dropped (unmapped) before the socket closes.
    ring: Option<Rings>,
    fd: OwnedFd,
    channel: u8,
    ifname: String,
    /// The longest frame the interface takes: MTU + hard header, at most a ring slot.
    tx_limit: usize,
    /// Frames refused as longer than `tx_limit` (EMSGSIZE).
    pub tx_too_long: u64,
    plain: PlainStats,
    /// Why the rings are not used, if they are not.
    no_ring: Option<String>,
    /// Encapsulation buffer reused by [`super::Medium::send`].
    scratch: Vec<u8>,
}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// A packet socket listening to no protocol yet (bound later).
fn raw_socket() -> io::Result<OwnedFd> {
    // SAFETY: plain socket(2); the fd is owned right away.
    unsafe {
        let raw = cvt(libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, 0))?;
        Ok(OwnedFd::from_raw_fd(raw))
    }
}

impl PacketSocket {
    /// Opens the socket on `ifname` (which must exist and be up), non-blocking and
    /// promiscuous (a medium delivers every frame; the cores filter by address), with the
    /// default [`Options`].
    pub fn open(ifname: &str, channel: u8) -> io::Result<PacketSocket> {
        Self::open_with(ifname, channel, Options::default())
    }

    /// [`PacketSocket::open`] with the given options.
    pub fn open_with(ifname: &str, channel: u8, o: Options) -> io::Result<PacketSocket> {
        let name = CString::new(ifname).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "interface name"))?;
        // SAFETY: name is a valid C string.
        let ifindex = unsafe { libc::if_nametoindex(name.as_ptr()) };
        if ifindex == 0 {
            return Err(io::Error::new(io::ErrorKind::NotFound, format!("no interface {ifname}")));
        }
        // The rings are set up before the socket is bound to a protocol, so no frame lands
        // in the ordinary queue; a failure leaves the socket half set up: a fresh one then.
        let (fd, ring, no_ring) = if o.ring {
            let fd = raw_socket()?;
            match Rings::setup(fd.as_raw_fd(), o.qdisc_bypass) {
                Ok(r) => (fd, Some(r), None),
                Err(e) => (raw_socket()?, None, Some(format!("ring setup failed ({e})"))),
            }
        } else {
            (raw_socket()?, None, Some("WSEC_PACKET_RING=off".to_string()))
        };
        // SAFETY: sockaddr_ll is plain data; zeroed is a valid value.
        let mut sll: libc::sockaddr_ll = unsafe { core::mem::zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
        sll.sll_ifindex = ifindex as i32;
        // SAFETY: pointer and length describe sll.
        cvt(unsafe {
            libc::bind(fd.as_raw_fd(), &sll as *const _ as *const libc::sockaddr, core::mem::size_of::<libc::sockaddr_ll>() as u32)
        })?;
        // SAFETY: packet_mreq is plain data.
        let mut mr: libc::packet_mreq = unsafe { core::mem::zeroed() };
        mr.mr_ifindex = ifindex as i32;
        mr.mr_type = libc::PACKET_MR_PROMISC as u16;
        // SAFETY: pointer and length describe mr.
        cvt(unsafe {
            libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_PACKET,
                libc::PACKET_ADD_MEMBERSHIP,
                &mr as *const _ as *const libc::c_void,
                core::mem::size_of::<libc::packet_mreq>() as u32,
            )
        })?;
        let tx_limit = tx_limit(fd.as_raw_fd(), ifname)?;
        Ok(PacketSocket {
            ring,
            fd,
            channel,
            ifname: ifname.into(),
            tx_limit,
            tx_too_long: 0,
            plain: PlainStats::default(),
            no_ring,
            scratch: Vec::new(),
        })
    }
}

/// The longest frame the kernel will send on the interface: its MTU plus the hard header
/// (14 octets on Ethernet and on a mac80211 monitor interface, 0 assumed elsewhere), at
/// most [`super::air::MAX_FRAME`] (what a transmit slot holds and a receiver takes). Read once: a radio sets its MTU before it opens the socket.
fn tx_limit(fd: RawFd, ifname: &str) -> io::Result<usize> {
    // SAFETY: sockaddr_ll is plain data; zeroed is a valid value.
    let mut sll: libc::sockaddr_ll = unsafe { core::mem::zeroed() };
    let mut len = core::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
    // SAFETY: pointer and length describe sll.
    cvt(unsafe { libc::getsockname(fd, &mut sll as *mut _ as *mut libc::sockaddr, &mut len) })?;
    let hard = match sll.sll_hatype {
        libc::ARPHRD_ETHER | ARPHRD_IEEE80211_RADIOTAP => 14,
        _ => 0,
    };
    // SAFETY: ifreq is plain data; zeroed is a valid value.
    let mut r: libc::ifreq = unsafe { core::mem::zeroed() };
    for (d, s) in r.ifr_name.iter_mut().zip(ifname.as_bytes().iter().take(libc::IFNAMSIZ - 1)) {
        *d = *s as libc::c_char;
    }
    // SAFETY: r is a valid ifreq; SIOCGIFMTU writes only its mtu member.
    cvt(unsafe { libc::ioctl(fd, libc::SIOCGIFMTU as _, &mut r as *mut libc::ifreq) })?;
    // SAFETY: SIOCGIFMTU filled the mtu member of the union.
    let mtu = unsafe { r.ifr_ifru.ifru_mtu }.max(0) as usize;
    Ok((mtu + hard).min(super::air::MAX_FRAME))
}

impl PacketSocket {
    /// Whether frames go through the PACKET_MMAP rings.
    pub fn ring(&self) -> bool {
        self.ring.is_some()
    }

    /// The rings' counters (None on the per-frame path).
    pub fn ring_stats(&self) -> Option<RingStats> {
        self.ring.as_ref().map(Rings::stats)
    }

    /// The per-frame path's counters.
    pub fn plain_stats(&self) -> PlainStats {
        self.plain
    }

    /// The longest frame [`PacketSocket::queue_raw`] takes.
    pub fn tx_limit(&self) -> usize {
        self.tx_limit
    }

    /// Queues one frame as it is (link-layer header included): into the transmit ring, sent
    /// at the next [`PacketSocket::flush`] (or when the ring is full); on the per-frame path
    /// sent at once. A frame longer than the interface takes is refused with EMSGSIZE and
    /// counted.
    pub fn queue_raw(&mut self, f: &[u8]) -> io::Result<()> {
        let Some(ring) = self.ring.as_mut() else { return self.send_plain(f) };
        if f.len() > self.tx_limit {
            self.tx_too_long += 1;
            return Err(io::Error::from_raw_os_error(libc::EMSGSIZE));
        }
        ring.queue(f)
    }

    /// Hands the queued frames to the kernel (one send(2) on the ring).
    pub fn flush(&mut self) -> io::Result<()> {
        match self.ring.as_mut() {
            Some(r) => r.flush(),
            None => Ok(()),
        }
    }

    /// Sends one frame as it is (link-layer header included), now.
    pub fn send_raw(&mut self, f: &[u8]) -> io::Result<()> {
        self.queue_raw(f)?;
        self.flush()
    }

    fn send_plain(&mut self, f: &[u8]) -> io::Result<()> {
        // SAFETY: the buffer is valid for its length.
        let r = unsafe { libc::send(self.fd.as_raw_fd(), f.as_ptr() as *const libc::c_void, f.len(), 0) };
        if r < 0 {
            let e = io::Error::last_os_error();
            // A full queue loses the frame, as a busy radio would; counted.
            if matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::ENOBUFS)) {
                self.plain.tx_busy += 1;
                return Ok(());
            }
            if e.raw_os_error() == Some(libc::EMSGSIZE) {
                self.tx_too_long += 1;
            }
            return Err(e);
        }
        self.plain.tx += 1;
        Ok(())
    }

    /// The next frame received on the interface (not the ones this host sent), if any.
    pub fn recv_raw(&mut self, buf: &mut Vec<u8>) -> io::Result<bool> {
        if let Some(r) = self.ring.as_mut() {
            return Ok(r.recv(buf));
        }
        buf.resize(super::air::MAX_FRAME, 0);
        loop {
            // SAFETY: sockaddr_ll is plain data; zeroed is a valid value.
            let mut from: libc::sockaddr_ll = unsafe { core::mem::zeroed() };
            let mut flen = core::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
            // SAFETY: the buffer and the address are valid for their lengths.
            let r = unsafe {
                libc::recvfrom(
                    self.fd.as_raw_fd(),
                    buf.as_mut_ptr() as *mut libc::c_void,
                    buf.len(),
                    0,
                    &mut from as *mut _ as *mut libc::sockaddr,
                    &mut flen,
                )
            };
            if r >= 0 {
                // An AF_PACKET socket also sees what this host sends on the interface;
                // a radio does not hear its own transmissions.
                if from.sll_pkttype == libc::PACKET_OUTGOING {
                    continue;
                }
                buf.truncate(r as usize);
                self.plain.rx += 1;
                return Ok(true);
            }
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::WouldBlock => return Ok(false),
                io::ErrorKind::Interrupted => continue,
                _ => return Err(e),
            }
        }
    }

    /// Before polling the descriptor: queued frames go out, and true if received frames
    /// are waiting in the ring already (the descriptor is readable only for a block the
    /// kernel handed over since, so the caller must not sleep).
    pub fn prepare_wait(&mut self) -> io::Result<bool> {
        let Some(r) = self.ring.as_mut() else { return Ok(false) };
        if r.tx_pending() {
            r.flush()?;
        }
        Ok(r.rx_ready())
    }

    /// How frames move and their counters.
    pub fn describe_io(&self) -> String {
        match &self.ring {
            Some(r) => {
                let s = r.stats();
                format!(
                    "PACKET_MMAP ring ({}): rx {} in {} blocks, rx too long {}, rx malformed {}, rx ring drops {}; tx {} in {} sends, tx ring full {} times, tx ring full drops {}, tx busy drops {}, tx too long {}",
                    r.geometry(),
                    s.rx,
                    s.rx_blocks,
                    s.rx_too_long,
                    s.rx_malformed,
                    s.rx_kernel_drops,
                    s.tx,
                    s.tx_sends,
                    s.tx_full_waits,
                    s.tx_full_drops,
                    s.tx_busy,
                    self.tx_too_long
                )
            }
            None => format!(
                "per-frame socket, no ring: {}: rx {}, tx {}, tx busy drops {}, tx too long {}",
                self.no_ring.as_deref().unwrap_or("not set up"),
                self.plain.rx,
                self.plain.tx,
                self.plain.tx_busy,
                self.tx_too_long
            ),
        }
    }
}

impl super::Medium for PacketSocket {
    fn max_mpdu(&self) -> usize {
        // The transmit limit counts the radiotap header the frames carry.
        self.tx_limit.saturating_sub(super::RADIOTAP_LEN)
    }

    fn send(&mut self, mpdu: &[u8]) -> io::Result<()> {
        let mut f = core::mem::take(&mut self.scratch);
        super::encap_into(&mut f, mpdu, self.channel);
        let r = self.queue_raw(&f);
        self.scratch = f;
        r
    }

    fn recv(&mut self, buf: &mut Vec<u8>) -> io::Result<bool> {
        self.recv_raw(buf)
    }

    fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    fn flush(&mut self) -> io::Result<()> {
        PacketSocket::flush(self)
    }

    fn prepare_wait(&mut self) -> io::Result<bool> {
        PacketSocket::prepare_wait(self)
    }

    fn describe(&self) -> String {
        format!("packet {}: {}", self.ifname, self.describe_io())
    }
}
