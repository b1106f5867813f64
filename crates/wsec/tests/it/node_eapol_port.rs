//! The uncontrolled port (IEEE 802.1X-2020 6.4; 802.11-2020 12.3, 12.5): an unprotected
//! frame reaches only the node's own handshake, and only when it is EAPOL addressed to the
//! node (or the PAE group address 01:80:C2:00:00:03) and is not a fragment. EAPOL is never
//! bridged to the host nor relayed to another station, protected or not; a station takes
//! EAPOL only from its BSSID. Each case is one path an outsider (who knows an associated
//! station's address) or an associated station could use (FragAttacks CVE-2020-26139,
//! CVE-2020-26145, CVE-2020-26147), and each fails on a core that lets it through.
use crate::nodesim;

use nodesim::{Feed, Sim, WIRED};
use wsec::cipher::ccmp::Ccmp;
use wsec::cipher::{CipherSuite, Protection};
use wsec::node::ap::ApConfig;
use wsec::node::frames::{self, Dir};
use wsec::node::sta::StaConfig;
use wsec::node::Security;
use wsec::rsn::akm::Akm;
use wsec::rsn::eapol::EapolKey;
use wsec::wire::mac::{MacAddr, Mpdu};
use wsec::wire::EtherType;
use zeroize::Zeroizing;

const BSSID: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
const STA1: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x11]);
const STA2: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x12]);
/// An address no node has.
const ELSEWHERE: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x77]);
const PASS: &str = "correct horse battery";
const SSID: &str = "wsec-test";

fn pmk() -> Zeroizing<Vec<u8>> {
    Zeroizing::new(wsec::rsn::pbkdf2::psk_from_passphrase(PASS.as_bytes(), SSID.as_bytes()).unwrap().to_vec())
}

fn up() -> Sim {
    let sec = Security::Rsn { akms: vec![Akm::Psk], pairwise: vec![CipherSuite::Ccmp128], groups: vec![CipherSuite::Ccmp128], pmk: pmk() };
    let ap = ApConfig::new(BSSID, SSID.as_bytes(), sec.clone());
    let stas = vec![StaConfig::new(STA1, SSID.as_bytes(), sec.clone()), StaConfig::new(STA2, SSID.as_bytes(), sec)];
    let mut sim = Sim::new(ap, stas, 0.0, 38, Feed::PerFrame);
    assert!(sim.run_until(3_000, |s| s.all_established()), "network did not come up: {:?}", sim.events);
    sim.run(20);
    sim
}

/// A forged message 1 of the 4-way handshake (12.7.6.2): what an attacker wants a
/// supplicant to answer. Only its shape matters here.
fn forged_message_1() -> Vec<u8> {
    let mut k = vec![0u8; 4 + 95];
    k[0] = 2; // 802.1X-2004
    k[1] = 3; // EAPOL-Key
    k[2..4].copy_from_slice(&95u16.to_be_bytes());
    k[4] = 2; // RSN Key Descriptor
    k[5..7].copy_from_slice(&0x008au16.to_be_bytes()); // Pairwise, Ack, version 2
    k[7..9].copy_from_slice(&16u16.to_be_bytes());
    k[9..17].copy_from_slice(&100u64.to_be_bytes()); // a replay counter above the real ones
    k[17..49].fill(0x5a); // ANonce
    k
}

fn eapol_frames(host: &[Vec<u8>]) -> usize {
    host.iter().filter(|e| e.len() >= 14 && e[12..14] == [0x88, 0x8e]).count()
}

/// Unprotected To-DS EAPOL "from" STA1 (only its address is known) to `da`.
fn spoofed_to_ap(da: &MacAddr, seq: u16) -> Vec<u8> {
    frames::data(Dir::ToAp, &BSSID, da, &STA1, seq, EtherType::EAPOL, &forged_message_1())
}

/// What the stations' supplicants sent after the network came up (message 2 answers).
fn eapol_on_air_from(sim: &Sim, from: &MacAddr, start: usize) -> usize {
    sim.air[start..]
        .iter()
        .filter(|f| {
            let Ok(m) = Mpdu::new_checked(&f[..]) else { return false };
            m.addr2() == Some(*from) && m.frame_control().frame_type() == wsec::wire::mac::FrameType::Data
        })
        .count()
}

#[test]
fn ap_refuses_plaintext_eapol_to_broadcast_spoofed_from_a_station() {
    let mut sim = up();
    let (host0, air0) = (sim.ap_host.len(), sim.air.len());
    sim.inject.push(spoofed_to_ap(&MacAddr::BROADCAST, 3000));
    sim.run(5);
    let ap = sim.ap();
    assert_eq!(ap.counters.dropped("eapol not addressed to this node"), 1, "{}", ap.counters);
    assert_eq!(eapol_frames(&sim.ap_host[host0..]), 0, "bridged to the wired side");
    // Nothing went back out under the GTK: no data frame from the AP after the injection.
    assert_eq!(eapol_on_air_from(&sim, &BSSID, air0), 0, "re-sent to the BSS");
    assert_eq!(sim.sta(1).counters.dropped("eapol not from the bssid"), 0);
}

#[test]
fn ap_refuses_plaintext_eapol_to_an_unknown_address_spoofed_from_a_station() {
    let mut sim = up();
    let host0 = sim.ap_host.len();
    sim.inject.push(spoofed_to_ap(&ELSEWHERE, 3001));
    sim.run(5);
    let ap = sim.ap();
    assert_eq!(ap.counters.dropped("eapol not addressed to this node"), 1, "{}", ap.counters);
    assert_eq!(eapol_frames(&sim.ap_host[host0..]), 0, "bridged to the wired side");
}

#[test]
fn ap_refuses_to_relay_plaintext_eapol_to_another_station() {
    let mut sim = up();
    let air0 = sim.air.len();
    sim.inject.push(spoofed_to_ap(&STA2, 3002));
    sim.run(5);
    let ap = sim.ap();
    assert_eq!(ap.counters.dropped("eapol not addressed to this node"), 1, "{}", ap.counters);
    assert_eq!(ap.counters.relayed, 0);
    // STA2's supplicant never saw a message 1, so never answered with a message 2.
    assert_eq!(eapol_on_air_from(&sim, &STA2, air0), 0, "STA2 answered a relayed message 1");
}

/// The PTK of `sta` from the handshake on the air (messages 1 and 2 carry the nonces,
/// 12.7.6.2-3): what a test needs to act as an associated station.
fn tk_of(sim: &Sim, sta: &MacAddr) -> Vec<u8> {
    let (mut anonce, mut snonce) = (None, None);
    for f in &sim.air {
        let Ok(m) = Mpdu::new_checked(&f[..]) else { continue };
        if m.frame_control().protected() || !m.frame_control().has_data_body() {
            continue;
        }
        let Ok(msdu) = frames::msdu_of(&m, f) else { continue };
        if msdu.ethertype != EtherType::EAPOL || msdu.payload.len() < 4 + 95 {
            continue;
        }
        let k = EapolKey::new_checked(msdu.payload, 16).unwrap();
        let nonce: [u8; 32] = k.key_nonce().try_into().unwrap();
        if msdu.da == *sta && k.key_info().key_ack() && !k.key_info().key_mic() {
            anonce = Some(nonce);
        } else if msdu.sa == *sta && !k.key_info().key_ack() && nonce != [0; 32] {
            snonce = Some(nonce);
        }
    }
    let ptk = wsec::rsn::kdf::derive_ptk(Akm::Psk, &pmk(), &BSSID.0, &sta.0, &anonce.unwrap(), &snonce.unwrap(), CipherSuite::Ccmp128, 0)
        .unwrap();
    ptk.tk().to_vec()
}

#[test]
fn ap_refuses_to_relay_protected_eapol_to_another_station() {
    // An associated station (STA1, with its real PTK) sends EAPOL to STA2 through the AP:
    // decrypted with STA1's key, it must not be re-encrypted under STA2's.
    let mut sim = up();
    let tk = tk_of(&sim, &STA1);
    let plain = frames::data(Dir::ToAp, &BSSID, &STA2, &STA1, 3003, EtherType::EAPOL, &forged_message_1());
    let mut f = Vec::new();
    Ccmp::new(&tk).unwrap().encapsulate(&plain, 1 << 40, 0, &mut f).unwrap();
    let air0 = sim.air.len();
    sim.inject.push(f);
    sim.run(5);
    let ap = sim.ap();
    assert_eq!(ap.counters.dropped("eapol not addressed to this node"), 1, "{}", ap.counters);
    assert_eq!((ap.counters.relayed, ap.counters.dropped("mic failure")), (0, 0), "{}", ap.counters);
    assert_eq!(eapol_on_air_from(&sim, &STA2, air0), 0, "STA2 answered a relayed message 1");
}

#[test]
fn ap_takes_eapol_to_the_pae_group_address() {
    // 01:80:C2:00:00:03 is the local PAE's (IEEE 802.1X-2020 11.1.1): a message 1 sent
    // there reaches the authenticator, which refuses it (it is not a message it expects),
    // and is neither bridged nor relayed.
    let mut sim = up();
    let host0 = sim.ap_host.len();
    let refused0 = sim.ap().counters.total_drops();
    sim.inject.push(spoofed_to_ap(&MacAddr::PAE_GROUP, 3004));
    sim.run(5);
    let ap = sim.ap();
    assert_eq!(ap.counters.dropped("eapol not addressed to this node"), 0, "{}", ap.counters);
    assert_eq!(eapol_frames(&sim.ap_host[host0..]), 0);
    assert!(ap.counters.total_drops() > refused0, "the authenticator did not see it: {}", ap.counters);
}

#[test]
fn ap_refuses_a_plaintext_fragment() {
    // A first fragment (More Fragments set) in the clear is not a whole MSDU (10.6;
    // FragAttacks CVE-2020-26145/26147), even as EAPOL to the AP.
    let mut sim = up();
    let mut f = frames::data(Dir::ToAp, &BSSID, &BSSID, &STA1, 3005, EtherType::EAPOL, &forged_message_1());
    f[1] |= 0x04; // More Fragments
    let drops0 = sim.ap().counters.total_drops();
    sim.inject.push(f);
    sim.run(5);
    let ap = sim.ap();
    assert_eq!(ap.counters.dropped("unprotected fragment"), 1, "{}", ap.counters);
    assert_eq!(ap.counters.total_drops(), drops0 + 1, "{}", ap.counters);
}

#[test]
fn ap_does_not_bridge_eapol_from_the_wired_side() {
    // A wired host must not hand a station a message 1 through the AP.
    let mut sim = up();
    let air0 = sim.air.len();
    let eth = frames::ethernet(&STA1, &WIRED, EtherType::EAPOL, &forged_message_1());
    let sent = sim.with_ap(|a, now, out| a.handle_host(now, &eth, out));
    assert!(sent.is_empty(), "the AP sent {} frame(s)", sent.len());
    sim.run(5);
    assert_eq!(sim.ap().counters.dropped("eapol from the host"), 1, "{}", sim.ap().counters);
    assert_eq!(eapol_on_air_from(&sim, &STA1, air0), 0, "STA1 answered");
}

#[test]
fn station_takes_eapol_only_from_its_bssid() {
    // A From-DS frame from the AP (TA = BSSID) whose SA is another station: an EAPOL
    // frame another station sent, not the authenticator's. Unprotected here, as a
    // pre-fix AP relayed it.
    let mut sim = up();
    let air0 = sim.air.len();
    sim.inject.push(frames::data(Dir::FromAp, &BSSID, &STA1, &STA2, 3006, EtherType::EAPOL, &forged_message_1()));
    sim.run(5);
    let s = sim.sta(0);
    assert_eq!(s.counters.dropped("eapol not from the bssid"), 1, "{}", s.counters);
    assert_eq!(eapol_on_air_from(&sim, &STA1, air0), 0, "STA1 answered");
    assert_eq!(eapol_frames(&sim.sta_host[0]), 0);
}

#[test]
fn station_refuses_eapol_to_another_address_and_to_its_host() {
    // EAPOL from the AP to broadcast: not the PAE group address, not the station's.
    let mut sim = up();
    sim.inject.push(frames::data(Dir::FromAp, &BSSID, &MacAddr::BROADCAST, &BSSID, 3007, EtherType::EAPOL, &forged_message_1()));
    sim.run(5);
    for i in 0..2 {
        let s = sim.sta(i);
        assert_eq!(s.counters.dropped("eapol not addressed to this node"), 1, "station {i}: {}", s.counters);
        assert_eq!(eapol_frames(&sim.sta_host[i]), 0, "station {i} gave EAPOL to its host");
    }
    // And the station's host cannot send EAPOL in its name.
    let eth = frames::ethernet(&BSSID, &STA1, EtherType::EAPOL, &forged_message_1());
    let sent = sim.with_sta(0, |s, now, out| s.handle_host(now, &eth, out));
    assert!(sent.is_empty());
    assert_eq!(sim.sta(0).counters.dropped("eapol from the host"), 1, "{}", sim.sta(0).counters);
}

#[test]
fn station_refuses_a_plaintext_fragment() {
    let mut sim = up();
    let mut f = frames::data(Dir::FromAp, &BSSID, &STA1, &BSSID, 3008, EtherType::EAPOL, &forged_message_1());
    f[1] |= 0x04;
    let air0 = sim.air.len();
    sim.inject.push(f);
    sim.run(5);
    let s = sim.sta(0);
    assert_eq!(s.counters.dropped("unprotected fragment"), 1, "{}", s.counters);
    assert_eq!(eapol_on_air_from(&sim, &STA1, air0), 0, "STA1 answered");
}
