//! The station as IEEE 802.1X supplicant (IEEE 802.1X-2020 8; 802.11-2020 12.7.1.3): after
//! an association that chose an 802.1X AKM, the EAP peer ([`crate::eap::Peer`]) answers the
//! authenticator's EAP-Requests in EAPOL-EAP frames; at EAP-Success the PMK is the first
//! 32 octets of the MSK (48 for AKM 12), and the 4-way handshake runs under it.
use super::{State, Station};
use crate::eap::{Peer, PeerEvent};
use crate::node::frames::{self, Dir};
use crate::node::{NodeEvent, Output, Phase};
use crate::wire::EtherType;
use zeroize::Zeroizing;

/// EAPOL-EAP (IEEE 802.1X-2020 Table 11-3).
const EAPOL_EAP: u8 = 0;
/// EAPOL-Logoff (IEEE 802.1X-2020 11.3, Table 11-3).
const EAPOL_LOGOFF: u8 = 2;
/// wpa_supplicant's `EAP state` word, the method's Type, and the TLS version and cipher
/// suite once negotiated.
pub type EapStatus = (&'static str, u8, Option<(&'static str, String)>);

/// dot11RSNAConfigPMKLifetime (wpa_supplicant and hostapd: 43200 s).
pub const PMK_LIFETIME_S: u64 = 43_200;
/// How long EAP may take after association, beyond the 4-way handshake's own timeout.
pub const EAP_TIMEOUT_MS: u64 = 30_000;

impl Station {
    /// Association chose an 802.1X AKM: a fresh EAP peer waits for the authenticator.
    pub(super) fn eap_begin(&mut self, now: u64) {
        let Some(mut pc) = self.cfg.eap.clone() else { return };
        // WPA3-Enterprise 192-bit (WPA3 Specification 3.5): EAP-TLS with the Suite B
        // cipher suites and P-384 only (wpa_supplicant's phase1="tls_suiteb=1").
        if self.neg().is_some_and(|n| n.akm == crate::rsn::akm::Akm::SuiteB192) {
            pc.method.tls_mut().suite_b_192 = true;
        }
        // MS-CHAPv2's peer challenge from the station's own randomness source.
        let rng = crate::rng::fork(&mut *self.rng);
        self.eap = Peer::with_rng(pc, rng).ok().map(Box::new);
        self.deadline = now + (EAP_TIMEOUT_MS + self.cfg.handshake_timeout_ms) * 1_000_000;
    }

    /// An EAPOL frame other than EAPOL-Key from the AP.
    pub(super) fn eap_rx(&mut self, now: u64, frame: &[u8], out: &mut Output) {
        if frame.len() < 4 || frame[1] != EAPOL_EAP {
            return self.counters.drop("eapol of a type a supplicant does not take");
        }
        let len = u16::from_be_bytes([frame[2], frame[3]]) as usize;
        let Some(body) = frame.get(4..4 + len) else { return self.counters.drop("eapol truncated") };
        let Some(peer) = self.eap.as_mut() else { return self.counters.drop("eap without an 802.1X association") };
        let resp = peer.handle(body);
        let mut events = Vec::new();
        while let Some(e) = peer.poll_event() {
            events.push(e);
        }
        let bssid = self.bssid().unwrap_or_default();
        if let Ok(Some(r)) = resp {
            self.send_eapol(now, EAPOL_EAP, &r, out);
        } else if resp.is_err() {
            self.counters.drop("eap refused");
        }
        for e in events {
            match e {
                PeerEvent::Started => out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::EapStarted }),
                PeerEvent::Failure(why) => out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::EapFailure(why) }),
                PeerEvent::Success => self.eap_success(now, out),
                _ => {}
            }
        }
    }

    /// An EAPOL frame to the AP: protected once a PTK is in force (12.7.2: EAPOL frames
    /// after the 4-way handshake go under the PTK, as any data).
    fn send_eapol(&mut self, now: u64, typ: u8, body: &[u8], out: &mut Output) {
        let bssid = self.bssid().unwrap_or_default();
        let mut f = Vec::with_capacity(4 + body.len());
        f.extend_from_slice(&[self.cfg.eapol_version, typ]);
        f.extend_from_slice(&(body.len() as u16).to_be_bytes());
        f.extend_from_slice(body);
        let seq = self.seq.take();
        let d = frames::data(Dir::ToAp, &bssid, &bssid, &self.cfg.addr, seq, EtherType::EAPOL, &f);
        if self.dp.has_pairwise(&bssid) {
            self.send_protected(now, d, out);
        } else {
            self.tx(now, d, out);
        }
    }

    /// EAPOL-Logoff (IEEE 802.1X-2020 11.3; wpa_cli `logoff`): the supplicant ends its
    /// authenticated session; false when there is no 802.1X association to end.
    pub fn eapol_logoff(&mut self, now: u64, out: &mut Output) -> bool {
        if self.eap.is_none() || self.bssid().is_none() {
            return false;
        }
        self.send_eapol(now, EAPOL_LOGOFF, &[], out);
        true
    }

    fn eap_success(&mut self, now: u64, out: &mut Output) {
        let bssid = self.bssid().unwrap_or_default();
        let Some(peer) = self.eap.as_ref() else { return };
        let Some(n) = self.neg().cloned() else { return };
        let Some(msk) = peer.msk() else { return };
        let pmk = Zeroizing::new(msk[..n.akm.pmk_len().min(msk.len())].to_vec());
        let identity = self.cfg.eap.as_ref().map(|c| String::from_utf8_lossy(&c.identity).into_owned()).unwrap_or_default();
        let method = crate::eap::method::name(self.cfg.eap.as_ref().map_or(0, |c| c.method.typ()));
        out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::EapSuccess { identity, method } });
        self.cache_eap_pmksa(now, bssid, n.akm, &pmk, PMK_LIFETIME_S);
        if let Some(l) = self.state.link_mut() {
            l.pmksa_in_use = false;
        }
        if matches!(self.state, State::Established(..)) {
            // Reauthentication: the PTK in force stays; the new MSK is the PMK of the
            // authenticator's next 4-way handshake (hostapd starts one at once).
            if let Some(r) = self.state.rsna_mut() {
                r.supplicant.set_pmk(pmk);
            }
            return;
        }
        let ft_ies = self.state.link().and_then(|l| l.ft_resp_ies.clone()).filter(|_| n.akm.is_ft());
        self.start_handshake(now, bssid, n.akm, pmk, n.clone());
        if let Some(ies) = ft_ies {
            // FT-802.1X (13.4): PMK-R0 from the MSK's XXKey, the handshake under PMK-R1.
            match self.ft_initial(n.akm, &ies) {
                Some(f) => {
                    if let Some(r) = self.state.rsna_mut() {
                        r.supplicant.set_ft(f);
                    }
                }
                None => self.counters.drop("ft association response without MDE or FTE"),
            }
        }
    }

    /// The EAP side for the control interface's `STATUS`: wpa_supplicant's `EAP state`
    /// word, the method's Type, and the TLS version and cipher suite once negotiated.
    pub fn eap_status(&self) -> Option<EapStatus> {
        let p = self.eap.as_ref()?;
        Some((p.state().name(), self.cfg.eap.as_ref().map_or(0, |c| c.method.typ()), p.tls_info()))
    }
}
