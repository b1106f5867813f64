//! `rsn::rrb` (hostapd's RRB key distribution) on arbitrary bytes: no panic; every parsed
//! frame emits and parses back to itself; a message that opens under a key emits one that
//! opens to the same message; a key holder configured as in tests/it/rrb_hostapd.rs (same
//! keys, IDs and RNG seed, so the recorded hostapd frames of the seeds reach its state
//! machine) takes a sequence of frames and sends only well-formed ones.
//! Input: records of [LE16 length][Ethernet frame].
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::rsn::rrb::wire::{FtAction, OverDs, MAX_FRAME_LEN};
use wsec::rsn::rrb::{KeyHolder, KhFrame, Msg, RemoteR0kh, RemoteR1kh, RkhKey, RrbOutput};
use wsec::wire::mac::MacAddr;

const HOSTAPD: MacAddr = MacAddr([0x02, 0, 0, 0, 0x01, 0]);
const WSEC: MacAddr = MacAddr([0x02, 0, 0, 0, 0x02, 0]);
const KEY_R1: &str = "8a7a4d5e1c0ff6e2b3a49c7d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081";
const KEY_R0: &str = "00112233445566778899aabbccddeeff";

fn check_frame(f: &[u8], keys: &[RkhKey; 2]) {
    if let Ok(k) = KhFrame::parse(f) {
        for key in keys {
            if let Ok(m) = Msg::open(&k, key) {
                let e = m.emit(k.dst, k.src, key).expect("an opened message emits");
                assert!(e.len() <= MAX_FRAME_LEN);
                assert_eq!(Msg::open(&KhFrame::parse(&e).unwrap(), key).unwrap(), m);
            }
        }
    }
    if let Ok(d) = OverDs::parse(f) {
        let e = d.emit().expect("a parsed RRB frame emits");
        assert_eq!(OverDs::parse(&e).unwrap(), d);
        if let Ok(a) = FtAction::parse(&d.action) {
            assert_eq!(FtAction::parse(&a.emit()).unwrap(), a);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let keys = [RkhKey::from_hex(KEY_R1).unwrap(), RkhKey::from_hex(KEY_R0).unwrap()];
    let mut kh = KeyHolder::new(WSEC, b"wsec.r0kh", WSEC).unwrap();
    kh.r1.add_r0kh(RemoteR0kh { addr: HOSTAPD, r0kh_id: b"hostapd.r0kh".to_vec(), key: keys[0].clone() });
    kh.r0.add_r1kh(RemoteR1kh { addr: HOSTAPD, r1kh_id: HOSTAPD, key: keys[1].clone() });
    let mut boxed = wsec::rng::seeded(0x5eed_0f2b);
    let rng: &mut dyn wsec::CryptoRngCore = &mut *boxed;
    let mut out = RrbOutput::default();
    let spa = MacAddr([0x02, 0, 0, 0, 0, 0x11]);
    kh.r1.pull(spa, b"hostapd.r0kh", [0x5a; 16], 0, rng, &mut out).unwrap();
    let mut rest = data;
    let mut now = 0u64;
    while rest.len() >= 2 {
        let n = u16::from_le_bytes([rest[0], rest[1]]) as usize;
        let f = &rest[2..(2 + n).min(rest.len())];
        rest = &rest[2 + f.len()..];
        check_frame(f, &keys);
        now += 100_000_000;
        kh.handle(f, now, rng, &mut out);
        kh.poll(now, rng, &mut out);
    }
    for f in &out.frames {
        assert!(f.len() <= MAX_FRAME_LEN);
        KhFrame::parse(f).expect("what the key holder sends parses");
    }
});
