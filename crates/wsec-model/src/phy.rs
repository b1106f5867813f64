//! PHY timing: the interframe spaces, slot, contention window bounds and the TXTIME of a
//! PPDU for the PHYs the model offers.
//!
//! | PHY | clause of IEEE 802.11-2020 | TXTIME |
//! |---|---|---|
//! | FHSS (802.11-1997; Bianchi's parameters) | 802.11-1997 clause 14 | `(preamble + header + 8L) / rate` |
//! | DSSS/HR-DSSS (802.11b) | 15, 16 (eq. 16-3) | `PLCP preamble + header + ceil(8L / rate)` |
//! | OFDM (802.11a) | 17.4.3 (eq. 17-29) | `20 + 4 ceil((16 + 8L + 6) / N_DBPS)` |
//! | ERP-OFDM (802.11g) | 18.5.2 | OFDM TXTIME + 6 µs signal extension |
//! | HT mixed format, one spatial stream, 20 MHz (802.11n) | 19.4.3 (eq. 19-135) | `36 + T_SYM ceil(...)`, + 6 µs at 2.4 GHz |
//!
//! All times are integer nanoseconds so the event order never depends on rounding.
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Nanoseconds.
pub type Ns = u64;
pub const US: Ns = 1_000;
pub const MS: Ns = 1_000_000;
pub const SEC: Ns = 1_000_000_000;

/// The PHY family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PhyKind {
    /// 802.11-1997 FHSS at 1 Mb/s, as in Bianchi (JSAC 2000) Table I.
    Fhss,
    /// 802.11b HR/DSSS: 1, 2, 5.5, 11 Mb/s.
    B,
    /// 802.11a OFDM: 6..54 Mb/s.
    A,
    /// 802.11g ERP-OFDM: 6..54 Mb/s.
    G,
    /// 802.11n HT, one spatial stream, 20 MHz: MCS 0-7.
    N,
}

impl std::str::FromStr for PhyKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "fhss" => Ok(PhyKind::Fhss),
            "b" | "11b" | "802.11b" => Ok(PhyKind::B),
            "a" | "11a" | "802.11a" => Ok(PhyKind::A),
            "g" | "11g" | "802.11g" => Ok(PhyKind::G),
            "n" | "11n" | "802.11n" => Ok(PhyKind::N),
            _ => Err(Error::Spec(format!("unknown PHY '{s}' (expected b, a, g, n or fhss)"))),
        }
    }
}

/// Every parameter of the PHY that the MAC timing depends on. Built by [`Phy::new`] with the
/// standard's values; any field may be overridden (the Bianchi validation does so).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Phy {
    pub kind: PhyKind,
    /// Data rate in kb/s (for HT: the MCS rate, with the guard interval chosen).
    pub rate_kbps: u32,
    pub slot: Ns,
    pub sifs: Ns,
    /// aCWmin and aCWmax (backoff drawn uniformly from 0..=CW).
    pub cw_min: u32,
    pub cw_max: u32,
    /// Propagation delay added after every frame (Bianchi's δ). Real PHYs fold
    /// aAirPropagationTime into the slot, so the default is 0 except for FHSS.
    pub prop_delay: Ns,
    /// 802.11b: short PLCP preamble (96 µs) instead of long (192 µs).
    pub short_preamble: bool,
    /// 802.11n: 400 ns guard interval.
    pub short_gi: bool,
    /// 802.11n: 2.4 GHz band (adds the 6 µs signal extension, SIFS 10 µs).
    pub band_2g4: bool,
    /// Rate (kb/s) of control responses (ACK, CTS, BlockAck) and of RTS; `None` picks the
    /// highest mandatory/basic rate not above the data rate (10.6.6.5.2).
    pub control_rate_kbps: Option<u32>,
    /// Rate (kb/s) of beacons: the lowest basic rate by default.
    pub beacon_rate_kbps: u32,
}

impl Phy {
    /// The standard's parameters for `kind` at `rate_mbps` (for HT, a rate of MCS 0-7 with
    /// long or short GI, e.g. 65 or 72.2).
    pub fn new(kind: PhyKind, rate_mbps: f64) -> Result<Phy> {
        let rate_kbps = (rate_mbps * 1000.0).round() as u32;
        let ok = |set: &[u32]| set.contains(&rate_kbps);
        let mut p = Phy {
            kind,
            rate_kbps,
            slot: 20 * US,
            sifs: 10 * US,
            cw_min: 31,
            cw_max: 1023,
            prop_delay: 0,
            short_preamble: false,
            short_gi: false,
            band_2g4: true,
            control_rate_kbps: None,
            beacon_rate_kbps: 1000,
        };
        match kind {
            PhyKind::Fhss => {
                if !ok(&[1000, 2000]) {
                    return Err(Error::Spec(format!("FHSS offers 1 and 2 Mb/s, not {rate_mbps}")));
                }
                // 802.11-1997 FHSS: slot 50 µs, SIFS 28 µs, aCWmin 15 (Bianchi varies W).
                p.slot = 50 * US;
                p.sifs = 28 * US;
                p.cw_min = 15;
                p.prop_delay = US;
            }
            PhyKind::B => {
                if !ok(&[1000, 2000, 5500, 11000]) {
                    return Err(Error::Spec(format!("802.11b offers 1, 2, 5.5 and 11 Mb/s, not {rate_mbps}")));
                }
            }
            PhyKind::A | PhyKind::G => {
                if !ok(&[6000, 9000, 12000, 18000, 24000, 36000, 48000, 54000]) {
                    return Err(Error::Spec(format!("OFDM offers 6, 9, 12, 18, 24, 36, 48 and 54 Mb/s, not {rate_mbps}")));
                }
                p.slot = 9 * US;
                p.cw_min = 15;
                if kind == PhyKind::A {
                    p.sifs = 16 * US;
                    p.band_2g4 = false;
                    p.beacon_rate_kbps = 6000;
                }
            }
            PhyKind::N => {
                let long = [6500, 13000, 19500, 26000, 39000, 52000, 58500, 65000];
                let short = [7200, 14400, 21700, 28900, 43300, 57800, 65000, 72200];
                if ok(&long) {
                    p.short_gi = false;
                } else if ok(&short) {
                    p.short_gi = true;
                } else {
                    return Err(Error::Spec(format!(
                        "802.11n (one stream, 20 MHz) offers MCS 0-7: 6.5..65 Mb/s (800 ns GI) or 7.2..72.2 Mb/s (400 ns GI), not {rate_mbps}"
                    )));
                }
                p.slot = 9 * US;
                p.cw_min = 15;
            }
        }
        Ok(p)
    }

    /// Puts an HT PHY in the 5 GHz band (SIFS 16 µs, no signal extension, 6 Mb/s beacons).
    pub fn set_band_5g(&mut self) {
        if matches!(self.kind, PhyKind::N | PhyKind::A) {
            self.band_2g4 = false;
            self.sifs = 16 * US;
            self.beacon_rate_kbps = 6000;
        }
    }

    /// The data rates of this PHY up to and including the configured one, lowest first
    /// (the rungs of a rate control): 802.11b 1-11, OFDM 6-54, HT MCS 0-7 with this GI.
    pub fn rate_ladder(&self) -> Vec<u32> {
        let all: &[u32] = match self.kind {
            PhyKind::Fhss => &[1000, 2000],
            PhyKind::B => &[1000, 2000, 5500, 11000],
            PhyKind::A | PhyKind::G => &[6000, 9000, 12000, 18000, 24000, 36000, 48000, 54000],
            PhyKind::N if self.short_gi => &[7200, 14400, 21700, 28900, 43300, 57800, 65000, 72200],
            PhyKind::N => &[6500, 13000, 19500, 26000, 39000, 52000, 58500, 65000],
        };
        all.iter().copied().filter(|&r| r <= self.rate_kbps).collect()
    }

    /// DIFS = SIFS + 2 slots (10.3.2.3.5).
    pub fn difs(&self) -> Ns {
        self.sifs + 2 * self.slot
    }

    /// PIFS = SIFS + 1 slot.
    pub fn pifs(&self) -> Ns {
        self.sifs + self.slot
    }

    /// EIFS = SIFS + ACK time at the lowest mandatory rate + DIFS (10.3.2.3.7).
    pub fn eifs(&self) -> Ns {
        self.sifs + self.eifs_ack_time() + self.difs()
    }

    /// The ACK time inside EIFS (10.3.2.3.7; 802.11-2016 Table 10-5 "EstimatedAckTxTime"):
    /// a 14-octet ACK at the PHY's lowest mandatory rate, 1 Mb/s DSSS in the 2.4 GHz band
    /// (304 µs; ns-3 3.37 `WifiPhy::Configure80211b/g/n` uses the same 304 µs) and 6 Mb/s
    /// OFDM at 5 GHz (44 µs, ns-3's `Configure80211a`).
    pub fn eifs_ack_time(&self) -> Ns {
        let lowest = match self.kind {
            PhyKind::Fhss | PhyKind::B => 1000,
            PhyKind::A => 6000,
            PhyKind::G | PhyKind::N => {
                if self.band_2g4 {
                    1000
                } else {
                    6000
                }
            }
        };
        self.legacy_txtime(14, lowest)
    }

    /// ACKTimeout = aSIFSTime + aSlotTime + aRxPHYStartDelay (10.3.2.11): how long the sender
    /// of a frame that needs an ACK waits before it counts the frame as lost. aRxPHYStartDelay
    /// is taken as the preamble and PHY header of the response at the control rate (192 µs
    /// DSSS long preamble, 96 short, 20 µs OFDM/ERP-OFDM, 128 µs FHSS), which is what ns-3
    /// 3.37 uses (`FrameExchangeManager`: SIFS + slot + `CalculatePhyPreambleAndHeaderDuration`
    /// of the ACK's TXVECTOR); the PHY tables give 25 µs for 20 MHz OFDM (Table 17-21).
    pub fn ack_timeout(&self) -> Ns {
        let rate = self.control_rate();
        let dsss = match self.kind {
            PhyKind::B => true,
            PhyKind::G | PhyKind::N => self.band_2g4 && (rate < 6000 || [5500, 11000].contains(&rate)),
            _ => false,
        };
        let start = match self.kind {
            PhyKind::Fhss => 128 * US,
            _ if dsss => {
                if self.short_preamble && rate != 1000 {
                    96 * US
                } else {
                    192 * US
                }
            }
            _ => 20 * US,
        };
        self.sifs + self.slot + start
    }

    /// The rate of control frames sent in response to (or ahead of) a data frame.
    pub fn control_rate(&self) -> u32 {
        if let Some(r) = self.control_rate_kbps {
            return r;
        }
        let set: &[u32] = match self.kind {
            PhyKind::Fhss => &[1000],
            // hostapd's default BSSBasicRateSet for hw_mode=b is {1, 2} Mb/s
            // (`basic_rates_b` in src/ap/hw_features.c; {1, 2, 5.5, 11} is its hw_mode=g
            // set), and ns-3 3.37's is the same (ApWifiMac leaves HR/DSSS out): ACKs to 5.5
            // and 11 Mb/s data go at 2 Mb/s.
            PhyKind::B => &[1000, 2000],
            // Mandatory OFDM rates (17.3.5.?, 10.6.6.5.2): 6, 12, 24 Mb/s.
            PhyKind::A | PhyKind::G | PhyKind::N => &[6000, 12000, 24000],
        };
        let r = if self.kind == PhyKind::N { self.legacy_equivalent() } else { self.rate_kbps };
        set.iter().copied().filter(|&c| c <= r).max().unwrap_or(set[0])
    }

    /// For HT: the non-HT rate used to choose the control response rate (10.6.6.5.2: the
    /// non-HT reference rate of the MCS).
    fn legacy_equivalent(&self) -> u32 {
        // MCS 0-7 map to 6, 12, 18, 24, 36, 48, 54, 54 Mb/s.
        let mcs = self.ht_mcs();
        [6000, 12000, 18000, 24000, 36000, 48000, 54000, 54000][mcs as usize]
    }

    fn ht_mcs(&self) -> u32 {
        let long = [6500, 13000, 19500, 26000, 39000, 52000, 58500, 65000];
        let short = [7200, 14400, 21700, 28900, 43300, 57800, 65000, 72200];
        let set = if self.short_gi { short } else { long };
        set.iter().position(|&r| r == self.rate_kbps).unwrap_or(0) as u32
    }

    /// TXTIME of a PPDU of `bytes` octets (MPDU incl. FCS) at the data rate.
    pub fn data_txtime(&self, bytes: usize) -> Ns {
        if self.kind == PhyKind::N {
            self.ht_txtime(bytes)
        } else {
            self.legacy_txtime(bytes, self.rate_kbps)
        }
    }

    /// TXTIME of a non-HT PPDU at `rate_kbps` (any of this PHY's legacy rates).
    pub fn legacy_txtime(&self, bytes: usize, rate_kbps: u32) -> Ns {
        let bits = 8 * bytes as u64;
        match self.kind {
            PhyKind::Fhss => {
                // 128 µs PLCP preamble + header at 1 Mb/s, then the MPDU.
                128 * US + div_ceil(bits * SEC, rate_kbps as u64 * 1000)
            }
            PhyKind::B => self.dsss_txtime(bits, rate_kbps),
            PhyKind::G | PhyKind::N if self.band_2g4 && rate_kbps < 6000 || [5500, 11000].contains(&rate_kbps) => {
                self.dsss_txtime(bits, rate_kbps)
            }
            PhyKind::A | PhyKind::G | PhyKind::N => {
                let ndbps = rate_kbps as u64 * 4 / 1000;
                let nsym = div_ceil(16 + bits + 6, ndbps);
                let ext = if self.kind != PhyKind::A && self.band_2g4 { 6 * US } else { 0 };
                20 * US + 4 * US * nsym + ext
            }
        }
    }

    /// HR/DSSS (16.3.4, eq. 16-3; 15.3 for 1 and 2 Mb/s): PLCP + ceil(8L / rate) µs.
    fn dsss_txtime(&self, bits: u64, rate_kbps: u32) -> Ns {
        let plcp = if self.short_preamble && rate_kbps != 1000 { 96 * US } else { 192 * US };
        plcp + US * div_ceil(bits * 1000, rate_kbps as u64)
    }

    /// HT-mixed format, one stream, 20 MHz, BCC (19.4.3 eq. 19-135/19-136):
    /// L-STF 8 + L-LTF 8 + L-SIG 4 + HT-SIG 8 + HT-STF 4 + 1 HT-LTF 4 = 36 µs, then data
    /// symbols of 4 µs (or 3.6 µs with short GI, rounded up to the 4 µs grid).
    fn ht_txtime(&self, bytes: usize) -> Ns {
        let ndbps = [26u64, 52, 78, 104, 156, 208, 234, 260][self.ht_mcs() as usize];
        let nsym = div_ceil(16 + 8 * bytes as u64 + 6, ndbps);
        let data = if self.short_gi { 4 * US * div_ceil(nsym * 36, 40) } else { 4 * US * nsym };
        let ext = if self.band_2g4 { 6 * US } else { 0 };
        36 * US + data + ext
    }

    /// ACK (14 octets) at the control rate.
    pub fn ack_time(&self) -> Ns {
        self.legacy_txtime(14, self.control_rate())
    }
    /// CTS (14 octets) at the control rate.
    pub fn cts_time(&self) -> Ns {
        self.legacy_txtime(14, self.control_rate())
    }
    /// RTS (20 octets) at the control rate.
    pub fn rts_time(&self) -> Ns {
        self.legacy_txtime(20, self.control_rate())
    }
    /// Compressed BlockAck (32 octets) at the control rate.
    pub fn block_ack_time(&self) -> Ns {
        self.legacy_txtime(32, self.control_rate())
    }
    /// A beacon of `bytes` octets at the beacon rate.
    pub fn beacon_time(&self, bytes: usize) -> Ns {
        self.legacy_txtime(bytes, self.beacon_rate_kbps)
    }
}

pub fn div_ceil(a: u64, b: u64) -> u64 {
    a.div_ceil(b)
}
