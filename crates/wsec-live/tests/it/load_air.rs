//! `wsec load` on the embedded medium (issue 38's CI subset): 50 emulated stations join an
//! access point core on an `air` hub with 8 joins in flight, then each makes three ARP
//! round trips through the AP to its host; all must join and every request be answered.
//! The AP's host is an ARP responder in the test (RFC 826), as the kernel is for `wsec ap`.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wsec::node::ap::AccessPoint;
use wsec::node::Output;
use wsec_live::load::{self, LoadOptions};
use wsec_live::medium::{self, air};

const AP_IP: [u8; 4] = [10, 9, 0, 1];

/// The ARP reply an ARP request for `AP_IP` gets from the AP's host (`mac`).
fn arp_reply(req: &[u8], mac: [u8; 6]) -> Option<Vec<u8>> {
    if req.len() < 42 || req[12..14] != [0x08, 0x06] || req[20..22] != [0, 1] || req[38..42] != AP_IP {
        return None;
    }
    let mut f = Vec::with_capacity(42);
    f.extend_from_slice(&req[6..12]);
    f.extend_from_slice(&mac);
    f.extend_from_slice(&[0x08, 0x06, 0, 1, 0x08, 0x00, 6, 4, 0, 2]);
    f.extend_from_slice(&mac);
    f.extend_from_slice(&AP_IP);
    f.extend_from_slice(&req[22..32]);
    Some(f)
}

/// The AP core on the hub until `stop`, its host side an ARP responder.
fn serve_ap(hub: String, conf: &str, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    let f = wsec_live::conf::parse_ap(conf).expect("ap.conf");
    std::thread::spawn(move || {
        let mac = f.ap.bssid.0;
        let mut m = medium::open(&format!("air:{hub}"), f.ap.channel, f.ap.bssid).expect("hub");
        let start = Instant::now();
        let now = || start.elapsed().as_nanos() as u64 + 1;
        let mut ap = AccessPoint::new(f.ap, now(), Box::new(rand_core::OsRng)).expect("ap core");
        let (mut out, mut buf, mut replies) = (Output::default(), Vec::new(), 0u64);
        let mut last_tick = 0;
        while !stop.load(Ordering::Relaxed) {
            let t = now();
            let mut got = false;
            while m.recv(&mut buf).expect("recv") {
                got = true;
                if let Ok(mpdu) = medium::decap(&buf) {
                    ap.handle_air(t, mpdu, &mut out);
                }
            }
            if ap.poll_timeout() <= t {
                ap.handle_timeout(t, &mut out);
            }
            while !out.air.is_empty() || !out.host.is_empty() {
                for f in out.air.drain(..) {
                    m.send(&f).expect("send");
                }
                let host: Vec<Vec<u8>> = out.host.drain(..).collect();
                for h in host {
                    if let Some(r) = arp_reply(&h, mac) {
                        replies += 1;
                        ap.handle_host(t, &r, &mut out);
                    }
                }
            }
            out.events.clear();
            if t - last_tick > 1_000_000_000 {
                last_tick = t;
                m.tick().expect("tick");
            }
            if !got {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        replies
    })
}

fn fifty_stations(ap_sec: &str, sta_sec: &str) {
    let (hub, h) = air::spawn(0.0, 1, None).expect("hub");
    let stop = Arc::new(AtomicBool::new(false));
    let ap_conf = format!("interface=wld0\nssid=wsec-load\nbssid=02:00:00:00:00:01\nchannel=6\nengine_threads=1\n{ap_sec}");
    let ap = serve_ap(hub.to_string(), &ap_conf, stop.clone());
    std::thread::sleep(Duration::from_millis(200));
    let sta = wsec_live::conf::parse_sta(&format!("interface=wld\naddr=02:4c:44:00:00:00\n{sta_sec}")).expect("sta.conf");
    let mut m = medium::open(&format!("air:{hub}"), 6, load::station_addr(0)).expect("hub");
    let o = LoadOptions { stations: 50, concurrency: 8, frames: 3, ..Default::default() };
    let r = load::run(&sta.sta, m.as_mut(), &o, &AtomicBool::new(false)).expect("load run");
    stop.store(true, Ordering::Relaxed);
    let answered = ap.join().expect("ap thread");
    drop(h);
    assert_eq!(r.established, 50, "{r}");
    assert_eq!(r.established_at_end, 50, "{r}");
    assert_eq!(r.join_failures, 0, "{r}");
    assert_eq!(r.stations_all_replies, 50, "{r}");
    assert!(r.replies >= 150 && answered >= 150, "{r}; the AP's host answered {answered}");
    assert!(r.handshakes_per_s > 0.0 && r.fill_s > 0.0, "{r}");
    assert!(r.json().contains("\"established\": 50"), "{}", r.json());
}

#[test]
fn fifty_psk_stations_join_and_pass_traffic() {
    fifty_stations(
        "wpa=2\nwpa_key_mgmt=WPA-PSK\nrsn_pairwise=CCMP\nwpa_passphrase=correct horse battery\n",
        "network={\n ssid=\"wsec-load\"\n key_mgmt=WPA-PSK\n psk=\"correct horse battery\"\n}\n",
    );
}

#[test]
fn fifty_sae_stations_join_and_pass_traffic() {
    fifty_stations(
        "wpa=2\nwpa_key_mgmt=SAE\nrsn_pairwise=CCMP\nieee80211w=2\nsae_groups=19\nsae_pwe=0\nsae_password=correct horse battery\n",
        "sae_groups=19\nsae_pwe=0\nnetwork={\n ssid=\"wsec-load\"\n key_mgmt=SAE\n ieee80211w=2\n sae_password=\"correct horse battery\"\n}\n",
    );
}

#[test]
fn bad_options_are_refused_with_a_reason() {
    for (o, want) in [
        (LoadOptions { stations: 0, ..Default::default() }, "--stations 0"),
        (LoadOptions { stations: 2008, ..Default::default() }, "--stations 2008"),
        (LoadOptions { concurrency: 0, ..Default::default() }, "--concurrency 0"),
    ] {
        let e = o.check().unwrap_err();
        assert!(e.contains(want), "{e}");
    }
    assert_eq!(load::station_addr(2006).0, [0x02, 0x4c, 0x44, 0x00, 0x07, 0xd6]);
    assert_eq!(load::station_ip(2006), [10, 9, 8, 214]);
}
