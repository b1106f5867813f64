//! Crypto processing costs: service time = `a + b * bytes` per frame, for each place the
//! crypto can run and each cipher suite, read from a cost file.
//!
//! | location | where the numbers come from |
//! |---|---|
//! | `host`, `ap_cpu` | `wsec model costs` on the machine at hand: wsec's own cipher code (`wsec::cipher::new_protection`) timed over several frame sizes, median of runs, least-squares fit |
//! | `card` | instruction counts of wsec's portable (no AES-NI, no CLMUL) cipher code from `valgrind --tool=callgrind` (`scripts/model-card-costs`), divided by `clock_mhz * ipc` of the card's embedded processor |
//! | `ap_hw_engine` | wsec's Verilog engine (`hw/`): cycles per frame from simulation and Fmax from place and route, as `hw/run report` writes them. The shipped default reads the committed report `docs/results/hw-report.json`; a fresh `hw/build/report.json` replaces it |
//!
//! The defaults shipped with wsec are in `costs.default.json` beside this file; every
//! entry records its source. `app_ciphers` holds the application-level file ciphers of
//! seed 004 (CBC, ns per call and per byte on the host CPU).
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use wsec_base::CipherSuite;

/// Where a frame's crypto runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Location {
    /// The station's wireless card (its embedded processor).
    Card,
    /// The station's host CPU (Enhanced-WPA2).
    Host,
    /// The access point's CPU.
    ApCpu,
    /// The access point's hardware crypto engine (Enhanced-WPA2).
    #[serde(rename = "ap_hw_engine")]
    ApHwEngine,
}

impl Location {
    pub fn key(self) -> &'static str {
        match self {
            Location::Card => "card",
            Location::Host => "host",
            Location::ApCpu => "ap_cpu",
            Location::ApHwEngine => "ap_hw_engine",
        }
    }
    pub const ALL: [Location; 4] = [Location::Card, Location::Host, Location::ApCpu, Location::ApHwEngine];
}

impl std::str::FromStr for Location {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "card" => Ok(Location::Card),
            "host" => Ok(Location::Host),
            "ap_cpu" => Ok(Location::ApCpu),
            "ap_hw_engine" | "ap_hw" => Ok(Location::ApHwEngine),
            _ => Err(Error::Spec(format!("unknown crypto location '{s}' (card, host, ap_cpu, ap_hw_engine)"))),
        }
    }
}

/// `a + b * bytes`, in nanoseconds (or instructions, or cycles, where the field says so).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Default)]
pub struct Linear {
    pub a: f64,
    pub b: f64,
}

impl Linear {
    pub fn at(&self, bytes: usize) -> f64 {
        self.a + self.b * bytes as f64
    }

    /// Least-squares fit of `y = a + b x`.
    pub fn fit(points: &[(f64, f64)]) -> Linear {
        let n = points.len() as f64;
        let sx: f64 = points.iter().map(|p| p.0).sum();
        let sy: f64 = points.iter().map(|p| p.1).sum();
        let sxx: f64 = points.iter().map(|p| p.0 * p.0).sum();
        let sxy: f64 = points.iter().map(|p| p.0 * p.1).sum();
        let d = n * sxx - sx * sx;
        if points.len() < 2 || d == 0.0 {
            return Linear { a: sy / n.max(1.0), b: 0.0 };
        }
        let b = (n * sxy - sx * sy) / d;
        Linear { a: (sy - b * sx) / n, b }
    }
}

/// Encryption and decryption cost of one suite.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Default)]
pub struct SuiteCost {
    pub encrypt: Linear,
    pub decrypt: Linear,
}

/// Hardware engine parameters: time = (overhead + blocks * cycles_per_block) / Fmax,
/// blocks = ceil(bytes / 16).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct HwEngine {
    pub config: String,
    pub fmax_mhz: f64,
    pub cycles_per_block: f64,
    /// Cycles per frame besides the payload blocks (B0, AAD blocks, formatting, tag).
    pub overhead_cycles: f64,
}

/// The costs of one location.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct LocationCosts {
    /// Where the numbers come from (command, machine, date or paper).
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
    /// Nanoseconds per frame and per byte of MPDU body, by suite name (`wep-40`, `ccmp`, ...).
    #[serde(default)]
    pub suites: BTreeMap<String, SuiteCost>,
    /// For `card`: the embedded processor's clock and instructions per cycle (assumed,
    /// documented parameters) and the instruction fits the times derive from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_mhz: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipc: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<BTreeMap<String, SuiteCost>>,
    /// For `ap_hw_engine`: cycles and Fmax; the times derive from them (CCMP-128 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hw: Option<HwEngine>,
}

/// A seed-004 file cipher on the host CPU: `a` ns per call, `b` ns per byte.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AppCipherCost {
    pub source: String,
    pub encrypt: Linear,
    pub decrypt: Linear,
}

/// The cost file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Costs {
    pub format: String,
    #[serde(default)]
    pub note: String,
    pub locations: BTreeMap<String, LocationCosts>,
    #[serde(default)]
    pub app_ciphers: BTreeMap<String, AppCipherCost>,
}

pub const FORMAT: &str = "wsec-model-costs/1";
const DEFAULT_JSON: &str = include_str!("costs.default.json");
/// The committed `hw/run report` (copy of `hw/build/report.json` from the runs that
/// docs/hw.md reports): the shipped `ap_hw_engine` costs derive from it.
pub const SHIPPED_HW_REPORT: &str = include_str!("../../../docs/results/hw-report.json");
/// Where [`SHIPPED_HW_REPORT`] lives in the source tree.
pub const SHIPPED_HW_REPORT_PATH: &str = "docs/results/hw-report.json";

/// Where `hw/run report` writes the engine's results, relative to the repository root.
pub const HW_REPORT: &str = "hw/build/report.json";

impl Costs {
    /// The defaults shipped with wsec (with the card and engine times derived), the AP
    /// hardware engine's from the committed report [`SHIPPED_HW_REPORT`].
    pub fn shipped() -> Costs {
        let mut c: Costs = serde_json::from_str(DEFAULT_JSON).expect("costs.default.json parses");
        c.derive();
        // tests/it/model_traffic.rs checks that the committed report is usable; if it were
        // not, the location would be missing and every run using it would say so.
        let _ = c.apply_hw_report_text(SHIPPED_HW_REPORT, SHIPPED_HW_REPORT_PATH, None);
        c
    }

    /// The shipped defaults, with `ap_hw_engine` taken from `hw/build/report.json` when
    /// that file exists in the current directory's tree or in the source tree.
    /// A report that exists but cannot be used is reported in the `Err` (with the shipped
    /// costs beside it), so a caller can warn instead of silently using the placeholder.
    pub fn default_with_hw_report() -> (Costs, Result<Option<std::path::PathBuf>>) {
        let mut c = Costs::shipped();
        match hw_report_path() {
            None => (c, Ok(None)),
            Some(p) => match c.apply_hw_report(&p, None) {
                Ok(()) => (c, Ok(Some(p))),
                Err(e) => (Costs::shipped(), Err(e)),
            },
        }
    }

    pub fn from_json(text: &str) -> Result<Costs> {
        let mut c: Costs = serde_json::from_str(text).map_err(|source| Error::Json { origin: "cost file".into(), source })?;
        if c.format != FORMAT {
            return Err(Error::Costs(format!("cost file: format '{}' is not '{FORMAT}'", c.format)));
        }
        c.derive();
        Ok(c)
    }

    pub fn load(path: &Path) -> Result<Costs> {
        let text = read_model_file(path)?;
        Costs::from_json(&text).map_err(Error::in_file(path))
    }

    /// Rescales the card's instruction counts to a processor of `mips` million instructions
    /// per second (clock_mhz = mips, ipc = 1): the calibration knob of docs/model.md 2a.
    pub fn set_card_mips(&mut self, mips: f64) -> Result<()> {
        if !(mips.is_finite() && (0.1..=1e6).contains(&mips)) {
            return Err(Error::Costs(format!("card speed {mips} MIPS: want 0.1..=1000000")));
        }
        let card = self.locations.get_mut("card").ok_or_else(|| Error::Costs("the cost file has no 'card' entry".into()))?;
        if card.instructions.is_none() {
            return Err(Error::Costs("the cost file's 'card' entry has no instruction counts to rescale".into()));
        }
        card.clock_mhz = Some(mips);
        card.ipc = Some(1.0);
        self.derive();
        Ok(())
    }

    /// Recomputes the `suites` of locations given as instruction counts or hardware cycles.
    pub fn derive(&mut self) {
        for loc in self.locations.values_mut() {
            if let (Some(ins), Some(mhz), Some(ipc)) = (&loc.instructions, loc.clock_mhz, loc.ipc) {
                let per_ns = mhz * 1e-3 * ipc; // instructions per ns
                loc.suites = ins
                    .iter()
                    .map(|(k, c)| {
                        let t = |l: Linear| Linear { a: l.a / per_ns, b: l.b / per_ns };
                        (k.clone(), SuiteCost { encrypt: t(c.encrypt), decrypt: t(c.decrypt) })
                    })
                    .collect();
            }
            if let Some(hw) = &loc.hw {
                let ns_per_cycle = 1e3 / hw.fmax_mhz;
                // Per byte: cycles_per_block / 16 (ceil(bytes/16) blocks, linearised).
                let l = Linear {
                    a: (hw.overhead_cycles + hw.cycles_per_block / 2.0) * ns_per_cycle,
                    b: hw.cycles_per_block / 16.0 * ns_per_cycle,
                };
                loc.suites.insert(CipherSuite::Ccmp128.name().into(), SuiteCost { encrypt: l, decrypt: l });
            }
        }
    }

    /// Takes `ap_hw_engine` from a `hw/run report` file: the record named `config`, or the
    /// standard (1 lane) iterative configuration with the highest Fmax.
    pub fn apply_hw_report(&mut self, path: &Path, config: Option<&str>) -> Result<()> {
        let text = read_model_file(path)?;
        self.apply_hw_report_text(&text, &path.display().to_string(), config)
    }

    /// [`Costs::apply_hw_report`] on the report's text; `origin` names it in errors and in
    /// the location's `source`. Without `config`: the 802.11 CCM engine (one lane, not the
    /// 802.16e `ccm16e-*` ones) with the highest Fmax.
    pub fn apply_hw_report_text(&mut self, text: &str, origin: &str, config: Option<&str>) -> Result<()> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|source| Error::Json { origin: origin.into(), source })?;
        let recs: Vec<&serde_json::Value> = match &v {
            serde_json::Value::Array(a) => a.iter().collect(),
            serde_json::Value::Object(o) => match o.get("records").or_else(|| o.get("configs")) {
                Some(serde_json::Value::Array(a)) => a.iter().collect(),
                _ => vec![&v],
            },
            _ => vec![],
        };
        let num = |r: &serde_json::Value, k: &str| r.get(k).and_then(|x| x.as_f64());
        // CCM engines only (AES-only records have no `lanes`), synthesized and simulated.
        let usable = |r: &&serde_json::Value| {
            num(r, "lanes").is_some()
                && num(r, "fmax_mhz").is_some_and(|f| f > 0.0)
                && num(r, "cycles_per_block").is_some_and(|c| c > 0.0)
                && num(r, "cycles_frame_1500").is_some()
        };
        let pick = match config {
            Some(name) => recs.into_iter().filter(usable).find(|r| r.get("config").and_then(|c| c.as_str()) == Some(name)),
            None => recs
                .into_iter()
                .filter(usable)
                .filter(|r| num(r, "lanes") == Some(1.0))
                // The 802.16e engine (`ccm16e-*`) formats another nonce: not an 802.11 AP's.
                .filter(|r| !r.get("config").and_then(|c| c.as_str()).is_some_and(|c| c.starts_with("ccm16e")))
                .max_by(|a, b| num(a, "fmax_mhz").unwrap().total_cmp(&num(b, "fmax_mhz").unwrap())),
        };
        let r = pick.ok_or_else(|| {
            Error::Costs(format!(
                "{origin}: no usable CCM record (need lanes, fmax_mhz, cycles_per_block, cycles_frame_1500{})",
                config.map(|c| format!(", config {c}")).unwrap_or_default()
            ))
        })?;
        // k lanes take k payload blocks per `cycles_per_block`.
        let cpb = num(r, "cycles_per_block").unwrap() / num(r, "lanes").unwrap().max(1.0);
        let fmax = num(r, "fmax_mhz").unwrap();
        // Per-frame overhead: the simulated 1500-octet frame less its payload blocks.
        let overhead = (num(r, "cycles_frame_1500").unwrap() - cpb * (1500f64 / 16.0).ceil()).max(0.0);
        let name = r.get("config").and_then(|c| c.as_str()).unwrap_or("?").to_string();
        let target = r.get("target").and_then(|c| c.as_str()).unwrap_or("?");
        let loc = LocationCosts {
            source: format!("{origin} (config {name}, target {target}): Verilog simulation cycle counts (hw/run sim) and place-and-route Fmax (hw/run synth)"),
            hw: Some(HwEngine { config: name, fmax_mhz: fmax, cycles_per_block: cpb, overhead_cycles: overhead }),
            ..Default::default()
        };
        self.locations.insert(Location::ApHwEngine.key().into(), loc);
        self.derive();
        Ok(())
    }

    /// Service time in ns of one frame of `bytes` (MPDU body) at `loc`.
    pub fn frame_ns(&self, loc: Location, suite: CipherSuite, encrypt: bool, bytes: usize) -> Result<f64> {
        let l = self.locations.get(loc.key()).ok_or_else(|| Error::Costs(format!("the cost file has no '{}' entry", loc.key())))?;
        let key = suite_key(suite);
        let c = l.suites.get(key).ok_or_else(|| Error::Costs(format!("the cost file has no cost for {key} at '{}'", loc.key())))?;
        let lin = if encrypt { c.encrypt } else { c.decrypt };
        Ok(lin.at(bytes).max(0.0))
    }

    pub fn app_cipher(&self, name: &str) -> Result<&AppCipherCost> {
        self.app_ciphers.get(name).ok_or_else(|| {
            Error::Costs(format!(
                "the cost file has no application cipher '{name}' (has: {})",
                self.app_ciphers.keys().cloned().collect::<Vec<_>>().join(", ")
            ))
        })
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("serializable")
    }
}

/// The cost-file key of a suite. WEP-40 and WEP-104 run the same RC4 code on a 64- or
/// 128-bit seed, but are measured separately.
pub fn suite_key(s: CipherSuite) -> &'static str {
    s.name()
}

/// The first `hw/build/report.json` found from the current directory upwards, or in the
/// source tree wsec was built from.
pub fn hw_report_path() -> Option<std::path::PathBuf> {
    hw_report_candidates().into_iter().find(|p| p.exists())
}

fn hw_report_candidates() -> Vec<std::path::PathBuf> {
    let mut v = Vec::new();
    if let Ok(mut d) = std::env::current_dir() {
        loop {
            v.push(d.join(HW_REPORT));
            if !d.pop() {
                break;
            }
        }
    }
    v.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(HW_REPORT));
    v
}

/// Reads a scenario, cost file or hardware report whole: at most
/// [`wsec_base::input::limits::MODEL_FILE`] octets, counted while reading (a FIFO or
/// `/dev/zero` fails at the limit).
pub(crate) fn read_model_file(path: &Path) -> Result<String> {
    use wsec_base::input::{read_text_file, ReadError};
    let read_err = |source| Error::Read { path: path.to_path_buf(), source };
    match read_text_file(path, wsec_base::input::limits::MODEL_FILE) {
        Ok(t) => Ok(t.to_string()),
        Err(ReadError::Io(e)) => Err(read_err(e)),
        Err(e @ ReadError::TooLarge { .. }) => Err(read_err(std::io::Error::other(e.to_string()))),
    }
}
