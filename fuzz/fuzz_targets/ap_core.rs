//! The access point core (`wsec::node::ap::AccessPoint`) through its sans-IO input, as the
//! live runtime drives it: frames from the medium (raw, with a header the harness writes,
//! in batches, replayed, and protected with a real station's keys), Ethernet frames from
//! its host, time, control interface requests and shutdown, in one of seven security
//! configurations, from scratch or after a real handshake with a station core
//! (`common/pair.rs` has the operations and the invariants checked after each).
//!
//! Input: `[configuration][flags: bit 0 = handshake first][operations...]`.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "common/pair.rs"]
mod pair;

fuzz_target!(|data: &[u8]| {
    let mut input = pair::Input(data);
    let (cfg, flags) = (input.u8(), input.u8());
    let mut p = pair::Pair::new(cfg, pair::Side::Ap, flags & 1 != 0);
    p.check();
    p.run(&mut input);
});
