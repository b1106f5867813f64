//! The channel access function of every node: the DCF (10.3.2, DIFS = SIFS + 2 slots) or one
//! EDCA access category (10.23.2) with the default parameters of IEEE 802.11-2020 Table 9-155
//! (dot11EDCATable for a non-AP STA; the model gives the AP the same values, as ns-3 does).
//!
//! | AC | CWmin | CWmax | AIFSN | TXOP limit (OFDM/HT) |
//! |---|---|---|---|---|
//! | BK | aCWmin | aCWmax | 7 | 0 |
//! | BE | aCWmin | aCWmax | 3 | 0 |
//! | VI | (aCWmin+1)/2-1 | aCWmin | 2 | 3.008 ms |
//! | VO | (aCWmin+1)/4-1 | (aCWmin+1)/2-1 | 2 | 1.504 ms |
//!
//! EDCA also differs from the DCF in when the backoff counter moves (10.23.2.5): at each
//! slot boundary an EDCAF either decrements its counter or transmits, and the first boundary
//! is the end of AIFS; so a counter frozen by a busy period that began at or after that
//! boundary has lost one more slot than a DCF counter would (ns-3's `UpdateBackoff` adds
//! the same slot for a QoS Txop). TXOP bursts are not modelled: every access sends one
//! frame (or one A-MPDU), which is exact for BE and BK.
use crate::error::{Error, Result};
use crate::phy::{Ns, Phy};
use serde::{Deserialize, Serialize};

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
}

impl Access {
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
        AccessParams { aifsn, cw_min, cw_max, edca: self != Access::Dcf }
    }
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
        assert_eq!(Access::Be.params(&p), AccessParams { aifsn: 3, cw_min: 15, cw_max: 1023, edca: true });
        assert_eq!(Access::Vi.params(&p), AccessParams { aifsn: 2, cw_min: 7, cw_max: 15, edca: true });
        assert_eq!(Access::Vo.params(&p), AccessParams { aifsn: 2, cw_min: 3, cw_max: 7, edca: true });
        assert_eq!(Access::Bk.params(&p).aifs(&p), 79 * US);
        assert_eq!(Access::Dcf.params(&p).aifs(&p), 34 * US);
        assert!("xx".parse::<Access>().is_err());
    }
}
