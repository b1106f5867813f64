//! The packet-socket medium's PACKET_MMAP rings (`medium::packet`, `medium::ring`), as root
//! on a veth pair in a network namespace made here: every frame of 100,000 small and
//! 6,000 large ones (bursts larger than the transmit ring) arrives intact and in order
//! through the rings; a transmit ring held full by a slow qdisc waits for slots, and what
//! it drops after waiting is counted, the rest arriving in order; the per-frame fallback
//! carries frames too and says so. `packet_ring_throughput` measures frames per second on
//! both paths (`WSEC_PMMAP_BENCH=ring|plain` runs one, for `strace -c -f`).
use std::process::Command;
use std::time::{Duration, Instant};
use wsec_live::medium::packet::{Options, PacketSocket};
use wsec_live::medium::ring::{TX_BLOCK, TX_BLOCKS, TX_FRAME};
use wsec_live::medium::{decap, netns, Medium};

fn sh(args: &[&str]) {
    let out = Command::new(args[0]).args(&args[1..]).output().unwrap_or_else(|e| panic!("{args:?}: {e}"));
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A namespace with a veth pair `pa`/`pb` (MTU `mtu`, up, no IPv6 chatter), removed on drop.
struct Veth {
    ns: String,
}

impl Veth {
    fn new(tag: &str, mtu: u32) -> Veth {
        assert!(netns::is_root(), "needs root (network namespaces and packet sockets)");
        let ns = format!("{tag}{}", std::process::id() % 100_000);
        let _ = Command::new("ip").args(["netns", "del", &ns]).output();
        sh(&["ip", "netns", "add", &ns]);
        let v = Veth { ns };
        let ns = v.ns.as_str();
        sh(&["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]);
        sh(&["ip", "-n", ns, "link", "add", "pa", "type", "veth", "peer", "name", "pb"]);
        for i in ["pa", "pb"] {
            sh(&["ip", "-n", ns, "link", "set", i, "mtu", &mtu.to_string(), "up"]);
        }
        v
    }

    fn open(&self, ifname: &'static str, o: Options) -> PacketSocket {
        netns::run_in(&self.ns, move || PacketSocket::open_with(ifname, 1, o)).unwrap().join().unwrap().unwrap().unwrap()
    }

    fn exec(&self, args: &[&str]) {
        let mut v = vec!["ip", "netns", "exec", &self.ns];
        v.extend_from_slice(args);
        sh(&v);
    }
}

impl Drop for Veth {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.ns]).output();
    }
}

const RING: Options = Options { ring: true, qdisc_bypass: true };

/// MPDU number `seq` of length `len` (at least 8): the number, then octets that depend on
/// both, so a frame cut, shifted or mixed with another does not pass.
fn mpdu(seq: u32, len: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(len);
    v.extend_from_slice(&seq.to_le_bytes());
    v.extend_from_slice(&(len as u32).to_le_bytes());
    v.extend((8..len).map(|j| (j as u32).wrapping_mul(31).wrapping_add(seq.wrapping_mul(7)) as u8));
    v
}

/// The sequence number of a received frame, its MPDU checked against [`mpdu`] (FCS too);
/// None for a frame that is not the test's.
fn check(frame: &[u8]) -> Option<u32> {
    if !frame.starts_with(&[0, 0, 14, 0]) {
        return None;
    }
    let m = decap(frame).expect("FCS");
    let seq = u32::from_le_bytes(m[..4].try_into().unwrap());
    assert_eq!(m, &mpdu(seq, m.len())[..], "frame {seq} corrupted");
    Some(seq)
}

/// Receives until `want` test frames came or `limit` passed, polling as the runtime does;
/// each one's number goes to `got`.
fn drain(rx: &mut PacketSocket, want: usize, got: &mut Vec<u32>, limit: Duration) {
    let end = Instant::now() + limit;
    let mut buf = Vec::new();
    let goal = got.len() + want;
    loop {
        while rx.recv_raw(&mut buf).unwrap() {
            if let Some(s) = check(&buf) {
                got.push(s);
            }
        }
        if got.len() >= goal || Instant::now() >= end {
            return;
        }
        if !rx.prepare_wait().unwrap() {
            let mut p = libc::pollfd { fd: Medium::fd(rx), events: libc::POLLIN, revents: 0 };
            // SAFETY: one valid pollfd.
            unsafe { libc::poll(&mut p, 1, 20) };
        }
    }
}

fn tx_slots() -> usize {
    TX_BLOCK / TX_FRAME * TX_BLOCKS
}

#[test]
fn ring_moves_100k_small_and_large_frames_intact_and_in_order() {
    let v = Veth::new("pr", 16_384);
    let mut a = v.open("pa", RING);
    let mut b = v.open("pb", RING);
    assert!(a.ring() && b.ring(), "{} / {}", a.describe(), b.describe());
    // The longest MPDU: the interface's limit less radiotap and FCS.
    let max = a.tx_limit() - 14 - 4;
    assert!(max >= 16_000, "limit {}", a.tx_limit());
    let slots = tx_slots();
    let mut sent = 0u32;
    let mut got = Vec::new();
    let t0 = Instant::now();
    // 100,000 small frames (24 to 300 octets) in bursts of 1,000: each many times the ring.
    for _ in 0..100 {
        for _ in 0..1000 {
            let len = 24 + (sent as usize * 37) % 277;
            a.send(&mpdu(sent, len)).unwrap();
            sent += 1;
        }
        a.flush().unwrap();
        drain(&mut b, 1000, &mut got, Duration::from_secs(10));
    }
    // 6,000 large ones (1,500 octets to the limit, the limit itself every 7th) in bursts of
    // 40, the receive ring's room for frames of 16 KiB being 64.
    for _ in 0..150 {
        for _ in 0..40 {
            let len = if sent.is_multiple_of(7) { max } else { 1500 + (sent as usize * 4099) % (max - 1500) };
            a.send(&mpdu(sent, len)).unwrap();
            sent += 1;
        }
        a.flush().unwrap();
        drain(&mut b, 40, &mut got, Duration::from_secs(10));
    }
    let secs = t0.elapsed().as_secs_f64();
    assert_eq!(got.len(), sent as usize, "frames lost: {}\n{}", a.describe(), b.describe());
    assert!(got.iter().enumerate().all(|(i, &s)| s == i as u32), "out of order");
    // A frame over the limit is refused as today (EMSGSIZE) and counted.
    let e = a.send(&mpdu(0, max + 1)).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EMSGSIZE));
    assert_eq!(a.tx_too_long, 1);
    let (sa, sb) = (a.ring_stats().unwrap(), b.ring_stats().unwrap());
    eprintln!("{sent} frames in {secs:.2} s ({:.0}/s)\n{}\n{}", sent as f64 / secs, a.describe(), b.describe());
    assert_eq!(sa.tx, sent as u64);
    assert!(sa.tx_sends < sent as u64 / 20, "one send per burst, not per frame: {sa:?}");
    assert!(sa.tx_full_waits >= (1000 / slots) as u64 * 100, "bursts larger than the ring wait for it: {sa:?}");
    assert_eq!((sa.tx_full_drops, sa.tx_busy), (0, 0), "{sa:?}");
    assert_eq!(sb.rx, sent as u64);
    assert!(sb.rx_blocks > 0 && sb.rx_blocks < sent as u64, "{sb:?}");
    assert_eq!((sb.rx_kernel_drops, sb.rx_too_long, sb.rx_malformed), (0, 0, 0), "{sb:?}");
    assert!(a.describe().contains("PACKET_MMAP ring") && b.describe().contains("PACKET_MMAP ring"));
}

#[test]
fn full_transmit_ring_waits_then_drops_by_count_never_silently() {
    let v = Veth::new("pf", 1500);
    // Through a qdisc (no bypass), so that a slow one holds the frames and their slots.
    let mut a = v.open("pa", Options { ring: true, qdisc_bypass: false });
    let mut b = v.open("pb", RING);
    let slots = tx_slots();
    let mut got = Vec::new();
    let mut sent = 0u32;
    // 1: 4 Mb/s, 1,000-octet frames: about 2 ms a slot. Three rings' worth wait and all go.
    v.exec(&["tc", "qdisc", "add", "dev", "pa", "root", "tbf", "rate", "4mbit", "burst", "4kb", "limit", "10mb"]);
    for _ in 0..3 * slots {
        a.send(&mpdu(sent, 1000)).unwrap();
        sent += 1;
        // A receiver keeps up; its ring holds what comes in meanwhile.
        drain(&mut b, 0, &mut got, Duration::ZERO);
    }
    a.flush().unwrap();
    drain(&mut b, sent as usize - got.len(), &mut got, Duration::from_secs(20));
    let s1 = a.ring_stats().unwrap();
    // How often depends on the scheduling (a slow sender finds slots freed meanwhile); that
    // it filled does not.
    assert!(s1.tx_full_waits > 0, "the ring filled: {s1:?}");
    assert_eq!(s1.tx_full_drops, 0, "slots came back within the wait: {s1:?}");
    assert_eq!(got, (0..sent).collect::<Vec<_>>(), "{}", a.describe());
    // 2: 8 kb/s, one frame a second: the ring stays full; frames that wait in vain are
    // dropped and counted, the others go, in order.
    v.exec(&["tc", "qdisc", "change", "dev", "pa", "root", "tbf", "rate", "8kbit", "burst", "4kb", "limit", "10mb"]);
    let first = sent;
    let extra = 12;
    for _ in 0..slots + extra {
        a.send(&mpdu(sent, 1000)).unwrap();
        sent += 1;
    }
    a.flush().unwrap();
    let s2 = a.ring_stats().unwrap();
    let drops = s2.tx_full_drops;
    assert!(drops >= 1 && drops <= extra as u64, "{s2:?}");
    // The qdisc sped up again: everything that has a slot arrives.
    v.exec(&["tc", "qdisc", "change", "dev", "pa", "root", "tbf", "rate", "1gbit", "burst", "1mb", "limit", "10mb"]);
    let before = got.len();
    drain(&mut b, (sent - first) as usize - drops as usize, &mut got, Duration::from_secs(20));
    std::thread::sleep(Duration::from_millis(100));
    drain(&mut b, 0, &mut got, Duration::ZERO);
    let late = &got[before..];
    eprintln!("{}\n{}", a.describe(), b.describe());
    assert_eq!(late.len() as u64 + drops, (sent - first) as u64, "every frame arrived or was counted: {}", a.describe());
    assert!(late.windows(2).all(|w| w[0] < w[1]) && late.iter().all(|&s| s >= first && s < sent), "in order");
    assert!(a.describe().contains(&format!("tx ring full drops {drops}")), "{}", a.describe());
}

#[test]
fn per_frame_fallback_carries_frames_and_says_so() {
    let v = Veth::new("pp", 1500);
    let plain = Options { ring: false, qdisc_bypass: false };
    let mut a = v.open("pa", plain);
    let mut b = v.open("pb", RING);
    assert!(!a.ring() && a.describe().contains("per-frame socket"), "{}", a.describe());
    let mut got = Vec::new();
    for s in 0..200u32 {
        a.send(&mpdu(s, 100 + s as usize)).unwrap();
    }
    a.flush().unwrap();
    drain(&mut b, 200, &mut got, Duration::from_secs(10));
    assert_eq!(got, (0..200).collect::<Vec<_>>());
    // And the other way, ring to per-frame receiver.
    got.clear();
    for s in 0..200u32 {
        b.send(&mpdu(s, 100 + s as usize)).unwrap();
    }
    b.flush().unwrap();
    drain(&mut a, 200, &mut got, Duration::from_secs(10));
    assert_eq!(got, (0..200).collect::<Vec<_>>());
    assert_eq!(a.plain_stats().rx, 200);
}

/// Frames per second through veth on the ring and on the per-frame path (100-octet MPDUs,
/// bursts of 64, the receiver draining after each burst). Figures printed; the frames are
/// checked as above.
#[test]
fn packet_ring_throughput() {
    let v = Veth::new("pt", 1500);
    let which = std::env::var("WSEC_PMMAP_BENCH").unwrap_or_default();
    let n: u32 = std::env::var("WSEC_PMMAP_FRAMES").ok().and_then(|s| s.parse().ok()).unwrap_or(200_000);
    for (name, ring) in [("ring", true), ("plain", false)] {
        if !which.is_empty() && which != name {
            continue;
        }
        let o = Options { ring, qdisc_bypass: ring };
        let mut a = v.open("pa", o);
        let mut b = v.open("pb", o);
        assert_eq!((a.ring(), b.ring()), (ring, ring));
        let frames: Vec<Vec<u8>> = (0..64).map(|i| mpdu(i, 100)).collect();
        let mut got = 0usize;
        let mut buf = Vec::new();
        let t0 = Instant::now();
        let mut sent = 0u32;
        while sent < n {
            for f in &frames {
                a.send(f).unwrap();
            }
            sent += 64;
            a.flush().unwrap();
            let end = Instant::now() + Duration::from_secs(5);
            while got < sent as usize && Instant::now() < end {
                if !b.prepare_wait().unwrap() {
                    let mut p = libc::pollfd { fd: Medium::fd(&b), events: libc::POLLIN, revents: 0 };
                    // SAFETY: one valid pollfd.
                    unsafe { libc::poll(&mut p, 1, 20) };
                }
                while b.recv_raw(&mut buf).unwrap() {
                    if buf.starts_with(&[0, 0, 14, 0]) {
                        got += 1;
                    }
                }
            }
        }
        let secs = t0.elapsed().as_secs_f64();
        eprintln!(
            "{name}: {sent} frames in {secs:.3} s: {:.0} frames/s; received {got}\n  {}\n  {}",
            sent as f64 / secs,
            a.describe(),
            b.describe()
        );
        assert_eq!(got, sent as usize, "{name}: frames lost");
    }
}

/// Frames per second streaming: a receiver thread drains all the time, the sender keeps at
/// most 256 frames in flight (what the per-frame receiver's socket buffer holds) in bursts
/// of 64. Unlike [`packet_ring_throughput`] (send a burst, wait for all of it, which pays
/// the receive block timeout once per burst on the ring), nobody waits for a block here.
#[test]
fn packet_ring_streaming() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Arc;
    let v = Veth::new("ps", 1500);
    let which = std::env::var("WSEC_PMMAP_BENCH").unwrap_or_default();
    let n: u64 = std::env::var("WSEC_PMMAP_FRAMES").ok().and_then(|s| s.parse().ok()).unwrap_or(400_000);
    for (name, ring) in [("ring", true), ("plain", false)] {
        if !which.is_empty() && which != name {
            continue;
        }
        let o = Options { ring, qdisc_bypass: ring };
        let mut a = v.open("pa", o);
        let mut b = v.open("pb", o);
        let got = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let rx = {
            let (got, stop) = (got.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    if !b.prepare_wait().unwrap() {
                        let mut p = libc::pollfd { fd: Medium::fd(&b), events: libc::POLLIN, revents: 0 };
                        // SAFETY: one valid pollfd.
                        unsafe { libc::poll(&mut p, 1, 5) };
                    }
                    while b.recv_raw(&mut buf).unwrap() {
                        if buf.starts_with(&[0, 0, 14, 0]) {
                            got.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                b.describe()
            })
        };
        let frames: Vec<Vec<u8>> = (0..64).map(|i| mpdu(i, 100)).collect();
        let t0 = Instant::now();
        let mut sent = 0u64;
        while sent < n {
            while sent - got.load(Ordering::Relaxed) > 256 - 64 {
                std::thread::yield_now();
                assert!(t0.elapsed() < Duration::from_secs(60), "{name}: receiver stalled at {}", got.load(Ordering::Relaxed));
            }
            for f in &frames {
                a.send(f).unwrap();
            }
            a.flush().unwrap();
            sent += 64;
        }
        while got.load(Ordering::Relaxed) < sent && t0.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(1));
        }
        let secs = t0.elapsed().as_secs_f64();
        stop.store(true, Ordering::Relaxed);
        let bd = rx.join().unwrap();
        eprintln!("{name} streaming: {sent} frames in {secs:.3} s: {:.0} frames/s\n  {}\n  {bd}", sent as f64 / secs, a.describe());
        assert_eq!(got.load(Ordering::Relaxed), sent, "{name}: frames lost");
    }
}
