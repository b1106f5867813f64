//! The crypto costs of this machine for the model's cost file (`wsec model costs`): the
//! host's per-frame and per-byte cost of every suite (least-squares over frame sizes), seed
//! 004's application ciphers in CBC, and the card's instruction counts of the portable code
//! under callgrind (divided by an assumed clock and IPC, docs/model.md).
use crate::error::{Error, Result};
use std::path::PathBuf;
use std::time::Instant;
use wsec::cipher::{self, Algorithm, CcmBackend, CipherSuite, KeyOptions, Protection, SuiteKey};
use wsec_model::costs::{AppCipherCost, Costs, Linear, LocationCosts, SuiteCost};

/// What `measure` measures and where it starts from.
#[derive(Clone, Debug)]
pub struct CostsConfig {
    /// Start from this cost file (None: the shipped one) for entries not measured now.
    pub base: Option<PathBuf>,
    /// Timing runs per point (the median is kept).
    pub runs: usize,
    /// Frame body sizes to fit over.
    pub sizes: Vec<usize>,
    /// Also count instructions of the portable cipher code for the card's processor.
    pub card: bool,
    /// Card processor clock (MHz) and instructions per cycle.
    pub card_clock_mhz: f64,
    pub card_ipc: f64,
    /// hw/run report for the AP hardware engine (None: hw/build/report.json if present).
    pub hw_report: Option<PathBuf>,
    /// Skip the host measurements (keep the base file's).
    pub no_host: bool,
    /// The program that runs `model count-kernel` under valgrind (the `wsec` binary).
    pub count_exe: PathBuf,
}

/// One run of the portable kernel for instruction counting (`wsec model count-kernel`).
#[derive(Clone, Copy, Debug)]
pub struct CountKernel {
    pub suite: CipherSuite,
    pub bytes: usize,
    pub frames: usize,
    pub decrypt: bool,
}

/// A plaintext MPDU with a body of `n` octets: a data frame to the DS for the data suites,
/// a group-addressed Deauthentication frame (a robust management frame) for BIP.
fn frame(suite: CipherSuite, n: usize) -> Vec<u8> {
    let mut f = if suite.is_bip() {
        vec![0xc0, 0x00, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 1, 0x10, 0]
    } else {
        vec![0x08, 0x01, 0, 0, 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 3, 0x10, 0]
    };
    f.extend((0..n).map(|i| (i * 7 + 3) as u8));
    f
}

fn protection(suite: CipherSuite, portable: bool) -> Box<dyn Protection + Send + Sync> {
    let key: Vec<u8> = (0..suite.key_len()).map(|i| (i as u8).wrapping_mul(17).wrapping_add(1)).collect();
    // The portable kernel (no AES-NI in wsec's kernel; build with `--cfg aes_force_soft`
    // so the `aes` and `aes-gcm` crates underneath use no AES-NI either) for CCMP and
    // GCMP; ECCMP keeps the detected kernel.
    let ccm_backend =
        if portable && matches!(suite.algorithm(), Algorithm::Ccm | Algorithm::Gcm) { CcmBackend::Portable } else { CcmBackend::Detect };
    SuiteKey::new(suite, &key, KeyOptions { ccm_backend, ..KeyOptions::default() }).unwrap().into_protection()
}

fn key_id(s: CipherSuite) -> u8 {
    if s.is_bip() {
        4
    } else {
        0
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// ns per frame at each size: short batches (about 0.25 ms, so that most fall between two
/// preemptions on a shared machine), the sizes interleaved round-robin so
/// that load from other processes falls on all sizes alike; the median of `runs` batches.
fn time_frames(p: &dyn Protection, suite: CipherSuite, sizes: &[usize], decrypt: bool, runs: usize) -> Vec<f64> {
    struct Point {
        plain: Vec<u8>,
        prot: Vec<u8>,
        batch: u64,
        xs: Vec<f64>,
    }
    let mut out = Vec::with_capacity(4096);
    let one = |pt: &Point, i: u64, out: &mut Vec<u8>| {
        if decrypt {
            p.decapsulate(std::hint::black_box(&pt.prot), out).unwrap();
        } else {
            p.encapsulate(std::hint::black_box(&pt.plain), i, key_id(suite), out).unwrap();
        }
        std::hint::black_box(&out);
    };
    let mut pts: Vec<Point> = sizes
        .iter()
        .map(|&n| {
            let plain = frame(suite, n);
            let mut prot = Vec::new();
            p.encapsulate(&plain, 1, key_id(suite), &mut prot).unwrap();
            Point { plain, prot, batch: 8, xs: Vec::new() }
        })
        .collect();
    for pt in pts.iter_mut() {
        loop {
            let t = Instant::now();
            for i in 0..pt.batch {
                one(pt, i, &mut out);
            }
            if t.elapsed().as_secs_f64() > 2.5e-4 || pt.batch > 1 << 22 {
                break;
            }
            pt.batch *= 2;
        }
    }
    for _ in 0..runs.max(1) {
        for pt in pts.iter_mut() {
            let t = Instant::now();
            for i in 0..pt.batch {
                one(pt, i, &mut out);
            }
            pt.xs.push(t.elapsed().as_secs_f64() * 1e9 / pt.batch as f64);
        }
    }
    pts.into_iter().map(|pt| median(pt.xs)).collect()
}

pub fn measure(a: &CostsConfig) -> Result<(Costs, String)> {
    let mut c = match &a.base {
        Some(p) => Costs::load(p)?,
        None => Costs::shipped(),
    };
    let cpu = crate::cpu::cpu_model();
    let mut report = String::new();
    let date = std::process::Command::new("date")
        .arg("-u")
        .arg("+%Y-%m-%d")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    if !a.no_host {
        let mut suites = std::collections::BTreeMap::new();
        report += &format!("host CPU: {cpu} (CCM backend {})\n", cipher::kernel::backend());
        report += &format!("{:<14} {:>12} {:>12} {:>12} {:>12}\n", "suite", "enc ns/frame", "enc ns/B", "dec ns/frame", "dec ns/B");
        for s in CipherSuite::ALL {
            let p = protection(s, false);
            let fit = |dec: bool| {
                let ts = time_frames(p.as_ref(), s, &a.sizes, dec, a.runs);
                let pts: Vec<(f64, f64)> = a.sizes.iter().zip(ts).map(|(&n, t)| (n as f64, t)).collect();
                let l = Linear::fit(&pts);
                // Worst relative residual: a noisy machine shows up here.
                let worst = pts.iter().map(|&(x, y)| ((l.a + l.b * x - y) / y).abs()).fold(0.0, f64::max);
                (l, worst)
            };
            let ((enc, we), (dec, wd)) = (fit(false), fit(true));
            let sc = SuiteCost { encrypt: enc, decrypt: dec };
            let warn =
                if we.max(wd) > 0.1 { format!("  (fit residual {:.0}%: noisy machine?)", 100.0 * we.max(wd)) } else { String::new() };
            report += &format!(
                "{:<14} {:>12.1} {:>12.3} {:>12.1} {:>12.3}{warn}\n",
                s.name(),
                sc.encrypt.a,
                sc.encrypt.b,
                sc.decrypt.a,
                sc.decrypt.b
            );
            suites.insert(s.name().to_string(), sc);
        }
        let src = format!(
            "wsec model costs on {cpu}, {date}: wsec::cipher::new_protection (CCM backend {}), body sizes {:?} octets, median of {} runs, least-squares a + b*bytes",
            cipher::kernel::backend(),
            a.sizes,
            a.runs
        );
        let host = LocationCosts { source: src.clone(), cpu: Some(cpu.clone()), suites: suites.clone(), ..Default::default() };
        c.locations.insert("host".into(), host);
        let ap = LocationCosts {
            source: format!("{src}; the AP's CPU is taken to be this machine's CPU"),
            cpu: Some(cpu.clone()),
            suites,
            ..Default::default()
        };
        c.locations.insert("ap_cpu".into(), ap);
        report += &app_ciphers(&mut c, &cpu, &date, a.runs);
    }
    if a.card {
        report += &card_costs(&mut c, a, &date)?;
    } else if let Some(card) = c.locations.get_mut("card") {
        // Keep the instruction counts; apply a new clock / IPC if given.
        if card.instructions.is_some() && (a.card_clock_mhz != 200.0 || a.card_ipc != 0.7) {
            card.clock_mhz = Some(a.card_clock_mhz);
            card.ipc = Some(a.card_ipc);
        }
    }
    let hw = a.hw_report.clone().or_else(wsec_model::costs::hw_report_path);
    if let Some(p) = hw {
        c.apply_hw_report(&p, None)?;
        report += &format!("ap_hw_engine from {}\n", p.display());
    }
    c.note = "written by `wsec model costs`; each location records its source".into();
    c.derive();
    Ok((c, report))
}

/// The application-level file ciphers of seed 004, in CBC mode as the paper ran them
/// (AES-256, DES, 3DES, RC2-64, Blowfish-256, RC6-256), timed on a 64 KiB buffer.
fn app_ciphers(c: &mut Costs, cpu: &str, date: &str, runs: usize) -> String {
    use ::cipher::{BlockDecrypt, BlockEncrypt, KeyInit};
    fn cbc_time<C: BlockEncrypt + BlockDecrypt>(c: &C, runs: usize, bs: usize) -> (f64, f64) {
        let mut buf = vec![0x5au8; 1 << 16];
        let enc = |buf: &mut [u8]| {
            let mut iv = vec![0u8; bs];
            for blk in buf.chunks_exact_mut(bs) {
                for (b, v) in blk.iter_mut().zip(&iv) {
                    *b ^= v;
                }
                c.encrypt_block(::cipher::generic_array::GenericArray::from_mut_slice(blk));
                iv.copy_from_slice(blk);
            }
        };
        let dec = |buf: &mut [u8]| {
            let mut iv = vec![0u8; bs];
            let mut next = vec![0u8; bs];
            for blk in buf.chunks_exact_mut(bs) {
                next.copy_from_slice(blk);
                c.decrypt_block(::cipher::generic_array::GenericArray::from_mut_slice(blk));
                for (b, v) in blk.iter_mut().zip(&iv) {
                    *b ^= v;
                }
                std::mem::swap(&mut iv, &mut next);
            }
        };
        let t = |f: &dyn Fn(&mut [u8]), buf: &mut Vec<u8>| {
            median(
                (0..runs.max(1))
                    .map(|_| {
                        let t0 = Instant::now();
                        f(buf);
                        t0.elapsed().as_secs_f64() * 1e9 / buf.len() as f64
                    })
                    .collect(),
            )
        };
        let e = t(&enc, &mut buf);
        let d = t(&dec, &mut buf);
        (e, d)
    }
    fn rc6_time(runs: usize) -> (f64, f64) {
        use cbc_rc6::cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
        type Rc6 = rc6::RC6<u32, cbc_rc6::cipher::consts::U20, cbc_rc6::cipher::consts::U32>;
        let k = Rc6::new_from_slice(&[7u8; 32]).unwrap();
        let mut buf = vec![0x5au8; 1 << 16];
        let mut one = |dec: bool| {
            let t0 = Instant::now();
            let mut iv = [0u8; 16];
            for blk in buf.chunks_exact_mut(16) {
                let b: &mut cbc_rc6::cipher::Block<Rc6> = blk.try_into().unwrap();
                if dec {
                    let save: [u8; 16] = (*b).into();
                    k.decrypt_block(b);
                    for (x, v) in b.iter_mut().zip(&iv) {
                        *x ^= v;
                    }
                    iv = save;
                } else {
                    for (x, v) in b.iter_mut().zip(&iv) {
                        *x ^= v;
                    }
                    k.encrypt_block(b);
                    iv = (*b).into();
                }
            }
            t0.elapsed().as_secs_f64() * 1e9 / (1 << 16) as f64
        };
        let e = median((0..runs.max(1)).map(|_| one(false)).collect());
        let d = median((0..runs.max(1)).map(|_| one(true)).collect());
        (e, d)
    }
    let mut rows: Vec<(&str, (f64, f64))> = vec![
        ("aes-256", cbc_time(&aes::Aes256::new_from_slice(&[1u8; 32]).unwrap(), runs, 16)),
        ("des", cbc_time(&des::Des::new_from_slice(&[1u8; 8]).unwrap(), runs, 8)),
        ("3des", cbc_time(&des::TdesEde3::new_from_slice(&[1u8; 24]).unwrap(), runs, 8)),
        ("rc2", cbc_time(&rc2::Rc2::new_with_eff_key_len(&[1u8; 8], 64), runs, 8)),
        ("blowfish", cbc_time(&<blowfish::Blowfish as KeyInit>::new_from_slice(&[1u8; 32]).unwrap(), runs, 8)),
    ];
    rows.push(("rc6", rc6_time(runs)));
    let mut s = format!("application ciphers (CBC, 64 KiB, ns/byte) on {cpu}:\n");
    for (name, (e, d)) in rows {
        s += &format!("  {name:<9} encrypt {e:.3}  decrypt {d:.3}\n");
        c.app_ciphers.insert(
            name.to_string(),
            AppCipherCost {
                source: format!("wsec model costs on {cpu}, {date}: RustCrypto {name} in CBC over 64 KiB, median of {runs}"),
                encrypt: Linear { a: 0.0, b: e },
                decrypt: Linear { a: 0.0, b: d },
            },
        );
    }
    s
}

/// Card costs: instructions of the portable cipher code counted by callgrind (this binary
/// re-run as `model count-kernel`), fitted over the sizes, divided by clock x IPC.
fn card_costs(c: &mut Costs, a: &CostsConfig, date: &str) -> Result<String> {
    let exe = &a.count_exe;
    let count = |suite: &str, bytes: usize, frames: usize, dec: bool| -> Result<f64> {
        let mut cmd = std::process::Command::new("valgrind");
        cmd.args(["--tool=callgrind", "--callgrind-out-file=/dev/null"]).arg(exe).args([
            "model",
            "count-kernel",
            "--suite",
            suite,
            "--bytes",
            &bytes.to_string(),
            "--frames",
            &frames.to_string(),
        ]);
        if dec {
            cmd.arg("--decrypt");
        }
        let out = cmd.output().map_err(|e| Error::Setup(format!("valgrind: {e} (install valgrind)")))?;
        let err = String::from_utf8_lossy(&out.stderr);
        let line =
            err.lines().find(|l| l.contains("Collected :")).ok_or_else(|| Error::Measure(format!("no callgrind total in: {err}")))?;
        line.rsplit(':').next().unwrap().trim().parse::<f64>().map_err(|e| Error::Measure(e.to_string()))
    };
    let sizes = [64usize, 512, 1500];
    let mut ins = std::collections::BTreeMap::new();
    let mut s = String::from("card: instructions per frame (portable code, callgrind)\n");
    for suite in CipherSuite::ALL {
        let mut fits = Vec::new();
        for dec in [false, true] {
            let mut pts = Vec::new();
            for &n in &sizes {
                let (k1, k2) = (1usize, 41usize);
                let i1 = count(suite.name(), n, k1, dec)?;
                let i2 = count(suite.name(), n, k2, dec)?;
                pts.push((n as f64, (i2 - i1) / (k2 - k1) as f64));
            }
            fits.push(Linear::fit(&pts));
        }
        s += &format!("  {:<14} enc {:.0} + {:.2}/B   dec {:.0} + {:.2}/B\n", suite.name(), fits[0].a, fits[0].b, fits[1].a, fits[1].b);
        ins.insert(suite.name().to_string(), SuiteCost { encrypt: fits[0], decrypt: fits[1] });
    }
    let portable_ok = option_env!("WSEC_PORTABLE_BUILD").is_some();
    c.locations.insert(
        "card".into(),
        LocationCosts {
            source: format!(
                "instruction counts of wsec's portable cipher code (x86-64, {}) by valgrind --tool=callgrind, {date}, sizes {:?}, fitted a + b*bytes; time = instructions / (clock_mhz x ipc), clock and IPC assumed for an embedded WLAN-card core (docs/model.md)",
                if portable_ok { "built with --cfg aes_force_soft --cfg polyval_force_soft" } else { "WARNING: not built with aes_force_soft" },
                sizes
            ),
            clock_mhz: Some(a.card_clock_mhz),
            ipc: Some(a.card_ipc),
            instructions: Some(ins),
            ..Default::default()
        },
    );
    Ok(s)
}

pub fn count_kernel(a: &CountKernel) -> Result<()> {
    let suite = a.suite;
    let p = protection(suite, true);
    let plain = frame(suite, a.bytes);
    let mut prot = Vec::new();
    p.encapsulate(&plain, 1, key_id(suite), &mut prot)?;
    let mut out = Vec::new();
    for i in 0..a.frames {
        if a.decrypt {
            p.decapsulate(std::hint::black_box(&prot), &mut out)?;
        } else {
            p.encapsulate(std::hint::black_box(&plain), i as u64 + 2, key_id(suite), &mut out)?;
        }
        std::hint::black_box(&out);
    }
    Ok(())
}
