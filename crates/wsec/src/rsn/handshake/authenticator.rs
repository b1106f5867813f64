//! The Authenticator side of the 4-way and group key handshakes (IEEE 802.11-2020 12.7.6,
//! 12.7.7), one instance per associated STA.
//!
//! Every EAPOL-Key frame it sends carries a new, larger Key Replay Counter; a reply is
//! accepted only if it echoes the counter of a request sent in the current exchange and
//! its MIC verifies. Requests are retransmitted after `Timers::eapol_timeout_ns`, up to
//! `Timers::max_tries` times in all, then the handshake fails.
use super::msg::{self, Fields, Msg};
use super::supplicant::reason;
use super::{derive_handshake_ptk, random_nonce, same_rsne_but_pmkids, Config, Event, FtHandshake, Output};
use crate::cipher::Pn;
use crate::error::{Error, Result};
use crate::rsn::eapol::EapolKeyRepr;
use crate::rsn::ie;
use crate::rsn::kde::{self, KeyDataBuilder, KeyDataItem};
use crate::rsn::kdf::Ptk;
use zeroize::Zeroizing;

/// The AP's group keys, shared by all its STAs and handed to each Authenticator.
#[derive(Clone)]
pub struct GroupKeys {
    pub gtk: Zeroizing<Vec<u8>>,
    pub gtk_key_id: u8,
    /// The GTK's transmit sequence counter: the Key RSC sent with it.
    pub gtk_rsc: Pn,
    /// IGTK, its Key ID (4 or 5) and IPN, when management frame protection is in use.
    pub igtk: Option<(Zeroizing<Vec<u8>>, u8, Pn)>,
}

impl GroupKeys {
    /// Fresh random group keys for the config's group (and group management) cipher.
    pub fn random(cfg: &Config, gtk_key_id: u8, rng: &mut dyn rand_core::CryptoRngCore) -> GroupKeys {
        let mut gtk = Zeroizing::new(random_nonce(rng).to_vec());
        gtk.truncate(cfg.group.key_len());
        let igtk = cfg.group_mgmt.map(|c| {
            let mut k = Zeroizing::new(random_nonce(rng).to_vec());
            k.truncate(c.key_len());
            (k, 4, 0)
        });
        GroupKeys { gtk, gtk_key_id, gtk_rsc: 0, igtk }
    }
}

enum State {
    Idle,
    /// Message 1 sent (counters of every copy), waiting for message 2.
    AwaitM2 {
        anonce: [u8; 32],
        counters: Vec<u64>,
    },
    /// Message 3 sent, waiting for message 4. `key_id`: the new PTK's (0 without
    /// Extended Key ID).
    AwaitM4 {
        anonce: [u8; 32],
        ptk: Box<Ptk>,
        counters: Vec<u64>,
        key_id: u8,
    },
    /// The PTK is in force.
    Done,
    Failed,
}

enum GroupState {
    Idle,
    AwaitG2 { counters: Vec<u64> },
}

pub struct Authenticator {
    cfg: Config,
    group: GroupKeys,
    replay_counter: u64,
    state: State,
    group_state: GroupState,
    ptk: Option<Ptk>,
    /// The Key ID of the PTK in force (Extended Key ID: the next PTK takes the other).
    ptk_key_id: u8,
    tries: u32,
    deadline: Option<u64>,
    rng: crate::rng::BoxRng,
    transition_disable: u8,
    ft: Option<FtHandshake>,
}

impl Authenticator {
    /// An authenticator whose ANonces (and RC4 key IVs) come from `rng`.
    pub fn new(cfg: Config, group: GroupKeys, rng: crate::rng::BoxRng) -> Authenticator {
        Authenticator {
            rng,
            cfg,
            group,
            replay_counter: 0,
            state: State::Idle,
            group_state: GroupState::Idle,
            ptk: None,
            // The Key ID "before" the first PTK, so that the first one takes 0.
            ptk_key_id: 1,
            tries: 0,
            deadline: None,
            transition_disable: 0,
            ft: None,
        }
    }

    /// Runs the handshakes of an FT initial mobility domain association (13.4): PTKs from
    /// PMK-R1, PMKR1Name, MDE and FTE in messages 2 and 3. Set before [`Self::start`].
    pub fn set_ft(&mut self, ft: FtHandshake) {
        self.ft = Some(ft);
    }

    /// Sends a Transition Disable KDE with this bitmap in message 3 (hostapd
    /// `transition_disable`; WPA3 Specification 13.2); 0: none.
    pub fn set_transition_disable(&mut self, bitmap: u8) {
        self.transition_disable = bitmap;
    }

    /// With Extended Key ID, the first PTK goes under `key_id` (hostapd
    /// `extended_key_id=2` starts with 1); later ones alternate. Ignored without it.
    pub fn set_first_key_id(&mut self, key_id: u8) {
        if self.ptk.is_none() {
            self.ptk_key_id = (key_id & 1) ^ 1;
        }
    }

    pub fn is_established(&self) -> bool {
        self.ptk.is_some()
    }

    /// Starts established under a PTK made outside the 4-way handshake (a fast BSS
    /// transition's, 13.8.5, under Key ID 0): group key handshakes and PTK rekeys follow.
    pub fn set_established(&mut self, ptk: Ptk) {
        self.ptk = Some(ptk);
        self.ptk_key_id = 0;
        self.state = State::Done;
        self.deadline = None;
    }

    /// The PTK in force.
    pub fn ptk(&self) -> Option<&Ptk> {
        self.ptk.as_ref()
    }

    fn next_counter(&mut self) -> u64 {
        self.replay_counter += 1;
        self.replay_counter
    }

    fn arm(&mut self, now_ns: u64, out: &mut Output) {
        self.deadline = Some(now_ns + self.cfg.timers.eapol_timeout_ns);
        out.deadline = self.deadline;
    }

    /// Starts the 4-way handshake (after association), or a PTK rekey once established.
    pub fn start(&mut self, now_ns: u64) -> Output {
        let mut out = Output::default();
        let anonce = random_nonce(&mut *self.rng);
        self.tries = 0;
        self.state = State::AwaitM2 { anonce, counters: Vec::new() };
        self.send_m1(now_ns, &mut out);
        out
    }

    /// A new PMK for the handshakes from now on (an IEEE 802.1X reauthentication's MSK); the
    /// PTK in force stays until the next handshake replaces it.
    pub fn set_pmk(&mut self, pmk: Zeroizing<Vec<u8>>) {
        self.cfg.pmk = pmk;
    }

    /// PTK rekey: a new 4-way handshake while the current PTK stays in force.
    pub fn rekey_ptk(&mut self, now_ns: u64) -> Output {
        self.start(now_ns)
    }

    fn send_m1(&mut self, now_ns: u64, out: &mut Output) {
        let rc = self.next_counter();
        let State::AwaitM2 { anonce, counters } = &mut self.state else { return };
        counters.push(rc);
        // 12.7.6.2: with an 802.1X AKM message 1 names the PMK in a PMKID KDE (as hostapd):
        // a supplicant that offered a cached PMKSA checks it before it trusts that PMK
        // (wpa_supplicant otherwise abandons the cached PMKSA for a full EAP run).
        let mut kd = Vec::new();
        if self.cfg.akm.is_8021x() && !crate::rsn::ie::is_wpa_element(&self.cfg.ap_rsne) {
            let id = crate::rsn::kdf::pmkid(self.cfg.akm, &self.cfg.pmk, &self.cfg.aa.0, &self.cfg.spa.0);
            let mut b = crate::rsn::kde::KeyDataBuilder::new();
            if b.pmkid(id).is_ok() {
                kd = b.finish().to_vec();
            }
        }
        let f = Fields { replay_counter: rc, nonce: *anonce, rsc: 0, key_data: &kd, key_index: 0 };
        match msg::build(&self.cfg, Msg::M1, f, None, None, &mut *self.rng) {
            Ok(m1) => out.tx.push(m1),
            Err(_) => return self.fail("cannot build message 1", out),
        }
        self.tries += 1;
        self.arm(now_ns, out);
    }

    /// The Key Data of message 3 and group message 1: (RSNE,) GTK KDE (, IGTK KDE).
    /// WPA1 (WPA v3.1, hostapd `wpa_auth.c`): message 3 carries only the AP's WPA element,
    /// in plaintext, and group message 1 the bare GTK (no KDE), encrypted by `msg::build`.
    fn group_key_data(&self, with_rsne: bool, key_id: Option<u8>) -> Result<Zeroizing<Vec<u8>>> {
        if self.cfg.is_wpa1() {
            return Ok(Zeroizing::new(if with_rsne { self.cfg.ap_rsne.clone() } else { self.group.gtk.to_vec() }));
        }
        let mut b = KeyDataBuilder::new();
        if with_rsne {
            // The AP's RSNE, then its RSNXE when it advertises one (12.7.6.4): `ap_rsne`
            // holds whole elements back to back. FT: PMKR1Name in the RSNE, the MDE after.
            let ap_ie = match &self.ft {
                Some(ft) => [ft.rsne_with_r1name(&self.cfg.ap_rsne)?, ft.mde.clone()].concat(),
                None => self.cfg.ap_rsne.clone(),
            };
            let mut rest = &ap_ie[..];
            while rest.len() >= 2 {
                let n = (2 + rest[1] as usize).min(rest.len());
                b.element(&rest[..n])?;
                rest = &rest[n..];
            }
        }
        // Extended Key ID: the new PTK's Key ID, before the GTK as hostapd has it (12.7.6.4).
        if let Some(id) = key_id {
            b.push(&KeyDataItem::KeyId(id))?;
        }
        b.gtk(self.group.gtk_key_id, false, &self.group.gtk)?;
        if let Some((igtk, id, ipn)) = &self.group.igtk {
            b.igtk(*id as u16, *ipn, igtk)?;
        }
        // FT: the FTE of the (Re)Association Response and the two Timeout Intervals.
        if let (true, Some(ft)) = (with_rsne, &self.ft) {
            use crate::wire::element::{timeout_type, TimeoutIntervalRepr};
            b.element(&ft.fte)?;
            let mut tie = Vec::new();
            TimeoutIntervalRepr { kind: timeout_type::REASSOCIATION_DEADLINE, value: ft.reassoc_deadline_tu }.push(&mut tie)?;
            TimeoutIntervalRepr { kind: timeout_type::KEY_LIFETIME, value: ft.key_lifetime_s }.push(&mut tie)?;
            b.element(&tie[..7])?.element(&tie[7..])?;
        }
        // After the GTK and IGTK KDEs, as hostapd's `wpa_send_eapol_msg3`; message 3 only.
        if with_rsne && self.transition_disable != 0 {
            b.push(&KeyDataItem::TransitionDisable(self.transition_disable))?;
        }
        Ok(Zeroizing::new(b.finish()))
    }

    fn send_m3(&mut self, now_ns: u64, out: &mut Output) {
        let rc = self.next_counter();
        let key_id = match &self.state {
            State::AwaitM4 { key_id, .. } => self.cfg.extended_key_id().then_some(*key_id),
            _ => return,
        };
        let kd = match self.group_key_data(true, key_id) {
            Ok(kd) => kd,
            Err(_) => return self.fail("cannot build message 3 Key Data", out),
        };
        let State::AwaitM4 { anonce, ptk, counters, .. } = &mut self.state else { return };
        counters.push(rc);
        // WPA1's message 3 has no GTK, so no RSC for it.
        let rsc = if self.cfg.is_wpa1() { 0 } else { self.group.gtk_rsc };
        let f = Fields { replay_counter: rc, nonce: *anonce, rsc, key_data: &kd, key_index: 0 };
        match msg::build(&self.cfg, Msg::M3, f, Some(ptk.kck()), Some(ptk.kek()), &mut *self.rng) {
            Ok(m3) => out.tx.push(m3),
            Err(_) => return self.fail("cannot build message 3", out),
        }
        self.tries += 1;
        self.arm(now_ns, out);
    }

    /// Starts a group key handshake with new group keys (GTK rekey).
    pub fn rekey_group(&mut self, now_ns: u64, group: GroupKeys) -> Output {
        let mut out = Output::default();
        if self.ptk.is_none() {
            out.events.push(Event::Dropped("group rekey before the 4-way handshake"));
            return out;
        }
        self.group = group;
        self.tries = 0;
        self.group_state = GroupState::AwaitG2 { counters: Vec::new() };
        self.send_g1(now_ns, &mut out);
        out
    }

    fn send_g1(&mut self, now_ns: u64, out: &mut Output) {
        let rc = self.next_counter();
        let kd = match self.group_key_data(false, None) {
            Ok(kd) => kd,
            Err(_) => return self.fail("cannot build group message 1 Key Data", out),
        };
        let GroupState::AwaitG2 { counters } = &mut self.group_state else { return };
        counters.push(rc);
        let ptk = self.ptk.as_ref().expect("checked by rekey_group");
        let f = Fields { replay_counter: rc, nonce: [0; 32], rsc: self.group.gtk_rsc, key_data: &kd, key_index: self.group.gtk_key_id };
        match msg::build(&self.cfg, Msg::G1, f, Some(ptk.kck()), Some(ptk.kek()), &mut *self.rng) {
            Ok(g1) => out.tx.push(g1),
            Err(_) => return self.fail("cannot build group message 1", out),
        }
        self.tries += 1;
        self.arm(now_ns, out);
    }

    fn fail(&mut self, why: &'static str, out: &mut Output) {
        self.state = State::Failed;
        self.group_state = GroupState::Idle;
        self.deadline = None;
        out.deadline = None;
        out.events.push(Event::Failed(why));
    }

    /// Retransmits the pending request when its deadline has passed.
    pub fn handle_timeout(&mut self, now_ns: u64) -> Output {
        let mut out = Output::default();
        match self.deadline {
            Some(d) if now_ns >= d => {}
            d => {
                out.deadline = d;
                return out;
            }
        }
        if self.tries >= self.cfg.timers.max_tries {
            self.fail("no answer to the last retransmission", &mut out);
            return out;
        }
        match (&self.state, &self.group_state) {
            (State::AwaitM2 { .. }, _) => self.send_m1(now_ns, &mut out),
            (State::AwaitM4 { .. }, _) => self.send_m3(now_ns, &mut out),
            (_, GroupState::AwaitG2 { .. }) => self.send_g1(now_ns, &mut out),
            _ => self.deadline = None,
        }
        out
    }

    /// Handles one received EAPOL frame.
    pub fn handle_eapol(&mut self, now_ns: u64, frame: &[u8]) -> Output {
        let mut out = Output::default();
        if let Err(e) = self.process(now_ns, frame, &mut out) {
            out.events.push(Event::Dropped(reason(e)));
        }
        if out.deadline.is_none() {
            out.deadline = self.deadline;
        }
        out
    }

    fn process(&mut self, now_ns: u64, frame: &[u8], out: &mut Output) -> Result<()> {
        let (r, m) = msg::parse(&self.cfg, frame)?;
        match m {
            Msg::M2 => self.on_m2(now_ns, frame, &r, out),
            Msg::M4 => self.on_m4(now_ns, frame, &r, out),
            Msg::G2 => self.on_g2(frame, &r, out),
            _ => Err(Error::Malformed("message not for an Authenticator")),
        }
    }

    fn on_m2(&mut self, now_ns: u64, frame: &[u8], r: &EapolKeyRepr, out: &mut Output) -> Result<()> {
        let State::AwaitM2 { anonce, counters } = &self.state else {
            return Err(Error::Malformed("unexpected message 2"));
        };
        if !counters.contains(&r.replay_counter) {
            return Err(Error::Replay);
        }
        let c = &self.cfg;
        let ptk = derive_handshake_ptk(c, self.ft.as_ref(), anonce, &r.key_nonce)?;
        msg::verify(c, frame, ptk.kck())?;
        // 12.7.6.3: the RSNE in message 2 must be the one of the (Re)Association Request.
        // WPA1: the WPA element, compared the same way (hostapd `wpa_receive`).
        let sta_rsne = if c.is_wpa1() {
            ie::find_wpa_element(&r.key_data)?
        } else {
            kde::parse(&r.key_data)?.into_iter().find_map(|i| match i {
                KeyDataItem::Rsn(e) => Some(e),
                _ => None,
            })
        };
        let same = match (&self.ft, sta_rsne) {
            (Some(_), Some(e)) => same_rsne_but_pmkids(e, &c.sta_rsne),
            (_, e) => e == Some(&c.sta_rsne[..]),
        };
        if !same {
            self.fail("RSNE in message 2 differs from the Association Request's", out);
            return Ok(());
        }
        if let Some(ft) = &self.ft {
            // hostapd `ft_check_msg_2_of_4`: PMKR1Name, the MDE and the FTE of the
            // Association Response; a message that lacks them is dropped.
            let items = kde::parse(&r.key_data)?;
            let el = |id: u8| {
                items.iter().find_map(|i| match i {
                    KeyDataItem::Element(e) if e[0] == id => Some(*e),
                    _ => None,
                })
            };
            use crate::wire::element::id;
            let r1 = sta_rsne.and_then(|e| crate::rsn::ie::RsnElementRepr::parse(e).ok()).and_then(|e| e.pmkids.first().copied());
            if r1.is_none_or(|n| !bool::from(subtle::ConstantTimeEq::ct_eq(&n[..], &ft.pmk_r1.name[..]))) {
                return Err(Error::Malformed("FT: PMKR1Name in message 2 differs"));
            }
            if el(id::MOBILITY_DOMAIN).and_then(|m| m.get(2..4)) != ft.mde.get(2..4) {
                return Err(Error::Malformed("FT: MDE in message 2 differs"));
            }
            if el(id::FAST_BSS_TRANSITION) != Some(&ft.fte[..]) {
                return Err(Error::Malformed("FT: FTE in message 2 differs from the Association Response's"));
            }
        }
        let anonce = *anonce;
        self.tries = 0;
        // Extended Key ID (12.6.21): the new PTK takes the Key ID not in use, and is
        // installed for reception before message 3 goes out under the PTK in force.
        let key_id = if self.cfg.extended_key_id() { self.ptk_key_id ^ 1 } else { 0 };
        if self.cfg.extended_key_id() {
            if ptk.tk_is_zero() {
                self.fail("all-zero TK refused", out);
                return Ok(());
            }
            out.events.push(Event::InstallPtkRx { tk: Zeroizing::new(ptk.tk().to_vec()), cipher: self.cfg.pairwise, key_id });
        }
        self.state = State::AwaitM4 { anonce, ptk: Box::new(ptk), counters: Vec::new(), key_id };
        self.send_m3(now_ns, out);
        Ok(())
    }

    fn on_m4(&mut self, now_ns: u64, frame: &[u8], r: &EapolKeyRepr, out: &mut Output) -> Result<()> {
        let State::AwaitM4 { ptk, counters, .. } = &self.state else {
            return Err(Error::Malformed("unexpected message 4"));
        };
        if !counters.contains(&r.replay_counter) {
            return Err(Error::Replay);
        }
        msg::verify(&self.cfg, frame, ptk.kck())?;
        let State::AwaitM4 { ptk, key_id, .. } = core::mem::replace(&mut self.state, State::Done) else { unreachable!() };
        self.deadline = None;
        out.deadline = None;
        if ptk.tk_is_zero() {
            self.fail("all-zero TK refused", out);
            return Ok(());
        }
        if self.cfg.extended_key_id() {
            // Installed for reception with message 3; message 4 switches transmission.
            out.events.push(Event::ActivatePtk { key_id });
        } else {
            out.events.push(Event::InstallPtk { tk: Zeroizing::new(ptk.tk().to_vec()), cipher: self.cfg.pairwise, key_id: 0 });
        }
        self.ptk_key_id = key_id;
        let first = self.ptk.is_none();
        self.ptk = Some(*ptk);
        if first {
            // WPA1 as well: hostapd authorizes a PSK station's port at PTKINITDONE, before
            // the group key handshake (its data frames are unicast under the PTK).
            out.events.push(Event::Established { akm: self.cfg.akm, pairwise: self.cfg.pairwise, group: self.cfg.group });
        }
        if self.cfg.is_wpa1() {
            // WPA1: the GTK follows every 4-way handshake in a group key handshake
            // (hostapd's PInitAKeys: WPA_PTK_GROUP enters REKEYNEGOTIATING).
            self.tries = 0;
            self.group_state = GroupState::AwaitG2 { counters: Vec::new() };
            self.send_g1(now_ns, out);
        }
        Ok(())
    }

    fn on_g2(&mut self, frame: &[u8], r: &EapolKeyRepr, out: &mut Output) -> Result<()> {
        let GroupState::AwaitG2 { counters } = &self.group_state else {
            return Err(Error::Malformed("unexpected group message 2"));
        };
        if !counters.contains(&r.replay_counter) {
            return Err(Error::Replay);
        }
        let ptk = self.ptk.as_ref().ok_or(Error::Malformed("no PTK"))?;
        msg::verify(&self.cfg, frame, ptk.kck())?;
        self.group_state = GroupState::Idle;
        if matches!(self.state, State::Done) {
            self.deadline = None;
            out.deadline = None;
        }
        out.events.push(Event::GroupKeyDone { key_id: self.group.gtk_key_id });
        Ok(())
    }
}
