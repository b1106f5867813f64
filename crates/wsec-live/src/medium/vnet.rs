//! The TAP's offloads: `virtio_net_hdr` before every frame, TCP segmentation (TSO) and
//! coalescing (GRO) done here, so one read(2) or write(2) carries up to 64 KiB instead of
//! one 1500-octet frame.
//!
//! Kernel interfaces (linux/if_tun.h, linux/virtio_net.h):
//! - TUNSETIFF with `IFF_TAP | IFF_NO_PI | IFF_VNET_HDR`: every read and write starts with
//!   a `struct virtio_net_hdr`;
//! - TUNSETVNETHDRSZ 10: the plain header, not the 12-octet `virtio_net_hdr_mrg_rxbuf`,
//!   whose `num_buffers` means nothing without virtio rings and which would put the IP
//!   header at offset 26 of the read buffer instead of the 4-aligned 24;
//! - TUNSETVNETLE 1: the header is little-endian on any host, as this codec reads it;
//! - TUNSETOFFLOAD `TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN`, with
//!   `TUN_F_USO4 | TUN_F_USO6` where the kernel has them (6.2 and later): the kernel may
//!   then hand over unchecksummed frames and TCP (and UDP) super-packets.
//!
//! Read side ([`split`]), by `gso_type`:
//! - NONE: the frame as it is; with NEEDS_CSUM its checksum is completed (the field holds
//!   the pseudo-header sum, the sum runs from `csum_start` to the end). DATA_VALID means
//!   the kernel checked it already; nothing to do.
//! - TCPV4 / TCPV6 (ECN bit allowed): cut into frames of `gso_size` payload (less if the
//!   MTU asks), as a NIC's TSO would: IPv4 total length, identification + i and header
//!   checksum; IPv6 payload length; sequence numbers advanced; FIN and PSH only on the
//!   last, CWR only on the first; the TCP checksum completed with the pseudo-header.
//! - UDP_L4: cut into datagrams of `gso_size` (which must fit the MTU), UDP length and
//!   checksum per datagram.
//! - Refused (an error, the packet is dropped): UFO (`GSO_UDP`, never enabled), a type the
//!   IP version does not match, IPv6 extension headers, IPv4 fragments, IP lengths that
//!   differ from the packet's, `hdr_len` or `csum_start + csum_offset` beyond the packet,
//!   `gso_size` 0, more than 65 535 IP octets, more than [`MAX_SEGMENTS`] segments.
//!   `hdr_len` is checked but not used: the kernel sets it to the skb's linear length.
//!
//! Write side ([`Coalescer`]): a batch of frames is grouped as Linux `tcp_gro_receive` would
//! (same addresses, ports, ACK, window and options; IPv4 without options or fragments;
//! equal TOS/TTL/DF or traffic class/flow label/hop limit; flags ACK or ACK|PSH only;
//! consecutive sequence numbers; every segment but the last of `gso_size`; PSH ends a
//! group; at most [`MAX_GRO_SEGS`] segments and 65 535 IP octets). Each segment's checksums
//! are verified before it joins, because the merged packet goes in with NEEDS_CSUM (the
//! kernel's CHECKSUM_PARTIAL), which the receiving stack trusts. A group goes out as one
//! write with `gso_type` TCPV4/TCPV6, `csum_start` at the TCP header, `csum_offset` 16 and
//! the pseudo-header sum in the checksum field; every other frame goes out as it is behind
//! a zero header (the kernel checks its checksum). DATA_VALID is never set on write: tun
//! ignores it. Per flow, the order of frames is kept.
//!
//! The code is hand-written rather than on a packet crate: it touches a dozen fixed
//! offsets on the hot path and reuses its buffers ([`Frames`], the coalescer's tables),
//! so steady state allocates nothing.
use std::io;
use std::os::fd::RawFd;
use wsec::error::{Error, Result};

/// Octets of `struct virtio_net_hdr` before every frame (TUNSETVNETHDRSZ).
pub const VNET_HDR_LEN: usize = 10;
/// The longest frame a super-packet can be: one 802.1Q tag and 65 535 IP octets.
pub const MAX_FRAME: usize = 18 + 65_535;
/// Segments one super-packet may be cut into: 65 535 octets at an MSS of 32.
pub const MAX_SEGMENTS: usize = 2048;
/// Segments one coalesced packet may hold (Linux GRO's limit too).
pub const MAX_GRO_SEGS: usize = 64;
/// Room for the vnet header and an Ethernet + IP + TCP header of a coalesced packet.
pub const HEADER_BUF: usize = VNET_HDR_LEN + 18 + 40 + 60;

/// `flags`: the checksum from `csum_start` to the end is to be completed.
pub const F_NEEDS_CSUM: u8 = 1;
/// `flags`: the kernel verified the checksum.
pub const F_DATA_VALID: u8 = 2;
pub const GSO_NONE: u8 = 0;
pub const GSO_TCPV4: u8 = 1;
/// UFO (IPv4 fragmentation of UDP): never enabled, refused.
pub const GSO_UDP: u8 = 3;
pub const GSO_TCPV6: u8 = 4;
pub const GSO_UDP_L4: u8 = 5;
/// Or-ed into `gso_type`: the TCP super-packet has CWR set (on its first segment only).
pub const GSO_ECN: u8 = 0x80;

const ETH_P_IP: u16 = 0x0800;
const ETH_P_IPV6: u16 = 0x86dd;
const IPPROTO_TCP: u8 = 6;
const IPPROTO_UDP: u8 = 17;
const TCP_FIN: u8 = 0x01;
const TCP_PSH: u8 = 0x08;
const TCP_ACK: u8 = 0x10;
const TCP_CWR: u8 = 0x80;

/// `struct virtio_net_hdr` (include/uapi/linux/virtio_net.h), little-endian fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VnetHdr {
    pub flags: u8,
    pub gso_type: u8,
    pub hdr_len: u16,
    pub gso_size: u16,
    pub csum_start: u16,
    pub csum_offset: u16,
}

impl VnetHdr {
    pub fn decode(b: &[u8]) -> Result<VnetHdr> {
        let b: &[u8; VNET_HDR_LEN] = b.get(..VNET_HDR_LEN).and_then(|s| s.try_into().ok()).ok_or(Error::Truncated)?;
        let le = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        Ok(VnetHdr { flags: b[0], gso_type: b[1], hdr_len: le(2), gso_size: le(4), csum_start: le(6), csum_offset: le(8) })
    }

    pub fn encode(&self) -> [u8; VNET_HDR_LEN] {
        let mut b = [0; VNET_HDR_LEN];
        b[0] = self.flags;
        b[1] = self.gso_type;
        for (i, v) in [self.hdr_len, self.gso_size, self.csum_start, self.csum_offset].into_iter().enumerate() {
            b[2 + 2 * i..4 + 2 * i].copy_from_slice(&v.to_le_bytes());
        }
        b
    }
}

/// Turns the offloads on for a TAP opened with IFF_VNET_HDR; returns the TUN_F_* flags set.
pub fn enable(fd: RawFd) -> io::Result<u32> {
    let sz: libc::c_int = VNET_HDR_LEN as libc::c_int;
    // SAFETY: TUNSETVNETHDRSZ reads one int through the pointer, which outlives the call.
    if unsafe { libc::ioctl(fd, libc::TUNSETVNETHDRSZ as _, &sz as *const libc::c_int) } < 0 {
        return Err(io::Error::last_os_error());
    }
    let le: libc::c_int = 1;
    // SAFETY: TUNSETVNETLE reads one int through the pointer, which outlives the call.
    if unsafe { libc::ioctl(fd, libc::TUNSETVNETLE as _, &le as *const libc::c_int) } < 0 {
        return Err(io::Error::last_os_error());
    }
    let tcp = libc::TUN_F_CSUM | libc::TUN_F_TSO4 | libc::TUN_F_TSO6 | libc::TUN_F_TSO_ECN;
    for flags in [tcp | libc::TUN_F_USO4 | libc::TUN_F_USO6, tcp] {
        // SAFETY: TUNSETOFFLOAD takes the flags as the argument itself, no pointer.
        if unsafe { libc::ioctl(fd, libc::TUNSETOFFLOAD as _, flags as libc::c_ulong) } == 0 {
            return Ok(flags);
        }
    }
    Err(io::Error::last_os_error())
}

/// Ones'-complement sum (RFC 1071) of `data` as big-endian 16-bit words, folded, not
/// inverted. Summed as native 32-bit words (the sum is byte-order independent, RFC 1071
/// 2(B)), which the compiler vectorises.
pub fn ones_sum(data: &[u8]) -> u16 {
    let mut acc: u64 = 0;
    let mut words = data.chunks_exact(4);
    for w in &mut words {
        acc += u32::from_ne_bytes([w[0], w[1], w[2], w[3]]) as u64;
    }
    let mut tail = [0u8; 4];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    acc += u32::from_ne_bytes(tail) as u64;
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    u16::from_be(acc as u16)
}

/// Ones'-complement addition of two 16-bit sums.
pub fn add16(a: u16, b: u16) -> u16 {
    let s = a as u32 + b as u32;
    ((s & 0xffff) + (s >> 16)) as u16
}

/// The pseudo-header sum (RFC 793 / RFC 8200 8.1) of `addrs` (source then destination).
fn pseudo(addrs: &[u8], proto: u8, len: usize) -> u16 {
    add16(add16(ones_sum(addrs), proto as u16), len as u16)
}

fn be16(b: &[u8], at: usize) -> Result<u16> {
    b.get(at..at + 2).map(|s| u16::from_be_bytes([s[0], s[1]])).ok_or(Error::Truncated)
}

fn be32(b: &[u8], at: usize) -> Result<u32> {
    b.get(at..at + 4).map(|s| u32::from_be_bytes([s[0], s[1], s[2], s[3]])).ok_or(Error::Truncated)
}

fn put16(b: &mut [u8], at: usize, v: u16) {
    if let Some(s) = b.get_mut(at..at + 2) {
        s.copy_from_slice(&v.to_be_bytes());
    }
}

/// The IP layer of an Ethernet frame.
#[derive(Clone, Copy, Debug)]
struct Ip {
    l3: usize,
    v6: bool,
    /// The transport header's offset (IPv6: only without extension headers).
    l4: usize,
    proto: u8,
    /// Where the IP packet ends by its own length field.
    end: usize,
}

impl Ip {
    /// Source and destination addresses.
    fn addrs(self) -> std::ops::Range<usize> {
        if self.v6 {
            self.l3 + 8..self.l3 + 40
        } else {
            self.l3 + 12..self.l3 + 20
        }
    }
}

/// Parses Ethernet (one 802.1Q / 802.1ad tag allowed) and the IPv4 or IPv6 header.
fn parse_ip(f: &[u8]) -> Result<Ip> {
    let (l3, ethertype) = match be16(f, 12)? {
        0x8100 | 0x88a8 => (18, be16(f, 16)?),
        t => (14, t),
    };
    let first = *f.get(l3).ok_or(Error::Truncated)?;
    match (ethertype, first >> 4) {
        (ETH_P_IP, 4) => {
            let ihl = (first & 0x0f) as usize * 4;
            if ihl < 20 {
                return Err(Error::Malformed("IPv4 IHL below 5"));
            }
            let total = be16(f, l3 + 2)? as usize;
            if total < ihl {
                return Err(Error::Malformed("IPv4 total length below the header"));
            }
            let proto = *f.get(l3 + 9).ok_or(Error::Truncated)?;
            let ip = Ip { l3, v6: false, l4: l3 + ihl, proto, end: l3 + total };
            if ip.l4 > f.len() || ip.end > f.len() {
                return Err(Error::Truncated);
            }
            Ok(ip)
        }
        (ETH_P_IPV6, 6) => {
            let plen = be16(f, l3 + 4)? as usize;
            let proto = *f.get(l3 + 6).ok_or(Error::Truncated)?;
            let ip = Ip { l3, v6: true, l4: l3 + 40, proto, end: l3 + 40 + plen };
            if ip.l4 > f.len() || ip.end > f.len() {
                return Err(Error::Truncated);
            }
            Ok(ip)
        }
        (ETH_P_IP | ETH_P_IPV6, _) => Err(Error::Malformed("IP version differs from the ethertype")),
        _ => Err(Error::Unsupported("not IPv4 or IPv6")),
    }
}

fn is_fragment(f: &[u8], ip: Ip) -> bool {
    !ip.v6 && be16(f, ip.l3 + 6).is_ok_and(|v| v & 0x3fff != 0)
}

/// Frames in one reused buffer: clearing keeps the capacity, so a steady flow of batches
/// allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct Frames {
    data: Vec<u8>,
    ends: Vec<usize>,
}

impl Frames {
    pub fn new() -> Frames {
        Frames::default()
    }

    pub fn clear(&mut self) {
        self.data.clear();
        self.ends.clear();
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Octets in all frames.
    pub fn octets(&self) -> usize {
        self.data.len()
    }

    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.data.get(start..end)
    }

    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    pub fn push(&mut self, frame: &[u8]) {
        self.data.extend_from_slice(frame);
        self.ends.push(self.data.len());
    }

    fn truncate(&mut self, n: usize) {
        self.ends.truncate(n);
        self.data.truncate(self.ends.last().copied().unwrap_or(0));
    }
}

/// A batch of Ethernet frames, however it is stored.
pub trait FrameList {
    fn count(&self) -> usize;
    /// Frame `i` (empty past the end).
    fn frame(&self, i: usize) -> &[u8];
}

impl FrameList for Frames {
    fn count(&self) -> usize {
        self.len()
    }
    fn frame(&self, i: usize) -> &[u8] {
        self.get(i).unwrap_or(&[])
    }
}

impl<T: AsRef<[u8]>> FrameList for [T] {
    fn count(&self) -> usize {
        self.len()
    }
    fn frame(&self, i: usize) -> &[u8] {
        self.get(i).map_or(&[], |f| f.as_ref())
    }
}

impl<T: AsRef<[u8]>> FrameList for Vec<T> {
    fn count(&self) -> usize {
        self.len()
    }
    fn frame(&self, i: usize) -> &[u8] {
        self.as_slice().frame(i)
    }
}

/// Completes a CHECKSUM_PARTIAL frame in place: the field at `start + offset` holds the
/// pseudo-header sum; the checksum covers `start..`. 0 goes out as 0xffff, as the kernel's
/// `skb_checksum_help` does (UDP's "no checksum" value is never produced).
fn complete_csum(pkt: &mut [u8], start: usize, offset: usize) -> Result<()> {
    let at = start.checked_add(offset).ok_or(Error::Malformed("csum_start + csum_offset"))?;
    if at + 2 > pkt.len() {
        return Err(Error::Malformed("csum_start + csum_offset beyond the packet"));
    }
    let seed = be16(pkt, at)?;
    put16(pkt, at, 0);
    let c = !add16(seed, ones_sum(&pkt[start..]));
    put16(pkt, at, if c == 0 { 0xffff } else { c });
    Ok(())
}

/// Cuts one packet read from the TAP (after its vnet header `hdr`) into Ethernet frames of
/// at most `mtu` IP octets, appended to `out`; returns how many. A frame without GSO is
/// appended as it is, its checksum completed first if NEEDS_CSUM (in `pkt`, in place).
/// On an error nothing is appended.
pub fn split(hdr: &VnetHdr, pkt: &mut [u8], mtu: usize, out: &mut Frames) -> Result<usize> {
    if pkt.len() > MAX_FRAME {
        return Err(Error::Oversize);
    }
    if hdr.hdr_len as usize > pkt.len() {
        return Err(Error::Malformed("hdr_len beyond the packet"));
    }
    if hdr.gso_type == GSO_NONE {
        if hdr.flags & F_NEEDS_CSUM != 0 {
            complete_csum(pkt, hdr.csum_start as usize, hdr.csum_offset as usize)?;
        }
        out.push(pkt);
        return Ok(1);
    }
    let before = out.len();
    let r = segment(hdr, pkt, mtu, out);
    if r.is_err() {
        out.truncate(before);
    }
    r
}

fn segment(hdr: &VnetHdr, pkt: &[u8], mtu: usize, out: &mut Frames) -> Result<usize> {
    let ip = parse_ip(pkt)?;
    let (tcp, csum_offset) = match (hdr.gso_type & !GSO_ECN, ip.v6, hdr.gso_type & GSO_ECN != 0) {
        (GSO_TCPV4, false, _) | (GSO_TCPV6, true, _) => (true, 16),
        (GSO_UDP_L4, _, false) => (false, 6),
        (GSO_TCPV4 | GSO_TCPV6, _, _) => return Err(Error::Malformed("gso_type differs from the IP version")),
        (GSO_UDP, _, _) => return Err(Error::Unsupported("UFO (GSO_UDP)")),
        _ => return Err(Error::Malformed("unknown gso_type")),
    };
    if ip.proto != if tcp { IPPROTO_TCP } else { IPPROTO_UDP } {
        return Err(Error::Malformed("IP protocol differs from gso_type (or IPv6 extension headers)"));
    }
    if ip.end != pkt.len() {
        return Err(Error::Malformed("IP length differs from the packet's"));
    }
    if is_fragment(pkt, ip) {
        return Err(Error::Malformed("IPv4 fragment with GSO"));
    }
    if hdr.gso_size == 0 {
        return Err(Error::Malformed("gso_size 0"));
    }
    if hdr.flags & F_NEEDS_CSUM != 0 && (hdr.csum_start as usize != ip.l4 || hdr.csum_offset != csum_offset) {
        return Err(Error::Malformed("csum_start/csum_offset not at the transport checksum"));
    }
    let hl = if tcp {
        let doff = (*pkt.get(ip.l4 + 12).ok_or(Error::Truncated)? >> 4) as usize * 4;
        if doff < 20 {
            return Err(Error::Malformed("TCP data offset below 5"));
        }
        ip.l4 + doff
    } else {
        ip.l4 + 8
    };
    if hl > pkt.len() {
        return Err(Error::Truncated);
    }
    let payload = pkt.len() - hl;
    if payload == 0 {
        return Err(Error::Malformed("GSO packet without payload"));
    }
    let headers = hl - ip.l3;
    if mtu <= headers {
        return Err(Error::Malformed("MTU not above the headers"));
    }
    // TCP may be cut finer than the sender's MSS; UDP datagram boundaries are fixed.
    let seg = if tcp {
        (hdr.gso_size as usize).min(mtu - headers)
    } else if hdr.gso_size as usize + headers > mtu {
        return Err(Error::Malformed("UDP gso_size beyond the MTU"));
    } else {
        hdr.gso_size as usize
    };
    let n = payload.div_ceil(seg);
    if n > MAX_SEGMENTS {
        return Err(Error::Oversize);
    }
    let addr_sum = ones_sum(&pkt[ip.addrs()]);
    let id = be16(pkt, ip.l3 + 4)?;
    let seq = be32(pkt, ip.l4 + 4)?;
    let proto = if tcp { IPPROTO_TCP } else { IPPROTO_UDP };
    out.data.reserve(payload + n * hl);
    out.ends.reserve(n);
    for i in 0..n {
        let (from, to) = (hl + i * seg, (hl + (i + 1) * seg).min(pkt.len()));
        let start = out.data.len();
        out.data.extend_from_slice(&pkt[..hl]);
        out.data.extend_from_slice(&pkt[from..to]);
        let f = &mut out.data[start..];
        let l4_len = f.len() - ip.l4;
        if ip.v6 {
            put16(f, ip.l3 + 4, (f.len() - ip.l4) as u16);
        } else {
            put16(f, ip.l3 + 2, (f.len() - ip.l3) as u16);
            put16(f, ip.l3 + 4, id.wrapping_add(i as u16));
            put16(f, ip.l3 + 10, 0);
            let c = !ones_sum(&f[ip.l3..ip.l4]);
            put16(f, ip.l3 + 10, c);
        }
        if tcp {
            if let Some(s) = f.get_mut(ip.l4 + 4..ip.l4 + 8) {
                s.copy_from_slice(&seq.wrapping_add((i * seg) as u32).to_be_bytes());
            }
            let flags = &mut f[ip.l4 + 13];
            if i + 1 < n {
                *flags &= !(TCP_FIN | TCP_PSH);
            }
            if i > 0 {
                *flags &= !TCP_CWR;
            }
        } else {
            put16(f, ip.l4 + 4, l4_len as u16);
        }
        put16(f, ip.l4 + csum_offset as usize, 0);
        let c = !add16(add16(add16(addr_sum, proto as u16), l4_len as u16), ones_sum(&f[ip.l4..]));
        put16(f, ip.l4 + csum_offset as usize, if c == 0 && !tcp { 0xffff } else { c });
        out.ends.push(out.data.len());
    }
    Ok(n)
}

/// A TCP segment's layout, from its Ethernet header on.
#[derive(Clone, Copy, Debug)]
struct Seg {
    ip: Ip,
    /// End of the TCP header.
    hl: usize,
    seq: u32,
    flags: u8,
    payload: usize,
}

/// The TCP segment in `f`, if it is one (IPv6 without extension headers).
fn tcp_seg(f: &[u8]) -> Option<Seg> {
    let ip = parse_ip(f).ok()?;
    if ip.proto != IPPROTO_TCP || is_fragment(f, ip) {
        return None;
    }
    let doff = (*f.get(ip.l4 + 12)? >> 4) as usize * 4;
    let hl = ip.l4 + doff;
    if doff < 20 || hl > ip.end {
        return None;
    }
    Some(Seg { ip, hl, seq: be32(f, ip.l4 + 4).ok()?, flags: f[ip.l4 + 13], payload: ip.end - hl })
}

/// Whether a segment may be coalesced at all: no IPv4 options, flags ACK or ACK|PSH,
/// data, no padding after the IP packet, a valid IPv4 header checksum.
fn candidate(f: &[u8], s: &Seg) -> bool {
    (s.flags == TCP_ACK || s.flags == TCP_ACK | TCP_PSH)
        && s.payload > 0
        && s.ip.end == f.len()
        && (s.ip.v6 || (s.ip.l4 - s.ip.l3 == 20 && ones_sum(&f[s.ip.l3..s.ip.l4]) == 0xffff))
}

fn same_flow(a: &[u8], sa: &Seg, b: &[u8], sb: &Seg) -> bool {
    sa.ip.v6 == sb.ip.v6
        && sa.ip.l3 == sb.ip.l3
        && a.get(sa.ip.addrs()) == b.get(sb.ip.addrs())
        && a.get(sa.ip.l4..sa.ip.l4 + 4) == b.get(sb.ip.l4..sb.ip.l4 + 4)
}

/// Whether every header field a merged packet keeps from its first segment is equal.
fn headers_match(a: &[u8], sa: &Seg, b: &[u8], sb: &Seg) -> bool {
    let (l3, l4) = (sa.ip.l3, sa.ip.l4);
    sa.hl == sb.hl
        && a[..l3] == b[..l3]
        && if sa.ip.v6 {
            a[l3..l3 + 4] == b[l3..l3 + 4] && a[l3 + 6..l3 + 8] == b[l3 + 6..l3 + 8]
        } else {
            a[l3..l3 + 2] == b[l3..l3 + 2] && a[l3 + 6..l3 + 10] == b[l3 + 6..l3 + 10]
        }
        // ACK number and data offset; window; options.
        && a[l4 + 8..l4 + 13] == b[l4 + 8..l4 + 13]
        && a[l4 + 14..l4 + 16] == b[l4 + 14..l4 + 16]
        && a[l4 + 20..sa.hl] == b[l4 + 20..sb.hl]
}

fn tcp_csum_ok(f: &[u8], s: &Seg) -> bool {
    add16(pseudo(&f[s.ip.addrs()], IPPROTO_TCP, s.ip.end - s.ip.l4), ones_sum(&f[s.ip.l4..s.ip.end])) == 0xffff
}

const NIL: u32 = u32::MAX;

/// One packet to write: a lone frame or a run of segments of one flow.
#[derive(Clone, Copy, Debug)]
struct Group {
    head: u32,
    tail: u32,
    count: u32,
    /// The head's layout (only for TCP candidates).
    seg: Option<Seg>,
    gso_size: usize,
    payload: usize,
    next_seq: u32,
    open: bool,
    head_checked: bool,
    psh: bool,
}

/// Plans the writes of a batch of frames (GRO, see the module header). Its tables are
/// reused from batch to batch.
#[derive(Debug, Default)]
pub struct Coalescer {
    groups: Vec<Group>,
    /// Per frame: the next frame of its group.
    next: Vec<u32>,
    /// Groups that may still grow.
    open: Vec<u32>,
}

impl Coalescer {
    pub fn new() -> Coalescer {
        Coalescer::default()
    }

    /// Groups the frames of `frames`; then [`Coalescer::packets`] say what to write, given
    /// the same `frames`.
    pub fn plan<L: FrameList + ?Sized>(&mut self, frames: &L) {
        self.groups.clear();
        self.open.clear();
        self.next.clear();
        self.next.resize(frames.count(), NIL);
        for i in 0..frames.count() {
            let f = frames.frame(i);
            let seg = tcp_seg(f);
            let Some(s) = seg else {
                self.push_group(i, None);
                continue;
            };
            // The open group of this flow, if any.
            let found = self.open.iter().position(|&g| {
                let g = &self.groups[g as usize];
                g.seg.is_some_and(|gs| same_flow(frames.frame(g.head as usize), &gs, f, &s))
            });
            let cand = candidate(f, &s);
            if let Some(k) = found {
                let gi = self.open[k] as usize;
                if cand && self.try_append(gi, i, f, &s, frames) {
                    if !self.groups[gi].open {
                        self.open.swap_remove(k);
                    }
                    continue;
                }
                // Anything else of the flow ends its group, so per-flow order is kept.
                self.groups[gi].open = false;
                self.open.swap_remove(k);
            }
            self.push_group(i, if cand { Some(s) } else { None });
        }
    }

    fn push_group(&mut self, i: usize, seg: Option<Seg>) {
        let (payload, seq, psh) = seg.map_or((0, 0, false), |s| (s.payload, s.seq, s.flags & TCP_PSH != 0));
        let open = seg.is_some() && !psh;
        if open {
            self.open.push(self.groups.len() as u32);
        }
        self.groups.push(Group {
            head: i as u32,
            tail: i as u32,
            count: 1,
            seg,
            gso_size: payload,
            payload,
            next_seq: seq.wrapping_add(payload as u32),
            open,
            head_checked: false,
            psh,
        });
    }

    fn try_append<L: FrameList + ?Sized>(&mut self, gi: usize, i: usize, f: &[u8], s: &Seg, frames: &L) -> bool {
        let g = self.groups[gi];
        let Some(gs) = g.seg else { return false };
        let head = frames.frame(g.head as usize);
        if !g.open
            || s.seq != g.next_seq
            || s.payload > g.gso_size
            || (gs.hl - gs.ip.l3) + g.payload + s.payload > 65_535
            || !headers_match(head, &gs, f, s)
        {
            return false;
        }
        if !g.head_checked {
            if !tcp_csum_ok(head, &gs) {
                return false;
            }
            self.groups[gi].head_checked = true;
        }
        if !tcp_csum_ok(f, s) {
            return false;
        }
        self.next[g.tail as usize] = i as u32;
        let g = &mut self.groups[gi];
        g.tail = i as u32;
        g.count += 1;
        g.payload += s.payload;
        g.next_seq = g.next_seq.wrapping_add(s.payload as u32);
        g.psh = s.flags & TCP_PSH != 0;
        g.open = !g.psh && s.payload == g.gso_size && (g.count as usize) < MAX_GRO_SEGS;
        true
    }

    /// Packets to write, in order.
    pub fn packets(&self) -> usize {
        self.groups.len()
    }

    /// Segments in packet `p` (1: a frame written as it is).
    pub fn segments(&self, p: usize) -> usize {
        self.groups.get(p).map_or(0, |g| g.count as usize)
    }

    /// Writes packet `p`'s vnet header and, if it merges segments, its Ethernet, IP and
    /// TCP headers into `buf`; returns the octets written. [`Coalescer::payloads`] follow.
    pub fn header<L: FrameList + ?Sized>(&self, p: usize, frames: &L, buf: &mut [u8; HEADER_BUF]) -> usize {
        let Some(g) = self.groups.get(p) else { return 0 };
        let (Some(s), true) = (g.seg, g.count > 1) else {
            buf[..VNET_HDR_LEN].copy_from_slice(&VnetHdr::default().encode());
            return VNET_HDR_LEN;
        };
        let (l3, l4, hl) = (s.ip.l3, s.ip.l4, s.hl);
        let vh = VnetHdr {
            flags: F_NEEDS_CSUM,
            gso_type: if s.ip.v6 { GSO_TCPV6 } else { GSO_TCPV4 },
            hdr_len: hl as u16,
            gso_size: g.gso_size as u16,
            csum_start: l4 as u16,
            csum_offset: 16,
        };
        buf[..VNET_HDR_LEN].copy_from_slice(&vh.encode());
        // Frames other than the planned ones: nothing to write.
        let Some(src) = frames.frame(g.head as usize).get(..hl) else { return 0 };
        let h = &mut buf[VNET_HDR_LEN..VNET_HDR_LEN + hl];
        h.copy_from_slice(src);
        let l4_len = hl - l4 + g.payload;
        if s.ip.v6 {
            put16(h, l3 + 4, l4_len as u16);
        } else {
            put16(h, l3 + 2, (l4 + l4_len - l3) as u16);
            put16(h, l3 + 10, 0);
            let c = !ones_sum(&h[l3..l4]);
            put16(h, l3 + 10, c);
        }
        if g.psh {
            h[l4 + 13] |= TCP_PSH;
        }
        // CHECKSUM_PARTIAL: the pseudo-header sum, not inverted; the kernel adds the rest.
        let ps = pseudo(&h[s.ip.addrs()], IPPROTO_TCP, l4_len);
        put16(h, l4 + 16, ps);
        VNET_HDR_LEN + hl
    }

    /// The octets of packet `p` after [`Coalescer::header`]: the whole frame, or each
    /// segment's TCP payload.
    pub fn payloads<'a, L: FrameList + ?Sized>(&'a self, p: usize, frames: &'a L) -> impl Iterator<Item = &'a [u8]> + 'a {
        let g = self.groups.get(p);
        let merged = g.and_then(|g| g.seg.filter(|_| g.count > 1));
        let mut i = g.map_or(NIL, |g| g.head);
        std::iter::from_fn(move || {
            if i == NIL {
                return None;
            }
            let f = frames.frame(i as usize);
            i = self.next.get(i as usize).copied().unwrap_or(NIL);
            Some(match merged {
                Some(s) => f.get(s.hl..).unwrap_or(&[]),
                None => f,
            })
        })
    }

    /// Packet `p` with its vnet header, as one buffer (appended to `out`).
    pub fn packet<L: FrameList + ?Sized>(&self, p: usize, frames: &L, out: &mut Vec<u8>) {
        let mut buf = [0; HEADER_BUF];
        let n = self.header(p, frames, &mut buf);
        out.extend_from_slice(&buf[..n]);
        for part in self.payloads(p, frames) {
            out.extend_from_slice(part);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vnet_hdr_layout_is_little_endian() {
        // NEEDS_CSUM, TCPV4, hdr_len 66, gso_size 1448, csum_start 34, csum_offset 16.
        let b = [0x01, 0x01, 0x42, 0x00, 0xa8, 0x05, 0x22, 0x00, 0x10, 0x00];
        let h = VnetHdr::decode(&b).unwrap();
        assert_eq!(h, VnetHdr { flags: 1, gso_type: 1, hdr_len: 66, gso_size: 1448, csum_start: 34, csum_offset: 16 });
        assert_eq!(h.encode(), b);
        assert_eq!(VnetHdr::decode(&b[..9]), Err(Error::Truncated));
    }

    #[test]
    fn ones_sum_matches_rfc1071_example() {
        // RFC 1071 section 3: 0001 f203 f4f5 f6f7 sums to ddf2 (folded).
        assert_eq!(ones_sum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]), 0xddf2);
        // An odd tail is padded with a zero octet: 0x0100 + 0xf200 = 0xf300.
        assert_eq!(ones_sum(&[0x01, 0x00, 0xf2]), 0xf300);
        assert_eq!(ones_sum(&[]), 0);
        // 0xffff + 0x0001 = 0x10000, folded to 0x0001.
        assert_eq!(ones_sum(&[0xff, 0xff, 0x00, 0x01]), 0x0001);
    }

    #[test]
    fn frames_reuse_their_buffer() {
        let mut fr = Frames::new();
        fr.push(b"abc");
        fr.push(b"");
        fr.push(b"de");
        assert_eq!(fr.iter().collect::<Vec<_>>(), vec![&b"abc"[..], b"", b"de"]);
        assert_eq!((fr.len(), fr.octets(), fr.get(3)), (3, 5, None));
        let cap = fr.data.capacity();
        fr.clear();
        fr.push(b"xy");
        assert_eq!((fr.get(0), fr.data.capacity()), (Some(&b"xy"[..]), cap));
    }
}
