//! `wsec bench relay`: the access point's relay rate with CCMP (seed 002's
//! wireless-to-wireless case): each frame from station 1 is decrypted with its key, its
//! header turned from To DS into From DS, and encrypted with station 2's key, in the AP's
//! host engine (`node::engine`). Measured on one core, one frame at a time and in batches
//! through the multi-buffer paths the live AP uses (`Engine::open_ahead_air` and
//! `unprotect_opened` on receive, `Engine::protect_batch` on transmit); then the live AP's own configuration, one engine
//! whose batch crypto runs on every core (`engine_threads=0`); then one engine per core
//! (per-station key tables sharded across cores), every core at once.
use crate::cpu::cpu_model;
use crate::error::{Error, Result};
use std::time::Instant;
use wsec::cipher::CipherSuite;
use wsec::link::sa::{KeyType, Role};
use wsec::node::engine::{Engine, TxJob};
use wsec::wire::MacAddr;

const AP: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
const STA1: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x11]);
const STA2: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x22]);

pub struct Options {
    pub msdu: usize,
    pub frames: usize,
    pub batch: usize,
    pub reps: usize,
}

fn keys() -> ([u8; 16], [u8; 16]) {
    ([0x31; 16], [0x47; 16])
}

fn ap_engine(threads: usize) -> Engine {
    let (k1, k2) = keys();
    let mut e = Engine::new(Role::Authenticator);
    e.set_parallel(wsec_live::runtime::crypto_threads(threads).expect("crypto threads"));
    e.install(Some(STA1), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &k1, None).expect("key");
    e.install(Some(STA2), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &k2, None).expect("key");
    e
}

/// `n` frames station 1 sends to station 2 through the AP (To DS), protected.
fn uplink(n: usize, msdu: usize) -> Vec<Vec<u8>> {
    let (k1, _) = keys();
    let mut sta = Engine::new(Role::Supplicant);
    sta.install(Some(AP), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &k1, None).expect("key");
    (0..n)
        .map(|i| {
            let mut f = vec![0x08, 0x01, 0, 0];
            f.extend(AP.0);
            f.extend(STA1.0);
            f.extend(STA2.0);
            f.extend((((i & 0xfff) as u16) << 4).to_le_bytes());
            f.extend([0xaa, 0xaa, 3, 0, 0, 0, 0x08, 0x00]);
            f.extend((0..msdu.saturating_sub(8)).map(|j| (i + j) as u8));
            sta.protect(Some(&AP), &f).expect("protect")
        })
        .collect()
}

/// To DS (A1 = BSSID, A2 = SA, A3 = DA) into From DS (A1 = DA, A2 = BSSID, A3 = SA).
fn to_from_ds(mut f: Vec<u8>) -> Vec<u8> {
    let (sa, da) = (f[10..16].to_vec(), f[16..22].to_vec());
    f[1] = (f[1] & !0x03) | 0x02;
    f[4..10].copy_from_slice(&da);
    f[10..16].copy_from_slice(AP.as_bytes());
    f[16..22].copy_from_slice(&sa);
    f
}

/// Relays every frame once through a fresh AP engine with `threads` crypto threads;
/// returns seconds.
fn relay(frames: &[Vec<u8>], batch: usize, threads: usize) -> f64 {
    let mut ap = ap_engine(threads);
    let t0 = Instant::now();
    let mut jobs: Vec<TxJob> = Vec::with_capacity(batch);
    for chunk in frames.chunks(batch.max(1)) {
        jobs.clear();
        let refs: Vec<&[u8]> = chunk.iter().map(|f| &f[..]).collect();
        let mut ahead = if batch > 1 { ap.open_ahead_air(&refs) } else { Vec::new() }.into_iter();
        for f in chunk {
            let p = ap.unprotect_opened(0, &STA1, f, ahead.next().flatten()).expect("uplink frame verifies");
            let p = p.expect("not a fragment");
            jobs.push(TxJob { peer: Some(STA2), mpdu: to_from_ds(p), result: Ok(()) });
        }
        if batch > 1 {
            ap.protect_batch(&mut jobs);
        } else {
            for j in jobs.iter_mut() {
                j.mpdu = ap.protect(j.peer.as_ref(), &j.mpdu).expect("protect");
            }
        }
        std::hint::black_box(&jobs);
    }
    t0.elapsed().as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

pub fn run(o: &Options, json: bool) -> Result<String> {
    if o.msdu < 8 || o.msdu > 2304 {
        return Err(Error::Setup("--msdu must be 8..=2304 octets".into()));
    }
    // A WSEC_BACKEND the CPU cannot run is an error here, not a panic in a key install.
    wsec::cipher::kernel::current().map_err(|e| Error::Setup(format!("{}: {e}", wsec::cipher::kernel::BACKEND_ENV)))?;
    let frames = uplink(o.frames, o.msdu);
    // Check the relay once: station 2 must decrypt what the AP sends.
    {
        let (_, k2) = keys();
        let mut sta2 = Engine::new(Role::Supplicant);
        sta2.install(Some(AP), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &k2, None)?;
        let mut ap = ap_engine(1);
        let mut jobs: Vec<TxJob> = frames[..16.min(frames.len())]
            .iter()
            .map(|f| TxJob {
                peer: Some(STA2),
                mpdu: to_from_ds(ap.unprotect(0, &STA1, f).expect("verifies").expect("whole")),
                result: Ok(()),
            })
            .collect();
        ap.protect_batch(&mut jobs);
        for j in &jobs {
            sta2.unprotect(0, &AP, &j.mpdu).map_err(|e| Error::Verify(format!("station 2 refuses a relayed frame: {e}")))?;
        }
    }
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let mut rows: Vec<(String, usize, usize, f64)> = Vec::new(); // (mode, batch, threads, frames/s)
    for (mode, batch) in [("one at a time", 1), ("multi-buffer batches", o.batch)] {
        let secs = median((0..o.reps).map(|_| relay(&frames, batch, 1)).collect());
        rows.push((mode.into(), batch, 1, frames.len() as f64 / secs));
    }
    // The live AP: one engine (one key table), its batch crypto on every core.
    let secs = median((0..o.reps).map(|_| relay(&frames, o.batch, cores)).collect());
    rows.push(("one engine, crypto on all cores".into(), o.batch, cores, frames.len() as f64 / secs));
    // Every core, one engine each (per-station tables sharded by core).
    let secs = median(
        (0..o.reps)
            .map(|_| {
                let t0 = Instant::now();
                std::thread::scope(|s| {
                    for _ in 0..cores {
                        s.spawn(|| relay(&frames, o.batch, 1));
                    }
                });
                t0.elapsed().as_secs_f64()
            })
            .collect(),
    );
    rows.push(("one engine per core".into(), o.batch, cores, (frames.len() * cores) as f64 / secs));
    let gbps = |fps: f64| fps * o.msdu as f64 * 8.0 / 1e9;
    if json {
        let v: Vec<serde_json::Value> = rows
            .iter()
            .map(|(m, b, t, fps)| {
                serde_json::json!({"mode": m, "batch": b, "threads": t, "msdu_bytes": o.msdu,
                "frames_per_s": fps, "gbps": gbps(*fps), "gbps_per_core": gbps(*fps) / *t as f64})
            })
            .collect();
        return Ok(serde_json::to_string_pretty(&serde_json::json!({"cpu": cpu_model(), "cores": cores,
            "backend": wsec::cipher::kernel::backend(), "batch_backend": wsec::cipher::kernel::batch_backend(), "records": v}))
        .unwrap_or_default());
    }
    let mut s = format!(
        "CPU: {} ({cores} cores); CCM backend {} (batches {}; WSEC_BACKEND forces one). AP relay, CCMP-128 in and out, {}-octet MSDUs, {} frames, median of {} runs\n",
        cpu_model(),
        wsec::cipher::kernel::backend(),
        wsec::cipher::kernel::batch_backend(),
        o.msdu,
        o.frames,
        o.reps
    );
    s += &format!("{:<34} {:>6} {:>8} {:>14} {:>10} {:>14}\n", "mode", "batch", "threads", "frames/s", "Gb/s", "Gb/s per core");
    for (m, b, t, fps) in &rows {
        s += &format!("{m:<34} {b:>6} {t:>8} {fps:>14.0} {:>10.2} {:>14.2}\n", gbps(*fps), gbps(*fps) / *t as f64);
    }
    Ok(s)
}
