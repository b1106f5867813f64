//! `wsec bench relay`: the access point's relay rate with CCMP (seed 002's
//! wireless-to-wireless case): each frame from station 1 is decrypted with its key, its
//! header turned from To DS into From DS, and encrypted with station 2's key, in the AP's
//! host engine (`node::engine`). Measured on one core, one frame at a time and in batches
//! through the multi-buffer paths the live AP uses (`Engine::open_ahead_air` and
//! `unprotect_opened` on receive, `Engine::protect_batch` on transmit); then the live AP's own configuration, one engine
//! whose batch crypto runs on every core (`engine_threads=0`); then one engine per core
//! (per-station key tables sharded across cores), every core at once.
//!
//! With `--backend all` it does so on every CCM kernel backend this CPU runs. Per backend
//! it judges the live AP's default (multi-buffer batches, crypto on every core through the
//! pool that spreads a batch only while that measurably pays) against the simplest path
//! (one frame at a time, one thread): the default must not be slower, judged with the runs'
//! noise (`stats::Ratio`): met, not met, or inconclusive.
use crate::cpu::cpu_model;
use crate::error::{Error, Result};
use crate::stats::{quietest, Ratio, Summary, Verdict, MAX_ROUNDS, NOISY_IQR};
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
    /// CCM kernel backends to run on (empty: the one keys get now, `kernel::current`).
    pub backends: Vec<wsec::cipher::kernel::Backend>,
}

/// The pool, shared so that the benchmark can read what it chose after a run.
struct SharedPool(std::sync::Arc<wsec_live::pool::Pool>);

impl wsec::node::engine::Parallel for SharedPool {
    fn threads(&self) -> usize {
        self.0.threads()
    }
    fn run(&self, parts: usize, f: &(dyn Fn(usize) + Sync)) {
        self.0.run(parts, f)
    }
}

fn keys() -> ([u8; 16], [u8; 16]) {
    ([0x31; 16], [0x47; 16])
}

fn ap_engine(pool: Option<&std::sync::Arc<wsec_live::pool::Pool>>) -> Engine {
    let (k1, k2) = keys();
    let mut e = Engine::new(Role::Authenticator);
    e.set_parallel(pool.map(|p| Box::new(SharedPool(p.clone())) as Box<dyn wsec::node::engine::Parallel>));
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

/// Relays every frame once through a fresh AP engine (its batch crypto on `pool`, if any);
/// returns seconds.
fn relay(frames: &[Vec<u8>], batch: usize, pool: Option<&std::sync::Arc<wsec_live::pool::Pool>>) -> f64 {
    let mut ap = ap_engine(pool);
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

/// One row: mode, batch, threads, frames/s over the runs.
struct Row {
    mode: String,
    batch: usize,
    threads: usize,
    fps: Summary,
}

/// One backend's rows, the pool's choice, and the verdict on the default.
struct BackendRun {
    backend: &'static str,
    batch_backend: &'static str,
    rows: Vec<Row>,
    pool: Option<wsec_live::pool::Choice>,
    default_vs_simplest: Ratio,
    verdict: Verdict,
}

pub fn run(o: &Options, json: bool) -> Result<String> {
    if o.msdu < 8 || o.msdu > 2304 {
        return Err(Error::Setup("--msdu must be 8..=2304 octets".into()));
    }
    // A WSEC_BACKEND the CPU cannot run is an error here, not a panic in a key install.
    let current = wsec::cipher::kernel::current().map_err(|e| Error::Setup(format!("{}: {e}", wsec::cipher::kernel::BACKEND_ENV)))?;
    let backends = if o.backends.is_empty() { vec![current] } else { o.backends.clone() };
    for b in &backends {
        b.check().map_err(|_| Error::Setup(format!("backend {b}: this CPU cannot run it")))?;
    }
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let mut runs = Vec::new();
    for &b in &backends {
        wsec::cipher::kernel::set_backend(Some(b)).map_err(|e| Error::Setup(format!("backend {b}: {e}")))?;
        let r = run_backend(o, cores);
        wsec::cipher::kernel::set_backend(None).map_err(|e| Error::Setup(e.to_string()))?;
        runs.push(r?);
    }
    let gbps = |fps: f64| fps * o.msdu as f64 * 8.0 / 1e9;
    if json {
        let v: Vec<serde_json::Value> = runs
            .iter()
            .map(|r| {
                serde_json::json!({
                    "backend": r.backend, "batch_backend": r.batch_backend,
                    "default_vs_simplest": r.default_vs_simplest, "verdict": r.verdict.word(), "verdict_text": r.verdict.to_string(),
                    "pool": r.pool.map(|c| serde_json::json!({"spreading": c.spreading, "alone_us_per_part": c.alone_us,
                        "spread_us_per_part": c.spread_us, "jobs": c.jobs, "alone_jobs": c.alone_jobs})),
                    "records": r.rows.iter().map(|w| serde_json::json!({"mode": w.mode, "batch": w.batch, "threads": w.threads,
                        "msdu_bytes": o.msdu, "frames_per_s": w.fps.median, "frames_per_s_summary": w.fps, "iqr": w.fps.rel_iqr(),
                        "noisy": w.fps.is_noisy(), "gbps": gbps(w.fps.median), "gbps_per_core": gbps(w.fps.median) / w.threads as f64}))
                        .collect::<Vec<_>>(),
                })
            })
            .collect();
        return Ok(serde_json::to_string_pretty(&serde_json::json!({"cpu": cpu_model(), "cores": cores,
            "backend": runs[0].backend, "batch_backend": runs[0].batch_backend, "records": runs[0].rows.iter().map(|w| serde_json::json!({
                "mode": w.mode, "batch": w.batch, "threads": w.threads, "msdu_bytes": o.msdu, "frames_per_s": w.fps.median,
                "gbps": gbps(w.fps.median), "gbps_per_core": gbps(w.fps.median) / w.threads as f64})).collect::<Vec<_>>(),
            "backends": v}))
        .unwrap_or_default());
    }
    let mut s = format!(
        "CPU: {} ({cores} cores). AP relay, CCMP-128 in and out, {}-octet MSDUs, {} frames, median of {} runs (rerun up to {} rounds while noisy: IQR > {:.0}%)\n",
        cpu_model(),
        o.msdu,
        o.frames,
        o.reps,
        MAX_ROUNDS,
        100.0 * NOISY_IQR
    );
    for r in &runs {
        s += &format!("\nCCM backend {} (batches {}; --backend or WSEC_BACKEND chooses)\n", r.backend, r.batch_backend);
        s += &format!(
            "{:<34} {:>6} {:>8} {:>14} {:>5} {:>10} {:>14}\n",
            "mode", "batch", "threads", "frames/s", "IQR", "Gb/s", "Gb/s per core"
        );
        for w in &r.rows {
            s += &format!(
                "{:<34} {:>6} {:>8} {:>14.0} {:>4.0}% {:>10.2} {:>14.2}{}\n",
                w.mode,
                w.batch,
                w.threads,
                w.fps.median,
                100.0 * w.fps.rel_iqr(),
                gbps(w.fps.median),
                gbps(w.fps.median) / w.threads as f64,
                if w.fps.is_noisy() { "  noisy" } else { "" }
            );
        }
        if let Some(c) = r.pool {
            s += &format!(
                "pool: {} ({} of {} jobs alone; us per part alone {}, spread {})\n",
                if c.spreading { "spreading batches over the cores pays" } else { "spreading does not pay here: batches run alone" },
                c.alone_jobs,
                c.jobs,
                c.alone_us.map_or("-".into(), |x| format!("{x:.1}")),
                c.spread_us.map_or("-".into(), |x| format!("{x:.1}"))
            );
        }
        s += &format!(
            "default (the live AP: batches of {}, crypto on {} thread(s)) vs simplest (one at a time, one thread): {} -> >= 0.9x {}\n",
            o.batch,
            cores,
            r.default_vs_simplest.show(),
            r.verdict
        );
    }
    Ok(s)
}

/// Times every mode on the backend keys get now; `runs` noisy rounds are retaken.
fn run_backend(o: &Options, cores: usize) -> Result<BackendRun> {
    let frames = uplink(o.frames, o.msdu);
    // Check the relay once: station 2 must decrypt what the AP sends.
    {
        let (_, k2) = keys();
        let mut sta2 = Engine::new(Role::Supplicant);
        sta2.install(Some(AP), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &k2, None)?;
        let mut ap = ap_engine(None);
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
    // The live AP's pool (engine_threads=0: every core), kept across runs as the AP keeps it.
    let pool = if cores > 1 {
        Some(std::sync::Arc::new(wsec_live::pool::Pool::new(cores).map_err(|e| Error::Setup(format!("crypto threads: {e}")))?))
    } else {
        None
    };
    let n = frames.len() as f64;
    // Interleaved: each run times every mode once, so all modes share the machine's noise.
    let (secs, _) = quietest(MAX_ROUNDS, || {
        let mut cols = vec![Vec::new(); 4];
        for _ in 0..o.reps {
            cols[0].push(relay(&frames, 1, None));
            cols[1].push(relay(&frames, o.batch, None));
            cols[2].push(relay(&frames, o.batch, pool.as_ref()));
            // Every core, one engine each (per-station tables sharded by core).
            let t0 = Instant::now();
            std::thread::scope(|s| {
                for _ in 0..cores {
                    s.spawn(|| relay(&frames, o.batch, None));
                }
            });
            cols[3].push(t0.elapsed().as_secs_f64() / cores as f64);
        }
        cols.into_iter().map(|c| c.into_iter().map(|t| n / t).collect()).collect()
    });
    let sum = |i: usize| Summary::of(&secs[i]).ok_or_else(|| Error::Setup("no runs".into()));
    let rows = vec![
        Row { mode: "one at a time".into(), batch: 1, threads: 1, fps: sum(0)? },
        Row { mode: "multi-buffer batches".into(), batch: o.batch, threads: 1, fps: sum(1)? },
        Row { mode: "one engine, crypto on all cores".into(), batch: o.batch, threads: cores, fps: sum(2)? },
        Row { mode: "one engine per core".into(), batch: o.batch, threads: cores, fps: sum(3)? },
    ];
    let default_vs_simplest = Ratio::of_rates(&rows[2].fps, &rows[0].fps);
    Ok(BackendRun {
        backend: wsec::cipher::kernel::backend(),
        batch_backend: wsec::cipher::kernel::batch_backend(),
        verdict: default_vs_simplest.at_least(0.9),
        default_vs_simplest,
        pool: pool.map(|p| p.choice()),
        rows,
    })
}
