//! The TAP's offload layer (medium::vnet, issue 37): super-packets cut into the frames a
//! NIC's TSO would send and frames coalesced back as Linux GRO would, against frames built
//! here with checksums from a reference RFC 1071 sum; then live, as root, a TCP transfer
//! between two namespaces whose offloading TAPs a test loop bridges. `WSEC_TAP_BYTES` sets
//! the transfer size (default 50 MB).
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wsec::error::Error;
use wsec::wire::mac::MacAddr;
use wsec_live::medium::netns;
use wsec_live::medium::tap::{Tap, TapOptions, TapStats};
use wsec_live::medium::vnet::{self, Coalescer, Frames, VnetHdr};

const MAC_A: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0a];
const MAC_B: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0b];
const SRC4: [u8; 4] = [10, 0, 0, 1];
const DST4: [u8; 4] = [10, 0, 0, 2];
const SRC6: [u8; 16] = [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
const DST6: [u8; 16] = [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];
const ACK: u8 = 0x10;
const PSH: u8 = 0x08;
const FIN: u8 = 0x01;
const CWR: u8 = 0x80;

/// RFC 1071 checksum, word by word: the inverted ones'-complement sum (0 over a region
/// whose checksum is right).
fn ref_csum(data: &[u8]) -> u16 {
    let mut s: u32 = 0;
    for w in data.chunks(2) {
        s += (w[0] as u32) << 8 | w.get(1).copied().unwrap_or(0) as u32;
    }
    while s >> 16 != 0 {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

/// The pseudo-header (RFC 793 3.1, RFC 8200 8.1) of the test's addresses.
fn pseudo(v6: bool, proto: u8, len: usize) -> Vec<u8> {
    let mut p = Vec::new();
    if v6 {
        p.extend_from_slice(&SRC6);
        p.extend_from_slice(&DST6);
        p.extend_from_slice(&(len as u32).to_be_bytes());
        p.extend_from_slice(&[0, 0, 0, proto]);
    } else {
        p.extend_from_slice(&SRC4);
        p.extend_from_slice(&DST4);
        p.extend_from_slice(&[0, proto]);
        p.extend_from_slice(&(len as u16).to_be_bytes());
    }
    p
}

/// A TCP (or UDP) segment to build.
#[derive(Clone)]
struct Seg {
    v6: bool,
    udp: bool,
    ip_opts: Vec<u8>,
    tcp_opts: Vec<u8>,
    id: u16,
    seq: u32,
    ack: u32,
    flags: u8,
    window: u16,
    payload: Vec<u8>,
}

/// How the transport checksum field is filled.
#[derive(Clone, Copy, PartialEq)]
enum Csum {
    /// Complete, as on the wire.
    Full,
    /// The pseudo-header sum, not inverted: what the kernel hands over with NEEDS_CSUM.
    Partial,
}

fn seg(v6: bool, seq: u32, payload: Vec<u8>) -> Seg {
    Seg { v6, udp: false, ip_opts: vec![], tcp_opts: vec![], id: 0x1234, seq, ack: 0x5000_0001, flags: ACK, window: 502, payload }
}

/// Octets 0..n of a pattern that does not repeat at the MSS.
fn data(n: usize, salt: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u32).wrapping_mul(2_654_435_761).to_be_bytes()[0] ^ salt ^ (i % 251) as u8).collect()
}

fn ip_hlen(s: &Seg) -> usize {
    if s.v6 {
        40
    } else {
        20 + s.ip_opts.len()
    }
}

fn l4_hlen(s: &Seg) -> usize {
    if s.udp {
        8
    } else {
        20 + s.tcp_opts.len()
    }
}

/// Ethernet + IPv4/IPv6 + TCP/UDP + payload, every length and checksum filled in here.
fn build(s: &Seg, csum: Csum) -> Vec<u8> {
    let proto = if s.udp { 17 } else { 6 };
    let l4_len = l4_hlen(s) + s.payload.len();
    let mut f = Vec::new();
    f.extend_from_slice(&MAC_B);
    f.extend_from_slice(&MAC_A);
    f.extend_from_slice(if s.v6 { &[0x86, 0xdd] } else { &[0x08, 0x00] });
    if s.v6 {
        f.extend_from_slice(&[0x60, 0x0a, 0xbc, 0xde]);
        f.extend_from_slice(&(l4_len as u16).to_be_bytes());
        f.extend_from_slice(&[proto, 64]);
        f.extend_from_slice(&SRC6);
        f.extend_from_slice(&DST6);
    } else {
        let ihl = ip_hlen(s);
        let mut h = vec![0x40 | (ihl / 4) as u8, 0x00];
        h.extend_from_slice(&((ihl + l4_len) as u16).to_be_bytes());
        h.extend_from_slice(&s.id.to_be_bytes());
        h.extend_from_slice(&[0x40, 0x00, 64, proto, 0, 0]);
        h.extend_from_slice(&SRC4);
        h.extend_from_slice(&DST4);
        h.extend_from_slice(&s.ip_opts);
        let c = ref_csum(&h);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        f.extend_from_slice(&h);
    }
    let mut t = Vec::new();
    if s.udp {
        t.extend_from_slice(&[0x9c, 0x40, 0x13, 0x89]);
        t.extend_from_slice(&(l4_len as u16).to_be_bytes());
        t.extend_from_slice(&[0, 0]);
    } else {
        t.extend_from_slice(&[0x9c, 0x40, 0x13, 0x89]);
        t.extend_from_slice(&s.seq.to_be_bytes());
        t.extend_from_slice(&s.ack.to_be_bytes());
        t.push((l4_hlen(s) / 4) as u8 * 16);
        t.push(s.flags);
        t.extend_from_slice(&s.window.to_be_bytes());
        t.extend_from_slice(&[0, 0, 0, 0]);
        t.extend_from_slice(&s.tcp_opts);
    }
    t.extend_from_slice(&s.payload);
    let at = if s.udp { 6 } else { 16 };
    let ph = pseudo(s.v6, proto, l4_len);
    let c = match csum {
        Csum::Full => {
            let c = ref_csum(&[ph, t.clone()].concat());
            if c == 0 && s.udp {
                0xffff
            } else {
                c
            }
        }
        Csum::Partial => !ref_csum(&ph),
    };
    t[at..at + 2].copy_from_slice(&c.to_be_bytes());
    f.extend_from_slice(&t);
    f
}

/// The super-packet the kernel would hand over for `s` with `gso_size`, and its header.
fn super_packet(s: &Seg, gso_size: u16, ecn: bool) -> (VnetHdr, Vec<u8>) {
    let l4 = 14 + ip_hlen(s);
    let gso_type = match (s.udp, s.v6) {
        (true, _) => vnet::GSO_UDP_L4,
        (false, false) => vnet::GSO_TCPV4,
        (false, true) => vnet::GSO_TCPV6,
    } | if ecn { vnet::GSO_ECN } else { 0 };
    let hdr = VnetHdr {
        flags: vnet::F_NEEDS_CSUM,
        gso_type,
        hdr_len: (l4 + l4_hlen(s)) as u16,
        gso_size,
        csum_start: l4 as u16,
        csum_offset: if s.udp { 6 } else { 16 },
    };
    (hdr, build(s, Csum::Partial))
}

/// The frames a NIC's TSO makes of `s` with segments of `mss`, built independently.
fn tso_frames(s: &Seg, mss: usize) -> Vec<Vec<u8>> {
    let chunks: Vec<&[u8]> = s.payload.chunks(mss).collect();
    let n = chunks.len();
    chunks
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut k = s.clone();
            k.payload = c.to_vec();
            if !s.v6 {
                k.id = s.id.wrapping_add(i as u16);
            }
            k.seq = s.seq.wrapping_add((i * mss) as u32);
            if i + 1 < n {
                k.flags &= !(FIN | PSH);
            }
            if i > 0 {
                k.flags &= !CWR;
            }
            build(&k, Csum::Full)
        })
        .collect()
}

fn split(hdr: &VnetHdr, pkt: &[u8], mtu: usize) -> Result<Vec<Vec<u8>>, Error> {
    let mut out = Frames::new();
    let mut p = pkt.to_vec();
    let n = vnet::split(hdr, &mut p, mtu, &mut out)?;
    assert_eq!(n, out.len());
    Ok(out.iter().map(|f| f.to_vec()).collect())
}

/// What the coalescer writes for `frames`: (segments, vnet header + packet) per write.
fn coalesce(frames: &[Vec<u8>]) -> Vec<(usize, Vec<u8>)> {
    let mut c = Coalescer::new();
    c.plan(frames);
    (0..c.packets())
        .map(|p| {
            let mut out = Vec::new();
            c.packet(p, frames, &mut out);
            (c.segments(p), out)
        })
        .collect()
}

fn with_hdr(h: VnetHdr, pkt: &[u8]) -> Vec<u8> {
    [&h.encode()[..], pkt].concat()
}

fn assert_frames_eq(got: &[Vec<u8>], want: &[Vec<u8>]) {
    assert_eq!(got.len(), want.len(), "frame count");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.len(), w.len(), "frame {i} length");
        if let Some(at) = g.iter().zip(w).position(|(a, b)| a != b) {
            panic!("frame {i} differs first at octet {at}: {:#04x} != {:#04x}", g[at], w[at]);
        }
    }
}

/// Checks what `build` produced with the reference sum, so the builder is trusted.
#[test]
fn builder_checksums_verify() {
    let mut s = seg(false, 7, data(1001, 1));
    s.ip_opts = vec![0x94, 0x04, 0, 0];
    let f = build(&s, Csum::Full);
    assert_eq!(ref_csum(&f[14..38]), 0);
    assert_eq!(ref_csum(&[pseudo(false, 6, f.len() - 38), f[38..].to_vec()].concat()), 0);
    let s6 = seg(true, 7, data(999, 2));
    let f = build(&s6, Csum::Full);
    assert_eq!(f.len(), 14 + 40 + 20 + 999);
    assert_eq!(ref_csum(&[pseudo(true, 6, 20 + 999), f[54..].to_vec()].concat()), 0);
}

#[test]
fn split_ipv4_super_packet_like_tso() {
    // 4000 octets at MSS 1448: 1448, 1448, 1104; CWR on the first, FIN/PSH on the last.
    let mut s = seg(false, 0xffff_f000, data(4000, 3));
    s.flags = ACK | PSH | FIN | CWR;
    s.id = 0xfffe;
    let (hdr, pkt) = super_packet(&s, 1448, true);
    let got = split(&hdr, &pkt, 1500).unwrap();
    assert_eq!(got.iter().map(|f| f.len()).collect::<Vec<_>>(), vec![54 + 1448, 54 + 1448, 54 + 1104]);
    // Identification 0xfffe, 0xffff, 0x0000; sequence numbers wrap too.
    assert_eq!(got.iter().map(|f| u16::from_be_bytes([f[18], f[19]])).collect::<Vec<_>>(), vec![0xfffe, 0xffff, 0]);
    assert_eq!(got.iter().map(|f| f[47]).collect::<Vec<_>>(), vec![ACK | CWR, ACK, ACK | PSH | FIN]);
    assert_frames_eq(&got, &tso_frames(&s, 1448));
}

#[test]
fn split_ipv6_odd_mss_with_tcp_options() {
    // Timestamps (NOP NOP TS), MSS 1001 (odd), last segment 330 octets.
    let mut s = seg(true, 1, data(3333, 4));
    s.tcp_opts = vec![1, 1, 8, 10, 0, 0, 0x12, 0x34, 0, 0, 0x56, 0x78];
    s.flags = ACK | PSH;
    let (hdr, pkt) = super_packet(&s, 1001, false);
    let got = split(&hdr, &pkt, 1500).unwrap();
    assert_eq!(got.iter().map(|f| f.len() - 14 - 40 - 32).collect::<Vec<_>>(), vec![1001, 1001, 1001, 330]);
    assert_frames_eq(&got, &tso_frames(&s, 1001));
}

#[test]
fn split_ipv4_with_ip_options_and_odd_lengths() {
    // Router Alert (RFC 2113) makes IHL 6; MSS 999, payload 2501.
    let mut s = seg(false, 99, data(2501, 5));
    s.ip_opts = vec![0x94, 0x04, 0, 0];
    s.tcp_opts = vec![1, 1, 1, 0];
    let (hdr, pkt) = super_packet(&s, 999, false);
    let got = split(&hdr, &pkt, 1500).unwrap();
    assert_eq!(got.len(), 3);
    assert_eq!(got[2].len(), 14 + 24 + 24 + 503);
    assert_frames_eq(&got, &tso_frames(&s, 999));
}

#[test]
fn split_cuts_finer_when_the_mss_exceeds_the_mtu() {
    // MSS 1460 through an IP MTU of 1280: 1240-octet segments.
    let s = seg(false, 5, data(3000, 6));
    let (hdr, pkt) = super_packet(&s, 1460, false);
    let got = split(&hdr, &pkt, 1280).unwrap();
    assert!(got.iter().all(|f| f.len() - 14 <= 1280));
    assert_frames_eq(&got, &tso_frames(&s, 1240));
    // One segment's worth under GSO is one frame.
    let s = seg(true, 5, data(100, 7));
    let (hdr, pkt) = super_packet(&s, 1440, false);
    assert_frames_eq(&split(&hdr, &pkt, 1500).unwrap(), &[build(&s, Csum::Full)]);
}

#[test]
fn split_udp_l4_into_datagrams() {
    let mut s = seg(false, 0, data(2500, 8));
    s.udp = true;
    s.id = 7;
    let (hdr, pkt) = super_packet(&s, 1000, false);
    let got = split(&hdr, &pkt, 1500).unwrap();
    let want: Vec<Vec<u8>> = s
        .payload
        .chunks(1000)
        .enumerate()
        .map(|(i, c)| {
            let mut k = s.clone();
            k.payload = c.to_vec();
            k.id = 7 + i as u16;
            build(&k, Csum::Full)
        })
        .collect();
    assert_frames_eq(&got, &want);
    // Datagram boundaries are fixed: a gso_size beyond the MTU is refused.
    assert!(split(&hdr, &pkt, 1000).is_err());
}

#[test]
fn split_completes_needs_csum_and_passes_the_rest() {
    for (v6, udp) in [(false, false), (true, false), (false, true), (true, true)] {
        let mut s = seg(v6, 42, data(301, 9));
        s.udp = udp;
        let l4 = 14 + ip_hlen(&s);
        let hdr = VnetHdr { flags: vnet::F_NEEDS_CSUM, csum_start: l4 as u16, csum_offset: if udp { 6 } else { 16 }, ..Default::default() };
        assert_frames_eq(&split(&hdr, &build(&s, Csum::Partial), 1500).unwrap(), &[build(&s, Csum::Full)]);
    }
    // DATA_VALID (checked by the kernel) and no flags: as they are, even a non-IP frame.
    let f = build(&seg(false, 1, data(10, 1)), Csum::Full);
    let valid = VnetHdr { flags: vnet::F_DATA_VALID, ..Default::default() };
    assert_frames_eq(&split(&valid, &f, 1500).unwrap(), std::slice::from_ref(&f));
    let arp = [&[0xff; 6][..], &MAC_A, &[0x08, 0x06], &[0; 28]].concat();
    assert_frames_eq(&split(&VnetHdr::default(), &arp, 1500).unwrap(), &[arp]);
}

#[test]
fn split_refuses_inconsistent_packets() {
    let s = seg(false, 1, data(3000, 10));
    let (hdr, pkt) = super_packet(&s, 1448, false);
    let s6 = seg(true, 1, data(3000, 10));
    let (hdr6, pkt6) = super_packet(&s6, 1448, false);
    let with = |f: &dyn Fn(&mut VnetHdr, &mut Vec<u8>)| {
        let (mut h, mut p) = (hdr, pkt.clone());
        f(&mut h, &mut p);
        (h, p)
    };
    let mut big = seg(false, 1, data(65_000, 1));
    big.payload.extend_from_slice(&[0; 1000]);
    // (what, (header, packet), MTU)
    type Case<'a> = (&'a str, (VnetHdr, Vec<u8>), usize);
    let cases: Vec<Case> = vec![
        ("hdr_len beyond the packet", with(&|h, p| h.hdr_len = p.len() as u16 + 1), 1500),
        ("gso_size 0", with(&|h, _| h.gso_size = 0), 1500),
        ("IHL 4", with(&|_, p| p[14] = 0x44), 1500),
        ("IHL 15 (options beyond the TCP header's start)", with(&|_, p| p[14] = 0x4f), 1500),
        ("IP total length short of the packet", with(&|_, p| p[16..18].copy_from_slice(&1000u16.to_be_bytes())), 1500),
        ("truncated after the IP length", with(&|_, p| p.truncate(2000)), 1500),
        ("more than 65 535 IP octets", super_packet(&big, 1448, false), 1500),
        ("TCPV6 on IPv4", with(&|h, _| h.gso_type = vnet::GSO_TCPV6), 1500),
        ("UFO", with(&|h, _| h.gso_type = vnet::GSO_UDP), 1500),
        ("unknown gso_type 2", with(&|h, _| h.gso_type = 2), 1500),
        ("UDP_L4 on a TCP packet", with(&|h, _| h.gso_type = vnet::GSO_UDP_L4), 1500),
        ("csum_start not at TCP", with(&|h, _| h.csum_start = 30), 1500),
        ("IPv4 fragment", with(&|_, p| p[20] |= 0x20), 1500),
        ("TCP data offset 4", with(&|_, p| p[46] = 0x40), 1500),
        ("no payload", super_packet(&seg(false, 1, vec![]), 1448, false), 1500),
        ("Ethernet header cut", with(&|_, p| p.truncate(12)), 1500),
        ("IP version 6 under ethertype IPv4", with(&|_, p| p[14] = 0x65), 1500),
        ("MTU not above the headers", (hdr, pkt.clone()), 40),
        ("more than 2048 segments", with(&|h, _| h.gso_size = 1), 1500),
        (
            "NEEDS_CSUM past the end",
            (VnetHdr { flags: vnet::F_NEEDS_CSUM, csum_start: pkt.len() as u16 - 1, ..Default::default() }, pkt.clone()),
            1500,
        ),
        ("IPv6 with a hop-by-hop header", (hdr6, [&pkt6[..20], &[0], &pkt6[21..]].concat()), 1500),
        ("IPv6 payload length beyond the packet", (hdr6, [&pkt6[..18], &[0xff, 0xff], &pkt6[20..]].concat()), 1500),
    ];
    for (what, (h, p), mtu) in cases {
        let mut out = Frames::new();
        out.push(b"earlier");
        let mut p = p;
        let r = vnet::split(&h, &mut p, mtu, &mut out);
        assert!(r.is_err(), "{what}: accepted as {r:?}");
        assert_eq!(out.len(), 1, "{what}: frames appended");
    }
    assert_eq!(VnetHdr::decode(&[0; 9]), Err(Error::Truncated));
}

#[test]
fn coalesce_rebuilds_the_super_packet() {
    // With timestamps, the MSS of a 1500-octet MTU: 1448 (IPv4), 1428 (IPv6).
    for (v6, mss) in [(false, 1448), (true, 1428)] {
        // 45 segments: a full-size super-packet, PSH on its last segment.
        let mut s = seg(v6, 0x7fff_ff00, data(45 * mss, 11));
        s.tcp_opts = vec![1, 1, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8];
        s.flags = ACK | PSH;
        let frames = tso_frames(&s, mss);
        let out = coalesce(&frames);
        assert_eq!(out.len(), 1, "v6={v6}: one write");
        let (hdr, pkt) = super_packet(&s, mss as u16, false);
        assert_eq!(out[0].0, 45);
        // The kernel's own super-packet, octet for octet, with the header it would take.
        assert_eq!(out[0].1, with_hdr(hdr, &pkt), "v6={v6}");
        // And cut again, the same frames.
        assert_frames_eq(&split(&hdr, &pkt, 1500).unwrap(), &frames);
    }
}

#[test]
fn coalesce_last_short_and_odd_lengths() {
    let mut s = seg(false, 3, data(4 * 999 + 17, 12));
    s.id = 0xffff;
    let frames = tso_frames(&s, 999);
    let out = coalesce(&frames);
    assert_eq!(out.iter().map(|o| o.0).collect::<Vec<_>>(), vec![5]);
    let (hdr, pkt) = super_packet(&s, 999, false);
    assert_eq!(out[0].1, with_hdr(hdr, &pkt));
}

/// The number of segments in each write.
fn shape(frames: &[Vec<u8>]) -> Vec<usize> {
    coalesce(frames).iter().map(|o| o.0).collect()
}

#[test]
fn coalesce_keeps_apart_what_gro_keeps_apart() {
    let base = |v6| seg(v6, 1000, data(4 * 1000, 13));
    let frames = |s: &Seg| tso_frames(s, 1000);
    // Sequence gap.
    let mut f = frames(&base(false));
    f.remove(2);
    assert_eq!(shape(&f), vec![2, 1]);
    // Another ACK number from the third segment on.
    let mut f = frames(&base(false));
    for k in [2, 3] {
        f[k][42..46].copy_from_slice(&7u32.to_be_bytes());
    }
    let stale = f.clone();
    for k in [2, 3] {
        fix_tcp_csum(&mut f[k], false);
    }
    assert_eq!(shape(&f), vec![2, 2]);
    // With stale checksums they go out as they are (the kernel drops them).
    assert_eq!(shape(&stale), vec![2, 1, 1]);
    assert_eq!(coalesce(&stale)[1].1, with_hdr(VnetHdr::default(), &stale[2]));
    // SYN, FIN, RST, URG, ECE: written alone.
    for flag in [0x02, FIN, 0x04, 0x20, 0x40] {
        let mut s = base(false);
        s.payload.truncate(2000);
        let mut f = frames(&s);
        let mut k = s.clone();
        k.seq = 3000;
        k.flags |= flag;
        k.payload = data(1000, 1);
        f.push(build(&k, Csum::Full));
        let mut k2 = k.clone();
        k2.seq = 4000;
        k2.flags = ACK;
        f.push(build(&k2, Csum::Full));
        assert_eq!(shape(&f), vec![2, 1, 1], "flag {flag:#x}");
    }
    // Different TCP options (another timestamp).
    let mut s = base(true);
    s.tcp_opts = vec![1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2];
    let mut f = frames(&s);
    let mut k = s.clone();
    k.tcp_opts[7] = 2;
    k.seq = s.seq + 4000;
    k.payload = data(1000, 2);
    f.push(build(&k, Csum::Full));
    assert_eq!(shape(&f), vec![4, 1]);
    // A short segment ends a run; PSH ends a run.
    let mut s = base(false);
    s.payload = data(3 * 1000, 14);
    let mut f = frames(&s);
    let mut short = s.clone();
    short.seq = s.seq + 1000;
    short.payload = data(500, 3);
    f[1] = build(&short, Csum::Full);
    let mut after = s.clone();
    after.seq = s.seq + 1500;
    after.payload = data(1000, 4);
    f[2] = build(&after, Csum::Full);
    assert_eq!(shape(&f), vec![2, 1]);
    let mut f = frames(&base(false));
    let mut p = base(false);
    p.seq += 1000;
    p.flags |= PSH;
    p.payload = p.payload[1000..2000].to_vec();
    f[1] = build(&p, Csum::Full);
    assert_eq!(shape(&f), vec![2, 2]);
    // IPv4 options: never coalesced (Linux GRO takes IHL 5 only).
    let mut s = base(false);
    s.ip_opts = vec![1, 1, 1, 0];
    assert_eq!(shape(&frames(&s)), vec![1, 1, 1, 1]);
    // Another TTL or hop limit.
    let mut f = frames(&base(true));
    f[3][21] = 63;
    assert_eq!(shape(&f), vec![3, 1]);
    // Not IP: alone and unchanged.
    let arp = [&[0xff; 6][..], &MAC_A, &[0x08, 0x06], &[0; 28]].concat();
    let out = coalesce(std::slice::from_ref(&arp));
    assert_eq!(out, vec![(1, with_hdr(VnetHdr::default(), &arp))]);
}

/// Recomputes the TCP checksum of a test frame (IHL 5 or IPv6) with the reference sum.
fn fix_tcp_csum(f: &mut [u8], v6: bool) {
    let l4 = if v6 { 54 } else { 34 };
    f[l4 + 16..l4 + 18].copy_from_slice(&[0, 0]);
    let c = ref_csum(&[pseudo(v6, 6, f.len() - l4), f[l4..].to_vec()].concat());
    f[l4 + 16..l4 + 18].copy_from_slice(&c.to_be_bytes());
}

#[test]
fn coalesce_refuses_bad_checksums() {
    let s = seg(false, 1, data(4 * 1000, 15));
    // A bad second segment: the run before it, it alone, the run after it.
    let mut f = tso_frames(&s, 1000);
    f[1][100] ^= 1;
    let out = coalesce(&f);
    assert_eq!(out.iter().map(|o| o.0).collect::<Vec<_>>(), vec![1, 1, 2]);
    assert_eq!(out[1].1, with_hdr(VnetHdr::default(), &f[1]));
    // A bad first segment goes alone; the rest still merge.
    let mut f = tso_frames(&s, 1000);
    f[0][70] ^= 0x80;
    assert_eq!(shape(&f), vec![1, 3]);
    // A bad IPv4 header checksum: never merged.
    let mut f = tso_frames(&s, 1000);
    f[3][24] ^= 1;
    assert_eq!(shape(&f), vec![3, 1]);
}

#[test]
fn coalesce_interleaved_flows_and_limits() {
    // Two flows interleaved: one write each, in the order they began.
    let a = tso_frames(&seg(false, 1, data(3000, 16)), 1000);
    let mut sb = seg(false, 1, data(3000, 17));
    sb.v6 = true;
    let b = tso_frames(&sb, 1000);
    let f: Vec<Vec<u8>> = a.iter().zip(&b).flat_map(|(x, y)| [x.clone(), y.clone()]).collect();
    let out = coalesce(&f);
    assert_eq!(out.iter().map(|o| o.0).collect::<Vec<_>>(), vec![3, 3]);
    assert_eq!(out[0].1[VNET_TYPE], vnet::GSO_TCPV4);
    assert_eq!(out[1].1[VNET_TYPE], vnet::GSO_TCPV6);
    // A pure ACK of the flow between its segments ends the run (order within the flow).
    let s = seg(false, 1, data(2000, 18));
    let mut f = tso_frames(&s, 1000);
    let mut ack = s.clone();
    ack.seq = 1001;
    ack.payload.clear();
    f.insert(1, build(&ack, Csum::Full));
    assert_eq!(shape(&f), vec![1, 1, 1]);
    // At most 64 segments a write.
    assert_eq!(shape(&tso_frames(&seg(false, 1, data(70 * 500, 19)), 500)), vec![64, 6]);
    // At most 65 535 IP octets: 45 × 1448 + 40 fits, a 46th does not.
    assert_eq!(shape(&tso_frames(&seg(false, 1, data(50 * 1448, 20)), 1448)), vec![45, 5]);
}

const VNET_TYPE: usize = 1;

/// A network namespace for the test's life.
struct Ns(String);

impl Ns {
    fn new(name: String) -> Ns {
        let _ = Command::new("ip").args(["netns", "del", &name]).output();
        run(&["ip", "netns", "add", &name]);
        run(&["ip", "-n", &name, "link", "set", "lo", "up"]);
        Ns(name)
    }
}

impl Drop for Ns {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.0]).output();
    }
}

fn run(args: &[&str]) {
    let o = Command::new(args[0]).args(&args[1..]).output().expect("run");
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

/// A TAP created and addressed inside `ns`.
fn tap_in(ns: &str, name: &str, mac: [u8; 6], offload: bool, addrs: [String; 2]) -> Tap {
    let name = name.to_string();
    netns::run_in(ns, move || {
        let t = Tap::create_with(&name, TapOptions { offload }).expect("TAP");
        t.configure(&MacAddr(mac), 1500).expect("configure");
        run(&["ip", "addr", "add", &addrs[0], "dev", &name]);
        run(&["ip", "-6", "addr", "add", &addrs[1], "dev", &name, "nodad"]);
        t
    })
    .expect("thread")
    .join()
    .expect("no panic")
    .expect("namespace")
}

/// Moves frames between the TAPs until `stop`: a batch of up to 64 read frames goes out
/// with one `send_batch`, or (`one_by_one`) each frame with `recv` and `send`, as the
/// runtime does today. Returns the TAPs and its poll(2) count.
fn forward(mut a: Tap, mut b: Tap, one_by_one: bool, stop: Arc<AtomicBool>) -> (Tap, Tap, u64) {
    let mut frames = Frames::new();
    let mut buf = Vec::new();
    let mut polls = 0;
    while !stop.load(Ordering::Relaxed) {
        let mut fds = [a.fd(), b.fd()].map(|fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 });
        polls += 1;
        // SAFETY: fds is an array of two pollfd, valid for the call.
        if unsafe { libc::poll(fds.as_mut_ptr(), 2, 50) } <= 0 {
            continue;
        }
        if fds[0].revents != 0 {
            pump(&mut a, &mut b, one_by_one, &mut frames, &mut buf);
        }
        if fds[1].revents != 0 {
            pump(&mut b, &mut a, one_by_one, &mut frames, &mut buf);
        }
    }
    (a, b, polls)
}

fn pump(from: &mut Tap, to: &mut Tap, one_by_one: bool, frames: &mut Frames, buf: &mut Vec<u8>) {
    if one_by_one {
        while from.recv(buf).unwrap_or_else(|e| panic!("read {}: {e}", from.name())) {
            to.send(buf).unwrap_or_else(|e| panic!("write {}: {e}", to.name()));
        }
        return;
    }
    loop {
        frames.clear();
        let mut drained = false;
        while frames.len() < 64 {
            match from.recv_batch(frames) {
                Ok(0) => {
                    drained = true;
                    break;
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {}
                Err(e) => panic!("read {}: {e}", from.name()),
            }
        }
        if !frames.is_empty() {
            to.send_batch(frames).unwrap_or_else(|e| panic!("write {}: {e}", to.name()));
        }
        if drained {
            return;
        }
    }
}

struct Run {
    secs: f64,
    a: TapStats,
    b: TapStats,
    polls: u64,
}

/// `bytes` of TCP from namespace A to namespace B through the bridged TAPs, SHA-256 checked.
/// `tag` keeps apart the namespaces and TAPs of tests running at the same time.
fn transfer(tag: &str, offload: bool, v6: bool, one_by_one: bool, bytes: usize) -> Run {
    use sha2::{Digest, Sha256};
    let tag = format!("{tag}{}", std::process::id() % 10_000);
    let (na, nb) = (Ns::new(format!("tgsoA{tag}")), Ns::new(format!("tgsoB{tag}")));
    let addr = |i: u8| [format!("10.77.0.{i}/24"), format!("fd77::{i}/64")];
    let ta = tap_in(&na.0, &format!("tgA{tag}"), MAC_A, offload, addr(1));
    let tb = tap_in(&nb.0, &format!("tgB{tag}"), MAC_B, offload, addr(2));
    assert_eq!(ta.offloads().is_some(), offload);
    let stop = Arc::new(AtomicBool::new(false));
    let fwd = {
        let stop = stop.clone();
        std::thread::spawn(move || forward(ta, tb, one_by_one, stop))
    };
    let to: SocketAddr = if v6 { "[fd77::2]:5201" } else { "10.77.0.2:5201" }.parse().unwrap();
    let l = netns::run_in(&nb.0, move || TcpListener::bind(to)).unwrap().join().unwrap().unwrap().expect("listen");
    let server = std::thread::spawn(move || {
        let (mut c, _) = l.accept().expect("accept");
        c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let (mut h, mut buf, mut n) = (Sha256::new(), vec![0u8; 1 << 16], 0usize);
        loop {
            let k = c.read(&mut buf).unwrap_or_else(|e| panic!("receive after {n} octets: {e}"));
            if k == 0 {
                break;
            }
            h.update(&buf[..k]);
            n += k;
        }
        (n, h.finalize())
    });
    let t0 = Instant::now();
    let client = netns::run_in(&na.0, move || {
        let mut c = TcpStream::connect_timeout(&to, Duration::from_secs(10)).expect("connect");
        c.set_write_timeout(Some(Duration::from_secs(60))).unwrap();
        let (mut h, mut x, mut block, mut sent) = (Sha256::new(), 0x9e37_79b9_7f4a_7c15u64, vec![0u8; 1 << 16], 0);
        while sent < bytes {
            for ch in block.chunks_mut(8) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                ch.copy_from_slice(&x.to_le_bytes()[..ch.len()]);
            }
            let k = block.len().min(bytes - sent);
            c.write_all(&block[..k]).unwrap_or_else(|e| panic!("send after {sent} octets: {e}"));
            h.update(&block[..k]);
            sent += k;
        }
        h.finalize()
    })
    .unwrap();
    let sent = client.join().expect("client").expect("namespace");
    let (n, got) = server.join().expect("server");
    let secs = t0.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let (ta, tb, polls) = fwd.join().expect("forwarder");
    assert_eq!(n, bytes, "octets received");
    assert_eq!(got, sent, "SHA-256 of the stream");
    Run { secs, a: ta.stats(), b: tb.stats(), polls }
}

#[test]
fn tcp_through_offloading_taps() {
    assert!(netns::is_root(), "needs root (network namespaces and TAP devices)");
    let bytes: usize = std::env::var("WSEC_TAP_BYTES").ok().and_then(|s| s.parse().ok()).unwrap_or(50_000_000);
    let mb = bytes as f64 / 1e6;
    for (offload, v6) in [(false, false), (true, false), (true, true)] {
        let r = transfer("m", offload, v6, false, bytes);
        let sys = r.a.reads + r.a.writes + r.b.reads + r.b.writes + r.polls;
        let gso = r.a.gso_reads + r.b.gso_reads;
        let gso_mean = (r.a.gso_octets + r.b.gso_octets) / gso.max(1);
        eprintln!(
            "tap {} IPv{}: {bytes} octets in {:.2} s, {:.0} Mb/s; {:.1} system calls/MB ({} reads, {} writes, {} polls); \
             {gso} super-packets read (mean {gso_mean} octets), {} frames read, {} frames written in {} coalesced writes; refused {}",
            if offload { "offload" } else { "plain" },
            if v6 { 6 } else { 4 },
            r.secs,
            bytes as f64 * 8.0 / r.secs / 1e6,
            sys as f64 / mb,
            r.a.reads + r.b.reads,
            r.a.writes + r.b.writes,
            r.polls,
            r.a.frames_in + r.b.frames_in,
            r.a.frames_out + r.b.frames_out,
            r.a.coalesced + r.b.coalesced,
            r.a.refused + r.b.refused,
        );
        assert_eq!(r.a.refused + r.b.refused, 0, "packets refused");
        if offload {
            assert!(r.a.gso_reads > 0, "the sender's TAP gave no super-packets: {:?}", r.a);
            assert!(r.b.coalesced > 0, "nothing coalesced towards the receiver: {:?}", r.b);
        } else {
            assert_eq!(gso, 0);
        }
    }
}

/// `recv` and `send`, a frame at a time, keep working on an offloading TAP: super-packets
/// come out cut, frames go in behind a zero header.
#[test]
fn frame_at_a_time_api_on_offloading_taps() {
    assert!(netns::is_root(), "needs root (network namespaces and TAP devices)");
    let r = transfer("f", true, false, true, 5_000_000);
    assert!(r.a.gso_reads > 0, "no super-packets: {:?}", r.a);
    assert_eq!((r.a.coalesced, r.b.coalesced, r.a.refused + r.b.refused), (0, 0, 0));
    assert_eq!(r.a.frames_in + r.b.frames_in, r.a.frames_out + r.b.frames_out);
}
