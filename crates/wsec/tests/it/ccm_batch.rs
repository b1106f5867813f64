//! Multi-buffer CCM (`kernel::seal_batch` / `open_batch`) against one message at a time on
//! the portable backend (RustCrypto `aes`), over thousands of random batches: different keys
//! (AES-128 and AES-256 mixed), nonces, AAD lengths (CCMP's 22-30 and others), tag lengths
//! and payload lengths, including tampered tags and ciphertexts.
use rand::{rngs::StdRng, Rng, RngCore, SeedableRng};
use wsec::cipher::kernel::{self, CcmJob, CcmKey};
use wsec::Error;

struct Msg {
    key: Vec<u8>,
    nonce: [u8; 13],
    aad: Vec<u8>,
    pt: Vec<u8>,
    m: usize,
}

fn random_msg(rng: &mut StdRng, big: bool) -> Msg {
    let key_len = if rng.gen_bool(0.8) { 16 } else { 32 };
    let mut key = vec![0u8; key_len];
    rng.fill_bytes(&mut key);
    let mut nonce = [0u8; 13];
    rng.fill_bytes(&mut nonce);
    let aad_len = match rng.gen_range(0..10) {
        0 => rng.gen_range(0..15),
        1 => rng.gen_range(31..80),
        _ => *[22usize, 24, 28, 30, 15, 16, 29].get(rng.gen_range(0..7)).unwrap(),
    };
    let mut aad = vec![0u8; aad_len];
    rng.fill_bytes(&mut aad);
    let len = match rng.gen_range(0..8) {
        0 => rng.gen_range(0..17),
        1 if big => rng.gen_range(2305..20000),
        _ => rng.gen_range(0..2305),
    };
    let mut pt = vec![0u8; len];
    rng.fill_bytes(&mut pt);
    let m = *[8usize, 16, 4, 8, 8, 16, 10].get(rng.gen_range(0..7)).unwrap();
    Msg { key, nonce, aad, pt, m }
}

fn reference_seal(msg: &Msg) -> (Vec<u8>, Vec<u8>) {
    let k = CcmKey::new_portable(&msg.key).unwrap();
    let mut ct = msg.pt.clone();
    let mut tag = vec![0u8; msg.m];
    k.seal_in_place(&msg.nonce, &msg.aad, &mut ct, &mut tag).unwrap();
    (ct, tag)
}

/// Every backend the CPU has, forced in turn: the batches of each backend's keys run on that
/// backend's multi-buffer kernel (counted, so a fallback to one at a time fails the test).
#[test]
fn seal_and_open_batches_match_one_at_a_time() {
    for b in kernel::Backend::available() {
        let runs = kernel::mb_runs(b);
        kernel::with_backend(b, || batches_on_current_backend(500)).unwrap();
        let runs = kernel::mb_runs(b) - runs;
        match b {
            kernel::Backend::Portable => assert_eq!(runs, 0),
            _ => assert!(runs > 500, "{b}: multi-buffer kernel ran {runs} times"),
        }
    }
}

/// ECCMP jobs in a batch (`CcmJob::with_lanes`): ECCMP-4 frames of one key go two to a
/// pass on AVX-512 and VAES-256 (`run_pair`, `run_pair_y`, counted), the rest one at a time; every result is the
/// portable `seal_lanes`/`open_lanes` one, whatever the mix of lane counts, keys, key
/// sizes, tag lengths and frame lengths (unequal partners, a frame alone, the step edges);
/// a forged frame fails alone and keeps its ciphertext.
#[test]
fn eccmp_batches_match_one_at_a_time() {
    for b in kernel::Backend::available() {
        // Eight ECCMP-4 frames of one key and nothing else: four pair passes to seal, and on
        // AVX-512 four to open (on 256-bit registers frames are opened one at a time).
        let expect = match b {
            kernel::Backend::Avx512 => 8,
            kernel::Backend::Vaes256 => 4,
            _ => 0,
        };
        let runs = kernel::mb_runs(b);
        kernel::with_backend(b, eight_eccmp4_frames_of_one_key).unwrap();
        assert_eq!(kernel::mb_runs(b) - runs, expect, "{b}: pair passes for eight ECCMP-4 frames sealed and opened");
        let runs = kernel::mb_runs(b);
        let pairs = kernel::with_backend(b, || eccmp_batches(300)).unwrap();
        let runs = kernel::mb_runs(b) - runs;
        if matches!(b, kernel::Backend::Avx512 | kernel::Backend::Vaes256) {
            assert!(pairs > 300 && runs >= pairs as u64, "{b}: {runs} multi-buffer runs for {pairs} possible pairs");
        }
    }
}

fn eight_eccmp4_frames_of_one_key() {
    let mut rng = StdRng::seed_from_u64(0xecc3_0008);
    let mut key = [0u8; 16];
    rng.fill_bytes(&mut key);
    let (k, portable) = (CcmKey::new(&key).unwrap(), CcmKey::new_portable(&key).unwrap());
    let aad = [0x5au8; 22];
    let frames: Vec<([u8; 13], Vec<u8>)> = (0..8)
        .map(|i| {
            let mut n = [0u8; 13];
            rng.fill_bytes(&mut n);
            let mut p = vec![0u8; [7535, 7535, 1500, 64, 0, 7535, 3000, 17][i]];
            rng.fill_bytes(&mut p);
            (n, p)
        })
        .collect();
    let mut bufs: Vec<Vec<u8>> = frames.iter().map(|f| f.1.clone()).collect();
    let mut tags = vec![[0u8; 8]; 8];
    let mut jobs: Vec<CcmJob> =
        frames.iter().zip(bufs.iter_mut().zip(tags.iter_mut())).map(|(f, (d, t))| CcmJob::new(&k, f.0, &aad, d, t).with_lanes(4)).collect();
    kernel::seal_batch(&mut jobs);
    drop(jobs);
    for (f, (d, t)) in frames.iter().zip(bufs.iter().zip(&tags)) {
        let (mut c, mut w) = (f.1.clone(), [0u8; 8]);
        portable.seal_lanes(4, &f.0, &aad, &mut c, &mut w).unwrap();
        assert!(c == *d && w == *t);
    }
    let mut jobs: Vec<CcmJob> =
        frames.iter().zip(bufs.iter_mut().zip(tags.iter_mut())).map(|(f, (d, t))| CcmJob::new(&k, f.0, &aad, d, t).with_lanes(4)).collect();
    kernel::open_batch(&mut jobs);
    assert!(jobs.iter().all(|j| j.status.is_ok()));
    drop(jobs);
    assert!(frames.iter().zip(&bufs).all(|(f, d)| f.1 == *d));
}

fn eccmp_batches(rounds: usize) -> usize {
    let mut rng = StdRng::seed_from_u64(0xecc3_ba7c);
    let lens = [0usize, 1, 15, 16, 17, 47, 48, 49, 63, 64, 65, 1500, 7935, 65535];
    let mut pairs = 0;
    for round in 0..rounds {
        let n = rng.gen_range(2..20);
        // Two keys of each size so that partners must share a schedule.
        let keys: Vec<Vec<u8>> = (0..4)
            .map(|i| {
                let mut k = vec![0u8; if i < 2 { 16 } else { 32 }];
                rng.fill_bytes(&mut k);
                k
            })
            .collect();
        let ks: Vec<CcmKey> = keys.iter().map(|k| CcmKey::new(k).unwrap()).collect();
        let portable: Vec<CcmKey> = keys.iter().map(|k| CcmKey::new_portable(k).unwrap()).collect();
        struct J {
            key: usize,
            lanes: usize,
            m: usize,
            nonce: [u8; 13],
            aad: Vec<u8>,
            pt: Vec<u8>,
        }
        let jobs: Vec<J> = (0..n)
            .map(|i| {
                let key = if round % 3 == 0 { 0 } else { rng.gen_range(0..4) };
                let lanes = *[4usize, 4, 4, 4, 8, 2, 1].get(rng.gen_range(0..7)).unwrap();
                let m = *[8usize, 8, 16, 4].get(rng.gen_range(0..4)).unwrap();
                let mut nonce = [0u8; 13];
                rng.fill_bytes(&mut nonce);
                let mut aad = vec![0u8; *[22usize, 24, 28, 30, 15].get(rng.gen_range(0..5)).unwrap()];
                rng.fill_bytes(&mut aad);
                let len = if (round + i) % 7 == 0 { lens[rng.gen_range(0..lens.len())] } else { rng.gen_range(0..9000) };
                let mut pt = vec![0u8; len];
                rng.fill_bytes(&mut pt);
                J { key, lanes, m, nonce, aad, pt }
            })
            .collect();
        let mut per_key = [0usize; 4];
        for j in jobs.iter().filter(|j| j.lanes == 4) {
            per_key[j.key] += 1;
        }
        pairs += per_key.iter().map(|c| c / 2).sum::<usize>();
        let want: Vec<(Vec<u8>, Vec<u8>)> = jobs
            .iter()
            .map(|j| {
                let (mut c, mut t) = (j.pt.clone(), vec![0u8; j.m]);
                portable[j.key].seal_lanes(j.lanes, &j.nonce, &j.aad, &mut c, &mut t).unwrap();
                (c, t)
            })
            .collect();
        let mut bufs: Vec<Vec<u8>> = jobs.iter().map(|j| j.pt.clone()).collect();
        let mut tags: Vec<Vec<u8>> = jobs.iter().map(|j| vec![0u8; j.m]).collect();
        {
            let mut batch: Vec<CcmJob> = jobs
                .iter()
                .zip(bufs.iter_mut().zip(tags.iter_mut()))
                .map(|(j, (d, t))| CcmJob::new(&ks[j.key], j.nonce, &j.aad, d, t).with_lanes(j.lanes as u8))
                .collect();
            kernel::seal_batch(&mut batch);
            assert!(batch.iter().all(|j| j.status.is_ok()));
        }
        for (i, (w, (d, t))) in want.iter().zip(bufs.iter().zip(&tags)).enumerate() {
            assert!(w.0 == *d && w.1 == *t, "round {round} job {i}: {} lanes, len {}", jobs[i].lanes, jobs[i].pt.len());
        }
        // Open, one forged tag.
        let bad = rng.gen_range(0..n);
        tags[bad][0] ^= 0x01;
        {
            let mut batch: Vec<CcmJob> = jobs
                .iter()
                .zip(bufs.iter_mut().zip(tags.iter_mut()))
                .map(|(j, (d, t))| CcmJob::new(&ks[j.key], j.nonce, &j.aad, d, t).with_lanes(j.lanes as u8))
                .collect();
            kernel::open_batch(&mut batch);
            for (i, j) in batch.iter().enumerate() {
                assert_eq!(j.status.is_err(), i == bad, "round {round} job {i}");
            }
            assert_eq!(batch[bad].status, Err(Error::MicFailure));
        }
        for (i, (j, d)) in jobs.iter().zip(&bufs).enumerate() {
            let expect = if i == bad { &want[i].0 } else { &j.pt };
            assert!(d == expect, "round {round} job {i}: opened (or kept) data, {} lanes", j.lanes);
        }
    }
    pairs
}

fn batches_on_current_backend(rounds: usize) {
    let mut rng = StdRng::seed_from_u64(0x5eed_0b47);
    let mut mb_lanes = 0usize;
    for round in 0..rounds {
        let n = match round % 5 {
            0 => rng.gen_range(1..4),
            1 => 8,
            2 => 16,
            _ => rng.gen_range(1..40),
        };
        let msgs: Vec<Msg> = (0..n).map(|_| random_msg(&mut rng, round % 50 == 0)).collect();
        let keys: Vec<CcmKey> = msgs.iter().map(|m| CcmKey::new(&m.key).unwrap()).collect();
        let expect: Vec<(Vec<u8>, Vec<u8>)> = msgs.iter().map(reference_seal).collect();

        // Seal.
        let mut bufs: Vec<Vec<u8>> = msgs.iter().map(|m| m.pt.clone()).collect();
        let mut tags: Vec<Vec<u8>> = msgs.iter().map(|m| vec![0u8; m.m]).collect();
        {
            let mut jobs: Vec<CcmJob> = msgs
                .iter()
                .zip(&keys)
                .zip(bufs.iter_mut().zip(tags.iter_mut()))
                .map(|((m, k), (b, t))| CcmJob::new(k, m.nonce, &m.aad, b, t))
                .collect();
            kernel::seal_batch(&mut jobs);
            for j in &jobs {
                assert!(j.status.is_ok(), "seal failed: {:?}", j.status);
            }
        }
        for (i, (b, t)) in bufs.iter().zip(&tags).enumerate() {
            assert_eq!(b, &expect[i].0, "round {round} msg {i}: ciphertext differs");
            assert_eq!(t, &expect[i].1, "round {round} msg {i}: tag differs");
            if (15..=30).contains(&msgs[i].aad.len()) {
                mb_lanes += 1;
            }
        }

        // Open, with some messages tampered (tag or ciphertext bit).
        let mut tampered = vec![false; n];
        for i in 0..n {
            if rng.gen_bool(0.25) {
                tampered[i] = true;
                if bufs[i].is_empty() || rng.gen_bool(0.5) {
                    let bit = rng.gen_range(0..8 * tags[i].len());
                    tags[i][bit / 8] ^= 1 << (bit % 8);
                } else {
                    let bit = rng.gen_range(0..8 * bufs[i].len());
                    bufs[i][bit / 8] ^= 1 << (bit % 8);
                }
            }
        }
        let before: Vec<Vec<u8>> = bufs.clone();
        {
            let mut jobs: Vec<CcmJob> = msgs
                .iter()
                .zip(&keys)
                .zip(bufs.iter_mut().zip(tags.iter_mut()))
                .map(|((m, k), (b, t))| CcmJob::new(k, m.nonce, &m.aad, b, t))
                .collect();
            kernel::open_batch(&mut jobs);
            for (i, j) in jobs.iter().enumerate() {
                if tampered[i] {
                    assert_eq!(j.status, Err(Error::MicFailure), "round {round} msg {i}: tampering accepted");
                } else {
                    assert_eq!(j.status, Ok(()), "round {round} msg {i}: genuine message refused");
                }
            }
        }
        for i in 0..n {
            if tampered[i] {
                assert_eq!(bufs[i], before[i], "a refused message must keep its ciphertext");
            } else {
                assert_eq!(bufs[i], msgs[i].pt, "round {round} msg {i}: plaintext differs");
            }
        }
    }
    assert!(mb_lanes > 6 * rounds, "too few messages took the interleaved path: {mb_lanes}");
}

#[test]
fn bad_arguments_are_reported_per_job() {
    let k = CcmKey::new(&[7u8; 16]).unwrap();
    let aad = [1u8; 24];
    let mut ok = vec![3u8; 100];
    let mut big = vec![0u8; 0x10000];
    let mut t1 = [0u8; 8];
    let mut t2 = [0u8; 8];
    let mut t3 = [0u8; 5];
    let mut odd = vec![0u8; 10];
    let mut jobs = vec![
        CcmJob::new(&k, [0; 13], &aad, &mut ok, &mut t1),
        CcmJob::new(&k, [0; 13], &aad, &mut big, &mut t2),
        CcmJob::new(&k, [0; 13], &aad, &mut odd, &mut t3),
    ];
    kernel::seal_batch(&mut jobs);
    assert_eq!(jobs[0].status, Ok(()));
    assert_eq!(jobs[1].status, Err(Error::Oversize));
    assert!(matches!(jobs[2].status, Err(Error::Malformed(_))));
    assert!(big.iter().all(|&b| b == 0), "a refused job must be left untouched");
    assert_eq!(odd, vec![0u8; 10]);
}

/// "serial" is accepted only where the CPU has no AES-NI; elsewhere the
/// batch path is the multi-buffer kernel of the fastest backend (checked against CPUID here).
#[test]
fn batch_backend_is_the_fastest_multi_buffer_kernel() {
    let b = kernel::batch_backend();
    let want = kernel::Backend::detected().batch_name();
    if std::env::var_os(kernel::BACKEND_ENV).is_none() {
        assert_eq!(b, want);
    }
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as f;
        let expect = if f!("avx512f") && f!("avx512vl") && f!("avx512bw") && f!("vaes") && f!("vpclmulqdq") && f!("avx2") {
            "avx512-mb8"
        } else if f!("avx2") && f!("vaes") && f!("vpclmulqdq") {
            "vaes256-mb8"
        } else if f!("aes") && f!("pclmulqdq") && f!("sse4.1") {
            "aesni-mb4"
        } else {
            "serial"
        };
        assert_eq!(want, expect);
    }
}

use crate::common;
use common::frames::random_mpdu;
use wsec::cipher::ccmp::{decapsulate_batch, encapsulate_batch, Ccmp, RxItem, TxItem};
use wsec::cipher::Protection;

/// MPDU-level batches (random frame types, both CCMP suites, tampered and malformed frames
/// mixed in) equal one frame at a time through `Protection`.
#[test]
fn mpdu_batches_match_one_frame_at_a_time() {
    let mut rng = StdRng::seed_from_u64(0x000b_a7c4);
    for round in 0..300 {
        let n = rng.gen_range(1..30);
        let keys: Vec<Ccmp> = (0..n)
            .map(|_| {
                let mut k = vec![0u8; if rng.gen_bool(0.8) { 16 } else { 32 }];
                rng.fill_bytes(&mut k);
                Ccmp::new(&k).unwrap()
            })
            .collect();
        let frames: Vec<Vec<u8>> = (0..n)
            .map(|_| {
                let mut f = random_mpdu(&mut rng);
                if rng.gen_bool(0.05) {
                    f.truncate(rng.gen_range(0..f.len().min(24)));
                }
                f
            })
            .collect();
        let pns: Vec<u64> = (0..n).map(|_| rng.gen::<u64>() & 0xffff_ffff_ffff).collect();
        let mut tx: Vec<TxItem> = (0..n)
            .map(|i| TxItem {
                key: (&keys[i]).into(),
                mpdu: &frames[i],
                pn: pns[i],
                key_id: (i % 4) as u8,
                out: Vec::new(),
                status: Ok(()),
            })
            .collect();
        encapsulate_batch(&mut tx);
        let mut prot = Vec::new();
        for (i, t) in tx.iter().enumerate() {
            let mut one = Vec::new();
            let r = keys[i].encapsulate(&frames[i], pns[i], (i % 4) as u8, &mut one);
            assert_eq!(t.status, r, "round {round} frame {i}");
            assert_eq!(t.out, one, "round {round} frame {i}");
            let mut p = t.out.clone();
            if !p.is_empty() && rng.gen_bool(0.2) {
                let b = rng.gen_range(0..p.len());
                p[b] ^= 1 << rng.gen_range(0..8);
            }
            prot.push(p);
        }
        let mut rx: Vec<RxItem> =
            (0..n).map(|i| RxItem { key: (&keys[i]).into(), mpdu: &prot[i], out: Vec::new(), result: Err(Error::Truncated) }).collect();
        decapsulate_batch(&mut rx);
        for (i, r) in rx.iter().enumerate() {
            let mut one = Vec::new();
            let want = keys[i].decapsulate(&prot[i], &mut one);
            assert_eq!(r.result, want, "round {round} frame {i}");
            assert_eq!(r.out, one, "round {round} frame {i}");
        }
    }
}
