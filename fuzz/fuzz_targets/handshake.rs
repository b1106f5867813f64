//! Arbitrary EAPOL frames into both handshake cores, mid-handshake: never a panic, never
//! an install event from a frame that is not the genuine next message.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::cipher::CipherSuite;
use wsec::rsn::akm::Akm;
use wsec::rsn::handshake::authenticator::GroupKeys;
use wsec::rsn::handshake::{Authenticator, Config, Event, Supplicant, Timers};
use zeroize::Zeroizing;

fn cfg(akm: Akm, pw: CipherSuite) -> Config {
    let rsne = vec![48, 20, 1, 0, 0, 0x0f, 0xac, 4, 1, 0, 0, 0x0f, 0xac, pw.suite_type(), 1, 0, 0, 0x0f, 0xac, akm.suite_type(), 0, 0];
    Config {
        akm,
        pairwise: pw,
        group: CipherSuite::Ccmp128,
        group_mgmt: None,
        pmk: Zeroizing::new(vec![7u8; akm.pmk_len()]),
        aa: wsec::wire::MacAddr([2, 0, 0, 0, 0, 1]),
        spa: wsec::wire::MacAddr([2, 0, 0, 0, 0, 2]),
        ap_rsne: rsne.clone(),
        sta_rsne: rsne,
        timers: Timers::default(),
    }
}

fuzz_target!(|data: &[u8]| {
    for (akm, pw) in [(Akm::Psk, CipherSuite::Ccmp128), (Akm::Psk, CipherSuite::Tkip), (Akm::SuiteB192, CipherSuite::Gcmp256)] {
        let c = cfg(akm, pw);
        // Seeded RNGs: a failing input replays to the same nonces and keys.
        let gk = GroupKeys::random(&c, 1, &mut *wsec::rng::seeded(1));
        let mut ap = Authenticator::new(c.clone(), gk, wsec::rng::seeded(2));
        let mut sta = Supplicant::new(c, wsec::rng::seeded(3));
        let m1 = ap.start(0).tx.remove(0);
        let _ = sta.handle_eapol(1, &m1);
        // The fuzzer's bytes, whole and split in two frames, to both sides.
        let (a, b) = data.split_at(data.len() / 2);
        for f in [data, a, b] {
            let o = sta.handle_eapol(2, f);
            assert!(!o
                .events
                .iter()
                .any(|e| matches!(e, Event::InstallPtk { .. } | Event::InstallPtkRx { .. } | Event::ActivatePtk { .. })));
            let o = ap.handle_eapol(3, f);
            assert!(!o
                .events
                .iter()
                .any(|e| matches!(e, Event::InstallPtk { .. } | Event::InstallPtkRx { .. } | Event::ActivatePtk { .. })));
        }
        let _ = ap.handle_timeout(u64::MAX / 2);
    }
});
