//! The host crypto engine's batch path (CCMP through the multi-buffer kernel) against its
//! one-frame path: same bytes, same PNs, same errors, for mixed peers, group frames,
//! GCMP and TKIP peers (which take the one-frame path inside a batch) and bad frames.
use rand::{rngs::StdRng, Rng, RngCore, SeedableRng};
use wsec::cipher::CipherSuite;
use wsec::link::sa::{KeyType, Role};
use wsec::node::engine::{Engine, Offload, TxJob};
use wsec::wire::MacAddr;

const AP: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 1]);

fn peer(i: u8) -> MacAddr {
    MacAddr([0x02, 0, 0, 0, 1, i])
}

fn engine(keys: &[(u8, CipherSuite, Vec<u8>)], gtk: &[u8]) -> Engine {
    let mut e = Engine::new(Role::Authenticator, Offload::Host);
    for (i, c, k) in keys {
        e.install(Some(peer(*i)), KeyType::Pairwise, 0, *c, k, None).unwrap();
    }
    e.install(None, KeyType::Group, 1, CipherSuite::Ccmp128, gtk, None).unwrap();
    e.set_group_tx(1).unwrap();
    e
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
    let suites =
        [CipherSuite::Ccmp128, CipherSuite::Ccmp128, CipherSuite::Ccmp256, CipherSuite::Gcmp128, CipherSuite::Tkip, CipherSuite::Ccmp128];
    let keys: Vec<(u8, CipherSuite, Vec<u8>)> = suites
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut k = vec![0u8; c.key_len()];
            rng.fill_bytes(&mut k);
            (i as u8, *c, k)
        })
        .collect();
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
                    (Some(peer(9)), peer(9))
                } else {
                    let i = rng.gen_range(0..suites.len() as u8);
                    (Some(peer(i)), peer(i))
                };
                let len = rng.gen_range(0..2000);
                let mut f = frame(&mut rng, da, len);
                if rng.gen_bool(0.03) {
                    f.truncate(10);
                }
                TxJob { peer: p, mpdu: f, result: Ok(()), ready_at: 0 }
            })
            .collect();
        let want: Vec<Result<Vec<u8>, wsec::Error>> =
            jobs.iter().map(|j| one.protect(0, j.peer.as_ref(), &j.mpdu).map(|(m, _)| m)).collect();
        bat.protect_batch(0, &mut jobs);
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
