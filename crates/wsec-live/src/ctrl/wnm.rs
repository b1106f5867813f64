//! Neighbor reports and BSS transition management on the control interfaces, in the words
//! of hostapd 2.10 (`hostapd/ctrl_iface.c`: `SET_NEIGHBOR`, `REMOVE_NEIGHBOR`,
//! `SHOW_NEIGHBOR`, `BSS_TM_REQ`; `src/ap/wnm_ap.c`: `BSS-TM-RESP`) and wpa_supplicant 2.10
//! (`wpa_supplicant/ctrl_iface.c`: `NEIGHBOR_REP_REQUEST`, `WNM_BSS_QUERY`,
//! `RRM-NEIGHBOR-REP-RECEIVED`; `wnm_sta.c`: the BTM Request lines). The arguments are read
//! the way those daemons read them (`strstr` for each `key=`, `atoi` for numbers), so the
//! same hostapd_cli and wpa_cli lines work.
use wsec::node::ap::{AccessPoint, BtmRequestParams, Neighbor};
use wsec::node::sta::Station;
use wsec::node::{Output, Phase};
use wsec::wire::mac::MacAddr;
use wsec::wire::rrm::{self, NeighborReport};
use wsec::wire::wnm::{request_mode, BssTerminationDuration};

const FAIL: &str = "FAIL\n";

/// C's `atoi`: optional blanks and sign, then digits; 0 when there are none; saturating.
fn atoi(s: &str) -> i64 {
    let s = s.trim_start();
    let (neg, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let v = s.bytes().take_while(u8::is_ascii_digit).fold(0i64, |v, d| v.saturating_mul(10).saturating_add((d - b'0') as i64));
    if neg {
        -v
    } else {
        v
    }
}

/// C's `strtol(s, &end, 0)`: a decimal, `0x` hex or `0` octal number at the start of `s`,
/// and the rest after it (None when no digit was read).
fn strtol0(s: &str) -> Option<(i64, &str)> {
    let t = s.trim_start();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (radix, digits) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (16, h)
    } else if t.starts_with('0') && t.len() > 1 {
        (8, &t[1..])
    } else {
        (10, t)
    };
    let n = digits.bytes().take_while(|b| (*b as char).is_digit(radix)).count();
    if n == 0 {
        // "0" alone, or "0x" with no hex digit: strtol reads the 0.
        return t.starts_with('0').then(|| (0, &t[1..]));
    }
    let v = i64::from_str_radix(&digits[..n], radix).unwrap_or(i64::MAX);
    Some((if neg { -v } else { v }, &digits[n..]))
}

/// An even-length hex string.
fn hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok())).collect()
}

fn hex_txt(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// hostapd's `ssid_parse`: `"text"` (up to the next quote) or hex up to a space, 1-32
/// octets; the SSID and the rest of the line after it.
fn ssid_parse(s: &str) -> Option<(Vec<u8>, &str)> {
    let (ssid, rest) = match s.strip_prefix('"') {
        Some(q) => {
            let end = q.find('"')?;
            (q.as_bytes()[..end].to_vec(), &q[end + 1..])
        }
        None => {
            let end = s.find(' ').unwrap_or(s.len());
            (hex(&s[..end])?, &s[end..])
        }
    };
    (!ssid.is_empty() && ssid.len() <= 32).then_some((ssid, rest))
}

/// The value of `key` (`" key="` in hostapd's `strstr` search of the whole line, or at its
/// start) up to the next space.
fn value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = if line.starts_with(key) { Some(0) } else { line.find(&format!(" {key}")).map(|i| i + 1) }?;
    let v = &line[at + key.len()..];
    Some(&v[..v.find(' ').unwrap_or(v.len())])
}

/// hostapd's `ieee802_11_parse_candidate_list`: every `neighbor=<BSSID>,<BSSID
/// Information>,<Operating Class>,<Channel Number>,<PHY Type>[,<hexdump of Optional
/// Subelements>]` of the line; None for a malformed one.
pub fn parse_candidates(line: &str) -> Option<Vec<NeighborReport>> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find(" neighbor=") {
        let item = &rest[i + 10..];
        let end = item.find(' ').unwrap_or(item.len());
        let (one, after) = (&item[..end], &item[end..]);
        rest = after;
        let bssid: MacAddr = one.get(..17)?.parse().ok()?;
        let f = one.get(17..)?.strip_prefix(',')?;
        let (info, f) = strtol0(f)?;
        let f = f.strip_prefix(',')?;
        let mut fields = f.splitn(4, ',');
        let op_class = atoi(fields.next()?) as u8;
        let channel = atoi(fields.next()?) as u8;
        let phy = atoi(fields.next()?) as u8;
        let mut r = NeighborReport::new(bssid, info as u32, op_class, channel, phy);
        if let Some(sub) = fields.next() {
            r.subelements = hex(sub)?;
        }
        // Checked as the station will read it (hostapd sends any octets).
        NeighborReport::parse(&r.to_body()).ok()?;
        if r.body_len() > 255 {
            return None;
        }
        out.push(r);
    }
    Some(out)
}

/// `SET_NEIGHBOR <BSSID> ssid=<"text" or hex> nr=<hex> [lci=<hex>] [civic=<hex>] [stat]`.
pub fn set_neighbor(ap: &mut AccessPoint, arg: &str) -> String {
    let Some(bssid) = arg.get(..17).and_then(|a| a.parse::<MacAddr>().ok()) else { return FAIL.into() };
    let Some(at) = arg.find("ssid=") else { return FAIL.into() };
    let Some((ssid, rest)) = ssid_parse(&arg[at + 5..]) else { return FAIL.into() };
    let Some(nr) = value(rest.trim_start(), "nr=").and_then(hex) else { return FAIL.into() };
    let opt = |k: &str| value(rest.trim_start(), k).map(|v| hex(v).filter(|b| !b.is_empty()).ok_or(()));
    let (Ok(lci), Ok(civic)) = (opt("lci=").transpose(), opt("civic=").transpose()) else { return FAIL.into() };
    if let Some(b) = value(rest.trim_start(), "bss_parameter=") {
        if !(0..=255).contains(&atoi(b)) {
            return FAIL.into();
        }
    }
    let stationary = rest.contains("stat");
    let n = Neighbor { bssid, ssid, nr, lci, civic, stationary };
    super::ok(ap.set_neighbor_entry(n).is_ok())
}

/// `REMOVE_NEIGHBOR <BSSID> [ssid=<"text" or hex>]`.
pub fn remove_neighbor(ap: &mut AccessPoint, arg: &str) -> String {
    let Some(bssid) = arg.get(..17).and_then(|a| a.parse::<MacAddr>().ok()) else { return FAIL.into() };
    let ssid = match arg.find("ssid=") {
        Some(at) => match ssid_parse(&arg[at + 5..]) {
            Some((s, _)) => Some(s),
            None => return FAIL.into(),
        },
        None => None,
    };
    super::ok(ap.remove_neighbor(&bssid, ssid.as_deref()))
}

/// `SHOW_NEIGHBOR` (hostapd `hostapd_neighbor_show`): one line per entry, the SSID in hex;
/// FAIL when neighbor reports are off.
pub fn show_neighbor(ap: &AccessPoint) -> String {
    if !ap.config().rrm_neighbor_report {
        return FAIL.into();
    }
    let mut s = String::new();
    for n in ap.neighbors() {
        s += &format!("{} ssid={} nr={}", n.bssid, hex_txt(&n.ssid), hex_txt(&n.nr));
        if let Some(l) = &n.lci {
            s += &format!(" lci={}", hex_txt(l));
        }
        if let Some(c) = &n.civic {
            s += &format!(" civic={}", hex_txt(c));
        }
        if n.stationary {
            s += " stat";
        }
        s += "\n";
    }
    s
}

/// `BSS_TM_REQ <addr> [disassoc_timer=<TBTTs>] [valid_int=<TBTTs>] [dialog_token=<n>]
/// [bss_term=<TSF>,<minutes>] [url=<url>] [pref=1] [abridged=1] [disassoc_imminent=1]
/// [neighbor=...]...` (hostapd `hostapd_ctrl_iface_bss_tm_req`; the TSF of `bss_term` is
/// sent as 0, as hostapd does). `mbo=` is not supported: FAIL.
pub fn bss_tm_req(ap: &mut AccessPoint, now: u64, arg: &str, out: &mut Output) -> String {
    let Some(sta) = arg.get(..17).and_then(|a| a.parse::<MacAddr>().ok()) else { return FAIL.into() };
    let line = &arg[17..];
    let mut p = BtmRequestParams::default();
    if let Some(v) = value(line, "disassoc_timer=") {
        match u16::try_from(atoi(v)) {
            Ok(t) => p.disassoc_timer = t,
            Err(_) => return FAIL.into(),
        }
    }
    if let Some(v) = value(line, "valid_int=") {
        p.validity_interval = atoi(v) as u8;
    }
    if let Some(v) = value(line, "dialog_token=") {
        p.dialog_token = atoi(v) as u8;
    }
    if let Some(v) = value(line, "bss_term=") {
        let Some((_, minutes)) = v.split_once(',') else { return FAIL.into() };
        p.bss_termination = Some(BssTerminationDuration { tsf: 0, duration_min: atoi(minutes) as u16 });
    }
    let Some(c) = parse_candidates(line) else { return FAIL.into() };
    p.candidates = c;
    if let Some(u) = value(line, "url=") {
        p.session_url = Some(u.as_bytes().to_vec());
    }
    for (k, bit) in [
        (" pref=1", request_mode::PREFERRED_CANDIDATE_LIST),
        (" abridged=1", request_mode::ABRIDGED),
        (" disassoc_imminent=1", request_mode::DISASSOCIATION_IMMINENT),
    ] {
        if line.contains(k) {
            p.mode |= bit;
        }
    }
    if line.contains("mbo=") {
        return FAIL.into();
    }
    super::ok(ap.bss_tm_req(now, &sta, &p, out).is_ok())
}

/// hostapd's `BSS-TM-RESP` for a station's BTM Response (2.10's words: no dialog token,
/// `target_bssid` with status 0 only).
pub fn ap_event(peer: &MacAddr, phase: &Phase) -> Option<String> {
    match phase {
        Phase::BtmResponse { status, termination_delay, target, .. } => {
            let mut s = format!("BSS-TM-RESP {peer} status_code={status} bss_termination_delay={termination_delay}");
            if let (0, Some(t)) = (status, target) {
                s += &format!(" target_bssid={t}");
            }
            Some(s)
        }
        _ => None,
    }
}

/// `NEIGHBOR_REP_REQUEST [ssid=<"text" or hex>] [lci] [civic]`.
pub fn neighbor_rep_request(sta: &mut Station, now: u64, arg: &str, out: &mut Output) -> String {
    let mut rest = arg;
    let mut ssid = None;
    if let Some(at) = arg.find("ssid=") {
        let Some((s, after)) = ssid_parse(&arg[at + 5..]) else { return FAIL.into() };
        ssid = Some(s);
        rest = after;
    }
    let (lci, civic) = (rest.contains("lci"), rest.contains("civic"));
    super::ok(sta.neighbor_rep_request(now, ssid.as_deref(), lci, civic, out).is_ok())
}

/// `WNM_BSS_QUERY <query_reason> [list | neighbor=...]`: `list` names the BSSs of the
/// network heard, most recently heard first, preferences from 255 down (as
/// `wnm_add_cand_list` does from the scan results).
pub fn wnm_bss_query(sta: &mut Station, now: u64, arg: &str, out: &mut Output) -> String {
    let reason = atoi(arg) as u8;
    let rest = arg.find(' ').map_or("", |i| &arg[i..]);
    let candidates = if rest.starts_with(" list") {
        let mut heard = sta.bss_heard();
        heard.sort_by_key(|(_, at)| std::cmp::Reverse(*at));
        heard
            .into_iter()
            .zip((1..=255u8).rev())
            .map(|((b, _), pref)| {
                let phy = if b.channel <= 14 { rrm::phy_type::ERP } else { rrm::phy_type::OFDM };
                NeighborReport::new(b.bssid, rrm::bssid_info::REACHABLE, rrm::operating_class(b.channel), b.channel, phy)
                    .with_preference(pref)
            })
            .collect()
    } else {
        match parse_candidates(rest) {
            Some(c) => c,
            None => return FAIL.into(),
        }
    };
    super::ok(sta.wnm_bss_query(now, reason, &candidates, out).is_ok())
}

/// wpa_supplicant's event lines for a station's phase: one `RRM-NEIGHBOR-REP-RECEIVED` per
/// neighbor (`wpas_ctrl_neighbor_rep_cb`), `RRM-NEIGHBOR-REP-REQUEST-FAILED`, and the lines
/// `ieee802_11_rx_bss_trans_mgmt_req` prints for a BTM Request. `pmf` is whether MFP is in
/// force, `beacon_int` the AP's Beacon Interval (TU).
pub fn sta_event_lines(phase: &Phase, pmf: bool, beacon_int: u16) -> Vec<String> {
    match phase {
        Phase::NeighborReport { neighbors, .. } => neighbors
            .iter()
            .map(|n| {
                format!(
                    "RRM-NEIGHBOR-REP-RECEIVED bssid={} info=0x{:x} op_class={} chan={} phy_type={}",
                    n.bssid, n.bssid_info, n.op_class, n.channel, n.phy_type
                )
            })
            .collect(),
        Phase::NeighborReportFailed => vec!["RRM-NEIGHBOR-REP-REQUEST-FAILED ".into()],
        Phase::BtmRequest { mode, disassoc_timer, url, .. } => {
            let mut v = Vec::new();
            if mode & request_mode::ESS_DISASSOCIATION_IMMINENT != 0 {
                let ms = *disassoc_timer as u64 * beacon_int as u64 * 128 / 125;
                v.push(format!("ESS-DISASSOC-IMMINENT {} {ms} {}", pmf as u8, url.as_deref().unwrap_or("")));
            }
            if mode & request_mode::DISASSOCIATION_IMMINENT != 0 {
                v.push(format!("WNM: Disassociation Imminent - Disassociation Timer {disassoc_timer}"));
            }
            if mode & request_mode::PREFERRED_CANDIDATE_LIST != 0 {
                v.push("WNM: Preferred List Available".into());
            } else if mode & request_mode::ESS_DISASSOCIATION_IMMINENT == 0 {
                v.push("WNM: BSS Transition Management Request did not include candidates".into());
            }
            v
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wsec::node::ap::ApConfig;
    use wsec::node::Security;

    const A: &str = "02:00:00:00:01:00";
    const OK: &str = "OK\n";

    fn ap(rrm: bool) -> AccessPoint {
        let mut c = ApConfig::new("02:00:00:00:00:01".parse().unwrap(), b"wsec", Security::Open);
        c.rrm_neighbor_report = rrm;
        c.bss_transition = true;
        AccessPoint::new(c, 1, wsec::rng::seeded(3)).unwrap()
    }

    #[test]
    fn hostapd_conf_keys() {
        let base = "interface=wap0\nbssid=02:00:00:00:01:00\nssid=e\n";
        let c = crate::conf::parse_ap(base).unwrap().ap;
        assert!(!c.bss_transition && !c.rrm_neighbor_report);
        let c = crate::conf::parse_ap(&format!("{base}bss_transition=1\nrrm_neighbor_report=1\n")).unwrap().ap;
        assert!(c.bss_transition && c.rrm_neighbor_report);
        assert!(crate::conf::parse_ap(&format!("{base}bss_transition=2\n")).is_err());
        assert!(crate::conf::parse_ap(&format!("{base}rrm_neighbor_report=x\n")).is_err());
    }

    #[test]
    fn numbers_as_c_reads_them() {
        assert_eq!((atoi("12 x"), atoi("-3"), atoi("x"), atoi(""), atoi(" +7")), (12, -3, 0, 0, 7));
        assert_eq!(strtol0("0x1f,81"), Some((31, ",81")));
        assert_eq!(strtol0("17,1"), Some((17, ",1")));
        assert_eq!(strtol0("010,"), Some((8, ",")));
        assert_eq!(strtol0("0,"), Some((0, ",")));
        assert_eq!(strtol0(",1"), None);
        assert_eq!(hex("0a0B"), Some(vec![10, 11]));
        assert_eq!((hex("0a0"), hex("zz")), (None, None));
    }

    #[test]
    fn candidate_lists_as_hostapd_builds_them() {
        let c = parse_candidates(&format!(" pref=1 neighbor={A},0x0000,81,1,7,0301ff neighbor=02:00:00:00:02:00,3,115,36,9")).unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!((c[0].bssid.to_string(), c[0].bssid_info, c[0].op_class, c[0].channel, c[0].phy_type), (A.into(), 0, 81, 1, 7));
        assert_eq!(c[0].preference(), Some(255));
        assert_eq!((c[1].bssid_info, c[1].op_class, c[1].channel, c[1].phy_type, c[1].preference()), (3, 115, 36, 9, None));
        assert_eq!(parse_candidates(" x=1").unwrap().len(), 0);
        for bad in [
            " neighbor=02:00:00:00:01",
            &format!(" neighbor={A}"),
            &format!(" neighbor={A},3,81,1"),
            &format!(" neighbor={A},3,81,1,7,030"),
        ] {
            assert!(parse_candidates(bad).is_none(), "{bad}");
        }
        // A subelement running past the report is refused (the station could not read it).
        assert!(parse_candidates(&format!(" neighbor={A},3,81,1,7,0302ff")).is_none());
    }

    #[test]
    fn neighbor_table_commands() {
        let mut a = ap(true);
        let nr = "02000000010000000000510107";
        assert_eq!(set_neighbor(&mut a, &format!("{A} ssid=\"wsec\" nr={nr}")), OK);
        assert_eq!(set_neighbor(&mut a, &format!("{A} ssid=\"my net\" nr={nr} lci=0100 civic=0200 stat")), OK);
        assert_eq!(set_neighbor(&mut a, &format!("{A} ssid=77736563 nr={nr}0301ff")), OK, "the same entry, replaced");
        for bad in [
            format!("{A} nr={nr}"),
            format!("{A} ssid=\"wsec nr={nr}"),
            format!("{A} ssid=\"wsec\""),
            format!("{A} ssid=\"wsec\" nr=0200"),
            format!("{A} ssid=\"wsec\" nr={nr}0"),
            format!("{A} ssid=\"\" nr={nr}"),
            format!("zz ssid=\"wsec\" nr={nr}"),
            format!("{A} ssid=\"wsec\" nr={nr} bss_parameter=300"),
        ] {
            assert_eq!(set_neighbor(&mut a, &bad), FAIL, "{bad}");
        }
        let show = show_neighbor(&a);
        let lines: Vec<&str> = show.lines().collect();
        assert_eq!(lines.len(), 3, "{show}");
        assert_eq!(lines[0], format!("{A} ssid=6d79206e6574 nr={nr} lci=0100 civic=0200 stat"));
        assert_eq!(lines[1], format!("{A} ssid=77736563 nr={nr}0301ff"));
        // The AP's own report last: 0x8f, class 81, channel 6, ERP, 20 MHz.
        assert_eq!(lines[2], "02:00:00:00:00:01 ssid=77736563 nr=0200000000018f0000005106060603000000");
        assert_eq!(remove_neighbor(&mut a, &format!("{A} ssid=\"my net\"")), OK);
        assert_eq!(remove_neighbor(&mut a, &format!("{A} ssid=\"my net\"")), FAIL);
        assert_eq!(remove_neighbor(&mut a, A), OK);
        assert_eq!(remove_neighbor(&mut a, "02:00"), FAIL);
        assert_eq!(show_neighbor(&a).lines().count(), 1);
        let mut off = ap(false);
        assert_eq!(show_neighbor(&off), FAIL);
        assert_eq!(set_neighbor(&mut off, &format!("{A} ssid=\"wsec\" nr={nr}")), FAIL);
    }

    #[test]
    fn bss_tm_req_arguments() {
        let mut a = ap(false);
        let mut out = Output::default();
        // No such station; bad arguments fail before that.
        assert_eq!(bss_tm_req(&mut a, 1, &format!("{A} pref=1 neighbor={A},0,81,1,7"), &mut out), FAIL);
        for bad in ["zz", "02:00:00:00:00:11 disassoc_timer=70000", "02:00:00:00:00:11 bss_term=5", "02:00:00:00:00:11 neighbor=x"] {
            assert_eq!(bss_tm_req(&mut a, 1, bad, &mut out), FAIL, "{bad}");
        }
        assert!(out.air.is_empty());
    }

    #[test]
    fn event_lines() {
        let t: MacAddr = A.parse().unwrap();
        let p = Phase::BtmResponse { dialog_token: 1, status: 0, termination_delay: 0, target: Some(t) };
        assert_eq!(
            ap_event(&"02:00:00:00:00:11".parse().unwrap(), &p).unwrap(),
            format!("BSS-TM-RESP 02:00:00:00:00:11 status_code=0 bss_termination_delay=0 target_bssid={A}")
        );
        let p = Phase::BtmResponse { dialog_token: 1, status: 7, termination_delay: 0, target: None };
        assert_eq!(ap_event(&t, &p).unwrap(), format!("BSS-TM-RESP {A} status_code=7 bss_termination_delay=0"));
        let n = NeighborReport::new(t, 0x8f, 81, 6, 6);
        let lines = sta_event_lines(&Phase::NeighborReport { dialog_token: 1, neighbors: vec![n] }, false, 100);
        assert_eq!(lines, [format!("RRM-NEIGHBOR-REP-RECEIVED bssid={A} info=0x8f op_class=81 chan=6 phy_type=6")]);
        assert_eq!(sta_event_lines(&Phase::NeighborReportFailed, false, 100), ["RRM-NEIGHBOR-REP-REQUEST-FAILED "]);
        let req = |mode, url: Option<&str>| Phase::BtmRequest {
            dialog_token: 1,
            mode,
            disassoc_timer: 10,
            validity: 1,
            candidates: 0,
            url: url.map(String::from),
        };
        assert_eq!(
            sta_event_lines(&req(0x05, None), true, 100),
            ["WNM: Disassociation Imminent - Disassociation Timer 10", "WNM: Preferred List Available"]
        );
        assert_eq!(sta_event_lines(&req(0, None), true, 100), ["WNM: BSS Transition Management Request did not include candidates"]);
        assert_eq!(
            sta_event_lines(&req(0x14, Some("http://x")), true, 100),
            ["ESS-DISASSOC-IMMINENT 1 1024 http://x", "WNM: Disassociation Imminent - Disassociation Timer 10"]
        );
    }
}
