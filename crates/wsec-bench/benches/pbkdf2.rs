//! Passphrase -> PMK (PBKDF2-HMAC-SHA1, 4096 iterations, 32 octets; IEEE 802.11-2020 J.4.1)
//! per second on one core: wsec (one passphrase at a time, the batch API, and the portable
//! backend) against RustCrypto `pbkdf2` (`pbkdf2_hmac::<sha1::Sha1>`, whose `sha1` uses
//! SHA-NI when the CPU has it) and OpenSSL (`PKCS5_PBKDF2_HMAC` with SHA-1).
//!
//! `cargo bench -p wsec --bench pbkdf2` (`WSEC_BENCH_QUICK=1`, or `--quick`, for a short
//! smoke run). Prints the CPU, whether wsec uses SHA-NI, and a table of PMKs per second
//! (median of the runs, with the slowest and fastest run) and ratios against RustCrypto
//! and OpenSSL (> 1 means wsec is faster). All implementations run in the same process,
//! on the same thread, interleaved within each run so that they share the machine's noise.
//!
//! Before timing, every implementation's PMK of every passphrase is compared (and the
//! IEEE J.4.1 vector checked); any difference aborts the benchmark.
use std::hint::black_box;
use std::time::Instant;
use wsec::rsn::pbkdf2 as wp;
use wsec_bench::stats::{quietest, Ratio, Summary, MAX_ROUNDS, NOISY_IQR};

fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|l| l.split(':').next().map(str::trim) == Some(name))
            .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
    };
    match (field("model name"), field("cpu family"), field("model")) {
        (Some(m), Some(f), Some(n)) => format!("{m} (family {f}, model {n})"),
        (Some(m), _, _) => m,
        _ => "unknown".into(),
    }
}

fn has_sha_ni() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("sha")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Deterministic passphrases of 8..=63 printable characters.
fn passphrases(n: usize) -> Vec<Vec<u8>> {
    let mut x: u32 = 0x1234_5678;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    (0..n)
        .map(|_| {
            let len = 8 + (next() % 56) as usize;
            (0..len).map(|_| 32 + (next() % 95) as u8).collect()
        })
        .collect()
}

type Pmk = [u8; 32];
/// Computes the PMKs of the passphrases for one SSID.
type RunFn = Box<dyn Fn(&[Vec<u8>], &[u8]) -> Vec<Pmk>>;

struct Peer {
    name: String,
    run: RunFn,
}

fn peers() -> Vec<Peer> {
    let default = wp::batch_plan();
    let mut v = vec![Peer {
        name: format!("wsec batch (psk_batch: {})", default.name()),
        run: Box::new(|ps, ssid| {
            let refs: Vec<&[u8]> = ps.iter().map(|p| p.as_slice()).collect();
            wp::psk_batch(&refs, ssid).into_iter().map(|r| r.expect("valid passphrase")).collect()
        }),
    }];
    // Every other batch plan this CPU has (the default was measured fastest of these when
    // the process first needed it; the table shows whether that still holds).
    for plan in wp::batch_plans() {
        if plan != default && plan.backend != wp::Backend::Portable {
            v.push(Peer {
                name: format!("wsec batch, {}", plan.name()),
                run: Box::new(move |ps, ssid| {
                    let refs: Vec<&[u8]> = ps.iter().map(|p| p.as_slice()).collect();
                    wp::psk_batch_plan(plan, &refs, ssid).into_iter().map(|r| r.expect("valid")).collect()
                }),
            });
        }
    }
    v.push(Peer {
        name: "wsec single (psk_from_passphrase)".into(),
        run: Box::new(|ps, ssid| ps.iter().map(|p| wp::psk_from_passphrase(p, ssid).expect("valid")).collect()),
    });
    v.push(Peer {
        name: "wsec portable (scalar, single)".into(),
        run: Box::new(|ps, ssid| ps.iter().map(|p| wp::psk_from_passphrase_portable(p, ssid).expect("valid")).collect()),
    });
    v.push(Peer {
        name: RUSTCRYPTO.into(),
        run: Box::new(|ps, ssid| {
            ps.iter()
                .map(|p| {
                    let mut out = [0u8; 32];
                    pbkdf2::pbkdf2_hmac::<sha1::Sha1>(p, ssid, 4096, &mut out);
                    out
                })
                .collect()
        }),
    });
    v.push(Peer {
        name: OPENSSL.into(),
        run: Box::new(|ps, ssid| {
            ps.iter()
                .map(|p| {
                    let mut out = [0u8; 32];
                    openssl::pkcs5::pbkdf2_hmac(p, ssid, 4096, openssl::hash::MessageDigest::sha1(), &mut out).expect("openssl pbkdf2");
                    out
                })
                .collect()
        }),
    });
    v
}

const RUSTCRYPTO: &str = "RustCrypto pbkdf2 0.12 + sha1";
const OPENSSL: &str = "OpenSSL PKCS5_PBKDF2_HMAC";

fn main() {
    let quick = std::env::var_os("WSEC_BENCH_QUICK").is_some_and(|v| v != "0") || std::env::args().any(|a| a == "--quick");
    // Passphrases per timed run, and runs.
    let (n, runs) = if quick { (16, 3) } else { (64, 9) };
    let ssid = b"linksys-home-network";
    let ps = passphrases(n);
    let peers = peers();

    println!("PBKDF2-HMAC-SHA1 passphrase -> PMK (4096 iterations, 32 octets), one thread");
    println!("CPU: {}", cpu_model());
    println!(
        "CPU has SHA-NI: {}; wsec backend: {} (one passphrase), batch plan {} (measured fastest at start); OpenSSL: {}",
        if has_sha_ni() { "yes" } else { "no" },
        wp::backend().name(),
        wp::batch_plan().name(),
        openssl::version::version()
    );
    println!("{} passphrases (8..63 chars) per run, {} runs{}", n, runs, if quick { " (quick)" } else { "" });

    // Correctness first: the J.4.1 vector, then every peer agrees on every passphrase.
    let ieee = wp::psk_from_passphrase(b"password", b"IEEE").unwrap();
    assert_eq!(hex(&ieee), "f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e");
    let rc_i = peers.iter().position(|p| p.name == RUSTCRYPTO).unwrap();
    let ossl_i = peers.iter().position(|p| p.name == OPENSSL).unwrap();
    let single_i = peers.iter().position(|p| p.name.starts_with("wsec single")).unwrap();
    let reference = (peers[rc_i].run)(&ps, ssid);
    for p in &peers {
        let got = (p.run)(&ps, ssid);
        assert!(got == reference, "{} disagrees with RustCrypto", p.name);
    }
    println!("all {} implementations agree on all {} PMKs", peers.len(), n);

    // Warm-up, then interleaved timed runs; a round whose figures are noisy is run again
    // (up to stats::MAX_ROUNDS) and the quietest round is kept.
    for p in &peers {
        black_box((p.run)(&ps[..2.min(n)], ssid));
    }
    let (rates, rounds) = quietest(MAX_ROUNDS, || {
        let mut rates: Vec<Vec<f64>> = vec![Vec::new(); peers.len()];
        for r in 0..runs {
            // Rotate the order each run so that no implementation always goes first.
            for k in 0..peers.len() {
                let i = (k + r) % peers.len();
                let t0 = Instant::now();
                black_box((peers[i].run)(black_box(&ps), black_box(ssid)));
                let dt = t0.elapsed().as_secs_f64();
                rates[i].push(n as f64 / dt);
            }
        }
        rates
    });
    let sums: Vec<Summary> = rates.iter().map(|v| Summary::of(v).expect("timed runs")).collect();
    let (rc, ossl) = (sums[rc_i], sums[ossl_i]);
    println!("{rounds} round(s) of {runs} runs (a round is rerun while a figure's IQR exceeds {:.0}% of its median)", 100.0 * NOISY_IQR);
    println!();
    println!(
        "| {:<40} | {:>9} | {:>19} | {:>5} | {:>14} | {:>14} |",
        "implementation", "PMK/s", "min..max PMK/s", "IQR", "vs RustCrypto", "vs OpenSSL"
    );
    println!("|{:-<42}|{:->11}|{:->21}|{:->7}|{:->16}|{:->16}|", "", "", "", "", "", "");
    for (i, p) in peers.iter().enumerate() {
        let s = &sums[i];
        println!(
            "| {:<40} | {:>9.0} | {:>19} | {:>4.0}% | {:>14} | {:>14} |",
            p.name,
            s.median,
            format!("{:.0}..{:.0}", s.min, s.max),
            100.0 * s.rel_iqr(),
            Ratio::of_rates(s, &rc).show(),
            Ratio::of_rates(s, &ossl).show()
        );
    }
    println!();
    let batch = Ratio::of_rates(&sums[0], &rc);
    println!(
        "goal >= 2x RustCrypto per core: batch {}, single {} -> {}",
        batch.show(),
        Ratio::of_rates(&sums[single_i], &rc).show(),
        batch.at_least(2.0)
    );
    // The default is never slower than another path on this CPU. Judged against the fastest
    // alternative wsec path (within 10 %: two equal paths are not a failure).
    if let Some((alt, s)) =
        peers.iter().zip(&sums).skip(1).filter(|(p, _)| p.name.starts_with("wsec")).max_by(|a, b| a.1.median.total_cmp(&b.1.median))
    {
        let r = Ratio::of_rates(&sums[0], s);
        println!("default batch vs the fastest other wsec path ({}): {} -> >= 0.9x {}", alt.name, r.show(), r.at_least(0.9));
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
