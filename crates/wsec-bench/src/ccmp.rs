//! `wsec bench ccmp`: seed 000's Tables I and II on this CPU (MIC time and CTR time per
//! frame, standard and 2/4/8 parallel), Enhanced CCMP and multi-buffer CCMP throughput,
//! GCMP-128 (one frame at a time and batched), and the peers (OpenSSL, RustCrypto `ccm` /
//! `aes-gcm`, Intel ipsec-mb when linked, per manager architecture) in the same run. Every
//! wsec row runs on a named kernel backend (`--backend`, default the one
//! `wsec::cipher::kernel::current` picks, which `WSEC_BACKEND` can force); every record
//! carries its `suite` and `backend`.
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
use wsec::cipher::kernel::{self, Backend, CcmJob, CcmKey, GcmJob, GcmKey};

type RustCcm = ccm::Ccm<aes::Aes128, U8, U13>;
type RustGcm = aes_gcm::Aes128Gcm;

pub const CCMP: &str = "ccmp-128";
pub const GCMP: &str = "gcmp-128";

pub const SIZES: [usize; 4] = [64, 256, 1500, 16384];
const AAD_LEN: usize = 24;
const M: usize = 8;

/// One measured figure, as printed by `--json`.
#[derive(Clone, Debug)]
pub struct Record {
    /// `ccmp-128` or `gcmp-128`.
    pub suite: &'static str,
    /// wsec's kernel backend for wsec rows, ipsec-mb's manager architecture for its rows,
    /// `auto` for the peers that pick their own code path.
    pub backend: String,
    pub imp: String,
    pub op: &'static str,
    pub frame_bytes: usize,
    pub lanes: usize,
    pub frames_in_flight: usize,
    pub ns_per_frame: f64,
    pub ticks_per_byte: f64,
    /// Relative spread of the samples: (max - min) / median.
    pub spread: f64,
    /// The samples' interquartile range over their median ([`crate::stats::NOISY_IQR`]
    /// above which the figure is noisy and no speed-up is derived from it).
    pub iqr: f64,
    /// First and third quartile of the samples, ns per frame.
    pub q1_ns: f64,
    pub q3_ns: f64,
    /// Samples behind the median.
    pub samples: usize,
    /// Rounds of `reps` samples taken (a noisy round is retaken, up to
    /// [`crate::stats::MAX_ROUNDS`], and the quietest kept).
    pub rounds: usize,
}

impl Record {
    pub fn is_noisy(&self) -> bool {
        self.iqr > crate::stats::NOISY_IQR
    }
}

/// `base / ours` as `1.23x`, or `1.23x (noisy)` when either figure is noisy.
pub fn speedup(base: &Record, ours: &Record) -> String {
    let x = base.ns_per_frame / ours.ns_per_frame;
    if base.is_noisy() || ours.is_noisy() {
        format!("{x:.2}x (noisy)")
    } else {
        format!("{x:.2}x")
    }
}

pub struct Options {
    pub sizes: Vec<usize>,
    pub reps: usize,
    pub sample: Duration,
    /// wsec backends to time (each must be supported); empty = [`kernel::current`].
    pub backends: Vec<Backend>,
    /// Suites to time: [`CCMP`], [`GCMP`].
    pub suites: Vec<&'static str>,
    /// ipsec-mb manager architectures (`auto`, `sse`, `avx`, `avx2`, `avx512`); empty =
    /// `auto` and the one matching each backend. Ignored without the `ipsec-mb` feature.
    pub ipsec: Vec<String>,
}

impl Options {
    pub fn new(sizes: Vec<usize>, reps: usize, sample: Duration) -> Options {
        Options { sizes, reps, sample, backends: Vec::new(), suites: vec![CCMP, GCMP], ipsec: Vec::new() }
    }
}

pub struct Report {
    pub cpu: String,
    pub cpu_flags: String,
    pub tsc_ghz: f64,
    pub backend: &'static str,
    pub batch_backend: &'static str,
    /// The backends timed, in order.
    pub backends: Vec<&'static str>,
    pub ipsec_mb: Option<String>,
    /// ipsec-mb manager architectures timed (with what `auto` picked).
    pub ipsec_archs: Vec<String>,
    pub records: Vec<Record>,
}

use crate::cpu::ticks;

pub fn cpu_model() -> String {
    crate::cpu::cpu_model()
}

/// The AES/SIMD features of this CPU that select kernels (from CPUID via std).
pub fn cpu_flags() -> String {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as f;
        let all = [
            ("aes", f!("aes")),
            ("pclmulqdq", f!("pclmulqdq")),
            ("avx", f!("avx")),
            ("avx2", f!("avx2")),
            ("vaes", f!("vaes")),
            ("vpclmulqdq", f!("vpclmulqdq")),
            ("avx512f", f!("avx512f")),
            ("avx512vl", f!("avx512vl")),
            ("avx512bw", f!("avx512bw")),
            ("sha", f!("sha")),
        ];
        all.iter().filter(|x| x.1).map(|x| x.0).collect::<Vec<_>>().join(" ")
    }
    #[cfg(not(target_arch = "x86_64"))]
    String::new()
}

/// Something timed: one call does `frames` frames.
struct Case {
    suite: &'static str,
    backend: String,
    imp: String,
    op: &'static str,
    frame_bytes: usize,
    lanes: usize,
    frames: usize,
    run: Box<dyn FnMut()>,
    iters: u64,
    samples: Vec<f64>,
}

impl Case {
    fn is_noisy(&self) -> bool {
        crate::stats::Summary::of(&self.samples).is_none_or(|s| s.is_noisy())
    }
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
    let k = CcmKey::new_portable(&f.key).expect("key");
    let mut c = f.pt.clone();
    let mut t = [0u8; M];
    k.seal_in_place(&f.nonce, &f.aad, &mut c, &mut t).expect("seal");
    (c, t)
}

/// Checks every implementation's output once; any difference aborts the benchmark.
fn verify(size: usize, backends: &[Backend], ipsec: &[String]) -> Result<()> {
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
    for &b in backends {
        // One frame, then a multi-buffer batch of 16 different frames, on backend b.
        let k = CcmKey::with(&f.key, b).map_err(|e| Error::Setup(format!("backend {b}: {e}")))?;
        let mut c = f.pt.clone();
        let mut t = [0u8; M];
        k.seal_in_place(&f.nonce, &f.aad, &mut c, &mut t).map_err(|e| Error::Verify(e.to_string()))?;
        if c != ct || t != tag {
            return Err(Error::Verify(format!("wsec {b} disagrees with the portable backend at {size} octets")));
        }
        let frames: Vec<Frame> = (0..16).map(|i| Frame::new(size, i as u8)).collect();
        let keys: Vec<CcmKey> = frames.iter().map(|f| CcmKey::with(&f.key, b).expect("key")).collect();
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
                return Err(Error::Verify(format!("multi-buffer ({b}) disagrees with one-at-a-time at {size} octets")));
            }
        }
    }
    #[cfg(feature = "ipsec-mb")]
    for a in ipsec {
        let arch = crate::ipsec_mb::Arch::parse(a).ok_or_else(|| Error::Setup(format!("unknown ipsec-mb architecture {a}")))?;
        crate::ipsec_mb::verify_on(arch, &f.key, &f.nonce, &f.aad, &f.pt, &ct, &tag)?;
    }
    #[cfg(not(feature = "ipsec-mb"))]
    let _ = ipsec;
    Ok(())
}

/// GCMP-128 as 802.11 uses it: 12-octet nonce, 16-octet MIC, the frame's 24-octet AAD.
fn gcm_iv(f: &Frame) -> [u8; 12] {
    let mut iv = [0u8; 12];
    iv.copy_from_slice(&f.nonce[1..]);
    iv
}

fn gcm_ref(f: &Frame) -> (Vec<u8>, [u8; 16]) {
    use aes_gcm::aead::{AeadInPlace as _, KeyInit as _};
    let k = RustGcm::new(GenericArray::from_slice(&f.key));
    let mut c = f.pt.clone();
    let t = k.encrypt_in_place_detached(GenericArray::from_slice(&gcm_iv(f)), &f.aad, &mut c).expect("gcm");
    (c, t.into())
}

fn ossl_gcm_ctx(key: &[u8], enc: bool) -> CipherCtx {
    let c = OsslCipher::aes_128_gcm();
    let mut x = CipherCtx::new().expect("EVP_CIPHER_CTX_new");
    if enc {
        x.encrypt_init(Some(c), Some(key), None).expect("init");
    } else {
        x.decrypt_init(Some(c), Some(key), None).expect("init");
    }
    x.set_iv_length(12).expect("iv length");
    x
}

/// GCMP: wsec on every backend, OpenSSL and ipsec-mb against RustCrypto `aes-gcm`.
fn verify_gcm(size: usize, backends: &[Backend], ipsec: &[String]) -> Result<()> {
    let openssl = |e: openssl::error::ErrorStack| Error::Verify(e.to_string());
    let f = Frame::new(size, 1);
    let (ct, tag) = gcm_ref(&f);
    for &b in backends {
        let frames: Vec<Frame> = (0..16).map(|i| Frame::new(size, i as u8)).collect();
        let keys: Vec<GcmKey> = frames.iter().map(|f| GcmKey::with(&f.key, b).expect("key")).collect();
        let mut bufs: Vec<Vec<u8>> = frames.iter().map(|f| f.pt.clone()).collect();
        let mut tags = [[0u8; 16]; 16];
        let mut jobs: Vec<GcmJob> = frames
            .iter()
            .zip(&keys)
            .zip(bufs.iter_mut().zip(tags.iter_mut()))
            .map(|((f, k), (d, t))| GcmJob::new(k, gcm_iv(f), &f.aad, d, t))
            .collect();
        kernel::gcm_seal_batch(&mut jobs);
        drop(jobs);
        for (i, f) in frames.iter().enumerate() {
            if (bufs[i].clone(), tags[i]) != gcm_ref(f) {
                return Err(Error::Verify(format!("wsec GCM ({b}) disagrees with RustCrypto aes-gcm at {size} octets")));
            }
        }
    }
    let mut e = ossl_gcm_ctx(&f.key, true);
    let mut out = vec![0u8; size + 16];
    e.encrypt_init(None, None, Some(&gcm_iv(&f))).map_err(openssl)?;
    e.cipher_update(&f.aad, None).map_err(openssl)?;
    let w = e.cipher_update(&f.pt, Some(&mut out)).map_err(openssl)?;
    e.cipher_final(&mut out[w..]).map_err(openssl)?;
    let mut ot = [0u8; 16];
    e.tag(&mut ot).map_err(openssl)?;
    if out[..size] != ct[..] || ot != tag {
        return Err(Error::Verify(format!("OpenSSL GCM disagrees with RustCrypto at {size} octets")));
    }
    #[cfg(feature = "ipsec-mb")]
    for a in ipsec {
        let arch = crate::ipsec_mb::Arch::parse(a).ok_or_else(|| Error::Setup(format!("unknown ipsec-mb architecture {a}")))?;
        crate::ipsec_mb::verify_gcm(arch, &f.key, &gcm_iv(&f), &f.aad, &f.pt, &ct, &tag)?;
    }
    #[cfg(not(feature = "ipsec-mb"))]
    let _ = ipsec;
    Ok(())
}

/// wsec's CCMP rows on backend `b`.
fn cases(size: usize, quick: bool, b: Backend) -> Vec<Case> {
    let mut v: Vec<Case> = Vec::new();
    let f = Frame::new(size, 1);
    let key = CcmKey::with(&f.key, b).expect("key");
    let mut add = |imp: &str, op: &'static str, lanes: usize, frames: usize, run: Box<dyn FnMut()>| {
        v.push(Case {
            suite: CCMP,
            backend: b.name().into(),
            imp: imp.into(),
            op,
            frame_bytes: size,
            lanes,
            frames,
            run,
            iters: 1,
            samples: Vec::new(),
        })
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
    let widths: &[usize] = match b {
        Backend::Avx512 => &[1, 2, 4, 8, 16, 32],
        Backend::Vaes256 => &[1, 2, 4, 8, 16],
        _ => &[1, 2, 4, 8],
    };
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
        let keys: Vec<CcmKey> = frames.iter().map(|f| CcmKey::with(&f.key, b).expect("key")).collect();
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
    // ECCMP-4 in batches: frames of one key (a station's uplink), two to a pass on
    // AVX-512 (`eccmz::run_pair`), one at a time elsewhere.
    for &n in &fifs[..fifs.len().min(2)] {
        let frames: Vec<Frame> = (0..n).map(|i| Frame::new(size, i as u8)).collect();
        let mut sealed: Vec<(Vec<u8>, [u8; M])> = Vec::with_capacity(n);
        for f in &frames {
            let (mut c, mut t) = (f.pt.clone(), [0u8; M]);
            key.seal_lanes(4, &f.nonce, &f.aad, &mut c, &mut t).expect("seal");
            sealed.push((c, t));
        }
        {
            let (frames, key) = (frames.clone(), key.clone());
            let mut bufs: Vec<Vec<u8>> = frames.iter().map(|f| f.pt.clone()).collect();
            let mut tags = vec![[0u8; M]; n];
            add(
                "wsec-eccmp-mb",
                "encap",
                4,
                n,
                Box::new(move || {
                    let mut jobs: Vec<CcmJob> = frames
                        .iter()
                        .zip(bufs.iter_mut().zip(tags.iter_mut()))
                        .map(|(f, (b, t))| CcmJob::new(&key, f.nonce, &f.aad, b, t).with_lanes(4))
                        .collect();
                    kernel::seal_batch(black_box(&mut jobs));
                }),
            );
        }
        {
            let key = key.clone();
            let mut bufs: Vec<Vec<u8>> = sealed.iter().map(|s| s.0.clone()).collect();
            let mut tags: Vec<[u8; M]> = sealed.iter().map(|s| s.1).collect();
            add(
                "wsec-eccmp-mb",
                "decap",
                4,
                n,
                Box::new(move || {
                    for (b, s) in bufs.iter_mut().zip(&sealed) {
                        b.copy_from_slice(&s.0);
                    }
                    let mut jobs: Vec<CcmJob> = frames
                        .iter()
                        .zip(bufs.iter_mut().zip(tags.iter_mut()))
                        .map(|(f, (b, t))| CcmJob::new(&key, f.nonce, &f.aad, b, t).with_lanes(4))
                        .collect();
                    kernel::open_batch(black_box(&mut jobs));
                    debug_assert!(jobs.iter().all(|j| j.status.is_ok()));
                }),
            );
        }
    }
    v
}

/// The CCMP peers: OpenSSL, RustCrypto, ipsec-mb on each architecture in `ipsec`.
fn peer_cases(size: usize, quick: bool, ipsec: &[String]) -> Vec<Case> {
    let mut v: Vec<Case> = Vec::new();
    let f = Frame::new(size, 1);
    let (ct, tag) = seal_ref(&f);
    let mut add = |imp: &str, backend: &str, op: &'static str, lanes: usize, frames: usize, run: Box<dyn FnMut()>| {
        v.push(Case {
            suite: CCMP,
            backend: backend.into(),
            imp: imp.into(),
            op,
            frame_bytes: size,
            lanes,
            frames,
            run,
            iters: 1,
            samples: Vec::new(),
        })
    };
    {
        let rc = RustCcm::new(GenericArray::from_slice(&f.key));
        let f2 = f.clone();
        let mut d = f.pt.clone();
        add(
            "rustcrypto-ccm",
            "auto",
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
            "auto",
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
            "auto",
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
            "auto",
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
    for a in ipsec {
        if let Some(arch) = crate::ipsec_mb::Arch::parse(a) {
            for (imp, op, n, run) in crate::ipsec_mb::cases_on(arch, size, quick) {
                add(&imp, a, op, 1, n, run);
            }
        }
    }
    #[cfg(not(feature = "ipsec-mb"))]
    let _ = (ipsec, quick);
    v
}

/// wsec's GCMP-128 rows on backend `b`: one frame at a time and batches.
fn gcm_cases(size: usize, quick: bool, b: Backend) -> Vec<Case> {
    let mut v: Vec<Case> = Vec::new();
    let mut add = |imp: &str, op: &'static str, frames: usize, run: Box<dyn FnMut()>| {
        v.push(Case {
            suite: GCMP,
            backend: b.name().into(),
            imp: imp.into(),
            op,
            frame_bytes: size,
            lanes: 1,
            frames,
            run,
            iters: 1,
            samples: Vec::new(),
        })
    };
    let fifs: &[usize] = if quick { &[1, 8, 16] } else { &[1, 8, 16, 64] };
    for &n in fifs {
        let frames: Vec<Frame> = (0..n).map(|i| Frame::new(size, i as u8)).collect();
        let keys: Vec<GcmKey> = frames.iter().map(|f| GcmKey::with(&f.key, b).expect("key")).collect();
        let sealed: Vec<(Vec<u8>, [u8; 16])> = frames.iter().map(gcm_ref).collect();
        let imp = if n == 1 { "wsec" } else { "wsec-mb" };
        if n == 1 {
            // One frame at a time through the key's own API (no batch bookkeeping).
            let (f, k) = (frames[0].clone(), keys[0].clone());
            let mut d = f.pt.clone();
            add(
                imp,
                "encap",
                1,
                Box::new(move || {
                    black_box(k.seal_in_place(&gcm_iv(&f), &f.aad, black_box(&mut d)).expect("seal"));
                }),
            );
            let (f, k, s) = (frames[0].clone(), keys[0].clone(), sealed[0].clone());
            let mut d = s.0.clone();
            add(
                imp,
                "decap",
                1,
                Box::new(move || {
                    d.copy_from_slice(black_box(&s.0));
                    k.open_in_place(&gcm_iv(&f), &f.aad, &mut d, &s.1).expect("open");
                }),
            );
            continue;
        }
        {
            let (frames, keys) = (frames.clone(), keys.clone());
            let mut bufs: Vec<Vec<u8>> = frames.iter().map(|f| f.pt.clone()).collect();
            let mut tags = vec![[0u8; 16]; n];
            add(
                imp,
                "encap",
                n,
                Box::new(move || {
                    let mut jobs: Vec<GcmJob> = frames
                        .iter()
                        .zip(&keys)
                        .zip(bufs.iter_mut().zip(tags.iter_mut()))
                        .map(|((f, k), (d, t))| GcmJob::new(k, gcm_iv(f), &f.aad, d, t))
                        .collect();
                    kernel::gcm_seal_batch(black_box(&mut jobs));
                }),
            );
        }
        let mut bufs: Vec<Vec<u8>> = sealed.iter().map(|s| s.0.clone()).collect();
        let mut tags: Vec<[u8; 16]> = sealed.iter().map(|s| s.1).collect();
        add(
            imp,
            "decap",
            n,
            Box::new(move || {
                for (d, s) in bufs.iter_mut().zip(&sealed) {
                    d.copy_from_slice(&s.0);
                }
                let mut jobs: Vec<GcmJob> = frames
                    .iter()
                    .zip(&keys)
                    .zip(bufs.iter_mut().zip(tags.iter_mut()))
                    .map(|((f, k), (d, t))| GcmJob::new(k, gcm_iv(f), &f.aad, d, t))
                    .collect();
                kernel::gcm_open_batch(black_box(&mut jobs));
                debug_assert!(jobs.iter().all(|j| j.status.is_ok()));
            }),
        );
    }
    v
}

/// The GCMP peers: OpenSSL and RustCrypto one frame at a time, ipsec-mb per architecture.
fn gcm_peer_cases(size: usize, quick: bool, ipsec: &[String]) -> Vec<Case> {
    use aes_gcm::aead::{AeadInPlace as _, KeyInit as _};
    let mut v: Vec<Case> = Vec::new();
    let mut add = |imp: &str, backend: &str, op: &'static str, frames: usize, run: Box<dyn FnMut()>| {
        v.push(Case {
            suite: GCMP,
            backend: backend.into(),
            imp: imp.into(),
            op,
            frame_bytes: size,
            lanes: 1,
            frames,
            run,
            iters: 1,
            samples: Vec::new(),
        })
    };
    let f = Frame::new(size, 1);
    let (ct, tag) = gcm_ref(&f);
    let iv = gcm_iv(&f);
    {
        let k = RustGcm::new(GenericArray::from_slice(&f.key));
        let mut d = f.pt.clone();
        let f2 = f.clone();
        add(
            "rustcrypto-gcm",
            "auto",
            "encap",
            1,
            Box::new(move || {
                black_box(k.encrypt_in_place_detached(GenericArray::from_slice(&iv), &f2.aad, black_box(&mut d)).expect("seal"));
            }),
        );
        let k = RustGcm::new(GenericArray::from_slice(&f.key));
        let (f2, c) = (f.clone(), ct.clone());
        let mut d = c.clone();
        add(
            "rustcrypto-gcm",
            "auto",
            "decap",
            1,
            Box::new(move || {
                d.copy_from_slice(black_box(&c));
                k.decrypt_in_place_detached(GenericArray::from_slice(&iv), &f2.aad, &mut d, GenericArray::from_slice(&tag)).expect("open");
            }),
        );
    }
    {
        let mut e = ossl_gcm_ctx(&f.key, true);
        let f2 = f.clone();
        let mut out = vec![0u8; size + 16];
        let mut t = [0u8; 16];
        add(
            "openssl",
            "auto",
            "encap",
            1,
            Box::new(move || {
                let n = f2.pt.len();
                e.encrypt_init(None, None, Some(&iv)).expect("iv");
                // SAFETY: `out` has n + 16 octets; GCM writes n octets in update and none in final.
                unsafe {
                    e.cipher_update_unchecked(&f2.aad, None).expect("aad");
                    e.cipher_update_unchecked(black_box(&f2.pt), Some(&mut out[..])).expect("data");
                    e.cipher_final_unchecked(&mut out[n..]).expect("final");
                }
                e.tag(&mut t).expect("tag");
            }),
        );
        let mut d = ossl_gcm_ctx(&f.key, false);
        let (f2, c) = (f.clone(), ct.clone());
        let mut out = vec![0u8; size + 16];
        let mut work = c.clone();
        add(
            "openssl",
            "auto",
            "decap",
            1,
            Box::new(move || {
                let n = c.len();
                work.copy_from_slice(black_box(&c));
                d.decrypt_init(None, None, Some(&iv)).expect("iv");
                d.set_tag(&tag).expect("tag");
                // SAFETY: as for encap.
                unsafe {
                    d.cipher_update_unchecked(&f2.aad, None).expect("aad");
                    d.cipher_update_unchecked(&work, Some(&mut out[..])).expect("data");
                    d.cipher_final_unchecked(&mut out[n..]).expect("tag verifies");
                }
            }),
        );
    }
    #[cfg(feature = "ipsec-mb")]
    for a in ipsec {
        if let Some(arch) = crate::ipsec_mb::Arch::parse(a) {
            for (imp, op, n, run) in crate::ipsec_mb::gcm_cases(arch, size, quick) {
                add(&imp, a, op, n, run);
            }
        }
    }
    #[cfg(not(feature = "ipsec-mb"))]
    let _ = (ipsec, quick);
    v
}

/// Runs every case for every size. `progress` gets a line per size.
pub fn run(opts: &Options, quick: bool, mut progress: impl FnMut(&str)) -> Result<Report> {
    // Figures are in TSC ticks (RDTSC); no TSC, no benchmark.
    let ghz = crate::cpu::tsc_ghz(Duration::from_millis(50))
        .ok_or_else(|| Error::Setup("wsec bench ccmp needs a constant-rate TSC (x86_64)".into()))?;
    let backends: Vec<Backend> = if opts.backends.is_empty() {
        vec![kernel::current().map_err(|e| Error::Setup(format!("{}: {e}", kernel::BACKEND_ENV)))?]
    } else {
        opts.backends.clone()
    };
    for b in &backends {
        b.check().map_err(|_| Error::Setup(format!("backend {b}: this CPU cannot run it")))?;
    }
    // ipsec-mb architectures: as asked, else `auto` and the one matching each backend.
    #[allow(unused_mut)]
    let mut ipsec: Vec<String> = opts.ipsec.clone();
    #[cfg(feature = "ipsec-mb")]
    {
        if ipsec.is_empty() {
            ipsec.push("auto".into());
            for b in &backends {
                if let Some(a) = crate::ipsec_mb::Arch::for_backend(*b) {
                    if a.supported() && !ipsec.iter().any(|x| x == a.name()) {
                        ipsec.push(a.name().into());
                    }
                }
            }
        }
        for a in &ipsec {
            let arch = crate::ipsec_mb::Arch::parse(a).ok_or_else(|| Error::Setup(format!("unknown ipsec-mb architecture {a}")))?;
            arch.init()?;
        }
    }
    #[cfg(not(feature = "ipsec-mb"))]
    ipsec.clear();
    let mut records = Vec::new();
    for &size in &opts.sizes {
        let mut cs = Vec::new();
        if opts.suites.contains(&CCMP) {
            verify(size, &backends, &ipsec)?;
            for &b in &backends {
                cs.extend(cases(size, quick, b));
            }
            cs.extend(peer_cases(size, quick, &ipsec));
        }
        if opts.suites.contains(&GCMP) {
            verify_gcm(size, &backends, &ipsec)?;
            for &b in &backends {
                cs.extend(gcm_cases(size, quick, b));
            }
            cs.extend(gcm_peer_cases(size, quick, &ipsec));
        }
        progress(&format!("{size} octets: verified all implementations, timing {} cases", cs.len()));

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
        // Rounds of `reps` interleaved samples; cases whose round was noisy are timed again
        // (all of them together, still interleaved), and each case keeps its quietest round.
        let mut rounds = vec![0usize; cs.len()];
        for round in 0..crate::stats::MAX_ROUNDS {
            let todo: Vec<usize> = (0..cs.len()).filter(|&i| round == 0 || cs[i].is_noisy()).collect();
            if todo.is_empty() {
                break;
            }
            if round > 0 {
                progress(&format!("{size} octets: round {} for {} noisy case(s)", round + 1, todo.len()));
            }
            let mut fresh: Vec<Vec<f64>> = vec![Vec::new(); cs.len()];
            for _ in 0..opts.reps {
                for &i in &todo {
                    let c = &mut cs[i];
                    let t0 = ticks();
                    for _ in 0..c.iters {
                        (c.run)();
                    }
                    let dt = ticks() - t0;
                    fresh[i].push(dt as f64 / (c.iters as f64 * c.frames as f64));
                }
            }
            for &i in &todo {
                rounds[i] += 1;
                let new = crate::stats::Summary::of(&fresh[i]).map_or(f64::INFINITY, |s| s.rel_iqr());
                let old = crate::stats::Summary::of(&cs[i].samples).map_or(f64::INFINITY, |s| s.rel_iqr());
                if new < old {
                    cs[i].samples = std::mem::take(&mut fresh[i]);
                }
            }
        }
        for (c, rounds) in cs.into_iter().zip(rounds) {
            let sum = crate::stats::Summary::of(&c.samples).ok_or_else(|| Error::Setup("no samples".into()))?;
            let mut s = c.samples.clone();
            s.sort_by(|a, b| a.total_cmp(b));
            let med = s[s.len() / 2];
            records.push(Record {
                suite: c.suite,
                backend: c.backend,
                imp: c.imp,
                op: c.op,
                frame_bytes: c.frame_bytes,
                lanes: c.lanes,
                frames_in_flight: c.frames,
                ns_per_frame: med / ghz,
                ticks_per_byte: med / c.frame_bytes as f64,
                spread: (s[s.len() - 1] - s[0]) / med,
                iqr: sum.rel_iqr(),
                q1_ns: sum.q1 / ghz,
                q3_ns: sum.q3 / ghz,
                samples: sum.n,
                rounds,
            });
        }
    }
    #[cfg(feature = "ipsec-mb")]
    let ipsec_archs: Vec<String> =
        ipsec.iter().map(|a| crate::ipsec_mb::Arch::parse(a).and_then(|x| x.init().ok()).unwrap_or_else(|| a.clone())).collect();
    #[cfg(not(feature = "ipsec-mb"))]
    let ipsec_archs: Vec<String> = Vec::new();
    Ok(Report {
        cpu: cpu_model(),
        cpu_flags: cpu_flags(),
        tsc_ghz: ghz,
        backend: backends[0].name(),
        batch_backend: backends[0].batch_name(),
        backends: backends.iter().map(|b| b.name()).collect(),
        #[cfg(feature = "ipsec-mb")]
        ipsec_mb: Some(crate::ipsec_mb::version()),
        #[cfg(not(feature = "ipsec-mb"))]
        ipsec_mb: None,
        ipsec_archs,
        records,
    })
}

/// Seed 000 Tables I and II (Intel Core i5, microseconds; the paper does not state the
/// frame size). Columns: standard, 2, 4, 8 parallel.
pub const PAPER_MIC_I5: [f64; 4] = [40.0, 29.0, 24.0, 22.0];
pub const PAPER_CTR_I5: [f64; 4] = [47.0, 35.0, 28.0, 25.0];

/// What names one measurement of a [`Report`]: suite, backend (of wsec's rows),
/// implementation, operation, frame size, lanes and frames in flight.
#[derive(Debug, Clone, Copy)]
pub struct RecordKey<'a> {
    pub suite: &'a str,
    pub backend: &'a str,
    pub imp: &'a str,
    pub op: &'a str,
    pub size: usize,
    pub lanes: usize,
    pub fif: usize,
}

impl Report {
    /// A CCMP record of the first backend (and the peers).
    pub fn find(&self, imp: &str, op: &str, size: usize, lanes: usize, fif: usize) -> Option<&Record> {
        self.find_in(&RecordKey { suite: CCMP, backend: self.backend, imp, op, size, lanes, fif })
    }

    /// The record `k` names; wsec rows on `k.backend`, peers whatever theirs.
    pub fn find_in(&self, k: &RecordKey<'_>) -> Option<&Record> {
        self.records.iter().find(|r| {
            r.suite == k.suite
                && (!r.imp.starts_with("wsec") || r.backend == k.backend)
                && r.imp == k.imp
                && r.op == k.op
                && r.frame_bytes == k.size
                && r.lanes == k.lanes
                && r.frames_in_flight == k.fif
        })
    }

    /// The fastest record matching the filter.
    pub fn best(&self, pred: impl Fn(&Record) -> bool) -> Option<&Record> {
        self.records.iter().filter(|r| pred(r)).min_by(|a, b| a.ns_per_frame.total_cmp(&b.ns_per_frame))
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "cpu": self.cpu,
            "cpu_flags": self.cpu_flags,
            "tsc_ghz": self.tsc_ghz,
            "backend": self.backend,
            "batch_backend": self.batch_backend,
            "backends": self.backends,
            "ipsec_mb": self.ipsec_mb,
            "ipsec_archs": self.ipsec_archs,
            "records": self.records.iter().map(|r| serde_json::json!({
                "suite": r.suite,
                "backend": r.backend,
                "impl": r.imp,
                "op": r.op,
                "frame_bytes": r.frame_bytes,
                "lanes": r.lanes,
                "frames_in_flight": r.frames_in_flight,
                "ns_per_frame": r.ns_per_frame,
                "ticks_per_byte": r.ticks_per_byte,
                "spread": r.spread,
                "iqr": r.iqr,
                "noisy": r.is_noisy(),
                "rounds": r.rounds,
            })).collect::<Vec<_>>(),
        })
    }

    /// The terminal tables.
    pub fn text(&self, table_size: usize) -> String {
        use std::fmt::Write;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "CPU: {} (TSC {:.3} GHz; {}); wsec backends {} (batches {} on the first){}{}",
            self.cpu,
            self.tsc_ghz,
            self.cpu_flags,
            self.backends.join(", "),
            self.batch_backend,
            self.ipsec_mb.as_ref().map(|v| format!(", ipsec-mb {v}")).unwrap_or_default(),
            if self.ipsec_archs.is_empty() { String::new() } else { format!(" managers {}", self.ipsec_archs.join(", ")) }
        );
        let _ = writeln!(
            o,
            "CCMP-128: AES-128 CCM, 8-octet MIC; GCMP-128: AES-128 GCM, 16-octet MIC; 24-octet AAD; medians; ticks = TSC ticks per payload octet\n"
        );
        if self.records.iter().any(|r| r.frame_bytes == table_size) {
            let _ = writeln!(o, "Seed 000 Table I (MIC) and Table II (CTR) on this CPU, backend {}, {table_size}-octet frames (the paper: Intel Core i5, frame size not stated)", self.backend);
            let _ = writeln!(o, "{:<6} {:>10} {:>10} {:>10} {:>10}   extra", "", "standard", "2", "4", "8");
            for (op, paper) in [("mic", PAPER_MIC_I5), ("ctr", PAPER_CTR_I5)] {
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
                let base_rec = self.find("wsec", op, table_size, 1, 1);
                for k in [1, 2, 4, 8] {
                    match (base_rec, self.find("wsec", op, table_size, k, 1)) {
                        (Some(b), Some(r)) if b.is_noisy() || r.is_noisy() => sp += &format!(" {:>10}", "noisy"),
                        (Some(b), Some(r)) => sp += &format!(" {:>9.2}x", b.ns_per_frame / r.ns_per_frame),
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
            "{:<9} {:<15} {:<8} {:<6} {:>7} {:>5} {:>6} {:>12} {:>8} {:>7} {:>5}",
            "suite", "impl", "backend", "op", "octets", "lanes", "frames", "ns/frame", "ticks/B", "spread", "IQR"
        );
        for r in &self.records {
            let _ = writeln!(
                o,
                "{:<9} {:<15} {:<8} {:<6} {:>7} {:>5} {:>6} {:>12.1} {:>8.3} {:>6.1}% {:>4.0}%{}",
                r.suite,
                r.imp,
                r.backend,
                r.op,
                r.frame_bytes,
                r.lanes,
                r.frames_in_flight,
                r.ns_per_frame,
                r.ticks_per_byte,
                100.0 * r.spread,
                100.0 * r.iqr,
                if r.is_noisy() { " noisy" } else { "" }
            );
        }
        // Ratios against the peers at each size, per suite and backend.
        let _ =
            writeln!(o, "\nspeed-ups (same run; > 1 means wsec is faster; ipsec-mb best = its fastest architecture and frames in flight):");
        let mut sizes: Vec<usize> = self.records.iter().map(|r| r.frame_bytes).collect();
        sizes.sort_unstable();
        sizes.dedup();
        for suite in [CCMP, GCMP] {
            for &b in &self.backends {
                for &s in &sizes {
                    for op in ["encap", "decap"] {
                        let one = |imp| RecordKey { suite, backend: b, imp, op, size: s, lanes: 1, fif: 1 };
                        let w1 = self.find_in(&one("wsec"));
                        if w1.is_none() {
                            continue;
                        }
                        let mb =
                            self.best(|r| r.suite == suite && r.imp == "wsec-mb" && r.backend == b && r.op == op && r.frame_bytes == s);
                        let os = self.find_in(&one("openssl"));
                        let rc = self.best(|r| r.suite == suite && r.imp.starts_with("rustcrypto") && r.op == op && r.frame_bytes == s);
                        let ip_best = self.best(|r| r.suite == suite && r.imp == "ipsec-mb" && r.op == op && r.frame_bytes == s);
                        let same = ipsec_arch_for(b);
                        let ip_same = self.best(|r| {
                            r.suite == suite && r.imp == "ipsec-mb" && Some(r.backend.as_str()) == same && r.op == op && r.frame_bytes == s
                        });
                        let mut line = format!("{suite} {b:<8} {s:>6} {op}:");
                        if let (Some(w), Some(x)) = (w1, os) {
                            line += &format!(" wsec/1 vs openssl {};", speedup(x, w));
                        }
                        if let (Some(w), Some(x)) = (w1, rc) {
                            line += &format!(" wsec/1 vs rustcrypto {};", speedup(x, w));
                        }
                        if let (Some(m), Some(x)) = (mb, os) {
                            line += &format!(" wsec-mb/{} vs openssl/1 {};", m.frames_in_flight, speedup(x, m));
                        }
                        if let (Some(m), Some(x)) = (mb, ip_same) {
                            line += &format!(
                                " wsec-mb/{} vs ipsec-mb {}/{} {};",
                                m.frames_in_flight,
                                x.backend,
                                x.frames_in_flight,
                                speedup(x, m)
                            );
                        }
                        if let (Some(m), Some(x)) = (mb, ip_best) {
                            line += &format!(
                                " wsec-mb/{} vs ipsec-mb best ({}/{}) {};",
                                m.frames_in_flight,
                                x.backend,
                                x.frames_in_flight,
                                speedup(x, m)
                            );
                        }
                        let _ = writeln!(o, "{line}");
                    }
                }
            }
        }
        o
    }
}

/// The ipsec-mb architecture compared with a wsec backend (its SSE path for AES-NI, AVX2 for
/// VAES-256, AVX-512 for AVX-512).
pub fn ipsec_arch_for(backend: &str) -> Option<&'static str> {
    match backend {
        "aesni" => Some("sse"),
        "vaes256" => Some("avx2"),
        "avx512" => Some("avx512"),
        _ => None,
    }
}
