//! A flood of SAE commits from spoofed addresses against the AP core (IEEE 802.11-2020
//! 12.4.6, anti-clogging), measured: the heap the AP keeps per spoofed address, its CPU
//! time per spoofed commit, and how long a legitimate station takes to connect (SAE and
//! the 4-way handshake) while the flood goes on.
//!
//! `cargo run --release -p wsec --example sae_flood [-- RATE...]` (spoofed commits per
//! second; default 0 1000 10000 50000). The medium is in memory and lossless; time is
//! simulated in 1 ms steps, except that a step lasts as long as the AP's CPU needed for
//! it when that is longer (a saturated AP delays everything behind it, as a real one
//! would). The flood is the station's own first commit sent again from other addresses:
//! valid group, scalar and element, as an attacker who recorded one would send.
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::Instant;

use wsec::node::ap::AccessPoint;
use wsec::node::sta::Station;
use wsec::node::Output;
use wsec_live::conf::{parse_ap, parse_sta};

/// Net heap bytes allocated by this thread (the cores run on it alone).
struct Counting;
thread_local! { static NET: Cell<isize> = const { Cell::new(0) }; }
// SAFETY: every call is forwarded to `System` unchanged; the counter is a thread-local
// `Cell` with a const initialiser, which never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let _ = NET.try_with(|n| n.set(n.get() + l.size() as isize));
        // SAFETY: the caller's contract for `alloc` holds for `System.alloc`.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        let _ = NET.try_with(|n| n.set(n.get() - l.size() as isize));
        // SAFETY: `p` came from `System` with layout `l` (every allocation goes there).
        unsafe { System.dealloc(p, l) }
    }
}
#[global_allocator]
static A: Counting = Counting;
fn heap() -> isize {
    NET.with(Cell::get)
}

const MS: u64 = 1_000_000;
const AP: &str = "interface=wsec-ap\nmedium=air:127.0.0.1:7411\nbssid=02:00:00:00:00:01\nssid=wsec-wpa3\nwpa=2\nrsn_pairwise=CCMP\n\
                  wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=secret sauce\n";
const STA: &str = "interface=wsec-sta\nmedium=air:127.0.0.1:7411\naddr=02:00:00:00:00:11\n\
                   network={\n ssid=\"wsec-wpa3\"\n key_mgmt=SAE\n sae_password=\"secret sauce\"\n}\n";

fn nodes(now: u64, seed: u64) -> (AccessPoint, Station) {
    let ap = AccessPoint::new(parse_ap(AP).unwrap().ap, now, wsec::rng::seeded(seed)).unwrap();
    let sta = Station::new(parse_sta(STA).unwrap().sta, now, wsec::rng::seeded(seed + 1)).unwrap();
    (ap, sta)
}

fn is_first_commit(f: &[u8]) -> bool {
    f.get(10..16) == Some(&[2, 0, 0, 0, 0, 0x11][..]) && wsec::node::sae::parse_auth_frame(f).is_some_and(|(t, st, _)| t == 1 && st == 0)
}

fn spoofed(commit: &[u8], i: u32) -> Vec<u8> {
    let mut f = commit.to_vec();
    f[10..16].copy_from_slice(&[0x02, 0xee, (i >> 24) as u8, (i >> 16) as u8, (i >> 8) as u8, i as u8]);
    f
}

/// One exchange of frames until quiet.
fn deliver(now: u64, ap: &mut AccessPoint, sta: &mut Station, mut to_ap: Vec<Vec<u8>>, mut to_sta: Vec<Vec<u8>>) {
    let mut out = Output::default();
    while !to_ap.is_empty() || !to_sta.is_empty() {
        for f in to_ap.drain(..) {
            ap.handle_air(now, &f, &mut out);
        }
        to_sta.append(&mut out.air);
        for f in to_sta.drain(..) {
            sta.handle_air(now, &f, &mut out);
        }
        to_ap.append(&mut out.air);
        out.host.clear();
        out.events.clear();
    }
}

/// The station's first commit, recorded from a run of its own.
fn recorded_commit() -> Vec<u8> {
    let (mut ap, mut sta) = nodes(1_000 * MS, 1);
    let mut out = Output::default();
    let mut now = 1_000 * MS;
    loop {
        sta.handle_timeout(now, &mut out);
        ap.handle_timeout(now, &mut out);
        if let Some(c) = out.air.iter().find(|f| is_first_commit(f)) {
            return c.clone();
        }
        let fs: Vec<Vec<u8>> = out.air.drain(..).collect();
        for f in &fs {
            sta.handle_air(now, f, &mut out);
        }
        now += MS;
        assert!(now < 10_000 * MS, "the station sent no commit");
    }
}

/// Heap kept by the AP per spoofed address, its CPU time per spoofed commit (us), and the
/// station-table entries, after `n` spoofed commits past the anti-clogging threshold.
fn memory(commit: &[u8], n: u32) -> (f64, f64, usize) {
    let now = 1_000 * MS;
    let (mut ap, _) = nodes(now, 7);
    let mut out = Output::default();
    // Warm up whatever the first frames allocate once (pools, maps).
    for i in 0..10 {
        ap.handle_air(now, &spoofed(commit, 1_000_000 + i), &mut out);
    }
    out.air.clear();
    let before = heap();
    let t = Instant::now();
    for i in 0..n {
        ap.handle_air(now, &spoofed(commit, i), &mut out);
        out.air.clear();
    }
    let us = t.elapsed().as_nanos() as f64 / 1e3 / f64::from(n);
    ((heap() - before) as f64 / f64::from(n), us, ap.peer_count())
}

/// The legitimate station's connection time (ms) under `rate` spoofed commits a second,
/// and the station-table entries at the end. A step lasts 1 ms or the CPU time its work
/// took (both nodes, one CPU), whichever is longer; the flood's share of a step follows
/// the step's length.
fn connect_under_flood(commit: &[u8], rate: u32) -> (Option<f64>, usize) {
    let t0 = 1_000 * MS;
    // The flood runs alone for a second before the station starts.
    let start = t0 + FLOOD_FIRST_MS * MS;
    let (mut ap, mut sta) = nodes(t0, 11);
    let (mut now, mut sent, mut carry, mut last) = (t0, 0u32, 0f64, MS);
    while !sta.is_established() {
        let t = Instant::now();
        let mut out = Output::default();
        // The flood that arrived while the previous step ran, each commit answered.
        carry += f64::from(rate) * last as f64 / 1e9;
        let k = carry as u32;
        carry -= f64::from(k);
        for _ in 0..k {
            ap.handle_air(now, &spoofed(commit, sent), &mut out);
            sent += 1;
        }
        out.air.retain(|f| f.get(4..10) == Some(&[2, 0, 0, 0, 0, 0x11][..]));
        ap.handle_timeout(now, &mut out);
        if now < start {
            // The station is not on yet: the AP's beacons and answers go nowhere.
            out.air.clear();
        }
        let to_sta: Vec<Vec<u8>> = out.air.drain(..).collect();
        if now >= start {
            sta.handle_timeout(now, &mut out);
        }
        let to_ap: Vec<Vec<u8>> = out.air.drain(..).collect();
        deliver(now, &mut ap, &mut sta, to_ap, to_sta);
        last = MS.max(t.elapsed().as_nanos() as u64);
        now += last;
        if now > start + GIVE_UP_MS * MS {
            return (None, ap.peer_count());
        }
    }
    (Some((now - start) as f64 / 1e6), ap.peer_count())
}

/// How long the flood runs before the station starts (ms).
const FLOOD_FIRST_MS: u64 = 1_000;
/// How long the station is given to connect (ms).
const GIVE_UP_MS: u64 = 30_000;

fn main() {
    let rates: Vec<u32> = std::env::args().skip(1).map(|a| a.parse().expect("a rate is a whole number of commits a second")).collect();
    let rates = if rates.is_empty() { vec![0, 1_000, 10_000, 50_000] } else { rates };
    let commit = recorded_commit();
    let (per_addr, us, entries) = memory(&commit, 1_000);
    println!("SAE commit flood against the AP core (sae_anti_clogging_threshold 5, group 19, hunting and pecking)");
    println!(
        "1000 spoofed commits past the threshold: {entries} station-table entries, {per_addr:.0} heap bytes kept per spoofed address, \
         {us:.1} us of AP CPU per commit"
    );
    println!("the flood runs {FLOOD_FIRST_MS} ms before the legitimate station starts; connect: SAE and the 4-way handshake");
    println!("{:>12} {:>14} {:>10}", "commits/s", "connect (ms)", "entries");
    for r in rates {
        let (ms, n) = connect_under_flood(&commit, r);
        let ms = ms.map_or(format!("none in {} s", GIVE_UP_MS / 1000), |m| format!("{m:.1}"));
        println!("{r:>12} {ms:>14} {n:>10}");
    }
}
