//! The reassembler fed an arbitrary sequence of fragments: never a panic, memory bounded.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::link::defrag::{FragMeta, Reassembler};

fuzz_target!(|data: &[u8]| {
    let mut r = Reassembler::new();
    r.max_msdu = 600;
    let mut t = 0u64;
    // Split the input into frames: [len: u8][pn: u8][key: u8][bytes...].
    let mut rest = data;
    while rest.len() >= 3 {
        let (len, pn, key) = (rest[0] as usize, rest[1] as u64, rest[2] as u64 & 1);
        rest = &rest[3..];
        let n = len.min(rest.len());
        let _ = r.push(t, &rest[..n], FragMeta { pn: Some(pn), consecutive_pn: true, key_tag: key });
        rest = &rest[n..];
        t += 1000;
        assert!(r.pending() <= r.max_entries);
        assert!(r.bytes_held() <= r.max_entries * (r.max_msdu + 40));
    }
});
