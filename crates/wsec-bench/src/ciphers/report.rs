//! What a run means: the terminal report, `--json` records, the ranking beside the paper's
//! with the reason for each difference, and the plots.
use super::data::DataType;
use super::impls::{Algorithm, Spec};
use super::paper;
use super::run::{Measurement, Op, Results, Scenario};
use crate::energy::{fmt_g, Battery, Method};
use serde::Serialize;
use std::fmt::Write;

/// One `--json` record: the fixed fields (`cipher`, `key_bits`, `mode`, `op`, `bytes`,
/// `mb_per_s`, `uj_per_byte`, `energy_method`) and context after them.
#[derive(Clone, Debug, Serialize)]
pub struct Record {
    /// [`Algorithm::name`]: "AES" (AES instructions), "AES-soft", "DES", "3DES", "RC2",
    /// "Blowfish", "RC6", "AES-GCM", "ChaCha20-Poly1305".
    pub cipher: &'static str,
    pub key_bits: u32,
    /// "cbc-pkcs7" or "aead".
    pub mode: &'static str,
    /// "encrypt" or "decrypt".
    pub op: &'static str,
    /// File or packet size, plaintext octets.
    pub bytes: usize,
    /// Median throughput, 10^6 plaintext octets per second.
    pub mb_per_s: f64,
    /// Median energy per plaintext octet, microjoules.
    pub uj_per_byte: f64,
    /// "rapl" (measured) or "eq7-model" (seed 004's equation 7).
    pub energy_method: &'static str,
    /// "file" or "packet".
    pub scenario: Scenario,
    /// "text", "audio" or "image".
    pub data: DataType,
    /// Crate and backend that ran.
    pub implementation: &'static str,
    /// Number of runs and the range of their throughputs.
    pub runs: usize,
    pub mb_per_s_min: f64,
    pub mb_per_s_max: f64,
    /// Median TSC ticks per octet (absent without a TSC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ticks_per_byte: Option<f64>,
    /// Percent of `battery` per 10^9 octets at `uj_per_byte`.
    pub battery_pct_per_gb: f64,
}

/// The records of a run, one per measurement.
pub fn records(r: &Results, battery: &Battery) -> Vec<Record> {
    r.measurements
        .iter()
        .map(|m| Record {
            cipher: m.spec.alg.name(),
            key_bits: m.spec.key_bits,
            mode: m.spec.mode().as_str(),
            op: m.op.as_str(),
            bytes: m.bytes,
            mb_per_s: m.mb_per_s.median,
            uj_per_byte: m.uj_per_byte.median,
            energy_method: r.energy_method.as_str(),
            scenario: m.scenario,
            data: m.data,
            implementation: m.spec.alg.implementation(),
            runs: m.mb_per_s.n,
            mb_per_s_min: m.mb_per_s.min,
            mb_per_s_max: m.mb_per_s.max,
            ticks_per_byte: m.ticks_per_byte.map(|t| t.median),
            battery_pct_per_gb: battery.percent_per_gb(m.uj_per_byte.median),
        })
        .collect()
}

/// A ranking of the paper's six ciphers on one figure of merit.
#[derive(Clone, Debug, Serialize)]
pub struct Ranking {
    pub op: Op,
    /// Which data the figure is the median over ("text files", ...).
    pub over: String,
    /// The specs, fastest first, with their median MB/s.
    pub measured: Vec<(Spec, f64)>,
}

/// The paper's six in its setting, with AES as `aes` (`Algorithm::Aes` for AES
/// instructions, `Algorithm::AesSoft` for the portable code), ranked by median throughput
/// over the files of `data` (every type when `None`). Specs not in `r` are left out.
pub fn ranking(r: &Results, op: Op, aes: Algorithm, data: Option<DataType>) -> Ranking {
    let mut measured: Vec<(Spec, f64)> = paper::SPECS
        .iter()
        .map(|s| if s.alg == Algorithm::Aes { Spec::new(aes, s.key_bits) } else { *s })
        .filter_map(|s| r.file_mbps(s, op, data).map(|v| (s, v)))
        .collect();
    measured.sort_by(|a, b| b.1.total_cmp(&a.1));
    let over = match data {
        Some(d) => format!("{} files", d.as_str()),
        None => "all files".into(),
    };
    Ranking { op, over, measured }
}

/// Rank (1-based) of `alg` in the paper (AES-soft counts as AES).
pub fn paper_rank(alg: Algorithm) -> Option<usize> {
    let a = if alg == Algorithm::AesSoft { Algorithm::Aes } else { alg };
    paper::RANKING.iter().position(|&x| x == a).map(|i| i + 1)
}

/// Why `spec` sits where it does today, with this run's numbers (ticks per octet when the
/// TSC is there, else MB/s).
pub fn explanation(r: &Results, spec: Spec) -> String {
    let cost = |s: Spec, op: Op| -> String {
        match r.file_ticks(s, op) {
            Some(t) => format!("{} ticks/octet", fmt_g(t)),
            None => r.file_mbps(s, op, None).map(|v| format!("{} MB/s", fmt_g(v))).unwrap_or_else(|| "-".into()),
        }
    };
    let (enc, dec) = (cost(spec, Op::Encrypt), cost(spec, Op::Decrypt));
    let ratio = |a: Spec, b: Spec| -> Option<f64> { Some(r.file_mbps(b, Op::Encrypt, None)? / r.file_mbps(a, Op::Encrypt, None)?) };
    match spec.alg {
        Algorithm::Aes if crate::cpu::has_hw_aes() => format!(
            "{spec} runs on the CPU's AES instructions: {enc} encrypting, {dec} decrypting. CBC \
             encryption is a chain (each block waits for the previous one's {} rounds), \
             decryption runs 8 blocks in parallel. The paper's AES (2009, .NET on Windows XP \
             laptops) was table-driven software: AES-NI first shipped in 2010.",
            rounds(spec.key_bits)
        ),
        Algorithm::Aes => format!(
            "{spec}: this CPU has no AES instructions, so `aes` 0.8 ran its portable code: \
             {enc} encrypting, {dec} decrypting."
        ),
        Algorithm::AesSoft => format!(
            "{spec} (portable, fixsliced, constant-time): {enc} encrypting, {dec} decrypting. \
             The bitsliced code computes 4 blocks per call; CBC encryption can use only one, \
             decryption uses all. A table-driven AES as the paper's was is faster on one \
             block but leaks its key through cache timing."
        ),
        Algorithm::Blowfish => {
            let ks = r
                .key_setup
                .iter()
                .find(|k| k.spec == spec)
                .map(|k| {
                    format!(
                        " Its key schedule encrypts 521 blocks to fill the S-boxes: {} ns, the \
                         costliest setup here; if the paper rekeyed per file, that cost fell on \
                         Blowfish, not RC2.",
                        fmt_g(k.ns.median)
                    )
                })
                .unwrap_or_default();
            format!(
                "{spec}: 16 Feistel rounds, each four lookups in 4 KiB of key-dependent S-boxes, \
                 on 8-octet blocks: {enc} encrypting, {dec} decrypting. It beat the paper's \
                 software AES; it cannot beat an AES instruction.{ks}"
            )
        }
        Algorithm::Rc6 => format!(
            "{spec}: 20 rounds of 32-bit multiplications and data-dependent rotations, both one \
             fast instruction on today's CPUs: {enc} encrypting, {dec} decrypting."
        ),
        Algorithm::Des => format!(
            "{spec}: 16 rounds of bit permutations and S-box lookups done in software: {enc} \
             encrypting, {dec} decrypting."
        ),
        Algorithm::TripleDes => {
            let x = ratio(spec, Spec::new(Algorithm::Des, 64)).map(|x| format!("; DES is {}x as fast", fmt_g(x)));
            format!("{spec}: three DES passes per block: {enc} encrypting, {dec} decrypting{}.", x.unwrap_or_default())
        }
        Algorithm::Rc2 => {
            let ks = r.key_setup.iter().find(|k| k.spec == spec).map(|k| k.ns.median);
            let pkt = r
                .measurements
                .iter()
                .find(|m| m.spec == spec && m.op == Op::Encrypt && m.scenario == Scenario::Packet && m.bytes == 64)
                .map(|m| 64.0 / (m.mb_per_s.median * 1e6) * 1e9);
            let setup = match (ks, pkt) {
                (Some(k), Some(p)) => format!(
                    " Its key expansion, which the paper blamed for RC2's slowness on small data, \
                     takes {} ns here, against {} ns to encrypt a 64-octet packet; the \
                     benchmark keeps the key schedule across files and packets, as any \
                     link layer does.",
                    fmt_g(k),
                    fmt_g(p)
                ),
                (Some(k), None) => format!(" Its key expansion takes {} ns.", fmt_g(k)),
                _ => String::new(),
            };
            format!("{spec}: 18 rounds of 16-bit mix and mash steps: {enc} encrypting, {dec} decrypting.{setup}")
        }
        Algorithm::AesGcm => format!(
            "{spec}: AES in counter mode (parallel) with GHASH on carry-less multiplication: \
             {enc} encrypting, {dec} decrypting, and authenticated, which CBC is not."
        ),
        Algorithm::ChaCha20Poly1305 => format!(
            "{spec}: add-rotate-xor on 32-bit words in SIMD registers, no tables and no AES \
             instructions needed: {enc} encrypting, {dec} decrypting, authenticated."
        ),
    }
}

fn rounds(bits: u32) -> u32 {
    match bits {
        128 => 10,
        192 => 12,
        _ => 14,
    }
}

/// Options of the text report.
#[derive(Clone, Debug)]
pub struct TextOptions {
    pub battery: Battery,
    /// Also print every (cipher, file) pair, not only the per-size tables.
    pub detail: bool,
}

/// The terminal report.
pub fn text(r: &Results, o: &TextOptions) -> String {
    let mut s = String::new();
    let specs = r.specs();
    let _ = writeln!(s, "wsec bench ciphers: seed 004's six ciphers (and today's AEADs) on this machine");
    let _ = writeln!(s, "CPU: {} ({} logical CPUs; crypto features: {})", r.cpu, r.logical_cpus, r.cpu_features.join(" "));
    if let Some(g) = r.tsc_ghz {
        let _ = writeln!(s, "TSC: {g:.3} GHz (ticks/octet below are TSC ticks, a time unit)");
    }
    let _ = writeln!(
        s,
        "Each figure: median of {} runs (each >= {} ms), spread = (max - min) / median; MB = 10^6 octets.",
        r.runs,
        fmt_g(r.min_time_ms)
    );
    match (r.clock, r.cpu_share) {
        (super::run::Clock::ThreadCpu, Some(sh)) => {
            let _ = writeln!(
                s,
                "Clock: the benchmark thread's CPU time (it was on a CPU {:.0}% of the wall time it was timed, median).",
                sh * 100.0
            );
        }
        _ => {
            let _ = writeln!(s, "Clock: wall time.");
        }
    }
    let _ = writeln!(s, "Energy ({}): {}", r.energy_method.as_str(), r.energy_source);
    let _ = writeln!(s, "Battery for %/GB: {} = {} Wh", o.battery.name, fmt_g(o.battery.wh));
    let _ = writeln!(s, "Mode: CBC with PKCS#7 padding (the paper's setting) unless named; AEADs: 12-octet nonce, 16-octet tag.");
    let _ = writeln!(s, "Run took {:.1} s.", r.seconds);

    // Per-size tables: files per data type, then packets; one block per op.
    let width = specs.iter().map(|s| s.to_string().len()).max().unwrap_or(8).max(8);
    let mut sections: Vec<(String, Scenario, DataType)> =
        DataType::ALL.iter().map(|&d| (format!("{} files", d.as_str()), Scenario::File, d)).collect();
    sections.push(("packets (cut from text, one IV/nonce each)".into(), Scenario::Packet, DataType::Text));
    for (title, sc, d) in sections {
        let mut sizes: Vec<usize> = r.measurements.iter().filter(|m| m.scenario == sc && m.data == d).map(|m| m.bytes).collect();
        sizes.sort_unstable();
        sizes.dedup();
        if sizes.is_empty() {
            continue;
        }
        for op in [Op::Encrypt, Op::Decrypt] {
            let _ = writeln!(s, "\n{} throughput, {title}, MB/s (spread %):", capital(op.as_str()));
            let _ = write!(s, "{:width$}", "");
            for &n in &sizes {
                let _ = write!(s, " {:>16}", size_label(n));
            }
            let _ = writeln!(s);
            for &spec in &specs {
                let _ = write!(s, "{:width$}", spec.to_string());
                for &n in &sizes {
                    let cell = r
                        .get(spec, op, sc, d, n)
                        .map(|m| format!("{} ({:.0}%)", fmt_g(m.mb_per_s.median), m.mb_per_s.rel_spread() * 100.0))
                        .unwrap_or_else(|| "-".into());
                    let _ = write!(s, " {cell:>16}");
                }
                let _ = writeln!(s);
            }
        }
    }

    // Summary per cipher over all files.
    let _ = writeln!(s, "\nSummary over all files (median of the per-file medians):");
    let _ = writeln!(
        s,
        "{:width$} {:>9} {:>9} {:>9} {:>9} {:>11} {:>11} {:>10} {:>10}  implementation",
        "", "enc MB/s", "dec MB/s", "enc t/B", "dec t/B", "enc uJ/B", "dec uJ/B", "enc %/GB", "key ns"
    );
    for &spec in &specs {
        let f = |v: Option<f64>| v.map(fmt_g).unwrap_or_else(|| "-".into());
        let uj = r.file_uj(spec, Op::Encrypt, None);
        let _ = writeln!(
            s,
            "{:width$} {:>9} {:>9} {:>9} {:>9} {:>11} {:>11} {:>10} {:>10}  {}",
            spec.to_string(),
            f(r.file_mbps(spec, Op::Encrypt, None)),
            f(r.file_mbps(spec, Op::Decrypt, None)),
            f(r.file_ticks(spec, Op::Encrypt)),
            f(r.file_ticks(spec, Op::Decrypt)),
            f(uj),
            f(r.file_uj(spec, Op::Decrypt, None)),
            f(uj.map(|u| o.battery.percent_per_gb(u))),
            f(r.key_setup.iter().find(|k| k.spec == spec).map(|k| k.ns.median)),
            spec.alg.implementation()
        );
    }

    // Data type: does it matter?
    let types: Vec<DataType> =
        DataType::ALL.iter().copied().filter(|&d| r.measurements.iter().any(|m| m.scenario == Scenario::File && m.data == d)).collect();
    if types.len() > 1 {
        let _ = writeln!(s, "\nDoes the data type matter? Encryption MB/s, median over each type's files:");
        let _ = write!(s, "{:width$}", "");
        for d in &types {
            let _ = write!(s, " {:>9}", d.as_str());
        }
        let _ = writeln!(s, " {:>12}", "max/min - 1");
        let mut worst: f64 = 0.0;
        for &spec in &specs {
            let v: Vec<f64> = types.iter().filter_map(|&d| r.file_mbps(spec, Op::Encrypt, Some(d))).collect();
            let _ = write!(s, "{:width$}", spec.to_string());
            for x in &v {
                let _ = write!(s, " {:>9}", fmt_g(*x));
            }
            let dev = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max) / v.iter().cloned().fold(f64::INFINITY, f64::min) - 1.0;
            worst = worst.max(dev);
            let _ = writeln!(s, " {:>11.1}%", dev * 100.0);
        }
        let _ = writeln!(
            s,
            "(The sizes differ by type, as in the paper; differences of a few % are within the runs' spread, \
             and small files fit in cache. Largest here: {:.1}%.)",
            worst * 100.0
        );
    }

    // Ranking beside the paper's.
    for aes in [Algorithm::Aes, Algorithm::AesSoft] {
        for op in [Op::Encrypt, Op::Decrypt] {
            let data = if types.contains(&DataType::Text) { Some(DataType::Text) } else { None };
            let rk = ranking(r, op, aes, data);
            if rk.measured.len() < 2 {
                continue;
            }
            let _ = writeln!(
                s,
                "\nRanking, {} ({}; AES = {}), fastest first:",
                op.as_str(),
                rk.over,
                if aes == Algorithm::Aes { "AES instructions" } else { "portable AES" }
            );
            let _ = writeln!(s, "{:>4}  {:10}  {:>16} {:>10}  paper's rank", "rank", "paper", "measured", "MB/s");
            for (i, (spec, v)) in rk.measured.iter().enumerate() {
                let p = paper::RANKING.get(i).map(|a| a.name()).unwrap_or("");
                let pr = paper_rank(spec.alg).map(|x| x.to_string()).unwrap_or_default();
                let mark = if paper_rank(spec.alg) == Some(i + 1) { "" } else { "  <- differs" };
                let _ = writeln!(s, "{:>4}  {:10}  {:>16} {:>10}  {pr}{mark}", i + 1, p, spec.to_string(), fmt_g(*v));
            }
        }
    }

    // The paper's ratios.
    let _ = writeln!(s, "\nEnergy relative to AES-256 (paper, sections 5.1.4 and 5.2.4) and measured:");
    let _ = writeln!(s, "{:10} {:6} {:8} {:>7} {:>12} {:>12}", "cipher", "data", "op", "paper", "vs AES-NI", "vs AES-soft");
    for q in paper::RATIOS {
        let op = if q.encrypt { Op::Encrypt } else { Op::Decrypt };
        let spec = paper::SPECS.iter().copied().find(|s| s.alg == q.alg).expect("paper spec");
        let mine = r.file_uj(spec, op, Some(q.data));
        let vs = |aes: Algorithm| -> String {
            match (mine, r.file_uj(Spec::new(aes, 256), op, Some(q.data))) {
                (Some(a), Some(b)) => format!("{:.0}%", a / b * 100.0),
                _ => "-".into(),
            }
        };
        let _ = writeln!(
            s,
            "{:10} {:6} {:8} {:>6.0}% {:>12} {:>12}",
            q.alg.name(),
            q.data.as_str(),
            op.as_str(),
            q.value * 100.0,
            vs(Algorithm::Aes),
            vs(Algorithm::AesSoft)
        );
    }
    if r.energy_method == Method::Eq7Model {
        let _ = writeln!(s, "(With the eq. 7 model energy is proportional to time, so these are time ratios.)");
    }

    // Why.
    let _ = writeln!(s, "\nWhy (this run's numbers):");
    for &spec in &specs {
        let aead256 = spec.alg.mode() == super::impls::Mode::Aead && spec.key_bits == 256;
        if paper::SPECS.contains(&spec) || spec == Spec::new(Algorithm::AesSoft, 256) || aead256 {
            let _ = writeln!(s, "- {}", explanation(r, spec));
        }
    }

    if o.detail {
        let _ = writeln!(s, "\nAll measurements:");
        let _ = writeln!(
            s,
            "{:width$} {:7} {:6} {:6} {:>9} {:>10} {:>7} {:>10} {:>10}",
            "", "op", "kind", "data", "octets", "MB/s", "spread", "ticks/B", "uJ/B"
        );
        for m in &r.measurements {
            let _ = writeln!(s, "{}", detail_line(m, width));
        }
    }
    s
}

fn detail_line(m: &Measurement, width: usize) -> String {
    format!(
        "{:width$} {:7} {:6} {:6} {:>9} {:>10} {:>6.1}% {:>10} {:>10}",
        m.spec.to_string(),
        m.op.as_str(),
        match m.scenario {
            Scenario::File => "file",
            Scenario::Packet => "packet",
        },
        m.data.as_str(),
        m.bytes,
        fmt_g(m.mb_per_s.median),
        m.mb_per_s.rel_spread() * 100.0,
        m.ticks_per_byte.map(|t| fmt_g(t.median)).unwrap_or_else(|| "-".into()),
        fmt_g(m.uj_per_byte.median)
    )
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// "64 B", "33 KB", "7139 KB" (KB = 1024 octets, as the paper's sizes).
pub fn size_label(n: usize) -> String {
    if n >= paper::KB && n.is_multiple_of(paper::KB) {
        format!("{} KB", n / paper::KB)
    } else {
        format!("{n} B")
    }
}

/// Writes the plots into `dir` as `ext` ("svg" or "png"): throughput and energy against
/// file size (audio files, the widest range) and packet size, per direction, and
/// throughput per data type. Returns the files written.
pub fn plots(r: &Results, dir: &std::path::Path, ext: &str) -> crate::Result<Vec<std::path::PathBuf>> {
    use crate::plot::LineChart;
    std::fs::create_dir_all(dir).map_err(crate::Error::io(dir))?;
    let specs = r.specs();
    let mut written = Vec::new();
    let method = match r.energy_method {
        Method::Rapl => "RAPL",
        Method::Eq7Model => "eq. 7 model",
    };
    for op in [Op::Encrypt, Op::Decrypt] {
        for (sc, d, what, unit) in [
            (Scenario::File, DataType::Audio, "file size (audio, KB)", 1024.0),
            (Scenario::File, DataType::Text, "file size (text, KB)", 1024.0),
            (Scenario::Packet, DataType::Text, "packet size (octets)", 1.0),
        ] {
            let pts = |f: &dyn Fn(&Measurement) -> f64| -> Vec<(String, Vec<(f64, f64)>)> {
                specs
                    .iter()
                    .map(|&s| {
                        let mut v: Vec<(f64, f64)> = r
                            .measurements
                            .iter()
                            .filter(|m| m.spec == s && m.op == op && m.scenario == sc && m.data == d)
                            .map(|m| (m.bytes as f64 / unit, f(m)))
                            .collect();
                        v.sort_by(|a, b| a.0.total_cmp(&b.0));
                        (s.to_string(), v)
                    })
                    .filter(|(_, v)| !v.is_empty())
                    .collect()
            };
            let series = pts(&|m| m.mb_per_s.median);
            if series.is_empty() {
                continue;
            }
            let tag = match sc {
                Scenario::File => format!("files_{}", d.as_str()),
                Scenario::Packet => "packets".into(),
            };
            let t = LineChart {
                title: format!("{} throughput by {what}", capital(op.as_str())),
                x_label: what.into(),
                y_label: "MB/s (median)".into(),
                log_x: true,
                log_y: true,
                y_from_zero: false,
                x_categories: vec![],
                series,
            };
            let p = dir.join(format!("ciphers_throughput_{tag}_{}.{ext}", op.as_str()));
            t.render(&p)?;
            written.push(p);
            let e = LineChart {
                title: format!("{} energy by {what} ({method})", capital(op.as_str())),
                y_label: "uJ per octet (median)".into(),
                series: pts(&|m| m.uj_per_byte.median),
                ..t
            };
            let p = dir.join(format!("ciphers_energy_{tag}_{}.{ext}", op.as_str()));
            e.render(&p)?;
            written.push(p);
        }
    }
    let types: Vec<DataType> =
        DataType::ALL.iter().copied().filter(|&d| r.measurements.iter().any(|m| m.scenario == Scenario::File && m.data == d)).collect();
    if types.len() > 1 {
        let series = specs
            .iter()
            .map(|&s| {
                let base = r.file_mbps(s, Op::Encrypt, Some(types[0]));
                let v = types
                    .iter()
                    .enumerate()
                    .filter_map(|(i, &d)| Some((i as f64, r.file_mbps(s, Op::Encrypt, Some(d))? / base?)))
                    .collect();
                (s.to_string(), v)
            })
            .collect();
        let c = LineChart {
            title: format!("Encryption throughput by data type, relative to {} files", types[0].as_str()),
            x_label: "data type (median over each type's files)".into(),
            y_label: format!("MB/s / MB/s on {}", types[0].as_str()),
            log_x: false,
            log_y: false,
            y_from_zero: false,
            x_categories: types.iter().map(|d| d.as_str().to_string()).collect(),
            series,
        };
        let p = dir.join(format!("ciphers_datatype_encrypt.{ext}"));
        c.render(&p)?;
        written.push(p);
    }
    Ok(written)
}
