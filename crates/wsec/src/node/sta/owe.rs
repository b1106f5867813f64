//! The station's side of OWE (RFC 8110 4.3-4.4; wpa_supplicant `owe_build_assoc_req`,
//! `owe_process_assoc_resp` and the group retry of `wpas_populate_assoc_ies`): a key pair
//! per attempt in `owe_group` (0: 19, then 20 and 21 after status 77), the Diffie-Hellman
//! Parameter element after the RSNE, the PMK and PMKID from the AP's element or the cached
//! PMKSA it accepted, and OWE transition mode: an open BSS whose OWE Transition Mode
//! element names a hidden OWE BSS is followed there (wpa_supplicant `owe_trans_ssid`).

use super::Station;
use crate::node::frames::BssInfo;
use crate::node::owe::{akm_for_pmk, group, next_group};
use crate::node::{NodeEvent, Output, Phase};
use crate::rsn::akm::Akm;
use crate::rsn::ie::RsnElementRepr;
use crate::rsn::owe::{dh_param_element, owe_pmk, parse_dh_param_element, parse_transition_element, OweKeyPair};
use crate::wire::mac::MacAddr;
use crate::wire::mgmt::{ReasonCode, StatusCode};
use zeroize::Zeroizing;

/// How many times the open BSS of a transition pair is passed over for the OWE BSS it
/// names before a station with `owe_only=0` joins it open (wpa_supplicant
/// `MAX_OWE_TRANSITION_BSS_SELECT_COUNT`, counted per BSS selection, that is per scan).
pub const OWE_OPEN_FALLBACK_SKIPS: u32 = 5;

/// Skips closer together than this count once: a Beacon every 102 ms is not a scan.
const OWE_SKIP_SPACING_NS: u64 = 1_000_000_000;

/// dot11RSNAConfigPMKLifetime (s), wpa_supplicant's default.
const PMK_LIFETIME_S: u64 = 43_200;

/// A PMKSA from OWE: its AP, PMK, PMKID and expiry (ns).
struct OwePmksa {
    bssid: MacAddr,
    pmk: Zeroizing<Vec<u8>>,
    pmkid: [u8; 16],
    expires: u64,
}

/// The station's OWE state across attempts.
#[derive(Default)]
pub(super) struct StaOwe {
    /// The group of the current attempt (0: none yet).
    group: u16,
    keys: Option<OweKeyPair>,
    pmksa: Option<OwePmksa>,
    /// The hidden OWE BSS an open BSS pointed to: (BSSID, SSID).
    target: Option<(MacAddr, Vec<u8>)>,
    /// Times the transition pair's open BSS was passed over, and when last.
    open_skips: u32,
    last_skip: Option<u64>,
}

impl StaOwe {
    /// The SSID to probe for while scanning: the hidden OWE BSS's once an open BSS named it.
    pub(super) fn probe_ssid(&self) -> Option<&[u8]> {
        self.target.as_ref().map(|(_, s)| &s[..])
    }
    /// A new connection attempt starts from the first group again.
    pub(super) fn restart(&mut self) {
        self.group = 0;
        self.keys = None;
    }
}

/// What the station does with an Association Response to an OWE request.
pub(super) enum OweResp {
    /// Run the 4-way handshake with this AKM (its hash from the group) and PMK.
    Keys(Akm, Zeroizing<Vec<u8>>),
    /// Handled (a retry with the next group, or the station left).
    Done,
    /// Not OWE: the caller goes on as before.
    NotOwe,
}

impl Station {
    fn is_owe(&self) -> bool {
        self.neg().is_some_and(|n| n.akm == Akm::Owe)
    }

    /// The OWE Diffie-Hellman Parameter element of our next Association Request (empty when
    /// not OWE). The first request also names a cached PMKSA with this AP in the RSNE (and
    /// so in message 2, which must repeat the request's RSNE).
    pub(super) fn owe_assoc_elements(&mut self, now: u64) -> Vec<u8> {
        if !self.is_owe() {
            return Vec::new();
        }
        let id = match (self.cfg.owe_group, self.owe.group) {
            (0, 0) => 19,
            (0, g) => g,
            (g, _) => g,
        };
        let Some(g) = group(id) else { return Vec::new() };
        if self.owe.group != id || self.owe.keys.is_none() {
            self.owe.group = id;
            self.owe.keys = Some(OweKeyPair::generate(g, &mut *self.rng));
        }
        let bssid = self.bssid().unwrap_or_default();
        let pmkid = self.owe.pmksa.as_ref().filter(|c| c.bssid == bssid && c.expires > now).map(|c| c.pmkid);
        if let (Some(id), Some(n)) = (pmkid, self.state.link_mut().and_then(|l| l.neg.as_mut())) {
            if let Ok(mut e) = RsnElementRepr::parse(&n.sta_rsne) {
                e.pmkids = vec![id];
                if let Ok(r) = e.to_bytes() {
                    n.sta_rsne = r;
                }
            }
        }
        let public = self.owe.keys.as_ref().map(|k| k.public().to_vec()).unwrap_or_default();
        dh_param_element(g, &public)
    }

    /// The Association Response to an OWE request: status 77 moves on to the next group
    /// (with `owe_group=0`), success yields the PMK (the cached one when the AP's RSNE names
    /// its PMKID, else from the AP's Diffie-Hellman element in our group). Anything else in
    /// a success response is refused as wpa_supplicant does (deauthentication, reason 1).
    pub(super) fn owe_assoc_resp(
        &mut self,
        now: u64,
        status: StatusCode,
        rsne: Option<&[u8]>,
        dh: Option<&[u8]>,
        out: &mut Output,
    ) -> OweResp {
        if !self.is_owe() {
            return OweResp::NotOwe;
        }
        if status == StatusCode::FINITE_CYCLIC_GROUP_NOT_SUPPORTED {
            self.counters.drop("owe group refused");
            match next_group(self.owe.group).filter(|_| self.cfg.owe_group == 0) {
                Some(g) => {
                    // Authenticate and associate again with the next group.
                    self.owe.group = g;
                    self.owe.keys = None;
                    self.enter_authenticating(false);
                    self.tries = 0;
                    self.send_auth(now, out);
                }
                None => {
                    self.owe.restart();
                    self.reset(now, self.cfg.retry_ms * 5);
                }
            }
            return OweResp::Done;
        }
        if status != StatusCode::SUCCESS {
            return OweResp::NotOwe;
        }
        let bssid = self.bssid().unwrap_or_default();
        // PMKSA caching: the AP's RSNE names our cached PMKID (wpa_supplicant "OWE: Use
        // PMKSA caching").
        let named = rsne.and_then(|r| RsnElementRepr::parse(r).ok()).map(|e| e.pmkids).unwrap_or_default();
        if let Some(c) = self.owe.pmksa.as_ref().filter(|c| c.bssid == bssid && c.expires > now) {
            if named.len() == 1 && bool::from(subtle::ConstantTimeEq::ct_eq(&named[0][..], &c.pmkid[..])) {
                if let Some(akm) = akm_for_pmk(&c.pmk) {
                    out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::OweKeys { group: 0, cached: true } });
                    return OweResp::Keys(akm, c.pmk.clone());
                }
            }
        }
        match self.owe_derive(dh) {
            Some((akm, pmk, pmkid)) => {
                let expires = now.saturating_add(PMK_LIFETIME_S * crate::node::SEC);
                self.owe.pmksa = Some(OwePmksa { bssid, pmk: pmk.clone(), pmkid, expires });
                out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::OweKeys { group: self.owe.group, cached: false } });
                OweResp::Keys(akm, pmk)
            }
            None => {
                // A cached PMKSA the AP did not take is stale.
                self.owe.pmksa = None;
                self.counters.drop("owe: bad diffie-hellman parameter element");
                self.leave(now, ReasonCode::UNSPECIFIED, out);
                OweResp::Done
            }
        }
    }

    /// (AKM, PMK, PMKID) from the AP's Diffie-Hellman element: our group, a point on it.
    fn owe_derive(&self, dh: Option<&[u8]>) -> Option<(Akm, Zeroizing<Vec<u8>>, [u8; 16])> {
        let (id, a) = parse_dh_param_element(dh?).ok()?;
        let kp = self.owe.keys.as_ref().filter(|_| id == self.owe.group)?;
        let g = group(id)?;
        let z = kp.shared(a).ok()?;
        let (pmk, pmkid) = owe_pmk(g, kp.public(), a, &z);
        Some((Akm::owe_for_group(id)?, pmk, pmkid))
    }

    /// OWE transition mode while scanning (wpa_supplicant with `key_mgmt=OWE`): the open
    /// BSS of our SSID that names an OWE BSS is not joined but followed (its BSSID and SSID
    /// kept, probed for); the BSS it names is taken with that SSID (its Beacons hide it).
    /// Returns the BSS to consider, or `None` when this one was only a pointer.
    pub(super) fn owe_consider(&mut self, now: u64, mut info: BssInfo) -> Option<BssInfo> {
        let owe_network = matches!(&self.cfg.security, crate::node::Security::Rsn { akms, .. } if akms.contains(&Akm::Owe));
        if !owe_network {
            return Some(info);
        }
        if let Some((bssid, ssid)) = self.owe.target.clone() {
            if info.bssid == bssid && info.rsne.is_some() {
                let hidden = info.ssid.iter().all(|&c| c == 0);
                if hidden || info.ssid == ssid {
                    info.ssid = ssid;
                    return Some(info);
                }
            }
        }
        if info.ssid == self.cfg.ssid && info.rsne.is_none() {
            if let Some(t) = info.owe_transition.as_deref().and_then(|t| parse_transition_element(t).ok()) {
                let target = (MacAddr(t.0), t.1.to_vec());
                if self.owe.target.as_ref() != Some(&target) {
                    self.owe.target = Some(target);
                    // Probe for the hidden BSS at once.
                    self.deadline = now;
                }
                if !self.cfg.owe_only && self.owe.open_skips >= OWE_OPEN_FALLBACK_SKIPS {
                    // The OWE BSS was not found (or would not take us): the open one, as
                    // wpa_supplicant with owe_only=0.
                    return Some(info);
                }
                if self.owe.last_skip.is_none_or(|t| now >= t.saturating_add(OWE_SKIP_SPACING_NS)) {
                    self.owe.open_skips = self.owe.open_skips.saturating_add(1);
                    self.owe.last_skip = Some(now);
                }
                return None;
            }
        }
        Some(info)
    }
}

impl Station {
    /// The AP and PMKID of the cached OWE PMKSA, if any.
    pub fn owe_pmkid(&self) -> Option<(MacAddr, [u8; 16])> {
        self.owe.pmksa.as_ref().map(|c| (c.bssid, c.pmkid))
    }
}
