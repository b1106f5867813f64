//! The access point as IEEE 802.1X authenticator (IEEE 802.1X-2020 8 and 12, 802.11-2020
//! 12.7.1.3 and 12.6.11; RFC 3579, RFC 3580): after an association that chose an 802.1X AKM
//! (WPA-EAP 00-0F-AC:1, WPA-EAP-SHA256 :5, Suite B :11, Suite B 192-bit :12), EAP runs
//! between the station (EAPOL-EAP frames on the uncontrolled port) and the RADIUS server,
//! the AP relaying: its own EAP-Request/Identity, then each EAP-Response in an
//! Access-Request (RFC 3580 3's attributes, the State of the last Access-Challenge) and
//! each Access-Challenge's EAP-Request to the station. An Access-Accept relays EAP-Success
//! and gives the PMK (the first 32 octets of the MSK, 48 for AKM 12: 12.7.1.3) carried in
//! MS-MPPE-Recv-Key; the 4-way handshake follows. An Access-Reject, no answer from any
//! server, or a station that stops answering ends in EAP-Failure and Deauthentication with
//! reason 23. EAPOL-Start restarts the conversation; EAPOL-Logoff ends the association.
//! `eap_reauth_period` reauthenticates an established station (a new EAP run under the
//! PTK; the keys stay until it fails).
use super::assoc::Choice;
use super::{AccessPoint, PeerState};
use crate::eap::packet::{self as eap, method, Code as EapCode};
use crate::node::frames::{self, Dir};
use crate::node::{NodeEvent, Output, Phase, SEC};
use crate::radius::client::{Client, ClientConfig, Event, Kind, Request};
use crate::radius::packet::{attr, Code, Packet};
use crate::wire::mac::MacAddr;
use crate::wire::mgmt::ReasonCode;
use crate::wire::EtherType;
use std::net::{Ipv4Addr, SocketAddr};
use zeroize::Zeroizing;

/// EAPOL packet types (IEEE 802.1X-2020 Table 11-3).
pub const EAPOL_EAP: u8 = 0;
pub const EAPOL_START: u8 = 1;
pub const EAPOL_LOGOFF: u8 = 2;
pub const EAPOL_KEY: u8 = 3;

/// An EAP-Request unanswered is sent again after this long, up to [`MAX_RETRANS`] times
/// (IEEE 802.1X-2020 8.8's retransmission; hostapd's pass-through waits about 3 s).
pub const RETRANS_NS: u64 = 3 * SEC;
/// dot11RSNAConfigPMKLifetime (hostapd: 43200 s), a PMKSA's life without Session-Timeout.
pub const PMK_LIFETIME_S: u64 = 43_200;
pub const MAX_RETRANS: u8 = 4;

/// The authenticator's settings (hostapd.conf's 802.1X and RADIUS keys).
#[derive(Debug, Clone)]
pub struct Dot1xSettings {
    /// `auth_server_*`, `acct_server_*`, `radius_retry_primary_interval`.
    pub radius: ClientConfig,
    /// `nas_identifier`.
    pub nas_identifier: Option<String>,
    /// `own_ip_addr`: NAS-IP-Address.
    pub own_ip_addr: Option<Ipv4Addr>,
    /// `eap_reauth_period` (s; 0: never).
    pub eap_reauth_period_s: u64,
    /// `eapol_version` (2 by default, as hostapd).
    pub eapol_version: u8,
    /// `radius_acct_interim_interval` (s; 0: no Interim-Update).
    pub acct_interim_interval_s: u64,
}

impl Default for Dot1xSettings {
    fn default() -> Dot1xSettings {
        Dot1xSettings {
            radius: ClientConfig::default(),
            nas_identifier: None,
            own_ip_addr: None,
            eap_reauth_period_s: 3600,
            eapol_version: 2,
            acct_interim_interval_s: 0,
        }
    }
}

/// One station's EAP conversation.
pub(super) struct Session {
    choice: Choice,
    rsne: Option<Vec<u8>>,
    /// The Identifier of the last EAP-Request sent and the EAPOL frame that carried it.
    id: u8,
    last: Vec<u8>,
    retrans: u8,
    deadline: Option<u64>,
    /// The State of the last Access-Challenge (RFC 2865 5.24).
    state: Option<Vec<u8>>,
    /// The Class of the Access-Accept, for accounting (RFC 2865 5.25).
    pub(super) class: Vec<Vec<u8>>,
    pub(super) identity: Vec<u8>,
    /// The EAP method the server ran (the Type of its last Request).
    method: u8,
    waiting_server: bool,
    /// When to reauthenticate an established station.
    pub(super) reauth_at: Option<u64>,
    /// When the server's Session-Timeout ends the session (RFC 3580 3.17: without
    /// Termination-Action RADIUS-Request it is the session's length, not a reauth period).
    session_end_at: Option<u64>,
    /// The accounting session (RFC 2866), once the station's keys are in force.
    acct: Option<AcctSession>,
}

/// What an EAP run left for the associations on its PMKSA: who, the server's Class, the
/// method.
#[derive(Debug, Clone)]
pub(super) struct EapRun {
    pub(super) identity: Vec<u8>,
    pub(super) class: Vec<Vec<u8>>,
    pub(super) method: u8,
}

impl Default for EapRun {
    fn default() -> EapRun {
        EapRun { identity: Vec::new(), class: Vec::new(), method: method::IDENTITY }
    }
}

/// What [`AccessPoint::dot1x_info`] tells of one station.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dot1xInfo {
    /// The Authenticator PAE state as hostapd numbers it (`auth_pae_state + 1`): 3
    /// CONNECTING, 4 AUTHENTICATING, 5 AUTHENTICATED.
    pub pae_state: u8,
    /// The controlled port is authorized (the station's keys are in force).
    pub authorized: bool,
    pub identity: Vec<u8>,
    /// The EAP method the server chose (1, Identity, before it chose).
    pub method: u8,
    /// The accounting session (Acct-Session-Id) and its start (ns), once there is one.
    pub session_id: Option<String>,
    pub session_started: Option<u64>,
}

/// One station's accounting session (RFC 2866, RFC 2869 2.1, RFC 3580 3.23).
struct AcctSession {
    id: String,
    started: u64,
    next_interim: Option<u64>,
}

/// Accounting requests are tagged apart from authentication ones (a station's
/// Accounting-Request Stop outlives its conversation).
const ACCT_TAG: u64 = 1 << 63;

impl Session {
    fn new(choice: Choice, rsne: Option<Vec<u8>>, identity: Vec<u8>, class: Vec<Vec<u8>>, method: u8) -> Session {
        Session {
            choice,
            rsne,
            id: 0,
            last: Vec::new(),
            retrans: 0,
            deadline: None,
            state: None,
            class,
            identity,
            method,
            waiting_server: false,
            reauth_at: None,
            session_end_at: None,
            acct: None,
        }
    }
}

fn eapol(version: u8, typ: u8, body: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(4 + body.len());
    v.extend_from_slice(&[version, typ]);
    v.extend_from_slice(&(body.len() as u16).to_be_bytes());
    v.extend_from_slice(body);
    v
}

/// The MAC address as RFC 3580 3.20/3.21 writes it: "00-10-A4-23-19-C0".
fn station_id(a: &MacAddr) -> String {
    a.0.iter().map(|b| format!("{b:02X}")).collect::<Vec<_>>().join("-")
}

fn tag_of(a: &MacAddr) -> u64 {
    a.0.iter().fold(0u64, |t, &b| (t << 8) | b as u64)
}

fn mac_of(tag: u64) -> MacAddr {
    let b = tag.to_be_bytes();
    MacAddr([b[2], b[3], b[4], b[5], b[6], b[7]])
}

/// Who asks, for whom, where (RFC 3580 3): NAS-IP-Address and/or NAS-Identifier,
/// Called-Station-Id (BSSID:SSID), Calling-Station-Id, NAS-Port-Type.
fn nas_attrs(r: &mut Request, d: &Dot1xSettings, bssid: &MacAddr, ssid: &[u8], sta: &MacAddr) {
    if let Some(ip) = d.own_ip_addr {
        r.push(attr::NAS_IP_ADDRESS, &ip.octets());
    }
    if let Some(n) = &d.nas_identifier {
        r.push(attr::NAS_IDENTIFIER, n.as_bytes());
    }
    let called = format!("{}:{}", station_id(bssid), String::from_utf8_lossy(ssid));
    r.push(attr::CALLED_STATION_ID, called.as_bytes())
        .push(attr::CALLING_STATION_ID, station_id(sta).as_bytes())
        .push_u32(attr::NAS_PORT_TYPE, attr::NAS_PORT_TYPE_WIRELESS_80211);
}

/// An RSN suite selector as RFC 7268's WLAN-* attributes carry it (00-0F-AC:n as a u32).
fn suite_u32(t: u8) -> u32 {
    0x000f_ac00 | t as u32
}

impl AccessPoint {
    pub(super) fn new_radius(cfg: &super::ApConfig) -> crate::Result<Option<Client>> {
        cfg.dot1x.as_ref().map(|d| Client::new(d.radius.clone())).transpose()
    }

    /// The RADIUS server authentication requests go to now.
    pub fn radius_server(&self) -> Option<SocketAddr> {
        self.radius.as_ref().and_then(|c| c.active_server(Kind::Auth))
    }

    /// The RADIUS server requests of `kind` go to now.
    pub fn radius_server_of(&self, kind: Kind) -> Option<SocketAddr> {
        self.radius.as_ref().and_then(|c| c.active_server(kind))
    }

    /// The RADIUS client's counters.
    pub fn radius_stats(&self) -> Option<&crate::radius::client::ClientStats> {
        self.radius.as_ref().map(|c| c.stats())
    }

    /// One station's 802.1X side (hostapd_cli `STA`, `ieee802_1x_get_mib_sta`).
    pub fn dot1x_info(&self, sta: &MacAddr) -> Option<Dot1xInfo> {
        let p = self.peers.get(sta)?;
        let s = p.dot1x.as_deref()?;
        let authorized = p.state.is_established();
        // IEEE 802.1X-2020 12.5's Authenticator PAE states, numbered as hostapd prints them.
        let pae_state = if authorized {
            5
        } else if s.waiting_server || s.method != method::IDENTITY {
            4
        } else {
            3
        };
        Some(Dot1xInfo {
            pae_state,
            authorized,
            identity: s.identity.clone(),
            method: s.method,
            session_id: s.acct.as_ref().map(|a| a.id.clone()),
            session_started: s.acct.as_ref().map(|a| a.started),
        })
    }

    fn send_eapol(&mut self, now: u64, sta: &MacAddr, frame: Vec<u8>, out: &mut Output) {
        let bssid = self.cfg.bssid;
        let seq = self.seq.take();
        let f = frames::data(Dir::FromAp, &bssid, sta, &bssid, seq, EtherType::EAPOL, &frame);
        if self.dp.has_pairwise(sta) {
            self.send_protected(now, Some(*sta), f, out);
        } else {
            self.counters.tx_air += 1;
            out.air.push(f);
        }
    }

    /// The association chose an 802.1X AKM: EAP-Request/Identity (IEEE 802.1X-2020 8.4).
    pub(super) fn dot1x_start(&mut self, now: u64, sta: &MacAddr, choice: Choice, rsne: Option<Vec<u8>>, out: &mut Output) {
        let Some(p) = self.peers.get_mut(sta) else { return };
        p.dot1x = Some(Box::new(Session::new(choice, rsne, Vec::new(), Vec::new(), method::IDENTITY)));
        out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::EapStarted });
        self.request_identity(now, sta, out);
    }

    /// An association that rides on a cached PMKSA (its PMKID in the station's RSNE): no
    /// EAP; the session, for accounting and reauthentication, as the EAP run left it.
    pub(super) fn dot1x_cached(&mut self, sta: &MacAddr, choice: Choice, rsne: Option<Vec<u8>>) {
        let r = self.eap_cache.get(sta).cloned().unwrap_or_default();
        let Some(p) = self.peers.get_mut(sta) else { return };
        p.dot1x = Some(Box::new(Session::new(choice, rsne, r.identity, r.class, r.method)));
    }

    fn request_identity(&mut self, now: u64, sta: &MacAddr, out: &mut Output) {
        let v = self.cfg.dot1x.as_ref().map_or(2, |d| d.eapol_version);
        let id: u8 = crate::rng::array::<1>(&mut *self.rng)[0];
        let Some(s) = self.peers.get_mut(sta).and_then(|p| p.dot1x.as_mut()) else { return };
        s.id = id;
        s.state = None;
        s.waiting_server = false;
        s.retrans = 0;
        s.method = method::IDENTITY;
        s.last = eapol(v, EAPOL_EAP, &eap::emit(EapCode::Request, id, method::IDENTITY, &[]).expect("a short packet"));
        s.deadline = Some(now.saturating_add(RETRANS_NS));
        if let Some(r) = self.radius.as_mut() {
            r.cancel(tag_of(sta));
        }
        let f = s.last.clone();
        self.send_eapol(now, sta, f, out);
    }

    /// EAP failed for `sta`: EAP-Failure (the server's, or ours with the last Identifier),
    /// then Deauthentication reason 23.
    fn dot1x_fail(&mut self, now: u64, sta: &MacAddr, failure: Option<Vec<u8>>, why: String, out: &mut Output) {
        let v = self.cfg.dot1x.as_ref().map_or(2, |d| d.eapol_version);
        let Some(s) = self.peers.get_mut(sta).and_then(|p| p.dot1x.take()) else { return };
        let f = failure.unwrap_or_else(|| eap::emit_result(false, s.id));
        self.send_eapol(now, sta, eapol(v, EAPOL_EAP, &f), out);
        out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::EapFailure(why) });
        if let Some(r) = self.radius.as_mut() {
            r.cancel(tag_of(sta));
        }
        self.deauth(sta, ReasonCode::IEEE_8021X_AUTH_FAILED, out);
    }

    /// An EAPOL frame other than EAPOL-Key from an associated station.
    pub(super) fn dot1x_eapol(&mut self, now: u64, sta: &MacAddr, frame: &[u8], out: &mut Output) {
        if frame.len() < 4 {
            return self.counters.drop("eapol truncated");
        }
        let len = u16::from_be_bytes([frame[2], frame[3]]) as usize;
        let Some(body) = frame.get(4..4 + len) else { return self.counters.drop("eapol truncated") };
        let has = self.peers.get(sta).is_some_and(|p| p.dot1x.is_some());
        match frame[1] {
            EAPOL_START if has => self.request_identity(now, sta, out),
            EAPOL_LOGOFF if has || self.peers.get(sta).is_some_and(|p| p.state.is_established()) => {
                out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::EapFailure("EAPOL-Logoff".into()) });
                // hostapd: the session ends at the user's request (RFC 2866 5.10).
                self.deauth_for(sta, ReasonCode::DEAUTH_LEAVING, crate::radius::packet::TerminateCause::UserRequest, out);
            }
            EAPOL_EAP if has => self.eap_response(now, sta, body, out),
            _ => self.counters.drop("eapol of no 802.1X conversation"),
        }
    }

    fn eap_response(&mut self, now: u64, sta: &MacAddr, body: &[u8], out: &mut Output) {
        let Ok(pk) = eap::Packet::new_checked(body) else { return self.counters.drop("malformed eap") };
        let Some(s) = self.peers.get_mut(sta).and_then(|p| p.dot1x.as_mut()) else { return };
        if pk.code() != EapCode::Response || pk.identifier() != s.id || s.waiting_server {
            // RFC 3748 4.1: a Response not answering the outstanding Request is discarded.
            return self.counters.drop("eap response to no outstanding request");
        }
        if pk.typ() == Some(method::IDENTITY) && s.method == method::IDENTITY {
            s.identity = pk.type_data().to_vec();
        }
        s.deadline = None;
        s.waiting_server = true;
        let mut r = Request::new(Code::AccessRequest);
        r.push(attr::USER_NAME, &s.identity);
        let Some(d) = self.cfg.dot1x.as_ref() else { return };
        nas_attrs(&mut r, d, &self.cfg.bssid, &self.cfg.ssid, sta);
        r.push_u32(attr::SERVICE_TYPE, attr::SERVICE_TYPE_FRAMED)
            .push_u32(attr::FRAMED_MTU, 1400)
            .push(attr::CONNECT_INFO, b"CONNECT 54Mbps 802.11g")
            .push_u32(attr::WLAN_PAIRWISE_CIPHER, suite_u32(s.choice.pairwise.suite_type()))
            .push_u32(attr::WLAN_GROUP_CIPHER, suite_u32(s.choice.group.suite_type()))
            .push_u32(attr::WLAN_AKM_SUITE, suite_u32(s.choice.akm.suite_type()));
        if let Some(g) = s.choice.group_mgmt {
            r.push_u32(attr::WLAN_GROUP_MGMT_CIPHER, suite_u32(g.suite_type()));
        }
        r.push_split(attr::EAP_MESSAGE, pk.as_bytes());
        if let Some(st) = &s.state {
            r.push(attr::STATE, st);
        }
        let Some(c) = self.radius.as_mut() else { return };
        if let Err(e) = c.send(now, Kind::Auth, tag_of(sta), r, &mut *self.rng) {
            let why = format!("RADIUS request not sent: {e}");
            return self.dot1x_fail(now, sta, None, why, out);
        }
        while let Some(t) = c.poll_transmit() {
            out.radius.push(t);
        }
    }

    /// A datagram on the RADIUS socket from `from`. A discarded one (RFC 2865 3: silently)
    /// is counted under its reason and returned as `Err` for the log.
    pub fn handle_radius(&mut self, now: u64, from: SocketAddr, data: &[u8], out: &mut Output) -> crate::Result<()> {
        let kind = if self.cfg.dot1x.as_ref().is_some_and(|d| d.radius.acct_servers.iter().any(|s| s.addr == from)) {
            Kind::Acct
        } else {
            Kind::Auth
        };
        self.handle_radius_kind(now, kind, from, data, out)
    }

    /// A RADIUS packet of `kind` from `from`: what came on the TLS connection of that kind
    /// (RadSec: one server address may serve both kinds, each on its own connection).
    pub fn handle_radius_kind(&mut self, now: u64, kind: Kind, from: SocketAddr, data: &[u8], out: &mut Output) -> crate::Result<()> {
        self.clock = now;
        let Some(c) = self.radius.as_mut() else { return Err(crate::Error::Unsupported("no RADIUS client (ieee8021x=0)")) };
        let r = match c.handle_datagram(now, kind, from, data) {
            Ok(r) => r,
            Err(e) => {
                self.counters.drop("radius discarded");
                return Err(e);
            }
        };
        if kind == Kind::Acct {
            return Ok(());
        }
        let sta = mac_of(r.tag);
        let v = self.cfg.dot1x.as_ref().map_or(2, |d| d.eapol_version);
        let Ok(pk) = Packet::new_checked(&r.packet[..]) else { return Ok(()) };
        let eap_msg = pk.eap_message();
        match r.code {
            Code::AccessChallenge => {
                let Some(e) = eap_msg.filter(|e| eap::Packet::new_checked(&e[..]).is_ok_and(|p| p.code() == EapCode::Request)) else {
                    self.dot1x_fail(now, &sta, None, "Access-Challenge without an EAP-Request".into(), out);
                    return Ok(());
                };
                let Some(s) = self.peers.get_mut(&sta).and_then(|p| p.dot1x.as_mut()) else { return Ok(()) };
                let p = eap::Packet::new_checked(&e[..]).expect("checked above");
                s.id = p.identifier();
                s.method = p.typ().unwrap_or(0);
                s.state = pk.find(attr::STATE).map(|a| a.value.to_vec());
                s.waiting_server = false;
                s.retrans = 0;
                s.last = eapol(v, EAPOL_EAP, &e);
                s.deadline = Some(now.saturating_add(RETRANS_NS));
                let f = s.last.clone();
                self.send_eapol(now, &sta, f, out);
            }
            Code::AccessAccept => {
                let Some(msk) = r.msk.filter(|m| m.len() >= 64) else {
                    self.dot1x_fail(now, &sta, None, "Access-Accept without MS-MPPE-Recv-Key and -Send-Key".into(), out);
                    return Ok(());
                };
                let reauth = self.cfg.dot1x.as_ref().map_or(0, |d| d.eap_reauth_period_s);
                let session_timeout = pk.find(attr::SESSION_TIMEOUT).and_then(|a| a.u32().ok());
                let Some(p) = self.peers.get_mut(&sta) else { return Ok(()) };
                let Some(s) = p.dot1x.as_mut() else { return Ok(()) };
                s.class = pk.attributes().filter_map(|a| a.ok()).filter(|a| a.typ == attr::CLASS).map(|a| a.value.to_vec()).collect();
                s.waiting_server = false;
                s.deadline = None;
                // RFC 3580 3.17 (as hostapd): Session-Timeout with Termination-Action
                // RADIUS-Request is the reauthentication period; without it, the session's
                // end (then the station is deauthenticated); eap_reauth_period otherwise.
                let reauth_action =
                    pk.find(attr::TERMINATION_ACTION).and_then(|a| a.u32().ok()) == Some(attr::TERMINATION_ACTION_RADIUS_REQUEST);
                let st = session_timeout.map(|t| t as u64).filter(|&t| t > 0);
                let at = |t: u64| now.saturating_add(t.saturating_mul(SEC));
                let (period, end) = match st {
                    Some(t) if reauth_action => (Some(t), None),
                    Some(t) => ((reauth > 0).then_some(reauth), Some(t)),
                    None => ((reauth > 0).then_some(reauth), None),
                };
                s.reauth_at = period.map(at);
                s.session_end_at = end.map(at);
                let (choice, rsne) = (s.choice, s.rsne.clone());
                let identity = String::from_utf8_lossy(&s.identity).into_owned();
                let m = method::name(s.method);
                let established = p.state.is_established();
                let success = eap_msg.unwrap_or_else(|| eap::emit_result(true, s.id));
                self.send_eapol(now, &sta, eapol(v, EAPOL_EAP, &success), out);
                out.events.push(NodeEvent::Phase { peer: sta, phase: Phase::EapSuccess { identity, method: m } });
                let pmk = Zeroizing::new(msk[..choice.akm.pmk_len()].to_vec());
                if let Some(p) = self.peers.get_mut(&sta) {
                    p.ft_xxkey = crate::rsn::ft::msk_xxkey(choice.akm, &msk);
                }
                // The PMKSA (12.6.10.3), for the station's next association with its PMKID;
                // as long as the server's Session-Timeout, else dot11RSNAConfigPMKLifetime.
                let life = session_timeout.map(|t| t as u64).filter(|&t| t > 0).unwrap_or(PMK_LIFETIME_S);
                let pmkid = crate::rsn::kdf::pmkid(choice.akm, &pmk, &self.cfg.bssid.0, &sta.0);
                let expires = now.saturating_add(life.saturating_mul(SEC));
                self.pmksa.insert(sta, super::sae::Pmksa { pmk: pmk.clone(), pmkid, expires, owe: false, okc_from: None });
                if let Some(s) = self.peers.get(&sta).and_then(|p| p.dot1x.as_deref()) {
                    let run = EapRun { identity: s.identity.clone(), class: s.class.clone(), method: s.method };
                    if let Some(g) = self.okc.as_ref().filter(|_| self.cfg.okc) {
                        g.publish(sta, super::okc::Shared { origin: self.cfg.bssid, pmk: pmk.clone(), expires, run: run.clone() });
                    }
                    self.eap_cache.insert(sta, run);
                }
                if established {
                    // A reauthentication: its MSK is the PMK from now on (the PMKSA above
                    // replaced the old one), and a 4-way handshake under it follows while the
                    // PTK in force stays (12.7.10's ReAuthenticationRequest; hostapd
                    // WPA_REAUTH_EAPOL), as the supplicant expects: it took the new PMK too.
                    if let Some(r) = self.peers.get_mut(&sta).and_then(|p| p.rsna_mut()) {
                        r.auth.set_pmk(pmk);
                    }
                    self.rekey_ptk(now, &sta, out);
                    return Ok(());
                }
                self.start_4way(now, &sta, choice, choice.akm, pmk, rsne, out);
            }
            Code::AccessReject => {
                let f = eap_msg.filter(|e| eap::Packet::new_checked(&e[..]).is_ok_and(|p| p.code() == EapCode::Failure));
                self.dot1x_fail(now, &sta, f, "Access-Reject".into(), out);
            }
            _ => {}
        }
        Ok(())
    }

    /// The next time the 802.1X side needs the clock.
    pub(super) fn dot1x_poll(&self) -> Option<u64> {
        let mut t = self.radius.as_ref().and_then(|c| c.poll_timeout());
        for p in self.peers.values() {
            if let Some(s) = &p.dot1x {
                let interim = s.acct.as_ref().and_then(|a| a.next_interim);
                for d in [s.deadline, s.reauth_at, s.session_end_at, interim].into_iter().flatten() {
                    t = Some(t.map_or(d, |t: u64| t.min(d)));
                }
            }
        }
        t
    }

    /// The TLS connection of `kind` to the RadSec server `addr` closed or could not be made
    /// (the runtime logged why): the RADIUS client moves to the next server or sends again
    /// on a new connection ([`Client::transport_down`]); a request given up ends its
    /// station's EAP in EAP-Failure, as a server that never answers does.
    pub fn radius_transport_down(&mut self, now: u64, kind: Kind, addr: SocketAddr, out: &mut Output) {
        self.clock = now;
        let events = match self.radius.as_mut() {
            Some(c) => {
                let e = c.transport_down(now, kind, addr, &mut *self.rng);
                while let Some(t) = c.poll_transmit() {
                    out.radius.push(t);
                }
                e
            }
            None => Vec::new(),
        };
        self.radius_events(now, events, out);
    }

    fn radius_events(&mut self, now: u64, events: Vec<Event>, out: &mut Output) {
        for e in events {
            if let Event::GaveUp { kind: Kind::Auth, tag } = e {
                let sta = mac_of(tag);
                self.dot1x_fail(now, &sta, None, "no RADIUS server answered".into(), out);
            }
        }
    }

    /// Retransmissions of EAP-Requests, the RADIUS client's timers, reauthentication.
    pub(super) fn dot1x_timeouts(&mut self, now: u64, out: &mut Output) {
        let events = match self.radius.as_mut() {
            Some(c) => {
                let e = c.handle_timeout(now, &mut *self.rng);
                while let Some(t) = c.poll_transmit() {
                    out.radius.push(t);
                }
                e
            }
            None => Vec::new(),
        };
        self.radius_events(now, events, out);
        self.acct_interim(now, out);
        let stations: Vec<MacAddr> = self.peers.iter().filter(|(_, p)| p.dot1x.is_some()).map(|(a, _)| *a).collect();
        for sta in stations {
            let Some(p) = self.peers.get_mut(&sta) else { continue };
            let established = matches!(p.state, PeerState::Established(_));
            let Some(s) = p.dot1x.as_mut() else { continue };
            if s.session_end_at.is_some_and(|t| now >= t) && established {
                // hostapd ap_handle_session_timer: reason 2, Acct-Terminate-Cause
                // Session-Timeout.
                s.session_end_at = None;
                self.deauth_for(&sta, ReasonCode::PREV_AUTH_NOT_VALID, crate::radius::packet::TerminateCause::SessionTimeout, out);
                continue;
            }
            if s.reauth_at.is_some_and(|t| now >= t) && established {
                s.reauth_at = None;
                out.events.push(NodeEvent::Phase { peer: sta, phase: Phase::EapStarted });
                self.request_identity(now, &sta, out);
                continue;
            }
            if s.deadline.is_some_and(|d| now >= d) {
                if s.retrans >= MAX_RETRANS {
                    self.dot1x_fail(now, &sta, None, "the station stopped answering EAP".into(), out);
                    continue;
                }
                s.retrans += 1;
                s.deadline = Some(now.saturating_add(RETRANS_NS));
                let f = s.last.clone();
                self.send_eapol(now, &sta, f, out);
            }
        }
    }

    /// The station left or associates again: its conversation and RADIUS requests end.
    pub(super) fn dot1x_forget(&mut self, sta: &MacAddr) {
        if let Some(p) = self.peers.get_mut(sta) {
            p.dot1x = None;
        }
        if let Some(r) = self.radius.as_mut() {
            r.cancel(tag_of(sta));
        }
    }
}

impl AccessPoint {
    fn acct_request(&self, sta: &MacAddr, s: &Session, status: crate::radius::packet::AcctStatus) -> Option<Request> {
        let d = self.cfg.dot1x.as_ref()?;
        let a = s.acct.as_ref()?;
        let mut r = Request::new(Code::AccountingRequest);
        r.push_u32(attr::ACCT_STATUS_TYPE, status as u32).push(attr::ACCT_SESSION_ID, a.id.as_bytes()).push(attr::USER_NAME, &s.identity);
        nas_attrs(&mut r, d, &self.cfg.bssid, &self.cfg.ssid, sta);
        // Acct-Authentic RADIUS (RFC 2866 5.6).
        r.push_u32(attr::ACCT_AUTHENTIC, 1);
        for c in &s.class {
            r.push(attr::CLASS, c);
        }
        Some(r)
    }

    fn acct_send(&mut self, now: u64, sta: &MacAddr, r: Request, out: &mut Output) {
        let Some(c) = self.radius.as_mut() else { return };
        if c.send(now, Kind::Acct, tag_of(sta) | ACCT_TAG, r, &mut *self.rng).is_err() {
            return self.counters.drop("accounting request not sent");
        }
        while let Some(t) = c.poll_transmit() {
            out.radius.push(t);
        }
    }

    fn has_acct_servers(&self) -> bool {
        self.cfg.dot1x.as_ref().is_some_and(|d| !d.radius.acct_servers.is_empty())
    }

    /// The 802.1X station's keys are in force: Accounting-Request Start (RFC 2866 5.1).
    pub(super) fn acct_start(&mut self, now: u64, sta: &MacAddr, out: &mut Output) {
        if !self.has_acct_servers() {
            return;
        }
        let n: [u8; 8] = crate::rng::array(&mut *self.rng);
        let interim = self.cfg.dot1x.as_ref().map_or(0, |d| d.acct_interim_interval_s);
        let Some(s) = self.peers.get_mut(sta).and_then(|p| p.dot1x.as_mut()) else { return };
        if s.acct.is_some() {
            return;
        }
        // hostapd's Acct-Session-Id: 16 hex digits.
        s.acct = Some(AcctSession {
            id: n.iter().map(|b| format!("{b:02X}")).collect(),
            started: now,
            next_interim: (interim > 0).then(|| now.saturating_add(interim.saturating_mul(SEC))),
        });
        let Some(p) = self.peers.get(sta) else { return };
        let Some(r) = p.dot1x.as_deref().and_then(|s| self.acct_request(sta, s, crate::radius::packet::AcctStatus::Start)) else { return };
        self.acct_send(now, sta, r, out);
    }

    /// The counters of an Interim-Update or a Stop (RFC 2866 5.3-5.8, RFC 2869 5.1-5.2):
    /// what the AP received from the station (input) and sent to it (output).
    fn acct_counters(r: &mut Request, c: &super::StationCounters, seconds: u64) {
        r.push_u32(attr::ACCT_INPUT_OCTETS, c.rx_bytes as u32)
            .push_u32(attr::ACCT_INPUT_GIGAWORDS, (c.rx_bytes >> 32) as u32)
            .push_u32(attr::ACCT_OUTPUT_OCTETS, c.tx_bytes as u32)
            .push_u32(attr::ACCT_OUTPUT_GIGAWORDS, (c.tx_bytes >> 32) as u32)
            .push_u32(attr::ACCT_INPUT_PACKETS, c.rx_data.min(u32::MAX as u64) as u32)
            .push_u32(attr::ACCT_OUTPUT_PACKETS, c.tx_data.min(u32::MAX as u64) as u32)
            .push_u32(attr::ACCT_SESSION_TIME, seconds.min(u32::MAX as u64) as u32);
    }

    /// The station's session ends (call before it is forgotten): Accounting-Request Stop
    /// with its counters and `cause` (RFC 2866 5.10).
    pub(super) fn acct_stop(&mut self, sta: &MacAddr, cause: crate::radius::packet::TerminateCause, out: &mut Output) {
        let now = self.clock;
        let Some(p) = self.peers.get(sta) else { return };
        let Some(s) = p.dot1x.as_deref() else { return };
        let Some(a) = s.acct.as_ref() else { return };
        let Some(mut r) = self.acct_request(sta, s, crate::radius::packet::AcctStatus::Stop) else { return };
        Self::acct_counters(&mut r, &p.counters, now.saturating_sub(a.started) / SEC);
        let c = p.counters;
        out.events.push(NodeEvent::Phase {
            peer: *sta,
            phase: Phase::AccountingStop { in_octets: c.rx_bytes, in_frames: c.rx_data, out_octets: c.tx_bytes, out_frames: c.tx_data },
        });
        r.push_u32(attr::ACCT_TERMINATE_CAUSE, cause as u32);
        if let Some(s) = self.peers.get_mut(sta).and_then(|p| p.dot1x.as_mut()) {
            s.acct = None;
        }
        self.acct_send(now, sta, r, out);
    }

    /// Interim-Updates that are due.
    fn acct_interim(&mut self, now: u64, out: &mut Output) {
        let interim = self.cfg.dot1x.as_ref().map_or(0, |d| d.acct_interim_interval_s);
        let due: Vec<MacAddr> = self
            .peers
            .iter()
            .filter(|(_, p)| p.dot1x.as_ref().and_then(|s| s.acct.as_ref()).and_then(|a| a.next_interim).is_some_and(|t| now >= t))
            .map(|(a, _)| *a)
            .collect();
        for sta in due {
            let Some(p) = self.peers.get(&sta) else { continue };
            let Some(s) = p.dot1x.as_deref() else { continue };
            let Some(a) = s.acct.as_ref() else { continue };
            let Some(mut r) = self.acct_request(&sta, s, crate::radius::packet::AcctStatus::InterimUpdate) else { continue };
            Self::acct_counters(&mut r, &p.counters, now.saturating_sub(a.started) / SEC);
            if let Some(a) = self.peers.get_mut(&sta).and_then(|p| p.dot1x.as_mut()).and_then(|s| s.acct.as_mut()) {
                a.next_interim = Some(now.saturating_add(interim.max(1).saturating_mul(SEC)));
            }
            self.acct_send(now, &sta, r, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn station_ids_and_tags() {
        let a = MacAddr([0x00, 0x10, 0xa4, 0x23, 0x19, 0xc0]);
        assert_eq!(station_id(&a), "00-10-A4-23-19-C0");
        assert_eq!(mac_of(tag_of(&a)), a);
        assert_eq!(suite_u32(4), 0x000f_ac04);
        assert_eq!(eapol(2, EAPOL_START, &[]), [2, 1, 0, 0]);
    }
}
