//! Handshakes nobody here produced: for every capture in testdata/captures with a known
//! passphrase, the PTK wsec derives verifies the MICs of the captured EAPOL-Key messages
//! 2, 3 and 4, and the GTK it takes from message 3 (or from the group key handshake, in
//! WPA1) decrypts that capture's group-addressed traffic.
use crate::common;
use std::collections::HashMap;
use wsec::capture::{radio, CaptureReader};
use wsec::cipher::ccmp::Ccmp;
use wsec::cipher::tkip::{MichaelDirection, TkipKey};
use wsec::cipher::Protection;
use wsec::rsn::akm::Akm;
use wsec::rsn::eapol::{self, DescriptorType, EapolKey, EapolKeyRepr};
use wsec::rsn::kde::{self, KeyDataItem};
use wsec::rsn::kdf::derive_ptk;
use wsec::rsn::{keywrap, pbkdf2};
use wsec::wire::llc::Snap;
use wsec::wire::{Header, MacAddr};

struct Key {
    frame: Vec<u8>,
    r: EapolKeyRepr,
    aa: MacAddr,
    spa: MacAddr,
}

#[derive(Default, Debug, PartialEq)]
struct Tally {
    m2: usize,
    m3: usize,
    m4: usize,
    g1: usize,
    gtks: usize,
    group_decrypted: usize,
    group_failed: usize,
    /// Messages 2 whose message 1 is not in the capture, and messages 3/4/group 1 that
    /// no derived PTK verifies (parts of handshakes the capture does not hold).
    unmatched: usize,
    /// Messages 2 that verify only under message 3's ANonce.
    m2_anonce_from_m3: usize,
}

enum Item {
    /// An EAPOL-Key frame (in the clear, or found inside a decrypted unicast frame).
    Key(Key),
    /// A protected individually addressed data frame (may carry a group key handshake).
    Unicast(Vec<u8>),
    /// A protected group-addressed data frame.
    Group(Vec<u8>),
}

/// The EAPOL-Key frame of a plaintext data MPDU, if it carries one.
fn eapol_of(mpdu: &[u8]) -> Option<Key> {
    let h = Header::new_checked(mpdu).ok()?;
    let f = h.frame_control();
    let s = Snap::new_checked(h.payload()).ok()?;
    if s.ethertype() != wsec::wire::EtherType::EAPOL {
        return None;
    }
    let body = s.payload();
    if body.len() < 5 || body[1] != 3 {
        return None;
    }
    // Descriptor type 2 (RSN) or 254 (WPA1); the AKMs here all use a 16-octet MIC.
    let r = EapolKeyRepr::parse(body, 16).ok()?;
    let len = 4 + u16::from_be_bytes([body[2], body[3]]) as usize;
    let (aa, spa) = if f.from_ds() { (h.addr2()?, h.addr1()) } else { (h.addr1(), h.addr2()?) };
    Some(Key { frame: body[..len.min(body.len())].to_vec(), r, aa, spa })
}

/// The data frames of a capture that matter here, in capture order.
fn read(name: &str) -> Vec<Item> {
    let path = common::testdata_dir().join("captures").join(name);
    let mut items = Vec::new();
    for p in CaptureReader::open(&path).unwrap() {
        let Ok(p) = p else { break };
        let Ok(m) = radio::mpdu(p.linktype, &p.data) else { continue };
        let Ok(h) = Header::new_checked(m.bytes) else { continue };
        let f = h.frame_control();
        if !f.has_data_body() {
            continue;
        }
        if f.protected() {
            items.push(if h.addr1().is_group() { Item::Group(m.bytes.to_vec()) } else { Item::Unicast(m.bytes.to_vec()) });
        } else if let Some(k) = eapol_of(m.bytes) {
            items.push(Item::Key(k));
        }
    }
    items
}

fn check(name: &str, ssid: &str, pass: &str, akm: Akm) -> Tally {
    let pmk = pbkdf2::psk_from_passphrase(pass.as_bytes(), ssid.as_bytes()).unwrap();
    let items = read(name);
    let mut t = Tally::default();
    // ANonces of every message 3 of each link: a message 2 may belong to an ANonce the
    // capture only shows in message 3 (aircrack's testm1m2m3.pcap has an M1 whose ANonce
    // differs from M3's).
    let mut m3_anonces: HashMap<(MacAddr, MacAddr), Vec<[u8; 32]>> = HashMap::new();
    for i in &items {
        if let Item::Key(k) = i {
            if k.r.key_info.install() {
                m3_anonces.entry((k.aa, k.spa)).or_default().push(k.r.key_nonce);
            }
        }
    }
    // ANonce of each (AA, SPA) from its latest message 1.
    let mut anonce: HashMap<(MacAddr, MacAddr), [u8; 32]> = HashMap::new();
    // Every PTK derived for each (AA, SPA), newest last.
    let mut ptks: HashMap<(MacAddr, MacAddr), Vec<wsec::rsn::kdf::Ptk>> = HashMap::new();
    let mut gtks: Vec<(u8, Vec<u8>)> = Vec::new();
    // ANonce of each message 1 by (AA, SPA, replay counter): message 2 echoes the counter.
    let mut m1s: HashMap<(MacAddr, MacAddr, u64), [u8; 32]> = HashMap::new();
    let mut group = Vec::new();
    let mut unicast_decrypted = 0;
    for item in items {
        let k = match item {
            Item::Key(k) => k,
            Item::Group(f) => {
                group.push(f);
                continue;
            }
            Item::Unicast(f) => {
                // Decrypt with the pairwise key of its link, if known, and look for EAPOL.
                let h = Header::new_checked(&f[..]).unwrap();
                let f_c = h.frame_control();
                let (aa, spa) = if f_c.from_ds() { (h.addr2().unwrap(), h.addr1()) } else { (h.addr1(), h.addr2().unwrap()) };
                let Some(ptk) = ptks.get(&(aa, spa)).and_then(|v| v.last()) else { continue };
                let mut out = Vec::new();
                let ok = match ptk.tk().len() {
                    32 => TkipKey::new(ptk.tk()).unwrap().decapsulate(&f, &mut out).is_ok(),
                    _ => Ccmp::new(ptk.tk()).unwrap().decapsulate(&f, &mut out).is_ok(),
                };
                if !ok {
                    continue;
                }
                unicast_decrypted += 1;
                match eapol_of(&out) {
                    Some(k) => k,
                    None => continue,
                }
            }
        };
        let k = &k;
        let ki = k.r.key_info;
        let kdv = eapol::key_descriptor_version_from_number(ki.descriptor_version()).unwrap();
        let id = (k.aa, k.spa);
        let cipher = if kdv.number() == 1 { wsec::cipher::CipherSuite::Tkip } else { wsec::cipher::CipherSuite::Ccmp128 };
        if ki.is_pairwise() && ki.key_ack() && !ki.key_mic() {
            anonce.insert(id, k.r.key_nonce);
            m1s.insert((k.aa, k.spa, k.r.replay_counter), k.r.key_nonce);
            continue;
        }
        if !ki.key_mic() {
            continue;
        }
        let view = EapolKey::new_checked(&k.frame[..], 16).unwrap();
        if ki.is_pairwise() && !ki.key_ack() && !k.r.key_data.is_empty() {
            // Message 2 (it carries the RSN/WPA element; some stacks also put the SNonce
            // in message 4): the PTK from its SNonce and the ANonce of the message 1 whose
            // replay counter it echoes.
            let m1 = m1s.get(&(k.aa, k.spa, k.r.replay_counter)).copied();
            let from_m3 = m3_anonces.get(&id).cloned().unwrap_or_default();
            let ptk = m1.iter().chain(from_m3.iter()).find_map(|an| {
                let p = derive_ptk(akm, &pmk, k.aa.as_bytes(), k.spa.as_bytes(), an, &k.r.key_nonce, cipher, 0).unwrap();
                view.verify_mic(kdv, akm, p.kck()).is_ok().then_some((p, Some(an) == m1.as_ref()))
            });
            let Some((ptk, with_m1)) = ptk else {
                // Its message 1 is in the capture, so the MIC must verify.
                assert!(m1.is_none(), "{name}: message 2 MIC fails under every ANonce");
                t.unmatched += 1;
                continue;
            };
            if !with_m1 {
                t.m2_anonce_from_m3 += 1;
            }
            t.m2 += 1;
            ptks.entry(id).or_default().push(ptk);
            continue;
        }
        // Messages 3, 4 and group 1: the PTK (of this link) that verifies the MIC.
        let Some(ptk) = ptks.get(&id).and_then(|v| v.iter().rev().find(|p| view.verify_mic(kdv, akm, p.kck()).is_ok())) else {
            t.unmatched += 1;
            continue;
        };
        if ki.is_pairwise() && ki.install() {
            anonce.insert(id, k.r.key_nonce);
            t.m3 += 1;
            if k.r.descriptor_type == DescriptorType::Rsn {
                let kd = if kdv.number() == 1 {
                    let mut d = k.r.key_data.clone();
                    keywrap::rc4_key_data(ptk.kek().try_into().unwrap(), &k.r.key_iv, &mut d);
                    d
                } else {
                    keywrap::aes_key_unwrap(ptk.kek(), &k.r.key_data).unwrap().to_vec()
                };
                for item in kde::parse(&kd).unwrap() {
                    if let KeyDataItem::Gtk(g) = item {
                        gtks.push((g.key_id, g.gtk.to_vec()));
                        t.gtks += 1;
                    }
                }
            }
        } else if ki.is_pairwise() {
            t.m4 += 1;
        } else if ki.key_ack() {
            // Group message 1; WPA1 carries the raw GTK, RC4-encrypted, Key Index in b4-b5.
            t.g1 += 1;
            let mut d = k.r.key_data.clone();
            if kdv.number() == 1 {
                keywrap::rc4_key_data(ptk.kek().try_into().unwrap(), &k.r.key_iv, &mut d);
            } else {
                d = keywrap::aes_key_unwrap(ptk.kek(), &d).unwrap().to_vec();
            }
            if k.r.descriptor_type == DescriptorType::Wpa {
                gtks.push((ki.key_index(), d[..k.r.key_length as usize].to_vec()));
                t.gtks += 1;
            } else {
                for item in kde::parse(&d).unwrap() {
                    if let KeyDataItem::Gtk(g) = item {
                        gtks.push((g.key_id, g.gtk.to_vec()));
                        t.gtks += 1;
                    }
                }
            }
        }
    }
    eprintln!("{name}: {unicast_decrypted} unicast frames decrypted with the derived PTK");
    // Group traffic: each frame with the GTK of its Key ID, newest first.
    for f in &group {
        let h = Header::new_checked(&f[..]).unwrap();
        let id = f[h.header_len() + 3] >> 6;
        let ok = gtks.iter().rev().filter(|(k, _)| *k == id).any(|(_, gtk)| {
            let mut out = Vec::new();
            match gtk.len() {
                16 => Ccmp::new(gtk).unwrap().decapsulate(f, &mut out).is_ok(),
                32 => TkipKey::new(gtk).unwrap().decapsulate_dir(f, MichaelDirection::AuthenticatorToSupplicant, &mut out).is_ok(),
                _ => false,
            }
        });
        if ok {
            t.group_decrypted += 1;
        } else {
            t.group_failed += 1;
        }
    }
    eprintln!("{name}: {t:?}");
    t
}

fn expect(name: &str, ssid: &str, pass: &str, akm: Akm, e: Tally) {
    let t = check(name, ssid, pass, akm);
    assert_eq!(t, e, "{name}");
}

// The expected figures: every message of each captured handshake verifies; the GTK from
// message 3 (group message 1 in WPA1, which travels inside TKIP-protected frames)
// decrypts every protected group frame after it. Group frames before the first handshake
// cannot be decrypted by anyone (captures/README.md: "2 precede the first handshake").

#[test]
fn wpa2_psk_linksys_three_handshakes() {
    let e = Tally { m2: 3, m3: 3, m4: 3, gtks: 3, group_decrypted: 1, ..Default::default() };
    expect("aircrack/wpa2-psk-linksys.cap", "linksys", "dictionary", Akm::Psk, e);
}

#[test]
fn wpa_psk_linksys_tkip_group_handshake_inside_tkip() {
    let e = Tally { m2: 1, m3: 1, m4: 1, g1: 2, gtks: 2, group_decrypted: 4, ..Default::default() };
    expect("aircrack/wpa-psk-linksys.cap", "linksys", "dictionary", Akm::Psk, e);
}

#[test]
fn wpa_cap_prism_fcs() {
    let e = Tally { m2: 1, m3: 1, m4: 1, g1: 1, gtks: 1, ..Default::default() };
    expect("aircrack/wpa.cap", "test", "biscotte", Akm::Psk, e);
}

#[test]
fn wds_four_address() {
    let e = Tally { m2: 1, m3: 1, m4: 1, gtks: 1, ..Default::default() };
    expect("aircrack/capture_wds-01.cap", "test1", "12345678", Akm::Psk, e);
}

#[test]
fn zn2i_radiotap() {
    let e = Tally { m2: 1, m3: 1, m4: 1, gtks: 1, ..Default::default() };
    expect("aircrack/zn2i.pcap", "dlink", "12345678", Akm::Psk, e);
}

#[test]
fn n02_psk_sha256_mfp() {
    let e = Tally { m2: 1, m3: 1, m4: 1, gtks: 1, group_decrypted: 81, ..Default::default() };
    expect("aircrack/n-02.cap", "Neheb", "bo$$password", Akm::PskSha256, e);
}

#[test]
fn harkonen_eapol_only() {
    let e = Tally { m2: 1, m3: 1, m4: 1, gtks: 1, ..Default::default() };
    expect("aircrack/wpa2.eapol.cap", "Harkonen", "12345678", Akm::Psk, e);
}

#[test]
fn wnm_sleep_pcapng() {
    // The WNM-Sleep exit re-sends the GTK in a group key handshake inside CCMP frames.
    let e = Tally { m2: 1, m3: 1, m4: 1, g1: 1, gtks: 2, ..Default::default() };
    expect("vanhoef/wnm_sleep_test-wpa2-psk_12345678.pcapng", "test-wnm-rsn", "12345678", Akm::Psk, e);
}

#[test]
fn mom1_partial_handshakes() {
    // One message 1 (counter 15): its message 2 and the message 4 of that handshake
    // verify; the other four messages 2 and one message 4 answer messages 1/3 that were
    // not captured.
    let t = check("aircrack/MOM1.cap", "MOM1", "MOM12345", Akm::Psk);
    assert_eq!((t.m2, t.m3), (1, 0), "{t:?}");
    assert_eq!(t.m4 + t.unmatched, 6, "{t:?}");
    assert!(t.m4 >= 1, "{t:?}");
}

#[test]
fn m1m2m3() {
    // Message 1's ANonce differs from message 3's; message 2 verifies under message 3's.
    let e = Tally { m2: 1, m3: 1, gtks: 1, m2_anonce_from_m3: 1, ..Default::default() };
    expect("aircrack/testm1m2m3.pcap", "WLAN-2", "12345678", Akm::Psk, e);
}

/// PMKID captures (captures/README.md): the PMKID KDE in each message 1 equals
/// HMAC-SHA1-128(PMK, "PMK Name" || AA || SPA) (12.7.1.3) for the PMK of the known passphrase;
/// and a wrong passphrase does not reproduce it.
#[test]
fn pmkid_captures() {
    for (name, ssid, pass, bssid) in [
        ("aircrack/test1.pcap", "ogogo", "15211521", Some(MacAddr([0x28, 0x10, 0x7b, 0x94, 0xbb, 0x29]))),
        ("aircrack/test-pmkid.pcap", "WLAN-771698", "SP-91862D361", None),
    ] {
        let pmk = pbkdf2::psk_from_passphrase(pass.as_bytes(), ssid.as_bytes()).unwrap();
        let wrong = pbkdf2::psk_from_passphrase(b"not the passphrase", ssid.as_bytes()).unwrap();
        let mut checked = 0;
        for item in read(name) {
            let Item::Key(k) = item else { continue };
            if !(k.r.key_info.is_pairwise() && k.r.key_info.key_ack() && !k.r.key_info.key_mic()) {
                continue;
            }
            if bssid.is_some_and(|b| b != k.aa) {
                continue;
            }
            for it in kde::parse(&k.r.key_data).unwrap_or_default() {
                if let KeyDataItem::Pmkid(p) = it {
                    assert_eq!(wsec::rsn::kdf::pmkid(Akm::Psk, &pmk, k.aa.as_bytes(), k.spa.as_bytes()), p, "{name}");
                    assert_ne!(wsec::rsn::kdf::pmkid(Akm::Psk, &wrong, k.aa.as_bytes(), k.spa.as_bytes()), p, "{name}");
                    checked += 1;
                }
            }
        }
        assert!(checked >= 1, "{name}: no PMKID checked");
        eprintln!("{name}: {checked} PMKIDs verified");
    }
}
