//! Every capture in testdata/captures opens and streams; for classic pcap files the
//! packets equal those of the independent reader in tests/common; every 802.11 packet
//! yields an MPDU whose MAC header parses (or a typed error, never a panic).
mod common;
use wsec::capture::{radio, CaptureReader};

fn files() -> Vec<std::path::PathBuf> {
    let mut v = Vec::new();
    for d in ["captures/aircrack", "captures/vanhoef", "captures/vanhoef/experimental"] {
        let dir = common::testdata_dir().join(d);
        for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p = e.unwrap().path();
            let ext = p.extension().and_then(|x| x.to_str()).unwrap_or("");
            if ["cap", "pcap", "pcapng"].contains(&ext) {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

#[test]
fn every_capture_streams() {
    let fs = files();
    assert!(fs.len() >= 25, "found {} captures", fs.len());
    let mut mpdus = 0;
    for f in &fs {
        let mut pkts = Vec::new();
        let mut error = None;
        for p in CaptureReader::open(f).unwrap() {
            match p {
                Ok(p) => pkts.push(p),
                Err(e) => {
                    error = Some(e.to_string());
                    break;
                }
            }
        }
        // One file ends in a truncated record: every whole packet comes first, then the error.
        if f.ends_with("pmkid-not-recognized.cap") {
            assert_eq!(pkts.len(), 20056);
            assert!(error.is_some_and(|e| e.contains("pcap record")));
        } else {
            assert!(error.is_none(), "{}: {error:?}", f.display());
        }
        assert!(!pkts.is_empty(), "{}", f.display());
        if f.extension().unwrap() != "pcapng" {
            let (lt, frames) = common::read_pcap(f);
            assert_eq!(pkts.len(), frames.len(), "{}", f.display());
            for (p, d) in pkts.iter().zip(&frames) {
                assert_eq!((p.linktype, &p.data), (lt, d));
            }
        }
        for p in &pkts {
            if let Ok(m) = radio::mpdu(p.linktype, &p.data) {
                if wsec::wire::Header::new_checked(m.bytes).is_ok() {
                    mpdus += 1;
                }
            }
        }
    }
    assert!(mpdus > 50_000, "{mpdus}");
}

/// aircrack's wpa.cap: Prism headers and an FCS on every frame (captures/README.md).
#[test]
fn prism_capture_with_fcs() {
    let f = common::testdata_dir().join("captures/aircrack/wpa.cap");
    let pkts: Vec<_> = CaptureReader::open(&f).unwrap().collect::<Result<_, _>>().unwrap();
    assert!(pkts.iter().all(|p| p.linktype == radio::LINKTYPE_PRISM));
    for p in &pkts {
        let m = radio::mpdu(p.linktype, &p.data).unwrap();
        assert!(m.had_fcs, "FCS expected on every frame");
        assert_eq!(m.radio_len, 144);
    }
}

/// pcapng timestamps honour if_tsresol: Vanhoef's captures tick in nanoseconds and were
/// taken in 2019-2021.
#[test]
fn pcapng_timestamps_use_the_interface_tick() {
    for f in ["captures/vanhoef/wpa3.pcapng", "captures/vanhoef/wnm_sleep_test-wpa2-psk_12345678.pcapng"] {
        let p = CaptureReader::open(&common::testdata_dir().join(f)).unwrap().next().unwrap().unwrap();
        let secs = p.ts_ns / 1_000_000_000;
        // 2015-01-01 .. 2030-01-01
        assert!((1_420_070_400..1_893_456_000).contains(&secs), "{f}: {secs}");
    }
}
