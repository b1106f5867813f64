//! The host crypto engine's batch path (CCMP and ECCMP through the multi-buffer kernels)
//! against its one-frame path: same bytes, same PNs, same errors, for mixed peers, group
//! frames, GCMP and TKIP peers (which take the one-frame path inside a batch) and bad
//! frames; on receive, the frames opened ahead against those opened one at a time.
//! And the data path's card model: a batch is ready when one frame at a time would be.
use rand::{rngs::StdRng, Rng, RngCore, SeedableRng};
use wsec::cipher::CipherSuite;
use wsec::link::sa::{KeyType, Role};
use wsec::node::datapath::Datapath;
use wsec::node::engine::{Engine, TxJob};
use wsec::node::{Counters, Offload, Output};
use wsec::wire::MacAddr;

const AP: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 1]);

fn peer(i: u8) -> MacAddr {
    MacAddr([0x02, 0, 0, 0, 1, i])
}

fn engine(keys: &[(u8, CipherSuite, Vec<u8>)], gtk: &[u8]) -> Engine {
    let mut e = Engine::new(Role::Authenticator);
    for (i, c, k) in keys {
        e.install(Some(peer(*i)), KeyType::Pairwise, 0, *c, k, None).unwrap();
    }
    e.install(None, KeyType::Group, 1, CipherSuite::Ccmp128, gtk, None).unwrap();
    e.set_group_tx(1).unwrap();
    e
}

/// A random key for peer `i` of each suite `suites[i]`.
fn random_keys(rng: &mut StdRng, suites: &[CipherSuite]) -> Vec<(u8, CipherSuite, Vec<u8>)> {
    suites
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut k = vec![0u8; c.key_len()];
            rng.fill_bytes(&mut k);
            (i as u8, *c, k)
        })
        .collect()
}

fn frame(rng: &mut StdRng, da: MacAddr, len: usize) -> Vec<u8> {
    let mut f = vec![0x08, 0x02, 0, 0];
    f.extend(da.0);
    f.extend(AP.0);
    f.extend(AP.0);
    f.extend([0x10, 0x00]);
    f.extend([0xaa, 0xaa, 3, 0, 0, 0, 0x08, 0x00]);
    let mut b = vec![0u8; len];
    rng.fill_bytes(&mut b);
    f.extend(b);
    f
}

#[test]
fn batch_equals_one_frame_at_a_time() {
    let mut rng = StdRng::seed_from_u64(0xe9_61e);
    let suites = [
        CipherSuite::Ccmp128,
        CipherSuite::Ccmp128,
        CipherSuite::Ccmp256,
        CipherSuite::Gcmp128,
        CipherSuite::Tkip,
        CipherSuite::Ccmp128,
        CipherSuite::Eccmp4,
        CipherSuite::Eccmp4,
        CipherSuite::Eccmp8,
        CipherSuite::Eccmp2,
    ];
    let keys = random_keys(&mut rng, &suites);
    let gtk = [0x5au8; 16];
    let mut one = engine(&keys, &gtk);
    let mut bat = engine(&keys, &gtk);
    for round in 0..200 {
        let n = rng.gen_range(1..40);
        let mut jobs: Vec<TxJob> = (0..n)
            .map(|_| {
                let r = rng.gen_range(0..10);
                let (p, da) = if r == 0 {
                    (None, MacAddr::BROADCAST)
                } else if r == 1 {
                    (Some(peer(29)), peer(29))
                } else {
                    let i = rng.gen_range(0..suites.len() as u8);
                    (Some(peer(i)), peer(i))
                };
                let len = rng.gen_range(0..2000);
                let mut f = frame(&mut rng, da, len);
                if rng.gen_bool(0.03) {
                    f.truncate(10);
                }
                TxJob { peer: p, mpdu: f, result: Ok(()) }
            })
            .collect();
        let want: Vec<Result<Vec<u8>, wsec::Error>> = jobs.iter().map(|j| one.protect(j.peer.as_ref(), &j.mpdu)).collect();
        bat.protect_batch(&mut jobs);
        for (k, (j, w)) in jobs.iter().zip(&want).enumerate() {
            match w {
                Ok(m) => {
                    assert_eq!(j.result, Ok(()), "round {round} job {k}");
                    assert_eq!(&j.mpdu, m, "round {round} job {k}");
                }
                Err(e) => assert_eq!(j.result.as_ref().err(), Some(e), "round {round} job {k}"),
            }
        }
    }
    assert_eq!(one.stats.protected, bat.stats.protected);
}

/// Receive: ECCMP and CCMP frames from several stations opened ahead in one batch
/// ([`Engine::open_ahead_air`], ECCMP-4 frames of one station two to a pass) and then
/// accepted in order give what one-at-a-time unprotect gives, forged and replayed frames
/// included; and the batch path did run (the engine's open counters).
#[test]
fn open_ahead_equals_one_frame_at_a_time() {
    let mut rng = StdRng::seed_from_u64(0x0be7_a4ead);
    let suites = [CipherSuite::Eccmp4, CipherSuite::Eccmp4, CipherSuite::Ccmp128, CipherSuite::Eccmp8, CipherSuite::Eccmp2];
    let keys = random_keys(&mut rng, &suites);
    // Each station's own engine protects its uplink frames.
    let mut stas: Vec<Engine> = keys
        .iter()
        .map(|(_, c, k)| {
            let mut e = Engine::new(Role::Supplicant);
            e.install(Some(AP), KeyType::Pairwise, 0, *c, k, None).unwrap();
            e
        })
        .collect();
    let mut one = engine(&keys, &[0x11; 16]);
    let mut bat = engine(&keys, &[0x11; 16]);
    let (mut opened, mut refused) = (0, 0);
    for round in 0..100 {
        let n = rng.gen_range(1..40);
        let mut up: Vec<(MacAddr, Vec<u8>)> = (0..n)
            .map(|_| {
                let i = rng.gen_range(0..suites.len());
                let mut f = vec![0x08, 0x01, 0, 0];
                f.extend(AP.0);
                f.extend(peer(i as u8).0);
                f.extend(AP.0);
                f.extend([0x10, 0x00]);
                f.extend([0xaa, 0xaa, 3, 0, 0, 0, 0x08, 0x00]);
                let len = if rng.gen_bool(0.3) { 7535 } else { rng.gen_range(0..2000) };
                let mut b = vec![0u8; len];
                rng.fill_bytes(&mut b);
                f.extend(b);
                (peer(i as u8), stas[i].protect(Some(&AP), &f).unwrap())
            })
            .collect();
        // A forged frame and a replay now and then.
        if round % 3 == 0 {
            let k = rng.gen_range(0..n);
            let l = up[k].1.len();
            up[k].1[l - 1] ^= 0x40;
        }
        if round % 4 == 1 {
            let dup = up[0].clone();
            up.push(dup);
        }
        let refs: Vec<&[u8]> = up.iter().map(|(_, f)| &f[..]).collect();
        let ahead = bat.open_ahead_air(&refs);
        for (k, ((ta, f), a)) in up.iter().zip(ahead).enumerate() {
            assert!(a.is_some(), "round {round} frame {k}: every CCMP/ECCMP frame is opened ahead");
            let want = one.unprotect(0, ta, f);
            let got = bat.unprotect_opened(0, ta, f, a);
            assert_eq!(got, want, "round {round} frame {k}");
            if want.is_ok() {
                opened += 1;
            } else {
                refused += 1;
            }
        }
    }
    let st = bat.stats();
    assert!(opened > 1000 && refused > 40, "{opened} opened, {refused} refused");
    assert_eq!(st.open_batch_frames as usize, opened + refused);
}

/// The card model is one FIFO server: frames handed to it in a batch are served in queue
/// order, whichever of them went through the multi-buffer CCMP pass and whichever (TKIP,
/// GCMP) one at a time, so each is ready exactly when it would have been sent one by
/// one; the frames reach the medium in the same order at the same times.
#[test]
fn card_model_serves_a_batch_as_one_frame_at_a_time() {
    let mut rng = StdRng::seed_from_u64(0xca7d);
    let suites = [CipherSuite::Ccmp128, CipherSuite::Tkip, CipherSuite::Gcmp128, CipherSuite::Ccmp128];
    let keys = random_keys(&mut rng, &suites);
    let gtk = [0x3cu8; 16];
    let card = Offload::Card { ns_per_frame: 5_000, ns_per_byte: 7 };
    let mut one = Datapath::new(engine(&keys, &gtk), card);
    let mut bat = Datapath::new(engine(&keys, &gtk), card);
    let (mut c1, mut c2) = (Counters::default(), Counters::default());
    let (mut o1, mut o2) = (Output::default(), Output::default());
    let mut now = 1_000_000;
    for round in 0..20 {
        let frames: Vec<(Option<MacAddr>, Vec<u8>)> = (0..rng.gen_range(1..60))
            .map(|_| {
                let (p, da) = if rng.gen_range(0..8) == 0 {
                    (None, MacAddr::BROADCAST)
                } else {
                    let i = rng.gen_range(0..suites.len() as u8);
                    (Some(peer(i)), peer(i))
                };
                let len = rng.gen_range(0..1500);
                (p, frame(&mut rng, da, len))
            })
            .collect();
        bat.begin_batch();
        for (p, f) in &frames {
            assert!(one.send_protected(now, *p, f.clone(), &mut c1, &mut o1));
            assert!(bat.send_protected(now, *p, f.clone(), &mut c2, &mut o2));
        }
        bat.end_batch(now, &mut c2, &mut o2);
        // Step through time: the same frames come out at the same moments.
        while let Some(t) = one.next_release() {
            assert_eq!(bat.next_release(), Some(t), "round {round}");
            now = now.max(t);
            one.release(now, &mut o1);
            bat.release(now, &mut o2);
            assert_eq!(o1.air, o2.air, "round {round} at {now}");
        }
        assert_eq!(bat.next_release(), None);
        now += rng.gen_range(0..200_000);
    }
    assert_eq!(c1, c2);
    assert_eq!(one.card().busy_ns(), bat.card().busy_ns());
    assert!(one.card().busy_ns() > 0 && c1.tx_air > 100);
}
