//! Our Authenticator and Supplicant against each other, in memory: every AKM/cipher
//! pairing, over a channel that loses, duplicates, delays and reorders frames (seeded; the
//! seed is printed on failure), and the KRACK cases (Vanhoef and Piessens, CCS 2017).
use rand::rngs::OsRng;
use rand::{Rng, SeedableRng};
use wsec::cipher::{AadOptions, CipherSuite};
use wsec::link::sa::{KeyType, Role, RxOutcome, SecurityAssociation};
use wsec::rsn::akm::Akm;
use wsec::rsn::handshake::authenticator::GroupKeys;
use wsec::rsn::handshake::{Authenticator, Config, Event, Output, Supplicant, Timers};
use wsec::wire::MacAddr;
use zeroize::Zeroizing;

const AA: MacAddr = MacAddr([0x02, 0x11, 0x22, 0x33, 0x44, 0x55]);
const SPA: MacAddr = MacAddr([0x02, 0x66, 0x77, 0x88, 0x99, 0xaa]);

/// An RSN element written out by hand (9.4.2.24): version 1, group cipher, one pairwise
/// cipher, one AKM, RSN Capabilities (MFPC|MFPR when `mfp`), group management cipher.
fn rsne(group: CipherSuite, pairwise: CipherSuite, akm: Akm, mfp: Option<CipherSuite>) -> Vec<u8> {
    let mut b = vec![1, 0, 0x00, 0x0f, 0xac, group.suite_type(), 1, 0, 0x00, 0x0f, 0xac, pairwise.suite_type()];
    b.extend([1, 0, 0x00, 0x0f, 0xac, akm.suite_type()]);
    match mfp {
        Some(m) => {
            b.extend([0xc0, 0x00, 0, 0]); // MFPR | MFPC, no PMKIDs
            b.extend([0x00, 0x0f, 0xac, m.suite_type()]);
        }
        None => b.extend([0x00, 0x00]),
    }
    let mut e = vec![48, b.len() as u8];
    e.extend(b);
    e
}

fn config(akm: Akm, pairwise: CipherSuite, group: CipherSuite, mfp: Option<CipherSuite>, tries: u32) -> Config {
    let pmk: Vec<u8> = (0..akm.pmk_len() as u8).map(|i| i.wrapping_mul(37).wrapping_add(1)).collect();
    let e = rsne(group, pairwise, akm, mfp);
    Config {
        akm,
        pairwise,
        group,
        group_mgmt: mfp,
        pmk: Zeroizing::new(pmk),
        aa: AA,
        spa: SPA,
        ap_rsne: e.clone(),
        sta_rsne: e,
        timers: Timers { eapol_timeout_ns: 1_000_000_000, max_tries: tries },
    }
}

/// Every pairing the 4-way handshake supports: the non-FT AKMs with each pairwise cipher
/// their descriptor version allows; TKIP only under the SHA-1 AKMs (descriptor 1).
fn pairings() -> Vec<(Akm, CipherSuite, CipherSuite, Option<CipherSuite>)> {
    let mut v = Vec::new();
    for akm in Akm::ALL.into_iter().filter(|a| !a.is_ft()) {
        for pw in [CipherSuite::Ccmp128, CipherSuite::Ccmp256, CipherSuite::Gcmp128, CipherSuite::Gcmp256, CipherSuite::Tkip] {
            let sha1 = matches!(akm, Akm::Psk | Akm::Ieee8021x);
            if pw == CipherSuite::Tkip && !sha1 {
                continue;
            }
            let mfp = match akm {
                Akm::Sae | Akm::SaeExtKey | Akm::Owe | Akm::PskSha256 => Some(CipherSuite::BipCmac128),
                Akm::SuiteB192 => Some(CipherSuite::BipGmac256),
                _ => None,
            };
            v.push((akm, pw, pw, mfp));
        }
    }
    // A WPA2 mixed-mode BSS: TKIP group cipher beside CCMP pairwise.
    v.push((Akm::Psk, CipherSuite::Ccmp128, CipherSuite::Tkip, None));
    v
}

#[derive(Default)]
struct Side {
    ptk_installs: Vec<Zeroizing<Vec<u8>>>,
    gtk_installs: Vec<(u8, Zeroizing<Vec<u8>>)>,
    igtk_installs: usize,
    established: usize,
    failed: Option<&'static str>,
    group_done: usize,
    dropped: usize,
    sent: usize,
    transition_disable: Vec<u8>,
}

impl Side {
    fn take(&mut self, o: &Output) {
        for e in &o.events {
            match e {
                Event::InstallPtk { tk, .. } | Event::InstallPtkRx { tk, .. } => self.ptk_installs.push(tk.clone()),
                Event::ActivatePtk { .. } => {}
                Event::InstallGtk { gtk, key_id, .. } => self.gtk_installs.push((*key_id, gtk.clone())),
                Event::InstallIgtk { .. } => self.igtk_installs += 1,
                Event::Established { .. } => self.established += 1,
                Event::Failed(w) => self.failed = Some(w),
                Event::GroupKeyDone { .. } => self.group_done += 1,
                Event::Dropped(_) => self.dropped += 1,
                Event::TransitionDisable(b) => self.transition_disable.push(*b),
            }
        }
        self.sent += o.tx.len();
    }
}

/// A lossy channel: each frame in flight may be lost, duplicated or held back.
struct Channel {
    to_sta: Vec<Vec<u8>>,
    to_ap: Vec<Vec<u8>>,
}

fn run(seed: u64, akm: Akm, pw: CipherSuite, group: CipherSuite, mfp: Option<CipherSuite>, loss: f64) -> (Side, Side) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let cfg = config(akm, pw, group, mfp, 30);
    let gk = GroupKeys::random(&cfg, 1, &mut OsRng);
    let mut ap = Authenticator::new(cfg.clone(), gk, Box::new(OsRng));
    let mut sta = Supplicant::new(cfg, Box::new(OsRng));
    let (mut a, mut s) = (Side::default(), Side::default());
    let mut now = 0u64;
    let mut ch = Channel { to_sta: Vec::new(), to_ap: Vec::new() };
    let o = ap.start(now);
    a.take(&o);
    ch.to_sta.extend(o.tx);
    let mut deadline = o.deadline;
    for _ in 0..5000 {
        if a.established > 0 && s.established > 0 && ch.to_sta.is_empty() && ch.to_ap.is_empty() {
            break;
        }
        if a.failed.is_some() {
            break;
        }
        let pick: f64 = rng.gen();
        let queues = (!ch.to_sta.is_empty(), !ch.to_ap.is_empty());
        if pick < 0.1 || queues == (false, false) {
            // Time passes: the Authenticator may retransmit.
            now = deadline.unwrap_or(now + 1_000_000_000).max(now);
            let o = ap.handle_timeout(now);
            a.take(&o);
            deadline = o.deadline;
            ch.to_sta.extend(o.tx);
            continue;
        }
        let to_sta = match queues {
            (true, false) => true,
            (false, true) => false,
            _ => rng.gen_bool(0.5),
        };
        let q = if to_sta { &mut ch.to_sta } else { &mut ch.to_ap };
        // Reorder: take any frame in flight, not only the oldest.
        let i = rng.gen_range(0..q.len());
        let f = if rng.gen_bool(0.15) { q[i].clone() } else { q.remove(i) }; // duplicate
        if rng.gen_bool(loss) {
            continue; // lost
        }
        now += rng.gen_range(0..5_000_000);
        if to_sta {
            let o = sta.handle_eapol(now, &f);
            s.take(&o);
            ch.to_ap.extend(o.tx);
        } else {
            let o = ap.handle_eapol(now, &f);
            a.take(&o);
            if o.deadline.is_some() || o.tx.is_empty() {
                deadline = o.deadline;
            }
            ch.to_sta.extend(o.tx);
        }
    }
    (a, s)
}

fn seeds() -> Vec<u64> {
    match std::env::var("WSEC_HANDSHAKE_SEED") {
        Ok(s) => vec![s.parse().expect("WSEC_HANDSHAKE_SEED is a number")],
        Err(_) => (1..=12).collect(),
    }
}

#[test]
fn every_pairing_completes_on_a_clean_channel() {
    for (akm, pw, group, mfp) in pairings() {
        let (a, s) = run(0, akm, pw, group, mfp, 0.0);
        let what = format!("{akm} {pw}/{group}");
        assert_eq!((a.established, s.established), (1, 1), "{what}: {:?} {:?}", a.failed, s.failed);
        assert_eq!(a.ptk_installs.len(), 1, "{what}");
        assert_eq!(s.ptk_installs.len(), 1, "{what}");
        assert_eq!(a.ptk_installs[0], s.ptk_installs[0], "{what}: both sides hold the same TK");
        assert_eq!(s.ptk_installs[0].len(), pw.key_len(), "{what}");
        assert_eq!(s.gtk_installs.len(), 1, "{what}");
        assert_eq!(s.gtk_installs[0].1.len(), group.key_len(), "{what}");
        assert_eq!(s.igtk_installs, usize::from(mfp.is_some()), "{what}");
    }
}

#[test]
fn handshakes_survive_loss_duplication_and_reordering() {
    let (mut dropped, mut ap_sent, mut runs) = (0, 0, 0);
    for seed in seeds() {
        for (akm, pw, group, mfp) in pairings() {
            let (a, s) = run(seed, akm, pw, group, mfp, 0.25);
            let what = format!("seed {seed} (WSEC_HANDSHAKE_SEED={seed}): {akm} {pw}/{group}");
            assert_eq!((a.established, s.established), (1, 1), "{what}: {:?} {:?}", a.failed, s.failed);
            // However many copies of message 3 arrived, each key was installed once.
            assert_eq!(s.ptk_installs.len(), 1, "{what}");
            assert_eq!(s.gtk_installs.len(), 1, "{what}");
            assert_eq!(a.ptk_installs.len(), 1, "{what}");
            assert_eq!(a.ptk_installs[0], s.ptk_installs[0], "{what}");
            dropped += a.dropped + s.dropped;
            ap_sent += a.sent;
            runs += 1;
        }
    }
    // The channel did misbehave: duplicates were refused and requests were retransmitted
    // (a clean run sends exactly two, M1 and M3).
    assert!(dropped > runs, "{dropped} drops in {runs} runs");
    assert!(ap_sent > 2 * runs, "{ap_sent} requests in {runs} runs");
}

/// Drives a clean handshake and returns the cores and the frames of the last exchange.
struct Pair {
    ap: Authenticator,
    sta: Supplicant,
    a: Side,
    s: Side,
}

fn pair(akm: Akm, pw: CipherSuite) -> (Pair, Vec<u8> /* M3 */, Vec<u8> /* M4 */) {
    let cfg = config(akm, pw, pw, None, 4);
    let mut p = Pair {
        ap: Authenticator::new(cfg.clone(), GroupKeys::random(&cfg, 1, &mut OsRng), Box::new(OsRng)),
        sta: Supplicant::new(cfg, Box::new(OsRng)),
        a: Side::default(),
        s: Side::default(),
    };
    let o = p.ap.start(0);
    let m1 = o.tx[0].clone();
    let o = p.sta.handle_eapol(1, &m1);
    p.s.take(&o);
    let m2 = o.tx[0].clone();
    let o = p.ap.handle_eapol(2, &m2);
    let m3 = o.tx[0].clone();
    let o = p.sta.handle_eapol(3, &m3);
    p.s.take(&o);
    let m4 = o.tx[0].clone();
    (p, m3, m4)
}

/// KRACK against the 4-way handshake: message 4 is lost, the Authenticator retransmits
/// message 3, the Supplicant answers again but installs nothing again; the data path's
/// PN keeps counting, so no nonce is reused.
#[test]
fn krack_retransmitted_m3_reinstalls_nothing() {
    for pw in [CipherSuite::Ccmp128, CipherSuite::Gcmp256, CipherSuite::Tkip] {
        let (mut p, _m3, _lost_m4) = pair(Akm::Psk, pw);
        assert_eq!(p.s.ptk_installs.len(), 1);
        // The STA's data path, keyed by the handshake's hand-off.
        let mut link = SecurityAssociation::new(Role::Supplicant);
        link.install(KeyType::Pairwise, 0, pw, &p.s.ptk_installs[0], AadOptions::default(), None).unwrap();
        let data = |seq: u16| {
            let mut f = vec![0x08, 0x01, 0, 0];
            f.extend(AA.0);
            f.extend(SPA.0);
            f.extend(AA.0);
            f.extend((seq << 4).to_le_bytes());
            f.extend(b"\xaa\xaa\x03\x00\x00\x00\x08\x00payload");
            f
        };
        let mut sent = Vec::new();
        let mut out = Vec::new();
        for i in 0..2 {
            link.protect(&data(i), &mut out).unwrap();
            sent.push(out.clone());
        }
        // M4 lost: the AP times out and retransmits M3 with a new replay counter.
        let o = p.ap.handle_timeout(2_000_000_000);
        assert_eq!(o.tx.len(), 1, "{pw}: M3 retransmitted");
        let o = p.sta.handle_eapol(2_000_000_001, &o.tx[0]);
        p.s.take(&o);
        assert_eq!(o.tx.len(), 1, "{pw}: M4 sent again");
        assert!(o.events.iter().all(|e| !matches!(e, Event::InstallPtk { .. } | Event::InstallGtk { .. })), "{pw}: {:?}", o.events);
        // The AP completes with the second M4.
        let oa = p.ap.handle_eapol(2_000_000_002, &o.tx[0]);
        p.a.take(&oa);
        assert_eq!(p.a.established, 1);
        assert_eq!(p.a.ptk_installs[0], p.s.ptk_installs[0]);
        // No reinstall reached the data path: the next frame uses PN 3, not PN 1 again.
        link.protect(&data(2), &mut out).unwrap();
        let pn_of = |f: &[u8]| {
            if pw == CipherSuite::Tkip {
                wsec::cipher::tkip::TkipKey::peek(f).unwrap().pn
            } else {
                wsec::cipher::mpdu::peek(f, AadOptions::default()).unwrap().pn
            }
        };
        assert_eq!(pn_of(&out), 3, "{pw}");
        assert!(sent.iter().all(|f| pn_of(f) < 3));
        // And the AP's receive side still refuses a replay of an earlier frame.
        let mut ap_link = SecurityAssociation::new(Role::Authenticator);
        ap_link.install(KeyType::Pairwise, 0, pw, &p.a.ptk_installs[0], AadOptions::default(), None).unwrap();
        assert!(matches!(ap_link.unprotect(0, &sent[0]), Ok(RxOutcome::Frame { .. })));
        assert!(ap_link.unprotect(0, &sent[0]).is_err());
    }
}

/// A replayed message 3 (the same frame again, same replay counter) is refused outright.
#[test]
fn replayed_m3_is_dropped() {
    let (mut p, m3, _) = pair(Akm::Psk, CipherSuite::Ccmp128);
    let o = p.sta.handle_eapol(10, &m3);
    assert!(o.tx.is_empty());
    assert_eq!(o.events, vec![Event::Dropped("Key Replay Counter did not increase")]);
}

/// KRACK against the group key handshake: a group message 1 captured and replayed, or a
/// retransmitted one (its group message 2 lost), never reinstalls the GTK.
#[test]
fn krack_group_key_reinstallation() {
    let (mut p, _, m4) = pair(Akm::Psk, CipherSuite::Ccmp128);
    p.a.take(&p.ap.handle_eapol(4, &m4));
    let cfg = config(Akm::Psk, CipherSuite::Ccmp128, CipherSuite::Ccmp128, None, 4);
    let new_gk = GroupKeys::random(&cfg, 2, &mut OsRng);
    let o = p.ap.rekey_group(10, new_gk);
    let g1 = o.tx[0].clone();
    let o = p.sta.handle_eapol(11, &g1);
    p.s.take(&o);
    assert_eq!(p.s.gtk_installs.len(), 2, "the new GTK installed once");
    assert_eq!(p.s.gtk_installs[1].0, 2);
    // The captured G1 replayed: refused, no G2, no install.
    let o = p.sta.handle_eapol(12, &g1);
    assert!(o.tx.is_empty());
    assert_eq!(o.events, vec![Event::Dropped("Key Replay Counter did not increase")]);
    // G2 lost: the AP retransmits G1 (new counter, same GTK): answered, not reinstalled.
    let o = p.ap.handle_timeout(2_000_000_000);
    let o = p.sta.handle_eapol(2_000_000_001, &o.tx[0]);
    p.s.take(&o);
    assert_eq!(o.tx.len(), 1);
    assert_eq!(p.s.gtk_installs.len(), 2, "no reinstallation: {:?}", o.events);
    let oa = p.ap.handle_eapol(2_000_000_002, &o.tx[0]);
    assert!(oa.events.contains(&Event::GroupKeyDone { key_id: 2 }));
}

/// The all-zero key: the handshake hands over the derived TK only, and the data path
/// refuses a key of zeros whatever asks for it.
#[test]
fn krack_all_zero_key_never_installed() {
    let (p, _, _) = pair(Akm::Psk, CipherSuite::Ccmp128);
    assert!(p.s.ptk_installs.iter().all(|k| k.iter().any(|&b| b != 0)));
    assert_eq!(p.sta.ptk().unwrap().tk(), &p.s.ptk_installs[0][..]);
    let mut link = SecurityAssociation::new(Role::Supplicant);
    assert!(link.install(KeyType::Pairwise, 0, CipherSuite::Ccmp128, &[0u8; 16], AadOptions::default(), None).is_err());
}

/// PTK rekey: a second 4-way handshake installs the new TK once; the old one stays in
/// force until then.
#[test]
fn ptk_rekey() {
    let (mut p, _, m4) = pair(Akm::PskSha256, CipherSuite::Gcmp128);
    p.a.take(&p.ap.handle_eapol(4, &m4));
    let mut msgs = p.ap.rekey_ptk(10).tx;
    for t in 11..20 {
        let Some(f) = msgs.pop() else { break };
        let o = if t % 2 == 1 { p.sta.handle_eapol(t, &f) } else { p.ap.handle_eapol(t, &f) };
        if t % 2 == 1 {
            p.s.take(&o);
        } else {
            p.a.take(&o);
        }
        msgs = o.tx;
    }
    assert_eq!(p.s.ptk_installs.len(), 2);
    assert_eq!(p.a.ptk_installs.len(), 2);
    assert_ne!(p.s.ptk_installs[0], p.s.ptk_installs[1], "a fresh ANonce and SNonce give a fresh TK");
    assert_eq!(p.s.ptk_installs[1], p.a.ptk_installs[1]);
    assert_eq!((p.a.established, p.s.established), (1, 1), "Established once per association");
}

/// Wrong PMK, tampered RSNE, unanswered requests: the handshake fails with a reason.
#[test]
fn failures_have_reasons() {
    // Different PMKs: message 2's MIC fails at the AP; it retries, then gives up.
    let cfg = config(Akm::Psk, CipherSuite::Ccmp128, CipherSuite::Ccmp128, None, 3);
    let mut sta_cfg = cfg.clone();
    sta_cfg.pmk = Zeroizing::new(vec![9u8; 32]);
    let mut ap = Authenticator::new(cfg.clone(), GroupKeys::random(&cfg, 1, &mut OsRng), Box::new(OsRng));
    let mut sta = Supplicant::new(sta_cfg, Box::new(OsRng));
    let mut f = ap.start(0).tx;
    let mut failed = None;
    for t in 1..20u64 {
        let o = sta.handle_eapol(t * 10, &f[0]);
        let oa = ap.handle_eapol(t * 10 + 1, &o.tx[0]);
        assert!(oa.events.contains(&Event::Dropped("EAPOL-Key MIC failure")));
        let o = ap.handle_timeout(t * 2_000_000_000);
        if let Some(Event::Failed(w)) = o.events.first() {
            failed = Some(*w);
            break;
        }
        f = o.tx;
    }
    assert_eq!(failed, Some("no answer to the last retransmission"));
    // The STA's RSNE in message 2 differs from its Association Request: the AP refuses.
    let mut sta_cfg = cfg.clone();
    sta_cfg.sta_rsne = rsne(CipherSuite::Tkip, CipherSuite::Ccmp128, Akm::Psk, None);
    let mut ap = Authenticator::new(cfg.clone(), GroupKeys::random(&cfg, 1, &mut OsRng), Box::new(OsRng));
    let mut sta = Supplicant::new(sta_cfg, Box::new(OsRng));
    let m1 = ap.start(0).tx.remove(0);
    let m2 = sta.handle_eapol(1, &m1).tx.remove(0);
    let o = ap.handle_eapol(2, &m2);
    assert!(o.events.contains(&Event::Failed("RSNE in message 2 differs from the Association Request's")));
    // The AP's RSNE in message 3 differs from its Beacon's (downgrade): the STA refuses.
    let mut sta_cfg = cfg.clone();
    sta_cfg.ap_rsne = rsne(CipherSuite::Ccmp128, CipherSuite::Ccmp128, Akm::PskSha256, None);
    let mut ap = Authenticator::new(cfg.clone(), GroupKeys::random(&cfg, 1, &mut OsRng), Box::new(OsRng));
    let mut sta = Supplicant::new(sta_cfg, Box::new(OsRng));
    let m1 = ap.start(0).tx.remove(0);
    let m2 = sta.handle_eapol(1, &m1).tx.remove(0);
    let m3 = ap.handle_eapol(2, &m2).tx.remove(0);
    let o = sta.handle_eapol(3, &m3);
    assert!(o.tx.is_empty());
    assert!(o.events.contains(&Event::Failed("RSNE in message 3 differs from the Beacon's")));
    // The Beacon had an RSNXE (SAE hash-to-element) that message 3 lacks, and the other
    // way round: the STA refuses both; with the same RSNXE on both sides it completes.
    let rsnxe = [244u8, 1, 0x20];
    for (beacon, m3, ok) in [(true, false, false), (false, true, false), (true, true, true)] {
        let mut ap_cfg = cfg.clone();
        let mut sta_cfg = cfg.clone();
        if m3 {
            ap_cfg.ap_rsne.extend_from_slice(&rsnxe);
        }
        if beacon {
            sta_cfg.ap_rsne.extend_from_slice(&rsnxe);
        }
        let mut ap = Authenticator::new(ap_cfg.clone(), GroupKeys::random(&ap_cfg, 1, &mut OsRng), Box::new(OsRng));
        let mut sta = Supplicant::new(sta_cfg, Box::new(OsRng));
        let m1 = ap.start(0).tx.remove(0);
        let m2 = sta.handle_eapol(1, &m1).tx.remove(0);
        let m3f = ap.handle_eapol(2, &m2).tx.remove(0);
        let o = sta.handle_eapol(3, &m3f);
        assert_eq!(o.tx.len(), usize::from(ok), "beacon {beacon} m3 {m3}");
        assert_eq!(o.events.contains(&Event::Failed("RSNXE in message 3 differs from the Beacon's")), !ok, "beacon {beacon} m3 {m3}");
    }
}

/// Every truncation and every single-bit flip of each message is refused with a reason
/// (a flip the MIC does not cover may pass only if it leaves the frame's meaning intact).
#[test]
fn malformed_messages_are_refused() {
    let cfg = config(Akm::Psk, CipherSuite::Ccmp128, CipherSuite::Ccmp128, None, 4);
    let mut ap = Authenticator::new(cfg.clone(), GroupKeys::random(&cfg, 1, &mut OsRng), Box::new(OsRng));
    let mut sta = Supplicant::new(cfg.clone(), Box::new(OsRng));
    let m1 = ap.start(0).tx.remove(0);
    let m2 = sta.handle_eapol(1, &m1).tx.remove(0);
    for n in 0..m2.len() {
        let mut probe = Authenticator::new(cfg.clone(), GroupKeys::random(&cfg, 1, &mut OsRng), Box::new(OsRng));
        let _ = probe.start(0);
        let o = probe.handle_eapol(2, &m2[..n]);
        assert!(o.tx.is_empty() && matches!(o.events[..], [Event::Dropped(_)]), "M2 truncated to {n}");
    }
    let m3 = ap.handle_eapol(2, &m2).tx.remove(0);
    // Flip every bit of M3 after the EAPOL header: the STA must not answer a changed frame.
    for i in 4..m3.len() {
        for bit in 0..8 {
            let mut s2 = Supplicant::new(cfg.clone(), Box::new(OsRng));
            let _ = s2.handle_eapol(1, &m1);
            let mut f = m3.clone();
            f[i] ^= 1 << bit;
            let o = s2.handle_eapol(3, &f);
            assert!(o.tx.is_empty(), "M3 octet {i} bit {bit} accepted: {:?}", o.events);
        }
    }
    let o = sta.handle_eapol(3, &m3);
    assert_eq!(o.tx.len(), 1);
}

/// The Transition Disable KDE (WPA3 Specification 13.2) rides in message 3 only: the
/// Supplicant reports its bitmap once, after the keys, and not again for a retransmitted
/// message 3 (whose keys it does not install again either); without the setting there is
/// none.
#[test]
fn transition_disable_in_message_3_reported_once() {
    for td in [0u8, 0x01, 0x09] {
        let cfg = config(Akm::Sae, CipherSuite::Ccmp128, CipherSuite::Ccmp128, Some(CipherSuite::BipCmac128), 30);
        let gk = GroupKeys::random(&cfg, 1, &mut OsRng);
        let mut ap = Authenticator::new(cfg.clone(), gk, Box::new(OsRng));
        ap.set_transition_disable(td);
        let mut sta = Supplicant::new(cfg, Box::new(OsRng));
        let (mut a, mut s) = (Side::default(), Side::default());
        let m1 = ap.start(0);
        let o = sta.handle_eapol(1, &m1.tx[0]);
        s.take(&o);
        let o = ap.handle_eapol(2, &o.tx[0]);
        a.take(&o);
        let m3 = o.tx[0].clone();
        let o = sta.handle_eapol(3, &m3);
        s.take(&o);
        // The Authenticator did not hear message 4 and sends message 3 again.
        let again = ap.handle_timeout(2_000_000_000);
        assert_eq!(again.tx.len(), 1);
        let o2 = sta.handle_eapol(2_000_000_001, &again.tx[0]);
        s.take(&o2);
        a.take(&ap.handle_eapol(2_000_000_002, &o2.tx[0]));
        assert_eq!((a.established, s.established, s.ptk_installs.len()), (1, 1, 1));
        let want: Vec<u8> = if td == 0 { vec![] } else { vec![td] };
        assert_eq!(s.transition_disable, want, "bitmap {td:#04x}");
        assert!(a.transition_disable.is_empty());
    }
}
