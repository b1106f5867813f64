//! Every capture in testdata/captures opens and streams; for classic pcap files the
//! packets equal those of the independent reader in tests/it/common; every 802.11 packet
//! yields an MPDU whose MAC header parses (or a typed error, never a panic).
use crate::common;
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

/// A pcapng block laid out by hand (little endian): type, total length, body, total length.
fn block(btype: u32, body: &[u8]) -> Vec<u8> {
    let total = (12 + body.len()) as u32;
    let mut v = btype.to_le_bytes().to_vec();
    v.extend_from_slice(&total.to_le_bytes());
    v.extend_from_slice(body);
    v.extend_from_slice(&total.to_le_bytes());
    v
}

/// Section Header Block (28 octets): magic, version 1.0, section length -1.
fn shb() -> Vec<u8> {
    let mut body = 0x1a2b_3c4du32.to_le_bytes().to_vec();
    body.extend_from_slice(&[1, 0, 0, 0]);
    body.extend_from_slice(&u64::MAX.to_le_bytes());
    block(0x0a0d_0d0a, &body)
}

/// Interface Description Block for link type 127 (radiotap), snap length 65535.
fn idb() -> Vec<u8> {
    let mut body = vec![127, 0, 0, 0];
    body.extend_from_slice(&65535u32.to_le_bytes());
    block(1, &body)
}

fn read_all(bytes: Vec<u8>) -> (usize, Option<String>) {
    let r = CaptureReader::new(std::io::Cursor::new(bytes)).expect("a pcapng header");
    let mut n = 0;
    for p in r {
        match p {
            Ok(_) => n += 1,
            Err(e) => return (n, Some(e.to_string())),
        }
    }
    (n, None)
}

/// An Interface Description Block of total length 16 and a Simple Packet Block of total
/// length 12 (shorter than their fixed fields: a naive reader slices past the end) are
/// clean errors that name the block and its offset; the packets before them are kept.
#[test]
fn short_pcapng_blocks_are_located_errors_not_panics() {
    // Block 1 (after the 28-octet SHB) is an IDB with an 4-octet body: 16 octets in all.
    let mut f = shb();
    f.extend(block(1, &[127, 0, 0, 0]));
    let (n, e) = read_all(f);
    assert_eq!(n, 0);
    assert_eq!(e.as_deref(), Some("bad capture: block 1 at offset 0x1c: interface description block shorter than 20 octets"));

    // A good IDB (block 1, 20 octets at 0x1c), a good SPB (block 2, 20 octets at 0x30),
    // then an SPB of 12 octets (block 3 at 0x44).
    let mut f = shb();
    f.extend(idb());
    f.extend(block(3, &[4, 0, 0, 0, 0x80, 0, 0, 0]));
    f.extend(block(3, &[]));
    let (n, e) = read_all(f);
    assert_eq!(n, 1, "the whole packet before the damage is delivered");
    assert_eq!(e.as_deref(), Some("bad capture: block 3 at offset 0x44: simple packet block shorter than 16 octets"));

    // An EPB whose captured length runs past its block, and one with a wrong trailing length.
    let mut epb = vec![0u8; 20];
    epb[12..16].copy_from_slice(&100u32.to_le_bytes());
    epb.extend_from_slice(&[1, 2, 3, 4]);
    let mut f = shb();
    f.extend(idb());
    f.extend(block(6, &epb));
    assert_eq!(read_all(f).1.as_deref(), Some("bad capture: block 2 at offset 0x30: captured length 100 longer than the block"));
    let mut f = shb();
    f.extend(idb());
    let mut bad = block(3, &[0, 0, 0, 0]);
    let l = bad.len();
    bad[l - 4] ^= 4;
    f.extend(bad);
    assert_eq!(read_all(f).1.as_deref(), Some("bad capture: block 2 at offset 0x30: trailing block length 20 differs from 16"));
}

/// The probe's class of input, regenerated here: 4000 pcapng files made of SHB, IDB, SPB and
/// EPB blocks with random lengths, cut at random points and with random octets changed. The
/// reader never panics, and every refusal is located.
#[test]
fn generated_pcapng_files_never_panic() {
    let mut x: u64 = 0x5eed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut errors = 0;
    for _ in 0..4000 {
        let mut f = shb();
        for _ in 0..(next() % 6) {
            let body_len = (next() % 40) as usize & !3;
            let body: Vec<u8> = (0..body_len).map(|_| next() as u8).collect();
            let t = [1u32, 3, 6, 5, 0x0a0d_0d0a][(next() % 5) as usize];
            f.extend(block(t, &body));
        }
        for _ in 0..(next() % 3) {
            if f.len() > 28 {
                let i = 28 + (next() as usize) % (f.len() - 28);
                f[i] = next() as u8;
            }
        }
        if next() % 4 == 0 && f.len() > 28 {
            let cut = 28 + (next() as usize) % (f.len() - 28);
            f.truncate(cut);
        }
        if let (_, Some(e)) = read_all(f) {
            assert!(e.contains("block ") && e.contains(" at offset 0x"), "{e}");
            errors += 1;
        }
    }
    assert!(errors > 1000, "the generator made damaged files ({errors} refused)");
}
