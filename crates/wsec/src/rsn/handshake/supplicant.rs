//! The Supplicant side of the 4-way and group key handshakes (IEEE 802.11-2020 12.7.6,
//! 12.7.7; the state machine of 13.? "Supplicant key management state machine" reduced to
//! what a PSK/SAE/OWE STA needs: the PMK is given).
use super::msg::{self, Fields, Msg};
use super::{derive_handshake_ptk, random_nonce, same_rsne_but_pmkids, Config, Event, FtHandshake, Output};
use crate::error::{Error, Result};
use crate::rsn::eapol::EapolKeyRepr;
use crate::rsn::ie;
use crate::rsn::kde::{self, KeyDataItem};
use crate::rsn::kdf::Ptk;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

/// A key this STA has installed, remembered so that it is never installed twice.
#[derive(Clone)]
struct Installed {
    key_id: u8,
    key: Zeroizing<Vec<u8>>,
}

impl Installed {
    fn same(&self, key_id: u8, key: &[u8]) -> bool {
        self.key_id == key_id && bool::from(self.key.as_slice().ct_eq(key))
    }
}

pub struct Supplicant {
    cfg: Config,
    /// Highest Key Replay Counter of a frame whose MIC verified (12.7.2 e: later frames
    /// must carry a larger one).
    rx_replay_counter: Option<u64>,
    /// The ANonce of the handshake in progress and our SNonce for it.
    anonce: Option<[u8; 32]>,
    snonce: [u8; 32],
    /// The PTK derived from the current M1 (TPTK), and the one in force.
    tptk: Option<Ptk>,
    ptk: Option<Ptk>,
    /// The ANonce the PTK in force was derived from: a retransmitted message 3 of that
    /// handshake is answered again (message 4 may have been lost) but installs nothing.
    ptk_anonce: Option<[u8; 32]>,
    installed_ptk: Option<Installed>,
    /// Extended Key ID: the Key ID the station transmits with (the PTK in force).
    active_key_id: Option<u8>,
    installed_gtk: Option<Installed>,
    installed_igtk: Option<Installed>,
    established: bool,
    rng: crate::rng::BoxRng,
    ft: Option<FtHandshake>,
}

impl Supplicant {
    /// A new PMK for the handshakes from now on (an IEEE 802.1X reauthentication's MSK); the
    /// PTK in force stays until the authenticator's next handshake replaces it.
    pub fn set_pmk(&mut self, pmk: Zeroizing<Vec<u8>>) {
        self.cfg.pmk = pmk;
    }

    /// A supplicant whose SNonces come from `rng`.
    pub fn new(cfg: Config, mut rng: crate::rng::BoxRng) -> Supplicant {
        Supplicant {
            cfg,
            rx_replay_counter: None,
            anonce: None,
            snonce: random_nonce(&mut *rng),
            rng,
            tptk: None,
            ptk: None,
            ptk_anonce: None,
            installed_ptk: None,
            active_key_id: None,
            installed_gtk: None,
            installed_igtk: None,
            established: false,
            ft: None,
        }
    }

    /// Runs the handshakes of an FT initial mobility domain association (13.4): PTKs from
    /// PMK-R1, PMKR1Name, MDE and FTE in messages 2 and 3.
    pub fn set_ft(&mut self, ft: FtHandshake) {
        self.ft = Some(ft);
    }

    /// Takes keys the STA installed outside the handshake (a fast BSS transition's PTK
    /// and GTK, 13.8.5), so that a later message 3 or group message 1 with the same keys
    /// installs nothing again.
    pub fn set_installed(&mut self, ptk: Ptk, gtk: Option<(u8, Zeroizing<Vec<u8>>)>, igtk: Option<(u8, Zeroizing<Vec<u8>>)>) {
        self.installed_ptk = Some(Installed { key_id: 0, key: Zeroizing::new(ptk.tk().to_vec()) });
        self.ptk = Some(ptk);
        self.installed_gtk = gtk.map(|(key_id, key)| Installed { key_id, key });
        self.installed_igtk = igtk.map(|(key_id, key)| Installed { key_id, key });
        self.established = true;
    }

    pub fn is_established(&self) -> bool {
        self.established
    }

    /// The PTK in force (after message 3), e.g. for a host that logs or exports keys.
    pub fn ptk(&self) -> Option<&Ptk> {
        self.ptk.as_ref()
    }

    /// Handles one received EAPOL frame.
    pub fn handle_eapol(&mut self, _now_ns: u64, frame: &[u8]) -> Output {
        let mut out = Output::default();
        if let Err(e) = self.process(frame, &mut out) {
            out.events.push(Event::Dropped(reason(e)));
        }
        out
    }

    /// The Supplicant has no timers of its own: the Authenticator retransmits.
    pub fn handle_timeout(&mut self, _now_ns: u64) -> Output {
        Output::default()
    }

    fn check_replay_counter(&self, rc: u64) -> Result<()> {
        match self.rx_replay_counter {
            Some(last) if rc <= last => Err(Error::Replay),
            _ => Ok(()),
        }
    }

    fn process(&mut self, frame: &[u8], out: &mut Output) -> Result<()> {
        let (r, m) = msg::parse(&self.cfg, frame)?;
        match m {
            Msg::M1 => self.on_m1(&r, out),
            Msg::M3 => self.on_m3(frame, &r, out),
            Msg::G1 => self.on_g1(frame, &r, out),
            _ => Err(Error::Malformed("message not for a Supplicant")),
        }
    }

    /// Message 1: a fresh ANonce (or a retransmission). Answer with message 2 under a TPTK;
    /// nothing is installed.
    fn on_m1(&mut self, r: &EapolKeyRepr, out: &mut Output) -> Result<()> {
        self.check_replay_counter(r.replay_counter)?;
        // A new ANonce (not a retransmitted M1) gets a new SNonce.
        if self.anonce != Some(r.key_nonce) {
            if self.anonce.is_some() {
                self.snonce = random_nonce(&mut *self.rng);
            }
            self.anonce = Some(r.key_nonce);
        }
        let c = &self.cfg;
        let tptk = derive_handshake_ptk(c, self.ft.as_ref(), &r.key_nonce, &self.snonce)?;
        // FT (wpa_supplicant `wpa_supplicant_send_2_of_4`): PMKR1Name in the RSNE, then the
        // MDE and FTE of the Association Response.
        let kd = match &self.ft {
            Some(ft) => [ft.rsne_with_r1name(&c.sta_rsne)?, ft.mde.clone(), ft.fte.clone()].concat(),
            None => c.sta_rsne.clone(),
        };
        let m2 = msg::build(
            c,
            Msg::M2,
            Fields { replay_counter: r.replay_counter, nonce: self.snonce, rsc: 0, key_data: &kd, key_index: 0 },
            Some(tptk.kck()),
            None,
            &mut *self.rng,
        )?;
        self.tptk = Some(tptk);
        out.tx.push(m2);
        Ok(())
    }

    /// Message 3: verify under the TPTK, check the AP's RSNE, answer with message 4 and
    /// install the keys that are not installed yet.
    fn on_m3(&mut self, frame: &[u8], r: &EapolKeyRepr, out: &mut Output) -> Result<()> {
        self.check_replay_counter(r.replay_counter)?;
        if self.anonce != Some(r.key_nonce) {
            return Err(Error::Malformed("message 3 ANonce differs from message 1"));
        }
        // A fresh handshake verifies under the TPTK; a retransmitted message 3 of the
        // handshake already completed, under the PTK in force.
        let retransmit = self.tptk.is_none() && self.ptk_anonce == Some(r.key_nonce);
        let key = if retransmit { self.ptk.as_ref() } else { self.tptk.as_ref() };
        let key = key.ok_or(Error::Malformed("message 3 before message 1"))?;
        msg::verify(&self.cfg, frame, key.kck())?;
        let wpa1 = self.cfg.is_wpa1();
        // WPA1: plaintext Key Data, the AP's WPA element and no GTK (wpa_supplicant
        // `wpa_supplicant_process_3_of_4`); RSN: encrypted KDEs.
        let kd = if wpa1 { Zeroizing::new(r.key_data.clone()) } else { msg::decrypt_key_data(&self.cfg, Msg::M3, r, key.kek())? };
        let items = if wpa1 { Vec::new() } else { kde::parse(&kd)? };
        let ap_rsne = if wpa1 {
            ie::find_wpa_element(&kd)?
        } else {
            items.iter().find_map(|i| match i {
                KeyDataItem::Rsn(e) => Some(*e),
                _ => None,
            })
        };
        // 12.7.6.4: the RSNE in message 3 must equal the one in the Beacon/Probe Response
        // (a mismatch is a downgrade attempt: deauthenticate). WPA1: the WPA element.
        // `ap_rsne` may hold the Beacon's RSNXE after its RSNE: message 3 must then carry
        // the same RSNXE, and none when the Beacon had none (as wpa_supplicant checks).
        let (beacon_rsne, beacon_rsnxe) = split_rsnxe(&self.cfg.ap_rsne);
        let same = match (&self.ft, ap_rsne) {
            (Some(_), Some(e)) => same_rsne_but_pmkids(e, beacon_rsne),
            (_, e) => e == Some(beacon_rsne),
        };
        if !same {
            out.events.push(Event::Failed("RSNE in message 3 differs from the Beacon's"));
            return Ok(());
        }
        if let Some(ft) = &self.ft {
            // wpa_supplicant `wpa_supplicant_validate_ie_ft`: PMKR1Name, and the MDE and FTE
            // of the Association Response again.
            let el = |id: u8| {
                items.iter().find_map(|i| match i {
                    KeyDataItem::Element(e) if e[0] == id => Some(*e),
                    _ => None,
                })
            };
            use crate::wire::element::id;
            let r1 = ap_rsne.and_then(|e| ie::RsnElementRepr::parse(e).ok()).and_then(|e| e.pmkids.first().copied());
            let why = if r1.is_none_or(|n| !bool::from(n.ct_eq(&ft.pmk_r1.name))) {
                Some("FT: PMKR1Name in message 3 differs")
            } else if el(id::MOBILITY_DOMAIN) != Some(&ft.mde[..]) {
                Some("FT: MDE in message 3 differs from the Association Response's")
            } else if el(id::FAST_BSS_TRANSITION) != Some(&ft.fte[..]) {
                Some("FT: FTE in message 3 differs from the Association Response's")
            } else {
                None
            };
            if let Some(why) = why {
                out.events.push(Event::Failed(why));
                return Ok(());
            }
        }
        if !wpa1 {
            let m3_rsnxe = items.iter().find_map(|i| match i {
                KeyDataItem::Element(e) if e[0] == RSNXE_ID => Some(*e),
                _ => None,
            });
            if m3_rsnxe != beacon_rsnxe {
                out.events.push(Event::Failed("RSNXE in message 3 differs from the Beacon's"));
                return Ok(());
            }
        }
        self.rx_replay_counter = Some(r.replay_counter);
        if retransmit {
            let ptk = self.ptk.as_ref().expect("checked above");
            out.tx.push(Self::reply(&self.cfg, &mut *self.rng, Msg::M4, r.replay_counter, ptk, 0)?);
            // KRACK: nothing is installed again; a GTK in it is new only if it changed.
            if !wpa1 {
                self.install_group_keys(&items, r.key_rsc, out)?;
            }
            return Ok(());
        }
        // Extended Key ID (12.6.21, 12.7.6.4): message 3 names the new PTK's Key ID, which
        // must not be the one in force; the PTK is installed for reception before message
        // 4 and transmits after it.
        let ext_key_id = if self.cfg.extended_key_id() {
            let id = items
                .iter()
                .find_map(|i| match i {
                    KeyDataItem::KeyId(id) => Some(*id),
                    _ => None,
                })
                .ok_or(Error::Malformed("Extended Key ID negotiated but no Key ID KDE in message 3"))?;
            if id > 1 {
                return Err(Error::Malformed("Key ID KDE: a PTK takes Key ID 0 or 1"));
            }
            if self.active_key_id == Some(id) {
                return Err(Error::Malformed("Key ID KDE names the PTK in force"));
            }
            Some(id)
        } else {
            None
        };
        let tptk = self.tptk.take().expect("checked above");
        if tptk.tk_is_zero() {
            out.events.push(Event::Failed("all-zero TK refused"));
            return Ok(());
        }
        out.tx.push(Self::reply(&self.cfg, &mut *self.rng, Msg::M4, r.replay_counter, &tptk, 0)?);
        self.install_ptk(&tptk, ext_key_id, out);
        self.ptk = Some(tptk);
        self.ptk_anonce = Some(r.key_nonce);
        if wpa1 {
            // WPA1: the port opens once group message 1 brought the GTK (wpa_supplicant
            // marks portValid only on a Secure message; WPA1's message 3 is not).
            return Ok(());
        }
        self.install_group_keys(&items, r.key_rsc, out)?;
        if !self.established {
            self.established = true;
            out.events.push(Event::Established { akm: self.cfg.akm, pairwise: self.cfg.pairwise, group: self.cfg.group });
        }
        // As wpa_supplicant's `wpa_supplicant_process_3_of_4`: after the keys.
        if let Some(b) = items.iter().find_map(|i| match i {
            KeyDataItem::TransitionDisable(b) => Some(*b),
            _ => None,
        }) {
            out.events.push(Event::TransitionDisable(b));
        }
        Ok(())
    }

    /// Group message 1: verify under the PTK, answer with group message 2, install the GTK
    /// (and IGTK) unless it is the one already installed.
    fn on_g1(&mut self, frame: &[u8], r: &EapolKeyRepr, out: &mut Output) -> Result<()> {
        self.check_replay_counter(r.replay_counter)?;
        let ptk = self.ptk.as_ref().ok_or(Error::Malformed("group message 1 before the 4-way handshake"))?;
        msg::verify(&self.cfg, frame, ptk.kck())?;
        let kd = msg::decrypt_key_data(&self.cfg, Msg::G1, r, ptk.kek())?;
        if self.cfg.is_wpa1() {
            return self.on_wpa1_g1(r, &kd, out);
        }
        let items = kde::parse(&kd)?;
        self.rx_replay_counter = Some(r.replay_counter);
        out.tx.push(Self::reply(&self.cfg, &mut *self.rng, Msg::G2, r.replay_counter, ptk, 0)?);
        let key_id = self.install_group_keys(&items, r.key_rsc, out)?;
        out.events.push(Event::GroupKeyDone { key_id });
        Ok(())
    }

    /// WPA1 group message 1 (WPA v3.1; wpa_supplicant `wpa_supplicant_process_1_of_2_wpa`):
    /// the decrypted Key Data is the bare GTK of Key Length octets, its Key ID in Key
    /// Information b4-b5, its RSC in Key RSC. Answered with group message 2 under the same
    /// Key Index; the GTK is installed unless it is the one installed (KRACK); the first
    /// one opens the port.
    fn on_wpa1_g1(&mut self, r: &EapolKeyRepr, kd: &[u8], out: &mut Output) -> Result<()> {
        let len = self.cfg.group.key_len();
        if r.key_length as usize != len || kd.len() < len {
            return Err(Error::BadKeyLength);
        }
        let key_id = r.key_info.key_index();
        if key_id == 0 {
            return Err(Error::Malformed("WPA1 group message 1 with Key Index 0"));
        }
        self.rx_replay_counter = Some(r.replay_counter);
        let ptk = self.ptk.as_ref().expect("checked by on_g1");
        out.tx.push(Self::reply(&self.cfg, &mut *self.rng, Msg::G2, r.replay_counter, ptk, key_id)?);
        let gtk = &kd[..len];
        if !self.installed_gtk.as_ref().is_some_and(|i| i.same(key_id, gtk)) {
            let key = Zeroizing::new(gtk.to_vec());
            self.installed_gtk = Some(Installed { key_id, key: key.clone() });
            out.events.push(Event::InstallGtk { gtk: key, cipher: self.cfg.group, key_id, rsc: r.key_rsc });
        }
        if !self.established {
            self.established = true;
            out.events.push(Event::Established { akm: self.cfg.akm, pairwise: self.cfg.pairwise, group: self.cfg.group });
        }
        out.events.push(Event::GroupKeyDone { key_id });
        Ok(())
    }

    /// Message 4 or group message 2: the request's replay counter echoed, MIC under `ptk`.
    /// `key_index`: WPA1's group message 2 repeats group message 1's Key Index.
    fn reply(
        cfg: &Config,
        rng: &mut dyn rand_core::CryptoRngCore,
        m: Msg,
        replay_counter: u64,
        ptk: &Ptk,
        key_index: u8,
    ) -> Result<Vec<u8>> {
        let f = Fields { replay_counter, nonce: [0; 32], rsc: 0, key_data: &[], key_index };
        msg::build(cfg, m, f, Some(ptk.kck()), None, rng)
    }

    /// Installs the PTK after message 4 is queued: under Key ID 0, or with Extended Key ID
    /// under `ext_key_id` for reception, then for transmission (message 4 itself goes
    /// under the key in force, as the node sends frames before it acts on events).
    fn install_ptk(&mut self, ptk: &Ptk, ext_key_id: Option<u8>, out: &mut Output) {
        let key_id = ext_key_id.unwrap_or(0);
        if self.installed_ptk.as_ref().is_some_and(|i| i.same(key_id, ptk.tk())) {
            return; // KRACK: a retransmitted message 3 must not reinstall the PTK.
        }
        let tk = Zeroizing::new(ptk.tk().to_vec());
        self.installed_ptk = Some(Installed { key_id, key: tk.clone() });
        let cipher = self.cfg.pairwise;
        if ext_key_id.is_some() {
            out.events.push(Event::InstallPtkRx { tk, cipher, key_id });
            out.events.push(Event::ActivatePtk { key_id });
            self.active_key_id = Some(key_id);
        } else {
            out.events.push(Event::InstallPtk { tk, cipher, key_id });
        }
    }

    /// Installs the GTK/IGTK of Key Data items unless already installed; returns the GTK's
    /// Key ID.
    fn install_group_keys(&mut self, items: &[KeyDataItem<'_>], rsc: u64, out: &mut Output) -> Result<u8> {
        let gtk = items
            .iter()
            .find_map(|i| match i {
                KeyDataItem::Gtk(g) => Some(*g),
                _ => None,
            })
            .ok_or(Error::Malformed("no GTK KDE"))?;
        if gtk.gtk.len() != self.cfg.group.key_len() {
            return Err(Error::BadKeyLength);
        }
        if !self.installed_gtk.as_ref().is_some_and(|i| i.same(gtk.key_id, gtk.gtk)) {
            let key = Zeroizing::new(gtk.gtk.to_vec());
            self.installed_gtk = Some(Installed { key_id: gtk.key_id, key: key.clone() });
            out.events.push(Event::InstallGtk { gtk: key, cipher: self.cfg.group, key_id: gtk.key_id, rsc });
        }
        if let Some(mgmt) = self.cfg.group_mgmt {
            let igtk = items
                .iter()
                .find_map(|i| match i {
                    KeyDataItem::Igtk(g) => Some(*g),
                    _ => None,
                })
                .ok_or(Error::Malformed("management frame protection negotiated but no IGTK KDE"))?;
            let key_id = u8::try_from(igtk.key_id).map_err(|_| Error::Malformed("IGTK Key ID"))?;
            if !(4..=5).contains(&key_id) || igtk.key.len() != mgmt.key_len() {
                return Err(Error::Malformed("IGTK KDE Key ID or length"));
            }
            if !self.installed_igtk.as_ref().is_some_and(|i| i.same(key_id, igtk.key)) {
                let key = Zeroizing::new(igtk.key.to_vec());
                self.installed_igtk = Some(Installed { key_id, key: key.clone() });
                out.events.push(Event::InstallIgtk { igtk: key, cipher: mgmt, key_id, ipn: igtk.ipn });
            }
        }
        Ok(gtk.key_id)
    }
}

/// A short reason for a dropped frame.
pub(crate) fn reason(e: Error) -> &'static str {
    match e {
        Error::Replay => "Key Replay Counter did not increase",
        Error::MicFailure => "EAPOL-Key MIC failure",
        Error::Truncated => "truncated EAPOL-Key frame",
        Error::Oversize => "Key Data longer than the frame",
        Error::Malformed(w) | Error::Unsupported(w) => w,
        Error::BadKeyLength => "key of the wrong length",
        _ => "EAPOL-Key frame refused",
    }
}

/// Element ID of the RSN Extension element (9.4.2.241).
const RSNXE_ID: u8 = 244;

/// `ap_rsne` as (its first element, the RSNXE after it if any).
fn split_rsnxe(ap_rsne: &[u8]) -> (&[u8], Option<&[u8]>) {
    if ap_rsne.len() < 2 {
        return (ap_rsne, None);
    }
    let n = (2 + ap_rsne[1] as usize).min(ap_rsne.len());
    let rest = &ap_rsne[n..];
    let rsnxe = (rest.len() >= 2 && rest[0] == RSNXE_ID && rest.len() == 2 + rest[1] as usize).then_some(rest);
    (&ap_rsne[..n], rsnxe)
}
