//! The data path's batch mode (`Datapath::begin_batch` / `send_protected` / `end_batch`,
//! the multi-buffer pass the live programs use) against one frame at a time
//! (`Engine::protect`): byte for byte the same MPDUs, in the same order, also when keys
//! change in the middle of a batch; and what a receiver's engine accepts. And the receive
//! side: frames opened ahead against one at a time.
use rand::{Rng, SeedableRng};
use wsec::cipher::CipherSuite;
use wsec::link::sa::{KeyType, Role};
use wsec::node::datapath::Datapath;
use wsec::node::engine::Engine;
use wsec::node::frames::{self, Dir};
use wsec::node::{Counters, Offload, Output};
use wsec::wire::{EtherType, MacAddr};

const BSSID: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0xaa]);

fn sta(i: u8) -> MacAddr {
    MacAddr([0x02, 0, 0, 0, 1, i])
}

fn key(rng: &mut impl Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.gen()).collect()
}

enum Step {
    Frame(Option<MacAddr>, Vec<u8>),
    /// A new pairwise key for a station (a PTK rekey) in the middle of the traffic.
    Rekey(MacAddr, u8, CipherSuite, Vec<u8>),
    /// A new GTK and the switch to it.
    Gtk(u8, Vec<u8>),
}

/// Each station: its address, pairwise suite and TK.
type Peers = Vec<(MacAddr, CipherSuite, Vec<u8>)>;

fn engines(rng: &mut impl Rng, suites: &[CipherSuite]) -> (Engine, Engine, Peers, Vec<u8>) {
    let mut a = Engine::new(Role::Authenticator);
    let mut b = Engine::new(Role::Authenticator);
    let gtk = key(rng, 16);
    a.install(None, KeyType::Group, 1, CipherSuite::Ccmp128, &gtk, None).unwrap();
    b.install(None, KeyType::Group, 1, CipherSuite::Ccmp128, &gtk, None).unwrap();
    let mut peers = Vec::new();
    for (i, &s) in suites.iter().enumerate() {
        let k = key(rng, s.key_len());
        let p = sta(i as u8);
        a.install(Some(p), KeyType::Pairwise, 0, s, &k, None).unwrap();
        b.install(Some(p), KeyType::Pairwise, 0, s, &k, None).unwrap();
        peers.push((p, s, k));
    }
    (a, b, peers, gtk)
}

#[test]
fn batches_equal_one_frame_at_a_time_byte_for_byte() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xba7c);
    let suites =
        [CipherSuite::Ccmp128, CipherSuite::Ccmp256, CipherSuite::Gcmp128, CipherSuite::Tkip, CipherSuite::Ccmp128, CipherSuite::Ccmp128];
    for round in 0..40 {
        let (mut one, many, peers, _) = engines(&mut rng, &suites);
        let mut many = Datapath::new(many, Offload::Host);
        let (mut counters, mut out) = (Counters::default(), Output::default());
        // Odd rounds spread the crypto over a pool of threads (long batches, so the
        // batches are big enough to be split).
        let threads = [1, 3][round % 2];
        many.set_parallel(wsec_live::runtime::crypto_threads(threads).unwrap());
        let close = if threads > 1 { 0.01 } else { 0.1 };
        // A random script of frames (unicast to known and unknown stations, group) and,
        // now and then, key changes.
        let mut script = Vec::new();
        for seq in 0..rng.gen_range(1..160u16) {
            match rng.gen_range(0..40) {
                0 => {
                    let (p, s, _) = &peers[rng.gen_range(0..peers.len())];
                    script.push(Step::Rekey(*p, rng.gen_range(0..2), *s, key(&mut rng, s.key_len())));
                }
                1 => script.push(Step::Gtk(rng.gen_range(1..4), key(&mut rng, 16))),
                r => {
                    let peer = match r % 4 {
                        0 => None,
                        1 => Some(sta(200)), // no pairwise key: the group key protects it
                        _ => Some(peers[rng.gen_range(0..peers.len())].0),
                    };
                    let da = peer.unwrap_or(MacAddr::BROADCAST);
                    let len = if rng.gen_bool(0.3) { rng.gen_range(0..64) } else { rng.gen_range(0..2304 - 40) };
                    let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                    script.push(Step::Frame(peer, frames::data(Dir::FromAp, &BSSID, &da, &BSSID, seq, EtherType::IPV4, &payload)));
                }
            }
        }
        let mut expect = Vec::new();
        many.begin_batch();
        for st in &script {
            match st {
                Step::Frame(peer, m) => {
                    expect.push(one.protect(peer.as_ref(), m).ok());
                    assert!(many.send_protected(5, *peer, m.clone(), &mut counters, &mut out));
                    // Close and reopen batches at random points, as the live loops do.
                    if rng.gen_bool(close) {
                        many.end_batch(5, &mut counters, &mut out);
                        many.begin_batch();
                    }
                }
                Step::Rekey(p, id, s, k) => {
                    one.install(Some(*p), KeyType::Pairwise, *id, *s, k, None).unwrap();
                    many.keys().install(Some(*p), KeyType::Pairwise, *id, *s, k, None).unwrap();
                }
                Step::Gtk(id, k) => {
                    for e in [&mut one, many.keys()] {
                        e.install(None, KeyType::Group, *id, CipherSuite::Ccmp128, k, None).unwrap();
                        e.set_group_tx(*id).unwrap();
                    }
                }
            }
        }
        many.end_batch(5, &mut counters, &mut out);
        assert!(!many.batching());
        // What could not be protected is counted and dropped; the rest goes out in order.
        let failed = expect.iter().filter(|e| e.is_none()).count() as u64;
        let expect: Vec<Vec<u8>> = expect.into_iter().flatten().collect();
        assert_eq!(counters.dropped("protect failed"), failed, "round {round}");
        assert_eq!(counters.tx_air, expect.len() as u64, "round {round}");
        assert_eq!(out.air.len(), expect.len(), "round {round}");
        for (i, (g, e)) in out.air.iter().zip(&expect).enumerate() {
            assert!(g == e, "round {round}, frame {i}: batch and single-frame protection differ");
        }
        assert_eq!(one.stats.protected, many.engine_stats().protected);
    }
}

/// A batch protected for several stations verifies at each station's own engine, in
/// order; a tampered frame among them fails alone, and a replay of the batch fails.
#[test]
fn a_batch_verifies_at_the_receivers_and_replays_fail() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let suites = [CipherSuite::Ccmp128; 4];
    let (ap, _, peers, gtk) = engines(&mut rng, &suites);
    let mut ap = Datapath::new(ap, Offload::Host);
    let (mut counters, mut out) = (Counters::default(), Output::default());
    let mut rx: Vec<Engine> = peers
        .iter()
        .map(|(_, s, k)| {
            let mut e = Engine::new(Role::Supplicant);
            e.install(Some(BSSID), KeyType::Pairwise, 0, *s, k, None).unwrap();
            e.install(Some(BSSID), KeyType::Group, 1, CipherSuite::Ccmp128, &gtk, Some(0)).unwrap();
            e
        })
        .collect();
    ap.begin_batch();
    let mut sent = Vec::new();
    for seq in 0..64u16 {
        let i = rng.gen_range(0..peers.len());
        let payload: Vec<u8> = (0..rng.gen_range(0..1500)).map(|_| rng.gen()).collect();
        let m = frames::data(Dir::FromAp, &peers[i].0, &peers[i].0, &BSSID, seq, EtherType::IPV4, &payload);
        ap.send_protected(1, Some(peers[i].0), m.clone(), &mut counters, &mut out);
        sent.push((i, m));
    }
    assert!(out.air.is_empty(), "a batch goes out at its end");
    ap.end_batch(1, &mut counters, &mut out);
    assert_eq!(out.air.len(), sent.len());
    assert_eq!(counters.total_drops(), 0);
    let tampered = 17;
    for (n, (j, (i, plain))) in out.air.iter().zip(&sent).enumerate() {
        let mut f = j.clone();
        if n == tampered {
            let last = f.len() - 1;
            f[last] ^= 1;
            assert!(rx[*i].unprotect(2, &BSSID, &f).is_err(), "a flipped MIC bit must fail");
            continue;
        }
        let p = rx[*i].unprotect(2, &BSSID, &f).unwrap().unwrap();
        // The decrypted MPDU carries the plaintext body (the Protected bit and the CCMP
        // header removed).
        assert_eq!(&p[p.len() - (plain.len() - 24)..], &plain[24..]);
    }
    for (j, (i, _)) in out.air.iter().zip(&sent) {
        assert!(rx[*i].unprotect(3, &BSSID, j).is_err(), "a replayed frame must fail");
    }
}

/// The receive side of batches: frames opened ahead on a pool of threads
/// (`Engine::open_ahead_air`) and then handled in order, each with its own result
/// (`Engine::unprotect_opened`), give exactly the outcomes of one frame at a time: the same
/// plaintexts, and the same errors for replays (inside a batch and across batches),
/// forged MICs, truncated frames, unknown Key IDs and unknown stations, also when a
/// station's key changes in the middle of a batch whose frames were already opened.
#[test]
fn received_batches_opened_ahead_equal_one_frame_at_a_time() {
    enum Rx {
        Frame(Vec<u8>),
        Rekey(MacAddr, Vec<u8>),
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x0be7);
    for round in 0..12 {
        let n_sta = 5;
        let mut one = Engine::new(Role::Authenticator);
        let mut many = Engine::new(Role::Authenticator);
        many.set_parallel(wsec_live::runtime::crypto_threads([1, 2, 4][round % 3]).unwrap());
        let mut tx: Vec<(MacAddr, Engine)> = Vec::new();
        for i in 0..n_sta {
            let k = key(&mut rng, 16);
            let p = sta(i);
            for e in [&mut one, &mut many] {
                e.install(Some(p), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &k, None).unwrap();
            }
            let mut t = Engine::new(Role::Supplicant);
            t.install(Some(BSSID), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &k, None).unwrap();
            tx.push((p, t));
        }
        let mut script: Vec<Rx> = Vec::new();
        let mut sent: Vec<Vec<u8>> = Vec::new();
        for seq in 0..400u16 {
            let i = rng.gen_range(0..n_sta as usize);
            match rng.gen_range(0..100) {
                0 => {
                    // PTK rekey of station i: later frames use the new key; frames it sent
                    // before still in flight now fail.
                    let k = key(&mut rng, 16);
                    tx[i].1.install(Some(BSSID), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &k, None).unwrap();
                    script.push(Rx::Rekey(tx[i].0, k));
                }
                1..=8 if !sent.is_empty() => script.push(Rx::Frame(sent[rng.gen_range(0..sent.len())].clone())),
                9..=12 if !sent.is_empty() => {
                    let mut f = sent[rng.gen_range(0..sent.len())].clone();
                    let at = rng.gen_range(24..f.len());
                    f[at] ^= 1 << rng.gen_range(0..8);
                    script.push(Rx::Frame(f));
                }
                13..=14 if !sent.is_empty() => {
                    let f = &sent[rng.gen_range(0..sent.len())];
                    script.push(Rx::Frame(f[..rng.gen_range(0..f.len())].to_vec()));
                }
                15 => {
                    // A station the AP has no key for.
                    let mut t = Engine::new(Role::Supplicant);
                    t.install(Some(BSSID), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &key(&mut rng, 16), None).unwrap();
                    let m = frames::data(Dir::ToAp, &BSSID, &BSSID, &sta(99), seq, EtherType::IPV4, &[7; 40]);
                    script.push(Rx::Frame(t.protect(Some(&BSSID), &m).unwrap()));
                }
                _ => {
                    let len = rng.gen_range(0..1600);
                    let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                    let p = tx[i].0;
                    let m = frames::data(Dir::ToAp, &BSSID, &BSSID, &p, seq, EtherType::IPV4, &payload);
                    let f = tx[i].1.protect(Some(&BSSID), &m).unwrap();
                    sent.push(f.clone());
                    script.push(Rx::Frame(f));
                }
            }
        }
        let show = |r: wsec::Result<Option<Vec<u8>>>| r.map_err(|e| e.to_string());
        let ta = |f: &[u8]| -> MacAddr { f.get(10..16).map(|a| MacAddr::from_bytes(a).unwrap()).unwrap_or_default() };
        let mut expect = Vec::new();
        for st in &script {
            match st {
                Rx::Frame(f) => expect.push(show(one.unprotect(2, &ta(f), f))),
                Rx::Rekey(p, k) => one.install(Some(*p), KeyType::Pairwise, 0, CipherSuite::Ccmp128, k, None).unwrap(),
            }
        }
        let mut got = Vec::new();
        let mut at = 0;
        while at < script.len() {
            let end = (at + rng.gen_range(1..=64)).min(script.len());
            let batch = &script[at..end];
            let frames: Vec<&[u8]> = batch.iter().filter_map(|s| if let Rx::Frame(f) = s { Some(&f[..]) } else { None }).collect();
            let mut ahead = many.open_ahead_air(&frames).into_iter();
            for st in batch {
                match st {
                    Rx::Frame(f) => {
                        got.push(show(many.unprotect_opened(2, &ta(f), f, ahead.next().unwrap())));
                    }
                    Rx::Rekey(p, k) => many.install(Some(*p), KeyType::Pairwise, 0, CipherSuite::Ccmp128, k, None).unwrap(),
                }
            }
            at = end;
        }
        assert_eq!(got.len(), expect.len());
        let oks = expect.iter().filter(|e| e.is_ok()).count();
        let replays = expect.iter().filter(|e| matches!(e, Err(s) if s.contains("replay"))).count();
        assert!(oks > 200 && replays > 5, "round {round}: the script exercises accepts ({oks}) and replays ({replays})");
        for (i, (g, e)) in got.iter().zip(&expect).enumerate() {
            assert!(
                g == e,
                "round {round}, frame {i}: opened ahead {:?} vs one at a time {:?}",
                g.as_ref().map(|m| m.as_ref().map(|m| m.len())),
                e.as_ref().map(|m| m.as_ref().map(|m| m.len()))
            );
        }
        assert_eq!(one.stats.unprotected, many.stats.unprotected);
    }
}
