//! The host engine's batch mode (`Engine::begin_batch` / `queue` / `end_batch`, the
//! multi-buffer pass the live programs use) against one frame at a time
//! (`Engine::protect`): byte for byte the same MPDUs, in the same order, also when keys
//! change in the middle of a batch; and what a receiver's engine accepts.
use rand::{Rng, SeedableRng};
use wsec::cipher::CipherSuite;
use wsec::link::sa::{KeyType, Role};
use wsec::node::engine::Engine;
use wsec::node::frames::{self, Dir};
use wsec::node::Offload;

const BSSID: [u8; 6] = [0x02, 0, 0, 0, 0, 0xaa];

fn sta(i: u8) -> [u8; 6] {
    [0x02, 0, 0, 0, 1, i]
}

fn key(rng: &mut impl Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.gen()).collect()
}

enum Step {
    Frame(Option<[u8; 6]>, Vec<u8>),
    /// A new pairwise key for a station (a PTK rekey) in the middle of the traffic.
    Rekey([u8; 6], u8, CipherSuite, Vec<u8>),
    /// A new GTK and the switch to it.
    Gtk(u8, Vec<u8>),
}

fn engines(
    rng: &mut impl Rng,
    suites: &[CipherSuite],
) -> (
    Engine,
    Engine,
    Vec<([u8; 6], CipherSuite, Vec<u8>)>,
    Vec<u8>,
) {
    let mut a = Engine::new(Role::Authenticator, Offload::Host);
    let mut b = Engine::new(Role::Authenticator, Offload::Host);
    let gtk = key(rng, 16);
    a.install(None, KeyType::Group, 1, CipherSuite::Ccmp128, &gtk, None)
        .unwrap();
    b.install(None, KeyType::Group, 1, CipherSuite::Ccmp128, &gtk, None)
        .unwrap();
    let mut peers = Vec::new();
    for (i, &s) in suites.iter().enumerate() {
        let k = key(rng, s.key_len());
        let p = sta(i as u8);
        a.install(Some(p), KeyType::Pairwise, 0, s, &k, None)
            .unwrap();
        b.install(Some(p), KeyType::Pairwise, 0, s, &k, None)
            .unwrap();
        peers.push((p, s, k));
    }
    (a, b, peers, gtk)
}

#[test]
fn batches_equal_one_frame_at_a_time_byte_for_byte() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xba7c);
    let suites = [
        CipherSuite::Ccmp128,
        CipherSuite::Ccmp256,
        CipherSuite::Gcmp128,
        CipherSuite::Tkip,
        CipherSuite::Ccmp128,
        CipherSuite::Ccmp128,
    ];
    for round in 0..40 {
        let (mut one, mut many, peers, _) = engines(&mut rng, &suites);
        // A random script of frames (unicast to known and unknown stations, group) and,
        // now and then, key changes.
        let mut script = Vec::new();
        for seq in 0..rng.gen_range(1..80u16) {
            match rng.gen_range(0..40) {
                0 => {
                    let (p, s, _) = &peers[rng.gen_range(0..peers.len())];
                    script.push(Step::Rekey(
                        *p,
                        rng.gen_range(0..2),
                        *s,
                        key(&mut rng, s.key_len()),
                    ));
                }
                1 => script.push(Step::Gtk(rng.gen_range(1..4), key(&mut rng, 16))),
                r => {
                    let peer = match r % 4 {
                        0 => None,
                        1 => Some(sta(200)), // no pairwise key: the group key protects it
                        _ => Some(peers[rng.gen_range(0..peers.len())].0),
                    };
                    let da = peer.unwrap_or([0xff; 6]);
                    let len = if rng.gen_bool(0.3) {
                        rng.gen_range(0..64)
                    } else {
                        rng.gen_range(0..2304 - 40)
                    };
                    let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                    script.push(Step::Frame(
                        peer,
                        frames::data(Dir::FromAp, &BSSID, &da, &BSSID, seq, 0x0800, &payload),
                    ));
                }
            }
        }
        let mut expect = Vec::new();
        let mut got = Vec::new();
        many.begin_batch();
        for st in &script {
            match st {
                Step::Frame(peer, m) => {
                    expect.push(
                        one.protect(5, peer.as_ref(), m)
                            .map(|(f, _)| f)
                            .map_err(|e| e.to_string()),
                    );
                    many.queue(5, *peer, m.clone());
                    // Close and reopen batches at random points, as the live loops do.
                    if rng.gen_bool(0.1) {
                        got.extend(many.end_batch());
                        many.begin_batch();
                    }
                }
                Step::Rekey(p, id, s, k) => {
                    one.install(Some(*p), KeyType::Pairwise, *id, *s, k, None)
                        .unwrap();
                    many.install(Some(*p), KeyType::Pairwise, *id, *s, k, None)
                        .unwrap();
                }
                Step::Gtk(id, k) => {
                    for e in [&mut one, &mut many] {
                        e.install(None, KeyType::Group, *id, CipherSuite::Ccmp128, k, None)
                            .unwrap();
                        e.set_group_tx(*id).unwrap();
                    }
                }
            }
        }
        got.extend(many.end_batch());
        assert!(!many.batching());
        let got: Vec<_> = got
            .into_iter()
            .map(|j| j.result.map(|()| j.mpdu).map_err(|e| e.to_string()))
            .collect();
        assert_eq!(got.len(), expect.len(), "round {round}");
        for (i, (g, e)) in got.iter().zip(&expect).enumerate() {
            assert!(
                g == e,
                "round {round}, frame {i}: batch and single-frame protection differ"
            );
        }
        assert_eq!(one.stats.protected, many.stats.protected);
    }
}

/// A batch protected for several stations verifies at each station's own engine, in
/// order; a tampered frame among them fails alone, and a replay of the batch fails.
#[test]
fn a_batch_verifies_at_the_receivers_and_replays_fail() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let suites = [CipherSuite::Ccmp128; 4];
    let (mut ap, _, peers, gtk) = engines(&mut rng, &suites);
    let mut rx: Vec<Engine> = peers
        .iter()
        .map(|(_, s, k)| {
            let mut e = Engine::new(Role::Supplicant, Offload::Host);
            e.install(Some(BSSID), KeyType::Pairwise, 0, *s, k, None)
                .unwrap();
            e.install(
                Some(BSSID),
                KeyType::Group,
                1,
                CipherSuite::Ccmp128,
                &gtk,
                Some(0),
            )
            .unwrap();
            e
        })
        .collect();
    ap.begin_batch();
    let mut sent = Vec::new();
    for seq in 0..64u16 {
        let i = rng.gen_range(0..peers.len());
        let payload: Vec<u8> = (0..rng.gen_range(0..1500)).map(|_| rng.gen()).collect();
        let m = frames::data(
            Dir::FromAp,
            &peers[i].0,
            &peers[i].0,
            &BSSID,
            seq,
            0x0800,
            &payload,
        );
        ap.queue(1, Some(peers[i].0), m.clone());
        sent.push((i, m));
    }
    let out = ap.end_batch();
    assert_eq!(out.len(), sent.len());
    let tampered = 17;
    for (n, (j, (i, plain))) in out.iter().zip(&sent).enumerate() {
        assert!(j.result.is_ok());
        let mut f = j.mpdu.clone();
        if n == tampered {
            let last = f.len() - 1;
            f[last] ^= 1;
            assert!(
                rx[*i].unprotect(2, &BSSID, &f).is_err(),
                "a flipped MIC bit must fail"
            );
            continue;
        }
        let (p, _) = rx[*i].unprotect(2, &BSSID, &f).unwrap();
        let p = p.unwrap();
        // The decrypted MPDU carries the plaintext body (the Protected bit and the CCMP
        // header removed).
        assert_eq!(&p[p.len() - (plain.len() - 24)..], &plain[24..]);
    }
    for (j, (i, _)) in out.iter().zip(&sent) {
        assert!(
            rx[*i].unprotect(3, &BSSID, &j.mpdu).is_err(),
            "a replayed frame must fail"
        );
    }
}
