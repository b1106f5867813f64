//! The host engine's batched receive (`Engine::open_ahead_air` on two threads, then
//! `unprotect_opened` in order, each frame with its own result) against one frame at a time, on scripts the input
//! drives: valid CCMP frames from three stations, replays of earlier frames, bit flips,
//! truncations, raw bytes and PTK rekeys in the middle of a batch. No panic, and the same
//! outcome (plaintext or error) for every frame.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::cipher::CipherSuite;
use wsec::link::sa::{KeyType, Role};
use wsec::node::engine::Engine;
use wsec::node::frames::{self, Dir};
use wsec::wire::{EtherType, MacAddr};

const AP: MacAddr = MacAddr([2, 0, 0, 0, 0, 1]);

enum Step {
    Frame(Vec<u8>),
    Rekey(usize, [u8; 16]),
}

fn sta(i: usize) -> MacAddr {
    MacAddr([2, 0, 0, 0, 1, i as u8])
}

fuzz_target!(|data: &[u8]| {
    let mut one = Engine::new(Role::Authenticator);
    let mut many = Engine::new(Role::Authenticator);
    many.set_parallel(wsec_live::runtime::crypto_threads(2).expect("threads"));
    let mut tx: Vec<Engine> = Vec::new();
    for i in 0..3 {
        let k = [i as u8 + 1; 16];
        one.install(Some(sta(i)), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &k, None).expect("key");
        many.install(Some(sta(i)), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &k, None).expect("key");
        let mut t = Engine::new(Role::Supplicant);
        t.install(Some(AP), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &k, None).expect("key");
        tx.push(t);
    }
    let mut script = Vec::new();
    let mut sent: Vec<Vec<u8>> = Vec::new();
    let mut cuts = Vec::new();
    let mut it = data.chunks(3);
    let mut seq = 0u16;
    while let Some(&[op, a, b]) = it.next() {
        let i = (a % 3) as usize;
        match op % 8 {
            0..=2 => {
                seq = seq.wrapping_add(1);
                let payload = vec![b; (a as usize) * 7];
                let m = frames::data(Dir::ToAp, &AP, &AP, &sta(i), seq, EtherType::IPV4, &payload);
                let f = tx[i].protect(Some(&AP), &m).expect("protect");
                sent.push(f.clone());
                script.push(Step::Frame(f));
            }
            3 if !sent.is_empty() => script.push(Step::Frame(sent[b as usize % sent.len()].clone())),
            4 if !sent.is_empty() => {
                let mut f = sent[b as usize % sent.len()].clone();
                let at = a as usize % f.len();
                f[at] ^= 1 << (b % 8);
                script.push(Step::Frame(f));
            }
            5 if !sent.is_empty() => {
                let f = &sent[b as usize % sent.len()];
                script.push(Step::Frame(f[..(a as usize).min(f.len())].to_vec()));
            }
            6 => {
                let k = [b | 0x80; 16]; // never all-zero (the engine refuses that key)
                tx[i].install(Some(AP), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &k, None).expect("key");
                script.push(Step::Rekey(i, k));
            }
            7 => cuts.push(script.len()),
            _ => script.push(Step::Frame(vec![a, b, op])),
        }
    }
    let ta = |f: &[u8]| -> MacAddr { f.get(10..16).map(|a| MacAddr::from_bytes(a).expect("6")).unwrap_or_default() };
    let show = |r: wsec::Result<Option<Vec<u8>>>| r.map_err(|e| e.to_string());
    let mut want = Vec::new();
    for s in &script {
        match s {
            Step::Frame(f) => want.push(show(one.unprotect(0, &ta(f), f))),
            Step::Rekey(i, k) => one.install(Some(sta(*i)), KeyType::Pairwise, 0, CipherSuite::Ccmp128, k, None).expect("key"),
        }
    }
    cuts.push(script.len());
    let mut got = Vec::new();
    let mut at = 0;
    for end in cuts {
        if end <= at {
            continue;
        }
        let batch = &script[at..end];
        let fs: Vec<&[u8]> = batch.iter().filter_map(|s| if let Step::Frame(f) = s { Some(&f[..]) } else { None }).collect();
        let mut ahead = many.open_ahead_air(&fs).into_iter();
        for s in batch {
            match s {
                Step::Frame(f) => {
                    got.push(show(many.unprotect_opened(0, &ta(f), f, ahead.next().flatten())));
                }
                Step::Rekey(i, k) => many.install(Some(sta(*i)), KeyType::Pairwise, 0, CipherSuite::Ccmp128, k, None).expect("key"),
            }
        }
        at = end;
    }
    assert_eq!(got, want);
});
