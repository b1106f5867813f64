//! Decrypting captured 802.11 traffic: a streaming engine that follows every BSS and
//! station it sees (Beacons/Probe Responses for SSID and RSN element, Association
//! Requests for the AKM a STA chose, 4-way and group key handshakes, also those carried
//! inside encrypted frames) and turns protected MPDUs into plaintext MPDUs.
//!
//! The engine sees MPDUs only (no radio header, no FCS); the capture plumbing is in
//! [`crate::capture`]. It never panics on wire data and keeps memory bounded by the number
//! of BSSs and stations in the capture.
mod ft;
pub mod keys;
mod tdls;

use crate::cipher::wep::WepKey;
use crate::cipher::{CipherSuite, KeyOptions, Protection, SuiteKey};
use crate::rsn::akm::Akm;
use crate::rsn::eapol::{self, DescriptorType, EapolKey, EapolKeyRepr};
use crate::rsn::handshake::Msg;
use crate::rsn::ie::{self, RsnElementRepr, WpaElementRepr};
use crate::rsn::kde::{self, KeyDataItem};
use crate::rsn::kdf::{derive_ptk, Ptk};
use crate::rsn::{keywrap, pbkdf2};
use crate::wire::element;
use crate::wire::ethernet::EtherType;
use crate::wire::llc::Snap;
use crate::wire::mac::{mgmt_subtype, Header, MacAddr};
use crate::wire::mgmt::{AssocRequestRepr, BeaconRepr};
use crate::wire::sechdr::KeyIdOctet;
use keys::UserKey;
use std::collections::HashMap;
use zeroize::Zeroizing;

/// Why a protected frame was not decrypted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FailReason {
    /// No handshake of this station was seen (or it was incomplete).
    NoHandshake,
    /// The station's handshake was seen but no given passphrase/PMK verifies it.
    WrongOrMissingPmk,
    /// An SAE/OWE/802.1X handshake: the PMK cannot be derived from a passphrase by an
    /// observer; give it with `--pmk`.
    PmkNeeded,
    /// A group-addressed frame before any GTK was seen.
    NoGroupKey,
    /// WEP frame and no WEP key given (or none verifies the ICV).
    NoWepKey,
    /// A key was found for the frame but its MIC (or ICV) does not verify.
    MicOrIcvFailure,
    /// The frame could not be parsed.
    Malformed,
}

impl FailReason {
    pub fn describe(self) -> &'static str {
        match self {
            FailReason::NoHandshake => "no key: the station's handshake was not seen (or not whole)",
            FailReason::WrongOrMissingPmk => "no key: no given passphrase or PMK verifies the handshake",
            FailReason::PmkNeeded => "no key: SAE/OWE/802.1X handshake; a passive observer needs the PMK (--pmk)",
            FailReason::NoGroupKey => "no key: group frame before any GTK was seen",
            FailReason::NoWepKey => "no key: WEP frame and no WEP key verifies it",
            FailReason::MicOrIcvFailure => "MIC/ICV failure under the key that should apply",
            FailReason::Malformed => "malformed protected frame",
        }
    }
}

/// What happened to one MPDU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Not protected (or BIP-protected management): passed through.
    Clear,
    /// Decrypted: the plaintext MPDU (Protected cleared, security header and trailer gone).
    Decrypted { mpdu: Vec<u8>, suite: CipherSuite },
    /// A retransmission of a frame already decrypted (Retry set, same TA, TID and Sequence
    /// Control); it decrypted too, to this plaintext, and one copy is enough in an output.
    Duplicate { mpdu: Vec<u8>, suite: CipherSuite },
    /// Protected and not decrypted.
    Failed(FailReason),
}

/// A message 2 not yet matched to an ANonce: SNonce, the EAPOL frame, its Key Data (the
/// FT elements), its replay counter.
type PendingM2 = ([u8; 32], Vec<u8>, Vec<u8>, u64);

/// A decrypted MPDU, its cipher, and whether it is TKIP whose Michael MIC went unchecked
/// (a 16-octet TK carries no Michael key).
type Plain = (Vec<u8>, CipherSuite, bool);

/// A key and the position of the frame that revealed it.
type KeyAt = (Zeroizing<Vec<u8>>, u64);

#[derive(Default)]
struct Bss {
    ssid: Option<Vec<u8>>,
    akms: Vec<Akm>,
    pairwise: Vec<CipherSuite>,
    group: Option<CipherSuite>,
    /// Group keys by Key ID, newest last (a GTK rekey may reuse a Key ID), with the
    /// position of the frame that revealed each (see `Decryptor::pos`).
    gtks: HashMap<u8, Vec<KeyAt>>,
    /// MDID of the Mobility Domain element of its Beacons (FT, 9.4.2.46).
    mdid: Option<[u8; 2]>,
}

/// One station's link to its AP: handshake state and the PTKs it produced.
#[derive(Default)]
struct Link {
    /// ANonce by the replay counter of its message 1.
    m1: Vec<(u64, [u8; 32])>,
    /// Messages 2 not yet matched to an ANonce.
    pending_m2: Vec<PendingM2>,
    /// PTKs that verified a message of this link, newest last, with the AKM and cipher.
    ptks: Vec<(Ptk, CipherSuite, u64)>,
    /// The AKM the STA chose in its (Re)Association Request.
    akm: Option<Akm>,
    /// The pairwise cipher the STA chose in its (Re)Association Request.
    pairwise: Option<CipherSuite>,
    /// FT: MDID and the key holders' IDs from the (Re)Association Response or message 2.
    ft: ft::FtIds,
    /// A handshake was seen but nothing verified it.
    unverified: bool,
    /// Index (in capture order) of the frame whose handshake gave the first PTK: in a
    /// second pass, frames before it belong to a session whose handshake is not there.
    first_ptk_at: Option<u64>,
    /// FT: position of the Reassociation Request whose FTE MIC gave the newest PTK, until
    /// the target AP's Reassociation Response accepts or refuses the transition.
    ft_pending: Option<u64>,
}

/// Counters for the summary.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Stats {
    pub frames: u64,
    pub protected: u64,
    pub decrypted: HashMap<CipherSuite, u64>,
    pub failed: HashMap<FailReason, u64>,
    pub duplicates: u64,
    pub handshakes_verified: u64,
    pub group_keys: u64,
    /// Frames TKIP-decrypted with a 16-octet TK (no Michael key): ICV checked, Michael MIC
    /// removed unverified (as Wireshark does).
    pub tkip_michael_unchecked: u64,
    /// Every pairwise key learnt, in capture order (bounded by [`MAX_EVENTS`]).
    pub keys_learnt: Vec<KeyEvent>,
    /// Protected frames not decrypted, by transmitter and reason (bounded by
    /// [`MAX_EVENTS`] transmitters): why each station's frames stayed encrypted.
    pub failed_by_transmitter: HashMap<MacAddr, HashMap<FailReason, u64>>,
}

/// How a pairwise key was learnt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeySource {
    /// A 4-way handshake (12.7.6) verified by message 2's MIC.
    FourWay,
    /// The 4-way handshake of an FT initial mobility domain association (12.7.1.7, PTK
    /// from PMK-R1).
    FtInitial,
    /// A fast BSS transition (13.8): the (Re)Association Request's FTE MIC verified the
    /// PTK of the target AP.
    FtTransition,
    /// A TDLS setup (12.7.8): the TPK, verified by the Setup Response's FTE MIC.
    Tdls,
}

impl KeySource {
    pub fn name(self) -> &'static str {
        match self {
            KeySource::FourWay => "4-way handshake",
            KeySource::FtInitial => "FT initial mobility domain association",
            KeySource::FtTransition => "FT transition (roam)",
            KeySource::Tdls => "TDLS setup (TPK)",
        }
    }
}

/// One learnt pairwise key: the frame that revealed it (1-based), the two ends (AP or TDLS
/// initiator first), the AKM and cipher, how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyEvent {
    pub frame: u64,
    pub aa: MacAddr,
    pub spa: MacAddr,
    pub akm: Option<Akm>,
    pub cipher: CipherSuite,
    pub source: KeySource,
}

/// Most key events kept in [`Stats::keys_learnt`].
pub const MAX_EVENTS: usize = 4096;

pub struct Decryptor {
    passphrases: Vec<(Vec<u8>, Zeroizing<Vec<u8>>)>,
    pmks: Vec<Zeroizing<Vec<u8>>>,
    msks: Vec<Zeroizing<Vec<u8>>>,
    wep: Vec<WepKey>,
    tks: Vec<Zeroizing<Vec<u8>>>,
    /// PSKs derived from passphrases, by SSID (PBKDF2 runs once per SSID and passphrase).
    psk_cache: HashMap<Vec<u8>, Vec<Zeroizing<Vec<u8>>>>,
    bss: HashMap<MacAddr, Bss>,
    links: HashMap<(MacAddr, MacAddr), Link>,
    /// Last (Sequence Control, TID) decrypted per transmitter, for retransmissions.
    last_seq: HashMap<(MacAddr, u8), u16>,
    /// First pass of a two-pass run: learn keys only.
    learning: bool,
    /// Bumped whenever an EAPOL-Key frame inside an encrypted frame may have brought keys;
    /// a batch re-plans a frame that failed before those (see [`Decryptor::process_batch`]).
    epoch: u64,
    /// Position (1-based, in capture order) of the frame being planned or committed. Keys
    /// carry the position of the frame that revealed them, and a frame uses only keys
    /// revealed before it: so a batch, which plans ahead of its commits, decides exactly
    /// as one frame at a time does.
    pos: u64,
    pub stats: Stats,
}

/// One candidate key of a frame's crypto work.
enum Cand {
    Wep(usize),
    Key(Zeroizing<Vec<u8>>, CipherSuite),
    Tk(Zeroizing<Vec<u8>>),
}

/// A protected frame's crypto work, planned in capture order, runnable on any thread.
struct Job {
    cands: Vec<Cand>,
    /// The reason to report if no candidate decrypts it (known at planning time, when the
    /// frame's position in the capture is).
    fail: FailReason,
    epoch: u64,
    pos: u64,
    /// Transmitter, TID, Sequence Control, Retry: for one copy of retransmissions.
    ta: MacAddr,
    tid: u8,
    sc: u16,
    retry: bool,
}

enum Step {
    Done(Outcome),
    Crypto(Job),
}

impl Job {
    fn run(&self, wep: &[WepKey], mpdu: &[u8]) -> Option<Plain> {
        for c in &self.cands {
            let r = match c {
                Cand::Wep(i) => {
                    let mut out = Vec::new();
                    let k = &wep[*i];
                    k.decapsulate(mpdu, &mut out).is_ok().then(|| (out, k.suite(), false))
                }
                Cand::Key(k, cipher) => decrypt_with(k, *cipher, mpdu),
                Cand::Tk(t) => Decryptor::try_tk(t, mpdu),
            };
            if r.is_some() {
                return r;
            }
        }
        None
    }
}

/// In the learning pass, protected frames longer than this are not decrypted: EAPOL-Key
/// frames (the only thing the pass looks for inside encryption) are far shorter.
const LEARN_MAX_LEN: usize = 600;

/// Bound on tracked BSSs and links, so that garbage captures cannot grow memory forever.
const MAX_TRACKED: usize = 65_536;

/// PTKs kept per link: the one in force, the one it replaced (Extended Key ID, 12.6.21,
/// and frames still in flight across a rekey) and two more.
pub const MAX_PTKS_PER_LINK: usize = 4;

fn addr_pair(h: &Header<&[u8]>) -> Option<(MacAddr, MacAddr)> {
    Some((h.addr1(), h.addr2()?))
}

impl Decryptor {
    pub fn new(keys: Vec<UserKey>) -> Decryptor {
        let mut d = Decryptor {
            passphrases: Vec::new(),
            pmks: Vec::new(),
            msks: Vec::new(),
            wep: Vec::new(),
            tks: Vec::new(),
            psk_cache: HashMap::new(),
            bss: HashMap::new(),
            links: HashMap::new(),
            last_seq: HashMap::new(),
            learning: false,
            epoch: 0,
            pos: 0,
            stats: Stats::default(),
        };
        for k in keys {
            match k {
                UserKey::Passphrase { ssid, passphrase } => d.passphrases.push((ssid, passphrase)),
                UserKey::Pmk(p) => d.pmks.push(p),
                UserKey::Msk(m) => d.msks.push(m),
                UserKey::Wep(w) => {
                    if let Ok(k) = WepKey::new(&w) {
                        d.wep.push(k)
                    }
                }
                UserKey::Tk(t) => d.tks.push(t),
            }
        }
        d
    }

    /// Candidate PMKs for a BSS and AKM: the PSKs of the passphrases given for its SSID (or
    /// for every SSID given, when the BSS's SSID was not seen), the given PMKs, then the
    /// PMKs of the given MSKs ([`keys::msk_pmk`]).
    fn pmk_candidates(&mut self, bssid: &MacAddr, akm: Akm) -> Vec<Zeroizing<Vec<u8>>> {
        let mut out = self.psk_candidates(bssid);
        out.extend(self.pmks.iter().cloned());
        out.extend(self.msks.iter().filter_map(|m| keys::msk_pmk(akm, m)));
        out
    }

    /// The PSKs of the passphrases given for the BSS's SSID (every SSID given when its SSID
    /// was not seen).
    fn psk_candidates(&mut self, bssid: &MacAddr) -> Vec<Zeroizing<Vec<u8>>> {
        let ssid = self.bss.get(bssid).and_then(|b| b.ssid.clone());
        let ssids: Vec<Vec<u8>> = match ssid {
            Some(s) => vec![s],
            None => self.passphrases.iter().map(|(s, _)| s.clone()).collect(),
        };
        let mut out = Vec::new();
        for s in ssids {
            if !self.psk_cache.contains_key(&s) {
                let psks = self
                    .passphrases
                    .iter()
                    .filter(|(ss, _)| *ss == s)
                    .filter_map(|(_, p)| pbkdf2::psk_from_passphrase(p, &s).ok())
                    .map(|k| Zeroizing::new(k.to_vec()))
                    .collect();
                self.psk_cache.insert(s.clone(), psks);
            }
            out.extend(self.psk_cache[&s].iter().cloned());
        }
        out
    }

    /// Starts a learning pass: [`Decryptor::process`] then only collects keys (handshakes,
    /// group keys, also those inside short encrypted frames) and decrypts nothing long.
    /// After [`Decryptor::end_learning`], a second pass over the same capture decrypts with
    /// every key the capture holds, e.g. group frames sent before the handshake that
    /// revealed their GTK, which neither tshark nor airdecap-ng decrypts.
    pub fn start_learning(&mut self) {
        self.learning = true;
    }

    /// Ends the learning pass: group keys stay (usable from the first frame on), pairwise
    /// keys, counters and retransmission state are reset.
    ///
    /// A PTK opens only frames after the handshake that derives it, so the second pass
    /// learns each one again at its handshake, exactly as a single pass does. Keeping the
    /// first pass's PTKs instead let the second pass's relearning of early keys (a link
    /// keeps [`MAX_PTKS_PER_LINK`]) evict a later one still in use.
    pub fn end_learning(&mut self) {
        self.learning = false;
        // The group keys the capture holds stay; the rest is counted again.
        self.stats = Stats { group_keys: self.stats.group_keys, ..Stats::default() };
        self.last_seq.clear();
        for l in self.links.values_mut() {
            l.ptks.clear();
            l.ft_pending = None;
        }
        for b in self.bss.values_mut() {
            for v in b.gtks.values_mut() {
                for g in v.iter_mut() {
                    g.1 = 0;
                }
            }
        }
    }

    /// Processes one MPDU (no radio header, no FCS).
    pub fn process(&mut self, mpdu: &[u8]) -> Outcome {
        match self.plan(mpdu) {
            Step::Done(o) => self.finish(o),
            Step::Crypto(j) => {
                let r = j.run(&self.wep, mpdu);
                let o = self.commit(&j, r);
                self.finish(o)
            }
        }
    }

    /// Processes a batch of MPDUs in capture order with the crypto on `threads` threads;
    /// returns one outcome per MPDU, the same as [`Decryptor::process`] on each in turn.
    ///
    /// How: every frame is planned in order (handshakes and beacons in the clear are learnt
    /// here, and each protected frame gets the list of keys that may open it); the crypto of
    /// the whole batch then runs in parallel; results are committed in order. A key learnt at
    /// commit (a handshake inside an encrypted frame) can open later frames of the batch
    /// planned without it: those that failed are planned and tried again. A frame that did
    /// decrypt under an older key verified its MIC, so it stands.
    pub fn process_batch(&mut self, mpdus: &[&[u8]], threads: usize) -> Vec<Outcome> {
        let steps: Vec<Step> = mpdus.iter().map(|m| self.plan(m)).collect();
        let mut results: Vec<Option<Plain>> = (0..mpdus.len()).map(|_| None).collect();
        let threads = threads.clamp(1, 64);
        let crypto = steps.iter().filter(|s| matches!(s, Step::Crypto(_))).count();
        let wep = &self.wep;
        if threads == 1 || crypto < 2 {
            for ((r, st), m) in results.iter_mut().zip(&steps).zip(mpdus) {
                if let Step::Crypto(j) = st {
                    *r = j.run(wep, m);
                }
            }
        } else {
            let chunk = mpdus.len().div_ceil(threads);
            std::thread::scope(|sc| {
                for ((rs, st), ms) in results.chunks_mut(chunk).zip(steps.chunks(chunk)).zip(mpdus.chunks(chunk)) {
                    sc.spawn(move || {
                        for ((r, st), m) in rs.iter_mut().zip(st).zip(ms) {
                            if let Step::Crypto(j) = st {
                                *r = j.run(wep, m);
                            }
                        }
                    });
                }
            });
        }
        let mut outs = Vec::with_capacity(mpdus.len());
        for ((st, r), m) in steps.into_iter().zip(results).zip(mpdus) {
            let o = match st {
                Step::Done(o) => o,
                Step::Crypto(j) => {
                    self.pos = j.pos;
                    if r.is_none() && j.epoch != self.epoch {
                        // Keys arrived (inside an earlier frame of the batch) after this frame
                        // was planned: plan it again; its reason stays the planned one.
                        match Header::new_checked(*m).map(|h| self.plan_crypto(&h)) {
                            Ok(Step::Crypto(j2)) => {
                                let r2 = j2.run(&self.wep, m);
                                self.commit(&j, r2)
                            }
                            _ => Outcome::Failed(j.fail),
                        }
                    } else {
                        self.commit(&j, r)
                    }
                }
            };
            outs.push(self.finish(o));
        }
        outs
    }

    /// In capture order: counts the frame, learns from it if it is in the clear, and plans
    /// the crypto of a protected frame.
    fn plan(&mut self, mpdu: &[u8]) -> Step {
        // Counted in the learning pass too, so that positions (first_ptk_at) agree between
        // the passes.
        self.stats.frames += 1;
        self.pos = self.stats.frames;
        if self.learning && mpdu.len() > LEARN_MAX_LEN && Header::new_checked(mpdu).is_ok_and(|h| h.frame_control().protected()) {
            return Step::Done(Outcome::Failed(FailReason::NoHandshake));
        }
        let Ok(h) = Header::new_checked(mpdu) else { return Step::Done(Outcome::Clear) };
        let f = h.frame_control();
        if f.is_mgmt() && !f.protected() {
            self.on_mgmt(&h);
            return Step::Done(Outcome::Clear);
        }
        if !f.protected() {
            if f.has_data_body() {
                if let Some(k) = eapol_key_of(&h) {
                    self.on_eapol(&h, k);
                } else if let Some((code, body)) = tdls::tdls_of(&h) {
                    self.on_tdls(code, body);
                }
            }
            return Step::Done(Outcome::Clear);
        }
        self.stats.protected += 1;
        self.plan_crypto(&h)
    }

    /// Counts an outcome and learns from a decrypted frame (a group key handshake, or a
    /// rekeying 4-way handshake, inside encryption).
    fn finish(&mut self, out: Outcome) -> Outcome {
        match &out {
            Outcome::Decrypted { mpdu, suite } => {
                *self.stats.decrypted.entry(*suite).or_default() += 1;
                if let Ok(ph) = Header::new_checked(&mpdu[..]) {
                    if ph.frame_control().has_data_body() {
                        if let Some(k) = eapol_key_of(&ph) {
                            self.epoch += 1;
                            self.on_eapol(&ph, k);
                        } else if let Some((code, body)) = tdls::tdls_of(&ph) {
                            self.epoch += 1;
                            self.on_tdls(code, body);
                        }
                    }
                }
            }
            Outcome::Failed(r) => *self.stats.failed.entry(*r).or_default() += 1,
            Outcome::Duplicate { .. } => self.stats.duplicates += 1,
            Outcome::Clear => {}
        }
        out
    }

    fn on_mgmt(&mut self, h: &Header<&[u8]>) {
        let body = h.payload();
        let parsed = match h.frame_control().subtype() {
            mgmt_subtype::BEACON | mgmt_subtype::PROBE_RESP => BeaconRepr::parse(body).map(|b| (b.elements, true)),
            s @ (mgmt_subtype::ASSOC_REQ | mgmt_subtype::REASSOC_REQ) => {
                AssocRequestRepr::parse(body, s == mgmt_subtype::REASSOC_REQ).map(|r| (r.elements, false))
            }
            mgmt_subtype::ASSOC_RESP | mgmt_subtype::REASSOC_RESP => {
                // Capability, Status Code, AID, then the elements (9.3.3.6, 9.3.3.8).
                if let (Some(st), Some(ies)) = (body.get(2..4), body.get(6..)) {
                    self.on_ft_assoc_resp(h, u16::from_le_bytes([st[0], st[1]]), ies);
                }
                return;
            }
            _ => return,
        };
        let Ok((ies, is_beacon)) = parsed else { return };
        let Some(a3) = h.addr3() else { return };
        if self.bss.len() >= MAX_TRACKED && !self.bss.contains_key(&a3) {
            return;
        }
        let mut ssid = None;
        let mut rsn = None;
        let mut wpa = None;
        let mut mdid = None;
        for e in element::elements(ies) {
            let Ok(e) = e else { break };
            match e.id {
                element::id::SSID => ssid = Some(e.body.to_vec()),
                element::id::MOBILITY_DOMAIN => mdid = crate::rsn::ft::mdid_of(e.body),
                element::id::RSN => rsn = RsnElementRepr::parse(e.bytes).ok(),
                element::id::VENDOR_SPECIFIC if ie::is_wpa_element(e.bytes) => wpa = WpaElementRepr::parse(e.bytes).ok(),
                _ => {}
            }
        }
        if is_beacon {
            let b = self.bss.entry(a3).or_default();
            if let Some(s) = ssid.filter(|s| !s.is_empty() && s.iter().any(|&c| c != 0)) {
                b.ssid = Some(s);
            }
            b.mdid = mdid.or(b.mdid);
            if let Some(r) = rsn {
                b.akms = r.akms.iter().filter_map(|s| s.akm()).collect();
                b.pairwise = r.pairwise.iter().filter_map(|s| s.cipher()).collect();
                b.group = r.group_cipher.and_then(|s| s.cipher());
            } else if let Some(w) = wpa {
                b.akms = w.akms.iter().filter_map(|s| s.akm()).collect();
                b.pairwise = w.pairwise.iter().filter_map(|s| s.cipher()).collect();
                b.group = w.group_cipher.and_then(|s| s.cipher());
            }
        } else if let (Some(sta), Some(r)) = (h.addr2(), rsn) {
            // The STA's choice in its (Re)Association Request.
            let mut akm = r.akms.first().and_then(|s| s.akm());
            if akm == Some(Akm::Owe) {
                // OWE's hash follows the group of the station's DH element (RFC 8110 4.4);
                // a request naming a PMKID rides on the earlier PMKSA of the link, whose
                // group the new DH element need not repeat (wpa_supplicant starts at 19).
                let prev = self.links.get(&(a3, sta)).and_then(|l| l.akm).filter(|a| a.is_owe());
                let dh = crate::wire::element::find_by(ies, |e| e.ext_id() == Some(crate::rsn::owe::EXT_OWE_DH_PARAM)).ok().flatten();
                let by_group =
                    dh.and_then(|e| crate::rsn::owe::parse_dh_param_element(e.bytes).ok()).and_then(|(g, _)| Akm::owe_for_group(g));
                akm = if !r.pmkids.is_empty() && prev.is_some() { prev } else { by_group.or(akm) };
            }
            let l = self.links.entry((a3, sta)).or_default();
            l.akm = akm;
            l.pairwise = r.pairwise.first().and_then(|s| s.cipher());
            if mdid.is_some() {
                l.ft.mdid = mdid;
            }
            if akm.is_some_and(|a| a.is_ft()) {
                // A fast BSS transition: the FTE carries both nonces and the MIC.
                self.on_ft_reassoc_req(a3, sta, ies);
            }
        }
    }

    /// AKM of a link: the STA's choice, else the BSS's single AKM, else by descriptor version.
    fn akm_of(&self, aa: &MacAddr, spa: &MacAddr, kdv: u8) -> Akm {
        if let Some(a) = self.links.get(&(*aa, *spa)).and_then(|l| l.akm) {
            return a;
        }
        if let Some(b) = self.bss.get(aa) {
            if let [a] = b.akms[..] {
                return a;
            }
            if let Some(a) = b.akms.iter().find(|a| a.key_descriptor_version(CipherSuite::Ccmp128).number() == kdv) {
                return *a;
            }
        }
        match kdv {
            3 => Akm::PskSha256,
            0 => Akm::Sae,
            _ => Akm::Psk,
        }
    }

    fn pairwise_of(&self, aa: &MacAddr, spa: &MacAddr, kdv: u8) -> CipherSuite {
        if kdv == 1 {
            return CipherSuite::Tkip;
        }
        if let Some(c) = self.links.get(&(*aa, *spa)).and_then(|l| l.pairwise) {
            return c;
        }
        match self.bss.get(aa).map(|b| &b.pairwise[..]) {
            Some([c, ..]) if *c != CipherSuite::Tkip => *c,
            Some([_, c, ..]) => *c,
            _ => CipherSuite::Ccmp128,
        }
    }

    fn on_eapol(&mut self, h: &Header<&[u8]>, k: (Vec<u8>, EapolKeyRepr)) {
        let (frame, mut r) = k;
        let Some((a1, a2)) = addr_pair(h) else { return };
        let ki = r.key_info;
        // The Authenticator sends the frames with Key Ack set.
        let (aa, spa) = if ki.key_ack() { (a2, a1) } else { (a1, a2) };
        let kdv = ki.descriptor_version();
        let Ok(kdv_e) = eapol::key_descriptor_version_from_number(kdv) else { return };
        let akm = self.akm_of(&aa, &spa, kdv);
        let mic_len = eapol::mic_len(kdv_e, akm);
        if r.key_mic.len() != mic_len {
            // Re-parse with the AKM's MIC length (24 for the SHA-384 AKMs, 12.7.2).
            match EapolKeyRepr::parse(&frame, mic_len) {
                Ok(r2) => r = r2,
                Err(_) => return,
            }
        }
        // The handshake cores' classification: Request/Error frames and unknown flag
        // combinations teach nothing.
        let Some(msg) = Msg::classify(ki, r.key_data.len()) else { return };
        if self.links.len() >= MAX_TRACKED && !self.links.contains_key(&(aa, spa)) {
            return;
        }
        let pairwise = self.pairwise_of(&aa, &spa, kdv);
        if msg == Msg::M1 {
            let l = self.links.entry((aa, spa)).or_default();
            l.m1.push((r.replay_counter, r.key_nonce));
            if l.m1.len() > 16 {
                l.m1.remove(0);
            }
            return;
        }
        let Ok(view) = EapolKey::new_checked(&frame[..], mic_len) else { return };
        if msg == Msg::M2 {
            // Message 2: try the ANonce of its message 1 with every candidate PMK.
            let an = self.links.get(&(aa, spa)).and_then(|l| l.m1.iter().rev().find(|(rc, _)| *rc == r.replay_counter).map(|(_, a)| *a));
            match an {
                Some(an) => {
                    if !self.try_handshake(aa, spa, akm, pairwise, &an, &r.key_nonce, &view, kdv_e, &r.key_data) {
                        self.links.entry((aa, spa)).or_default().unverified = true;
                    }
                }
                None => {
                    let l = self.links.entry((aa, spa)).or_default();
                    l.pending_m2.push((r.key_nonce, frame.clone(), r.key_data.clone(), r.replay_counter));
                    if l.pending_m2.len() > 8 {
                        l.pending_m2.remove(0);
                    }
                }
            }
            return;
        }
        // Messages 3, 4 and group 1: the PTK of this link that verifies the MIC.
        let mut found = self.find_ptk(&aa, &spa, &view, kdv_e, akm);
        if found.is_none() && msg == Msg::M3 {
            // Message 1 was missed: match pending messages 2 with this message 3's ANonce.
            let pend = self.links.get(&(aa, spa)).map(|l| l.pending_m2.clone()).unwrap_or_default();
            for (sn, m2, kd, _) in pend.iter().rev() {
                let Ok(m2v) = EapolKey::new_checked(&m2[..], mic_len) else { continue };
                if self.try_handshake(aa, spa, akm, pairwise, &r.key_nonce, sn, &m2v, kdv_e, kd) {
                    found = self.find_ptk(&aa, &spa, &view, kdv_e, akm);
                    break;
                }
            }
        }
        let Some(i) = found else {
            self.links.entry((aa, spa)).or_default().unverified = true;
            return;
        };
        // Key Data to read: encrypted (RSN M3 and group M1), or WPA1's group M1.
        let wpa_group = r.descriptor_type == DescriptorType::Wpa && matches!(msg, Msg::G1 | Msg::G2);
        if !ki.encrypted_key_data() && !wpa_group {
            return;
        }
        let l = &self.links[&(aa, spa)];
        let (ptk, _, _) = &l.ptks[i];
        let kd = if kdv == 1 {
            let Ok(kek): core::result::Result<&[u8; 16], _> = ptk.kek().try_into() else { return };
            let mut d = Zeroizing::new(r.key_data.clone());
            keywrap::rc4_key_data(kek, &r.key_iv, &mut d);
            d
        } else {
            match keywrap::aes_key_unwrap(ptk.kek(), &r.key_data) {
                Ok(d) => d,
                Err(_) => return,
            }
        };
        let mut gtks = Vec::new();
        if wpa_group {
            // WPA1 group message 1: the raw GTK, Key Index in Key Information b4-b5.
            if let Some(g) = kd.get(..r.key_length as usize) {
                gtks.push((ki.key_index(), g.to_vec()));
            }
        } else if let Ok(items) = kde::parse(&kd) {
            for it in items {
                if let KeyDataItem::Gtk(g) = it {
                    gtks.push((g.key_id, g.gtk.to_vec()));
                }
            }
        }
        for (id, g) in gtks {
            self.learn_gtk(aa, id, Zeroizing::new(g));
        }
    }

    /// Keeps a group key of the BSS `aa` under its Key ID (at most four per Key ID).
    fn learn_gtk(&mut self, aa: MacAddr, key_id: u8, g: Zeroizing<Vec<u8>>) {
        let at = self.pos;
        let b = self.bss.entry(aa).or_default();
        let v = b.gtks.entry(key_id).or_default();
        if !v.iter().any(|x| x.0[..] == g[..]) {
            v.push((g, at));
            self.stats.group_keys += 1;
            if v.len() > 4 {
                v.remove(0);
            }
        }
    }

    fn find_ptk(
        &self,
        aa: &MacAddr,
        spa: &MacAddr,
        view: &EapolKey<&[u8]>,
        kdv: crate::rsn::akm::KeyDescriptorVersion,
        akm: Akm,
    ) -> Option<usize> {
        let l = self.links.get(&(*aa, *spa))?;
        (0..l.ptks.len()).rev().find(|&i| view.verify_mic(kdv, akm, l.ptks[i].0.kck()).is_ok())
    }

    /// Derives the PTK for every candidate PMK (for the FT AKMs: every candidate XXKey,
    /// through PMK-R0 and PMK-R1, with the FT elements of message 2's Key Data or of the
    /// Association Response) and keeps the one whose MIC verifies `m2`.
    #[allow(clippy::too_many_arguments)]
    fn try_handshake(
        &mut self,
        aa: MacAddr,
        spa: MacAddr,
        akm: Akm,
        pairwise: CipherSuite,
        anonce: &[u8; 32],
        snonce: &[u8; 32],
        m2: &EapolKey<&[u8]>,
        kdv: crate::rsn::akm::KeyDescriptorVersion,
        m2_key_data: &[u8],
    ) -> bool {
        let (ptks, source) = if akm.is_ft() {
            (self.ft_initial_ptks(aa, spa, akm, pairwise, anonce, snonce, m2_key_data), KeySource::FtInitial)
        } else {
            let v = self
                .pmk_candidates(&aa, akm)
                .iter()
                .filter(|p| p.len() == akm.pmk_len())
                .filter_map(|pmk| derive_ptk(akm, pmk, aa.as_bytes(), spa.as_bytes(), anonce, snonce, pairwise, 0).ok())
                .collect();
            (v, KeySource::FourWay)
        };
        for ptk in ptks {
            if m2.verify_mic(kdv, akm, ptk.kck()).is_ok() {
                self.learn_ptk(aa, spa, ptk, pairwise, Some(akm), source);
                return true;
            }
        }
        false
    }

    /// Keeps a verified pairwise key of the link (AA, SPA) and records how it was learnt.
    fn learn_ptk(&mut self, aa: MacAddr, spa: MacAddr, ptk: Ptk, pairwise: CipherSuite, akm: Option<Akm>, source: KeySource) {
        let at = self.pos;
        let l = self.links.entry((aa, spa)).or_default();
        l.first_ptk_at.get_or_insert(at);
        l.unverified = false;
        if l.ptks.iter().any(|(p, _, _)| p.tk() == ptk.tk()) {
            return;
        }
        l.ptks.push((ptk, pairwise, at));
        if l.ptks.len() > MAX_PTKS_PER_LINK {
            // The one revealed earliest in the capture. Not the first pushed: a batch learns
            // a handshake in the clear when it plans and one inside encryption when it
            // commits, so the push order is not the capture order.
            if let Some(i) = (0..l.ptks.len()).min_by_key(|&i| l.ptks[i].2) {
                l.ptks.remove(i);
            }
        }
        self.stats.handshakes_verified += 1;
        if self.stats.keys_learnt.len() < MAX_EVENTS {
            self.stats.keys_learnt.push(KeyEvent { frame: at, aa, spa, akm, cipher: pairwise, source });
        }
    }

    /// The keys that may open a protected frame, in the order to try them.
    fn plan_crypto(&self, h: &Header<&[u8]>) -> Step {
        let f = h.frame_control();
        let Some(ta) = h.addr2() else { return Step::Done(Outcome::Failed(FailReason::Malformed)) };
        let ra = h.addr1();
        let Some(sc) = h.seq_control() else { return Step::Done(Outcome::Failed(FailReason::Malformed)) };
        let tid = if f.is_mgmt() { 16 } else { h.qos_control().map(|q| q.tid()).unwrap_or(0) };
        let Ok(k) = KeyIdOctet::parse(h.payload()) else { return Step::Done(Outcome::Failed(FailReason::Malformed)) };
        let (ext_iv, key_id) = (k.ext_iv(), k.key_id());
        let mut cands = Vec::new();
        let fail = if !ext_iv {
            cands.extend((0..self.wep.len()).map(Cand::Wep));
            FailReason::NoWepKey
        } else if ra.is_group() {
            let bssid = ta; // group data frames come From DS, TA = BSSID
            if let Some(b) = self.bss.get(&bssid) {
                if let Some(v) = b.gtks.get(&key_id) {
                    let cipher = b.group.unwrap_or(CipherSuite::Ccmp128);
                    for (g, at) in v.iter().rev() {
                        if *at >= self.pos {
                            continue;
                        }
                        // An unannounced group cipher is inferred from the GTK's length.
                        let by_len = || CipherSuite::by_key_len(g.len()).find(|c| c.is_group());
                        let c = if b.group.is_none() { by_len().unwrap_or(cipher) } else { cipher };
                        cands.push(Cand::Key(g.clone(), c));
                    }
                }
            }
            cands.extend(self.tks.iter().map(|t| Cand::Tk(t.clone())));
            let pos = self.pos;
            let any_gtk = self.bss.get(&bssid).is_some_and(|b| b.gtks.values().flatten().any(|g| g.1 < pos));
            if any_gtk {
                FailReason::MicOrIcvFailure
            } else {
                FailReason::NoGroupKey
            }
        } else {
            // The link is (AA, SPA) in either direction of the frame.
            for key in [(ra, ta), (ta, ra)] {
                if let Some(l) = self.links.get(&key) {
                    for (ptk, cipher, at) in l.ptks.iter().rev() {
                        if *at < self.pos {
                            cands.push(Cand::Key(Zeroizing::new(ptk.tk().to_vec()), *cipher));
                        }
                    }
                }
            }
            cands.extend(self.tks.iter().map(|t| Cand::Tk(t.clone())));
            self.why_not(&ra, &ta)
        };
        // Even with no candidate the frame stays a job: a batch may learn its key at commit.
        Step::Crypto(Job { cands, fail, epoch: self.epoch, pos: self.pos, ta, tid, sc: sc.0, retry: f.retry() })
    }

    /// The outcome of a frame's crypto, in capture order: one copy of a retransmission.
    fn commit(&mut self, j: &Job, r: Option<Plain>) -> Outcome {
        let Some((mpdu, suite, michael_unchecked)) = r else {
            let m = &mut self.stats.failed_by_transmitter;
            if m.len() < MAX_EVENTS || m.contains_key(&j.ta) {
                *m.entry(j.ta).or_default().entry(j.fail).or_default() += 1;
            }
            return Outcome::Failed(j.fail);
        };
        // A retransmission (Retry set, same TA, TID and Sequence Control) decrypts like
        // the original, which proves it genuine; only one copy goes out.
        if j.retry && self.last_seq.get(&(j.ta, j.tid)) == Some(&j.sc) {
            return Outcome::Duplicate { mpdu, suite };
        }
        if self.last_seq.len() < MAX_TRACKED || self.last_seq.contains_key(&(j.ta, j.tid)) {
            self.last_seq.insert((j.ta, j.tid), j.sc);
        }
        if michael_unchecked {
            self.stats.tkip_michael_unchecked += 1;
        }
        Outcome::Decrypted { mpdu, suite }
    }

    /// Tries a temporal key under every pairwise cipher its length allows, in the suite
    /// table's order ([`CipherSuite::by_key_len`]): 16 octets as CCMP-128, GCMP-128, then TKIP
    /// without Michael (the TK alone, as Wireshark's `"tk"` records carry it); 32 octets as
    /// TKIP (TK || Michael keys), CCMP-256, GCMP-256.
    fn try_tk(tk: &[u8], mpdu: &[u8]) -> Option<Plain> {
        CipherSuite::by_key_len(tk.len()).filter(|c| c.is_pairwise()).find_map(|c| decrypt_with(tk, c, mpdu)).or_else(|| {
            if tk.len() == 16 {
                tkip_without_michael(tk, mpdu)
            } else {
                None
            }
        })
    }

    /// Says why a unicast frame of this link has no key.
    fn why_not(&self, ra: &MacAddr, ta: &MacAddr) -> FailReason {
        for key in [(*ra, *ta), (*ta, *ra)] {
            if let Some(l) = self.links.get(&key) {
                if l.first_ptk_at.is_some_and(|at| self.pos < at) {
                    return FailReason::NoHandshake;
                }
                if l.ptks.iter().any(|p| p.2 < self.pos) {
                    return FailReason::MicOrIcvFailure;
                }
                if l.unverified {
                    let akm = self.akm_of(&key.0, &key.1, 2);
                    let needs_pmk = !akm.is_psk() && self.pmks.is_empty();
                    return if needs_pmk { FailReason::PmkNeeded } else { FailReason::WrongOrMissingPmk };
                }
            }
        }
        // The BSS is known to use SAE/OWE/802.1X and no PMK was given.
        for b in [ra, ta] {
            if let Some(bss) = self.bss.get(b) {
                if !bss.akms.is_empty() && bss.akms.iter().all(|a| !a.is_psk()) && self.pmks.is_empty() {
                    return FailReason::PmkNeeded;
                }
            }
        }
        FailReason::NoHandshake
    }
}

/// Decrypts with a TK under `cipher` (TKIP: the direction from the frame; fragments by ICV).
fn decrypt_with(tk: &[u8], cipher: CipherSuite, mpdu: &[u8]) -> Option<Plain> {
    // Only the data suites of an RSNA, which use the Ext IV header: WEP keys are tried as
    // `Cand::Wep`, and BIP encrypts nothing.
    if !(cipher.is_pairwise() || cipher.is_group()) {
        return None;
    }
    // A suite takes its size from the key (CCMP-128 or CCMP-256, GCMP-128 or GCMP-256): a
    // GTK longer or shorter than the group cipher a Beacon announced is still tried (and
    // reported under the announced name).
    let build = CipherSuite::by_algorithm(cipher.algorithm(), tk.len()).unwrap_or(cipher);
    let key = SuiteKey::new(build, tk, KeyOptions::default()).ok()?;
    let mut out = Vec::new();
    let ok = match &key {
        // Michael covers the whole MSDU: a fragment is checked by its ICV alone.
        SuiteKey::Tkip(k) => k.decapsulate(mpdu, &mut out).is_ok() || k.decapsulate_fragment_into(mpdu, &mut out).is_ok(),
        k => k.as_protection().decapsulate(mpdu, &mut out).is_ok(),
    };
    if ok {
        return Some((out, cipher, false));
    }
    // An A-MSDU between two SPP A-MSDU Capable STAs (9.4.2.24.4) has its A-MSDU Present
    // bit in the AAD (12.5.3.3.3): tried that way when the masked AAD fails (the MIC
    // decides; the association that says so may not be in the capture).
    if !matches!(key, SuiteKey::Tkip(_)) && spp_candidate(mpdu) {
        let spp = KeyOptions { aad: crate::cipher::AadOptions { spp_amsdu: true, ..Default::default() }, ..Default::default() };
        let key = SuiteKey::new(build, tk, spp).ok()?;
        out.clear();
        if key.as_protection().decapsulate(mpdu, &mut out).is_ok() {
            return Some((out, cipher, false));
        }
    }
    None
}

/// A protected, individually addressed QoS Data MPDU with A-MSDU Present (9.2.4.5.9).
fn spp_candidate(mpdu: &[u8]) -> bool {
    let Ok(h) = Header::new_checked(mpdu) else { return false };
    h.frame_control().protected() && !h.addr1().is_group() && h.qos_control().is_some_and(|q| q.amsdu_present())
}

/// TKIP (12.5.2) with the 16-octet TK alone: the ICV is checked; the Michael MIC (the last
/// 8 octets of an unfragmented MSDU) is removed without being verified, since its key is
/// not known. Fragments keep their octets (the MIC may straddle them).
fn tkip_without_michael(tk: &[u8], mpdu: &[u8]) -> Option<Plain> {
    let mut full = Zeroizing::new([0u8; 32]);
    full[..16].copy_from_slice(tk.get(..16)?);
    let SuiteKey::Tkip(k) = SuiteKey::new(CipherSuite::Tkip, &full[..], KeyOptions::default()).ok()? else { return None };
    let mut out = Vec::new();
    k.decapsulate_fragment_into(mpdu, &mut out).ok()?;
    let h = Header::new_checked(&out[..]).ok()?;
    let fragmented = h.frame_control().more_fragments() || h.seq_control().is_some_and(|s| s.fragment() != 0);
    if !fragmented {
        let hl = out.len() - h.payload().len();
        if out.len() < hl + 8 {
            return None;
        }
        out.truncate(out.len() - 8);
    }
    Some((out, CipherSuite::Tkip, true))
}

/// The EAPOL-Key frame carried by a plaintext data MPDU (LLC/SNAP, EtherType 0x888E).
fn eapol_key_of(h: &Header<&[u8]>) -> Option<(Vec<u8>, EapolKeyRepr)> {
    let s = Snap::new_checked(h.payload()).ok()?;
    if s.ethertype() != EtherType::EAPOL {
        return None;
    }
    let body = s.payload();
    if body.len() <= eapol::field::DESCRIPTOR_TYPE || body[eapol::field::PACKET_TYPE] != eapol::PACKET_TYPE_EAPOL_KEY {
        return None;
    }
    let l = &body[eapol::field::PACKET_BODY_LENGTH];
    let len = (eapol::EAPOL_HEADER_LEN + u16::from_be_bytes([l[0], l[1]]) as usize).min(body.len());
    // The MIC length depends on the AKM: try 16, then 24 (SHA-384 AKMs), then 32 (OWE
    // with group 21).
    let r = EapolKeyRepr::parse(&body[..len], 16)
        .or_else(|_| EapolKeyRepr::parse(&body[..len], 24))
        .or_else(|_| EapolKeyRepr::parse(&body[..len], 32))
        .ok()?;
    Some((body[..len].to_vec(), r))
}
