//! The control interface (`wsec_live::ctrl`: hostapd's and wpa_supplicant's commands, as
//! `hostapd_cli` / `wpa_cli` send them) on arbitrary requests, to an AP and a station core
//! that ran a real handshake (or did not): no panic, replies of bounded size,
//! and the cores' invariants (`common/pair.rs`) after each request and the frames and time
//! that follow it.
//!
//! Input: `[configuration][flags: bit 0 = handshake first]` then requests, one per line;
//! a line's first octet picks the core (even: AP, odd: station) and, with bit 1 set, lets
//! the medium carry what the request sent and time move on by a second after it.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "common/pair.rs"]
mod pair;

fuzz_target!(|data: &[u8]| {
    let mut input = pair::Input(data);
    let (cfg, flags) = (input.u8(), input.u8());
    let mut p = pair::Pair::new(cfg, pair::Side::Ap, flags & 1 != 0);
    for line in input.0.split(|&b| b == b'\n').take(64) {
        let Some((&sel, req)) = line.split_first() else { continue };
        let req = String::from_utf8_lossy(req);
        // An empty reply is one (hostapd's STA-FIRST without stations).
        p.ctrl_request(sel as usize & 1, &req);
        if sel & 2 != 0 {
            p.exchange(4);
            p.advance_to_deadline(wsec::node::SEC);
        }
        p.check();
    }
});
