//! The medium of the mac80211_hwsim radios, in user space (`hwsim:RADIOS`): the process
//! registers with the `MAC80211_HWSIM` generic netlink family, as wmediumd does, and from
//! then on every frame any hwsim radio of the network namespace transmits comes here
//! instead of going to the other radios inside the kernel.
//!
//! Followed: Linux 6.1 `drivers/net/wireless/mac80211_hwsim.h` (the commands, attributes
//! and `enum hwsim_tx_control_flags`) and `mac80211_hwsim.c`:
//! `mac80211_hwsim_tx_frame_nl()` (what a transmitted frame carries: ADDR_TRANSMITTER =
//! the radio's `addresses[1]`, FRAME without FCS, FLAGS, FREQ, TX_INFO, TX_INFO_FLAGS,
//! COOKIE), `hwsim_cloned_frame_received_nl()` (a frame to a radio needs ADDR_RECEIVER =
//! its `addresses[1]`, FRAME, RX_RATE, SIGNAL; an optional FREQ other than the radio's
//! channel drops it), `hwsim_tx_info_frame_received_nl()` (the transmit status needs
//! ADDR_TRANSMITTER, FLAGS, COOKIE, SIGNAL, TX_INFO; HWSIM_TX_STAT_ACK without
//! HWSIM_TX_CTL_NO_ACK marks the frame acknowledged) and `hwsim_register_received_nl()`
//! (one registered medium per namespace: EBUSY otherwise; closing the socket gives the
//! radios back the kernel's own medium). `mac80211_hwsim_new_radio()`: radio `idx` has
//! `addresses[0]` = 02:00:00:(idx>>8):(idx&255):00 and `addresses[1]` the same with 0x40
//! set in the first octet (42:00:...), the key the kernel looks radios up by.
//!
//! What this medium does with a radio's frame (HWSIM_CMD_FRAME from the kernel):
//! - delivers it (HWSIM_CMD_FRAME with the same FREQ) to the other radios of the spec;
//! - answers the transmitter (HWSIM_CMD_TX_INFO_FRAME) with HWSIM_TX_STAT_ACK when the
//!   frame is group-addressed or its A1 is one of the local addresses (the emulated
//!   stations) or a radio of the spec, so hostapd sees its frames to the stations
//!   acknowledged as a real card would report them;
//! - hands it (radiotap + MPDU + FCS, as every medium does) to the node when it is on the
//!   node's channel and group-addressed or to a local address.
//!
//! A frame the node sends goes to every radio of the spec (HWSIM_CMD_FRAME, FREQ = the
//! node's channel): no interface per emulated station is needed. Radios that are idle or
//! down refuse frames (EINVAL); those errors are counted, not fatal.
use super::{channel_mhz, encap, Medium};
use std::collections::{HashSet, VecDeque};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// `HWSIM_CMD_*` (mac80211_hwsim.h `enum hwsim_commands`).
pub const HWSIM_CMD_REGISTER: u8 = 1;
pub const HWSIM_CMD_FRAME: u8 = 2;
pub const HWSIM_CMD_TX_INFO_FRAME: u8 = 3;
/// `HWSIM_ATTR_*` (mac80211_hwsim.h `enum hwsim_attrs`).
pub const HWSIM_ATTR_ADDR_RECEIVER: u16 = 1;
pub const HWSIM_ATTR_ADDR_TRANSMITTER: u16 = 2;
pub const HWSIM_ATTR_FRAME: u16 = 3;
pub const HWSIM_ATTR_FLAGS: u16 = 4;
pub const HWSIM_ATTR_RX_RATE: u16 = 5;
pub const HWSIM_ATTR_SIGNAL: u16 = 6;
pub const HWSIM_ATTR_TX_INFO: u16 = 7;
pub const HWSIM_ATTR_COOKIE: u16 = 8;
pub const HWSIM_ATTR_FREQ: u16 = 19;
pub const HWSIM_ATTR_TX_INFO_FLAGS: u16 = 21;
/// `enum hwsim_tx_control_flags`.
pub const HWSIM_TX_CTL_NO_ACK: u32 = 1 << 1;
pub const HWSIM_TX_STAT_ACK: u32 = 1 << 2;
/// `HWSIM_GENL_NAME` / the family's `.version = 1`.
const FAMILY: &[u8] = b"MAC80211_HWSIM\0";
const VERSION: u8 = 1;
/// Generic netlink controller (linux/genetlink.h): GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
/// CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME.
const GENL_ID_CTRL: u16 = 0x10;
const CTRL_CMD_GETFAMILY: u8 = 3;
const CTRL_ATTR_FAMILY_ID: u16 = 1;
const CTRL_ATTR_FAMILY_NAME: u16 = 2;
/// linux/netlink.h.
const NLMSG_ERROR: u16 = 2;
const NLM_F_REQUEST: u16 = 1;
const NLM_F_ACK: u16 = 4;
const NLMSG_HDRLEN: usize = 16;
const GENL_HDRLEN: usize = 4;
/// Signal reported to receivers and in transmit status (dBm): a near, clean link.
const SIGNAL_DBM: i32 = -50;

fn bad(what: &'static str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

/// The address a radio is known by to the kernel (`addresses[1]`).
pub fn radio_addr(idx: u16) -> [u8; 6] {
    [0x42, 0, 0, (idx >> 8) as u8, idx as u8, 0]
}

/// A generic netlink message being built: nlmsghdr, genlmsghdr, attributes.
struct Msg(Vec<u8>);

impl Msg {
    fn new(family: u16, cmd: u8, version: u8, flags: u16, seq: u32) -> Msg {
        let mut v = Vec::with_capacity(256);
        v.extend_from_slice(&0u32.to_ne_bytes()); // nlmsg_len, set in finish()
        v.extend_from_slice(&family.to_ne_bytes());
        v.extend_from_slice(&flags.to_ne_bytes());
        v.extend_from_slice(&seq.to_ne_bytes());
        v.extend_from_slice(&0u32.to_ne_bytes()); // nlmsg_pid: the kernel
        v.extend_from_slice(&[cmd, version, 0, 0]);
        Msg(v)
    }
    fn attr(&mut self, ty: u16, data: &[u8]) -> &mut Msg {
        let len = 4 + data.len();
        self.0.extend_from_slice(&(len as u16).to_ne_bytes());
        self.0.extend_from_slice(&ty.to_ne_bytes());
        self.0.extend_from_slice(data);
        while !self.0.len().is_multiple_of(4) {
            self.0.push(0);
        }
        self
    }
    fn u32(&mut self, ty: u16, v: u32) -> &mut Msg {
        self.attr(ty, &v.to_ne_bytes())
    }
    fn finish(mut self) -> Vec<u8> {
        let n = self.0.len() as u32;
        self.0[..4].copy_from_slice(&n.to_ne_bytes());
        self.0
    }
}

/// One netlink message of a datagram: its type, and the payload after nlmsghdr.
#[derive(Debug)]
pub struct NlMsg<'a> {
    pub ty: u16,
    pub seq: u32,
    pub payload: &'a [u8],
}

/// Splits a datagram into its netlink messages; a length that does not fit is an error.
pub fn split(mut buf: &[u8]) -> io::Result<Vec<NlMsg<'_>>> {
    let mut out = Vec::new();
    while buf.len() >= NLMSG_HDRLEN {
        let len = u32::from_ne_bytes(buf[0..4].try_into().map_err(|_| bad("netlink header"))?) as usize;
        if len < NLMSG_HDRLEN || len > buf.len() {
            return Err(bad("netlink message length"));
        }
        let ty = u16::from_ne_bytes([buf[4], buf[5]]);
        let seq = u32::from_ne_bytes([buf[8], buf[9], buf[10], buf[11]]);
        out.push(NlMsg { ty, seq, payload: &buf[NLMSG_HDRLEN..len] });
        let adv = (len + 3) & !3;
        buf = buf.get(adv..).unwrap_or(&[]);
    }
    Ok(out)
}

/// The attributes of a payload (type without the NESTED/BYTEORDER bits, value).
pub fn attrs(mut buf: &[u8]) -> io::Result<Vec<(u16, &[u8])>> {
    let mut out = Vec::new();
    while buf.len() >= 4 {
        let len = u16::from_ne_bytes([buf[0], buf[1]]) as usize;
        let ty = u16::from_ne_bytes([buf[2], buf[3]]) & 0x3fff;
        if len < 4 || len > buf.len() {
            return Err(bad("netlink attribute length"));
        }
        out.push((ty, &buf[4..len]));
        let adv = (len + 3) & !3;
        buf = buf.get(adv..).unwrap_or(&[]);
    }
    Ok(out)
}

fn get<'a>(a: &[(u16, &'a [u8])], ty: u16) -> Option<&'a [u8]> {
    a.iter().find(|(t, _)| *t == ty).map(|(_, v)| *v)
}

fn get_u32(a: &[(u16, &[u8])], ty: u16) -> io::Result<Option<u32>> {
    match get(a, ty) {
        None => Ok(None),
        Some(v) => Ok(Some(u32::from_ne_bytes(v.get(..4).ok_or(bad("short u32 attribute"))?.try_into().map_err(|_| bad("u32"))?))),
    }
}

/// A frame a radio transmitted (HWSIM_CMD_FRAME from the kernel).
#[derive(Debug, Clone, PartialEq)]
pub struct TxFrame {
    pub transmitter: [u8; 6],
    pub frame: Vec<u8>,
    pub flags: u32,
    pub cookie: u64,
    pub freq: Option<u32>,
    pub tx_info: Vec<u8>,
}

/// Parses the generic netlink payload (genlmsghdr + attributes) of HWSIM_CMD_FRAME.
pub fn parse_tx_frame(payload: &[u8]) -> io::Result<TxFrame> {
    let body = payload.get(GENL_HDRLEN..).ok_or(bad("short generic netlink header"))?;
    if payload[0] != HWSIM_CMD_FRAME {
        return Err(bad("not HWSIM_CMD_FRAME"));
    }
    let a = attrs(body)?;
    let transmitter: [u8; 6] = get(&a, HWSIM_ATTR_ADDR_TRANSMITTER)
        .and_then(|v| v.get(..6))
        .ok_or(bad("no HWSIM_ATTR_ADDR_TRANSMITTER"))?
        .try_into()
        .map_err(|_| bad("address"))?;
    let frame = get(&a, HWSIM_ATTR_FRAME).ok_or(bad("no HWSIM_ATTR_FRAME"))?.to_vec();
    if frame.len() < 10 {
        return Err(bad("frame shorter than an 802.11 header"));
    }
    let flags = get_u32(&a, HWSIM_ATTR_FLAGS)?.ok_or(bad("no HWSIM_ATTR_FLAGS"))?;
    let c = get(&a, HWSIM_ATTR_COOKIE).ok_or(bad("no HWSIM_ATTR_COOKIE"))?;
    let cookie = u64::from_ne_bytes(c.get(..8).ok_or(bad("short cookie"))?.try_into().map_err(|_| bad("cookie"))?);
    let freq = get_u32(&a, HWSIM_ATTR_FREQ)?;
    // struct hwsim_tx_rate { s8 idx; u8 count; } x IEEE80211_TX_MAX_RATES (4).
    let tx_info = get(&a, HWSIM_ATTR_TX_INFO).map(|v| v.to_vec()).unwrap_or_else(|| vec![0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0]);
    Ok(TxFrame { transmitter, frame, flags, cookie, freq, tx_info })
}

/// Counters of the hwsim medium.
#[derive(Debug, Default, Clone, Copy)]
pub struct HwsimStats {
    pub radio_frames: u64,
    pub to_node: u64,
    pub acked: u64,
    pub delivered: u64,
    pub node_frames: u64,
    pub kernel_errors: u64,
    pub malformed: u64,
    pub overruns: u64,
}

pub struct Hwsim {
    fd: OwnedFd,
    family: u16,
    seq: u32,
    channel: u8,
    radios: Vec<[u8; 6]>,
    /// Interface addresses of the radios (`addresses[0]`), acknowledged like `radios`.
    radio_ifaddrs: Vec<[u8; 6]>,
    local: HashSet<[u8; 6]>,
    queue: VecDeque<Vec<u8>>,
    rbuf: Vec<u8>,
    pub stats: HwsimStats,
}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

impl Hwsim {
    /// `radios`: "0" or "0,1,...", the indices of the hwsim radios frames are delivered to
    /// (the AP's, a monitor's); `local`: the addresses this node answers for (acknowledged).
    pub fn open(radios: &str, channel: u8, local: impl IntoIterator<Item = [u8; 6]>) -> io::Result<Hwsim> {
        let mut idx = Vec::new();
        for r in radios.split(',') {
            idx.push(
                r.trim()
                    .parse::<u16>()
                    .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, format!("hwsim:RADIO[,RADIO...]: bad radio index {r:?}")))?,
            );
        }
        // SAFETY: plain socket(2); the descriptor is owned right after.
        let raw = cvt(unsafe { libc::socket(libc::AF_NETLINK, libc::SOCK_RAW | libc::SOCK_CLOEXEC, libc::NETLINK_GENERIC) })?;
        // SAFETY: raw is a fresh descriptor nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: a zeroed sockaddr_nl is valid (nl_pid 0: the kernel assigns one).
        let mut sa: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        sa.nl_family = libc::AF_NETLINK as libc::sa_family_t;
        // SAFETY: sa is a valid sockaddr_nl of the given length.
        cvt(unsafe { libc::bind(raw, &sa as *const _ as *const libc::sockaddr, std::mem::size_of::<libc::sockaddr_nl>() as u32) })?;
        // Every frame of every radio comes through this socket: a large receive buffer
        // (FORCE as root, beyond rmem_max; the plain option otherwise).
        let size: libc::c_int = 32 << 20;
        for (opt, force) in [(libc::SO_RCVBUF, libc::SO_RCVBUFFORCE), (libc::SO_SNDBUF, libc::SO_SNDBUFFORCE)] {
            let p = &size as *const libc::c_int as *const libc::c_void;
            let l = std::mem::size_of::<libc::c_int>() as u32;
            // SAFETY: an int option of the right length on our socket.
            if unsafe { libc::setsockopt(raw, libc::SOL_SOCKET, force, p, l) } < 0 {
                // SAFETY: as above.
                unsafe { libc::setsockopt(raw, libc::SOL_SOCKET, opt, p, l) };
            }
        }
        let radio_ifaddrs = idx.iter().map(|&i| [0x02, 0, 0, (i >> 8) as u8, i as u8, 0]).collect();
        let mut h = Hwsim {
            fd,
            family: 0,
            seq: 1,
            channel,
            radios: idx.iter().map(|&i| radio_addr(i)).collect(),
            radio_ifaddrs,
            local: local.into_iter().collect(),
            queue: VecDeque::new(),
            rbuf: vec![0u8; 1 << 16],
            stats: HwsimStats::default(),
        };
        // CTRL_CMD_GETFAMILY "MAC80211_HWSIM" -> CTRL_ATTR_FAMILY_ID.
        let mut m = Msg::new(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_REQUEST | NLM_F_ACK, h.next_seq());
        m.attr(CTRL_ATTR_FAMILY_NAME, FAMILY);
        h.write(&m.finish())?;
        let mut family = None;
        h.await_ack(|p| {
            if let Some(body) = p.get(GENL_HDRLEN..) {
                if let Some(v) = get(&attrs(body)?, CTRL_ATTR_FAMILY_ID) {
                    family = Some(u16::from_ne_bytes(v.get(..2).ok_or(bad("family id"))?.try_into().map_err(|_| bad("family id"))?));
                }
            }
            Ok(())
        })
        .map_err(|e| io::Error::new(e.kind(), format!("generic netlink family MAC80211_HWSIM (is mac80211_hwsim loaded?): {e}")))?;
        h.family = family.ok_or(bad("no MAC80211_HWSIM family id"))?;
        let m = Msg::new(h.family, HWSIM_CMD_REGISTER, VERSION, NLM_F_REQUEST | NLM_F_ACK, h.next_seq());
        h.write(&m.finish())?;
        h.await_ack(|_| Ok(())).map_err(|e| {
            io::Error::new(e.kind(), format!("HWSIM_CMD_REGISTER (EBUSY: another medium such as wmediumd is registered): {e}"))
        })?;
        // SAFETY: fcntl on our own descriptor.
        unsafe {
            let fl = cvt(libc::fcntl(raw, libc::F_GETFL))?;
            cvt(libc::fcntl(raw, libc::F_SETFL, fl | libc::O_NONBLOCK))?;
        }
        Ok(h)
    }

    fn next_seq(&mut self) -> u32 {
        self.seq = self.seq.wrapping_add(1);
        self.seq
    }

    fn write(&mut self, msg: &[u8]) -> io::Result<()> {
        // SAFETY: a zeroed sockaddr_nl is the kernel (pid 0).
        let mut sa: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        sa.nl_family = libc::AF_NETLINK as libc::sa_family_t;
        // SAFETY: msg is valid for its length; sa is a valid address.
        let n = unsafe {
            libc::sendto(
                self.fd.as_raw_fd(),
                msg.as_ptr() as *const libc::c_void,
                msg.len(),
                0,
                &sa as *const _ as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_nl>() as u32,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            // The kernel's queue to us is full (its error answers): a lost frame, not fatal.
            if matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::ENOBUFS) | Some(libc::EINTR)) {
                self.stats.overruns += 1;
                return Ok(());
            }
            return Err(e);
        }
        Ok(())
    }

    /// One datagram into `rbuf`; Ok(None) when nothing is waiting (non-blocking).
    fn read(&mut self) -> io::Result<Option<usize>> {
        // SAFETY: rbuf is valid for writes of its length.
        let n = unsafe { libc::recv(self.fd.as_raw_fd(), self.rbuf.as_mut_ptr() as *mut libc::c_void, self.rbuf.len(), 0) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::EAGAIN) | Some(libc::EINTR) => Ok(None),
                // The receive buffer overflowed: frames lost, as on a busy channel.
                Some(libc::ENOBUFS) => {
                    self.stats.overruns += 1;
                    Ok(None)
                }
                _ => Err(e),
            };
        }
        Ok(Some(n as usize))
    }

    /// Blocking, during set-up: messages until the NLMSG_ERROR answering our last request
    /// (error 0 is the acknowledgement); other messages go to `each`.
    fn await_ack(&mut self, mut each: impl FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
        let seq = self.seq;
        loop {
            let Some(n) = self.read()? else { continue };
            let buf = self.rbuf[..n].to_vec();
            for m in split(&buf)? {
                if m.seq != seq {
                    continue;
                }
                if m.ty == NLMSG_ERROR {
                    let e = i32::from_ne_bytes(m.payload.get(..4).ok_or(bad("short NLMSG_ERROR"))?.try_into().map_err(|_| bad("error"))?);
                    return if e == 0 { Ok(()) } else { Err(io::Error::from_raw_os_error(-e)) };
                }
                each(m.payload)?;
            }
        }
    }

    fn is_radio(&self, a: &[u8; 6]) -> bool {
        self.radios.contains(a) || self.radio_ifaddrs.contains(a)
    }

    /// HWSIM_CMD_FRAME to radio `rx`.
    fn deliver(&mut self, rx: [u8; 6], frame: &[u8], rate: u32, freq: u32) -> io::Result<()> {
        let seq = self.next_seq();
        let mut m = Msg::new(self.family, HWSIM_CMD_FRAME, VERSION, NLM_F_REQUEST, seq);
        m.attr(HWSIM_ATTR_ADDR_RECEIVER, &rx)
            .attr(HWSIM_ATTR_FRAME, frame)
            .u32(HWSIM_ATTR_RX_RATE, rate)
            .u32(HWSIM_ATTR_SIGNAL, SIGNAL_DBM as u32)
            .u32(HWSIM_ATTR_FREQ, freq);
        self.write(&m.finish())?;
        self.stats.delivered += 1;
        Ok(())
    }

    /// A radio's frame: to the other radios, its transmit status back, to the node.
    fn radio_frame(&mut self, f: TxFrame) -> io::Result<()> {
        self.stats.radio_frames += 1;
        let freq = f.freq.unwrap_or(channel_mhz(self.channel) as u32);
        // The first rate the radio tried (struct hwsim_tx_rate.idx, s8; -1 = unused).
        let rate = match f.tx_info.first() {
            Some(&i) if (i as i8) >= 0 => i as u32,
            _ => 0,
        };
        let from = f.transmitter;
        for rx in self.radios.clone() {
            if rx != from {
                self.deliver(rx, &f.frame, rate, freq)?;
            }
        }
        let a1: [u8; 6] = f.frame[4..10].try_into().map_err(|_| bad("A1"))?;
        let group = a1[0] & 1 != 0;
        let ours = self.local.contains(&a1);
        let mut flags = f.flags;
        if f.flags & HWSIM_TX_CTL_NO_ACK == 0 && (group || ours || (self.is_radio(&a1) && a1 != from)) {
            flags |= HWSIM_TX_STAT_ACK;
            self.stats.acked += 1;
        }
        let seq = self.next_seq();
        let mut m = Msg::new(self.family, HWSIM_CMD_TX_INFO_FRAME, VERSION, NLM_F_REQUEST, seq);
        m.attr(HWSIM_ATTR_ADDR_TRANSMITTER, &from)
            .u32(HWSIM_ATTR_FLAGS, flags)
            .u32(HWSIM_ATTR_SIGNAL, SIGNAL_DBM as u32)
            .attr(HWSIM_ATTR_TX_INFO, &f.tx_info)
            .attr(HWSIM_ATTR_COOKIE, &f.cookie.to_ne_bytes());
        self.write(&m.finish())?;
        if (group || ours) && freq == channel_mhz(self.channel) as u32 {
            self.stats.to_node += 1;
            self.queue.push_back(encap(&f.frame, self.channel));
        }
        Ok(())
    }

    /// Reads what the kernel sent until the socket is empty or a frame for the node is queued.
    fn pump(&mut self) -> io::Result<()> {
        while self.queue.is_empty() {
            let Some(n) = self.read()? else { return Ok(()) };
            let buf = self.rbuf[..n].to_vec();
            let msgs = match split(&buf) {
                Ok(m) => m,
                Err(_) => {
                    self.stats.malformed += 1;
                    continue;
                }
            };
            for m in msgs {
                if m.ty == NLMSG_ERROR {
                    // A refused HWSIM_CMD_FRAME (idle radio) or TX_INFO (cookie gone).
                    if m.payload.get(..4).is_some_and(|e| e != [0, 0, 0, 0]) {
                        self.stats.kernel_errors += 1;
                    }
                    continue;
                }
                if m.ty != self.family || m.payload.first() != Some(&HWSIM_CMD_FRAME) {
                    continue;
                }
                match parse_tx_frame(m.payload) {
                    Ok(f) => self.radio_frame(f)?,
                    Err(_) => self.stats.malformed += 1,
                }
            }
        }
        Ok(())
    }
}

impl Medium for Hwsim {
    /// mac80211_hwsim takes frames from user space up to IEEE80211_MAX_DATA_LEN (2304
    /// octets, the whole frame: `hwsim_cloned_frame_received_nl`).
    fn max_mpdu(&self) -> usize {
        2304
    }

    fn send(&mut self, mpdu: &[u8]) -> io::Result<()> {
        self.stats.node_frames += 1;
        let freq = channel_mhz(self.channel) as u32;
        for rx in self.radios.clone() {
            // Rate index 0: the band's lowest rate (1 Mb/s at 2.4 GHz).
            self.deliver(rx, mpdu, 0, freq)?;
        }
        Ok(())
    }

    fn recv(&mut self, buf: &mut Vec<u8>) -> io::Result<bool> {
        self.pump()?;
        match self.queue.pop_front() {
            Some(f) => {
                *buf = f;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    fn describe(&self) -> String {
        let s = &self.stats;
        format!(
            "hwsim medium: radio frames {} (acked {}, to the node {}), node frames {}, deliveries {}, kernel errors {}, malformed {}, receive overruns {}",
            s.radio_frames, s.acked, s.to_node, s.node_frames, s.delivered, s.kernel_errors, s.malformed, s.overruns
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel_frame(frame: &[u8]) -> Vec<u8> {
        let mut m = Msg::new(0x20, HWSIM_CMD_FRAME, 1, 0, 7);
        m.attr(HWSIM_ATTR_ADDR_TRANSMITTER, &radio_addr(0))
            .attr(HWSIM_ATTR_FRAME, frame)
            .u32(HWSIM_ATTR_FLAGS, 1)
            .u32(HWSIM_ATTR_FREQ, 2437)
            .attr(HWSIM_ATTR_TX_INFO, &[0, 1, 0xff, 0, 0xff, 0, 0xff, 0])
            .attr(HWSIM_ATTR_TX_INFO_FLAGS, &[0; 12])
            .attr(HWSIM_ATTR_COOKIE, &42u64.to_ne_bytes());
        m.finish()
    }

    #[test]
    fn parses_a_radio_frame() {
        let frame = [0xb0, 0, 0, 0, 2, 0x4c, 0x44, 0, 0, 1, 2, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0];
        let d = kernel_frame(&frame);
        let msgs = split(&d).unwrap();
        assert_eq!(msgs.len(), 1);
        assert_eq!(msgs[0].ty, 0x20);
        let f = parse_tx_frame(msgs[0].payload).unwrap();
        assert_eq!(f.transmitter, [0x42, 0, 0, 0, 0, 0]);
        assert_eq!(f.frame, frame);
        assert_eq!((f.flags, f.cookie, f.freq), (1, 42, Some(2437)));
        assert_eq!(f.tx_info.len(), 8);
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let frame = [0x80u8; 24];
        let d = kernel_frame(&frame);
        // Every truncation and every corrupted length octet: errors or parses, no panic.
        for n in 0..d.len() {
            if let Ok(ms) = split(&d[..n]) {
                for m in ms {
                    let _ = parse_tx_frame(m.payload);
                }
            }
        }
        for i in 0..d.len() {
            for v in [0u8, 1, 3, 4, 0x7f, 0xff] {
                let mut c = d.clone();
                c[i] = v;
                if let Ok(ms) = split(&c) {
                    for m in ms {
                        let _ = parse_tx_frame(m.payload);
                    }
                }
            }
        }
        assert!(split(&[32, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]).is_err());
        assert!(parse_tx_frame(&[HWSIM_CMD_FRAME]).is_err());
        assert!(parse_tx_frame(&[HWSIM_CMD_FRAME, 1, 0, 0]).is_err());
    }
}
