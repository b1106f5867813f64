//! Every kernel backend the running CPU supports, forced in turn, against the portable
//! backend (RustCrypto `aes`) and the standard's vectors: single-message CCM, multi-buffer
//! batches (seal and open, tampered messages, mixed AES-128/256 keys and lengths), ECCMP
//! lanes and CTR. The set of backends the CPU supports is worked out here from CPUID
//! independently of the library, and the test FAILS if one of them was not exercised
//! (including its multi-buffer kernel, counted by `kernel::mb_runs`): on a CPU without
//! AVX-512 the VAES-256 and AES-NI kernels run, on one with AVX-512 all four. The list of
//! backends exercised is written to stderr (uncaptured), so CI logs show it.
use crate::common;
use common::h;
use rand::{rngs::StdRng, Rng, RngCore, SeedableRng};
use std::io::Write;
use wsec::cipher::ccmp::{decapsulate_batch, encapsulate_batch, Ccmp, RxItem, TxItem};
use wsec::cipher::kernel::{self, Backend, CcmJob, CcmKey};
use wsec::cipher::Protection;
use wsec::Error;

/// The backends this CPU supports, from CPUID here (not from the library's detection).
fn expected() -> Vec<Backend> {
    let mut v = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as f;
        let ni = f!("aes") && f!("pclmulqdq") && f!("ssse3") && f!("sse4.1");
        let y = ni && f!("avx") && f!("avx2") && f!("vaes") && f!("vpclmulqdq");
        let z = y && f!("avx512f") && f!("avx512vl") && f!("avx512bw");
        if z {
            v.push(Backend::Avx512);
        }
        if y {
            v.push(Backend::Vaes256);
        }
        if ni {
            v.push(Backend::AesNi);
        }
    }
    v.push(Backend::Portable);
    v
}

/// CCMP's AAD lengths (22: no QoS, 24: QoS, 28: A4, 30: A4 + QoS) and, rarely, others
/// (which take the one-at-a-time path of a batch).
fn aad_len(rng: &mut StdRng) -> usize {
    match rng.gen_range(0..20) {
        0 => *[0usize, 1, 8, 14, 31, 46, 60].get(rng.gen_range(0..7)).unwrap_or(&0),
        1 => *[15usize, 16, 29].get(rng.gen_range(0..3)).unwrap_or(&15),
        _ => *[22usize, 24, 28, 30].get(rng.gen_range(0..4)).unwrap_or(&24),
    }
}

const LENGTHS: [usize; 10] = [0, 1, 15, 16, 17, 31, 64, 100, 1500, 2304];

fn payload_len(rng: &mut StdRng) -> usize {
    match rng.gen_range(0..10) {
        0..=4 => LENGTHS[rng.gen_range(0..LENGTHS.len())],
        5 => rng.gen_range(2305..9000),
        _ => rng.gen_range(0..2305),
    }
}

struct Msg {
    key: Vec<u8>,
    nonce: [u8; 13],
    aad: Vec<u8>,
    pt: Vec<u8>,
    m: usize,
}

fn msg(rng: &mut StdRng) -> Msg {
    let key_len = if rng.gen_bool(0.7) { 16 } else { 32 };
    let mut key = vec![0u8; key_len];
    rng.fill_bytes(&mut key);
    let mut nonce = [0u8; 13];
    rng.fill_bytes(&mut nonce);
    let mut aad = vec![0u8; aad_len(rng)];
    rng.fill_bytes(&mut aad);
    let mut pt = vec![0u8; payload_len(rng)];
    rng.fill_bytes(&mut pt);
    // CCMP-128 uses M = 8, CCMP-256 M = 16; other even lengths now and then.
    let m = if rng.gen_bool(0.9) { key_len / 2 } else { 2 * rng.gen_range(2..=8) };
    Msg { key, nonce, aad, pt, m }
}

fn portable_seal(m: &Msg) -> (Vec<u8>, Vec<u8>) {
    let k = CcmKey::new_portable(&m.key).unwrap();
    let mut c = m.pt.clone();
    let mut t = vec![0u8; m.m];
    k.seal_in_place(&m.nonce, &m.aad, &mut c, &mut t).unwrap();
    (c, t)
}

/// Random batches on backend `b` (keys made through `with_backend`, the way the library's
/// callers get them) against the portable backend; returns the messages checked.
fn batches(b: Backend, rounds: usize, seed: u64) -> usize {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut checked = 0;
    for round in 0..rounds {
        let n = match round % 4 {
            0 => rng.gen_range(1..=3),
            1 => 8,
            2 => 16,
            _ => rng.gen_range(1..=24),
        };
        let msgs: Vec<Msg> = (0..n).map(|_| msg(&mut rng)).collect();
        let keys: Vec<CcmKey> = kernel::with_backend(b, || msgs.iter().map(|m| CcmKey::new(&m.key).unwrap()).collect()).unwrap();
        for k in &keys {
            assert_eq!(k.backend(), b, "with_backend({b}) made a key on {}", k.backend());
        }
        let expect: Vec<(Vec<u8>, Vec<u8>)> = msgs.iter().map(portable_seal).collect();
        let mut bufs: Vec<Vec<u8>> = msgs.iter().map(|m| m.pt.clone()).collect();
        let mut tags: Vec<Vec<u8>> = msgs.iter().map(|m| vec![0u8; m.m]).collect();
        {
            let mut jobs: Vec<CcmJob> = msgs
                .iter()
                .zip(&keys)
                .zip(bufs.iter_mut().zip(tags.iter_mut()))
                .map(|((m, k), (d, t))| CcmJob::new(k, m.nonce, &m.aad, d, t))
                .collect();
            kernel::seal_batch(&mut jobs);
            assert!(jobs.iter().all(|j| j.status.is_ok()), "{b}: seal refused");
        }
        for (i, m) in msgs.iter().enumerate() {
            let what = format!("{b} round {round} msg {i}: AES-{}, len {}, aad {}, M {}", m.key.len() * 8, m.pt.len(), m.aad.len(), m.m);
            assert!(bufs[i] == expect[i].0, "{what}: batch ciphertext differs from portable");
            assert!(tags[i] == expect[i].1, "{what}: batch tag differs from portable");
            // One at a time on the same backend.
            if i % 3 == 0 {
                let mut c = m.pt.clone();
                let mut t = vec![0u8; m.m];
                keys[i].seal_in_place(&m.nonce, &m.aad, &mut c, &mut t).unwrap();
                assert!(c == expect[i].0 && t == expect[i].1, "{what}: single seal differs");
                keys[i].open_in_place(&m.nonce, &m.aad, &mut c, &t).unwrap();
                assert!(c == m.pt, "{what}: single open differs");
            }
        }
        // Open, a quarter of the messages tampered (a tag or ciphertext bit).
        let mut bad = vec![false; n];
        for i in 0..n {
            if rng.gen_bool(0.25) {
                bad[i] = true;
                if bufs[i].is_empty() || rng.gen_bool(0.5) {
                    let bit = rng.gen_range(0..8 * tags[i].len());
                    tags[i][bit / 8] ^= 1 << (bit % 8);
                } else {
                    let bit = rng.gen_range(0..8 * bufs[i].len());
                    bufs[i][bit / 8] ^= 1 << (bit % 8);
                }
            }
        }
        let before = bufs.clone();
        {
            let mut jobs: Vec<CcmJob> = msgs
                .iter()
                .zip(&keys)
                .zip(bufs.iter_mut().zip(tags.iter_mut()))
                .map(|((m, k), (d, t))| CcmJob::new(k, m.nonce, &m.aad, d, t))
                .collect();
            kernel::open_batch(&mut jobs);
            for (i, j) in jobs.iter().enumerate() {
                let want = if bad[i] { Err(Error::MicFailure) } else { Ok(()) };
                assert_eq!(j.status, want, "{b} round {round} msg {i}: open status");
            }
        }
        for i in 0..n {
            let want = if bad[i] { &before[i] } else { &msgs[i].pt };
            assert!(&bufs[i] == want, "{b} round {round} msg {i}: data after open");
        }
        checked += n;
    }
    checked
}

/// ECCMP lanes, CTR widths and the lane seal on backend `b` against portable.
fn lanes_and_ctr(b: Backend, rounds: usize, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    for _ in 0..rounds {
        let m = msg(&mut rng);
        let aad = &m.aad[..m.aad.len().min(kernel::ECCMP_MAX_AAD)];
        let k = CcmKey::with(&m.key, b).unwrap();
        let p = CcmKey::new_portable(&m.key).unwrap();
        for lanes in kernel::ECCMP_LANES {
            assert_eq!(
                k.lane_mac(lanes, m.m, &m.nonce, aad, &m.pt),
                p.lane_mac(lanes, m.m, &m.nonce, aad, &m.pt),
                "{b}: lane MAC, {lanes} lanes, len {}",
                m.pt.len()
            );
            let (mut x, mut y) = (m.pt.clone(), m.pt.clone());
            let (mut tx, mut ty) = (vec![0u8; m.m], vec![0u8; m.m]);
            k.seal_lanes(lanes, &m.nonce, aad, &mut x, &mut tx).unwrap();
            p.seal_lanes(lanes, &m.nonce, aad, &mut y, &mut ty).unwrap();
            assert!(x == y && tx == ty, "{b}: ECCMP-{lanes} seal, len {}", m.pt.len());
            k.open_lanes(lanes, &m.nonce, aad, &mut x, &tx).unwrap();
            assert!(x == m.pt, "{b}: ECCMP-{lanes} open");
        }
        let mut want = m.pt.clone();
        p.ctr_xor_width(1, &m.nonce, &mut want).unwrap();
        for w in [1usize, 2, 4, 8, 16, 32] {
            let mut d = m.pt.clone();
            k.ctr_xor_width(w, &m.nonce, &mut d).unwrap();
            assert!(d == want, "{b}: CTR width {w}, len {}", m.pt.len());
        }
    }
}

struct Mpdu {
    tk: &'static str,
    pn: u64,
    key_id: u8,
    plain: &'static str,
    protected: &'static str,
}

/// ../shared/vectors.md 1.1 (P802.11i/D7.0 MPDUs 1, 2, 6, 7, which are the same under the
/// current AAD rule) and 1.4 (P802.11ac/D7.0 M.6.4, CCMP-256). `plain` has the Protected
/// bit clear.
const MPDUS: [Mpdu; 5] = [
    Mpdu {
        tk: "c97c1f67ce371185514a8a19f2bdd52f",
        pn: 0xB5039776E70C,
        key_id: 0,
        plain: "0808c32c0fd2e128a57c5030f1844408abaea5b8fcba8033f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050",
        protected: "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba80330ce70020769703b5f3d0a2fe9a3dbf2342a643e43246e80c3c04d0197845ce0b16f97623",
    },
    Mpdu {
        tk: "8f7a053fa577a5597529272097a603d5",
        pn: 0x31F3CBBA97EA,
        key_id: 2,
        plain: "38806a51ea100c846850eec1762c88deaf2ee9f46a07e0cc83a0634b5ed7627eb9df225e05740342de194117",
        protected: "38c06a51ea100c846850eec1762c88deaf2ee9f46a07e0ccea9700a0bacbf331814b6965d05bf2b2ed38d4beb069fe82714a610b542fbf8da06aa4ae",
    },
    Mpdu {
        tk: "f71eea4e1f58804b9717230ad0614641",
        pn: 0x6B81ECA48989,
        key_id: 1,
        plain: "8812e11f5af28430fdabbff943b9f9a6ab1d98c7fe7350713d6aabfda22d3a0bfc9cc1fc079363c2fca143e6eb1d",
        protected:
            "8852e11f5af28430fdabbff943b9f9a6ab1d98c7fe7350713d6a89890060a4ec816b9a709b60a39d40b1dfb612e18b5f114badb6cc86309a8d5c466bbb71",
    },
    Mpdu {
        tk: "1bdb34980e038124a1db1a892bec366a",
        pn: 0x5EEC4073E723,
        key_id: 3,
        plain: "183981469b50f4fd56f6efec9520169183570c4ccdee20a098beca86f4b38da20cfdf24724c58eb835665339",
        protected: "187981469b50f4fd56f6efec9520169183570c4ccdee20a023e700e07340ec5e12c537ebf3ab584ef1fef9a1f3547a8c13b3225a2d0957ecfabe95b9",
    },
    Mpdu {
        tk: "c97c1f67ce371185514a8a19f2bdd52f000102030405060708090a0b0c0d0e0f",
        pn: 0xB5039776E70C,
        key_id: 0,
        plain: "0808c32c0fd2e128a57c5030f1844408abaea5b8fcba8033f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050",
        protected: "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba80330ce70020769703b56d155d8832668256d6a92b78e11d8e54495dd17480aa56c9492e882b97642f80d50fe97b",
    },
];

/// The vectors on backend `b`, one frame at a time and as a batch of eight copies of each
/// (so the multi-buffer kernel runs them).
fn vectors(b: Backend) {
    for v in &MPDUS {
        let c = kernel::with_backend(b, || Ccmp::new(&h(v.tk)).unwrap()).unwrap();
        let (plain, prot) = (h(v.plain), h(v.protected));
        let mut out = Vec::new();
        c.encapsulate(&plain, v.pn, v.key_id, &mut out).unwrap();
        assert_eq!(hex::encode(&out), v.protected, "{b}: encapsulate");
        let mut back = Vec::new();
        c.decapsulate(&prot, &mut back).unwrap();
        assert_eq!(back, plain, "{b}: decapsulate");
        let mut tx: Vec<TxItem> = (0..8)
            .map(|_| TxItem { key: (&c).into(), mpdu: &plain, pn: v.pn, key_id: v.key_id, out: Vec::new(), status: Ok(()) })
            .collect();
        encapsulate_batch(&mut tx);
        for t in &tx {
            assert_eq!(t.status, Ok(()));
            assert_eq!(hex::encode(&t.out), v.protected, "{b}: batch encapsulate");
        }
        let mut rx: Vec<RxItem> =
            (0..8).map(|_| RxItem { key: (&c).into(), mpdu: &prot, out: Vec::new(), result: Err(Error::Truncated) }).collect();
        decapsulate_batch(&mut rx);
        for r in &rx {
            assert!(r.result.is_ok(), "{b}: batch decapsulate {:?}", r.result);
            assert_eq!(r.out, plain, "{b}: batch decapsulate");
        }
    }
}

#[test]
fn every_backend_the_cpu_supports_is_exercised_and_matches_portable() {
    let want = expected();
    assert_eq!(Backend::available(), want, "library detection differs from CPUID");
    assert_eq!(Backend::detected(), want[0], "runtime dispatch must pick the fastest backend");
    let mut exercised = Vec::new();
    for (i, &b) in want.iter().enumerate() {
        assert!(b.supported());
        let runs0 = kernel::mb_runs(b);
        vectors(b);
        let msgs = batches(b, 2500, 0xbac0_0000 + i as u64);
        lanes_and_ctr(b, 300, 0x1a9e_0000 + i as u64);
        let runs = kernel::mb_runs(b) - runs0;
        if b != Backend::Portable {
            // The multi-buffer kernel of this backend, not a fallback, ran the batches.
            assert!(runs > 5000, "{b}: its multi-buffer kernel ran only {runs} times");
        } else {
            assert_eq!(runs, 0, "portable keys have no multi-buffer kernel");
        }
        exercised.push(format!("{b} ({msgs} messages in batches, {runs} multi-buffer runs)"));
    }
    // Every backend the CPU supports was run: `want` came from CPUID, not from the library.
    assert_eq!(exercised.len(), want.len());
    let _ = writeln!(std::io::stderr(), "kernel backends exercised: {}", exercised.join(", "));
}

#[test]
fn unsupported_or_unknown_backends_are_errors() {
    let key = [5u8; 16];
    for b in Backend::ALL {
        match b.supported() {
            true => assert_eq!(CcmKey::with(&key, b).unwrap().backend(), b),
            false => {
                assert!(matches!(CcmKey::with(&key, b), Err(Error::Unsupported(_))), "{b}");
                assert!(kernel::with_backend(b, || ()).is_err(), "{b}");
                assert!(kernel::set_backend(Some(b)).is_err(), "{b}");
            }
        }
        assert_eq!(Backend::from_name(b.name()), Some(b));
        assert_eq!(b.to_string().parse::<Backend>(), Ok(b));
    }
    assert_eq!(Backend::from_name("vaes-avx512"), Some(Backend::Avx512));
    assert!(Backend::from_name("neon").is_none());
    assert!(CcmKey::new_with_backend(&key, "neon").is_err());
    // with_backend nests and restores.
    let outer = kernel::current().unwrap();
    kernel::with_backend(Backend::Portable, || {
        assert_eq!(kernel::current().unwrap(), Backend::Portable);
        assert_eq!(kernel::batch_backend(), "serial");
        assert_eq!(CcmKey::new(&key).unwrap().backend(), Backend::Portable);
    })
    .unwrap();
    assert_eq!(kernel::current().unwrap(), outer);
}

/// Child half of `env_var_forces_the_backend`: run only by it, with WSEC_BACKEND set.
#[test]
#[ignore = "run by env_var_forces_the_backend in a child process"]
fn env_child() {
    let want = std::env::var("WSEC_CHILD_EXPECT").unwrap();
    let key = [9u8; 16];
    match want.as_str() {
        "error" => {
            assert!(kernel::env_backend().is_err());
            assert!(CcmKey::new(&key).is_err(), "a bad WSEC_BACKEND must make key construction fail");
        }
        name => {
            let b = Backend::from_name(name).unwrap();
            assert_eq!(kernel::env_backend(), Ok(Some(b)));
            assert_eq!(CcmKey::new(&key).unwrap().backend(), b);
            assert_eq!(kernel::backend(), b.name());
            assert_eq!(kernel::batch_backend(), b.batch_name());
        }
    }
}

#[test]
fn env_var_forces_the_backend() {
    let exe = std::env::current_exe().unwrap();
    // The child test's name in this binary: its module path without the crate's name.
    let child = concat!(module_path!(), "::env_child").split_once("::").unwrap().1;
    let mut cases: Vec<(String, String)> = Backend::available().iter().map(|b| (b.name().to_string(), b.name().to_string())).collect();
    cases.push(("no-such-backend".into(), "error".into()));
    for b in Backend::ALL.iter().filter(|b| !b.supported()) {
        cases.push((b.name().into(), "error".into()));
    }
    for (env, expect) in cases {
        let out = std::process::Command::new(&exe)
            .args(["--ignored", "--exact", child, "--test-threads=1"])
            .env(kernel::BACKEND_ENV, &env)
            .env("WSEC_CHILD_EXPECT", &expect)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains("1 passed"), "WSEC_BACKEND={env}: {text}{}", String::from_utf8_lossy(&out.stderr));
    }
}

// ---- GCM (GCMP, BIP-GMAC) on every backend, against RustCrypto `aes-gcm` ----

use aes_gcm::aead::AeadInPlace;
use aes_gcm::KeyInit as _;
use wsec::cipher::bip::Bip;
use wsec::cipher::gcmp::Gcmp;
use wsec::cipher::kernel::{GcmJob, GcmKey};
use wsec::cipher::{AadOptions, CipherSuite};

/// RustCrypto's seal: (ciphertext, tag).
fn rc_gcm(key: &[u8], iv: &[u8; 12], aad: &[u8], pt: &[u8]) -> (Vec<u8>, [u8; 16]) {
    let mut c = pt.to_vec();
    let n = aes_gcm::Nonce::from_slice(iv);
    let t = if key.len() == 16 {
        aes_gcm::Aes128Gcm::new_from_slice(key).unwrap().encrypt_in_place_detached(n, aad, &mut c).unwrap()
    } else {
        aes_gcm::Aes256Gcm::new_from_slice(key).unwrap().encrypt_in_place_detached(n, aad, &mut c).unwrap()
    };
    (c, t.into())
}

const GCM_LENGTHS: [usize; 14] = [0, 1, 15, 16, 17, 63, 64, 127, 128, 129, 255, 256, 1500, 2304];

fn gcm_random(b: Backend, rounds: usize, seed: u64) -> usize {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut n = 0;
    for round in 0..rounds {
        let batch = if round % 3 == 0 { 1 } else { rng.gen_range(2..=12) };
        let mut keys = Vec::new();
        let mut cases = Vec::new();
        for _ in 0..batch {
            let mut key = vec![0u8; if rng.gen_bool(0.6) { 16 } else { 32 }];
            rng.fill_bytes(&mut key);
            let mut iv = [0u8; 12];
            rng.fill_bytes(&mut iv);
            let alen = match rng.gen_range(0..6) {
                0 => rng.gen_range(0..400),
                _ => *[0usize, 20, 22, 24, 28, 30].get(rng.gen_range(0..6)).unwrap_or(&22),
            };
            let mut aad = vec![0u8; alen];
            rng.fill_bytes(&mut aad);
            let len = match rng.gen_range(0..3) {
                0 => GCM_LENGTHS[rng.gen_range(0..GCM_LENGTHS.len())],
                1 => rng.gen_range(0..600),
                _ => rng.gen_range(0..17000),
            };
            let mut pt = vec![0u8; len];
            rng.fill_bytes(&mut pt);
            keys.push(kernel::with_backend(b, || GcmKey::new(&key).unwrap()).unwrap());
            cases.push((key, iv, aad, pt));
        }
        let expect: Vec<(Vec<u8>, [u8; 16])> = cases.iter().map(|(k, iv, a, p)| rc_gcm(k, iv, a, p)).collect();
        // One at a time.
        for (i, ((key, iv, aad, pt), k)) in cases.iter().zip(&keys).enumerate() {
            assert_eq!(k.backend(), b);
            let what = format!("{b} GCM-{} len {} aad {}", key.len() * 8, pt.len(), aad.len());
            let mut d = pt.clone();
            let t = k.seal_in_place(iv, aad, &mut d).unwrap();
            assert!(d == expect[i].0, "{what}: ciphertext");
            assert_eq!(t, expect[i].1, "{what}: tag");
            k.open_in_place(iv, aad, &mut d, &t).unwrap();
            assert!(&d == pt, "{what}: open");
            if aad.len() < 64 {
                assert_eq!(k.gmac(iv, aad).unwrap(), rc_gcm(key, iv, aad, &[]).1, "{what}: GMAC");
            }
        }
        // As a batch, some tampered.
        let mut bufs: Vec<Vec<u8>> = cases.iter().map(|c| c.3.clone()).collect();
        let mut tags = vec![[0u8; 16]; batch];
        {
            let mut jobs: Vec<GcmJob> = cases
                .iter()
                .zip(&keys)
                .zip(bufs.iter_mut().zip(tags.iter_mut()))
                .map(|((c, k), (d, t))| GcmJob::new(k, c.1, &c.2, d, t))
                .collect();
            kernel::gcm_seal_batch(&mut jobs);
            assert!(jobs.iter().all(|j| j.status.is_ok()));
        }
        for i in 0..batch {
            assert!(bufs[i] == expect[i].0 && tags[i] == expect[i].1, "{b}: GCM batch seal differs");
        }
        let bad: Vec<bool> = (0..batch).map(|_| rng.gen_bool(0.3)).collect();
        for i in 0..batch {
            if bad[i] {
                if bufs[i].is_empty() || rng.gen_bool(0.5) {
                    tags[i][rng.gen_range(0..16)] ^= 1 << rng.gen_range(0..8);
                } else {
                    let j = rng.gen_range(0..bufs[i].len());
                    bufs[i][j] ^= 1 << rng.gen_range(0..8);
                }
            }
        }
        let before = bufs.clone();
        {
            let mut jobs: Vec<GcmJob> = cases
                .iter()
                .zip(&keys)
                .zip(bufs.iter_mut().zip(tags.iter_mut()))
                .map(|((c, k), (d, t))| GcmJob::new(k, c.1, &c.2, d, t))
                .collect();
            kernel::gcm_open_batch(&mut jobs);
            for (i, j) in jobs.iter().enumerate() {
                assert_eq!(j.status, if bad[i] { Err(Error::MicFailure) } else { Ok(()) }, "{b}: GCM open status");
            }
        }
        for i in 0..batch {
            assert!(bufs[i] == if bad[i] { before[i].clone() } else { cases[i].3.clone() }, "{b}: GCM data after open");
        }
        n += batch;
    }
    n
}

/// GCMP and BIP-GMAC vectors of ../shared/vectors.md 2.3, 2.4 and 3 through the link-layer
/// types, keys made on backend `b`.
fn gcm_vectors(b: Backend) {
    let hdr = h("88480b000fd2e128a57c5030f18444085030f184440880330300");
    let mut plain = hdr.clone();
    plain[1] &= !0x40;
    plain.extend(h("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324252627"));
    let p128 = h("88480b000fd2e128a57c5030f18444085030f184440880330300082b00205f5f8900
        60e9700cc4d40ac6d288b201c38f5bf08b807442640a1596e5dbdad41d1f3623f45d7a12db7afb23def619c2a374b6df66ffa53b6c69d79e");
    let p256 = h("88480b000fd2e128a57c5030f18444085030f184440880330300082b00205f5f
        8900658343c8b14447d9211defd46ad89c710c6fc33333236e3997b9176a5a8b
        e779b21266555e70ad79114316859095473d5b1bd596b3dea3bf");
    for (tk, prot) in
        [("c97c1f67ce371185514a8a19f2bdd52f", p128), ("c97c1f67ce371185514a8a19f2bdd52f000102030405060708090a0b0c0d0e0f", p256)]
    {
        let g = Gcmp::with_backend(&h(tk), AadOptions::default(), b).unwrap();
        assert_eq!(g.key().backend(), b);
        let mut out = Vec::new();
        g.encapsulate(&plain, 0x00895f5f2b08, 0, &mut out).unwrap();
        assert_eq!(hex::encode(&out), hex::encode(&prot), "{b}: GCMP encapsulate");
        let mut back = Vec::new();
        g.decapsulate(&prot, &mut back).unwrap();
        assert_eq!(back, plain, "{b}: GCMP decapsulate");
    }
    let deauth = h("c0000000ffffffffffff02000000000002000000000009000200");
    for (suite, key, mic) in [
        (CipherSuite::BipGmac128, "4ea9543e09cf2b1eca66ffc58bdecbcf", "3ed862fb0f3338dd3386c897e2ed053d"),
        (CipherSuite::BipGmac256, "4ea9543e09cf2b1eca66ffc58bdecbcf000102030405060708090a0b0c0d0e0f", "23be59dcc7022ee383627ebb1017ddfc"),
    ] {
        let bip = kernel::with_backend(b, || Bip::new(suite, &h(key)).unwrap()).unwrap();
        let mut out = Vec::new();
        bip.encapsulate(&deauth, 4, 4, &mut out).unwrap();
        assert_eq!(hex::encode(&out[out.len() - 16..]), mic, "{b}: {suite}");
        let mut back = Vec::new();
        bip.decapsulate(&out, &mut back).unwrap();
    }
}

#[test]
fn gcm_on_every_backend_the_cpu_supports_matches_rustcrypto() {
    let want = expected();
    let mut exercised = Vec::new();
    for (i, &b) in want.iter().enumerate() {
        gcm_vectors(b);
        let n = gcm_random(b, 1500, 0x9c3_0000 + i as u64);
        exercised.push(format!("{b} ({n} GCM messages)"));
    }
    assert_eq!(exercised.len(), want.len());
    let _ = writeln!(std::io::stderr(), "GCM backends exercised: {}", exercised.join(", "));
}
