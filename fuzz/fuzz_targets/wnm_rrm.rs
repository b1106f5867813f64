//! Neighbor reports and BSS transition management frames (`wire::rrm`, `wire::wnm`) on
//! arbitrary bytes: the Neighbor Report element and its subelements, RM Enabled
//! Capabilities, Neighbor Report Request/Response, BTM Query/Request/Response and the BSS
//! Termination Duration: no panic; every Repr parsed re-emits the input octet for octet
//! (each holds all of it) and parses again to itself. Seeds: fuzz/corpus/wnm_rrm/seed-*
//! (the frames hostapd and wpa_supplicant send, laid out by hand from the clauses).
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::wire::element;
use wsec::wire::rrm::{self, NeighborReport, NeighborReportRequestRepr, NeighborReportResponseRepr, RmEnabledCapabilities, RrmActionRepr};
use wsec::wire::wnm::{self, BssTerminationDuration, BtmQueryRepr, BtmRequestRepr, BtmResponseRepr, WnmActionRepr};

fuzz_target!(|data: &[u8]| {
    if let Ok(r) = NeighborReport::parse(data) {
        assert_eq!(r.to_body(), data);
        assert_eq!(r.body_len(), data.len());
        let _ = (r.preference(), r.subelement(rrm::subelement::WIDE_BANDWIDTH_CHANNEL));
        let mut v = Vec::new();
        if r.push(&mut v).is_ok() {
            assert_eq!(v.len(), r.buffer_len());
            assert_eq!(NeighborReport::parse_element(&element::Element::parse(&v).unwrap()).unwrap(), r);
        } else {
            assert!(data.len() > 255 && v.is_empty());
        }
        // A preference set on any report reads back, the other subelements kept.
        let p = r.clone().with_preference(7);
        assert_eq!(p.preference(), Some(7));
        assert_eq!(NeighborReport::parse(&p.to_body()).expect("a report with a preference parses"), p);
    }
    if let Ok(c) = RmEnabledCapabilities::parse(data) {
        let mut v = Vec::new();
        c.push(&mut v).unwrap();
        assert_eq!(&v[2..], data);
    }
    if let Ok(d) = BssTerminationDuration::parse(data) {
        assert_eq!(&d.to_bytes()[..], &data[..BssTerminationDuration::LEN]);
    }
    let _ = (wnm::ext_capab_has(data, wnm::EXT_CAPAB_BSS_TRANSITION), rrm::neighbor_reports(data).count());

    // Action frame bodies, Category first.
    if let Ok(r) = NeighborReportRequestRepr::parse(data) {
        assert_eq!(r.to_vec(), data);
        let _ = (r.ssid(), r.measurement_token(rrm::measurement_type::LCI));
    }
    if let Ok(r) = NeighborReportResponseRepr::parse(data) {
        assert_eq!(r.to_vec(), data);
        for n in r.neighbors() {
            let mut v = Vec::new();
            n.push(&mut v).expect("a neighbor of a parsed response fits an element");
        }
    }
    if let Ok(q) = BtmQueryRepr::parse(data) {
        assert_eq!(q.to_vec(), data);
        assert_eq!(BtmQueryRepr::parse(&q.to_vec()).unwrap(), q);
    }
    if let Ok(r) = BtmRequestRepr::parse(data) {
        let v = r.to_vec().expect("a parsed BTM Request emits");
        assert_eq!(v, data);
        assert_eq!(v.len(), r.buffer_len());
        let _ = r.candidates().count();
    }
    if let Ok(r) = BtmResponseRepr::parse(data) {
        let v = r.to_vec().expect("a parsed BTM Response emits");
        assert_eq!(v, data);
        assert_eq!(r.target.is_some(), r.status.is_accept());
    }
    if let Some((_, details)) = data.split_first() {
        let _ = (RrmActionRepr::parse_details(details), WnmActionRepr::parse_details(details));
    }
});
