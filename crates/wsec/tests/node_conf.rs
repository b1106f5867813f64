//! The hostapd.conf / wpa_supplicant.conf readers (`node::conf`): every key `docs/live.md`
//! lists reaches the core's configuration, and every unknown key or bad value is an
//! error naming its line.
use wsec::cipher::CipherSuite;
use wsec::node::conf::{parse_ap, parse_sta};
use wsec::node::{Offload, Security};
use wsec::wire::MacAddr;

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
