//! The channel access function of every node: the DCF (10.3.2, DIFS = SIFS + 2 slots) or one
//! EDCA access category (10.23.2) with the default parameters of IEEE 802.11-2020 Table 9-155
//! (dot11EDCATable for a non-AP STA; the model gives the AP the same values, as ns-3 does).
//!
//! | AC | CWmin | CWmax | AIFSN | TXOP limit (OFDM/HT) |
//! |---|---|---|---|---|
//! | BK | aCWmin | aCWmax | 7 | 0 |
//! | BE | aCWmin | aCWmax | 3 | 0 |
//! | VI | (aCWmin+1)/2-1 | aCWmin | 2 | 3.008 ms (WMM; [`Access::txop_limit`]) |
//! | VO | (aCWmin+1)/4-1 | (aCWmin+1)/2-1 | 2 | 1.504 ms (WMM) |
//!
//! EDCA also differs from the DCF in when the backoff counter moves (10.23.2.5): at each
//! slot boundary an EDCAF either decrements its counter or transmits, and the first boundary
//! is the end of AIFS; so a counter frozen by a busy period that began at or after that
//! boundary has lost one more slot than a DCF counter would (ns-3's `UpdateBackoff` adds
//! the same slot for a QoS Txop).
//!
//! Several categories may share a node (a flow's `ac`): each has its own queue and EDCAF.
//! When two of one node's EDCAFs reach the end of their backoff in the same slot, the
//! higher-priority one (VO > VI > BE > BK) gets the TXOP and the others invoke their backoff
//! procedure as after a failed transmission: CW doubled, retry counter up (10.23.2.4,
//! "internal collision"; ns-3's `Txop::NotifyInternalCollision`). A category whose TXOP
//! limit is not 0 keeps the medium after a successful exchange and sends its next queued
//! frames, each SIFS after the last ACK, while the whole sequence fits in the limit
//! (10.23.2.9); a failure inside the burst ends it and the EDCAF backs off.
//!
//! The defaults are overridden with hostapd's configuration names (`mac.edca`):
//! `wmm_ac_{bk,be,vi,vo}_{aifs,cwmin,cwmax,txop_limit}` for the stations (the WMM Parameter
//! element the AP advertises; cwmin/cwmax as exponents, CW = 2^x - 1; txop_limit in units
//! of 32 µs) and `tx_queue_data{0..3}_{aifs,cwmin,cwmax,burst}` for the AP itself (data0 = VO,
//! data1 = VI, data2 = BE, data3 = BK; cwmin/cwmax as windows; burst in ms), as in
//! hostapd.conf.
use crate::error::{Error, Result};
use crate::phy::{Ns, Phy, PhyKind, US};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Which access function the nodes use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Distributed coordination function: DIFS, CW from the PHY.
    Dcf,
    /// EDCA AC_BK (background).
    Bk,
    /// EDCA AC_BE (best effort): what HT (WMM) networks and ns-3's 802.11n use for UDP with
    /// DSCP 0.
    Be,
    /// EDCA AC_VI (video).
    Vi,
    /// EDCA AC_VO (voice).
    Vo,
}

impl std::str::FromStr for Access {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "dcf" => Ok(Access::Dcf),
            "bk" | "ac_bk" => Ok(Access::Bk),
            "be" | "ac_be" => Ok(Access::Be),
            "vi" | "ac_vi" => Ok(Access::Vi),
            "vo" | "ac_vo" => Ok(Access::Vo),
            _ => Err(Error::Spec(format!("unknown access function '{s}' (expected dcf, be, bk, vi or vo)"))),
        }
    }
}

/// The timing one access function gives a PHY.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccessParams {
    pub aifsn: u32,
    pub cw_min: u32,
    pub cw_max: u32,
    /// EDCA's slot-boundary rule (see the module text).
    pub edca: bool,
    /// TXOP limit (0: one frame, or one A-MPDU, per access).
    pub txop_limit: Ns,
}

impl Access {
    /// Every access function, in index order ([`Access::index`]).
    pub const ALL: [Access; 5] = [Access::Dcf, Access::Bk, Access::Be, Access::Vi, Access::Vo];

    /// Position in [`Access::ALL`]; also the priority of internal collisions (10.23.2.4:
    /// VO > VI > BE > BK; the DCF never shares a node with a category).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The default TXOP limit of this category on `kind`: AC_VI 6.016 ms and AC_VO 3.264 ms
    /// for the DSSS/HR-DSSS PHYs (Clauses 15, 16), 3.008 ms and 1.504 ms for the OFDM, ERP
    /// and HT PHYs; 0 for BE, BK, the DCF and the FHSS PHY. These are the WMM values that
    /// APs advertise (hostapd's defaults `wmm_ac_vi_txop_limit=94`, `wmm_ac_vo_txop_limit=47`
    /// in 32 µs units) and the 802.11-2012 table's. ns-3 3.37 (`WifiMac::ConfigureDcf`,
    /// citing IEEE 802.11-2020 Table 9-155) uses 4.096 ms and 2.080 ms for the non-DSSS PHYs;
    /// `mac.edca.wmm_ac_vi_txop_limit = 128` / `wmm_ac_vo_txop_limit = 65` give those.
    pub fn txop_limit(self, kind: PhyKind) -> Ns {
        let us = match (self, kind) {
            (_, PhyKind::Fhss) => 0,
            (Access::Vi, PhyKind::B) => 6016,
            (Access::Vo, PhyKind::B) => 3264,
            (Access::Vi, _) => 3008,
            (Access::Vo, _) => 1504,
            _ => 0,
        };
        us * US
    }

    /// The parameters of this access function on `phy` (whose `cw_min`/`cw_max` are aCWmin
    /// and aCWmax).
    pub fn params(self, phy: &Phy) -> AccessParams {
        let (a_min, a_max) = (phy.cw_min, phy.cw_max);
        let (aifsn, cw_min, cw_max) = match self {
            Access::Dcf => (2, a_min, a_max),
            Access::Bk => (7, a_min, a_max),
            Access::Be => (3, a_min, a_max),
            // (aCWmin + 1)/2 - 1 and (aCWmin + 1)/4 - 1 in the table; aCWmin is 2^k - 1.
            Access::Vi => (2, a_min.div_ceil(2) - 1, a_min),
            Access::Vo => (2, (a_min + 1) / 4 - 1, a_min.div_ceil(2) - 1),
        };
        AccessParams { aifsn, cw_min, cw_max, edca: self != Access::Dcf, txop_limit: self.txop_limit(phy.kind) }
    }

    /// The parameters with hostapd-named overrides from `mac.edca` applied: `wmm_ac_*` for a
    /// station, `tx_queue_data*` for the AP (module text).
    pub fn params_with(self, phy: &Phy, overrides: &BTreeMap<String, f64>, ap: bool) -> Result<AccessParams> {
        let mut p = self.params(phy);
        let (wmm, txq) = match self {
            Access::Dcf => return Ok(p),
            Access::Bk => ("bk", 3),
            Access::Be => ("be", 2),
            Access::Vi => ("vi", 1),
            Access::Vo => ("vo", 0),
        };
        let get = |k: String| overrides.get(&k).copied();
        let window = |x: f64, key: &str| -> Result<u32> {
            if x.fract() == 0.0 && (0.0..=32767.0).contains(&x) && (x as u32 + 1).is_power_of_two() {
                Ok(x as u32)
            } else {
                Err(Error::Spec(format!("mac.edca.{key} = {x}: a contention window is 2^k - 1, at most 32767")))
            }
        };
        if ap {
            let k = |f: &str| format!("tx_queue_data{txq}_{f}");
            if let Some(x) = get(k("aifs")) {
                p.aifsn = aifsn(x, &k("aifs"))?;
            }
            if let Some(x) = get(k("cwmin")) {
                p.cw_min = window(x, &k("cwmin"))?;
            }
            if let Some(x) = get(k("cwmax")) {
                p.cw_max = window(x, &k("cwmax"))?;
            }
            if let Some(x) = get(k("burst")) {
                if !(0.0..=8.16).contains(&x) {
                    return Err(Error::Spec(format!("mac.edca.{} = {x}: burst is 0..=8.16 ms", k("burst"))));
                }
                p.txop_limit = (x * 1e6).round() as Ns;
            }
        } else {
            let k = |f: &str| format!("wmm_ac_{wmm}_{f}");
            if let Some(x) = get(k("aifs")) {
                p.aifsn = aifsn(x, &k("aifs"))?;
            }
            for (f, slot) in [("cwmin", &mut p.cw_min), ("cwmax", &mut p.cw_max)] {
                if let Some(x) = get(k(f)) {
                    if !(x.fract() == 0.0 && (0.0..=15.0).contains(&x)) {
                        return Err(Error::Spec(format!("mac.edca.{} = {x}: ECW is an exponent 0..=15", k(f))));
                    }
                    *slot = (1u32 << x as u32) - 1;
                }
            }
            if let Some(x) = get(k("txop_limit")) {
                if !(x.fract() == 0.0 && (0.0..=255.0).contains(&x)) {
                    return Err(Error::Spec(format!("mac.edca.{} = {x}: TXOP limit is 0..=255 units of 32 µs", k("txop_limit"))));
                }
                p.txop_limit = x as Ns * 32 * US;
            }
        }
        if p.cw_max < p.cw_min {
            return Err(Error::Spec(format!("mac.edca: AC_{} cwmax {} below cwmin {}", wmm.to_uppercase(), p.cw_max, p.cw_min)));
        }
        Ok(p)
    }
}

fn aifsn(x: f64, key: &str) -> Result<u32> {
    if x.fract() == 0.0 && (1.0..=15.0).contains(&x) {
        Ok(x as u32)
    } else {
        Err(Error::Spec(format!("mac.edca.{key} = {x}: AIFSN is 1..=15")))
    }
}

/// Checks that every key of `mac.edca` is one hostapd knows (module text).
pub fn check_keys(overrides: &BTreeMap<String, f64>) -> Result<()> {
    for k in overrides.keys() {
        let ok = ["bk", "be", "vi", "vo"]
            .iter()
            .any(|a| ["aifs", "cwmin", "cwmax", "txop_limit"].iter().any(|f| *k == format!("wmm_ac_{a}_{f}")))
            || (0..4).any(|q| ["aifs", "cwmin", "cwmax", "burst"].iter().any(|f| *k == format!("tx_queue_data{q}_{f}")));
        if !ok {
            return Err(Error::Spec(format!(
                "mac.edca: unknown key '{k}' (hostapd's wmm_ac_{{bk,be,vi,vo}}_{{aifs,cwmin,cwmax,txop_limit}} or tx_queue_data{{0..3}}_{{aifs,cwmin,cwmax,burst}})"
            )));
        }
    }
    Ok(())
}

impl AccessParams {
    /// AIFS = SIFS + AIFSN x slot (10.3.2.3.6); DIFS for the DCF.
    pub fn aifs(&self, phy: &Phy) -> Ns {
        phy.sifs + self.aifsn as Ns * phy.slot
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::{PhyKind, US};

    #[test]
    fn table_9_155_on_ofdm() {
        // aCWmin 15, aCWmax 1023 (Table 17-21): VI 7/15, VO 3/7; AIFS = 16 + AIFSN x 9 µs.
        let p = Phy::new(PhyKind::A, 54.0).unwrap();
        assert_eq!(Access::Be.params(&p), AccessParams { aifsn: 3, cw_min: 15, cw_max: 1023, edca: true, txop_limit: 0 });
        assert_eq!(Access::Vi.params(&p), AccessParams { aifsn: 2, cw_min: 7, cw_max: 15, edca: true, txop_limit: 3008 * US });
        assert_eq!(Access::Vo.params(&p), AccessParams { aifsn: 2, cw_min: 3, cw_max: 7, edca: true, txop_limit: 1504 * US });
        assert_eq!(Access::Bk.params(&p).aifs(&p), 79 * US);
        assert_eq!(Access::Dcf.params(&p).aifs(&p), 34 * US);
        assert!("xx".parse::<Access>().is_err());
        // Clause 15/16 PHYs: the longer DSSS limits.
        let b = Phy::new(PhyKind::B, 11.0).unwrap();
        assert_eq!(Access::Vi.params(&b).txop_limit, 6016 * US);
        assert_eq!(Access::Vo.params(&b).txop_limit, 3264 * US);
    }

    #[test]
    fn hostapd_names_override_the_table() {
        let p = Phy::new(PhyKind::G, 54.0).unwrap();
        let m: BTreeMap<String, f64> =
            [("wmm_ac_vi_cwmin", 2.0), ("wmm_ac_vi_txop_limit", 47.0), ("tx_queue_data1_cwmin", 15.0), ("tx_queue_data1_burst", 1.5)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
        check_keys(&m).unwrap();
        let sta = Access::Vi.params_with(&p, &m, false).unwrap();
        assert_eq!((sta.cw_min, sta.cw_max, sta.txop_limit), (3, 15, 1504 * US));
        let ap = Access::Vi.params_with(&p, &m, true).unwrap();
        assert_eq!((ap.cw_min, ap.cw_max, ap.txop_limit), (15, 15, 1500 * US));
        // The BE category is untouched by VI keys.
        assert_eq!(Access::Be.params_with(&p, &m, false).unwrap(), Access::Be.params(&p));
        let bad = |k: &str, v: f64| {
            let m: BTreeMap<String, f64> = [(k.to_string(), v)].into_iter().collect();
            check_keys(&m).and_then(|_| Access::Vi.params_with(&p, &m, k.starts_with("tx_queue")).map(|_| ()))
        };
        assert!(bad("wmm_ac_vi_cwmin", 16.0).is_err());
        assert!(bad("wmm_ac_vi_aifs", 0.0).is_err());
        assert!(bad("tx_queue_data1_cwmin", 6.0).is_err());
        assert!(bad("wmm_ac_xx_aifs", 2.0).is_err());
        assert!(bad("wmm_ac_vi_cwmax", 1.0).is_err()); // cwmax 1 below cwmin 7
    }
}
