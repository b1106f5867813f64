//! `wsec bench ccmp`: seed 000's Tables I and II on this CPU (MIC time and CTR time per
//! frame, standard and 2/4/8 parallel), Enhanced CCMP and multi-buffer CCMP throughput, and
//! the peers (OpenSSL, RustCrypto `ccm`, Intel ipsec-mb when linked) in the same run.
//!
//! What is timed: AES-128 CCM as CCMP uses it (13-octet nonce, 8-octet MIC, the 24-octet AAD
//! of a QoS data frame) over a payload of `frame_bytes` octets, keys expanded once.
//! - `mic`: the MIC alone over the plaintext (CBC-MAC for lanes = 1, ECCMP's k lanes else);
//! - `ctr`: CTR encryption alone with `lanes` counter blocks in flight (1 = one at a time);
//! - `encap`: MIC + CTR in place; `decap`: copy the protected payload into the work buffer
//!   (as a receiver's DMA would), then decrypt and verify. The copy is in every
//!   implementation's decap time alike;
//! - `frames_in_flight` > 1: one call seals/opens a batch of that many independent frames
//!   (wsec's multi-buffer kernel; ipsec-mb's job manager); time is per frame.
//!
//! Every figure is the median of `reps` samples, each sample long enough to dwarf the
//! timer; implementations are interleaved inside each sample round so they share the
//! machine's noise. TSC ticks come from RDTSC (constant-rate TSC), converted with the TSC
//! frequency measured against the monotonic clock at start.
use crate::error::{Error, Result};
use ccm::aead::generic_array::GenericArray;
use ccm::aead::{AeadInPlace, KeyInit};
use ccm::consts::{U13, U8};
use openssl::cipher::Cipher as OsslCipher;
use openssl::cipher_ctx::CipherCtx;
use std::hint::black_box;
use std::time::{Duration, Instant};
use wsec::cipher::kernel::{self, CcmJob, CcmKey};

type RustCcm = ccm::Ccm<aes::Aes128, U8, U13>;

pub const SIZES: [usize; 4] = [64, 256, 1500, 16384];
const AAD_LEN: usize = 24;
const M: usize = 8;

/// One measured figure, as printed by `--json`.
#[derive(Clone, Debug)]
pub struct Record {
    pub imp: String,
    pub op: &'static str,
    pub frame_bytes: usize,
    pub lanes: usize,
    pub frames_in_flight: usize,
    pub ns_per_frame: f64,
    pub ticks_per_byte: f64,
    /// Relative spread of the samples: (max - min) / median.
    pub spread: f64,
}

pub struct Options {
    pub sizes: Vec<usize>,
    pub reps: usize,
    pub sample: Duration,
}

pub struct Report {
    pub cpu: String,
    pub tsc_ghz: f64,
    pub backend: &'static str,
    pub batch_backend: &'static str,
    pub ipsec_mb: Option<String>,
    pub records: Vec<Record>,
}

use crate::cpu::ticks;

pub fn cpu_model() -> String {
    crate::cpu::cpu_model()
}

/// Something timed: one call does `frames` frames.
struct Case {
    imp: String,
    op: &'static str,
    frame_bytes: usize,
    lanes: usize,
    frames: usize,
    run: Box<dyn FnMut()>,
    iters: u64,
    samples: Vec<f64>,
}

fn bytes(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
}

/// One frame's fixed inputs.
#[derive(Clone)]
struct Frame {
    key: [u8; 16],
    nonce: [u8; 13],
    aad: Vec<u8>,
    pt: Vec<u8>,
}

impl Frame {
    fn new(len: usize, i: u8) -> Frame {
        let mut key = [0u8; 16];
        key.copy_from_slice(&bytes(16, 0x40 ^ i));
        let mut nonce = [0u8; 13];
        nonce.copy_from_slice(&bytes(13, 0x11 ^ i));
        Frame { key, nonce, aad: bytes(AAD_LEN, 0x22 ^ i), pt: bytes(len, i) }
    }
}

fn ossl_ctx(key: &[u8], enc: bool) -> CipherCtx {
    let c = OsslCipher::aes_128_ccm();
    let mut x = CipherCtx::new().expect("EVP_CIPHER_CTX_new");
    if enc {
        x.encrypt_init(Some(c), None, None).expect("init");
    } else {
        x.decrypt_init(Some(c), None, None).expect("init");
    }
    x.set_iv_length(13).expect("iv length");
    x.set_tag_length(M).expect("tag length");
    if enc {
        x.encrypt_init(None, Some(key), None).expect("key");
    } else {
        x.decrypt_init(None, Some(key), None).expect("key");
    }
    x
}

/// Sealed payload and tag of a frame, from wsec's standard CCM (checked against the peers
/// before anything is timed).
fn seal_ref(f: &Frame) -> (Vec<u8>, [u8; M]) {
    let k = CcmKey::new(&f.key).expect("key");
    let mut c = f.pt.clone();
    let mut t = [0u8; M];
    k.seal_in_place(&f.nonce, &f.aad, &mut c, &mut t).expect("seal");
    (c, t)
}

/// Checks every implementation's output once; any difference aborts the benchmark.
fn verify(size: usize) -> Result<()> {
    let openssl = |e: openssl::error::ErrorStack| Error::Verify(e.to_string());
    let f = Frame::new(size, 1);
    let (ct, tag) = seal_ref(&f);
    // RustCrypto.
    let rc = RustCcm::new(GenericArray::from_slice(&f.key));
    let mut c = f.pt.clone();
    let t = rc
        .encrypt_in_place_detached(GenericArray::from_slice(&f.nonce), &f.aad, &mut c)
        .map_err(|_| Error::Verify("rustcrypto seal".into()))?;
    if c != ct || t[..] != tag[..] {
        return Err(Error::Verify(format!("RustCrypto ccm disagrees with wsec at {size} octets")));
    }
    // OpenSSL.
    let mut e = ossl_ctx(&f.key, true);
    let mut out = vec![0u8; size + 16];
    e.encrypt_init(None, None, Some(&f.nonce)).map_err(openssl)?;
    e.set_data_len(size).map_err(openssl)?;
    e.cipher_update(&f.aad, None).map_err(openssl)?;
    let w = e.cipher_update(&f.pt, Some(&mut out)).map_err(openssl)?;
    e.cipher_final(&mut out[w..]).map_err(openssl)?;
    let mut ot = [0u8; M];
    e.tag(&mut ot).map_err(openssl)?;
    if out[..size] != ct[..] || ot != tag {
        return Err(Error::Verify(format!("OpenSSL disagrees with wsec at {size} octets")));
    }
    // Multi-buffer batch of 16 different frames against one at a time.
    let frames: Vec<Frame> = (0..16).map(|i| Frame::new(size, i as u8)).collect();
    let keys: Vec<CcmKey> = frames.iter().map(|f| CcmKey::new(&f.key).expect("key")).collect();
    let mut bufs: Vec<Vec<u8>> = frames.iter().map(|f| f.pt.clone()).collect();
    let mut tags = [[0u8; M]; 16];
    let mut jobs: Vec<CcmJob> = frames
        .iter()
        .zip(&keys)
        .zip(bufs.iter_mut().zip(tags.iter_mut()))
        .map(|((f, k), (b, t))| CcmJob::new(k, f.nonce, &f.aad, b, t))
        .collect();
    kernel::seal_batch(&mut jobs);
    drop(jobs);
    for (i, f) in frames.iter().enumerate() {
        let (c, t) = seal_ref(f);
        if bufs[i] != c || tags[i] != t {
            return Err(Error::Verify(format!("multi-buffer disagrees with one-at-a-time at {size} octets")));
        }
    }
    #[cfg(feature = "ipsec-mb")]
    crate::ipsec_mb::verify(&f.key, &f.nonce, &f.aad, &f.pt, &ct, &tag)?;
    Ok(())
}

fn cases(size: usize, quick: bool) -> Vec<Case> {
    let mut v: Vec<Case> = Vec::new();
    let f = Frame::new(size, 1);
    let key = CcmKey::new(&f.key).expect("key");
    let (ct, tag) = seal_ref(&f);
    let mut add = |imp: &str, op: &'static str, lanes: usize, frames: usize, run: Box<dyn FnMut()>| {
        v.push(Case { imp: imp.into(), op, frame_bytes: size, lanes, frames, run, iters: 1, samples: Vec::new() })
    };
    // Table I: the MIC, standard (1 lane) and ECCMP lanes.
    for k in [1usize, 2, 4, 8] {
        let (key, f) = (key.clone(), f.clone());
        add(
            "wsec",
            "mic",
            k,
            1,
            Box::new(move || {
                black_box(key.lane_mac(k, M, &f.nonce, &f.aad, black_box(&f.pt)).expect("mic"));
            }),
        );
    }
    // Table II: CTR with 1, 2, 4, 8 (and VAES 16, 32) blocks in flight.
    let widths: &[usize] = if kernel::backend() == "vaes-avx512" { &[1, 2, 4, 8, 16, 32] } else { &[1, 2, 4, 8] };
    for &w in widths {
        let (key, f) = (key.clone(), f.clone());
        let mut d = f.pt.clone();
        add(
            "wsec",
            "ctr",
            w,
            1,
            Box::new(move || {
                key.ctr_xor_width(w, &f.nonce, black_box(&mut d)).expect("ctr");
            }),
        );
    }
    // Encapsulation / decapsulation, one frame at a time.
    for k in [1usize, 2, 4, 8] {
        let name = if k == 1 { "wsec" } else { "wsec-eccmp" };
        {
            let (key, f) = (key.clone(), f.clone());
            let mut d = f.pt.clone();
            let mut t = [0u8; M];
            add(
                name,
                "encap",
                k,
                1,
                Box::new(move || {
                    key.seal_lanes(k, &f.nonce, &f.aad, black_box(&mut d), &mut t).expect("seal");
                }),
            );
        }
        {
            let (key, f) = (key.clone(), f.clone());
            let mut c = f.pt.clone();
            let mut t = [0u8; M];
            key.seal_lanes(k, &f.nonce, &f.aad, &mut c, &mut t).expect("seal");
            let mut d = c.clone();
            add(
                name,
                "decap",
                k,
                1,
                Box::new(move || {
                    d.copy_from_slice(black_box(&c));
                    key.open_lanes(k, &f.nonce, &f.aad, &mut d, &t).expect("open");
                }),
            );
        }
    }
    // Multi-buffer: batches of independent frames with their own keys.
    let fifs: &[usize] = if quick { &[8, 16] } else { &[8, 16, 64] };
    for &n in fifs {
        let frames: Vec<Frame> = (0..n).map(|i| Frame::new(size, i as u8)).collect();
        let keys: Vec<CcmKey> = frames.iter().map(|f| CcmKey::new(&f.key).expect("key")).collect();
        let sealed: Vec<(Vec<u8>, [u8; M])> = frames.iter().map(seal_ref).collect();
        {
            let (frames, keys) = (frames.clone(), keys.clone());
            let mut bufs: Vec<Vec<u8>> = frames.iter().map(|f| f.pt.clone()).collect();
            let mut tags = vec![[0u8; M]; n];
            add(
                "wsec-mb",
                "encap",
                1,
                n,
                Box::new(move || {
                    let mut jobs: Vec<CcmJob> = frames
                        .iter()
                        .zip(&keys)
                        .zip(bufs.iter_mut().zip(tags.iter_mut()))
                        .map(|((f, k), (b, t))| CcmJob::new(k, f.nonce, &f.aad, b, t))
                        .collect();
                    kernel::seal_batch(black_box(&mut jobs));
                }),
            );
        }
        {
            let mut bufs: Vec<Vec<u8>> = sealed.iter().map(|s| s.0.clone()).collect();
            let mut tags: Vec<[u8; M]> = sealed.iter().map(|s| s.1).collect();
            add(
                "wsec-mb",
                "decap",
                1,
                n,
                Box::new(move || {
                    for (b, s) in bufs.iter_mut().zip(&sealed) {
                        b.copy_from_slice(&s.0);
                    }
                    let mut jobs: Vec<CcmJob> = frames
                        .iter()
                        .zip(&keys)
                        .zip(bufs.iter_mut().zip(tags.iter_mut()))
                        .map(|((f, k), (b, t))| CcmJob::new(k, f.nonce, &f.aad, b, t))
                        .collect();
                    kernel::open_batch(black_box(&mut jobs));
                    debug_assert!(jobs.iter().all(|j| j.status.is_ok()));
                }),
            );
        }
    }
    // Peers, one frame at a time.
    {
        let rc = RustCcm::new(GenericArray::from_slice(&f.key));
        let f2 = f.clone();
        let mut d = f.pt.clone();
        add(
            "rustcrypto-ccm",
            "encap",
            1,
            1,
            Box::new(move || {
                black_box(rc.encrypt_in_place_detached(GenericArray::from_slice(&f2.nonce), &f2.aad, black_box(&mut d)).expect("seal"));
            }),
        );
        let rc = RustCcm::new(GenericArray::from_slice(&f.key));
        let (f2, c) = (f.clone(), ct.clone());
        let mut d = c.clone();
        add(
            "rustcrypto-ccm",
            "decap",
            1,
            1,
            Box::new(move || {
                d.copy_from_slice(black_box(&c));
                rc.decrypt_in_place_detached(GenericArray::from_slice(&f2.nonce), &f2.aad, &mut d, GenericArray::from_slice(&tag))
                    .expect("open");
            }),
        );
    }
    {
        let mut e = ossl_ctx(&f.key, true);
        let f2 = f.clone();
        let mut out = vec![0u8; size + 16];
        let mut t = [0u8; M];
        add(
            "openssl",
            "encap",
            1,
            1,
            Box::new(move || {
                let n = f2.pt.len();
                e.encrypt_init(None, None, Some(&f2.nonce)).expect("nonce");
                e.set_data_len(n).expect("len");
                // SAFETY: `out` has n + 16 octets; CCM writes n octets in update and none in final.
                unsafe {
                    e.cipher_update_unchecked(&f2.aad, None).expect("aad");
                    e.cipher_update_unchecked(black_box(&f2.pt), Some(&mut out[..])).expect("data");
                    e.cipher_final_unchecked(&mut out[n..]).expect("final");
                }
                e.tag(&mut t).expect("tag");
            }),
        );
        let mut d = ossl_ctx(&f.key, false);
        let (f2, c) = (f.clone(), ct.clone());
        let mut out = vec![0u8; size + 16];
        let mut work = c.clone();
        add(
            "openssl",
            "decap",
            1,
            1,
            Box::new(move || {
                let n = c.len();
                work.copy_from_slice(black_box(&c));
                d.decrypt_init(None, None, Some(&f2.nonce)).expect("nonce");
                d.set_tag(&tag).expect("tag");
                d.set_data_len(n).expect("len");
                // SAFETY: as for encap.
                unsafe {
                    d.cipher_update_unchecked(&f2.aad, None).expect("aad");
                    d.cipher_update_unchecked(&work, Some(&mut out[..])).expect("verify");
                    d.cipher_final_unchecked(&mut out[n..]).expect("final");
                }
            }),
        );
    }
    #[cfg(feature = "ipsec-mb")]
    for (imp, op, n, run) in crate::ipsec_mb::cases(size, quick) {
        add(&imp, op, 1, n, run);
    }
    v
}

/// Runs every case for every size. `progress` gets a line per size.
pub fn run(opts: &Options, quick: bool, mut progress: impl FnMut(&str)) -> Result<Report> {
    // Figures are in TSC ticks (RDTSC); no TSC, no benchmark.
    let ghz = crate::cpu::tsc_ghz(Duration::from_millis(50))
        .ok_or_else(|| Error::Setup("wsec bench ccmp needs a constant-rate TSC (x86_64)".into()))?;
    let mut records = Vec::new();
    for &size in &opts.sizes {
        verify(size)?;
        progress(&format!("{size} octets: verified all implementations, timing"));
        let mut cs = cases(size, quick);
        // Calibrate: iterations per sample so that a sample lasts about `opts.sample`.
        for c in cs.iter_mut() {
            (c.run)();
            let t0 = Instant::now();
            let mut n = 0u64;
            while t0.elapsed() < opts.sample / 4 {
                (c.run)();
                n += 1;
            }
            c.iters = (n * 4).max(1);
        }
        for _ in 0..opts.reps {
            for c in cs.iter_mut() {
                let t0 = ticks();
                for _ in 0..c.iters {
                    (c.run)();
                }
                let dt = ticks() - t0;
                c.samples.push(dt as f64 / (c.iters as f64 * c.frames as f64));
            }
        }
        for c in cs {
            let mut s = c.samples.clone();
            s.sort_by(|a, b| a.total_cmp(b));
            let med = s[s.len() / 2];
            records.push(Record {
                imp: c.imp,
                op: c.op,
                frame_bytes: c.frame_bytes,
                lanes: c.lanes,
                frames_in_flight: c.frames,
                ns_per_frame: med / ghz,
                ticks_per_byte: med / c.frame_bytes as f64,
                spread: (s[s.len() - 1] - s[0]) / med,
            });
        }
    }
    Ok(Report {
        cpu: cpu_model(),
        tsc_ghz: ghz,
        backend: kernel::backend(),
        batch_backend: kernel::batch_backend(),
        #[cfg(feature = "ipsec-mb")]
        ipsec_mb: Some(crate::ipsec_mb::version()),
        #[cfg(not(feature = "ipsec-mb"))]
        ipsec_mb: None,
        records,
    })
}

/// Seed 000 Tables I and II (Intel Core i5, microseconds; the paper does not state the
/// frame size). Columns: standard, 2, 4, 8 parallel.
pub const PAPER_MIC_I5: [f64; 4] = [40.0, 29.0, 24.0, 22.0];
pub const PAPER_CTR_I5: [f64; 4] = [47.0, 35.0, 28.0, 25.0];

impl Report {
    pub fn find(&self, imp: &str, op: &str, size: usize, lanes: usize, fif: usize) -> Option<&Record> {
        self.records.iter().find(|r| r.imp == imp && r.op == op && r.frame_bytes == size && r.lanes == lanes && r.frames_in_flight == fif)
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "cpu": self.cpu,
            "tsc_ghz": self.tsc_ghz,
            "backend": self.backend,
            "batch_backend": self.batch_backend,
            "ipsec_mb": self.ipsec_mb,
            "records": self.records.iter().map(|r| serde_json::json!({
                "impl": r.imp,
                "op": r.op,
                "frame_bytes": r.frame_bytes,
                "lanes": r.lanes,
                "frames_in_flight": r.frames_in_flight,
                "ns_per_frame": r.ns_per_frame,
                "ticks_per_byte": r.ticks_per_byte,
                "spread": r.spread,
            })).collect::<Vec<_>>(),
        })
    }

    /// The terminal tables.
    pub fn text(&self, table_size: usize) -> String {
        use std::fmt::Write;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "CPU: {} (TSC {:.3} GHz); CCM backend {}, batches {}{}",
            self.cpu,
            self.tsc_ghz,
            self.backend,
            self.batch_backend,
            self.ipsec_mb.as_ref().map(|v| format!(", ipsec-mb {v}")).unwrap_or_default()
        );
        let _ = writeln!(o, "AES-128 CCM, 8-octet MIC, 24-octet AAD; medians; ticks = TSC ticks per payload octet\n");
        if self.records.iter().any(|r| r.frame_bytes == table_size) {
            let _ = writeln!(o, "Seed 000 Table I (MIC) and Table II (CTR) on this CPU, {table_size}-octet frames (the paper: Intel Core i5, frame size not stated)");
            let _ = writeln!(o, "{:<6} {:>10} {:>10} {:>10} {:>10}   extra", "", "standard", "2", "4", "8");
            for (op, paper) in [("mic", PAPER_MIC_I5), ("ctr", PAPER_CTR_I5)] {
                let base = self.find("wsec", op, table_size, 1, 1).map(|r| r.ns_per_frame);
                let mut line = format!("{:<6}", op.to_uppercase());
                for k in [1, 2, 4, 8] {
                    match self.find("wsec", op, table_size, k, 1) {
                        Some(r) => line += &format!(" {:>7.3} us", r.ns_per_frame / 1000.0),
                        None => line += &format!(" {:>10}", "-"),
                    }
                }
                if op == "ctr" {
                    for k in [16, 32] {
                        if let Some(r) = self.find("wsec", op, table_size, k, 1) {
                            line += &format!("   {k}: {:.3} us", r.ns_per_frame / 1000.0);
                        }
                    }
                }
                let _ = writeln!(o, "{line}");
                let mut sp = format!("{:<6}", "  x");
                for k in [1, 2, 4, 8] {
                    match (base, self.find("wsec", op, table_size, k, 1)) {
                        (Some(b), Some(r)) => sp += &format!(" {:>9.2}x", b / r.ns_per_frame),
                        _ => sp += &format!(" {:>10}", "-"),
                    }
                }
                let _ = writeln!(o, "{sp}");
                let mut pl = format!("{:<6}", "  i5");
                for p in paper {
                    pl += &format!(" {:>7.0} us", p);
                }
                let _ = writeln!(o, "{pl}   (paper; speed-up {:.2}x at 8)", paper[0] / paper[3]);
            }
            let _ = writeln!(o);
        }
        let _ = writeln!(
            o,
            "{:<16} {:<6} {:>7} {:>5} {:>6} {:>12} {:>8} {:>7}",
            "impl", "op", "octets", "lanes", "frames", "ns/frame", "ticks/B", "spread"
        );
        for r in &self.records {
            let _ = writeln!(
                o,
                "{:<16} {:<6} {:>7} {:>5} {:>6} {:>12.1} {:>8.3} {:>6.1}%",
                r.imp,
                r.op,
                r.frame_bytes,
                r.lanes,
                r.frames_in_flight,
                r.ns_per_frame,
                r.ticks_per_byte,
                100.0 * r.spread
            );
        }
        // Ratios against the peers at each size.
        let _ = writeln!(o, "\nspeed-ups (same run; > 1 means wsec is faster):");
        let mut sizes: Vec<usize> = self.records.iter().map(|r| r.frame_bytes).collect();
        sizes.dedup();
        for s in sizes {
            for op in ["encap", "decap"] {
                let w1 = self.find("wsec", op, s, 1, 1);
                let mb = self
                    .records
                    .iter()
                    .filter(|r| r.imp == "wsec-mb" && r.op == op && r.frame_bytes == s)
                    .min_by(|a, b| a.ns_per_frame.total_cmp(&b.ns_per_frame));
                let os = self.find("openssl", op, s, 1, 1);
                let rc = self.find("rustcrypto-ccm", op, s, 1, 1);
                let ip = self
                    .records
                    .iter()
                    .filter(|r| r.imp == "ipsec-mb" && r.op == op && r.frame_bytes == s)
                    .min_by(|a, b| a.ns_per_frame.total_cmp(&b.ns_per_frame));
                let mut line = format!("{s:>6} {op}:");
                if let (Some(w), Some(x)) = (w1, os) {
                    line += &format!(" wsec/1 vs openssl {:.2}x;", x.ns_per_frame / w.ns_per_frame);
                }
                if let (Some(w), Some(x)) = (w1, rc) {
                    line += &format!(" wsec/1 vs rustcrypto {:.2}x;", x.ns_per_frame / w.ns_per_frame);
                }
                if let (Some(m), Some(x)) = (mb, os) {
                    line += &format!(" wsec-mb/{} vs openssl {:.2}x;", m.frames_in_flight, x.ns_per_frame / m.ns_per_frame);
                }
                if let (Some(m), Some(x)) = (mb, ip) {
                    line += &format!(
                        " wsec-mb/{} vs ipsec-mb/{} {:.2}x;",
                        m.frames_in_flight,
                        x.frames_in_flight,
                        x.ns_per_frame / m.ns_per_frame
                    );
                }
                let _ = writeln!(o, "{line}");
            }
        }
        o
    }
}
