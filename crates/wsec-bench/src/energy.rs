//! Energy per byte: measured with RAPL where the kernel exposes it, otherwise modelled with
//! seed 004's equation 7; and the share of a named battery that a gigabyte costs.
//!
//! # Measured: RAPL
//! Linux's powercap framework publishes the CPU package's energy counter (Intel RAPL, and
//! AMD's RAPL-compatible MSRs from Zen on) as `/sys/class/powercap/intel-rapl:N/energy_uj`
//! (microjoules, wrapping at `max_energy_range_uj`). [`Rapl`] sums the top-level *package*
//! zones (sub-zones such as `core` are inside them and are not added again). The counter
//! covers the whole package while the benchmark runs: other processes and the package's
//! idle power are included, so on a shared machine RAPL figures are upper bounds. Since
//! Linux 5.10 `energy_uj` is readable by root only. Virtual machines usually have no
//! powercap at all.
//!
//! # Modelled: seed 004, equation 7
//! `E = VCC x I x N x T`: supply voltage, average current, number of clock cycles and clock
//! period. `N x T` is the run time, so `E = VCC x I x t` with `t` measured here. The paper's
//! constants come from its worked example (section 4.3): "a 700 MHz CPU operating at 1.35
//! Volt, an encryption with 20,000 cycles would consume about 5.71x10^-3 mA-second or 7.7
//! uJoule": 20,000 / 700 MHz = 28.6 us, and 5.71e-6 A s / 28.6 us = 0.20 A, so `I = 0.20 A`
//! and `VCC = 1.35 V`, i.e. 0.27 W (the example follows its references [20, 22]; the text
//! also quotes 270 mA for a 486DX2 and 180 mA for a StrongARM). The model is a scaled
//! time, not a measurement: it ranks ciphers exactly as their run times do, and its
//! absolute values are those of the paper's 2009-class mobile CPU drawing 0.27 W, applied
//! to this CPU's times. Both constants can be replaced ([`Eq7`]).
use crate::error::{Error, Result};
use serde::Serialize;
use std::fs;
use std::path::{Path, PathBuf};

/// Where powercap lives.
pub const POWERCAP: &str = "/sys/class/powercap";
/// Where the kernel lists batteries and chargers.
pub const POWER_SUPPLY: &str = "/sys/class/power_supply";

/// How an energy figure was obtained (the `energy_method` field of reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Method {
    /// RAPL package energy counters read through powercap.
    #[serde(rename = "rapl")]
    Rapl,
    /// Seed 004's equation 7 with the constants of an [`Eq7`].
    #[serde(rename = "eq7-model")]
    Eq7Model,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Rapl => "rapl",
            Method::Eq7Model => "eq7-model",
        }
    }
}

/// One RAPL package zone.
#[derive(Clone, Debug)]
struct Zone {
    name: String,
    dir: PathBuf,
    energy: PathBuf,
    max_range_uj: u64,
}

/// The RAPL package zones of this machine.
#[derive(Clone, Debug)]
pub struct Rapl {
    zones: Vec<Zone>,
}

impl Rapl {
    /// The package zones under [`POWERCAP`], or why there are none usable.
    pub fn probe() -> Result<Rapl> {
        Self::probe_at(Path::new(POWERCAP))
    }

    /// The package zones under `root` (a powercap directory), or why there are none usable:
    /// no powercap, no package zone, or a counter that cannot be read (not root).
    pub fn probe_at(root: &Path) -> Result<Rapl> {
        let entries = fs::read_dir(root).map_err(Error::io(root))?;
        let mut zones = Vec::new();
        let mut names: Vec<String> = entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        for n in names {
            // Top-level zones are "intel-rapl:N"; "intel-rapl:N:M" are their sub-zones.
            let Some(idx) = n.strip_prefix("intel-rapl:") else { continue };
            if idx.contains(':') {
                continue;
            }
            let dir = root.join(&n);
            let name = fs::read_to_string(dir.join("name")).unwrap_or_default().trim().to_string();
            if !name.starts_with("package") {
                continue;
            }
            let energy = dir.join("energy_uj");
            read_u64(&energy).map_err(Error::io(&energy))?;
            let max_range_uj = read_u64(&dir.join("max_energy_range_uj")).unwrap_or(u64::MAX);
            zones.push(Zone { name, dir, energy, max_range_uj });
        }
        if zones.is_empty() {
            return Err(Error::Setup(format!("{}: no RAPL package zone", root.display())));
        }
        Ok(Rapl { zones })
    }

    /// The counters now, one per zone (microjoules).
    pub fn read(&self) -> std::io::Result<Vec<u64>> {
        self.zones.iter().map(|z| read_u64(&z.energy)).collect()
    }

    /// Energy between two readings of [`read`](Self::read), summed over zones, in
    /// microjoules; a counter that wrapped once is unwrapped.
    pub fn delta_uj(&self, before: &[u64], after: &[u64]) -> u64 {
        self.zones.iter().zip(before.iter().zip(after)).map(|(z, (&b, &a))| if a >= b { a - b } else { z.max_range_uj - b + a }).sum()
    }

    /// "package-0 (/sys/class/powercap/intel-rapl:0)", for the report.
    pub fn describe(&self) -> String {
        let zs: Vec<String> = self.zones.iter().map(|z| format!("{} ({})", z.name, z.dir.display())).collect();
        zs.join(", ")
    }
}

fn read_u64(p: &Path) -> std::io::Result<u64> {
    let s = fs::read_to_string(p)?;
    s.trim().parse().map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{e}")))
}

/// Seed 004's energy model, equation 7: `E = VCC x I x N x T` (= `VCC x I x t`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Eq7 {
    /// Supply voltage VCC (volts).
    pub vcc: f64,
    /// Average current I (amperes).
    pub amps: f64,
    /// Where the constants come from.
    pub source: String,
}

impl Eq7 {
    /// Seed 004's constants (section 4.3's worked example): 1.35 V and 0.20 A.
    pub fn seed004() -> Self {
        Eq7 {
            vcc: 1.35,
            amps: 0.20,
            source: "seed 004 sec. 4.3 worked example: 700 MHz CPU at 1.35 V, 20,000 cycles = \
                     5.71e-3 mA s = 7.7 uJ, so I = 0.20 A (after its refs [20, 22])"
                .into(),
        }
    }

    /// Power the model assumes (watts).
    pub fn watts(&self) -> f64 {
        self.vcc * self.amps
    }

    /// Energy (joules) of a run of `seconds`.
    pub fn joules(&self, seconds: f64) -> f64 {
        self.watts() * seconds
    }
}

/// How the benchmark gets energy: the meter it reads or the model it applies.
#[derive(Clone, Debug)]
pub enum Meter {
    Rapl(Rapl),
    Model(Eq7),
}

impl Meter {
    /// RAPL when it is readable, else the model and why RAPL was not used.
    pub fn auto(model: Eq7) -> (Meter, Option<Error>) {
        match Rapl::probe() {
            Ok(r) => (Meter::Rapl(r), None),
            Err(why) => (Meter::Model(model), Some(why)),
        }
    }

    pub fn method(&self) -> Method {
        match self {
            Meter::Rapl(_) => Method::Rapl,
            Meter::Model(_) => Method::Eq7Model,
        }
    }

    /// One line for the report.
    pub fn describe(&self) -> String {
        match self {
            Meter::Rapl(r) => format!("measured, RAPL {}", r.describe()),
            Meter::Model(m) => format!(
                "modelled, seed 004 eq. 7 E = VCC x I x t with VCC = {} V, I = {} A ({} W); {}",
                m.vcc,
                m.amps,
                fmt_g(m.watts()),
                m.source
            ),
        }
    }

    /// A reading to pass to [`stop`](Self::stop) (empty for the model).
    pub fn start(&self) -> Vec<u64> {
        match self {
            Meter::Rapl(r) => r.read().unwrap_or_default(),
            Meter::Model(_) => Vec::new(),
        }
    }

    /// Energy (joules) since `start` for a run that took `seconds`. `None` when a RAPL
    /// counter could not be read.
    pub fn stop(&self, start: &[u64], seconds: f64) -> Option<f64> {
        match self {
            Meter::Rapl(r) => {
                let now = r.read().ok()?;
                (start.len() == now.len()).then(|| r.delta_uj(start, &now) as f64 * 1e-6)
            }
            Meter::Model(m) => Some(m.joules(seconds)),
        }
    }
}

/// A named battery capacity to express energy as battery share.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Battery {
    pub name: String,
    /// Capacity in watt-hours.
    pub wh: f64,
}

impl Battery {
    /// The default: a 6-cell Li-ion laptop pack of 10.8 V x 4.4 Ah = 47.52 Wh, the common
    /// laptop battery of 2009-2010 (seed 004 measured on laptops without naming the pack).
    pub fn laptop_6cell() -> Self {
        Battery { name: "6-cell Li-ion laptop pack, 10.8 V x 4.4 Ah".into(), wh: 47.52 }
    }

    /// This machine's battery when the kernel lists one (design capacity), else `None`.
    pub fn of_this_machine() -> Option<Self> {
        Self::of_system_at(Path::new(POWER_SUPPLY))
    }

    /// The first battery under a `power_supply` directory.
    pub fn of_system_at(root: &Path) -> Option<Self> {
        let mut dirs: Vec<PathBuf> = fs::read_dir(root).ok()?.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        dirs.sort();
        for d in dirs {
            if fs::read_to_string(d.join("type")).map(|t| t.trim() != "Battery").unwrap_or(true) {
                continue;
            }
            let n = d.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let model = fs::read_to_string(d.join("model_name")).map(|s| s.trim().to_string()).unwrap_or_default();
            let name = if model.is_empty() { n } else { format!("{n} ({model})") };
            // energy_* in uWh; or charge_* in uAh with a voltage in uV.
            let uwh = read_u64(&d.join("energy_full_design")).or_else(|_| read_u64(&d.join("energy_full")));
            let wh = match uwh {
                Ok(e) => e as f64 * 1e-6,
                Err(_) => {
                    let uah = read_u64(&d.join("charge_full_design")).or_else(|_| read_u64(&d.join("charge_full")));
                    let uv = read_u64(&d.join("voltage_min_design")).or_else(|_| read_u64(&d.join("voltage_now")));
                    match (uah, uv) {
                        (Ok(q), Ok(v)) => q as f64 * 1e-6 * v as f64 * 1e-6,
                        _ => continue,
                    }
                }
            };
            if wh > 0.0 {
                return Some(Battery { name: format!("this machine's {name}"), wh });
            }
        }
        None
    }

    /// Percent of this battery that `uj_per_byte` costs per gigabyte (10^9 bytes).
    pub fn percent_per_gb(&self, uj_per_byte: f64) -> f64 {
        let joules_per_gb = uj_per_byte * 1e-6 * 1e9;
        joules_per_gb / (self.wh * 3600.0) * 100.0
    }
}

/// A number with 3 significant digits, as plain decimals where that reads well.
pub fn fmt_g(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let mag = x.abs().log10().floor() as i32;
    if (-3..6).contains(&mag) {
        let decimals = (2 - mag).max(0) as usize;
        format!("{x:.decimals$}")
    } else {
        format!("{x:.2e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed004_example_reproduces() {
        // The paper's example: 20,000 cycles at 700 MHz cost 7.7 uJ.
        let m = Eq7::seed004();
        let uj = m.joules(20_000.0 / 700e6) * 1e6;
        assert!((uj - 7.71).abs() < 0.01, "{uj}");
    }

    #[test]
    fn battery_share() {
        // 1 uJ/B = 1 kJ per GB; a 47.52 Wh pack holds 171,072 J.
        let b = Battery::laptop_6cell();
        let p = b.percent_per_gb(1.0);
        assert!((p - 1000.0 / 171_072.0 * 100.0).abs() < 1e-9);
    }

    fn tmpdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("wsec-energy-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn rapl_zones_and_wrap() {
        let root = tmpdir("rapl");
        for (zone, name, e) in [("intel-rapl:0", "package-0", "1000"), ("intel-rapl:0:0", "core", "5"), ("intel-rapl:1", "psys", "7")] {
            let z = root.join(zone);
            fs::create_dir_all(&z).unwrap();
            fs::write(z.join("name"), format!("{name}\n")).unwrap();
            fs::write(z.join("energy_uj"), format!("{e}\n")).unwrap();
            fs::write(z.join("max_energy_range_uj"), "2000\n").unwrap();
        }
        let r = Rapl::probe_at(&root).unwrap();
        assert_eq!(r.read().unwrap(), vec![1000]);
        assert_eq!(r.delta_uj(&[1000], &[1500]), 500);
        assert_eq!(r.delta_uj(&[1900], &[100]), 200);
        assert!(Rapl::probe_at(&root.join("none")).is_err());
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn system_battery() {
        let root = tmpdir("bat");
        fs::create_dir_all(root.join("AC")).unwrap();
        fs::write(root.join("AC/type"), "Mains\n").unwrap();
        fs::create_dir_all(root.join("BAT0")).unwrap();
        fs::write(root.join("BAT0/type"), "Battery\n").unwrap();
        fs::write(root.join("BAT0/charge_full_design"), "4400000\n").unwrap();
        fs::write(root.join("BAT0/voltage_min_design"), "10800000\n").unwrap();
        let b = Battery::of_system_at(&root).unwrap();
        assert!((b.wh - 47.52).abs() < 1e-9);
        assert!(b.name.contains("BAT0"));
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn number_format() {
        assert_eq!(fmt_g(0.27), "0.270");
        assert_eq!(fmt_g(1234.4), "1234");
        assert_eq!(fmt_g(0.000123), "1.23e-4");
    }
}
