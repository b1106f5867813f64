//! The FT key hierarchy against an independent computation written here from the text of
//! IEEE 802.11-2020 12.7.1.6.3-5 and 12.7.1.7.2 with `hmac`/`sha2` directly (no public
//! FT vector was found), for FT-PSK (SHA-256) and FT-802.1X-SHA384.
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256, Sha384};
use wsec::cipher::CipherSuite;
use wsec::rsn::akm::Akm;
use wsec::rsn::ft::{derive_ft_ptk, derive_pmk_r0, derive_pmk_r1};

/// KDF-Hash-Length: HMAC(K, i_LE16 || Label || Context || Length_LE16) for i = 1, 2, ...
fn kdf(sha384: bool, k: &[u8], label: &str, ctx: &[u8], bits: u16) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i: u16 = 1;
    while out.len() < bits as usize / 8 {
        let mut input = i.to_le_bytes().to_vec();
        input.extend(label.as_bytes());
        input.extend(ctx);
        input.extend(bits.to_le_bytes());
        if sha384 {
            let mut m = <Hmac<Sha384> as Mac>::new_from_slice(k).unwrap();
            m.update(&input);
            out.extend(m.finalize().into_bytes());
        } else {
            let mut m = <Hmac<Sha256> as Mac>::new_from_slice(k).unwrap();
            m.update(&input);
            out.extend(m.finalize().into_bytes());
        }
        i += 1;
    }
    out.truncate(bits as usize / 8);
    out
}

fn h128(sha384: bool, parts: &[&[u8]]) -> Vec<u8> {
    let all: Vec<u8> = parts.concat();
    if sha384 {
        Sha384::digest(&all)[..16].to_vec()
    } else {
        Sha256::digest(&all)[..16].to_vec()
    }
}

#[test]
fn ft_hierarchy_matches_independent_computation() {
    let ssid = b"wsec-ft";
    let mdid = [0xa1, 0xb2];
    let r0kh = b"r0kh.example.net";
    let spa = [0x02, 0, 0, 0, 0, 0x10];
    let r1kh = [0x02, 0, 0, 0, 0, 0x20];
    let bssid = [0x02, 0, 0, 0, 0, 0x30];
    let (an, sn) = ([0x11u8; 32], [0x22u8; 32]);
    for (akm, sha384, xxlen, cipher) in [
        (Akm::FtPsk, false, 32, CipherSuite::Ccmp128),
        (Akm::FtSae, false, 32, CipherSuite::Gcmp256),
        (Akm::FtIeee8021xSha384, true, 48, CipherSuite::Gcmp256),
    ] {
        let xx: Vec<u8> = (0..xxlen as u8).collect();
        let q = if sha384 { 48 } else { 32 };
        let mut ctx = vec![ssid.len() as u8];
        ctx.extend(ssid);
        ctx.extend(mdid);
        ctx.push(r0kh.len() as u8);
        ctx.extend(r0kh);
        ctx.extend(spa);
        let r0data = kdf(sha384, &xx, "FT-R0", &ctx, ((q + 16) * 8) as u16);
        let r0name = h128(sha384, &[b"FT-R0N", &r0data[q..]]);
        let r1 = kdf(sha384, &r0data[..q], "FT-R1", &[&r1kh[..], &spa[..]].concat(), (q * 8) as u16);
        let r1name = h128(sha384, &[b"FT-R1N", &r0name, &r1kh, &spa]);
        let tk_len = cipher.key_len();
        let (kck, kek) = if sha384 { (24, 32) } else { (16, 16) };
        let ptk = kdf(sha384, &r1, "FT-PTK", &[&sn[..], &an[..], &bssid[..], &spa[..]].concat(), ((kck + kek + tk_len) * 8) as u16);

        let w0 = derive_pmk_r0(akm, &xx, ssid, mdid, r0kh, spa).unwrap();
        assert_eq!(&w0.key[..], &r0data[..q], "{akm} PMK-R0");
        assert_eq!(&w0.name[..], &r0name[..], "{akm} PMKR0Name");
        let w1 = derive_pmk_r1(akm, &w0, r1kh, spa).unwrap();
        assert_eq!(&w1.key[..], &r1[..], "{akm} PMK-R1");
        assert_eq!(&w1.name[..], &r1name[..], "{akm} PMKR1Name");
        let p = derive_ft_ptk(akm, &w1, &sn, &an, bssid, spa, cipher, 0).unwrap();
        assert_eq!(p.kck(), &ptk[..kck]);
        assert_eq!(p.kek(), &ptk[kck..kck + kek]);
        assert_eq!(p.tk(), &ptk[kck + kek..]);
    }
    assert!(derive_pmk_r0(Akm::Psk, &[0; 32], b"x", mdid, r0kh, spa).is_err());
    assert!(derive_pmk_r0(Akm::FtPsk, &[0; 32], &[0; 33], mdid, r0kh, spa).is_err());
}
