//! Management frames, their fixed fields and elements (`wire::mgmt`, `wire::element`), the
//! Ethernet II header (`wire::ethernet`) and the cores' reading of management frames
//! (`node::frames`): no panic on any input; parse -> emit -> parse is stable; a body whose
//! Repr holds all of it re-emits octet for octet. Seeds: fuzz/corpus/mgmt/seed-* (frames
//! from ../shared/captures).
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::node::frames;
use wsec::wire::element::{self, TimeoutIntervalRepr};
use wsec::wire::ethernet::{EthernetFrame, EthernetRepr};
use wsec::wire::mgmt::{BodyRepr, Frame, MgmtRepr};

fuzz_target!(|data: &[u8]| {
    if let Ok(f) = Frame::new_checked(data) {
        let _ = (f.is_robust(), f.da(), f.sa(), f.bssid(), f.seq_control());
        // Every body parser on this body, whatever the subtype says.
        for subtype in 0..16 {
            if let Ok(b) = BodyRepr::parse(subtype, f.body()) {
                let mut v = vec![0u8; b.buffer_len()];
                b.emit(&mut v).expect("a parsed body emits");
                assert_eq!(BodyRepr::parse(subtype, &v).expect("an emitted body parses"), b);
            }
        }
        if let Ok(m) = MgmtRepr::parse(data) {
            let v = m.to_vec().expect("a parsed frame emits");
            assert_eq!(v.len(), m.buffer_len());
            assert_eq!(MgmtRepr::parse(&v).expect("an emitted frame parses"), m);
            // Addresses and Sequence Control come back as they were.
            assert_eq!(&v[4..24], &data[4..24]);
            // Everything but Authentication, Deauthentication, Disassociation and SA Query
            // bodies (whose trailing fields the Reprs leave out) and an AID without its two
            // top bits (which emit sets) re-emits the body unchanged.
            let aid_bits_clear = matches!(m.body, BodyRepr::AssocResponse(_) | BodyRepr::ReassocResponse(_)) && f.body()[5] & 0xc0 != 0xc0;
            let whole = !matches!(m.body, BodyRepr::Auth(_) | BodyRepr::Deauth(_) | BodyRepr::Disassoc(_) | BodyRepr::SaQuery(_));
            if whole && !aid_bits_clear {
                assert_eq!(&v[24..], f.body());
            }
        }
    }
    let _ = (frames::parse_mgmt(data), frames::assoc_comeback_tu(data), frames::is_robust(data));
    for e in element::elements(data) {
        let Ok(e) = e else { break };
        let _ = e.ext_id();
        if let Ok(t) = TimeoutIntervalRepr::parse(e.body) {
            let mut v = Vec::new();
            t.push(&mut v).expect("five octets fit an element");
            assert_eq!(&v[2..], e.body);
        }
    }
    if let Ok(e) = EthernetFrame::new_checked(data) {
        if let Ok(r) = EthernetRepr::parse(&e) {
            assert_eq!(r.to_vec(e.payload()), data);
        }
    }
});
