//! The access point's control commands and events, in hostapd's formats (hostapd
//! `ctrl_iface.c`, `src/ap/ctrl_iface_ap.c`, `src/ap/wpa_auth.c` `wpa_get_mib`,
//! `src/ap/sta_info.c` `ap_sta_flags_txt`; events from `common/wpa_ctrl.h`).
//!
//! A reply is what hostapd would send for the same state, with the fields wsec has no
//! value for left out rather than invented (no `capability`, `supported_rates`, HT/VHT
//! fields: the medium has no PHY rates), and wsec's own counters after hostapd's fields,
//! named as the 802.11 MIB names them (`dot11RSNAStats...`) where it has a name.
use super::{channel_freq, cipher_txt, ok, pmksa_txt, suite_txt, Action, Ctrl, CtrlNode, Ctx};
use std::fmt::Write;
use wsec::cipher::CipherSuite;
use wsec::node::ap::{AccessPoint, StationInfo};
use wsec::node::{NodeEvent, Output, Phase, Security};
use wsec::rsn::akm::Akm;
use wsec::rsn::ie::Suite;
use wsec::wire::mac::MacAddr;
use wsec::wire::mgmt::ReasonCode;

/// A key management suite as hostapd.conf and `GET_CONFIG` write it.
pub fn akm_conf_txt(a: Akm) -> &'static str {
    match a {
        Akm::Psk => "WPA-PSK",
        Akm::PskSha256 => "WPA-PSK-SHA256",
        Akm::FtPsk => "FT-PSK",
        Akm::Sae => "SAE",
        Akm::FtSae => "FT-SAE",
        Akm::Ieee8021x => "WPA-EAP",
        Akm::Ieee8021xSha256 => "WPA-EAP-SHA256",
        Akm::FtIeee8021x => "FT-EAP",
        Akm::SuiteB => "WPA-EAP-SUITE-B",
        Akm::SuiteB192 => "WPA-EAP-SUITE-B-192",
        Akm::FtIeee8021xSha384 => "FT-EAP-SHA384",
        Akm::Owe | Akm::OweSha384 | Akm::OweSha512 => "OWE",
        Akm::SaeExtKey => "SAE-EXT-KEY",
    }
}

/// hostapd's `wpa_ssid_txt`: the SSID with unprintable octets as `_`.
pub fn ssid_txt(ssid: &[u8]) -> String {
    ssid.iter().map(|&b| if (32..127).contains(&b) { b as char } else { '_' }).collect()
}

/// The settings `SET`/`GET` change at run time, with hostapd.conf's ranges.
const RUNTIME_KEYS: [(&str, u64, u64); 4] = [
    ("wpa_group_rekey", 0, 2_147_483_647),
    ("wpa_ptk_rekey", 0, 2_147_483_647),
    ("ap_max_inactivity", 1, 2_147_483_647),
    ("max_num_sta", 0, 2007),
];

impl CtrlNode for AccessPoint {
    fn status(&self, ctx: &Ctx<'_>) -> String {
        status(self, ctx)
    }

    fn mib(&self, ctrl: &Ctrl) -> String {
        ctrl.mib(self)
    }

    fn pmksa(&self, now: u64) -> String {
        // hostapd's pmksa_cache_auth_list(): the SAE PMKSAs (the core does not say which
        // came by OKC: opportunistic 0).
        pmksa_txt("SPA", 0, self.pmksa_list(now).into_iter().map(|(a, id, left)| (a, id, left, false)))
    }

    fn pmksa_flush(&mut self) {
        AccessPoint::pmksa_flush(self)
    }

    /// hostapd's own commands.
    fn command(&mut self, _ctrl: &mut Ctrl, cmd: &str, arg: &str, ctx: &Ctx<'_>, out: &mut Output) -> Option<(String, Option<Action>)> {
        let (ap, now) = (self, ctx.now);
        let r = match cmd {
            "STA" => match arg.parse::<MacAddr>() {
                Err(_) => "FAIL\n".into(),
                // hostapd: no such station is -1, i.e. FAIL.
                Ok(a) => ap.station_info(&a).map(|i| sta_mib(ap, &a, &i, now)).unwrap_or_else(|| "FAIL\n".into()),
            },
            // An empty reply when there is no station (hostapd returns 0 octets).
            "STA-FIRST" => ap.peer_addrs().first().and_then(|a| ap.station_info(a).map(|i| sta_mib(ap, a, &i, now))).unwrap_or_default(),
            "STA-NEXT" => match arg.parse::<MacAddr>() {
                Ok(a) if ap.station_info(&a).is_some() => {
                    let all = ap.peer_addrs();
                    let next = all.iter().position(|x| *x == a).and_then(|i| all.get(i + 1));
                    next.and_then(|n| ap.station_info(n).map(|i| sta_mib(ap, n, &i, now))).unwrap_or_default()
                }
                _ => "FAIL\n".into(),
            },
            "DEAUTHENTICATE" | "DISASSOCIATE" => {
                let Some((a, reason)) = addr_reason(arg) else { return Some(("FAIL\n".into(), None)) };
                if a.is_broadcast() {
                    // hostapd: broadcast frees every station.
                    for s in ap.peer_addrs() {
                        ap.deauth(&s, reason, out);
                    }
                } else if cmd == "DEAUTHENTICATE" {
                    ap.deauth(&a, reason, out);
                } else {
                    ap.disassociate(now, &a, reason, out);
                }
                "OK\n".into()
            }
            "SA_QUERY" => match arg.parse::<MacAddr>() {
                Ok(a) => ok(ap.start_sa_query(now, &a, out)),
                Err(_) => "FAIL\n".into(),
            },
            "REKEY_GTK" => ok(ap.rekey_gtk(now, out)),
            "REKEY_PTK" => match arg.parse::<MacAddr>() {
                Ok(a) => ok(ap.rekey_ptk(now, &a, out)),
                Err(_) => "FAIL\n".into(),
            },
            "GET_CONFIG" => get_config(ap),
            "RELOAD" => return Some(("OK\n".into(), Some(Action::Reload))),
            "DISABLE" if ctx.enabled => {
                AccessPoint::shutdown(ap, out);
                return Some(("OK\n".into(), Some(Action::Pause)));
            }
            "ENABLE" if !ctx.enabled => return Some(("OK\n".into(), Some(Action::Resume))),
            // hostapd: "already enabled" / "already disabled" is -1.
            "DISABLE" | "ENABLE" => "FAIL\n".into(),
            "SET" => set(ap, now, arg),
            "GET" => get(ap, arg),
            // Beacons are built from the running configuration at each interval.
            "UPDATE_BEACON" => "OK\n".into(),
            "SET_NEIGHBOR" => super::wnm::set_neighbor(ap, arg),
            "REMOVE_NEIGHBOR" => super::wnm::remove_neighbor(ap, arg),
            "SHOW_NEIGHBOR" => super::wnm::show_neighbor(ap),
            "BSS_TM_REQ" => super::wnm::bss_tm_req(ap, now, arg, out),
            _ => return None,
        };
        Some((r, None))
    }

    /// The AP's events as hostapd sends them to its monitors: `AP-STA-CONNECTED` when a
    /// station is authorized (its data opens), `EAPOL-4WAY-HS-COMPLETED` after each 4-way
    /// handshake (and PTK rekey), `AP-STA-DISCONNECTED` when an authorized station leaves.
    fn events(&self, ctrl: &mut Ctrl, events: &[NodeEvent]) {
        for NodeEvent::Phase { peer, phase } in events {
            match phase {
                Phase::Established { pairwise } => {
                    if ctrl.connected.insert(*peer) {
                        ctrl.sock.event(&format!("AP-STA-CONNECTED {peer}"));
                    }
                    if pairwise.is_some() {
                        ctrl.sock.event(&format!("EAPOL-4WAY-HS-COMPLETED {peer}"));
                    }
                }
                Phase::PtkRekeyed => ctrl.sock.event(&format!("EAPOL-4WAY-HS-COMPLETED {peer}")),
                Phase::Deauthenticated { .. } | Phase::Disassociated { .. } => {
                    let was_connected = ctrl.connected.remove(peer);
                    if was_connected {
                        ctrl.sock.event(&format!("AP-STA-DISCONNECTED {peer}"));
                    }
                }
                Phase::HandshakeFailed(_) => ctrl.handshake_failures += 1,
                // hostapd's eapol_auth events with the station's address.
                Phase::EapStarted => ctrl.sock.event(&format!("CTRL-EVENT-EAP-STARTED {peer}")),
                Phase::EapSuccess { .. } => ctrl.sock.event(&format!("CTRL-EVENT-EAP-SUCCESS {peer}")),
                Phase::EapFailure(_) => ctrl.sock.event(&format!("CTRL-EVENT-EAP-FAILURE {peer}")),
                Phase::BtmResponse { .. } => ctrl.sock.event(&super::wnm::ap_event(peer, phase).unwrap_or_default()),
                _ => {}
            }
        }
    }

    /// hostapd's `AP-DISABLED` / `AP-ENABLED`.
    fn serving_event(&self, enabled: bool) -> Option<&'static str> {
        Some(if enabled { "AP-ENABLED " } else { "AP-DISABLED " })
    }
}

impl Ctrl {
    /// Every station disconnected at once (RELOAD, DISABLE, shutdown) without core events.
    pub fn ap_forget_all(&mut self) {
        for a in std::mem::take(&mut self.connected) {
            self.sock.event(&format!("AP-STA-DISCONNECTED {a}"));
        }
    }

    fn mib(&self, ap: &AccessPoint) -> String {
        let mut s = String::new();
        let c = ap.config();
        if let Security::Rsn { akms, pairwise, groups, .. } = &c.security {
            let g = groups[0];
            let _ = write!(
                s,
                "dot11RSNAOptionImplemented=TRUE\ndot11RSNAPreauthenticationImplemented=FALSE\ndot11RSNAEnabled={}\n\
                 dot11RSNAPreauthenticationEnabled=FALSE\ndot11RSNAConfigVersion=1\ndot11RSNAConfigGroupCipherSize={}\n\
                 dot11RSNAConfigGroupRekeyTime={}\ndot11RSNAConfigGroupRekeyPackets=0\n\
                 dot11RSNAAuthenticationSuiteSelected={}\ndot11RSNAPairwiseCipherSelected={}\ndot11RSNAGroupCipherSelected={}\n\
                 dot11RSNA4WayHandshakeFailures={}\n",
                if c.rsn { "TRUE" } else { "FALSE" },
                g.key_len() * 8,
                c.group_rekey_s,
                suite_txt(Suite::from_akm(akms[0])),
                suite_txt(Suite::from_cipher(pairwise[0])),
                suite_txt(Suite::from_cipher(g)),
                self.handshake_failures,
            );
        } else {
            s += "dot11RSNAOptionImplemented=TRUE\ndot11RSNAEnabled=FALSE\n";
        }
        // hostapd's RADIUS client MIB (RFC 4668 names): the server in use and the counters.
        if let (Some(addr), Some(st)) = (ap.radius_server(), ap.radius_stats()) {
            let _ = write!(
                s,
                "radiusAuthServerIndex=1\nradiusAuthServerAddress={}\nradiusAuthClientServerPortNumber={}\n\
                 radiusAuthClientAccessRequests={}\nradiusAuthClientAccessRetransmissions={}\n\
                 radiusAuthClientResponses={}\nradiusAuthClientDiscarded={}\nradiusAuthClientTimeouts={}\n\
                 radiusAuthClientFailovers={}\n",
                addr.ip(),
                addr.port(),
                st.requests,
                st.retransmissions,
                st.responses,
                st.discarded,
                st.gave_up,
                st.failovers
            );
        }
        // Per suite: the stations using it, summed (frames, octets, replays, MIC
        // failures, decrypt errors, key installs).
        let mut per: std::collections::BTreeMap<&'static str, [u64; 9]> = Default::default();
        for a in ap.peer_addrs() {
            let Some(i) = ap.station_info(&a) else { continue };
            let name = i.pairwise.map(cipher_txt).unwrap_or(match &c.security {
                Security::Open => "NONE",
                Security::Wep { .. } => "WEP",
                Security::Rsn { .. } => "NONE",
            });
            let k = &i.counters;
            let e = per.entry(name).or_default();
            for (j, v) in
                [1, k.rx_data, k.tx_data, k.rx_bytes, k.tx_bytes, k.rx_replays, k.rx_mic_failures, k.rx_decrypt_errors, k.key_installs]
                    .into_iter()
                    .enumerate()
            {
                e[j] += v;
            }
        }
        for (suite, v) in per {
            let n = suite.replace('-', "");
            let _ = write!(
                s,
                "wsecSuite{n}Stations={}\nwsecSuite{n}RxFrames={}\nwsecSuite{n}TxFrames={}\nwsecSuite{n}RxOctets={}\n\
                 wsecSuite{n}TxOctets={}\ndot11RSNAStats{n}Replays={}\ndot11RSNAStats{n}MICFailures={}\n\
                 dot11RSNAStats{n}DecryptErrors={}\nwsecSuite{n}KeyInstalls={}\n",
                v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]
            );
        }
        let k = &ap.counters;
        let _ = write!(
            s,
            "wsecRxAir={}\nwsecTxAir={}\nwsecRxData={}\nwsecTxData={}\nwsecRxDataOctets={}\nwsecTxDataOctets={}\nwsecRelayed={}\n",
            k.rx_air, k.tx_air, k.rx_data, k.tx_data, k.rx_data_bytes, k.tx_data_bytes, k.relayed
        );
        for (why, n) in &k.drops {
            let _ = writeln!(s, "wsecDropped[{}]={n}", why.replace(' ', "_"));
        }
        s
    }
}

/// `ADDR [reason=N]` of DEAUTHENTICATE / DISASSOCIATE (hostapd's default reason: 2,
/// previous authentication no longer valid).
fn addr_reason(arg: &str) -> Option<(MacAddr, ReasonCode)> {
    let mut it = arg.split_whitespace();
    let a = it.next()?.parse::<MacAddr>().ok()?;
    let mut reason = ReasonCode::PREV_AUTH_NOT_VALID;
    for w in it {
        if let Some(r) = w.strip_prefix("reason=") {
            reason = ReasonCode(r.parse().ok()?);
        }
    }
    Some((a, reason))
}

/// The process's CPU time per wall-clock second since `started`: how many cores the
/// node kept busy (its own thread and the engine's crypto threads).
pub fn cores_busy(started: std::time::Instant) -> f64 {
    // SAFETY: `ru` is a valid rusage for getrusage to fill.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid out pointer.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return 0.0;
    }
    let cpu = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let wall = started.elapsed().as_secs_f64().max(1e-9);
    (cpu(ru.ru_utime) + cpu(ru.ru_stime)) / wall
}

/// The engine's counters (`STATUS` of both nodes).
pub fn engine_status(dp: &wsec::node::datapath::Datapath, ctx: &Ctx<'_>) -> String {
    let e = dp.engine_stats();
    let fpb = if e.batches == 0 { 0.0 } else { e.batch_frames as f64 / e.batches as f64 };
    let opb = if e.open_batches == 0 { 0.0 } else { e.open_batch_frames as f64 / e.open_batches as f64 };
    format!(
        "engine_threads={}\nengine_batches={}\nengine_frames_per_batch={fpb:.2}\nengine_open_batches={}\n\
         engine_open_frames_per_batch={opb:.2}\nengine_protected={}\nengine_unprotected={}\n\
         engine_octets={}\ncard_busy_ns={}\ncores_busy={:.3}\nbad_fcs={}\n",
        dp.threads(),
        e.batches,
        e.open_batches,
        e.protected,
        e.unprotected,
        e.octets,
        dp.card().busy_ns(),
        cores_busy(ctx.started),
        ctx.bad_fcs
    )
}

/// hostapd `STATUS` (`hostapd_ctrl_iface_status`): the interface state, channel,
/// every BSS of the radio (`bss[j]`, `bssid[j]`, `ssid[j]`, `num_sta[j]`, whichever BSS is
/// asked); then the engine's counters.
fn status(ap: &AccessPoint, ctx: &Ctx<'_>) -> String {
    let c = ap.config();
    let mut s = format!(
        "state={}\nphy={}\nfreq={}\nchannel={}\nbeacon_int={}\nieee80211n={}\nieee80211ac=0\nieee80211ax=0\n",
        if ctx.enabled { "ENABLED" } else { "DISABLED" },
        ctx.radio.first().map_or(ctx.ifname, |b| b.ifname.as_str()),
        channel_freq(c.channel),
        c.channel,
        c.beacon_interval_tu,
        u8::from(c.ht_capab.is_some() && c.wmm)
    );
    let stations = num_sta(ap);
    if ctx.radio.is_empty() {
        let _ = write!(s, "bss[0]={}\nbssid[0]={}\nssid[0]={}\nnum_sta[0]={}\n", ctx.ifname, c.bssid, ssid_txt(&c.ssid), stations);
    }
    for (j, b) in ctx.radio.iter().enumerate() {
        // This BSS's own count is taken now; the others' as their loops last left them.
        let n = if b.bssid == c.bssid { stations } else { b.num_sta.load(std::sync::atomic::Ordering::Relaxed) };
        let _ = write!(s, "bss[{j}]={}\nbssid[{j}]={}\nssid[{j}]={}\nnum_sta[{j}]={n}\n", b.ifname, b.bssid, ssid_txt(&b.ssid));
    }
    s += &engine_status(ap.datapath(), ctx);
    s
}

/// The associated stations.
pub fn num_sta(ap: &AccessPoint) -> usize {
    ap.peer_addrs().iter().filter(|a| ap.station_info(a).is_some_and(|i| i.associated)).count()
}

/// hostapd `ap_sta_flags_txt`, the flags wsec keeps.
fn flags_txt(i: &StationInfo) -> String {
    let mut f = String::new();
    for (on, name) in [(i.authenticated, "[AUTH]"), (i.associated, "[ASSOC]"), (i.authorized, "[AUTHORIZED]"), (i.mfp, "[MFP]")] {
        if on {
            f += name;
        }
    }
    f
}

/// hostapd `STA` / `STA-FIRST` / `STA-NEXT` (`hostapd_ctrl_iface_sta_mib`): the address on
/// the first line, then `key=value` lines.
fn sta_mib(ap: &AccessPoint, a: &MacAddr, i: &StationInfo, now: u64) -> String {
    let mut s = format!("{a}\nflags={}\naid={}\n", flags_txt(i), i.aid);
    if let (Some(pw), Some(akm)) = (i.pairwise, i.akm) {
        // wpa_get_mib_sta: the selectors, RSN's or (WPA1) the WPA OUI's.
        let (pws, akms) =
            if i.wpa1 { (Suite::wpa_cipher(pw), Suite::wpa_akm(akm)) } else { (Some(Suite::from_cipher(pw)), Some(Suite::from_akm(akm))) };
        let _ = write!(
            s,
            "dot11RSNAStatsSTAAddress={a}\ndot11RSNAStatsVersion=1\ndot11RSNAStatsSelectedPairwiseCipher={}\n\
             dot11RSNAStatsTKIPLocalMICFailures={}\ndot11RSNAStatsTKIPRemoteMICFailures=0\nwpa={}\nAKMSuiteSelector={}\n",
            pws.map(suite_txt).unwrap_or_default(),
            if pw == CipherSuite::Tkip { i.counters.rx_mic_failures } else { 0 },
            if i.wpa1 { 1 } else { 2 },
            akms.map(suite_txt).unwrap_or_default(),
        );
    }
    let k = &i.counters;
    let _ = write!(
        s,
        "rx_packets={}\ntx_packets={}\nrx_bytes={}\ntx_bytes={}\ninactive_msec={}\nconnected_time={}\n",
        k.rx_data,
        k.tx_data,
        k.rx_bytes,
        k.tx_bytes,
        now.saturating_sub(i.last_rx) / 1_000_000,
        now.saturating_sub(i.associated_at) / 1_000_000_000
    );
    let suite = i.pairwise.map(cipher_txt).unwrap_or("NONE").replace('-', "");
    let _ = write!(
        s,
        "dot11RSNAStats{suite}Replays={}\ndot11RSNAStats{suite}MICFailures={}\ndot11RSNAStats{suite}DecryptErrors={}\n\
         rx_dropped={}\nkey_installs={}\n",
        k.rx_replays, k.rx_mic_failures, k.rx_decrypt_errors, k.rx_dropped, k.key_installs
    );
    if let Some(d) = ap.dot1x_info(a) {
        // ieee802_1x_get_mib_sta: the PAE, the session (dot1xAuthSessionStatsTable) and
        // the EAP method the server ran.
        let m = wsec::eap::packet::method::name(d.method);
        let _ = write!(
            s,
            "dot1xPaePortNumber={}\ndot1xAuthPaeState={}\ndot1xAuthAuthControlledPortStatus={}\n\
             dot1xAuthSessionId={}\ndot1xAuthSessionAuthenticMethod=1\ndot1xAuthSessionTime={}\n\
             dot1xAuthSessionTerminateCause=999\ndot1xAuthSessionUserName={}\nlast_eap_type_as={} ({m})\n",
            i.aid,
            d.pae_state,
            if d.authorized { 1 } else { 2 },
            d.session_id.as_deref().unwrap_or("0000000000000000"),
            d.session_started.map_or(0, |t| now.saturating_sub(t) / 1_000_000_000),
            String::from_utf8_lossy(&d.identity),
            d.method,
        );
    }
    s
}

/// hostapd `GET_CONFIG` (`hostapd_ctrl_iface_get_config`): lists end with a space, as
/// hostapd writes them.
fn get_config(ap: &AccessPoint) -> String {
    let c = ap.config();
    let mut s = format!("bssid={}\nssid={}\n", c.bssid, ssid_txt(&c.ssid));
    match &c.security {
        Security::Rsn { akms, pairwise, groups, .. } => {
            let wpa = (c.wpa1_pairwise.is_some() as u8) | ((c.rsn as u8) << 1);
            let _ = write!(s, "wpa={wpa}\nkey_mgmt=");
            for a in akms {
                let _ = write!(s, "{} ", akm_conf_txt(*a));
            }
            let _ = write!(s, "\ngroup_cipher={}\n", cipher_txt(groups[0]));
            if c.rsn {
                s += "rsn_pairwise_cipher=";
                for p in pairwise {
                    let _ = write!(s, "{} ", cipher_txt(*p));
                }
                s += "\n";
            }
            if let Some(w) = &c.wpa1_pairwise {
                s += "wpa_pairwise_cipher=";
                for p in w {
                    let _ = write!(s, "{} ", cipher_txt(*p));
                }
                s += "\n";
            }
        }
        _ => s += "wpa=0\n",
    }
    s
}

fn set(ap: &mut AccessPoint, now: u64, arg: &str) -> String {
    let Some((k, v)) = arg.split_once(' ') else { return "FAIL\n".into() };
    let Some(&(_, lo, hi)) = RUNTIME_KEYS.iter().find(|(n, _, _)| *n == k) else { return "FAIL\n".into() };
    let Ok(n) = v.trim().parse::<u64>() else { return "FAIL\n".into() };
    if !(lo..=hi).contains(&n) {
        return "FAIL\n".into();
    }
    let mut t = ap.tunables();
    match k {
        "wpa_group_rekey" => t.group_rekey_s = n,
        "wpa_ptk_rekey" => t.ptk_rekey_s = n,
        "ap_max_inactivity" => t.max_inactivity_s = n,
        _ => t.max_stations = n as usize,
    }
    ap.set_tunables(now, t);
    "OK\n".into()
}

fn get(ap: &AccessPoint, k: &str) -> String {
    let t = ap.tunables();
    match k {
        "version" => format!("{}\n", env!("CARGO_PKG_VERSION")),
        "wpa_group_rekey" => format!("{}\n", t.group_rekey_s),
        "wpa_ptk_rekey" => format!("{}\n", t.ptk_rekey_s),
        "ap_max_inactivity" => format!("{}\n", t.max_inactivity_s),
        "max_num_sta" => format!("{}\n", t.max_stations),
        _ => "FAIL\n".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use wsec::node::ap::ApConfig;
    use zeroize::Zeroizing;

    /// Malformed and random requests get FAIL / UNKNOWN COMMAND / an empty reply, never a
    /// panic, and change nothing they should not.
    #[test]
    fn bad_requests_are_refused() {
        let sec = Security::Rsn {
            akms: vec![Akm::Psk],
            pairwise: vec![CipherSuite::Ccmp128],
            groups: vec![CipherSuite::Ccmp128],
            pmk: Zeroizing::new(vec![7u8; 32]),
        };
        let cfg = ApConfig::new("02:00:00:00:00:01".parse().unwrap(), b"t", sec);
        let mut ap = AccessPoint::new(cfg, 1, Box::new(rand_core::OsRng)).unwrap();
        let dir = std::env::temp_dir().join(format!("wsec-ctrl-ap-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut c = Ctrl::open(&super::super::CtrlSpec::parse(dir.to_str().unwrap(), None).unwrap(), "wap9").unwrap();
        let ctx = Ctx { now: 2, ifname: "wap9", enabled: true, started: std::time::Instant::now(), bad_fcs: 0, config: None, radio: &[] };
        let mut out = Output::default();
        let from = Path::new("/nonexistent/client");
        let mut ask = |c: &mut Ctrl, ap: &mut AccessPoint, r: &str| c.request(ap, r, from, &ctx, &mut out);
        for (req, want) in [
            ("", "UNKNOWN COMMAND\n"),
            ("sta 02:00:00:00:00:11", "UNKNOWN COMMAND\n"),
            ("STA zz", "FAIL\n"),
            ("STA 02:00:00:00:00:11", "FAIL\n"),
            ("STA-FIRST", ""),
            ("STA-NEXT 02:00:00:00:00:11", "FAIL\n"),
            ("DEAUTHENTICATE", "FAIL\n"),
            ("DEAUTHENTICATE 02:00:00:00:00:11 reason=x", "FAIL\n"),
            ("DISASSOCIATE 02:00:00:00:00", "FAIL\n"),
            ("REKEY_PTK 02:00:00:00:00:11", "FAIL\n"),
            ("REKEY_PTK", "FAIL\n"),
            ("SA_QUERY 02:00:00:00:00:11", "FAIL\n"),
            ("SET wpa_group_rekey -1", "FAIL\n"),
            ("SET wpa_group_rekey 99999999999", "FAIL\n"),
            ("SET ap_max_inactivity 0", "FAIL\n"),
            ("SET wpa_passphrase abcdefgh", "FAIL\n"),
            ("SET", "FAIL\n"),
            ("GET wpa_passphrase", "FAIL\n"),
            ("LEVEL x", "FAIL\n"),
            ("DETACH", "FAIL\n"),
            ("ENABLE", "FAIL\n"),
        ] {
            assert_eq!(ask(&mut c, &mut ap, req).0, want, "{req:?}");
        }
        assert_eq!(ap.tunables().group_rekey_s, 86_400, "refused SETs changed nothing");
        assert_eq!(ask(&mut c, &mut ap, "REKEY_GTK"), ("OK\n".to_string(), None));
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(23);
        let words = ["STA", "STA-NEXT", "DEAUTHENTICATE", "DISASSOCIATE", "SET", "GET", "REKEY_PTK", "LEVEL", "MIB", "STATUS"];
        for _ in 0..2000 {
            let n = rng.gen_range(0..40);
            let junk: String = (0..n).map(|_| rng.gen_range(32u8..127) as char).collect();
            let req = format!("{} {junk}", words[rng.gen_range(0..words.len())]);
            let (r, act) = ask(&mut c, &mut ap, &req);
            assert!(act.is_none() && (r.ends_with('\n') || r.is_empty()), "{req:?} -> {r:?}");
        }
        drop(c);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn reason_and_names() {
        let (a, r) = addr_reason("02:00:00:00:00:11 reason=7").unwrap();
        assert_eq!((a.to_string().as_str(), r.0), ("02:00:00:00:00:11", 7));
        assert_eq!(addr_reason("02:00:00:00:00:11").unwrap().1 .0, 2);
        assert!(addr_reason("zz").is_none());
        assert!(addr_reason("02:00:00:00:00:11 reason=x").is_none());
        assert_eq!(ssid_txt(b"a\x01b"), "a_b");
        assert_eq!(suite_txt(Suite::from_cipher(CipherSuite::Ccmp128)), "00-0f-ac-4");
        assert_eq!(suite_txt(Suite::from_akm(Akm::Psk)), "00-0f-ac-2");
        assert_eq!(channel_freq(6), 2437);
        assert_eq!(channel_freq(14), 2484);
        assert_eq!(channel_freq(36), 5180);
    }
}
