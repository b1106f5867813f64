//! The hostapd.conf / wpa_supplicant.conf readers (`wsec_live::conf`): every key `docs/live.md`
//! lists reaches the core's configuration, and every unknown key or bad value is an
//! error naming its line.
use wsec::cipher::CipherSuite;
use wsec::node::{Offload, Security};
use wsec::wire::MacAddr;
use wsec_live::conf::{parse_ap, parse_sta};

const AP: &str = "interface=wap0
ssid=wsec-live
bssid=02:00:00:00:00:01
channel=11
wpa=2
wpa_key_mgmt=WPA-PSK
rsn_pairwise=CCMP
wpa_passphrase=correct horse battery
wpa_group_rekey=600
wpa_ptk_rekey=30
crypto_offload=card
card_ns_per_frame=1000
card_ns_per_byte=2
engine_threads=3
";

#[test]
fn ap_keys_reach_the_core() {
    let f = parse_ap(AP).unwrap();
    assert_eq!(f.interface, "wap0");
    assert_eq!(f.ap.ssid, b"wsec-live");
    assert_eq!(f.ap.bssid, MacAddr([2, 0, 0, 0, 0, 1]));
    assert_eq!(f.ap.channel, 11);
    assert_eq!(f.ap.group_rekey_s, 600);
    assert_eq!(f.ap.ptk_rekey_s, 30);
    assert_eq!(f.ap.offload, Offload::Card { ns_per_frame: 1000, ns_per_byte: 2 });
    assert_eq!(f.ap.engine_threads, 3);
    match &f.ap.security {
        Security::Rsn { pairwise, groups, pmk, .. } => {
            assert_eq!(pairwise, &vec![CipherSuite::Ccmp128]);
            assert_eq!(groups[0], CipherSuite::Ccmp128);
            assert_eq!(pmk.len(), 32);
        }
        s => panic!("wpa=2 gives an RSN, not {s:?}"),
    }
    // The AP's engine uses every core unless told otherwise; a station one thread.
    let f = parse_ap(&AP.replace("engine_threads=3\n", "")).unwrap();
    assert_eq!(f.ap.engine_threads, 0);
    let s = parse_sta(
        "interface=wsta0\naddr=02:00:00:00:00:11\nnetwork={\n ssid=\"wsec-live\"\n key_mgmt=WPA-PSK\n psk=\"correct horse battery\"\n}\n",
    )
    .unwrap();
    assert_eq!(s.sta.engine_threads, 1);
    let s = parse_sta("interface=wsta0\naddr=02:00:00:00:00:11\nengine_threads=2\nnetwork={\n ssid=\"wsec-live\"\n key_mgmt=NONE\n}\n")
        .unwrap();
    assert_eq!(s.sta.engine_threads, 2);
    assert!(matches!(s.sta.security, Security::Open));
    // Extended Key ID (12.6.21): hostapd's 0/1/2, wpa_supplicant's global 0/1; off unless set.
    assert_eq!(parse_ap(AP).unwrap().ap.extended_key_id, 0);
    assert_eq!(parse_ap(&format!("{AP}extended_key_id=2\n")).unwrap().ap.extended_key_id, 2);
    assert!(parse_ap(&format!("{AP}extended_key_id=3\n")).is_err());
    assert!(!s.sta.extended_key_id);
    let e = parse_sta("interface=wsta0\naddr=02:00:00:00:00:11\nextended_key_id=1\nnetwork={\n ssid=\"x\"\n key_mgmt=NONE\n}\n").unwrap();
    assert!(e.sta.extended_key_id);
    assert!(parse_sta("interface=wsta0\naddr=02:00:00:00:00:11\nextended_key_id=2\nnetwork={\n ssid=\"x\"\n key_mgmt=NONE\n}\n").is_err());
    // SPP A-MSDU: hostapd's spp_amsdu (0/1), 2 for Required; the station's as a global key.
    assert_eq!(parse_ap(AP).unwrap().ap.spp_amsdu, 0);
    assert_eq!(parse_ap(&format!("{AP}spp_amsdu=1\n")).unwrap().ap.spp_amsdu, 1);
    assert_eq!(parse_ap(&format!("{AP}spp_amsdu=2\n")).unwrap().ap.spp_amsdu, 2);
    assert!(parse_ap(&format!("{AP}spp_amsdu=3\n")).is_err());
    let e = parse_sta("interface=wsta0\naddr=02:00:00:00:00:11\nspp_amsdu=2\nnetwork={\n ssid=\"x\"\n key_mgmt=NONE\n}\n").unwrap();
    assert_eq!((s.sta.spp_amsdu, e.sta.spp_amsdu), (0, 2));
    assert!(parse_sta("interface=wsta0\naddr=02:00:00:00:00:11\nspp_amsdu=x\nnetwork={\n ssid=\"x\"\n key_mgmt=NONE\n}\n").is_err());
}

#[test]
fn unknown_keys_and_bad_values_name_their_line() {
    let cases: &[(&str, &str, &str)] = &[
        ("engine_threads=many", "engine_threads", ""),
        ("engine_threads=1000", "engine_threads", "256"),
        ("eccmp_lanes=3", "eccmp_lanes", ""),
        ("crypto_offload=gpu", "crypto_offload", ""),
        ("channel=x", "channel", ""),
        ("frobnicate=1", "frobnicate", ""),
    ];
    for (line, key, also) in cases {
        // The bad line is line 4 of the file (channel removed, the line before `wpa=2`).
        let text = AP.replacen("channel=11\n", "", 1).replacen("wpa=2\n", &format!("{line}\nwpa=2\n"), 1);
        let e = parse_ap(&text).expect_err(line);
        assert_eq!(e.line, 4, "{line}: {e}");
        let msg = e.to_string();
        assert!(msg.starts_with("line 4: ") && msg.contains(key) && msg.contains(also), "{line}: {msg}");
    }
    let e =
        parse_sta("interface=wsta0\naddr=02:00:00:00:00:11\nengine_threads=-1\nnetwork={\n ssid=\"x\"\n key_mgmt=NONE\n}\n").unwrap_err();
    assert_eq!(e.line, 3, "{e}");
    let e = parse_sta("interface=wsta0\naddr=02:00:00:00:00:11\nnetwork={\n ssid=\"x\"\n key_mgmt=NONE\n bogus=1\n}\n").unwrap_err();
    assert_eq!(e.line, 6, "{e}");
}

/// `AP` with `line` inserted before `wpa=2` (as line 5) and `drop` removed.
fn ap_with(line: &str, drop: &str) -> String {
    AP.replacen(drop, "", 1).replacen("wpa=2\n", &format!("{line}\nwpa=2\n"), 1)
}

const STA_HEAD: &str = "interface=wsta0\naddr=02:00:00:00:00:11\n";

/// Every numeric key is range-checked with hostapd's range where hostapd has one
/// (`wpa_group_rekey=18446744074` times 10^9 would wrap to a 0.29 s rekey period); the
/// error names the key and the range.
#[test]
fn numeric_keys_are_range_checked() {
    let cases: &[(&str, &str)] = &[
        ("wpa_group_rekey=18446744074", "2147483647"),
        ("wpa_group_rekey=2147483648", "2147483647"),
        ("wpa_ptk_rekey=18446744074", "2147483647"),
        ("ap_max_inactivity=18446744074", "2147483647"),
        ("ap_max_inactivity=0", "1 to 2147483647"),
        ("max_num_sta=2008", "0 to 2007"),
        ("beacon_int=14", "15 to 65535"),
        ("beacon_int=65536", "15 to 65535"),
        ("wpa=4", "0 to 3"),
        ("card_ns_per_frame=1000000001", "1000000000"),
        ("card_ns_per_byte=18446744073709551615", "1000000"),
        ("ieee80211w=3", "0"),
        ("wep_default_key=4", "0 to 3"),
        ("engine_threads=257", "256"),
        ("channel=+6", "decimal"),
        ("channel=0", "1 to 14"),
        ("wpa_group_rekey=-1", "decimal"),
        ("wpa_group_rekey= 600", "decimal"),
    ];
    for (line, want) in cases {
        let key = line.split('=').next().unwrap();
        let e = parse_ap(&ap_with(line, "channel=11\n")).expect_err(line);
        assert_eq!(e.line, 4, "{line}: {e}");
        assert!(e.msg.contains(key) && e.msg.contains(want), "{line}: {e}");
    }
    // The top of each range is accepted.
    let f =
        parse_ap(&ap_with("wpa_group_rekey=2147483647\nap_max_inactivity=2147483647\nmax_num_sta=2007", "wpa_group_rekey=600\n")).unwrap();
    assert_eq!((f.ap.group_rekey_s, f.ap.max_inactivity_s, f.ap.max_stations), (2_147_483_647, 2_147_483_647, 2007));
    for (line, want) in [("scan_ssid=2", "0 to 1"), ("priority=-1", "decimal"), ("scan_ssid=+1", "decimal")] {
        let e = parse_sta(&format!("{STA_HEAD}network={{\n ssid=\"x\"\n key_mgmt=NONE\n {line}\n}}\n")).expect_err(line);
        assert_eq!(e.line, 6, "{line}: {e}");
        assert!(e.msg.contains(want), "{line}: {e}");
    }
}

/// The core's time arithmetic saturates, so a period that does not fit
/// the nanosecond clock means "never" rather than wrapping to a short one (and debug builds
/// do not panic on the overflow).
#[test]
fn ap_periods_saturate_instead_of_wrapping() {
    use wsec::node::ap::AccessPoint;
    use wsec::node::Output;
    use wsec::node::SEC;
    let mut cfg = parse_ap(AP).unwrap().ap;
    cfg.group_rekey_s = 18_446_744_074;
    cfg.ptk_rekey_s = u64::MAX;
    cfg.max_inactivity_s = u64::MAX;
    let mut ap = AccessPoint::new(cfg, 1, wsec::rng::seeded(7)).unwrap();
    let mut out = Output::default();
    let mut now = 1;
    // Ten simulated seconds: with the wrapped period the group key would be renewed every
    // 0.29 s; the AP's next deadline stays a beacon or housekeeping, never earlier.
    while now < 10 * SEC {
        ap.handle_timeout(now, &mut out);
        let next = ap.poll_timeout();
        assert!(next > now && next <= now + SEC, "next deadline {next} at {now}");
        now = next;
    }
    assert!(!out.air.is_empty(), "the AP beaconed");
}

/// Hex values (PSK, WEP keys) and MAC addresses take no sign.
#[test]
fn hex_and_mac_values_take_no_sign() {
    let psk = format!("wpa_psk=+{}", "f".repeat(63));
    let e = parse_ap(&ap_with(&psk, "wpa_passphrase=correct horse battery\n")).unwrap_err();
    assert!(e.msg.contains("64 hex digits"), "{e}");
    let e = parse_ap("interface=wap0\nssid=x\nbssid=02:00:00:00:00:01\nwep_key0=+f+f+f+f+f\n").unwrap_err();
    assert_eq!(e.line, 4, "{e}");
    let e = parse_ap(&AP.replace("bssid=02:00:00:00:00:01", "bssid=+2:00:00:00:00:01")).unwrap_err();
    assert!(e.msg.contains("bssid"), "{e}");
}

/// `wpa_key_mgmt=NONE` with `wpa=2` is refused, not run as WPA-PSK: hostapd has no NONE
/// (`hostapd_config_parse_key_mgmt`: invalid key_mgmt). An empty `auth_algs=` / `auth_alg=`
/// names no algorithm (hostapd: "no authentication algorithms allowed").
#[test]
fn key_mgmt_none_and_empty_auth_algs_are_refused() {
    let e = parse_ap(&AP.replace("wpa_key_mgmt=WPA-PSK", "wpa_key_mgmt=NONE")).unwrap_err();
    assert_eq!(e.line, 6, "{e}");
    assert!(e.msg.contains("NONE") && e.msg.contains("wpa=0"), "{e}");
    let e = parse_ap(&ap_with("auth_algs=", "channel=11\n")).unwrap_err();
    assert_eq!(e.line, 4, "{e}");
    assert!(e.msg.contains("auth_algs"), "{e}");
    let e = parse_ap(&ap_with("auth_algs=0", "channel=11\n")).unwrap_err();
    assert!(e.msg.contains("1 to 3"), "{e}");
    let e = parse_sta(&format!("{STA_HEAD}network={{\n ssid=\"x\"\n key_mgmt=NONE\n auth_alg=\n}}\n")).unwrap_err();
    assert_eq!(e.line, 6, "{e}");
    assert!(e.msg.contains("auth_alg"), "{e}");
    // The station's key_mgmt=NONE stays what wpa_supplicant means by it.
    let s = parse_sta(&format!("{STA_HEAD}network={{\n ssid=\"x\"\n key_mgmt=NONE\n}}\n")).unwrap();
    assert!(matches!(s.sta.security, Security::Open));
}

fn pmk_of(sec: &Security) -> Vec<u8> {
    match sec {
        Security::Rsn { pmk, .. } => pmk.to_vec(),
        s => panic!("expected an RSN, got {s:?}"),
    }
}

/// Comments follow hostapd (AP: `#` only as a line's first character,
/// so a trailing `# ...` is part of the value) and wpa_supplicant (STA: `#` outside the last
/// quoted string starts a comment).
#[test]
fn comments_follow_hostapd_and_wpa_supplicant() {
    use wsec::rsn::pbkdf2::psk_from_passphrase;
    // hostapd: the passphrase is everything after '=', the '#' included.
    let f = parse_ap(&AP.replace("wpa_passphrase=correct horse battery", "wpa_passphrase=correct horse battery # x")).unwrap();
    assert_eq!(pmk_of(&f.ap.security), psk_from_passphrase(b"correct horse battery # x", b"wsec-live").unwrap().to_vec());
    // A '#' line is a comment (even one holding '='); a numeric value with a trailing
    // comment is an error that says why.
    let f = parse_ap(&ap_with("#channel=3", "")).unwrap();
    assert_eq!(f.ap.channel, 11);
    let e = parse_ap(&AP.replace("channel=11", "channel=11   # the channel")).unwrap_err();
    assert_eq!(e.line, 4, "{e}");
    assert!(e.msg.contains("comment"), "{e}");
    // wpa_supplicant: the '#' inside the quotes stays, the one after them goes.
    let s = parse_sta(&format!(
        "{STA_HEAD}network={{ # the one network\n ssid=\"a#b\" # comment\n key_mgmt=WPA-PSK#x\n psk=\"pass # word\" # the passphrase\n}}\n"
    ))
    .unwrap();
    assert_eq!(s.sta.ssid, b"a#b");
    assert_eq!(pmk_of(&s.sta.security), psk_from_passphrase(b"pass # word", b"a#b").unwrap().to_vec());
}

/// A line without '=' (a passphrase pasted on a line of its own) and a
/// key that is not a key's shape are not repeated in the error.
#[test]
fn errors_do_not_echo_secrets() {
    let secret = "MySecretPassphrase123";
    let e = parse_ap(&ap_with(secret, "")).unwrap_err();
    assert_eq!(e.line, 5, "{e}");
    assert!(!e.to_string().contains(secret), "{e}");
    let e = parse_ap(&ap_with(&format!("{secret}=1"), "")).unwrap_err();
    assert!(e.msg.contains("unknown key") && !e.to_string().contains(secret), "{e}");
    let e = parse_sta(&format!("{STA_HEAD}network={{\n ssid=\"x\"\n {secret}\n}}\n")).unwrap_err();
    assert_eq!(e.line, 5, "{e}");
    assert!(!e.to_string().contains(secret), "{e}");
    let e = parse_sta(&format!("{STA_HEAD}{secret}\nnetwork={{\n ssid=\"x\"\n}}\n")).unwrap_err();
    assert_eq!(e.line, 3, "{e}");
    assert!(!e.to_string().contains(secret), "{e}");
}

/// The configuration examples of docs/live.md parse as printed (the block after the line
/// naming `ap.conf` with `parse_ap`, after `sta.conf` with `parse_sta`).
#[test]
fn docs_examples_parse() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/live.md");
    let md = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = md.lines().collect();
    let mut checked = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let which = if lines[i].starts_with("`ap.conf`") {
            "ap"
        } else if lines[i].starts_with("`sta-peap.conf`") {
            "sta-peap"
        } else if lines[i].starts_with("`sta.conf`") {
            "sta"
        } else {
            i += 1;
            continue;
        };
        let start = i + lines[i..].iter().position(|l| *l == "```").expect("a code block follows") + 1;
        let end = start + lines[start..].iter().position(|l| *l == "```").expect("the block ends");
        let text = lines[start..end].join("\n") + "\n";
        match which {
            "ap" => {
                let f = parse_ap(&text).unwrap_or_else(|e| panic!("docs/live.md ap.conf: {e}"));
                assert_eq!((f.interface.as_str(), f.ap.channel, f.ap.group_rekey_s), ("wap0", 6, 600));
                assert_eq!(
                    pmk_of(&f.ap.security),
                    wsec::rsn::pbkdf2::psk_from_passphrase(b"correct horse battery", b"wsec-live").unwrap().to_vec()
                );
            }
            "sta-peap" => {
                let f = parse_sta(&text).unwrap_or_else(|e| panic!("docs/live.md sta-peap.conf: {e}"));
                let e = f.eap.expect("an EAP network");
                assert_eq!(e.method, wsec_live::conf::EapKind::Peap);
                assert_eq!(e.phase2, Some(wsec::eap::TtlsInner::Mschapv2));
            }
            _ => {
                let f = parse_sta(&text).unwrap_or_else(|e| panic!("docs/live.md sta.conf: {e}"));
                assert_eq!(f.interface, "wsta0");
                assert_eq!(f.sta.offload, Offload::Host);
                assert_eq!(
                    pmk_of(&f.sta.security),
                    wsec::rsn::pbkdf2::psk_from_passphrase(b"correct horse battery", b"wsec-live").unwrap().to_vec()
                );
            }
        }
        checked.push(which);
        i = end + 1;
    }
    checked.sort();
    assert_eq!(checked, ["ap", "sta", "sta-peap"], "docs/live.md has one ap.conf, one sta.conf and one sta-peap.conf example");
}

const RADIO_AP: &str =
    "interface=wlan0\ndriver=nl80211\nssid=lab\nchannel=11\nwpa=2\nwpa_key_mgmt=WPA-PSK\nrsn_pairwise=CCMP\nwpa_passphrase=12345678\n";

#[test]
fn driver_nl80211_takes_the_radio_from_interface_as_hostapd_does() {
    let f = parse_ap(RADIO_AP).unwrap();
    assert_eq!(f.medium.as_deref(), Some("radio:wlan0"));
    assert_eq!(f.interface, "wsec-wlan0");
    assert_eq!(f.ap.channel, 11);
    // No bssid=: hostapd takes the radio's own address; so does the runtime.
    assert!(f.address_from_radio);
    let f = parse_ap(&format!("{RADIO_AP}wired_interface=ap0\nbridge=br0\n")).unwrap();
    assert_eq!((f.interface.as_str(), f.bridge.as_deref()), ("ap0", Some("br0")));
    // A long radio name still gives a TAP name Linux accepts (15 characters).
    let f = parse_ap(&RADIO_AP.replace("interface=wlan0", "interface=wlx001122334455")).unwrap();
    assert_eq!(f.interface, "wsec-wlx0011223");
    // The radio is the medium: a medium= beside it, a wired_interface= without it, an
    // unknown driver and a TAP named like the radio are errors naming the line.
    let e = parse_ap(&format!("{RADIO_AP}medium=air:127.0.0.1:7411\n")).unwrap_err();
    assert!(e.line == 9 && e.msg.contains("driver=nl80211"), "{e}");
    let plain = RADIO_AP.replace("driver=nl80211\n", "bssid=02:00:00:00:00:09\n");
    assert!(!parse_ap(&plain).unwrap().address_from_radio);
    // Without bssid= and without a radio there is no address to take.
    assert!(parse_ap(&RADIO_AP.replace("driver=nl80211\n", "")).unwrap_err().msg.contains("bssid is required"));
    assert!(parse_ap(&format!("{plain}wired_interface=ap0\n")).unwrap_err().msg.contains("needs driver=nl80211"));
    assert_eq!(parse_ap(&format!("{}bssid=02:00:00:00:00:09\n", RADIO_AP.replace("nl80211", "madwifi"))).unwrap_err().line, 2);
    assert!(parse_ap(&format!("{RADIO_AP}wired_interface=wlan0\n")).is_err());
    // driver=wsec (the default) keeps interface= as the TAP and medium= as given.
    let f = parse_ap(&format!("{}medium=packet:mon0\nbssid=02:00:00:00:00:09\n", RADIO_AP.replace("nl80211", "wsec"))).unwrap();
    assert_eq!((f.interface.as_str(), f.medium.as_deref()), ("wlan0", Some("packet:mon0")));
}

#[test]
fn station_scan_freq_lists_the_channels_to_search() {
    let sta = "interface=wlan1\ndriver=nl80211\naddr=02:00:00:00:01:00\nnetwork={\n ssid=\"lab\"\n key_mgmt=WPA-PSK\n psk=\"12345678\"\n scan_freq=2462 2412 2462 5180\n}\n";
    let f = parse_sta(sta).unwrap();
    assert_eq!(f.scan_channels, vec![11, 1, 36]);
    assert_eq!(f.medium.as_deref(), Some("radio:wlan1"));
    assert_eq!(f.interface, "wsec-wlan1");
    for bad in ["2413", "2400", "6000", "x", "-2412"] {
        let e = parse_sta(&sta.replace("2462 2412 2462 5180", bad)).unwrap_err();
        assert_eq!(e.line, 8, "{bad}: {e}");
    }
    assert!(parse_sta(&sta.replace("scan_freq=2462 2412 2462 5180", "frequency=2484")).unwrap().scan_channels == vec![14]);
}

/// `ctrl_interface` / `ctrl_interface_group`: kept as written for the control
/// socket (wpa_supplicant's `DIR=... GROUP=...` form is split by wsec-live's ctrl module).
#[test]
fn ctrl_interface_keys_are_kept() {
    let f = parse_ap(&format!("{AP}ctrl_interface=/run/hostapd\nctrl_interface_group=netdev\n")).unwrap();
    assert_eq!((f.ctrl_interface.as_deref(), f.ctrl_interface_group.as_deref()), (Some("/run/hostapd"), Some("netdev")));
    assert_eq!(parse_ap(AP).unwrap().ctrl_interface, None);
    let sta = "interface=wsta0\naddr=02:00:00:00:00:11\nctrl_interface=DIR=/run/wpa_supplicant GROUP=adm\n\
               network={\n    ssid=\"x\"\n    key_mgmt=NONE\n}\n";
    let s = parse_sta(sta).unwrap();
    assert_eq!((s.ctrl_interface.as_deref(), s.ctrl_interface_group), (Some("DIR=/run/wpa_supplicant GROUP=adm"), None));
    // Inside a network block it is not a network key.
    let bad = "interface=wsta0\naddr=02:00:00:00:00:11\nnetwork={\n    ssid=\"x\"\n    ctrl_interface=/run/x\n}\n";
    assert_eq!(parse_sta(bad).unwrap_err().line, 5);
}

#[test]
fn radsec_keys_in_hostapd_spelling() {
    let base = "interface=wap0\nbssid=02:00:00:00:01:00\nssid=e\nwpa=2\nwpa_key_mgmt=WPA-EAP\nrsn_pairwise=CCMP\nieee8021x=1\n";
    let tls = "auth_server_addr=127.0.0.1\nauth_server_type=TLS\nauth_server_ca_cert=/ca.pem\nauth_server_client_cert=/c.pem\nauth_server_private_key=/c.key\nauth_server_domain_match=radius.wsec.test\nacct_server_addr=127.0.0.2\nacct_server_port=3000\nacct_server_type=TLS\nacct_server_shared_secret=s\nacct_server_ca_cert=/ca.pem\nacct_server_client_cert=/c.pem\nacct_server_private_key=/c.key\n";
    let f = parse_ap(&format!("{base}{tls}")).unwrap();
    let r = &f.ap.dot1x.as_ref().unwrap().radius;
    // Port 2083 and secret "radsec" unless given (RFC 6614 2.1, 2.3).
    assert_eq!((r.auth_servers[0].addr.port(), r.auth_servers[0].tls, &r.auth_servers[0].secret[..]), (2083, true, &b"radsec"[..]));
    assert_eq!((r.acct_servers[0].addr.port(), r.acct_servers[0].tls, &r.acct_servers[0].secret[..]), (3000, true, &b"s"[..]));
    assert_eq!(f.radsec.len(), 2);
    assert_eq!(f.radsec[0].domain_match.as_deref(), Some("radius.wsec.test"));
    assert_eq!(f.radsec[1].domain_match, None);
    // UDP stays as it was; the TLS files without TLS, a TLS server without its
    // certificates, an unknown type and an encrypted key are refused.
    let udp = parse_ap(&format!("{base}auth_server_addr=127.0.0.1\nauth_server_shared_secret=x\nauth_server_type=UDP\n")).unwrap();
    assert!(udp.radsec.is_empty() && !udp.ap.dot1x.unwrap().radius.auth_servers[0].tls);
    for bad in [
        "auth_server_addr=127.0.0.1\nauth_server_shared_secret=x\nauth_server_ca_cert=/ca.pem\n",
        "auth_server_addr=127.0.0.1\nauth_server_type=TLS\nauth_server_ca_cert=/ca.pem\n",
        "auth_server_addr=127.0.0.1\nauth_server_type=DTLS\n",
        "auth_server_addr=127.0.0.1\nauth_server_type=TLS\nauth_server_private_key_passwd=p\n",
    ] {
        assert!(parse_ap(&format!("{base}{bad}")).is_err(), "{bad}");
    }
}

#[test]
fn okc_keys_as_hostapd_and_wpa_supplicant_spell_them() {
    let ap = "interface=wap0\nbssid=02:00:00:00:01:00\nssid=e\nwpa=2\nwpa_key_mgmt=WPA-EAP\nrsn_pairwise=CCMP\nieee8021x=1\nauth_server_addr=127.0.0.1\nauth_server_shared_secret=s\n";
    assert!(!parse_ap(ap).unwrap().ap.okc);
    assert!(parse_ap(&format!("{ap}okc=1\n")).unwrap().ap.okc);
    assert!(parse_ap(&format!("{ap}okc=2\n")).is_err());
    // wpa_supplicant: the network's proactive_key_caching, else the global okc.
    let sta = |global: &str, net: &str| {
        parse_sta(&format!("interface=wsta0\naddr=02:00:00:00:00:11\n{global}network={{\n ssid=\"e\"\n key_mgmt=NONE\n{net}}}\n"))
            .map(|f| f.sta.okc)
    };
    assert!(!sta("", "").unwrap());
    assert!(sta("okc=1\n", "").unwrap());
    assert!(!sta("okc=1\n", " proactive_key_caching=0\n").unwrap());
    assert!(sta("", " proactive_key_caching=1\n").unwrap());
    assert!(sta("", " proactive_key_caching=7\n").is_err());
}

#[test]
fn ocsp_key_as_wpa_supplicant_spells_it() {
    use wsec::eap::ocsp::OcspPolicy;
    let net = |o: &str| {
        parse_sta(&format!(
            "interface=wsta0\naddr=02:00:00:00:00:11\nnetwork={{\n ssid=\"e\"\n key_mgmt=WPA-EAP\n eap=TLS\n identity=\"a\"\n ca_cert=\"/ca.pem\"\n{o}}}\n"
        ))
        .map(|f| f.eap.map(|e| e.ocsp))
    };
    assert_eq!(net("").unwrap(), Some(OcspPolicy::Off));
    assert_eq!(net(" ocsp=1\n").unwrap(), Some(OcspPolicy::Try));
    assert_eq!(net(" ocsp=2\n").unwrap(), Some(OcspPolicy::Require));
    assert!(net(" ocsp=3\n").unwrap_err().msg.contains("not supported"));
    assert!(net(" ocsp=4\n").is_err());
}

fn eap_net(lines: &str) -> Result<wsec_live::conf::StaFile, wsec_live::conf::ConfError> {
    parse_sta(&format!(
        "interface=wsta0\naddr=02:00:00:00:00:11\nnetwork={{\n ssid=\"ent\"\n key_mgmt=WPA-EAP\n identity=\"alice@wsec.test\"\n{lines}}}\n"
    ))
}

#[test]
fn sta_peap_and_ttls_mschapv2_in_wpa_supplicant_spelling() {
    use wsec::eap::tls::TlsVersions;
    use wsec::eap::{CryptoBinding, MethodConfig, Password, TtlsInner};
    // PEAPv0/EAP-MSCHAPv2: TLS 1.2 unless TLS 1.3 is asked for (wpa_supplicant 2.10).
    let f = eap_net(" eap=PEAP\n phase1=\"peapver=0\"\n phase2=\"auth=MSCHAPV2\"\n password=\"secret\"\n").unwrap();
    let pc = f.eap.unwrap().load().unwrap();
    match &pc.method {
        MethodConfig::Peap { password: Password::Clear(p), crypto_binding: CryptoBinding::Optional, allow_tls13: false, .. } => {
            assert_eq!(&p[..], b"secret")
        }
        m => panic!("{m:?}"),
    }
    assert_eq!(pc.method.typ(), 25);
    assert_eq!(pc.method.effective_tls().unwrap().versions, TlsVersions::Tls12);
    assert!(!format!("{pc:?}").contains("secret"), "no password in Debug");
    let f = eap_net(" eap=PEAP\n phase1=\"tls_disable_tlsv1_3=0 crypto_binding=2\"\n password=hash:44EBBA8D5312B8D611474411F56989AE\n")
        .unwrap();
    match f.eap.unwrap().load().unwrap().method {
        MethodConfig::Peap { password: Password::NtHash(_), crypto_binding: CryptoBinding::Required, allow_tls13: true, ref tls } => {
            assert_eq!(tls.versions, TlsVersions::Both)
        }
        m => panic!("{m:?}"),
    }
    // A quoted "hash:..." is a password like any other.
    let f = eap_net(" eap=PEAP\n password=\"hash:44EBBA8D5312B8D611474411F56989AE\"\n").unwrap();
    assert!(matches!(f.eap.unwrap().load().unwrap().method, MethodConfig::Peap { password: Password::Clear(_), .. }));
    // TTLS with MS-CHAP-V2.
    let f = eap_net(" eap=TTLS\n phase2=\"auth=MSCHAPV2\"\n password=hash:44EBBA8D5312B8D611474411F56989AE\n").unwrap();
    assert!(matches!(f.eap.unwrap().load().unwrap().method, MethodConfig::Ttls { inner: TtlsInner::Mschapv2, .. }));
    let f = eap_net(" eap=TTLS\n phase2=\"auth=PAP\"\n password=\"pw\"\n").unwrap();
    assert!(matches!(f.eap.unwrap().load().unwrap().method, MethodConfig::Ttls { inner: TtlsInner::Pap, .. }));
    // Refused, each with a clear reason.
    for (lines, why) in [
        (" eap=PEAP\n phase1=\"peapver=1\"\n password=\"pw\"\n", "peapver=1"),
        (" eap=PEAP\n phase2=\"auth=PAP\"\n password=\"pw\"\n", "auth=MSCHAPV2"),
        (" eap=PEAP\n", "needs password"),
        (" eap=TTLS\n phase2=\"autheap=MSCHAPV2\"\n password=\"pw\"\n", "autheap=MSCHAPV2"),
        (" eap=TTLS\n phase2=\"auth=PAP\"\n password=hash:44EBBA8D5312B8D611474411F56989AE\n", "MSCHAPV2 only"),
        (" eap=PEAP\n password=hash:44EB\n", "32 hex"),
        (" eap=PEAP\n phase2=\"auth=GTC\"\n password=\"pw\"\n", "phase2"),
        (" eap=FAST\n", "unsupported method"),
    ] {
        let e = eap_net(lines).unwrap_err().to_string();
        assert!(e.contains(why), "{lines:?}: {e}");
    }
}

#[test]
fn radius_client_first_wait_reaches_the_client() {
    let base = "interface=wap0\nssid=wsec-live\nbssid=02:00:00:00:00:01\nieee8021x=1\nwpa=2\nwpa_key_mgmt=WPA-EAP\n\
                rsn_pairwise=CCMP\nauth_server_addr=127.0.0.1\nauth_server_shared_secret=s\n";
    let wait = |text: &str| parse_ap(text).unwrap().ap.dot1x.unwrap().radius.first_wait_ns;
    // hostapd's built-in RADIUS_CLIENT_FIRST_WAIT unless set.
    assert_eq!(wait(base), 3_000_000_000);
    assert_eq!(wait(&format!("{base}radius_client_first_wait_ms=500\n")), 500_000_000);
    let e = parse_ap(&format!("{base}radius_client_first_wait_ms=50\n")).unwrap_err();
    assert!(e.to_string().contains("radius_client_first_wait_ms must be 100 to 120000"), "{e}");
}

/// `bss=` sections (hostapd `hostapd_config_bss`): each starts from the defaults, takes
/// only the radio's keys from elsewhere in the file, and is named by its `bss=` line.
#[test]
fn bss_sections_are_separate_bsses_on_one_radio() {
    let text = format!(
        "{AP}bss=wap1\nssid=second\nbssid=02:00:00:00:00:02\nbeacon_int=200\n\nbss=wap2\nssid=third\nbssid=02:00:00:00:00:03\nwpa=2\nwpa_key_mgmt=SAE\nsae_password=another one\nieee80211w=2\n"
    );
    let f = parse_ap(&text).unwrap();
    assert_eq!(f.bss.len(), 2);
    let names: Vec<&str> = f.bsses().map(|b| b.interface.as_str()).collect();
    assert_eq!(names, ["wap0", "wap1", "wap2"]);
    // The radio's keys, wherever they stand, apply to all: channel from the first section,
    // beacon_int from the second.
    for b in f.bsses() {
        assert_eq!(b.ap.channel, 11, "{}", b.interface);
        assert_eq!(b.ap.beacon_interval_tu, 200, "{}", b.interface);
    }
    // Nothing else is inherited: the second BSS is open, the third WPA3 with its own password.
    assert!(matches!(f.ap.security, Security::Rsn { .. }));
    assert!(matches!(f.bss[0].ap.security, Security::Open), "{:?}", f.bss[0].ap.security);
    assert_eq!(f.bss[0].ap.ssid, b"second");
    assert_eq!(f.bss[0].ap.group_rekey_s, 86_400, "wpa_group_rekey=600 stays with the first BSS");
    assert_eq!(f.ap.group_rekey_s, 600);
    assert!(matches!(&f.bss[1].ap.security, Security::Rsn { akms, .. } if akms == &[wsec::rsn::akm::Akm::Sae]));
    assert!(f.bss[1].ap.mfp.required());
    assert_eq!(f.bss[1].ap.bssid, MacAddr([2, 0, 0, 0, 0, 3]));
    // `interface=` inside a section renames its BSS, as in hostapd.
    let f = parse_ap(&format!("{AP}bss=wap1\ninterface=other\nssid=x\nbssid=02:00:00:00:00:02\n")).unwrap();
    assert_eq!(f.bss[0].interface, "other");
}

#[test]
fn bss_section_errors_name_their_line() {
    for (extra, line, what) in [
        ("bss=wap1\nssid=x\n", 0, "bssid is required"),
        ("bss=wap1\nssid=x\nbssid=02:00:00:00:00:02\nfoo=1\n", 18, "unknown key"),
        ("bss=wap1\nssid=x\nbssid=02:00:00:00:00:02\nwpa=2\n", 0, "WPA needs wpa_passphrase"),
        ("bss=wap0\nssid=x\nbssid=02:00:00:00:00:02\n", 0, "two BSSs use interface wap0"),
        ("bss=wap1\nssid=x\nbssid=02:00:00:00:00:01\n", 0, "two BSSs have bssid 02:00:00:00:00:01"),
        ("bss=a/b\n", 15, "interface must be"),
        ("bss=\n", 15, "interface must be"),
        ("bss=wap1\nssid=x\nbssid=02:00:00:00:00:02\nchannel=99\n", 18, "channel"),
    ] {
        let e = parse_ap(&format!("{AP}{extra}")).expect_err(extra);
        assert_eq!(e.line, line, "{extra}: {e}");
        assert!(e.msg.contains(what), "{extra}: {e}");
    }
    let many: String = (0..64).map(|i| format!("bss=w{i}\nssid=x\nbssid=02:00:00:00:01:{i:02x}\n")).collect();
    let e = parse_ap(&format!("{AP}{many}")).unwrap_err();
    assert!(e.msg.contains("more than 64 BSSs"), "{e}");
}

/// On a radio (driver=nl80211) a section without `bssid=` takes the previous such BSS's
/// address plus one, skipping configured ones (hostapd `hostapd_setup_bss`,
/// `inc_byte_array`, `mac_in_conf`); its interface is the `bss=` name on that radio and
/// its wired side `wsec-<name>`.
#[test]
fn bss_addresses_on_a_radio_follow_hostapd() {
    let text =
        "interface=wlan0\ndriver=nl80211\nssid=a\nbss=wlan0_1\nssid=b\nbss=wlan0_2\nssid=c\nbssid=02:00:00:00:00:02\nbss=wlan0_3\nssid=d\n";
    let mut f = parse_ap(text).unwrap();
    assert!(f.address_from_radio && f.bss[0].address_from_radio && !f.bss[1].address_from_radio);
    assert_eq!(f.medium.as_deref(), Some("radio:wlan0"));
    for b in &f.bss {
        assert_eq!(b.medium.as_deref(), Some("radio:wlan0"), "{}", b.interface);
    }
    assert_eq!(f.bss[0].vif.as_deref(), Some("wlan0_1"));
    assert_eq!(f.bss[0].interface, "wsec-wlan0_1");
    // The runtime puts the radio's address in the first BSS, then assigns the rest.
    f.ap.bssid = MacAddr([0x02, 0, 0, 0, 0, 0xff]);
    f.assign_bssids();
    let got: Vec<MacAddr> = f.bsses().map(|b| b.ap.bssid).collect();
    assert_eq!(
        got,
        [
            MacAddr([0x02, 0, 0, 0, 0, 0xff]),
            MacAddr([0x02, 0, 0, 0, 1, 0x00]), // the carry runs into the next octet
            MacAddr([0x02, 0, 0, 0, 0, 0x02]), // configured
            MacAddr([0x02, 0, 0, 0, 1, 0x01]),
        ]
    );
    // With the medium named (driver=wsec) a section has no radio interface of its own.
    let f = parse_ap(&format!("{AP}medium=radio:wlan0\nbss=wap1\nssid=x\nbssid=02:00:00:00:00:02\n")).unwrap();
    assert_eq!((f.bss[0].vif.as_deref(), f.bss[0].medium.as_deref()), (None, Some("radio:wlan0")));
    // A configured address is skipped by the automatic ones.
    let mut f =
        parse_ap("interface=wlan0\ndriver=nl80211\nssid=a\nbss=wlan0_1\nssid=b\nbss=wlan0_2\nssid=c\nbssid=02:00:00:00:00:01\n").unwrap();
    f.ap.bssid = MacAddr([0x02, 0, 0, 0, 0, 0]);
    f.assign_bssids();
    assert_eq!(f.bss[0].ap.bssid, MacAddr([0x02, 0, 0, 0, 0, 2]));
}
