//! The FragAttacks test tool's cases (Vanhoef, USENIX Security 2021; github
//! vanhoefm/fragattacks, README section 7 and the extended tests of section 8) against
//! the live AP and station cores, in memory. The tool is a legitimate peer of the device
//! under test (the client when it tests an AP, `ap::`; the AP when it tests a client,
//! `sta::`, its `--ap` mode) that injects crafted frames, protected with that link's own
//! TK where the case says `E`: here the test derives the TK from the 4-way handshake on
//! the air and the passphrase, builds the tool's frames (QoS Data, TID 2, the tool's PN
//! counters) and checks what the victim core hands its host (`Output.host`; for the AP
//! also what it relays to STA2) and which drop counters move.
//!
//! The tool's notation: `I` get an IP (here: the link is up), `E`/`P` an encrypted or
//! plaintext fragment, `D` a fragment not sent, `R` reconnect, `F` a PTK rekey; a prefix
//! `B`/`A`/`S` sends it before / after the (re)key handshake completes / at its start.
//! Sanity cases must deliver; attack cases must not. See docs/ota-attacks.md.
use crate::nodesim;
use nodesim::attacker::*;
use nodesim::WIRED;
use wsec::node::sta::StaConfig;
use wsec::wire::mac::MacAddr;
use wsec::wire::mgmt::ReasonCode;

/// The frames of the tool's ping (`create_fragments`), each protected with the tool's
/// counters (`enc`) or not, in order.
fn ping_frames(lab: &mut Lab, tag: &str, enc: &[bool]) -> Vec<Vec<u8>> {
    let far = lab.far();
    let h = lab.hdr(far);
    fragments(h, &ping(tag), enc.len()).into_iter().zip(enc).map(|(f, &e)| if e { lab.keys.enc(&f) } else { f }).collect()
}

/// Sends `frames`, then checks the ping `tag` never reached the victim's host (nor, via
/// the AP, STA2) and that the drop counters moved by exactly `want`.
fn refused(lab: &mut Lab, tag: &str, frames: &[Vec<u8>], want: &[(&'static str, u64)]) {
    let before = lab.drops();
    lab.send(frames);
    assert_eq!(lab.delivered(tag), 0, "{tag} was delivered: {}", lab.counters());
    assert_eq!(delta(&before, &lab.drops()), drops(want), "{}", lab.counters());
}

/// Drop counters of the plaintext receive path: the frame was refused before any
/// handshake saw it (the uncontrolled port's rule, docs/live.md), or, for a protected
/// fragment whose plaintext neighbours were refused, by reassembly (10.6, `fragment`).
const PLAIN_REFUSALS: &[&str] = &[
    "unprotected",
    "unprotected fragment",
    "unprotected a-msdu",
    "eapol not addressed to this node",
    "eapol not from the bssid",
    "malformed msdu",
    "fragment",
];

/// As [`refused`] for the cases on the plaintext receive path (unprotected fragments and
/// EAPOL): every injected frame is dropped and counted, `n` in all, each under one of
/// [`PLAIN_REFUSALS`], so none reached a handshake.
fn refused_plain(lab: &mut Lab, tag: &str, frames: &[Vec<u8>], n: u64) {
    let before = lab.drops();
    let air = lab.sim.air.len();
    lab.send(frames);
    assert_eq!(lab.delivered(tag), 0, "{tag} was delivered: {}", lab.counters());
    let d = delta(&before, &lab.drops());
    assert_eq!(d.values().sum::<u64>(), n, "drops {d:?}; {}", lab.counters());
    assert!(d.keys().all(|k| PLAIN_REFUSALS.contains(k)), "refused elsewhere, or reached a handshake: {d:?}");
    // Nothing went out because of them (no relay, no handshake answer).
    let sent: Vec<&Vec<u8>> = lab.sim.air[air..].iter().filter(|f| is_data(f) && f.len() > 26).collect();
    assert!(sent.is_empty(), "the victim answered/relayed {} data frames", sent.len());
}

fn delivered(lab: &mut Lab, tag: &str, frames: &[Vec<u8>]) {
    let before = lab.drops();
    lab.send(frames);
    assert_eq!(lab.delivered(tag), 1, "{tag} not delivered once: {}", lab.counters());
    assert_eq!(delta(&before, &lab.drops()), drops(&[]), "{}", lab.counters());
}

// --- 7.1 Sanity checks -----------------------------------------------------------------

/// `ping`: one encrypted frame (the tool's setup check). Must be delivered.
fn ping_i_e(v: Victim) {
    let mut lab = Lab::new(v);
    let f = ping_frames(&mut lab, "ping", &[true]);
    delivered(&mut lab, "ping", &f);
}

/// `ping I,E,E`: a ping in two encrypted fragments, consecutive PNs (10.6
/// defragmentation, 12.5.3.4.4). Must be delivered once.
fn ping_i_e_e(v: Victim) {
    let mut lab = Lab::new(v);
    let f = ping_frames(&mut lab, "frag ping", &[true, true]);
    delivered(&mut lab, "frag ping", &f);
}

// --- 7.2 Basic device behaviour ---------------------------------------------------------

/// `ping I,E,E --delay 5`: the receive lifetime of a partial MSDU (10.6:
/// dot11MaxReceiveLifetime, 512 TU here). 0.4 s apart the fragments make a ping; 5 s
/// apart the first has been discarded and the second is a fragment without a first.
fn ping_i_e_e_delay(v: Victim) {
    let mut lab = Lab::new(v);
    let f = ping_frames(&mut lab, "within 0.4 s", &[true, true]);
    lab.send(&f[..1]);
    lab.sim.run(400);
    delivered(&mut lab, "within 0.4 s", &f[1..]);
    let f = ping_frames(&mut lab, "after 5 s", &[true, true]);
    lab.send(&f[..1]);
    lab.sim.run(5_000);
    assert!(lab.sim.all_established());
    refused(&mut lab, "after 5 s", &f[1..], &[("fragment", 1)]);
}

/// The tool's separator: a QoS Data frame of TID 1, sequence number 33.
fn separator(lab: &mut Lab) -> Vec<u8> {
    let far = lab.far();
    let h = Hdr { seq: 33, tid: Some(1), ..lab.hdr(far) };
    let mut body = LLC_IPV4.to_vec();
    body.extend(b"separator");
    lab.keys.enc(&h.bytes(&body))
}

/// `ping-frag-sep`: fragment 1, an unrelated frame, fragment 2, one PN counter for all
/// TIDs: the fragments' PNs are not consecutive (12.5.3.4.4 requires them to be), so the
/// ping is refused; the separator itself is delivered.
fn ping_frag_sep(v: Victim) {
    let mut lab = Lab::new(v);
    let far = lab.far();
    let h = lab.hdr(far);
    let plain = fragments(h, &ping("separated"), 2);
    let f1 = lab.keys.enc(&plain[0]);
    let sep = separator(&mut lab);
    let f2 = lab.keys.enc(&plain[1]);
    let before = lab.drops();
    lab.send(&[f1, sep, f2]);
    assert_eq!(lab.delivered("separator"), 1, "{}", lab.counters());
    assert_eq!(lab.delivered("separated"), 0, "{}", lab.counters());
    assert_eq!(delta(&before, &lab.drops()), drops(&[("fragment", 1)]), "{}", lab.counters());
}

/// `ping-frag-sep --pn-per-qos`: the same with a PN counter per TID, so the fragments'
/// PNs are consecutive and their TID's replay counter (12.5.3.4.4, one per TID) is not
/// disturbed by the separator: ping and separator are both delivered.
fn ping_frag_sep_pn_per_qos(v: Victim) {
    let mut lab = Lab::new(v);
    lab.keys.pn_per_qos = true;
    let far = lab.far();
    let h = lab.hdr(far);
    let plain = fragments(h, &ping("separated"), 2);
    let f1 = lab.keys.enc(&plain[0]);
    let sep = separator(&mut lab);
    let f2 = lab.keys.enc(&plain[1]);
    let before = lab.drops();
    lab.send(&[f1, sep, f2]);
    assert_eq!(lab.delivered("separator"), 1, "{}", lab.counters());
    assert_eq!(lab.delivered("separated"), 1, "{}", lab.counters());
    assert_eq!(delta(&before, &lab.drops()), drops(&[]), "{}", lab.counters());
}

// --- 7.3 A-MSDU attacks (CVE-2020-24588) -------------------------------------------------

/// An encrypted QoS Data frame with A-MSDU Present set (9.2.4.5.6) and `body`.
fn amsdu_frame(lab: &mut Lab, body: &[u8]) -> Vec<u8> {
    let far = lab.far();
    let h = Hdr { amsdu: true, ..lab.hdr(far) };
    lab.keys.enc(&h.bytes(body))
}

/// `ping I,E --amsdu`: the ping in a (non-SPP) A-MSDU, the tool's support probe. wsec
/// takes non-SPP A-MSDUs behind the FragAttacks checks, as Linux (node::amsdu): delivered.
fn ping_i_e_amsdu(v: Victim) {
    let mut lab = Lab::new(v);
    let (da, sa) = match v {
        Victim::Ap => (WIRED, STA1),
        Victim::Sta => (STA1, WIRED),
    };
    let body = amsdu_subframe(da, sa, &ping("amsdu ping"), true);
    let f = amsdu_frame(&mut lab, &body);
    delivered(&mut lab, "amsdu ping", &[f]);
}

/// `ping I,E --amsdu-fake` (extended): A-MSDU Present set over a normal MSDU. Delivered
/// would mean the flag is ignored; refused, its LLC/SNAP header being the first DA.
fn ping_i_e_amsdu_fake(v: Victim) {
    let mut lab = Lab::new(v);
    let f = amsdu_frame(&mut lab, &ping("fake amsdu"));
    refused(&mut lab, "fake amsdu", &[f], &[("a-msdu starts with an llc/snap header", 1)]);
}

/// The tool's `amsdu-inject` frame: LLC/SNAP, an IPv4 packet whose start is also a valid
/// A-MSDU subframe header (identification 34; `-bad`: 748 octets of padding) and the
/// injected subframe.
fn amsdu_inject(v: Victim, bad: bool) {
    let mut lab = Lab::new(v);
    let (da, sa) = match v {
        Victim::Ap => (WIRED, STA1),
        Victim::Sta => (STA1, BSSID),
    };
    let mut body = LLC_IPV4.to_vec();
    let pad = if bad { 748 } else { 0 };
    let total = (20 + 20 + pad) as u16;
    body.extend([0x45, 0, (total >> 8) as u8, total as u8, 0, if bad { 1 } else { 34 }, 0, 0, 64, 6, 0, 0]);
    body.extend(if bad { [3, 5, 1, 1] } else { [1, 2, 3, 4] });
    body.extend([192, 168, 1, 2]);
    body.extend([0, 20, 0, 80, 0, 0, 0, 0, 0, 0, 0, 0, 0x50, 2, 0x20, 0, 0, 0, 0, 0]);
    body.extend(std::iter::repeat_n(b'A', pad));
    body.extend(amsdu_subframe(da, sa, &ping("amsdu inject"), true));
    let f = amsdu_frame(&mut lab, &body);
    refused(&mut lab, "amsdu inject", &[f], &[("a-msdu starts with an llc/snap header", 1)]);
}

fn amsdu_inject_good(v: Victim) {
    amsdu_inject(v, false)
}

fn amsdu_inject_bad(v: Victim) {
    amsdu_inject(v, true)
}

// --- 7.4 Mixed key attacks (CVE-2020-24587) ----------------------------------------------

/// When the first fragment goes, relative to the PTK rekey (the tool's triggers).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rekey {
    /// `I,F,BE,..`: during the rekey handshake (after its message 1, before message 4).
    During,
    /// `I,E,F,..`: before the rekey starts.
    Before,
}

/// The mixed key attack: fragment 1 under the old TK, a PTK rekey, fragment 2 under the
/// new TK with the next PN, at once (`AE`) or a second later (`E`). Fragments decrypted
/// under different keys are never joined (10.6; 12.5.3.4.4 and 12.6.21 on key changes);
/// the new key's install clears the partial MSDUs, so fragment 2 has no first fragment.
fn mixed_key(v: Victim, when: Rekey, pn_per_qos: bool, wait_ms: u64) {
    let mut lab = Lab::new(v);
    lab.keys.pn_per_qos = pn_per_qos;
    let far = lab.far();
    let h = lab.hdr(far);
    let plain = fragments(h, &ping("mixed key"), 2);
    let f1 = lab.keys.enc(&plain[0]);
    let n = tks_on_air(&lab.sim.air, STA1).len();
    if when == Rekey::Before {
        lab.send(std::slice::from_ref(&f1));
    }
    lab.sim.with_ap(|ap, now, out| assert!(ap.rekey_ptk(now, &STA1, out)));
    if when == Rekey::During {
        // Right behind message 1 on the medium: the victim takes it before message 2/4.
        lab.sim.inject.push(f1);
    }
    lab.sim.run(20 + wait_ms);
    let tks = tks_on_air(&lab.sim.air, STA1);
    assert_eq!(tks.len(), n + 1, "no new PTK on the air");
    lab.keys.rekey(tks.last().unwrap());
    let f2 = lab.keys.enc(&plain[1]);
    refused(&mut lab, "mixed key", &[f2], &[("fragment", 1)]);
    // The control: under the new key alone the same ping goes through.
    let f = ping_frames(&mut lab, "new key", &[true, true]);
    delivered(&mut lab, "new key", &f);
}

/// `ping I,F,BE,AE`.
fn ping_i_f_be_ae(v: Victim) {
    mixed_key(v, Rekey::During, false, 0)
}

/// `ping I,F,BE,AE --pn-per-qos`.
fn ping_i_f_be_ae_pn_per_qos(v: Victim) {
    mixed_key(v, Rekey::During, true, 0)
}

/// `ping I,F,BE,E` (extended): the second fragment a second after the rekey.
fn ping_i_f_be_e(v: Victim) {
    mixed_key(v, Rekey::During, false, 1_000)
}

/// `ping I,E,F,AE` (extended): the first fragment before the rekey starts.
fn ping_i_e_f_ae(v: Victim) {
    mixed_key(v, Rekey::Before, false, 0)
}

// --- 7.5 Cache attacks (CVE-2020-24586) --------------------------------------------------

/// The tool's reconnection: as a client it joins again (a fresh STA1, which
/// authenticates and associates anew; `--full-reconnect`: it deauthenticates first); as
/// an AP it disassociates the client (`--full-reconnect`: deauthenticates it), which
/// comes back. The attacker's keys follow the new 4-way handshake.
fn reconnect(lab: &mut Lab, full: bool) {
    let n = tks_on_air(&lab.sim.air, STA1).len();
    match lab.victim {
        Victim::Ap => {
            let cfg: StaConfig = lab.sim.sta(0).config().clone();
            if full {
                lab.sim.with_sta(0, |s, now, out| s.shutdown(now, out));
                lab.sim.step();
            }
            lab.sim.stas[0] = Some(nodesim::sta_core(cfg, lab.sim.now));
        }
        Victim::Sta if full => {
            lab.sim.with_ap(|ap, _, out| ap.deauth(&STA1, ReasonCode::UNSPECIFIED, out));
        }
        Victim::Sta => {
            lab.sim.with_ap(|ap, now, out| ap.disassociate(now, &STA1, ReasonCode::UNSPECIFIED, out));
        }
    }
    let up = lab.sim.run_until(5_000, |s| s.all_established() && tks_on_air(&s.air, STA1).len() > n);
    assert!(up, "STA1 did not reconnect: {:?}", lab.sim.events);
    lab.keys.rekey(&tk_on_air(&lab.sim, STA1));
}

/// `ping I,E,R,AE` / `ping I,E,R,E`: fragment 1, a reconnection, fragment 2 under the new
/// TK at once or a second later. The partial MSDU went with the old association's keys
/// (10.6; 12.6.21 deletes the PTKSA with its state): fragment 2 has no first.
fn cache(v: Victim, wait_ms: u64, plain2: bool, full: bool) {
    let mut lab = Lab::new(v);
    let far = lab.far();
    let h = lab.hdr(far);
    let plain = fragments(h, &ping("cache"), 2);
    let f1 = lab.keys.enc(&plain[0]);
    lab.send(&[f1]);
    reconnect(&mut lab, full);
    lab.sim.run(wait_ms);
    if plain2 {
        // `ping I,E,R,AP`: the second fragment in plaintext.
        refused_plain(&mut lab, "cache", &[plain[1].clone()], 1);
    } else {
        let f2 = lab.keys.enc(&plain[1]);
        refused(&mut lab, "cache", &[f2], &[("fragment", 1)]);
    }
}

/// `ping I,E,R,AE`.
fn ping_i_e_r_ae(v: Victim) {
    cache(v, 0, false, false)
}

/// `ping I,E,R,E`.
fn ping_i_e_r_e(v: Victim) {
    cache(v, 1_000, false, false)
}

/// `ping I,E,R,AE --full-recon`.
fn ping_i_e_r_ae_full_recon(v: Victim) {
    cache(v, 0, false, true)
}

/// `ping I,E,R,E --full-recon`.
fn ping_i_e_r_e_full_recon(v: Victim) {
    cache(v, 1_000, false, true)
}

/// `ping I,E,R,AP` (extended).
fn ping_i_e_r_ap(v: Victim) {
    cache(v, 0, true, false)
}

// --- 7.6 Non-consecutive PNs (CVE-2020-26146) --------------------------------------------

/// `ping I,E,E --inc-pn 2`: the second fragment's PN skips one. 12.5.3.4.4 (and
/// 12.5.5.4.4 for GCMP): the fragments of an MSDU carry consecutive PNs.
fn ping_i_e_e_inc_pn_2(v: Victim) {
    let mut lab = Lab::new(v);
    let far = lab.far();
    let h = lab.hdr(far);
    let plain = fragments(h, &ping("skipped pn"), 2);
    let f1 = lab.keys.enc(&plain[0]);
    let f2 = lab.keys.enc_inc(&plain[1], 2);
    refused(&mut lab, "skipped pn", &[f1, f2], &[("fragment", 1)]);
}

// --- 7.7 Mixed plaintext/encrypted fragments (CVE-2020-26147/26140/26143) -----------------

/// `ping I,E,P`: fragment 1 encrypted, fragment 2 plaintext. An unprotected fragment never
/// joins a protected MSDU (12.9.2.6: in an RSNA, unprotected data other than the
/// handshake's is discarded; 10.6).
fn ping_i_e_p(v: Victim) {
    let mut lab = Lab::new(v);
    let f = ping_frames(&mut lab, "enc then plain", &[true, false]);
    lab.send(&f[..1]);
    refused_plain(&mut lab, "enc then plain", &f[1..], 1);
}

/// `ping I,P,E`: fragment 1 plaintext, fragment 2 encrypted.
fn ping_i_p_e(v: Victim) {
    let mut lab = Lab::new(v);
    let f = ping_frames(&mut lab, "plain then enc", &[false, true]);
    let before = lab.drops();
    refused_plain(&mut lab, "plain then enc", &f, 2);
    // The encrypted fragment is the one refused for having no first fragment.
    assert_eq!(delta(&before, &lab.drops()).get("fragment"), Some(&1), "{}", lab.counters());
}

/// `ping I,P`: a whole plaintext ping (12.9.2.6).
fn ping_i_p(v: Victim) {
    let mut lab = Lab::new(v);
    let f = ping_frames(&mut lab, "plaintext", &[false]);
    refused(&mut lab, "plaintext", &f, &[("unprotected", 1)]);
}

/// `ping I,P,P`: a ping in two plaintext fragments.
fn ping_i_p_p(v: Victim) {
    let mut lab = Lab::new(v);
    let f = ping_frames(&mut lab, "plain fragments", &[false, false]);
    refused_plain(&mut lab, "plain fragments", &f, 2);
}

/// `ping I,E,P,E` (extended): encrypted, plaintext, encrypted (PNs of the encrypted ones
/// consecutive).
fn ping_i_e_p_e(v: Victim) {
    let mut lab = Lab::new(v);
    let f = ping_frames(&mut lab, "enc plain enc", &[true, false, true]);
    lab.send(&f[..1]);
    let before = lab.drops();
    refused_plain(&mut lab, "enc plain enc", &f[1..], 2);
    assert_eq!(delta(&before, &lab.drops()).get("fragment"), Some(&1), "{}", lab.counters());
}

/// `linux-plain`: fragment 1 encrypted, a decoy encrypted frame of the same TID with the
/// next sequence number (which moves the replay counter), then fragment 2 in plaintext.
/// The decoy is an ordinary frame and is delivered; the ping is not.
fn linux_plain_tid(v: Victim, decoy_tid: u8) {
    let mut lab = Lab::new(v);
    let far = lab.far();
    let h = lab.hdr(far);
    let plain = fragments(h, &ping("linux plain"), 2);
    let f1 = lab.keys.enc(&plain[0]);
    let mut body = LLC_IPV4.to_vec();
    body.extend(b"linux-plain decoy fragment");
    let decoy = lab.keys.enc(&Hdr { seq: h.seq ^ 1, tid: Some(decoy_tid), ..h }.bytes(&body));
    lab.send(&[f1, decoy]);
    assert_eq!(lab.delivered("decoy"), 1, "{}", lab.counters());
    refused_plain(&mut lab, "linux plain", &plain[1..], 1);
}

/// `linux-plain`: the decoy in the fragments' TID (2).
fn linux_plain(v: Victim) {
    linux_plain_tid(v, 2)
}

/// `linux-plain 3` (extended): the decoy in TID 3.
fn linux_plain_3(v: Victim) {
    linux_plain_tid(v, 3)
}

/// `ping I,E,E --amsdu` (extended): the ping as an A-MSDU in two encrypted fragments.
/// Reassembled (one key, consecutive PNs), then refused: an A-MSDU is not fragmented
/// (node::amsdu).
fn ping_i_e_e_amsdu(v: Victim) {
    let mut lab = Lab::new(v);
    let (da, sa) = match v {
        Victim::Ap => (WIRED, STA1),
        Victim::Sta => (STA1, WIRED),
    };
    let far = lab.far();
    let h = Hdr { amsdu: true, ..lab.hdr(far) };
    let body = amsdu_subframe(da, sa, &ping("fragmented amsdu"), true);
    let f: Vec<Vec<u8>> = fragments(h, &body, 2).iter().map(|f| lab.keys.enc(f)).collect();
    refused(&mut lab, "fragmented amsdu", &f, &[("fragmented a-msdu", 1)]);
}

// --- 7.8 Broadcast fragments (CVE-2020-26145) --------------------------------------------

/// The tool's `D,P --bcast-ra` frame: the whole ping in one plaintext MPDU with fragment
/// number 1 (fragment 0 "dropped"), Address 1 broadcast.
fn bcast_fragment(lab: &mut Lab, tag: &str, frag: u8) -> Vec<u8> {
    let far = lab.far();
    let h = Hdr { a1: MacAddr::BROADCAST, frag, ..lab.hdr(far) };
    h.bytes(&ping(tag))
}

/// What the victim does with plaintext broadcast frames. A client refuses them (12.9.2.6)
/// and counts them. An AP takes no data frame whose Address 1 is not its BSSID (9.3.2.1,
/// Table 9-26: a To DS frame's receiver is the AP): like any frame for another receiver it
/// is filtered before any processing, uncounted.
fn refused_bcast(lab: &mut Lab, tag: &str, f: Vec<u8>) {
    match lab.victim {
        Victim::Sta => refused_plain(lab, tag, &[f], 1),
        Victim::Ap => {
            let rx = lab.counters().rx_air;
            refused(lab, tag, &[f], &[]);
            assert_eq!(lab.counters().rx_air, rx + 1);
        }
    }
}

/// `ping I,D,P --bcast-ra`: once connected.
fn ping_i_d_p_bcast_ra(v: Victim) {
    let mut lab = Lab::new(v);
    let f = bcast_fragment(&mut lab, "bcast fragment", 1);
    refused_bcast(&mut lab, "bcast fragment", f);
}

/// `ping D,BP --bcast-ra`: the same during the 4-way handshake.
fn ping_d_bp_bcast_ra(v: Victim) {
    let mut lab = Lab::mid_handshake(v);
    let f = bcast_fragment(&mut lab, "bcast fragment", 1);
    refused_bcast(&mut lab, "bcast fragment", f);
    lab.release();
    assert_eq!(lab.delivered("bcast fragment"), 0);
}

/// `ping I,P --bcast-ra` (extended): a whole plaintext ping to broadcast, connected.
fn ping_i_p_bcast_ra(v: Victim) {
    let mut lab = Lab::new(v);
    let f = bcast_fragment(&mut lab, "bcast plain", 0);
    refused_bcast(&mut lab, "bcast plain", f);
}

/// `ping BP --bcast-ra` (extended): a whole plaintext ping to broadcast during the 4-way
/// handshake.
fn ping_bp_bcast_ra(v: Victim) {
    let mut lab = Lab::mid_handshake(v);
    let f = bcast_fragment(&mut lab, "bcast plain", 0);
    refused_bcast(&mut lab, "bcast plain", f);
    lab.release();
    assert_eq!(lab.delivered("bcast plain"), 0);
}

/// `ping BP` (extended): a plaintext unicast ping during the 4-way handshake.
fn ping_bp(v: Victim) {
    let mut lab = Lab::mid_handshake(v);
    let f = ping_frames(&mut lab, "during handshake", &[false]);
    refused(&mut lab, "during handshake", &f, &[("unprotected", 1)]);
    lab.release();
    assert_eq!(lab.delivered("during handshake"), 0);
}

/// `eapfrag BP,BP` (extended; the early form of the broadcast fragment attack): during the
/// handshake, the first plaintext fragment of an EAPOL/EAP frame to the victim, then the
/// ping as a plaintext fragment 1 to broadcast. A plaintext fragment never reaches the
/// handshake (12.7.6: EAPOL-Key frames are whole MSDUs; 10.6) and the ping is not
/// delivered.
fn eapfrag_bp_bp(v: Victim) {
    let mut lab = Lab::mid_handshake(v);
    let target = lab.target();
    let h = lab.hdr(target);
    let mut eap = LLC_EAPOL.to_vec();
    eap.extend([2, 0, 0, 36, 1, 1, 0, 36, 1]);
    eap.extend([b'A'; 32]);
    let frag0 = fragments(h, &eap, 2).remove(0);
    let frag1 = bcast_fragment(&mut lab, "eapfrag", 1);
    let n = if v == Victim::Sta { 2 } else { 1 };
    refused_plain(&mut lab, "eapfrag", &[frag0, frag1], n);
    lab.release();
    assert_eq!(lab.delivered("eapfrag"), 0);
}

// --- 8 (extended) No fragmentation support (§6.8) ---------------------------------------

/// `ping I,D,E`: only the second fragment (fragment number 1), encrypted, carrying the
/// whole ping: a fragment without a first is discarded (10.6).
fn ping_i_d_e(v: Victim) {
    let mut lab = Lab::new(v);
    let far = lab.far();
    let h = Hdr { frag: 1, ..lab.hdr(far) };
    let f = lab.keys.enc(&h.bytes(&ping("second only")));
    refused(&mut lab, "second only", &[f], &[("fragment", 1)]);
}

/// `ping I,E,D`: only a first fragment (More Fragments set) carrying the whole ping: held
/// until its lifetime ends (10.6), never delivered as a whole MSDU; uncounted, as every
/// partial MSDU that times out.
fn ping_i_e_d(v: Victim) {
    let mut lab = Lab::new(v);
    let far = lab.far();
    let h = Hdr { more: true, ..lab.hdr(far) };
    let f = lab.keys.enc(&h.bytes(&ping("first only")));
    refused(&mut lab, "first only", &[f], &[]);
    lab.sim.run(600);
    assert_eq!(lab.delivered("first only"), 0);
}

// --- 7.9 A-MSDU EAPOL attack (CVE-2020-26144) --------------------------------------------

/// The tool's `eapol-amsdu[-bad]` frame: plaintext, A-MSDU Present, a body that starts
/// like an EAPOL MSDU and carries the ping as an A-MSDU subframe (the `-bad` form as
/// FreeBSD/Linux misparse it). `bcast_dst`: the subframe to broadcast.
fn eapol_amsdu_frame(lab: &mut Lab, bad: bool, bcast_dst: bool) -> Vec<u8> {
    let (mut da, sa) = (lab.target(), lab.me());
    if lab.victim == Victim::Ap {
        da = WIRED;
    }
    if bcast_dst {
        da = MacAddr::BROADCAST;
    }
    let body = if bad {
        let mut b = LLC_EAPOL.to_vec();
        b.extend([1, 0, 0, 0]);
        b.extend(b"XXXXXXXX");
        b.extend(16u16.to_be_bytes());
        b.extend([b'X'; 16]);
        b.extend(b"YY");
        b.extend(amsdu_subframe(da, sa, &ping("eapol amsdu"), false));
        b
    } else {
        let sub = amsdu_subframe(da, sa, &ping("eapol amsdu"), false);
        let mut b = LLC_EAPOL.to_vec();
        b.extend([1, 0]);
        b.extend(((8 + sub.len()) as u16).to_be_bytes());
        b.extend(b"\x00\x06AAAAAA");
        b.extend(sub);
        b
    };
    let far = if bcast_dst && lab.victim == Victim::Ap { MacAddr::BROADCAST } else { lab.far() };
    let mut h = Hdr { amsdu: true, ..lab.hdr(far) };
    if bcast_dst && lab.victim == Victim::Sta {
        h.a1 = MacAddr::BROADCAST;
    }
    h.bytes(&body)
}

/// `eapol-amsdu I,P`: the cloaked A-MSDU once connected.
fn eapol_amsdu_i_p(v: Victim) {
    let mut lab = Lab::new(v);
    let f = eapol_amsdu_frame(&mut lab, false, false);
    refused_plain(&mut lab, "eapol amsdu", &[f], 1);
}

/// `eapol-amsdu BP`: during the 4-way handshake.
fn eapol_amsdu_bp(v: Victim) {
    let mut lab = Lab::mid_handshake(v);
    let f = eapol_amsdu_frame(&mut lab, false, false);
    refused_plain(&mut lab, "eapol amsdu", &[f], 1);
    lab.release();
    assert_eq!(lab.delivered("eapol amsdu"), 0);
}

/// `eapol-amsdu-bad I,P`.
fn eapol_amsdu_bad_i_p(v: Victim) {
    let mut lab = Lab::new(v);
    let f = eapol_amsdu_frame(&mut lab, true, false);
    refused_plain(&mut lab, "eapol amsdu", &[f], 1);
}

/// `eapol-amsdu-bad BP`.
fn eapol_amsdu_bad_bp(v: Victim) {
    let mut lab = Lab::mid_handshake(v);
    let f = eapol_amsdu_frame(&mut lab, true, false);
    refused_plain(&mut lab, "eapol amsdu", &[f], 1);
    lab.release();
    assert_eq!(lab.delivered("eapol amsdu"), 0);
}

/// `eapol-amsdu BP --bcast-dst` (extended).
fn eapol_amsdu_bp_bcast_dst(v: Victim) {
    let mut lab = Lab::mid_handshake(v);
    let f = eapol_amsdu_frame(&mut lab, false, true);
    refused_plain(&mut lab, "eapol amsdu", &[f], 1);
    lab.release();
    assert_eq!(lab.delivered("eapol amsdu"), 0);
}

// --- 8 (extended) AP forwards EAPOL (CVE-2020-26139) -------------------------------------

/// The tool's `eapol-inject` frame from STA1: plaintext EAPOL carrying `forwarded_data`
/// (and 3000 octets in `-large`, sent in three fragments) to `da`.
fn eapol_inject_frames(lab: &mut Lab, da: MacAddr, large: bool) -> Vec<Vec<u8>> {
    let mut body = LLC_EAPOL.to_vec();
    let n = if large { 14 + 3000 } else { 14 };
    body.extend([1, 0, (n >> 8) as u8, n as u8]);
    body.extend(b"forwarded_data");
    if large {
        body.extend(std::iter::repeat_n(b'A', 3000));
    }
    let h = lab.hdr(da);
    fragments(h, &body, if large { 3 } else { 1 })
}

/// `eapol-inject 00:11:22:33:44:55` (AP only; at association, before the 4-way
/// handshake): EAPOL is never forwarded (12.9.2.6: before the keys, only the handshake's
/// own frames, to the AP). Neither bridged nor relayed.
fn eapol_inject(v: Victim) {
    assert_eq!(v, Victim::Ap);
    let mut lab = Lab::mid_handshake(v);
    let f = eapol_inject_frames(&mut lab, STRANGER, false);
    refused_plain(&mut lab, "forwarded_data", &f, 1);
    lab.release();
}

/// `eapol-inject-large 00:11:22:33:44:55`: the same, 3 plaintext fragments.
fn eapol_inject_large(v: Victim) {
    assert_eq!(v, Victim::Ap);
    let mut lab = Lab::mid_handshake(v);
    let f = eapol_inject_frames(&mut lab, STRANGER, true);
    refused_plain(&mut lab, "forwarded_data", &f, 3);
    lab.release();
}

/// `eapol-inject` once connected (the §6.6 frame after the handshake, wsec extension):
/// plaintext EAPOL from STA1 to a stranger (would be bridged), to STA2 (would be relayed
/// under STA2's key) and to broadcast. None leaves the AP.
fn eapol_inject_connected(da: MacAddr) {
    let mut lab = Lab::new(Victim::Ap);
    let f = eapol_inject_frames(&mut lab, da, false);
    refused_plain(&mut lab, "forwarded_data", &f, 1);
    assert_eq!(lab.sim.ap().counters.relayed, 0);
}

/// The client side of §6.6 (wsec extension): plaintext EAPOL from the AP's address with
/// `a1`/`da`/`sa`. A client hands EAPOL only to its supplicant, and only what its AP sent
/// it or the PAE group address (12.7.2): never to its host.
fn eapol_to_client(a1: MacAddr, sa: MacAddr) {
    let mut lab = Lab::new(Victim::Sta);
    let h = Hdr { a1, ..lab.hdr(sa) };
    let mut body = LLC_EAPOL.to_vec();
    body.extend([1, 0, 0, 14]);
    body.extend(b"forwarded_data");
    refused_plain(&mut lab, "forwarded_data", &[h.bytes(&body)], 1);
}

/// An EAPOL-Key message 1 (12.7.6.2) from the AP's address whose SA (Address 3) is not
/// the AP: the station must not answer it (it would if it took EAPOL from any SA).
fn eapol_key_from_other_sa() {
    let mut lab = Lab::new(Victim::Sta);
    let h = lab.hdr(STRANGER);
    let mut key = vec![2, 3, 0, 95, 2];
    key.extend((KI_PAIRWISE | KI_ACK | 2).to_be_bytes());
    key.extend(16u16.to_be_bytes());
    key.extend(1000u64.to_be_bytes());
    key.extend([0x5a; 32]);
    key.extend([0; 16 + 8 + 8 + 16]);
    key.extend(0u16.to_be_bytes());
    let mut body = LLC_EAPOL.to_vec();
    body.extend(key);
    refused_plain(&mut lab, "no tag", &[h.bytes(&body)], 1);
}

macro_rules! both {
    ($($name:ident),* $(,)?) => {
        /// The AP core under test (the tool in client mode).
        mod ap {
            $( #[test] fn $name() { super::$name(super::Victim::Ap) } )*
        }
        /// The station core under test (the tool's `--ap` mode).
        mod sta {
            $( #[test] fn $name() { super::$name(super::Victim::Sta) } )*
        }
    };
}

both!(
    ping_i_e,
    ping_i_e_e,
    ping_i_e_e_delay,
    ping_frag_sep,
    ping_frag_sep_pn_per_qos,
    ping_i_e_amsdu,
    ping_i_e_amsdu_fake,
    amsdu_inject_good,
    amsdu_inject_bad,
    ping_i_f_be_ae,
    ping_i_f_be_ae_pn_per_qos,
    ping_i_f_be_e,
    ping_i_e_f_ae,
    ping_i_e_r_ae,
    ping_i_e_r_e,
    ping_i_e_r_ae_full_recon,
    ping_i_e_r_e_full_recon,
    ping_i_e_r_ap,
    ping_i_e_e_inc_pn_2,
    ping_i_e_p,
    ping_i_p_e,
    ping_i_p,
    ping_i_p_p,
    ping_i_e_p_e,
    linux_plain,
    linux_plain_3,
    ping_i_e_e_amsdu,
    ping_i_d_p_bcast_ra,
    ping_d_bp_bcast_ra,
    ping_i_p_bcast_ra,
    ping_bp_bcast_ra,
    ping_bp,
    eapfrag_bp_bp,
    ping_i_d_e,
    ping_i_e_d,
    eapol_amsdu_i_p,
    eapol_amsdu_bp,
    eapol_amsdu_bad_i_p,
    eapol_amsdu_bad_bp,
    eapol_amsdu_bp_bcast_dst,
);

/// The AP-only cases (the tool: "it makes no sense to test whether a client forwards").
mod ap_only {
    use super::*;

    #[test]
    fn eapol_inject_stranger() {
        eapol_inject(Victim::Ap)
    }

    #[test]
    fn eapol_inject_large_stranger() {
        eapol_inject_large(Victim::Ap)
    }

    #[test]
    fn eapol_inject_connected_to_stranger() {
        eapol_inject_connected(STRANGER)
    }

    #[test]
    fn eapol_inject_connected_to_sta2() {
        eapol_inject_connected(STA2)
    }

    #[test]
    fn eapol_inject_connected_to_broadcast() {
        eapol_inject_connected(MacAddr::BROADCAST)
    }
}

/// The client-side EAPOL rules (wsec extensions of §6.6).
mod sta_only {
    use super::*;

    #[test]
    fn eapol_from_ap_to_broadcast() {
        eapol_to_client(MacAddr::BROADCAST, BSSID)
    }

    #[test]
    fn eapol_from_ap_to_client_other_sa() {
        eapol_to_client(STA1, STRANGER)
    }

    #[test]
    fn eapol_key_message_1_from_other_sa() {
        eapol_key_from_other_sa()
    }
}
