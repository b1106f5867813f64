//! Per-cipher MPDU protection cost at 64, 256, 1500 and 11454 octets (the largest MPDU), with the peers run in
//! the same process on the same frames: OpenSSL (`openssl` crate) and RustCrypto (`ccm`,
//! `aes-gcm`) doing the same AEAD with the AAD and nonce precomputed (so the peers pay
//! nothing for 802.11 framing that wsec pays). Figures: median over repeated runs of
//! nanoseconds per frame and TSC ticks per octet. `WSEC_BENCH_QUICK=1` shortens the run.
use aes_gcm::aead::AeadInPlace;
use aes_gcm::{Aes128Gcm, KeyInit};
use ccm::consts::{U13, U8};
use std::hint::black_box;
use std::time::Instant;
use wsec::cipher::{new_protection, AadOptions, CipherSuite};
use wsec_bench::stats::{quietest, Summary, MAX_ROUNDS};

fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc has no preconditions.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string()))
        .unwrap_or_else(|| "unknown".into())
}

/// Median (ns/frame, ticks/octet) over `runs` runs of `iters` calls.
/// Median ns per call and ticks per octet; a noisy round (stats::NOISY_IQR) is rerun, up to
/// stats::MAX_ROUNDS, and if it stays noisy a line says so before the row (its ratio is then
/// not to be trusted).
fn measure(runs: usize, iters: usize, bytes: usize, mut f: impl FnMut()) -> (f64, f64) {
    for _ in 0..iters / 4 + 1 {
        f();
    }
    let (cols, _) = quietest(MAX_ROUNDS, || {
        let mut ns = Vec::new();
        let mut tpb = Vec::new();
        for _ in 0..runs {
            let t0 = Instant::now();
            let c0 = ticks();
            for _ in 0..iters {
                f();
            }
            let c1 = ticks();
            let dt = t0.elapsed().as_nanos() as f64;
            ns.push(dt / iters as f64);
            tpb.push((c1 - c0) as f64 / (iters * bytes) as f64);
        }
        vec![ns, tpb]
    });
    let ns = Summary::of(&cols[0]).expect("runs");
    let tpb = Summary::of(&cols[1]).expect("runs");
    if ns.is_noisy() {
        println!("  (next row noisy: runs spread {:.0}% (IQR) after {MAX_ROUNDS} rounds; its ratio is not a result)", 100.0 * ns.rel_iqr());
    }
    (ns.median, tpb.median)
}

fn qos_frame(len: usize) -> Vec<u8> {
    let mut f = vec![0x88, 0x01, 0x2c, 0x00];
    f.extend([0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 3, 0x10, 0x00, 0x03, 0x00]);
    f.extend((0..len).map(|i| i as u8));
    f
}

fn main() {
    let quick = std::env::var("WSEC_BENCH_QUICK").is_ok_and(|v| v != "0");
    let (runs, budget) = if quick { (3, 2_000_000usize) } else { (9, 60_000_000usize) };
    println!("wsec frames benchmark: CPU {}; CCM kernel backend {}", cpu_model(), wsec::cipher::kernel::backend());
    println!("{} runs per cell, median; rustcrypto/openssl rows: the bare AEAD with AAD and nonce precomputed", runs);
    println!("rc-ccmp/ossl-ccmp rows: that AEAD under wsec's 802.11 framing (the same per-frame work as the wsec row)");
    println!("{:<10} {:<10} {:>6} {:>12} {:>10} {:>10}", "suite", "impl", "bytes", "ns/frame", "ticks/B", "vs wsec");
    let tk32: Vec<u8> = (0..32u8).collect();
    // WSEC_BENCH_SUITES=ccmp,gcmp limits the run to those suites.
    let only: Option<Vec<String>> = std::env::var("WSEC_BENCH_SUITES").ok().map(|v| v.split(',').map(str::to_string).collect());
    for suite in [
        CipherSuite::Ccmp128,
        CipherSuite::Ccmp256,
        CipherSuite::Gcmp128,
        CipherSuite::Gcmp256,
        CipherSuite::Tkip,
        CipherSuite::Wep104,
        CipherSuite::BipCmac128,
        CipherSuite::BipGmac128,
    ] {
        if only.as_ref().is_some_and(|o| !o.iter().any(|n| n == suite.name())) {
            continue;
        }
        // 11454 = the largest 802.11 MPDU body; the 16384-octet CCM figure is in benches/ccm.rs.
        for &len in &[64usize, 256, 1500, 11454] {
            let key = &tk32[..suite.key_len()];
            let p = new_protection(suite, key, AadOptions::default()).unwrap();
            let frame = if suite.is_bip() {
                let mut f = vec![0xd0, 0x00, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
                f.extend([0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 3, 0x10, 0x00]);
                // The MME (up to 26 octets) must fit in the largest MPDU body too.
                f.extend((0..len.min(wsec::cipher::MAX_MPDU_BODY - 26)).map(|i| i as u8));
                f
            } else {
                qos_frame(len)
            };
            let iters = (budget / (len + 64)).max(50);
            let mut out = Vec::with_capacity(len + 128);
            let mut pn = 1u64;
            let key_id = if suite.is_bip() { 4 } else { 0 };
            let (ns, tpb) = measure(runs, iters, len, || {
                pn += 1;
                p.encapsulate(black_box(&frame), pn & 0xffffff, key_id, &mut out).unwrap();
                black_box(&out);
            });
            println!("{:<10} {:<10} {:>6} {:>12.1} {:>10.3} {:>10}", suite.name(), "wsec", len, ns, tpb, "1.00");
            let mut prot = Vec::new();
            p.encapsulate(&frame, 7, key_id, &mut prot).unwrap();
            let mut back = Vec::with_capacity(len + 64);
            let (ns_d, tpb_d) = measure(runs, iters, len, || {
                p.decapsulate(black_box(&prot), &mut back).unwrap();
                black_box(&back);
            });
            println!("{:<10} {:<10} {:>6} {:>12.1} {:>10.3} {:>10}", suite.name(), "wsec-dec", len, ns_d, tpb_d, "");
            peers(suite, key, len, runs, iters, ns);
            framed_peers(suite, key, &frame, runs, iters, ns);
            batched(suite, &frame, runs, iters, ns);
        }
    }
}

/// The peers of CCMP-128 and GCMP-128 on the same body, AAD (30 octets of QoS AAD) and nonce.
fn peers(suite: CipherSuite, key: &[u8], len: usize, runs: usize, iters: usize, wsec_ns: f64) {
    let aad = [0x88u8; 24];
    let mut body = vec![0x5au8; len];
    let row = |name: &str, (ns, tpb): (f64, f64)| {
        println!("{:<10} {:<10} {:>6} {:>12.1} {:>10.3} {:>10.2}", suite.name(), name, len, ns, tpb, ns / wsec_ns);
    };
    match suite {
        CipherSuite::Ccmp128 => {
            let rc = ccm::Ccm::<aes::Aes128, U8, U13>::new_from_slice(key).unwrap();
            let nonce = [1u8; 13];
            row(
                "rustcrypto",
                measure(runs, iters, len, || {
                    black_box(rc.encrypt_in_place_detached((&nonce).into(), &aad, &mut body).unwrap());
                }),
            );
            // One EVP_CIPHER_CTX reused across messages (key expanded once); OpenSSL's CCM
            // fixes nonce and message length per message.
            let c = openssl::cipher::Cipher::aes_128_ccm();
            let mut e = openssl::cipher_ctx::CipherCtx::new().unwrap();
            e.encrypt_init(Some(c), None, None).unwrap();
            e.set_iv_length(13).unwrap();
            e.set_tag_length(8).unwrap();
            e.encrypt_init(None, Some(key), None).unwrap();
            let mut out = vec![0u8; len + 16];
            row(
                "openssl",
                measure(runs, iters, len, || {
                    e.encrypt_init(None, None, Some(&nonce)).unwrap();
                    e.set_data_len(len).unwrap();
                    e.cipher_update(&aad, None).unwrap();
                    let n = e.cipher_update(&body, Some(&mut out)).unwrap();
                    e.cipher_final(&mut out[n..]).unwrap();
                    let mut tag = [0u8; 8];
                    e.tag(&mut tag).unwrap();
                    black_box(tag);
                }),
            );
        }
        CipherSuite::Gcmp128 => {
            let rc = Aes128Gcm::new_from_slice(key).unwrap();
            let nonce = [1u8; 12];
            row(
                "rustcrypto",
                measure(runs, iters, len, || {
                    black_box(rc.encrypt_in_place_detached((&nonce).into(), &aad, &mut body).unwrap());
                }),
            );
            let c = openssl::cipher::Cipher::aes_128_gcm();
            let mut e = openssl::cipher_ctx::CipherCtx::new().unwrap();
            e.encrypt_init(Some(c), Some(key), None).unwrap();
            let mut out = vec![0u8; len + 16];
            row(
                "openssl",
                measure(runs, iters, len, || {
                    e.encrypt_init(None, None, Some(&nonce)).unwrap();
                    e.cipher_update(&aad, None).unwrap();
                    let n = e.cipher_update(&body, Some(&mut out)).unwrap();
                    e.cipher_final(&mut out[n..]).unwrap();
                    let mut tag = [0u8; 16];
                    e.tag(&mut tag).unwrap();
                    black_box(tag);
                }),
            );
        }
        _ => {}
    }
}

/// The peers' AEADs under wsec's own 802.11 framing (`cipher::mpdu::encapsulate`): the same
/// work per frame as `wsec` (header checks, AAD, nonce, output MPDU), so the ratio isolates
/// the AEAD. Rows `*-ccmp`.
fn framed_peers(suite: CipherSuite, key: &[u8], frame: &[u8], runs: usize, iters: usize, wsec_ns: f64) {
    use wsec::cipher::mpdu;
    if suite != CipherSuite::Ccmp128 {
        return;
    }
    let len = frame.len() - 26;
    let row = |name: &str, (ns, tpb): (f64, f64)| {
        println!("{:<10} {:<10} {:>6} {:>12.1} {:>10.3} {:>10.2}", suite.name(), name, len, ns, tpb, ns / wsec_ns);
    };
    let opts = AadOptions::default();
    let mut out = Vec::with_capacity(frame.len() + 16);
    let rc = ccm::Ccm::<aes::Aes128, U8, U13>::new_from_slice(key).unwrap();
    let mut pn = 1u64;
    row(
        "rc-ccmp",
        measure(runs, iters, len, || {
            pn += 1;
            mpdu::encapsulate(black_box(frame), pn, 0, 8, opts, &mut out, |n, aad, data, mic| {
                let t = rc.encrypt_in_place_detached((&n.ccm(pn)).into(), aad.as_bytes(), data).unwrap();
                mic.copy_from_slice(&t);
                Ok(())
            })
            .unwrap();
            black_box(&out);
        }),
    );
    let c = openssl::cipher::Cipher::aes_128_ccm();
    let mut e = openssl::cipher_ctx::CipherCtx::new().unwrap();
    e.encrypt_init(Some(c), None, None).unwrap();
    e.set_iv_length(13).unwrap();
    e.set_tag_length(8).unwrap();
    e.encrypt_init(None, Some(key), None).unwrap();
    let mut ct = vec![0u8; len + 16];
    row(
        "ossl-ccmp",
        measure(runs, iters, len, || {
            pn += 1;
            mpdu::encapsulate(black_box(frame), pn, 0, 8, opts, &mut out, |n, aad, data, mic| {
                e.encrypt_init(None, None, Some(&n.ccm(pn))).unwrap();
                e.set_data_len(data.len()).unwrap();
                e.cipher_update(aad.as_bytes(), None).unwrap();
                let k = e.cipher_update(data, Some(&mut ct)).unwrap();
                e.cipher_final(&mut ct[k..]).unwrap();
                data.copy_from_slice(&ct[..data.len()]);
                e.tag(mic).unwrap();
                Ok(())
            })
            .unwrap();
            black_box(&out);
        }),
    );
}

/// CCMP-128 through `ccmp::encapsulate_batch`: batches of 8 and 16 frames, each with its own
/// key (a station's or an AP's transmit queue), time per frame.
fn batched(suite: CipherSuite, frame: &[u8], runs: usize, iters: usize, wsec_ns: f64) {
    use wsec::cipher::ccmp::{encapsulate_batch, Ccmp, TxItem};
    if suite != CipherSuite::Ccmp128 {
        return;
    }
    let len = frame.len() - 26;
    for n in [8usize, 16] {
        let keys: Vec<Ccmp> = (0..n).map(|i| Ccmp::new(&[i as u8 + 1; 16]).unwrap()).collect();
        let mut items: Vec<TxItem> = keys
            .iter()
            .map(|k| TxItem { key: k.into(), mpdu: frame, pn: 1, key_id: 0, out: Vec::with_capacity(frame.len() + 16), status: Ok(()) })
            .collect();
        let (ns, tpb) = measure(runs, (iters / n).max(10), len * n, || {
            for it in items.iter_mut() {
                it.pn += 1;
            }
            encapsulate_batch(black_box(&mut items));
        });
        let name = format!("wsec-mb{n}");
        let per = ns / n as f64;
        println!("{:<10} {:<10} {:>6} {:>12.1} {:>10.3} {:>10.2}", suite.name(), name, len, per, tpb, per / wsec_ns);
    }
}
