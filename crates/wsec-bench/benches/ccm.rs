//! AES-CCM-128 (M = 8, 22-octet AAD as CCMP uses, 13-octet nonce) throughput:
//! wsec's fused kernel against RustCrypto `ccm` and OpenSSL.
//!
//! `cargo bench -p wsec --bench ccm` (set `WSEC_BENCH_QUICK=1`, or pass `--quick`, for a
//! short smoke run). Prints the CPU, the wsec backend and a table with ns per frame and TSC
//! ticks per octet (both the median of >= 7 runs; implementations are interleaved within each
//! run so they share the machine's noise) and speed-up factors against OpenSSL and RustCrypto
//! (> 1 means faster than that implementation).
//!
//! Before timing, every implementation's ciphertext and tag are compared and every
//! implementation's decryption is checked; any difference aborts the benchmark.
//!
//! Fairness notes:
//! - Every implementation keeps its key schedule across messages.
//! - `openssl` reuses one `EVP_CIPHER_CTX` per direction (key expanded once). OpenSSL's API
//!   still forces, per message: `EVP_{En,De}cryptInit_ex(ctx, NULL, NULL, NULL, iv)` to set
//!   the nonce, the total-length `EVP_CipherUpdate(NULL, len)` call (CCM needs the length for
//!   B0 before any data), for decryption `EVP_CIPHER_CTX_ctrl(SET_TAG)`, one update for the
//!   AAD, one for the payload, `EVP_CipherFinal_ex` and for encryption `GET_TAG`. Each is a
//!   call through the provider layer (OpenSSL 3).
//! - `openssl-fresh` is what the `openssl::symm::Crypter` API costs: a new context and key
//!   expansion per message, since `Crypter` has no re-init. (`Crypter` itself cannot do
//!   M = 8 on OpenSSL 3, see [`OsslFresh`].) Shown for reference; the ratio columns compare
//!   against the reused-context `openssl` row, the faster one.
//! - Encryption runs in place for wsec and RustCrypto (same buffer each time), out of place
//!   for OpenSSL (its Rust API takes separate buffers). Decryption of wsec and RustCrypto
//!   first copies the ciphertext into the work buffer (they decrypt in place and the
//!   plaintext would not verify next time); that copy is included in their time. OpenSSL
//!   decrypts out of place from the constant ciphertext.
use ccm::aead::generic_array::GenericArray;
use ccm::aead::{AeadInPlace, KeyInit};
use ccm::consts::{U13, U8};
use openssl::cipher::Cipher as OsslCipher;
use openssl::cipher_ctx::CipherCtx;
use std::hint::black_box;
use std::time::Instant;
use wsec::cipher::kernel::{backend, CcmKey};
use wsec_bench::stats::{quietest, Ratio, Summary, MAX_ROUNDS, NOISY_IQR};

type RustCcm = ccm::Ccm<aes::Aes128, U8, U13>;

const SIZES: [usize; 4] = [64, 256, 1500, 16384];
const AAD_LEN: usize = 22;
const M: usize = 8;

#[cfg(target_arch = "x86_64")]
fn ticks() -> u64 {
    // SAFETY: RDTSC exists on every x86_64 CPU.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
fn ticks() -> u64 {
    0
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string()))
        .unwrap_or_else(|| "unknown".into())
}

/// Deterministic test bytes (no RNG needed for a benchmark).
fn bytes(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ ((i >> 8) as u8)).collect()
}

struct Fixture {
    key: [u8; 16],
    nonce: [u8; 13],
    aad: Vec<u8>,
    pt: Vec<u8>,
    ct: Vec<u8>,
    tag: [u8; M],
}

/// One implementation's encrypt and decrypt of the fixture. Each returns nothing but
/// leaves its work buffer in the state the checks read.
trait Impl {
    fn name(&self) -> &str;
    fn encrypt(&mut self, f: &Fixture, nonce: &[u8; 13]);
    /// First tag octet of the last `encrypt` (feeds the next nonce in latency mode).
    fn tag0(&self) -> u8;
    fn decrypt(&mut self, f: &Fixture) -> bool;
    /// Ciphertext || tag of the last `encrypt`.
    fn sealed(&self) -> Vec<u8>;
    /// Plaintext of the last `decrypt`.
    fn opened(&self) -> Vec<u8>;
}

struct Wsec {
    name: String,
    key: CcmKey,
    buf: Vec<u8>,
    tag: [u8; M],
}

impl Impl for Wsec {
    fn name(&self) -> &str {
        &self.name
    }
    #[inline(never)]
    fn encrypt(&mut self, f: &Fixture, nonce: &[u8; 13]) {
        self.key.seal_in_place(nonce, &f.aad, &mut self.buf, &mut self.tag).unwrap();
    }
    fn tag0(&self) -> u8 {
        self.tag[0]
    }
    #[inline(never)]
    fn decrypt(&mut self, f: &Fixture) -> bool {
        self.buf.copy_from_slice(&f.ct);
        self.key.open_in_place(&f.nonce, &f.aad, &mut self.buf, &f.tag).is_ok()
    }
    fn sealed(&self) -> Vec<u8> {
        [&self.buf[..], &self.tag[..]].concat()
    }
    fn opened(&self) -> Vec<u8> {
        self.buf.clone()
    }
}

struct Rust {
    c: RustCcm,
    buf: Vec<u8>,
    tag: [u8; M],
}

impl Impl for Rust {
    fn name(&self) -> &str {
        "rustcrypto"
    }
    #[inline(never)]
    fn encrypt(&mut self, f: &Fixture, nonce: &[u8; 13]) {
        let t = self.c.encrypt_in_place_detached(GenericArray::from_slice(nonce), &f.aad, &mut self.buf).unwrap();
        self.tag.copy_from_slice(&t);
    }
    fn tag0(&self) -> u8 {
        self.tag[0]
    }
    #[inline(never)]
    fn decrypt(&mut self, f: &Fixture) -> bool {
        self.buf.copy_from_slice(&f.ct);
        self.c
            .decrypt_in_place_detached(GenericArray::from_slice(&f.nonce), &f.aad, &mut self.buf, GenericArray::from_slice(&f.tag))
            .is_ok()
    }
    fn sealed(&self) -> Vec<u8> {
        [&self.buf[..], &self.tag[..]].concat()
    }
    fn opened(&self) -> Vec<u8> {
        self.buf.clone()
    }
}

/// OpenSSL with one reused EVP_CIPHER_CTX per direction.
struct Ossl {
    enc: CipherCtx,
    dec: CipherCtx,
    out: Vec<u8>,
    tag: [u8; M],
}

impl Ossl {
    fn new(f: &Fixture) -> Ossl {
        let c = OsslCipher::aes_128_ccm();
        let mut enc = CipherCtx::new().unwrap();
        enc.encrypt_init(Some(c), None, None).unwrap();
        enc.set_iv_length(13).unwrap();
        enc.set_tag_length(M).unwrap();
        enc.encrypt_init(None, Some(&f.key), None).unwrap();
        let mut dec = CipherCtx::new().unwrap();
        dec.decrypt_init(Some(c), None, None).unwrap();
        dec.set_iv_length(13).unwrap();
        dec.set_tag_length(M).unwrap();
        dec.decrypt_init(None, Some(&f.key), None).unwrap();
        Ossl { enc, dec, out: vec![0u8; f.pt.len() + 16], tag: [0u8; M] }
    }
}

impl Impl for Ossl {
    fn name(&self) -> &str {
        "openssl"
    }
    #[inline(never)]
    fn encrypt(&mut self, f: &Fixture, nonce: &[u8; 13]) {
        let n = f.pt.len();
        let e = &mut self.enc;
        e.encrypt_init(None, None, Some(nonce)).unwrap();
        e.set_data_len(n).unwrap();
        // SAFETY: `out` has n + 16 octets; CCM writes exactly n in update and 0 in final.
        unsafe {
            e.cipher_update_unchecked(&f.aad, None).unwrap();
            e.cipher_update_unchecked(&f.pt, Some(&mut self.out[..])).unwrap();
            e.cipher_final_unchecked(&mut self.out[n..]).unwrap();
        }
        e.tag(&mut self.tag).unwrap();
    }
    #[inline(never)]
    fn decrypt(&mut self, f: &Fixture) -> bool {
        let n = f.ct.len();
        let d = &mut self.dec;
        d.decrypt_init(None, None, Some(&f.nonce)).unwrap();
        d.set_tag(&f.tag).unwrap();
        d.set_data_len(n).unwrap();
        // SAFETY: as in `encrypt`. CCM verifies the tag inside the payload update.
        unsafe {
            d.cipher_update_unchecked(&f.aad, None).unwrap();
            let ok = d.cipher_update_unchecked(&f.ct, Some(&mut self.out[..])).is_ok();
            ok && d.cipher_final_unchecked(&mut self.out[n..]).is_ok()
        }
    }
    fn tag0(&self) -> u8 {
        self.tag[0]
    }
    fn sealed(&self) -> Vec<u8> {
        let n = self.out.len() - 16;
        [&self.out[..n], &self.tag[..]].concat()
    }
    fn opened(&self) -> Vec<u8> {
        self.out[..self.out.len() - 16].to_vec()
    }
}

/// OpenSSL as the `openssl::symm::Crypter` API uses it: a new `EVP_CIPHER_CTX` and key
/// expansion per message. (`Crypter` itself cannot be used for M = 8 on OpenSSL 3: it sets
/// key and IV before the tag length, the CCM provider fixes M at key setup, so `get_tag`
/// fails for any M other than the default 12. This does the same calls in working order.)
struct OsslFresh {
    out: Vec<u8>,
    tag: [u8; M],
}

impl OsslFresh {
    fn ctx(f: &Fixture, nonce: &[u8; 13], enc: bool) -> CipherCtx {
        let c = OsslCipher::aes_128_ccm();
        let mut x = CipherCtx::new().unwrap();
        if enc {
            x.encrypt_init(Some(c), None, None).unwrap();
        } else {
            x.decrypt_init(Some(c), None, None).unwrap();
        }
        x.set_iv_length(13).unwrap();
        if enc {
            x.set_tag_length(M).unwrap();
            x.encrypt_init(None, Some(&f.key), Some(nonce)).unwrap();
        } else {
            x.set_tag(&f.tag).unwrap();
            x.decrypt_init(None, Some(&f.key), Some(nonce)).unwrap();
        }
        x
    }
}

impl Impl for OsslFresh {
    fn name(&self) -> &str {
        "openssl-fresh"
    }
    #[inline(never)]
    fn encrypt(&mut self, f: &Fixture, nonce: &[u8; 13]) {
        let n = f.pt.len();
        let mut c = OsslFresh::ctx(f, nonce, true);
        c.set_data_len(n).unwrap();
        c.cipher_update(&f.aad, None).unwrap();
        let w = c.cipher_update(&f.pt, Some(&mut self.out)).unwrap();
        c.cipher_final(&mut self.out[w..]).unwrap();
        c.tag(&mut self.tag).unwrap();
    }
    #[inline(never)]
    fn decrypt(&mut self, f: &Fixture) -> bool {
        let n = f.ct.len();
        let mut c = OsslFresh::ctx(f, &f.nonce, false);
        c.set_data_len(n).unwrap();
        c.cipher_update(&f.aad, None).unwrap();
        match c.cipher_update(&f.ct, Some(&mut self.out)) {
            Ok(w) => c.cipher_final(&mut self.out[w..]).is_ok(),
            Err(_) => false,
        }
    }
    fn tag0(&self) -> u8 {
        self.tag[0]
    }
    fn sealed(&self) -> Vec<u8> {
        let n = self.out.len() - 16;
        [&self.out[..n], &self.tag[..]].concat()
    }
    fn opened(&self) -> Vec<u8> {
        self.out[..self.out.len() - 16].to_vec()
    }
}

fn make_impls(f: &Fixture) -> Vec<Box<dyn Impl>> {
    let n = f.pt.len();
    let mut v: Vec<Box<dyn Impl>> = Vec::new();
    let wsec = |name: String, key: CcmKey| Box::new(Wsec { name, key, buf: f.pt.clone(), tag: [0; M] }) as Box<dyn Impl>;
    v.push(wsec("wsec".into(), CcmKey::new(&f.key).unwrap()));
    for b in CcmKey::available_backends() {
        if b != backend() {
            v.push(wsec(format!("wsec-{b}"), CcmKey::new_with_backend(&f.key, b).unwrap()));
        }
    }
    v.push(Box::new(Rust { c: RustCcm::new(GenericArray::from_slice(&f.key)), buf: f.pt.clone(), tag: [0; M] }));
    v.push(Box::new(Ossl::new(f)));
    v.push(Box::new(OsslFresh { out: vec![0u8; n + 16], tag: [0; M] }));
    v
}

/// Every implementation must agree on ciphertext || tag and decrypt it back; abort if not.
fn verify(f: &Fixture, impls: &mut [Box<dyn Impl>]) {
    let expect = [&f.ct[..], &f.tag[..]].concat();
    for im in impls.iter_mut() {
        // Encrypt from the plaintext (in-place implementations start from it).
        let mut fresh = make_fresh(im.name(), f);
        fresh.encrypt(f, &f.nonce);
        if fresh.sealed() != expect {
            eprintln!("MISMATCH: {} encrypts {} octets differently", im.name(), f.pt.len());
            std::process::exit(1);
        }
        if !im.decrypt(f) || im.opened() != f.pt {
            eprintln!("MISMATCH: {} does not decrypt {} octets", im.name(), f.pt.len());
            std::process::exit(1);
        }
        // A bad tag must be refused.
        let mut bad = Fixture { key: f.key, nonce: f.nonce, aad: f.aad.clone(), pt: f.pt.clone(), ct: f.ct.clone(), tag: f.tag };
        bad.tag[0] ^= 1;
        if im.decrypt(&bad) {
            eprintln!("MISMATCH: {} accepts a bad tag", im.name());
            std::process::exit(1);
        }
    }
}

fn make_fresh(name: &str, f: &Fixture) -> Box<dyn Impl> {
    make_impls(f).into_iter().find(|i| i.name() == name).unwrap()
}

/// One timed run: `iters` calls; returns (ns per call, ticks per call).
fn run(im: &mut dyn Impl, f: &Fixture, enc: bool, iters: u64) -> (f64, f64) {
    let t0 = Instant::now();
    let c0 = ticks();
    if enc {
        for _ in 0..iters {
            im.encrypt(black_box(f), &f.nonce);
        }
    } else {
        for _ in 0..iters {
            black_box(im.decrypt(black_box(f)));
        }
    }
    let c1 = ticks();
    let ns = t0.elapsed().as_nanos() as f64;
    (ns / iters as f64, (c1 - c0) as f64 / iters as f64)
}

/// Latency mode: each message's nonce takes the previous tag's first octet, so messages
/// cannot overlap in the CPU; returns (ns per call, ticks per call).
fn run_latency(im: &mut dyn Impl, f: &Fixture, iters: u64) -> (f64, f64) {
    let mut nonce = f.nonce;
    let t0 = Instant::now();
    let c0 = ticks();
    for _ in 0..iters {
        im.encrypt(black_box(f), &nonce);
        nonce[12] = im.tag0();
    }
    let c1 = ticks();
    black_box(nonce);
    let ns = t0.elapsed().as_nanos() as f64;
    (ns / iters as f64, (c1 - c0) as f64 / iters as f64)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

struct Row {
    name: String,
    op: &'static str,
    bytes: usize,
    ns: Summary,
    tpb: f64,
}

fn main() {
    let quick =
        std::env::var("WSEC_BENCH_QUICK").map(|v| v != "0" && !v.is_empty()).unwrap_or(false) || std::env::args().any(|a| a == "--quick");
    // Time per run and number of runs (the median is over runs).
    let (run_ms, runs) = if quick { (0.5, 7) } else { (15.0, 11) };

    println!("CPU:          {}", cpu_model());
    println!("wsec backend: {} (available: {})", backend(), CcmKey::available_backends().join(", "));
    println!("OpenSSL:      {}", openssl::version::version());
    println!(
        "AES-128-CCM, M = {M}, AAD = {AAD_LEN} octets, nonce 13 octets; median of {runs} runs of ~{run_ms} ms{}",
        if quick { " (quick)" } else { "" }
    );
    println!();

    // Warm up (clock ramp, page faults, lazy init) before anything is timed.
    {
        let key = CcmKey::new(&[7u8; 16]).unwrap();
        let mut buf = vec![0u8; 1500];
        let mut tag = [0u8; M];
        let t0 = Instant::now();
        while t0.elapsed().as_millis() < if quick { 50 } else { 500 } {
            key.seal_in_place(&[1u8; 13], &[2u8; AAD_LEN], &mut buf, &mut tag).unwrap();
        }
        black_box(&buf);
    }

    let mut rows: Vec<Row> = Vec::new();
    let mut ghz = Vec::new();
    for &n in &SIZES {
        let key: [u8; 16] = bytes(16, 1).try_into().unwrap();
        let nonce: [u8; 13] = bytes(13, 2).try_into().unwrap();
        let aad = bytes(AAD_LEN, 3);
        let pt = bytes(n, 4);
        // Reference ciphertext from RustCrypto.
        let mut ct = pt.clone();
        let t = RustCcm::new(GenericArray::from_slice(&key))
            .encrypt_in_place_detached(GenericArray::from_slice(&nonce), &aad, &mut ct)
            .unwrap();
        let f = Fixture { key, nonce, aad, pt, ct, tag: t.as_slice().try_into().unwrap() };
        let mut impls = make_impls(&f);
        verify(&f, &mut impls);

        for op in ["encrypt", "decrypt", "enc-lat"] {
            let timed = |im: &mut dyn Impl, iters: u64| match op {
                "encrypt" => run(im, &f, true, iters),
                "decrypt" => run(im, &f, false, iters),
                _ => run_latency(im, &f, iters),
            };
            // Calibrate: iterations for ~run_ms per run per implementation.
            let iters: Vec<u64> = impls
                .iter_mut()
                .map(|im| {
                    timed(im.as_mut(), 50);
                    let (ns, _) = timed(im.as_mut(), 200);
                    ((run_ms * 1e6 / ns) as u64).max(20)
                })
                .collect();
            // Interleaved runs; a noisy round is rerun (stats::quietest). Ticks go with
            // their round's times: columns 0..k are ns, k..2k ticks.
            let k = impls.len();
            let (both, _) = quietest(MAX_ROUNDS, || {
                let mut cols = vec![Vec::new(); 2 * k];
                for _ in 0..runs {
                    for (j, im) in impls.iter_mut().enumerate() {
                        let (ns, tk) = timed(im.as_mut(), iters[j]);
                        cols[j].push(ns);
                        cols[k + j].push(tk);
                    }
                }
                cols
            });
            for j in 0..k {
                for (ns, tk) in both[j].iter().zip(&both[k + j]) {
                    if *tk > 0.0 {
                        ghz.push(tk / ns);
                    }
                }
            }
            for (j, im) in impls.iter().enumerate() {
                let mut tks = both[k + j].clone();
                rows.push(Row {
                    name: im.name().to_string(),
                    op,
                    bytes: n,
                    ns: Summary::of(&both[j]).expect("timed runs"),
                    tpb: median(&mut tks) / n as f64,
                });
            }
        }
    }

    println!(
        "{:<18} {:<8} {:>6} {:>11} {:>10} {:>5} {:>14} {:>14}",
        "impl", "op", "bytes", "ns/frame", "ticks/B", "IQR", "x OpenSSL", "x RustCr."
    );
    let find = |name: &str, op: &str, n: usize| rows.iter().find(|r| r.name == name && r.op == op && r.bytes == n).map(|r| r.ns);
    for r in &rows {
        let o = find("openssl", r.op, r.bytes).unwrap();
        let rc = find("rustcrypto", r.op, r.bytes).unwrap();
        println!(
            "{:<18} {:<8} {:>6} {:>11.1} {:>10.3} {:>4.0}% {:>14} {:>14}",
            r.name,
            r.op,
            r.bytes,
            r.ns.median,
            r.tpb,
            100.0 * r.ns.rel_iqr(),
            Ratio::speedup(&o, &r.ns).show(),
            Ratio::speedup(&rc, &r.ns).show()
        );
        if r.name == "openssl-fresh" {
            println!();
        }
    }
    if !ghz.is_empty() {
        println!("TSC rate ~ {:.3} GHz (ticks per ns, median)", median(&mut ghz));
    }
    println!("'x OpenSSL' / 'x RustCr.': that implementation's time divided by this row's (> 1 = this row is faster);");
    println!(
        "'noisy': the runs' IQR exceeds {:.0}% of the median (rerun up to {MAX_ROUNDS} rounds): no verdict is drawn from it.",
        100.0 * NOISY_IQR
    );
    println!("encrypt/decrypt: back-to-back messages (the CPU may overlap one message's end with the next's start);");
    println!("enc-lat: each nonce depends on the previous tag, so messages run strictly one after another.");
    println!();
    let goal = |op: &str, n: usize| -> (Ratio, Ratio) {
        let w = find("wsec", op, n).unwrap();
        (Ratio::speedup(&find("openssl", op, n).unwrap(), &w), Ratio::speedup(&find("rustcrypto", op, n).unwrap(), &w))
    };
    let (o, r) = goal("encrypt", 1500);
    println!(
        "goal: encrypt 1500 B >= 1.2x OpenSSL: {} ({}); >= 1.4x RustCrypto: {} ({})",
        o.show(),
        o.at_least(1.2),
        r.show(),
        r.at_least(1.4)
    );
    let (_, r) = goal("encrypt", 64);
    println!("goal: encrypt 64 B < half of RustCrypto's time: {} ({})", r.show(), r.at_least(2.0));
    let (o, r) = goal("decrypt", 1500);
    println!("info: decrypt 1500 B: {} OpenSSL, {} RustCrypto", o.show(), r.show());
    let (o, r) = goal("enc-lat", 1500);
    println!("info: encrypt 1500 B, latency mode: {} OpenSSL, {} RustCrypto", o.show(), r.show());
}
