//! WEP decapsulation of arbitrary bytes with 40- and 104-bit keys: never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::cipher::wep::WepKey;
use wsec::cipher::Protection;

fuzz_target!(|data: &[u8]| {
    for len in [5usize, 13] {
        let k = WepKey::new(&vec![5u8; len]).unwrap();
        let mut out = Vec::new();
        if k.decapsulate(data, &mut out).is_ok() {
            assert_eq!(out.len() + 8, data.len());
        }
    }
    let _ = WepKey::peek(data);
});
