//! The AP's side of OWE (RFC 8110 4.3-4.4; hostapd `owe_process_assoc_req` and the OWE part
//! of `send_assoc_resp`): the station's Diffie-Hellman Parameter element in the
//! (Re)Association Request, our key pair for its group, the PMK and PMKID, the Association
//! Response's RSN and Diffie-Hellman Parameter elements; or, when the station names the
//! PMKID of a cached OWE PMKSA, that PMK and no new exchange (12.6.10.3).

use super::sae::Pmksa;
use super::AccessPoint;
use crate::node::owe::{akm_for_pmk, group};
use crate::rsn::akm::Akm;
use crate::rsn::ie::RsnElementRepr;
use crate::rsn::owe::{dh_param_element, owe_pmk, parse_dh_param_element, OweKeyPair};
use crate::wire::mac::MacAddr;
use crate::wire::mgmt::StatusCode;
use zeroize::Zeroizing;

/// What a successful OWE association gives: the AKM the 4-way handshake runs with (its
/// hash follows the group), the PMK, and the elements the Association Response carries.
pub(super) struct OweAssoc {
    pub akm: Akm,
    pub pmk: Zeroizing<Vec<u8>>,
    pub resp_elements: Vec<u8>,
}

impl AccessPoint {
    /// The OWE part of an Association Request with AKM 18 in `rsne`; `dh` the station's
    /// OWE Diffie-Hellman Parameter element (whole element). The status on refusal:
    /// 43 without a (well-formed) element (hostapd `wpa_validate_wpa_ie`: "No
    /// Diffie-Hellman Parameter element"), 77 for a group not in `owe_groups`, 1 for a
    /// public key that is not a point of the group (hostapd: "Invalid peer DH public key").
    pub(super) fn owe_assoc(&mut self, now: u64, sta: &MacAddr, rsne: &[u8], dh: Option<&[u8]>) -> Result<OweAssoc, StatusCode> {
        let ap_rsne = self.rsne.clone().unwrap_or_default();
        // PMKSA caching: the PMKID of our OWE PMKSA with this station; the response names it
        // in our RSNE and has no Diffie-Hellman element (wpa_supplicant then uses its cache).
        if let Some((pmk, pmkid)) = self.cached_owe_pmksa(now, sta, rsne) {
            let akm = akm_for_pmk(&pmk).ok_or(StatusCode::UNSPECIFIED)?;
            let mut e = RsnElementRepr::parse(&ap_rsne).map_err(|_| StatusCode::UNSPECIFIED)?;
            e.pmkids = vec![pmkid];
            let resp_elements = e.to_bytes().map_err(|_| StatusCode::UNSPECIFIED)?;
            return Ok(OweAssoc { akm, pmk, resp_elements });
        }
        let (id, c) = dh.and_then(|d| parse_dh_param_element(d).ok()).ok_or(StatusCode::INVALID_AKMP)?;
        let g = group(id).filter(|_| self.cfg.owe_groups.contains(&id)).ok_or(StatusCode::FINITE_CYCLIC_GROUP_NOT_SUPPORTED)?;
        // A repeated request in the same group keeps our key (hostapd: mac80211 may resend
        // an Association Request; a new key would give the station the wrong secret).
        let p = self.peers.get_mut(sta).ok_or(StatusCode::UNSPECIFIED)?;
        if p.owe.as_ref().is_none_or(|(gid, _)| *gid != id) {
            p.owe = Some((id, OweKeyPair::generate(g, &mut *self.rng)));
        }
        let (_, kp) = p.owe.as_ref().expect("set above");
        let z = kp.shared(c).map_err(|_| StatusCode::UNSPECIFIED)?;
        let a = kp.public().to_vec();
        let (pmk, pmkid) = owe_pmk(g, c, &a, &z);
        let akm = Akm::owe_for_group(id).ok_or(StatusCode::FINITE_CYCLIC_GROUP_NOT_SUPPORTED)?;
        let expires = now.saturating_add(super::sae::PMK_LIFETIME_S * crate::node::SEC);
        self.pmksa.insert(*sta, Pmksa { pmk: pmk.clone(), pmkid, expires, owe: true, okc_from: None });
        let mut resp_elements = ap_rsne;
        resp_elements.extend_from_slice(&dh_param_element(g, &a));
        Ok(OweAssoc { akm, pmk, resp_elements })
    }

    /// The cached OWE PMKSA with `sta` if its RSNE names its PMKID and it has not expired.
    fn cached_owe_pmksa(&mut self, now: u64, sta: &MacAddr, rsne: &[u8]) -> Option<(Zeroizing<Vec<u8>>, [u8; 16])> {
        self.pmksa.retain(|_, c| c.expires > now);
        let e = RsnElementRepr::parse(rsne).ok()?;
        let c = self.pmksa.get(sta).filter(|c| c.owe)?;
        e.pmkids.iter().any(|id| bool::from(subtle::ConstantTimeEq::ct_eq(&id[..], &c.pmkid[..]))).then(|| (c.pmk.clone(), c.pmkid))
    }
}
