//! The station's control commands and events, in wpa_supplicant's formats
//! (`wpa_supplicant/ctrl_iface.c`: `wpa_supplicant_ctrl_iface_status`, `..._list_networks`,
//! `..._scan_results`, `wpa_supplicant_ie_txt`, `wpas_ctrl_iface_signal_poll`; events of
//! `common/wpa_ctrl.h` and `events.c`).
//!
//! wsec's station has one network block (id 0). Its BSS table for `SCAN_RESULTS` is kept
//! here from the Beacons and Probe Responses the run loop passes by ([`ScanTable`]).
use super::ap::{akm_conf_txt, engine_status, ssid_txt};
use super::{channel_freq, cipher_txt, pmksa_txt, Action, Ctrl, CtrlNode, Ctx};
use std::collections::BTreeMap;
use std::fmt::Write;
use wsec::node::frames::{self, BssInfo, Mgmt};
use wsec::node::sta::Station;
use wsec::node::{NodeEvent, Output, Phase, Security};
use wsec::rsn::akm::Akm;
use wsec::rsn::ie::{RsnElementRepr, WpaElementRepr};
use wsec::wire::mac::MacAddr;

/// BSSs kept at most (a busy channel cannot grow the table without bound).
pub const SCAN_MAX: usize = 256;
/// A BSS not heard for this long is dropped (wpa_supplicant's `bss_expiration_age`, 180 s).
const SCAN_EXPIRE_NS: u64 = 180_000_000_000;
/// How long after `SCAN` the results are announced (two beacon intervals and a probe).
const SCAN_NS: u64 = 300_000_000;

/// One BSS heard: its Beacon's content, when it was last heard, and what the medium's
/// radiotap header reported for its last frame (Rate in 500 kb/s, dBm antenna signal).
struct Heard {
    info: BssInfo,
    at: u64,
    rate: Option<u8>,
    signal: Option<i8>,
}

#[derive(Default)]
pub struct ScanTable {
    bss: BTreeMap<MacAddr, Heard>,
    /// `CTRL-EVENT-SCAN-RESULTS` is due at this time (after a SCAN).
    results_due: Option<u64>,
    /// Background scanning and roaming (wpa_supplicant `bgscan`), and when to look next.
    pub bgscan: Option<crate::conf::Bgscan>,
    next_look: u64,
}

/// A BSS heard longer ago than this is no roaming candidate (three beacon intervals of
/// 100 TU and a margin).
const FRESH_NS: u64 = 1_000_000_000;

/// How much stronger (dB) a BSS of the network must be heard than the current one to
/// roam to it, by the current one's level (wpa_supplicant 2.10
/// `wpa_supplicant_need_to_roam_within_ess`: the weaker the link, the smaller the margin).
fn roam_margin_db(current_dbm: i8) -> i16 {
    match current_dbm {
        l if l < -85 => 1,
        l if l < -80 => 2,
        l if l < -75 => 3,
        l if l < -70 => 4,
        _ => 5,
    }
}

impl ScanTable {
    /// A frame from the medium (`mpdu`, inside `frame`, its radiotap header first):
    /// Beacons and Probe Responses update the table, and every frame a known BSS sends
    /// its rate and signal (what SIGNAL_POLL and SCAN_RESULTS report).
    pub fn observe(&mut self, now: u64, mpdu: &[u8], frame: &[u8]) {
        let rt = wsec::capture::radio::radiotap_info(frame).ok().filter(|r| !r.tx_report);
        let (rate, signal) = (rt.and_then(|r| r.rate), rt.and_then(|r| r.signal_dbm));
        if let Ok(Mgmt::Beacon(info) | Mgmt::ProbeResp(info)) = frames::parse_mgmt(mpdu) {
            if !self.bss.contains_key(&info.bssid) && self.bss.len() >= SCAN_MAX {
                return;
            }
            self.bss.insert(info.bssid, Heard { info, at: now, rate, signal });
            return;
        }
        let ta = wsec::wire::mac::Header::new_checked(mpdu).ok().and_then(|h| h.addr2());
        if let Some(h) = ta.and_then(|a| self.bss.get_mut(&a)) {
            h.rate = rate.or(h.rate);
            h.signal = signal.or(h.signal);
        }
    }

    fn expire(&mut self, now: u64) {
        self.bss.retain(|_, h| now.saturating_sub(h.at) <= SCAN_EXPIRE_NS);
    }
}

/// An AKM as wpa_supplicant's scan flags write it (`wpa_supplicant_ie_txt`).
fn akm_flag(a: Akm) -> &'static str {
    match a {
        Akm::Psk => "PSK",
        Akm::PskSha256 => "PSK-SHA256",
        Akm::FtPsk => "FT/PSK",
        Akm::Sae => "SAE",
        Akm::FtSae => "FT/SAE",
        Akm::Ieee8021x => "EAP",
        Akm::Ieee8021xSha256 => "EAP-SHA256",
        Akm::FtIeee8021x => "FT/EAP",
        Akm::Owe | Akm::OweSha384 | Akm::OweSha512 => "OWE",
        _ => "?",
    }
}

/// `[WPA2-PSK-CCMP]`-style flags of one element.
fn ie_flags(proto: &str, akms: &[Akm], ciphers: &[wsec::cipher::CipherSuite]) -> String {
    let a: Vec<&str> = akms.iter().map(|a| akm_flag(*a)).collect();
    let c: Vec<&str> = ciphers.iter().map(|c| cipher_txt(*c)).collect();
    format!("[{proto}-{}-{}]", a.join("+"), c.join("+"))
}

/// The flags column of SCAN_RESULTS.
fn bss_flags(b: &BssInfo) -> String {
    let mut f = String::new();
    if let Some(w) = b.wpa_ie.as_deref().and_then(|w| WpaElementRepr::parse(w).ok()) {
        let akms: Vec<Akm> = w.akms.iter().filter_map(|s| s.akm()).collect();
        let pw: Vec<_> = w.pairwise.iter().filter_map(|s| s.cipher()).collect();
        f += &ie_flags("WPA", &akms, &pw);
    }
    if let Some(r) = b.rsne.as_deref().and_then(|r| RsnElementRepr::parse(r).ok()) {
        let akms: Vec<Akm> = r.akms.iter().filter_map(|s| s.akm()).collect();
        let pw: Vec<_> = r.pairwise.iter().filter_map(|s| s.cipher()).collect();
        f += &ie_flags("WPA2", &akms, &pw);
    }
    if f.is_empty() && b.capability.0 & wsec::wire::mgmt::Capability::PRIVACY != 0 {
        f += "[WEP]";
    }
    if b.capability.0 & wsec::wire::mgmt::Capability::ESS != 0 {
        f += "[ESS]";
    }
    f
}

impl CtrlNode for Station {
    fn status(&self, ctx: &Ctx<'_>) -> String {
        status(self, ctx)
    }

    fn mib(&self, _ctrl: &Ctrl) -> String {
        mib(self)
    }

    fn pmksa(&self, now: u64) -> String {
        // wpa_supplicant's pmksa_cache_list(): every live entry, soonest-expiring first.
        pmksa_txt("AA", 1, self.pmksa_list(now).into_iter().map(|e| (e.aa, e.pmkid, e.expires_in_s, e.opportunistic)))
    }

    fn pmksa_flush(&mut self) {
        Station::pmksa_flush(self)
    }

    /// wpa_supplicant's own commands.
    fn command(&mut self, ctrl: &mut Ctrl, cmd: &str, arg: &str, ctx: &Ctx<'_>, out: &mut Output) -> Option<(String, Option<Action>)> {
        let (sta, now) = (self, ctx.now);
        // The one network block is id 0 ("all" and "any" name it too).
        let net0 = matches!(arg, "0" | "all" | "any");
        let r = match cmd {
            "STATUS-VERBOSE" => ctrl.status(sta, ctx),
            "IFNAME" => format!("{}\n", ctx.ifname),
            "LIST_NETWORKS" => {
                let c = sta.config();
                let flags = if !ctx.enabled {
                    "[DISABLED]"
                } else if sta.bssid().is_some() {
                    "[CURRENT]"
                } else {
                    ""
                };
                let bssid = c.bssid.map(|b| b.to_string()).unwrap_or_else(|| "any".into());
                format!("network id / ssid / bssid / flags\n0\t{}\t{bssid}\t{flags}\n", ssid_txt(&c.ssid))
            }
            "SCAN" => {
                // An active scan: a wildcard Probe Request now, the results after a while.
                out.air.push(frames::probe_req(&sta.addr(), b"", 0));
                ctrl.sock.event("CTRL-EVENT-SCAN-STARTED ");
                ctrl.scan.results_due = Some(now + SCAN_NS);
                "OK\n".into()
            }
            "SCAN_RESULTS" => {
                ctrl.scan.expire(now);
                let mut s = String::from("bssid / frequency / signal level / flags / ssid\n");
                for (b, h) in &ctrl.scan.bss {
                    // The radiotap dBm signal when the medium reports one (a radio); else 0,
                    // as wpa_supplicant shows an unknown level.
                    let level = h.signal.unwrap_or(0);
                    let _ =
                        writeln!(s, "{b}\t{}\t{level}\t{}\t{}", channel_freq(h.info.channel), bss_flags(&h.info), ssid_txt(&h.info.ssid));
                }
                s
            }
            "SELECT_NETWORK" | "ENABLE_NETWORK" if net0 => {
                return Some(("OK\n".into(), (!ctx.enabled).then_some(Action::Resume)));
            }
            "DISABLE_NETWORK" if net0 => {
                if ctx.enabled {
                    Station::shutdown(sta, now, out);
                    return Some(("OK\n".into(), Some(Action::Pause)));
                }
                "OK\n".into()
            }
            "SELECT_NETWORK" | "ENABLE_NETWORK" | "DISABLE_NETWORK" => "FAIL\n".into(),
            "RECONNECT" => return Some(("OK\n".into(), (!ctx.enabled).then_some(Action::Resume))),
            "DISCONNECT" => {
                Station::shutdown(sta, now, out);
                return Some(("OK\n".into(), Some(Action::Pause)));
            }
            "REASSOCIATE" | "REATTACH" => {
                Station::shutdown(sta, now, out);
                return Some(("OK\n".into(), Some(Action::Resume)));
            }
            "RECONFIGURE" => return Some(("OK\n".into(), Some(Action::Reload))),
            // wpa_supplicant ROAM <BSSID> and FT_DS <BSSID>: a fast BSS transition over the
            // air or over the DS to a BSS of the mobility domain (FT networks only here).
            "ROAM" | "FT_DS" => match arg.trim().parse::<wsec::wire::mac::MacAddr>() {
                Ok(b) => match sta.roam(now, b, cmd == "FT_DS", out) {
                    Ok(()) => "OK\n".into(),
                    Err(why) => {
                        ctrl.sock.event(&format!("wsec: {cmd} {b} refused: {why}"));
                        "FAIL\n".into()
                    }
                },
                Err(_) => "FAIL\n".into(),
            },
            "NEIGHBOR_REP_REQUEST" => super::wnm::neighbor_rep_request(sta, now, arg, out),
            "WNM_BSS_QUERY" => super::wnm::wnm_bss_query(sta, now, arg, out),
            "SIGNAL_POLL" => match (sta.is_established(), sta.channel(), sta.bssid()) {
                // What the medium reports in the radiotap header of the AP's last frame:
                // the dBm signal (a radio; the air hub writes none) and the rate; no noise.
                (true, Some(ch), Some(b)) => {
                    let h = ctrl.scan.bss.get(&b);
                    let mut r = String::new();
                    if let Some(dbm) = h.and_then(|h| h.signal) {
                        let _ = writeln!(r, "RSSI={dbm}");
                    }
                    if let Some(rate) = h.and_then(|h| h.rate) {
                        let _ = writeln!(r, "LINKSPEED={}", rate / 2);
                    }
                    let _ = writeln!(r, "FREQUENCY={}", channel_freq(ch));
                    r
                }
                _ => "FAIL\n".into(),
            },
            _ => return None,
        };
        Some((r, None))
    }

    /// The station's events as wpa_supplicant sends them: `Associated with`, `WPA: Key
    /// negotiation completed with` (each 4-way handshake), `CTRL-EVENT-CONNECTED` (once per
    /// connection), `WPA: Group rekeying completed with`, `CTRL-EVENT-DISCONNECTED`.
    fn events(&self, ctrl: &mut Ctrl, events: &[NodeEvent]) {
        let neg = self.negotiated();
        let keys = || match neg {
            Some((_, pw, g, _, _)) => format!("[PTK={} GTK={}]", cipher_txt(pw), cipher_txt(g)),
            None => "[PTK=NONE GTK=NONE]".into(),
        };
        for NodeEvent::Phase { peer, phase } in events {
            match phase {
                Phase::Associated { .. } => {
                    ctrl.sta_associated = true;
                    ctrl.sock.event(&format!("Associated with {peer}"));
                }
                Phase::Established { pairwise } if !ctrl.sta_connected => {
                    if pairwise.is_some() {
                        ctrl.sock.event(&format!("WPA: Key negotiation completed with {peer} {}", keys()));
                    }
                    ctrl.sta_connected = true;
                    ctrl.sock.event(&format!("CTRL-EVENT-CONNECTED - Connection to {peer} completed [id=0 id_str=]"));
                }
                // wpa_supplicant after a fast BSS transition: the new BSS, connected again.
                Phase::FtReassociated { .. } => {
                    ctrl.sock.event(&format!("CTRL-EVENT-CONNECTED - Connection to {peer} completed [id=0 id_str=]"));
                }
                Phase::FtFailed { status, .. } => ctrl.sock.event(&format!("CTRL-EVENT-ASSOC-REJECT bssid={peer} status_code={status}")),
                // A PTK rekey is a new 4-way handshake: wpa_supplicant reports it again,
                // but the connection stands (no second CTRL-EVENT-CONNECTED).
                Phase::PtkRekeyed => ctrl.sock.event(&format!("WPA: Key negotiation completed with {peer} {}", keys())),
                Phase::GroupKey { .. } => {
                    let g = neg.map(|n| cipher_txt(n.2)).unwrap_or("NONE");
                    ctrl.sock.event(&format!("WPA: Group rekeying completed with {peer} [GTK={g}]"));
                }
                Phase::HandshakeFailed(_) => ctrl.sock.event("WPA: 4-Way Handshake failed - pre-shared key may be incorrect"),
                // wpa_supplicant `wpas_transition_disable`: TRANSITION_DISABLE "%02x".
                Phase::TransitionDisable { bitmap, .. } => ctrl.sock.event(&format!("TRANSITION-DISABLE {bitmap:02x}")),
                Phase::BeaconLoss => {
                    ctrl.sock.event("CTRL-EVENT-BEACON-LOSS ");
                    ctrl.sta_disconnected(peer, 4, true);
                }
                Phase::Deauthenticated { reason, by_peer } | Phase::Disassociated { reason, by_peer } => {
                    ctrl.sta_disconnected(peer, reason.0, !by_peer)
                }
                // wpa_supplicant's eap.c events (WPA_EVENT_EAP_*).
                Phase::EapStarted => ctrl.sock.event("CTRL-EVENT-EAP-STARTED EAP authentication started"),
                Phase::EapSuccess { method, .. } => {
                    let n = match *method {
                        "TLS" => 13,
                        "TTLS" => 21,
                        _ => 0,
                    };
                    ctrl.sock.event(&format!("CTRL-EVENT-EAP-METHOD EAP vendor 0 method {n} ({method}) selected"));
                    ctrl.sock.event("CTRL-EVENT-EAP-SUCCESS EAP authentication completed successfully");
                }
                Phase::EapFailure(_) => ctrl.sock.event("CTRL-EVENT-EAP-FAILURE EAP authentication failed"),
                Phase::NeighborReport { .. } | Phase::NeighborReportFailed | Phase::BtmRequest { .. } => {
                    let bi = self.bss_heard().into_iter().find(|(b, _)| b.bssid == *peer).map_or(100, |(b, _)| b.beacon_interval_tu);
                    for l in super::wnm::sta_event_lines(phase, self.mfp_active(), bi) {
                        ctrl.sock.event(&l);
                    }
                }
                _ => {}
            }
        }
    }

    /// Beacons and Probe Responses into the BSS table of `SCAN_RESULTS`.
    fn heard(&self, ctrl: &mut Ctrl, now: u64, mpdu: &[u8], frame: &[u8]) {
        ctrl.scan.observe(now, mpdu, frame);
    }

    /// bgscan: every short interval while the AP is heard below the threshold (the long one
    /// above it), the strongest BSS of the network heard in the last second; a roam when it
    /// is stronger than the AP by the margin (FT when the network has it).
    fn act(&mut self, ctrl: &mut Ctrl, now: u64, out: &mut Output) {
        let Some(b) = ctrl.scan.bgscan else { return };
        if now < ctrl.scan.next_look || !self.is_established() || self.roaming() {
            return;
        }
        let Some(cur) = self.bssid() else { return };
        let Some(level) = ctrl.scan.bss.get(&cur).and_then(|h| h.signal) else {
            ctrl.scan.next_look = now + b.long_s * 1_000_000_000;
            return;
        };
        let below = level < b.threshold_dbm;
        ctrl.scan.next_look = now + if below { b.short_s } else { b.long_s } * 1_000_000_000;
        let ssid = self.config().ssid.clone();
        let best = ctrl
            .scan
            .bss
            .iter()
            .filter(|(a, h)| **a != cur && h.info.ssid == ssid && now.saturating_sub(h.at) <= FRESH_NS)
            .filter_map(|(a, h)| h.signal.map(|s| (*a, s)))
            .max_by_key(|(_, s)| *s);
        let Some((target, s)) = best else { return };
        if i16::from(s) < i16::from(level) + roam_margin_db(level) {
            return;
        }
        let why = format!("{target} heard at {s} dBm, {cur} at {level} dBm (margin {} dB)", roam_margin_db(level));
        match self.roam(now, target, false, out) {
            Ok(()) => {
                println!("sta: bgscan: roaming to {why}");
                ctrl.sock.event(&format!("CTRL-EVENT-STARTED-ROAM {why}"));
            }
            Err(e) => println!("sta: bgscan: not roaming to {target}: {e}"),
        }
    }

    /// The results of a `SCAN`, announced when due.
    fn tick(&self, ctrl: &mut Ctrl, now: u64) {
        if ctrl.scan.results_due.is_some_and(|t| now >= t) {
            ctrl.scan.results_due = None;
            ctrl.sock.event("CTRL-EVENT-SCAN-RESULTS ");
        }
    }
}

impl Ctrl {
    fn sta_disconnected(&mut self, bssid: &MacAddr, reason: u16, local: bool) {
        if std::mem::take(&mut self.sta_associated) {
            let l = if local { " locally_generated=1" } else { "" };
            self.sock.event(&format!("CTRL-EVENT-DISCONNECTED bssid={bssid} reason={reason}{l}"));
        }
        self.sta_connected = false;
    }
}

/// wpa_supplicant's name of the key management in use (`wpa_key_mgmt_txt`).
fn key_mgmt_txt(akm: Akm, wpa1: bool) -> &'static str {
    match (akm, wpa1) {
        (Akm::Psk, true) => "WPA-PSK",
        (Akm::Psk, false) => "WPA2-PSK",
        (Akm::PskSha256, _) => "WPA2-PSK-SHA256",
        // wpa_supplicant's wpa_key_mgmt_txt for the 802.1X AKMs.
        (Akm::Ieee8021x, _) => "WPA2/IEEE 802.1X/EAP",
        (Akm::Ieee8021xSha256, _) => "WPA2-EAP-SHA256",
        (Akm::SuiteB, _) => "WPA2-EAP-SUITE-B",
        (Akm::SuiteB192, _) => "WPA2-EAP-SUITE-B-192",
        (a, _) => akm_conf_txt(a),
    }
}

/// wpa_supplicant `STATUS`: the BSS when there is one, the negotiated suites, the state.
fn status(sta: &Station, ctx: &Ctx<'_>) -> String {
    let c = sta.config();
    let mut s = String::new();
    if let (true, Some(b)) = (ctx.enabled, sta.bssid()) {
        let freq = sta.channel().map(channel_freq).unwrap_or(0);
        let _ = write!(s, "bssid={b}\nfreq={freq}\nssid={}\nid=0\nmode=station\n", ssid_txt(&c.ssid));
        match (sta.negotiated(), &c.security) {
            (Some((akm, pw, g, wpa1, _)), _) => {
                let _ =
                    write!(s, "pairwise_cipher={}\ngroup_cipher={}\nkey_mgmt={}\n", cipher_txt(pw), cipher_txt(g), key_mgmt_txt(akm, wpa1));
            }
            (None, Security::Wep { .. }) => s += "pairwise_cipher=WEP\ngroup_cipher=WEP\nkey_mgmt=NONE\n",
            (None, _) => s += "pairwise_cipher=NONE\ngroup_cipher=NONE\nkey_mgmt=NONE\n",
        }
        if sta.mfp_active() {
            s += "pmf=1\n";
        }
        // wpa_supplicant's EAPOL/EAP status lines (eapol_sm_get_status, eap_sm_get_status).
        if let Some((state, t, tls)) = sta.eap_status() {
            let authorized = state == "SUCCESS" && sta.is_established();
            let _ = write!(
                s,
                "Supplicant PAE state={}\nsuppPortStatus={}\nEAP state={state}\nselectedMethod={t} (EAP-{})\n",
                if authorized { "AUTHENTICATED" } else { "AUTHENTICATING" },
                if authorized { "Authorized" } else { "Unauthorized" },
                wsec::eap::method::name(t)
            );
            if let Some((v, cipher)) = tls {
                let _ = write!(s, "eap_tls_version={v}\nEAP TLS cipher={cipher}\n");
            }
        }
    }
    let st = if ctx.enabled { sta.wpa_state() } else { "DISCONNECTED" };
    let _ = write!(s, "wpa_state={st}\naddress={}\n", sta.addr());
    s += &engine_status(sta.datapath(), ctx);
    s
}

/// wpa_supplicant `MIB` (`wpa_sm_get_mib`): the RSNA settings in use, then wsec's
/// counters of the link.
fn mib(sta: &Station) -> String {
    let mut s = String::from("dot11RSNAOptionImplemented=TRUE\ndot11RSNAPreauthenticationImplemented=FALSE\n");
    match sta.negotiated() {
        Some((akm, pw, g, wpa1, _)) => {
            use super::suite_txt;
            use wsec::rsn::ie::Suite;
            let (a, p, gs) = if wpa1 {
                (Suite::wpa_akm(akm), Suite::wpa_cipher(pw), Suite::wpa_cipher(g))
            } else {
                (Some(Suite::from_akm(akm)), Some(Suite::from_cipher(pw)), Some(Suite::from_cipher(g)))
            };
            let t = |x: Option<Suite>| x.map(suite_txt).unwrap_or_default();
            let _ = write!(
                s,
                "dot11RSNAEnabled=TRUE\ndot11RSNAPreauthenticationEnabled=FALSE\ndot11RSNAConfigVersion=1\n\
                 dot11RSNAConfigGroupCipherSize={}\ndot11RSNAAuthenticationSuiteSelected={}\n\
                 dot11RSNAPairwiseCipherSelected={}\ndot11RSNAGroupCipherSelected={}\n",
                g.key_len() * 8,
                t(a),
                t(p),
                t(gs)
            );
        }
        None => s += "dot11RSNAEnabled=FALSE\n",
    }
    let k = &sta.counters;
    let _ = write!(
        s,
        "wsecRxAir={}\nwsecTxAir={}\nwsecRxData={}\nwsecTxData={}\nwsecRxDataOctets={}\nwsecTxDataOctets={}\n",
        k.rx_air, k.tx_air, k.rx_data, k.tx_data, k.rx_data_bytes, k.tx_data_bytes
    );
    for (why, n) in &k.drops {
        let _ = writeln!(s, "wsecDropped[{}]={n}", why.replace(' ', "_"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use wsec::cipher::CipherSuite;
    use wsec::node::ap::ap_rsn_element;
    use wsec::wire::mgmt::Capability;

    #[test]
    fn scan_flags_as_wpa_supplicant_writes_them() {
        let rsne = ap_rsn_element(&[Akm::Psk], &[CipherSuite::Ccmp128], CipherSuite::Ccmp128).unwrap();
        let b = BssInfo {
            bssid: "02:00:00:00:00:01".parse().unwrap(),
            ssid: b"x".to_vec(),
            channel: 6,
            beacon_interval_tu: 100,
            capability: Capability(Capability::ESS | Capability::PRIVACY),
            rsne: Some(rsne),
            wpa_ie: None,
            rsnxe: None,
            owe_transition: None,
            mde: None,
            ht: None,
            wmm: None,
        };
        assert_eq!(bss_flags(&b), "[WPA2-PSK-CCMP][ESS]");
        let b2 = BssInfo { rsne: None, ..b.clone() };
        assert_eq!(bss_flags(&b2), "[WEP][ESS]");
        let rsne = ap_rsn_element(&[Akm::Psk, Akm::PskSha256], &[CipherSuite::Ccmp128, CipherSuite::Tkip], CipherSuite::Tkip).unwrap();
        let b3 = BssInfo { rsne: Some(rsne), ..b };
        assert_eq!(bss_flags(&b3), "[WPA2-PSK+PSK-SHA256-CCMP+TKIP][ESS]");
        assert_eq!(key_mgmt_txt(Akm::Psk, false), "WPA2-PSK");
    }

    /// A radio's radiotap header (Flags, Rate, Channel, dBm antenna signal, as hwsim writes
    /// them) gives the level SCAN_RESULTS and SIGNAL_POLL report; a later frame from the
    /// BSS updates it.
    #[test]
    fn scan_table_takes_rate_and_signal_from_radiotap() {
        let bss = BssInfo {
            bssid: "02:00:00:00:00:01".parse().unwrap(),
            ssid: b"x".to_vec(),
            channel: 6,
            beacon_interval_tu: 100,
            capability: Capability(Capability::ESS),
            rsne: None,
            wpa_ie: None,
            rsnxe: None,
            owe_transition: None,
            mde: None,
            ht: None,
            wmm: None,
        };
        let rt = |rate: u8, dbm: i8| {
            let mut v = vec![0, 0, 15, 0];
            v.extend_from_slice(&0x2eu32.to_le_bytes());
            v.extend_from_slice(&[0, rate]);
            v.extend_from_slice(&2437u16.to_le_bytes());
            v.extend_from_slice(&0x00c0u16.to_le_bytes());
            v.push(dbm as u8);
            v
        };
        let beacon = frames::beacon(&bss, 0, 0, None);
        let mut t = ScanTable::default();
        let f = [rt(108, -42), beacon.clone()].concat();
        t.observe(1, &beacon, &f);
        let h = &t.bss[&bss.bssid];
        assert_eq!((h.rate, h.signal, h.info.ssid.as_slice()), (Some(108), Some(-42), &b"x"[..]));
        let null = frames::null_data(&"02:00:00:00:00:11".parse().unwrap(), &bss.bssid, 1);
        // A null frame from the BSS (A2 = its address) updates the level.
        let f = [rt(12, -60), null.clone()].concat();
        t.observe(2, &null, &f);
        let h = &t.bss[&bss.bssid];
        assert_eq!((h.rate, h.signal), (Some(12), Some(-60)));
        assert_eq!(key_mgmt_txt(Akm::Psk, true), "WPA-PSK");
    }

    /// `PMKSA` lists every live entry of the station's cache as wpa_supplicant's
    /// `pmksa_cache_list` does: after SAE with one AP, a roam to another and SAE there,
    /// two lines counted from 1, soonest-expiring first, each with that AP's PMKID as the
    /// AP holds it; `PMKSA_FLUSH` empties it.
    #[test]
    fn pmksa_lists_every_cached_entry() {
        use wsec::node::ap::{AccessPoint, ApConfig};
        use wsec::node::mfp::Mfp;
        use wsec::node::sae::{SaePassword, SaeSettings};
        use wsec::node::sta::StaConfig;
        let rsn = || Security::Rsn {
            akms: vec![Akm::Sae],
            pairwise: vec![CipherSuite::Ccmp128],
            groups: vec![CipherSuite::Ccmp128],
            pmk: Vec::new().into(),
        };
        let sae = || SaeSettings::new(vec![SaePassword { password: b"pw".to_vec().into(), identifier: None, mac: None }]);
        let bssids: [MacAddr; 2] = ["02:00:00:00:00:01".parse().unwrap(), "02:00:00:00:00:02".parse().unwrap()];
        let mut aps: Vec<AccessPoint> = bssids
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let mut c = ApConfig::new(*b, b"t", rsn());
                c.mfp = Mfp::Required;
                c.sae = Some(sae());
                AccessPoint::new(c, 0, wsec::rng::seeded(i as u64)).unwrap()
            })
            .collect();
        let addr: MacAddr = "02:00:00:00:00:11".parse().unwrap();
        let mut c = StaConfig::new(addr, b"t", rsn());
        c.mfp = Mfp::Required;
        c.sae = Some(sae());
        let mut sta = Station::new(c, 0, wsec::rng::seeded(7)).unwrap();
        let mut now = 0;
        // One medium in memory, 1 ms a turn, until `done` or `ms` run out.
        let run = |aps: &mut Vec<AccessPoint>, sta: &mut Station, now: &mut u64, ms: u64, done: &dyn Fn(&Station) -> bool| {
            for _ in 0..ms {
                if done(sta) {
                    return true;
                }
                *now += 1_000_000;
                let now = *now;
                let (mut ao, mut so) = (Output::default(), Output::default());
                for a in aps.iter_mut().filter(|a| a.poll_timeout() <= now) {
                    a.handle_timeout(now, &mut ao);
                }
                if sta.poll_timeout() <= now {
                    sta.handle_timeout(now, &mut so);
                }
                while !ao.air.is_empty() || !so.air.is_empty() {
                    for f in std::mem::take(&mut ao.air) {
                        sta.handle_air(now, &f, &mut so);
                    }
                    for f in std::mem::take(&mut so.air) {
                        for a in aps.iter_mut() {
                            a.handle_air(now, &f, &mut ao);
                        }
                    }
                }
            }
            done(sta)
        };
        assert!(run(&mut aps, &mut sta, &mut now, 3_000, &|s| s.is_established()));
        let first = sta.bssid().unwrap();
        let second = *bssids.iter().find(|b| **b != first).unwrap();
        // The other AP's Beacon heard, then a roam to it.
        assert!(run(&mut aps, &mut sta, &mut now, 1_000, &|s| s.bss_heard().iter().any(|(b, _)| b.bssid == second)));
        let mut out = Output::default();
        sta.roam(now, second, false, &mut out).unwrap();
        assert!(run(&mut aps, &mut sta, &mut now, 3_000, &|s| s.is_established() && s.bssid() == Some(second)));
        let hex = |id: [u8; 16]| id.iter().map(|b| format!("{b:02x}")).collect::<String>();
        let ap_id = |b: MacAddr| hex(aps[bssids.iter().position(|x| *x == b).unwrap()].pmksa_pmkid(&addr).unwrap());
        let reply = CtrlNode::pmksa(&sta, now);
        let lines: Vec<&str> = reply.lines().collect();
        assert_eq!(lines.len(), 3, "{reply}");
        assert_eq!(lines[0], "Index / AA / PMKID / expiration (in seconds) / opportunistic");
        for (line, (i, b)) in lines[1..].iter().zip([(1, first), (2, second)]) {
            let f: Vec<&str> = line.split(' ').collect();
            assert_eq!(f.len(), 5, "{line}");
            assert_eq!((f[0], f[1], f[2], f[4]), (&*i.to_string(), &*b.to_string(), &*ap_id(b), "0"), "{line}");
            let left: u64 = f[3].parse().unwrap();
            assert!((43_190..=43_200).contains(&left), "{line}");
        }
        CtrlNode::pmksa_flush(&mut sta);
        assert_eq!(CtrlNode::pmksa(&sta, now), "Index / AA / PMKID / expiration (in seconds) / opportunistic\n");
    }
}
