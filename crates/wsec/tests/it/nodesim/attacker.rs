//! The attacker of the over-the-air attack suites (`ota_fragattacks`, `ota_krack`): a
//! network of the live cores (AP, STA1, STA2) in which the test plays one legitimate
//! peer of the victim with that peer's keys, as the FragAttacks tool does (it is the
//! client when it tests an AP, the AP when it tests a client) and as the KRACK scripts'
//! modified hostapd does. The keys come from the 4-way handshakes on the air and the
//! passphrase (12.7.1.3), the frames are built octet by octet (9.3.2.1: QoS Data, TID 2,
//! as the tool sends them) and protected with the tool's own PN counters.
use super::{Feed, Sim, WIRED};
use std::collections::BTreeMap;
use wsec::cipher::{new_protection, AadOptions, CipherSuite, Protection};
use wsec::node::ap::ApConfig;
use wsec::node::sta::StaConfig;
use wsec::node::{Counters, Security};
use wsec::rsn::akm::Akm;
use wsec::wire::mac::MacAddr;
use zeroize::Zeroizing;

pub const BSSID: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
pub const STA1: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x11]);
pub const STA2: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x12]);
/// The address the tool's `eapol-inject` test names (not in the BSS).
pub const STRANGER: MacAddr = MacAddr([0x00, 0x11, 0x22, 0x33, 0x44, 0x55]);
/// 01:80:C2:00:00:03, the PAE group address (IEEE 802.1X).
pub const PAE_GROUP: MacAddr = MacAddr([0x01, 0x80, 0xc2, 0, 0, 0x03]);
pub const SSID: &[u8] = b"wsec-ota";
pub const PASSPHRASE: &[u8] = b"correct horse battery";

pub const LLC_IPV4: [u8; 8] = [0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00];
pub const LLC_EAPOL: [u8; 8] = [0xaa, 0xaa, 0x03, 0, 0, 0, 0x88, 0x8e];

// Key Information bits of an EAPOL-Key frame (12.7.2, Figure 12-33).
pub const KI_PAIRWISE: u16 = 0x0008;
pub const KI_INSTALL: u16 = 0x0040;
pub const KI_ACK: u16 = 0x0080;
pub const KI_MIC: u16 = 0x0100;
pub const KI_SECURE: u16 = 0x0200;

pub fn pmk() -> Vec<u8> {
    wsec::rsn::pbkdf2::psk_from_passphrase(PASSPHRASE, SSID).unwrap().to_vec()
}

pub fn rsn() -> Security {
    Security::Rsn {
        akms: vec![Akm::Psk],
        pairwise: vec![CipherSuite::Ccmp128],
        groups: vec![CipherSuite::Ccmp128],
        pmk: Zeroizing::new(pmk()),
    }
}

/// AP, STA1 and STA2 on a lossless medium, one frame at a time (not yet up).
pub fn network(sec: Security, mfp: wsec::node::mfp::Mfp) -> Sim {
    let mut ap = ApConfig::new(BSSID, SSID, sec.clone());
    ap.mfp = mfp;
    let stas = [STA1, STA2]
        .into_iter()
        .map(|a| {
            let mut c = StaConfig::new(a, SSID, sec.clone());
            c.mfp = mfp;
            c
        })
        .collect();
    Sim::new(ap, stas, 0.0, 38, Feed::PerFrame)
}

/// The header length of a data MPDU (QoS Control for the QoS subtypes).
pub fn header_len(f: &[u8]) -> usize {
    if f[0] & 0x80 != 0 {
        26
    } else {
        24
    }
}

pub fn addr(f: &[u8], i: usize) -> MacAddr {
    let o = 4 + 6 * (i - 1);
    MacAddr(f[o..o + 6].try_into().unwrap())
}

pub fn is_data(f: &[u8]) -> bool {
    f.len() >= 24 && f[0] & 0x0c == 0x08
}

pub fn is_protected(f: &[u8]) -> bool {
    f[1] & 0x40 != 0
}

/// An EAPOL-Key frame's Key Information, Key Replay Counter and Key Nonce, from a
/// plaintext data MPDU.
pub fn eapol_key(plain: &[u8]) -> Option<(u16, u64, [u8; 32])> {
    if !is_data(plain) {
        return None;
    }
    let b = plain.get(header_len(plain)..)?;
    if b.len() < 8 + 49 || b[..8] != LLC_EAPOL || b[9] != 3 {
        return None;
    }
    let e = &b[8..];
    let ki = u16::from_be_bytes([e[5], e[6]]);
    let rc = u64::from_be_bytes(e[9..17].try_into().unwrap());
    Some((ki, rc, e[17..49].try_into().unwrap()))
}

/// The pairwise CCMP protection under `tk`.
pub fn ccmp(tk: &[u8]) -> Box<dyn Protection + Send + Sync> {
    new_protection(CipherSuite::Ccmp128, tk, AadOptions::default()).unwrap()
}

/// Opens a CCMP MPDU under any of `tks`: the plaintext MPDU and the TK's index.
pub fn open_any(f: &[u8], tks: &[Vec<u8>]) -> Option<(Vec<u8>, usize)> {
    tks.iter().enumerate().rev().find_map(|(i, tk)| {
        let mut out = Vec::new();
        ccmp(tk).decapsulate(f, &mut out).ok().map(|_| (out, i))
    })
}

/// Every TK of `sta`'s 4-way handshakes with the AP on `air`, in order: ANonce from
/// message 1, SNonce from message 2 (12.7.6.2, 12.7.6.3), the PTK by 12.7.1.3. Messages of
/// a rekey, protected under the previous PTK, are opened with it.
pub fn tks_on_air(air: &[Vec<u8>], sta: MacAddr) -> Vec<Vec<u8>> {
    ptks_on_air(air, sta).into_iter().map(|(_, tk)| tk).collect()
}

/// As [`tks_on_air`], each with its KCK and KEK.
pub fn ptks_on_air(air: &[Vec<u8>], sta: MacAddr) -> Vec<(Vec<u8>, Vec<u8>)> {
    full_ptks_on_air(air, sta).into_iter().map(|p| (p.kck, p.tk)).collect()
}

/// The parts of a PTK the attacker uses.
#[derive(Debug, Clone)]
pub struct PtkParts {
    pub kck: Vec<u8>,
    pub kek: Vec<u8>,
    pub tk: Vec<u8>,
}

/// As [`tks_on_air`], whole.
pub fn full_ptks_on_air(air: &[Vec<u8>], sta: MacAddr) -> Vec<PtkParts> {
    let pmk = pmk();
    let mut tks: Vec<Vec<u8>> = Vec::new();
    let mut parts: Vec<PtkParts> = Vec::new();
    let mut anonce: Option<[u8; 32]> = None;
    for f in air.iter().filter(|f| is_data(f)) {
        let (a1, a2) = (addr(f, 1), addr(f, 2));
        let from_ap = a1 == sta && a2 == BSSID;
        if !(from_ap || (a1 == BSSID && a2 == sta)) {
            continue;
        }
        let plain = if is_protected(f) {
            match open_any(f, &tks) {
                Some((p, _)) => p,
                None => continue,
            }
        } else {
            f.clone()
        };
        let Some((ki, _, nonce)) = eapol_key(&plain) else { continue };
        if ki & KI_PAIRWISE == 0 {
            continue;
        }
        if from_ap && ki & KI_ACK != 0 && ki & KI_MIC == 0 {
            anonce = Some(nonce);
        } else if !from_ap && ki & KI_MIC != 0 && ki & KI_ACK == 0 && nonce != [0; 32] {
            if let Some(an) = anonce {
                let ptk = wsec::rsn::kdf::derive_ptk(Akm::Psk, &pmk, &BSSID.0, &sta.0, &an, &nonce, CipherSuite::Ccmp128, 0).unwrap();
                let tk = ptk.tk().to_vec();
                if !tks.contains(&tk) {
                    tks.push(tk);
                    parts.push(PtkParts { kck: ptk.kck().to_vec(), kek: ptk.kek().to_vec(), tk: ptk.tk().to_vec() });
                }
            }
        }
    }
    parts
}

/// Rewrites an EAPOL-Key message from the AP (a plaintext data MPDU) as the KRACK
/// scripts' AP sends it: Key RSC set to `rsc` and/or the IPN of its IGTK KDE (12.7.2,
/// Key Data under the KEK, AES key wrap) set to `ipn`; the MIC recomputed with the KCK.
pub fn rewrite_key_msg(plain: &mut [u8], p: &PtkParts, rsc: Option<u64>, ipn: Option<u64>) {
    let e = header_len(plain) + 8;
    let eapol = &mut plain[e..];
    if let Some(r) = rsc {
        eapol[65..73].copy_from_slice(&r.to_le_bytes());
    }
    if let Some(ipn) = ipn {
        let len = u16::from_be_bytes([eapol[97], eapol[98]]) as usize;
        let mut kd = wsec::rsn::keywrap::aes_key_unwrap(&p.kek, &eapol[99..99 + len]).unwrap().to_vec();
        let mut i = 0;
        let mut found = false;
        // Elements and KDEs (ID 0xdd), then padding (0xdd 0x00 ...).
        while i + 2 <= kd.len() && !(kd[i] == 0xdd && kd[i + 1] == 0) {
            let l = kd[i + 1] as usize;
            if kd[i] == 0xdd && l >= 4 && kd[i + 2..i + 6] == [0x00, 0x0f, 0xac, 0x09] {
                kd[i + 8..i + 14].copy_from_slice(&ipn.to_le_bytes()[..6]);
                found = true;
            }
            i += 2 + l;
        }
        assert!(found, "no IGTK KDE in the Key Data");
        let w = wsec::rsn::keywrap::aes_key_wrap(&p.kek, &kd).unwrap();
        assert_eq!(w.len(), len);
        eapol[99..99 + len].copy_from_slice(&w);
    }
    eapol[81..97].fill(0);
    let ki = wsec::rsn::eapol::KeyInfo(u16::from_be_bytes([eapol[5], eapol[6]]));
    wsec::rsn::eapol::write_mic(ki.key_descriptor_version().unwrap(), Akm::Psk, &p.kck, eapol).unwrap();
}

/// The current TK of `sta` (its last handshake on the air).
pub fn tk_on_air(sim: &Sim, sta: MacAddr) -> Vec<u8> {
    tks_on_air(&sim.air, sta).pop().expect("a 4-way handshake of this station on the air")
}

/// A data MPDU header as the tool builds it (QoS Data when `tid` is set; 9.3.2.1).
#[derive(Debug, Clone, Copy)]
pub struct Hdr {
    pub to_ds: bool,
    pub a1: MacAddr,
    pub a2: MacAddr,
    pub a3: MacAddr,
    pub seq: u16,
    pub frag: u8,
    pub more: bool,
    pub tid: Option<u8>,
    pub amsdu: bool,
}

impl Hdr {
    pub fn bytes(&self, body: &[u8]) -> Vec<u8> {
        let fc0 = if self.tid.is_some() { 0x88 } else { 0x08 };
        let fc1 = if self.to_ds { 0x01 } else { 0x02 } | if self.more { 0x04 } else { 0 };
        let mut v = vec![fc0, fc1, 0, 0];
        v.extend(self.a1.0);
        v.extend(self.a2.0);
        v.extend(self.a3.0);
        v.extend((self.seq << 4 | self.frag as u16).to_le_bytes());
        if let Some(t) = self.tid {
            v.extend([t | if self.amsdu { 0x80 } else { 0 }, 0]);
        }
        v.extend_from_slice(body);
        v
    }
}

/// The tool's `create_fragments`: the body cut into `n` equal parts (the last shorter),
/// fragment numbers 0.., More Fragments on all but the last.
pub fn fragments(h: Hdr, body: &[u8], n: usize) -> Vec<Vec<u8>> {
    let size = body.len().div_ceil(n);
    (0..n).map(|i| Hdr { frag: i as u8, more: i + 1 < n, ..h }.bytes(&body[size * i..(size * (i + 1)).min(body.len())])).collect()
}

/// An A-MSDU subframe (9.3.2.2.2): DA, SA, length, MSDU, padded to 4 octets unless last.
pub fn amsdu_subframe(da: MacAddr, sa: MacAddr, msdu: &[u8], last: bool) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend(da.0);
    v.extend(sa.0);
    v.extend((msdu.len() as u16).to_be_bytes());
    v.extend_from_slice(msdu);
    while !last && v.len() % 4 != 0 {
        v.push(0);
    }
    v
}

/// The tool's ping: LLC/SNAP, an IPv4 header and an ICMP Echo Request whose data is
/// `test_ping_icmp` and the test's tag.
pub fn ping(tag: &str) -> Vec<u8> {
    let data = format!("test_ping_icmp {tag}");
    let total = 20 + 8 + data.len();
    let mut v = LLC_IPV4.to_vec();
    v.extend([0x45, 0, (total >> 8) as u8, total as u8, 0, 34, 0, 0, 64, 1, 0, 0, 192, 168, 1, 2, 192, 168, 1, 1]);
    v.extend([8, 0, 0, 0, 0, 1, 0, 1]);
    v.extend(data.as_bytes());
    v
}

/// The tool's PN counters (`Station.encrypt`): one for every TID, or one a TID with
/// `--pn-per-qos`; the TK it protects with. It starts well above what the real peer used.
pub struct Keys {
    prot: Box<dyn Protection + Send + Sync>,
    pub pn: [u64; 16],
    pub pn_per_qos: bool,
}

impl Keys {
    pub fn new(tk: &[u8]) -> Keys {
        Keys { prot: ccmp(tk), pn: [1000; 16], pn_per_qos: false }
    }

    /// Protects `plain` with the PN `inc` above the last one of its counter (Key ID 0).
    pub fn enc_inc(&mut self, plain: &[u8], inc: u64) -> Vec<u8> {
        let tid = if plain[0] & 0x80 != 0 { plain[24] as usize & 0x0f } else { 0 };
        let i = if self.pn_per_qos { tid } else { 0 };
        self.pn[i] += inc;
        let mut out = Vec::new();
        self.prot.encapsulate(plain, self.pn[i], 0, &mut out).unwrap();
        out
    }

    pub fn enc(&mut self, plain: &[u8]) -> Vec<u8> {
        self.enc_inc(plain, 1)
    }

    /// A new TK (after a rekey or a reconnection); the counters go on.
    pub fn rekey(&mut self, tk: &[u8]) {
        self.prot = ccmp(tk);
    }
}

/// Which core is under test: the tool tests an AP as its client, a client as its AP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Victim {
    Ap,
    Sta,
}

/// A network with its stations up, and the attacker as STA1 (victim: the AP) or as the AP
/// towards STA1 (victim: STA1), holding that link's TK.
pub struct Lab {
    pub sim: Sim,
    pub victim: Victim,
    pub keys: Keys,
    pub seq: u16,
}

impl Lab {
    pub fn new(victim: Victim) -> Lab {
        let mut sim = network(rsn(), wsec::node::mfp::Mfp::Disabled);
        assert!(sim.run_until(3_000, |s| s.all_established()), "network did not come up: {:?}", sim.events);
        let keys = Keys::new(&tk_on_air(&sim, STA1));
        Lab { sim, victim, keys, seq: 100 }
    }

    /// A network whose stations are up except that STA1's 4-way handshake is held
    /// mid-way (the tool's `StartAuth`/`BeforeAuth` triggers): the AP's message 3 to STA1
    /// is blocked (victim STA1) or STA1's message 2 to the AP is (victim the AP). No keys
    /// yet: the attacker sends plaintext only. [`Lab::release`] lets the handshake end.
    pub fn mid_handshake(victim: Victim) -> Lab {
        let mut sim = network(rsn(), wsec::node::mfp::Mfp::Disabled);
        sim.block = Some(Box::new(move |from, to, f| {
            let Some((ki, _, _)) = eapol_key(f) else { return false };
            match victim {
                Victim::Sta => from == 0 && to == 1 && ki & KI_INSTALL != 0,
                Victim::Ap => from == 1 && to == 0 && ki & KI_MIC != 0,
            }
        }));
        let held = |s: &Sim| match victim {
            Victim::Sta => s.sta(0).wpa_state() == "4WAY_HANDSHAKE" && s.sta(1).is_established(),
            Victim::Ap => s.ap().peer_addrs().contains(&STA1) && s.sta(1).is_established() && s.sta(0).wpa_state() == "4WAY_HANDSHAKE",
        };
        assert!(sim.run_until(3_000, held), "STA1 never got to its 4-way handshake: {:?}", sim.events);
        assert!(!sim.sta(0).is_established());
        Lab { sim, victim, keys: Keys::new(&[0x11; 16]), seq: 100 }
    }

    /// Ends the hold of [`Lab::mid_handshake`]: the handshake completes (retransmission).
    pub fn release(&mut self) {
        self.sim.block = None;
        assert!(self.sim.run_until(5_000, |s| s.all_established()), "STA1 did not finish its handshake: {:?}", self.sim.events);
        self.keys.rekey(&tk_on_air(&self.sim, STA1));
    }

    /// The header of the attacker's next data frame to the victim: from STA1 to `da`
    /// through the AP, or from `sa` through the AP to STA1; QoS TID 2 as the tool.
    pub fn hdr(&mut self, far: MacAddr) -> Hdr {
        self.seq += 1;
        let (to_ds, a1, a2, a3) = match self.victim {
            Victim::Ap => (true, BSSID, STA1, far),
            Victim::Sta => (false, STA1, BSSID, far),
        };
        Hdr { to_ds, a1, a2, a3, seq: self.seq, frag: 0, more: false, tid: Some(2), amsdu: false }
    }

    /// The default far end of the tool's ping: a host on the AP's wired side (to the AP),
    /// or a host behind the AP (to a client).
    pub fn far(&self) -> MacAddr {
        WIRED
    }

    /// The attacker's own address (the Ethernet source of what it sends).
    pub fn me(&self) -> MacAddr {
        match self.victim {
            Victim::Ap => STA1,
            Victim::Sta => WIRED,
        }
    }

    /// The victim's address.
    pub fn target(&self) -> MacAddr {
        match self.victim {
            Victim::Ap => BSSID,
            Victim::Sta => STA1,
        }
    }

    /// Puts frames on the air one by one, a step (1 ms) each.
    pub fn send(&mut self, frames: &[Vec<u8>]) {
        for f in frames {
            self.sim.inject.push(f.clone());
            self.sim.step();
        }
    }

    pub fn counters(&self) -> &Counters {
        match self.victim {
            Victim::Ap => &self.sim.ap().counters,
            Victim::Sta => &self.sim.sta(0).counters,
        }
    }

    pub fn drops(&self) -> BTreeMap<&'static str, u64> {
        self.counters().drops.clone()
    }

    /// Ethernet frames the victim handed its host, and STA2's host (what the AP relayed),
    /// that carry `tag`.
    pub fn delivered(&self, tag: &str) -> usize {
        let host = match self.victim {
            Victim::Ap => &self.sim.ap_host,
            Victim::Sta => &self.sim.sta_host[0],
        };
        let relayed = if self.victim == Victim::Ap { &self.sim.sta_host[1][..] } else { &[] };
        host.iter().chain(relayed).filter(|e| e.windows(tag.len()).any(|w| w == tag.as_bytes())).count()
    }
}

/// The drop counters that moved between `before` and `after`.
pub fn delta(before: &BTreeMap<&'static str, u64>, after: &BTreeMap<&'static str, u64>) -> BTreeMap<&'static str, u64> {
    after.iter().map(|(k, v)| (*k, v - before.get(k).copied().unwrap_or(0))).filter(|(_, d)| *d > 0).collect()
}

/// A drop map from pairs.
pub fn drops(v: &[(&'static str, u64)]) -> BTreeMap<&'static str, u64> {
    v.iter().copied().collect()
}

/// The PN of a CCMP MPDU (12.5.3.2, the CCMP header after the MAC header).
pub fn ccmp_pn(f: &[u8]) -> u64 {
    let h = &f[header_len(f)..];
    u64::from_le_bytes([h[0], h[1], h[4], h[5], h[6], h[7], 0, 0])
}

/// The Key Information of an EAPOL-Key frame in `f`, opening it under `tks` if protected.
pub fn key_info(f: &[u8], tks: &[Vec<u8>]) -> Option<u16> {
    if !is_data(f) {
        return None;
    }
    if is_protected(f) {
        eapol_key(&open_any(f, tks)?.0).map(|k| k.0)
    } else {
        eapol_key(f).map(|k| k.0)
    }
}
