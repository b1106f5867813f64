//! BIP verification (MPDUs and S1G Beacons) of arbitrary bytes for all four suites:
//! never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::cipher::bip::Bip;
use wsec::cipher::{CipherSuite, Protection};

fuzz_target!(|data: &[u8]| {
    for suite in [CipherSuite::BipCmac128, CipherSuite::BipCmac256, CipherSuite::BipGmac128, CipherSuite::BipGmac256] {
        let b = Bip::new(suite, &vec![3u8; suite.key_len()]).unwrap();
        let mut out = Vec::new();
        if b.decapsulate(data, &mut out).is_ok() {
            assert!(out.len() < data.len());
        }
        let _ = b.encapsulate(data, 1, 4, &mut out);
        let _ = b.verify_s1g_beacon(data, None, &mut out);
        let _ = b.verify_s1g_beacon(data, Some((1, 6)), &mut out);
        let _ = b.protect_s1g_beacon(data, 1, 6, data.len().is_multiple_of(2), &mut out);
    }
});
