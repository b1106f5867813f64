//! The security association end to end: two SAs (AP = Authenticator, STA = Supplicant)
//! exchange frames; replays, out-of-order PNs, unknown keys, Extended Key ID switches,
//! fragments and TKIP MIC failures behave as 12.5 says.
use wsec::cipher::{AadOptions, CipherSuite};
use wsec::link::mic_failure::MicFailureAction;
use wsec::link::sa::{KeyType, Role, RxOutcome, SecurityAssociation};
use wsec::Error;

const AP: [u8; 6] = [0x02, 0, 0, 0, 0, 0xaa];
const STA: [u8; 6] = [0x02, 0, 0, 0, 0, 0x55];

/// A QoS data frame STA -> AP (To DS) with TID `tid`.
fn qos_up(tid: u8, seq: u16, body: &[u8]) -> Vec<u8> {
    let mut f = vec![0x88, 0x01, 0, 0];
    f.extend(AP);
    f.extend(STA);
    f.extend([0xff; 6]);
    f.extend((seq << 4).to_le_bytes());
    f.extend([tid, 0]);
    f.extend_from_slice(body);
    f
}

/// A data frame AP -> broadcast (From DS).
fn group_down(body: &[u8]) -> Vec<u8> {
    let mut f = vec![0x08, 0x02, 0, 0];
    f.extend([0xff; 6]);
    f.extend(AP);
    f.extend(STA);
    f.extend([0x10, 0]);
    f.extend_from_slice(body);
    f
}

fn pair(suite: CipherSuite) -> (SecurityAssociation, SecurityAssociation) {
    let tk: Vec<u8> = (0..suite.key_len() as u8).collect();
    let mut ap = SecurityAssociation::new(Role::Authenticator);
    let mut sta = SecurityAssociation::new(Role::Supplicant);
    for sa in [&mut ap, &mut sta] {
        sa.install(KeyType::Pairwise, 0, suite, &tk, AadOptions::default(), None).unwrap();
    }
    (ap, sta)
}

fn frame(o: RxOutcome) -> Vec<u8> {
    match o {
        RxOutcome::Frame { mpdu, .. } => mpdu,
        RxOutcome::FragmentHeld => panic!("expected a whole frame"),
    }
}

#[test]
fn replays_and_out_of_order_pns_rejected_per_tid() {
    for suite in [CipherSuite::Ccmp128, CipherSuite::Ccmp256, CipherSuite::Gcmp128, CipherSuite::Gcmp256, CipherSuite::Tkip] {
        let (mut ap, mut sta) = pair(suite);
        let mut p = Vec::new();
        let mut sent = Vec::new();
        for (i, tid) in [1u8, 1, 2, 1].iter().enumerate() {
            sta.protect(&qos_up(*tid, i as u16, b"hello"), &mut p).unwrap();
            sent.push(p.clone());
        }
        // PNs 1, 2 (TID 1), 3 (TID 2), 4 (TID 1). Deliver 1, 2, 4 on TID 1 ...
        for i in [0, 1, 3] {
            assert_eq!(frame(ap.unprotect(0, &sent[i]).unwrap()), qos_up([1, 1, 2, 1][i], i as u16, b"hello"));
        }
        // ... PN 3 on TID 2 is out of order overall but in order on its TID: accepted.
        assert!(ap.unprotect(0, &sent[2]).is_ok(), "{suite}");
        // Replays on every TID, and an old PN on TID 1, are refused.
        for (i, f) in sent.iter().enumerate() {
            assert_eq!(ap.unprotect(0, f), Err(Error::Replay), "{suite} frame {i}");
        }
        // A forged frame with a high PN fails its MIC and does not move the counter.
        let mut forged = Vec::new();
        sta.protect(&qos_up(1, 9, b"forged"), &mut forged).unwrap();
        let last = forged.len() - 1;
        forged[last] ^= 0x80;
        assert!(matches!(ap.unprotect(0, &forged), Err(Error::MicFailure | Error::IcvFailure)), "{suite}");
        forged[last] ^= 0x80;
        assert!(ap.unprotect(0, &forged).is_ok(), "{suite}: genuine frame after a forgery");
    }
}

#[test]
fn group_keys_and_unknown_key_ids() {
    let (mut ap, mut sta) = pair(CipherSuite::Ccmp128);
    let gtk = [0x33u8; 16];
    ap.install(KeyType::Group, 1, CipherSuite::Ccmp128, &gtk, AadOptions::default(), None).unwrap();
    // The STA learns the GTK with RSC 0: the first frame (PN 1) is above it.
    sta.install(KeyType::Group, 1, CipherSuite::Ccmp128, &gtk, AadOptions::default(), Some(0)).unwrap();
    let mut p = Vec::new();
    ap.protect(&group_down(b"bcast"), &mut p).unwrap();
    assert_eq!(p[24 + 3] >> 6, 1, "GTK key ID on the air");
    assert_eq!(frame(sta.unprotect(0, &p).unwrap()), group_down(b"bcast"));
    assert_eq!(sta.unprotect(0, &p), Err(Error::Replay));
    // Key ID 2 was never installed.
    let mut q = p.clone();
    q[24 + 3] = (q[24 + 3] & 0x3f) | (2 << 6);
    assert_eq!(sta.unprotect(0, &q), Err(Error::UnknownKeyId(2)));
    // A GTK announced with RSC 5: PNs up to 5 are replays.
    let mut sta2 = SecurityAssociation::new(Role::Supplicant);
    sta2.install(KeyType::Group, 1, CipherSuite::Ccmp128, &gtk, AadOptions::default(), Some(5)).unwrap();
    assert_eq!(sta2.unprotect(0, &p), Err(Error::Replay));
    assert!(matches!(ap.install(KeyType::Group, 4, CipherSuite::Ccmp128, &gtk, AadOptions::default(), None), Err(Error::UnknownKeyId(4))));
    assert!(ap.install(KeyType::ManagementGroup, 4, CipherSuite::Ccmp128, &gtk, AadOptions::default(), None).is_err());
}

#[test]
fn extended_key_id_switch() {
    let (mut ap, mut sta) = pair(CipherSuite::Ccmp128);
    let mut p = Vec::new();
    sta.protect(&qos_up(0, 1, b"old key"), &mut p).unwrap();
    let old = p.clone();
    // Rekey with Extended Key ID: the new PTK goes under Key ID 1 on both sides; the old
    // key stays installed for frames still in flight.
    let new_tk = [0x77u8; 16];
    for sa in [&mut ap, &mut sta] {
        sa.install(KeyType::Pairwise, 1, CipherSuite::Ccmp128, &new_tk, AadOptions::default(), None).unwrap();
    }
    sta.protect(&qos_up(0, 2, b"new key"), &mut p).unwrap();
    assert_eq!(p[26 + 3] >> 6, 1);
    assert_eq!(frame(ap.unprotect(0, &p).unwrap()), qos_up(0, 2, b"new key"));
    // The old key's frame (PN 1 under key 0) still decrypts: separate replay counters.
    assert_eq!(frame(ap.unprotect(0, &old).unwrap()), qos_up(0, 1, b"old key"));
    ap.remove(KeyType::Pairwise, 0).unwrap();
    assert_eq!(ap.set_tx_key(KeyType::Pairwise, 0), Err(Error::UnknownKeyId(0)));
}

/// A PTK0 rekey (the new PTK under the same Key ID 0): frames the peer protected under the
/// old TK before it switched still arrive, and the receiver opens them with the replaced
/// key for `RETIRED_PTK_RX_NS`, on that key's own replay counters, never transmitting with
/// it. hostapd's Authenticator, for one, installs the new TK only on message 4
/// (12.7.6.4), so what it sends meanwhile under the old one would be MIC failures.
#[test]
fn ptk0_rekey_keeps_the_old_key_for_reception_for_a_while() {
    use wsec::link::sa::RETIRED_PTK_RX_NS;
    // dot11MaxTransmitMSDULifetime's default (802.11-2020 Annex C): 512 TU of 1,024 us.
    assert_eq!(RETIRED_PTK_RX_NS, 524_288_000);
    const T0: u64 = 5_000_000_000;
    for suite in [CipherSuite::Ccmp128, CipherSuite::Ccmp256, CipherSuite::Gcmp128, CipherSuite::Gcmp256] {
        let (mut ap, mut sta) = pair(suite);
        let mut p = Vec::new();
        sta.protect(&qos_up(0, 1, b"before"), &mut p).unwrap();
        frame(ap.unprotect(T0, &p).unwrap());
        // The station sends frames under the old TK that are still on their way...
        let mut late = Vec::new();
        for (i, tid) in [0u8, 0, 5].iter().enumerate() {
            sta.protect(&qos_up(*tid, 10 + i as u16, b"late"), &mut p).unwrap();
            late.push(p.clone());
        }
        // ...when the AP installs the new TK (Key ID 0 again), then the station does.
        let new_tk = vec![0x5au8; suite.key_len()];
        ap.install(KeyType::Pairwise, 0, suite, &new_tk, AadOptions::default(), None).unwrap();
        sta.install(KeyType::Pairwise, 0, suite, &new_tk, AadOptions::default(), None).unwrap();
        sta.protect(&qos_up(0, 20, b"new"), &mut p).unwrap();
        assert_eq!(frame(ap.unprotect(T0 + 1, &p).unwrap()), qos_up(0, 20, b"new"), "{suite}");
        // The old-key frames open after a new-key frame, out of order across TIDs...
        assert_eq!(frame(ap.unprotect(T0 + 2, &late[2]).unwrap()), qos_up(5, 12, b"late"), "{suite}");
        assert_eq!(frame(ap.unprotect(T0 + 3, &late[0]).unwrap()), qos_up(0, 10, b"late"), "{suite}");
        // ...but each only once, and in order on the old key's counters.
        assert_eq!(ap.unprotect(T0 + 4, &late[0]), Err(Error::Replay), "{suite}");
        assert_eq!(ap.rx_retired, 2);
        // A frame forged under neither key keeps its first error.
        let mut forged = late[1].clone();
        let n = forged.len();
        forged[n - 1] ^= 1;
        assert_eq!(ap.unprotect(T0 + 5, &forged), Err(Error::MicFailure), "{suite}");
        // Transmission uses the new key only: the station opens the AP's frame with it.
        let mut down = qos_up(0, 30, b"down");
        down[1] = 0x02; // From DS
        ap.protect(&down, &mut p).unwrap();
        let mut fresh = SecurityAssociation::new(Role::Supplicant);
        fresh.install(KeyType::Pairwise, 0, suite, &new_tk, AadOptions::default(), None).unwrap();
        assert_eq!(frame(fresh.unprotect(T0, &p).unwrap()), down, "{suite}");
        // After the grace time the replaced key is gone.
        assert_eq!(ap.unprotect(T0 + RETIRED_PTK_RX_NS + 1, &late[1]), Err(Error::MicFailure), "{suite}");
        assert_eq!(ap.unprotect(T0 + 6, &late[1]), Err(Error::MicFailure), "{suite}");
        assert_eq!(ap.rx_retired, 2);
    }
    // TKIP keys are replaced outright (a Michael failure must not be retried).
    let (mut ap, mut sta) = pair(CipherSuite::Tkip);
    let mut p = Vec::new();
    sta.protect(&qos_up(0, 1, b"old"), &mut p).unwrap();
    let tk = [0x33u8; 32];
    ap.install(KeyType::Pairwise, 0, CipherSuite::Tkip, &tk, AadOptions::default(), None).unwrap();
    assert_eq!(ap.unprotect(T0, &p), Err(Error::IcvFailure));
    assert_eq!(ap.rx_retired, 0);
    // A key removed takes its retired predecessor with it.
    let (mut ap, mut sta) = pair(CipherSuite::Ccmp128);
    sta.protect(&qos_up(0, 1, b"old"), &mut p).unwrap();
    ap.install(KeyType::Pairwise, 0, CipherSuite::Ccmp128, &[0x44u8; 16], AadOptions::default(), None).unwrap();
    ap.remove(KeyType::Pairwise, 0).unwrap();
    assert!(ap.unprotect(T0, &p).is_err());
    assert_eq!(ap.rx_retired, 0);
}

#[test]
fn fragments_through_the_sa() {
    for suite in [CipherSuite::Ccmp128, CipherSuite::Gcmp256, CipherSuite::Tkip] {
        let (mut ap, mut sta) = pair(suite);
        let body: Vec<u8> = (0..700u32).map(|i| i as u8).collect();
        let msdu = qos_up(3, 42, &body);
        let frags = sta.protect_fragmented(&msdu, 256).unwrap();
        assert!(frags.len() >= 3, "{suite}");
        for f in &frags[..frags.len() - 1] {
            assert_eq!(ap.unprotect(0, f).unwrap(), RxOutcome::FragmentHeld, "{suite}");
        }
        assert_eq!(frame(ap.unprotect(0, frags.last().unwrap()).unwrap()), msdu, "{suite}");
        assert_eq!(ap.fragments_pending(), 0);
        // Dropping a middle fragment: the MSDU is never delivered.
        let frags = sta.protect_fragmented(&qos_up(3, 43, &body), 256).unwrap();
        ap.unprotect(0, &frags[0]).unwrap();
        assert!(ap.unprotect(0, &frags[2]).is_err(), "{suite}: gap accepted");
    }
}

#[test]
fn tkip_mic_failures_start_countermeasures() {
    let (mut ap, mut sta) = pair(CipherSuite::Tkip);
    // The AP's frames verify at the STA under the Authenticator->Supplicant Michael key.
    let mut down = vec![0x08, 0x02, 0, 0];
    down.extend(STA);
    down.extend(AP);
    down.extend(AP);
    down.extend([0x20, 0]);
    down.extend(b"to the station");
    let mut p = Vec::new();
    ap.protect(&down, &mut p).unwrap();
    assert_eq!(frame(sta.unprotect(0, &p).unwrap()), down);
    // A STA whose Michael keys are swapped (wrong role) sees MIC failures, not ICV failures.
    let tk: Vec<u8> = (0..32u8).collect();
    let mut confused = SecurityAssociation::new(Role::Authenticator);
    confused.install(KeyType::Pairwise, 0, CipherSuite::Tkip, &tk, AadOptions::default(), None).unwrap();
    let s = 1_000_000_000u64;
    assert_eq!(confused.unprotect(s, &p), Err(Error::MicFailure));
    assert_eq!(confused.last_mic_failure, Some(MicFailureAction::Report));
    ap.protect(&down, &mut p).unwrap();
    assert_eq!(confused.unprotect(30 * s, &p), Err(Error::MicFailure));
    assert_eq!(confused.last_mic_failure, Some(MicFailureAction::Countermeasures));
    assert!(confused.mic_failures.in_countermeasures(31 * s));
    // A replayed frame with a bad MIC is a replay, not a MIC failure.
    let before = confused.mic_failures.failures;
    sta.unprotect(0, &p).unwrap();
    assert_eq!(sta.unprotect(0, &p), Err(Error::Replay));
    assert_eq!(confused.mic_failures.failures, before);
}

#[test]
fn wep_and_bip_through_the_sa() {
    let mut ap = SecurityAssociation::new(Role::Authenticator);
    let mut sta = SecurityAssociation::new(Role::Supplicant);
    for sa in [&mut ap, &mut sta] {
        sa.install(KeyType::Group, 2, CipherSuite::Wep104, &[0x11; 13], AadOptions::default(), None).unwrap();
        sa.install(KeyType::ManagementGroup, 4, CipherSuite::BipCmac128, &[0x22; 16], AadOptions::default(), None).unwrap();
    }
    let mut p = Vec::new();
    let up = qos_up(0, 5, b"wep data");
    sta.protect(&up, &mut p).unwrap();
    assert_eq!(p[26 + 3] >> 6, 2);
    assert_eq!(frame(ap.unprotect(0, &p).unwrap()), up);
    // WEP has no replay protection: the same frame is accepted again.
    assert!(ap.unprotect(0, &p).is_ok());
    // Broadcast deauthentication protected with BIP.
    let deauth = [0xc0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 0xaa, 2, 0, 0, 0, 0, 0xaa, 0x30, 0, 7, 0];
    ap.protect(&deauth, &mut p).unwrap();
    assert_eq!(p.len(), deauth.len() + 18);
    assert_eq!(frame(sta.unprotect(0, &p).unwrap()), deauth.to_vec());
    assert_eq!(sta.unprotect(0, &p), Err(Error::Replay));
    assert_eq!(sta.unprotect(0, &deauth), Err(Error::MmeMissing));
}

#[test]
fn all_zero_keys_are_refused() {
    let mut sa = SecurityAssociation::new(Role::Supplicant);
    for suite in [CipherSuite::Ccmp128, CipherSuite::Gcmp256, CipherSuite::Tkip, CipherSuite::Wep40] {
        let zero = vec![0u8; suite.key_len()];
        assert_eq!(
            sa.install(KeyType::Pairwise, 0, suite, &zero, AadOptions::default(), None),
            Err(Error::Malformed("all-zero key refused")),
            "{suite}"
        );
    }
    assert_eq!(sa.tx_pn(KeyType::Pairwise), None);
}
