//! Running the measurements: what is timed, how often, and how noise is kept out.
//!
//! - **Files** (the paper's setting): one encryption of a whole file, buffer to buffer
//!   (`pt` -> `ct`), then one decryption of that ciphertext, with the key schedule made
//!   beforehand (the paper's figures are per file, its key setup is a separate cost,
//!   measured here as [`KeySetup`]). Disk I/O, which the paper's file-to-file runs
//!   included, is left out: it measures the disk, not the cipher.
//! - **Packets**: a batch of packets (consecutive slices of the text file) is encrypted one
//!   message at a time, each with its own IV/nonce and its own padding or tag, as a link
//!   layer would; throughput counts plaintext octets.
//! - Each measurement is repeated `iters` times per sample (enough for `min_time`, fixed
//!   after the first run so all runs do the same work), `runs` samples are taken, and the
//!   report gives their median and spread. Runs are the outer loop and all ciphers are
//!   timed within each run, so slow phases of a shared machine touch every cipher alike.
//! - Time is the benchmark thread's CPU time by default ([`Clock::ThreadCpu`]): on a
//!   machine shared with other work, wall-clock samples mostly measure how long the thread
//!   waited for a CPU. The share of wall time the thread got is reported beside the figures.
//!   Ticks per octet are that time in TSC ticks.
//! - Every decryption is compared with the original before its time is used; a mismatch
//!   stops the benchmark.
use super::data::DataType;
use super::impls::{CipherImpl, Spec};
use super::paper;
use crate::cpu;
use crate::energy::{Meter, Method};
use crate::stats::Summary;
use serde::Serialize;
use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};
use wsec::error::{Error, Result};

/// Encryption or decryption.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Encrypt,
    Decrypt,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Encrypt => "encrypt",
            Op::Decrypt => "decrypt",
        }
    }
}

/// Whole files, or link-layer packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scenario {
    File,
    Packet,
}

/// Which clock times the samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Clock {
    /// CPU time of the benchmark thread ([`cpu::thread_cpu_time`]); wall time where the
    /// system has no such clock.
    ThreadCpu,
    /// Wall-clock (monotonic) time.
    Wall,
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    pub specs: Vec<Spec>,
    /// Files: (data type, size in octets).
    pub files: Vec<(DataType, usize)>,
    /// Packet sizes (octets); packets are cut from text.
    pub packets: Vec<usize>,
    /// Plaintext octets per packet batch (at least one packet).
    pub packet_batch_bytes: usize,
    /// Samples per measurement (the median is reported).
    pub runs: usize,
    /// Minimum time of one sample.
    pub min_time: Duration,
    /// Seed of the generated inputs, keys and IVs.
    pub seed: u64,
    pub clock: Clock,
}

impl Config {
    /// The full study: every default spec, five sizes per data type over the paper's range,
    /// packets of 64-1500 octets, 5 runs of at least 20 ms each.
    pub fn full() -> Self {
        let mut files = Vec::new();
        for d in DataType::ALL {
            files.extend(paper::file_sizes(d, 5).into_iter().map(|n| (d, n)));
        }
        Config {
            specs: Spec::defaults(),
            files,
            packets: paper::PACKET_SIZES.to_vec(),
            packet_batch_bytes: 64 * 1024,
            runs: 5,
            min_time: Duration::from_millis(20),
            seed: 4,
            clock: Clock::ThreadCpu,
        }
    }

    /// A smoke run of a few seconds: every spec, the smallest file of each type, 64- and
    /// 1500-octet packets, 3 runs of at least 2 ms.
    pub fn quick() -> Self {
        Config {
            files: DataType::ALL.iter().map(|&d| (d, paper::file_sizes(d, 1)[0])).collect(),
            packets: vec![64, 1500],
            packet_batch_bytes: 16 * 1024,
            runs: 3,
            min_time: Duration::from_millis(2),
            ..Self::full()
        }
    }
}

/// One measured quantity: a cipher, a direction, a scenario, a size.
#[derive(Clone, Debug, Serialize)]
pub struct Measurement {
    pub spec: Spec,
    pub op: Op,
    pub scenario: Scenario,
    pub data: DataType,
    /// File or packet size (plaintext octets).
    pub bytes: usize,
    /// Throughput, MB/s (10^6 octets of plaintext per second).
    pub mb_per_s: Summary,
    /// Energy per plaintext octet, microjoules.
    pub uj_per_byte: Summary,
    /// TSC ticks per plaintext octet (`None` without a TSC).
    pub ticks_per_byte: Option<Summary>,
}

/// Cost of making an engine from a key (key schedule and its allocation).
#[derive(Clone, Debug, Serialize)]
pub struct KeySetup {
    pub spec: Spec,
    pub ns: Summary,
}

/// Everything a run produced, with the conditions it ran under.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    pub cpu: String,
    pub cpu_features: Vec<&'static str>,
    pub logical_cpus: usize,
    pub tsc_ghz: Option<f64>,
    pub energy_method: Method,
    pub energy_source: String,
    /// The clock the samples were timed with.
    pub clock: Clock,
    /// Median share of wall time the benchmark thread was on a CPU while timed (1 = never
    /// waited); `None` without a thread CPU clock.
    pub cpu_share: Option<f64>,
    pub runs: usize,
    pub min_time_ms: f64,
    pub measurements: Vec<Measurement>,
    pub key_setup: Vec<KeySetup>,
    pub seconds: f64,
}

/// Progress of a run, for a progress bar.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub done: u64,
    pub total: u64,
}

/// One timed unit: a spec on one input in one direction.
struct Job {
    spec: usize,
    op: Op,
    scenario: Scenario,
    data: DataType,
    bytes: usize,
    input: usize,
}

/// The inputs: whole files, or a batch of packets.
struct Input {
    scenario: Scenario,
    data: DataType,
    bytes: usize,
    /// Files: the file. Packets: the batch's plaintext, packet after packet.
    pt: Vec<u8>,
}

struct Samples {
    /// Seconds per sample on the configured clock.
    secs: Vec<f64>,
    joules: Vec<f64>,
    /// CPU time / wall time per sample.
    share: Vec<f64>,
    iters: u64,
}

/// Runs the benchmark. `progress` is called after each timed unit.
pub fn run(cfg: &Config, meter: &Meter, progress: &mut dyn FnMut(Progress)) -> Result<Results> {
    if cfg.specs.is_empty() || cfg.runs == 0 || (cfg.files.is_empty() && cfg.packets.is_empty()) {
        return Err(Error::Malformed("nothing to run (no cipher, no input, or zero runs)"));
    }
    let t_start = Instant::now();
    let clock = if cfg.clock == Clock::ThreadCpu && cpu::thread_cpu_time().is_none() { Clock::Wall } else { cfg.clock };
    let tsc_ghz = cpu::tsc_ghz(Duration::from_millis(20));
    let mut rng = SplitMix(cfg.seed);
    let engines: Vec<Box<dyn CipherImpl>> = cfg
        .specs
        .iter()
        .map(|s| {
            let key: Vec<u8> = (0..s.key_len()).map(|_| rng.next() as u8).collect();
            s.engine(&key)
        })
        .collect::<Result<_>>()?;

    // Inputs, generated once.
    let mut inputs = Vec::new();
    for &(d, n) in &cfg.files {
        inputs.push(Input { scenario: Scenario::File, data: d, bytes: n, pt: d.generate(n, cfg.seed) });
    }
    if !cfg.packets.is_empty() {
        let max = *cfg.packets.iter().max().unwrap_or(&1);
        let batch = cfg.packet_batch_bytes.max(max);
        let text = DataType::Text.generate(batch, cfg.seed ^ 0x9a);
        for &p in &cfg.packets {
            if p == 0 {
                return Err(Error::Malformed("packet size 0"));
            }
            let count = (batch / p).max(1);
            inputs.push(Input { scenario: Scenario::Packet, data: DataType::Text, bytes: p, pt: text[..count * p].to_vec() });
        }
    }
    // Jobs: per input, each spec encrypts then decrypts what it encrypted.
    let mut jobs = Vec::new();
    for (i, inp) in inputs.iter().enumerate() {
        for s in 0..engines.len() {
            for op in [Op::Encrypt, Op::Decrypt] {
                jobs.push(Job { spec: s, op, scenario: inp.scenario, data: inp.data, bytes: inp.bytes, input: i });
            }
        }
    }
    let total = (jobs.len() * cfg.runs) as u64;
    let mut samples: Vec<Samples> =
        jobs.iter().map(|_| Samples { secs: Vec::new(), joules: Vec::new(), share: Vec::new(), iters: 0 }).collect();
    let ivs: Vec<[u8; 16]> = (0..4096)
        .map(|_| {
            let mut iv = [0u8; 16];
            iv[..8].copy_from_slice(&rng.next().to_le_bytes());
            iv[8..].copy_from_slice(&rng.next().to_le_bytes());
            iv
        })
        .collect();

    let max_ct = inputs.iter().map(|i| i.pt.len() + 64 * (i.pt.len() / i.bytes.max(1) + 1)).max().unwrap_or(0);
    let mut ct = vec![0u8; max_ct];
    let mut back = vec![0u8; max_ct];
    let mut ct_lens: Vec<usize> = Vec::new();
    let mut done = 0u64;
    for _run in 0..cfg.runs {
        let mut j = 0;
        while j < jobs.len() {
            // jobs[j] is an encryption, jobs[j + 1] the decryption of its output.
            let enc = &jobs[j];
            debug_assert!(enc.op == Op::Encrypt && jobs[j + 1].op == Op::Decrypt);
            let e = &*engines[enc.spec];
            let inp = &inputs[enc.input];
            let iv_len = e.spec().iv_len();
            match inp.scenario {
                Scenario::File => {
                    let iv = &ivs[0][..iv_len];
                    let n = e.spec().ciphertext_len(inp.pt.len());
                    let mut c = 0;
                    time(&mut samples[j], cfg.min_time, clock, meter, || {
                        c = e.encrypt(iv, &[], black_box(&inp.pt), &mut ct[..n])?;
                        Ok(())
                    })?;
                    let mut p = 0;
                    time(&mut samples[j + 1], cfg.min_time, clock, meter, || {
                        p = e.decrypt(iv, &[], black_box(&ct[..c]), &mut back[..c])?;
                        Ok(())
                    })?;
                    check(&inp.pt, &back[..p])?;
                }
                Scenario::Packet => {
                    let size = inp.bytes;
                    let slot = e.spec().ciphertext_len(size);
                    let count = inp.pt.len() / size;
                    time(&mut samples[j], cfg.min_time, clock, meter, || {
                        ct_lens.clear();
                        for (k, msg) in inp.pt.chunks_exact(size).enumerate() {
                            let iv = &ivs[k % ivs.len()][..iv_len];
                            let n = e.encrypt(iv, &[], black_box(msg), &mut ct[k * slot..(k + 1) * slot])?;
                            ct_lens.push(n);
                        }
                        Ok(())
                    })?;
                    time(&mut samples[j + 1], cfg.min_time, clock, meter, || {
                        for k in 0..count {
                            let iv = &ivs[k % ivs.len()][..iv_len];
                            let c = &ct[k * slot..k * slot + ct_lens[k]];
                            e.decrypt(iv, &[], black_box(c), &mut back[k * slot..(k + 1) * slot])?;
                        }
                        Ok(())
                    })?;
                    for (k, msg) in inp.pt.chunks_exact(size).enumerate() {
                        check(msg, &back[k * slot..k * slot + size])?;
                    }
                }
            }
            done += 2;
            progress(Progress { done, total });
            j += 2;
        }
    }

    let measurements = jobs
        .iter()
        .zip(&samples)
        .map(|(job, s)| {
            let bytes_per_iter = inputs[job.input].pt.len() as f64;
            let octets: Vec<f64> = s.secs.iter().map(|_| bytes_per_iter * s.iters as f64).collect();
            let mbps: Vec<f64> = s.secs.iter().zip(&octets).map(|(t, b)| b / t / 1e6).collect();
            let uj: Vec<f64> = s.joules.iter().zip(&octets).map(|(j, b)| j * 1e6 / b).collect();
            let tpb: Vec<f64> = match tsc_ghz {
                Some(g) => s.secs.iter().zip(&octets).map(|(t, b)| t * g * 1e9 / b).collect(),
                None => Vec::new(),
            };
            Measurement {
                spec: engines[job.spec].spec(),
                op: job.op,
                scenario: job.scenario,
                data: job.data,
                bytes: job.bytes,
                mb_per_s: Summary::of(&mbps).expect("runs >= 1"),
                uj_per_byte: Summary::of(&uj).unwrap_or(Summary {
                    n: 0,
                    median: f64::NAN,
                    min: f64::NAN,
                    max: f64::NAN,
                    q1: f64::NAN,
                    q3: f64::NAN,
                }),
                ticks_per_byte: Summary::of(&tpb),
            }
        })
        .collect();

    let key_setup = cfg.specs.iter().map(|s| key_setup(*s, cfg, clock)).collect::<Result<_>>()?;
    let shares: Vec<f64> = samples.iter().flat_map(|s| s.share.iter().copied()).collect();

    Ok(Results {
        cpu: cpu::cpu_model(),
        cpu_features: cpu::crypto_features(),
        logical_cpus: cpu::logical_cpus(),
        tsc_ghz,
        energy_method: meter.method(),
        energy_source: meter.describe(),
        clock,
        cpu_share: crate::stats::median(&shares),
        runs: cfg.runs,
        min_time_ms: cfg.min_time.as_secs_f64() * 1e3,
        measurements,
        key_setup,
        seconds: t_start.elapsed().as_secs_f64(),
    })
}

/// One sample of `f` into `s`: `s.iters` calls (chosen on the first sample so that they
/// take at least `min_time`), with time and energy around them.
fn time(s: &mut Samples, min_time: Duration, clock: Clock, meter: &Meter, mut f: impl FnMut() -> Result<()>) -> Result<()> {
    let now = || match clock {
        Clock::ThreadCpu => cpu::thread_cpu_time().unwrap_or_default(),
        Clock::Wall => Duration::ZERO,
    };
    if s.iters == 0 {
        // Warm up (caches, branch predictors, page faults on the output) and calibrate.
        let (w0, c0) = (Instant::now(), now());
        f()?;
        let one = match clock {
            Clock::ThreadCpu => now() - c0,
            Clock::Wall => w0.elapsed(),
        }
        .max(Duration::from_nanos(50));
        s.iters = (min_time.as_secs_f64() / one.as_secs_f64()).ceil().clamp(1.0, 1e9) as u64;
    }
    let e0 = meter.start();
    let (w0, c0) = (Instant::now(), now());
    for _ in 0..s.iters {
        f()?;
    }
    let (c1, wall) = (now(), w0.elapsed().as_secs_f64());
    let dt = match clock {
        Clock::ThreadCpu => {
            let c = (c1 - c0).as_secs_f64();
            s.share.push(if wall > 0.0 { (c / wall).min(1.0) } else { 1.0 });
            c
        }
        Clock::Wall => wall,
    };
    s.secs.push(dt);
    if let Some(j) = meter.stop(&e0, dt) {
        s.joules.push(j);
    }
    Ok(())
}

fn check(want: &[u8], got: &[u8]) -> Result<()> {
    if want != got {
        return Err(Error::Malformed("decryption did not give the plaintext back"));
    }
    Ok(())
}

/// Time of `spec.engine(key)` (key schedule and its allocation), median of `cfg.runs`
/// samples, on the configured clock.
fn key_setup(spec: Spec, cfg: &Config, clock: Clock) -> Result<KeySetup> {
    let key: Vec<u8> = (0..spec.key_len() as u8).map(|b| b.wrapping_mul(37)).collect();
    let now = || match clock {
        Clock::ThreadCpu => cpu::thread_cpu_time().unwrap_or_default(),
        Clock::Wall => t_zero().elapsed(),
    };
    let mut per = Vec::new();
    let mut iters = 0u64;
    for _ in 0..cfg.runs {
        if iters == 0 {
            let t0 = now();
            black_box(spec.engine(black_box(&key))?);
            let one = (now() - t0).max(Duration::from_nanos(20));
            iters = ((cfg.min_time.as_secs_f64() / 4.0) / one.as_secs_f64()).ceil().clamp(1.0, 1e7) as u64;
        }
        let t0 = now();
        for _ in 0..iters {
            black_box(spec.engine(black_box(&key))?);
        }
        per.push((now() - t0).as_secs_f64() * 1e9 / iters as f64);
    }
    Ok(KeySetup { spec, ns: Summary::of(&per).expect("runs >= 1") })
}

/// A fixed instant to express wall time as a `Duration`.
fn t_zero() -> Instant {
    static T0: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *T0.get_or_init(Instant::now)
}

impl Results {
    /// The measurement of `spec`, `op`, `scenario`, `data`, `bytes`.
    pub fn get(&self, spec: Spec, op: Op, scenario: Scenario, data: DataType, bytes: usize) -> Option<&Measurement> {
        self.measurements.iter().find(|m| m.spec == spec && m.op == op && m.scenario == scenario && m.data == data && m.bytes == bytes)
    }

    /// Median throughput of `spec` over all files of `data` (all types when `None`), for
    /// `op`: the figure rankings use.
    pub fn file_mbps(&self, spec: Spec, op: Op, data: Option<DataType>) -> Option<f64> {
        let v: Vec<f64> = self
            .measurements
            .iter()
            .filter(|m| m.spec == spec && m.op == op && m.scenario == Scenario::File && data.is_none_or(|d| m.data == d))
            .map(|m| m.mb_per_s.median)
            .collect();
        crate::stats::median(&v)
    }

    /// Like [`file_mbps`](Self::file_mbps) for energy (microjoules per octet).
    pub fn file_uj(&self, spec: Spec, op: Op, data: Option<DataType>) -> Option<f64> {
        let v: Vec<f64> = self
            .measurements
            .iter()
            .filter(|m| m.spec == spec && m.op == op && m.scenario == Scenario::File && data.is_none_or(|d| m.data == d))
            .map(|m| m.uj_per_byte.median)
            .filter(|x| x.is_finite())
            .collect();
        crate::stats::median(&v)
    }

    /// Like [`file_mbps`](Self::file_mbps) for TSC ticks per octet.
    pub fn file_ticks(&self, spec: Spec, op: Op) -> Option<f64> {
        let v: Vec<f64> = self
            .measurements
            .iter()
            .filter(|m| m.spec == spec && m.op == op && m.scenario == Scenario::File)
            .filter_map(|m| m.ticks_per_byte.map(|t| t.median))
            .collect();
        crate::stats::median(&v)
    }

    /// The specs measured, in the order run.
    pub fn specs(&self) -> Vec<Spec> {
        let mut seen = HashMap::new();
        let mut v = Vec::new();
        for m in &self.measurements {
            if seen.insert(m.spec, ()).is_none() {
                v.push(m.spec);
            }
        }
        v
    }
}

/// SplitMix64 for keys and IVs (their values do not matter, only that they vary).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
