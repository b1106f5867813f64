//! EAPOL-Key frames (IEEE 802.11-2020 12.7.2) and the sans-IO 4-way and group key
//! handshakes (12.7.6, 12.7.7): `EapolKey` parses and builds a frame and computes or
//! checks its MIC; `Authenticator` and `Supplicant` take EAPOL frames and the time and give
//! back frames to send, key-install events and the next deadline, as wsec's AP and STA do.
use crate::buf::{self, array, slice};
use crate::errors::{self, IntoPy};
use crate::keys::Ptk;
use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::{Mutex, PoisonError};
use wsec::rng::BoxRng;
use wsec::rsn::eapol::{DescriptorType, EapolKey as View, EapolKeyRepr, KeyInfo};
use wsec::rsn::handshake::{self, authenticator::GroupKeys, Config, Event as CoreEvent, Output, Timers};
use wsec::wire::mac::MacAddr;
use zeroize::Zeroizing;

/// The RNG of a handshake or SAE instance: seeded (reproducible runs) or the OS CSPRNG.
pub fn rng(seed: Option<u64>) -> BoxRng {
    match seed {
        Some(s) => wsec::rng::seeded(s),
        None => wsec::rng::fork(&mut rand_core::OsRng),
    }
}

/// An EAPOL-Key frame (802.1X header + EAPOL-Key body, 12.7.2 Figure 12-32). Every field
/// is an attribute; `to_bytes()` lays the frame out, `parse()` reads one. The Key MIC field
/// is `mic_len` octets: 16 for most AKMs, 24 for the SHA-384 ones, 32 for OWE group 21.
#[pyclass(module = "wsec")]
pub struct EapolKey {
    r: EapolKeyRepr,
}

fn descriptor(n: u8) -> PyResult<DescriptorType> {
    DescriptorType::from_number(n).py()
}

#[pymethods]
impl EapolKey {
    /// An all-zero frame (EAPOL version 2) of descriptor type `descriptor_type` (2 = RSN,
    /// 254 = WPA) and Key Information `key_info`, with a `mic_len`-octet zero MIC.
    #[new]
    #[pyo3(signature = (descriptor_type=2, key_info=0, mic_len=16))]
    fn new(descriptor_type: u8, key_info: u16, mic_len: usize) -> PyResult<EapolKey> {
        if ![16, 24, 32].contains(&mic_len) {
            return Err(errors::value(format!("mic_len must be 16, 24 or 32, got {mic_len}")));
        }
        Ok(EapolKey { r: EapolKeyRepr::new(descriptor(descriptor_type)?, KeyInfo(key_info), mic_len) })
    }

    /// Parses an EAPOL-Key frame whose Key MIC field is `mic_len` octets. Raises
    /// `TruncatedError` or `MalformedError` (not EAPOL-Key, lengths that disagree, ...).
    #[staticmethod]
    #[pyo3(signature = (frame, mic_len=16))]
    fn parse(frame: PyBuffer<u8>, mic_len: usize) -> PyResult<EapolKey> {
        Ok(EapolKey { r: EapolKeyRepr::parse(slice(&frame)?, mic_len).py()? })
    }

    /// The frame's octets.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(buf::bytes(py, &self.emit()?))
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        self.to_bytes(py)
    }

    /// Computes the Key MIC (12.7.3, Table 12-11: HMAC-MD5, HMAC-SHA1-128, AES-128-CMAC or
    /// the AKM's HMAC-SHA256/384, by the Key Descriptor Version bits and `akm`) with `kck`
    /// over the frame with a zero MIC, and stores it.
    fn sign(&mut self, akm: &str, kck: PyBuffer<u8>) -> PyResult<()> {
        let akm = buf::akm(akm)?;
        let kdv = self.r.key_info.key_descriptor_version().py()?;
        self.r.key_mic.iter_mut().for_each(|b| *b = 0);
        let mut b = self.emit()?;
        let mut v = View::new_checked(&mut b[..], self.r.mic_len()).py()?;
        v.write_mic(kdv, akm, slice(&kck)?).py()?;
        self.r.key_mic = v.key_mic().to_vec();
        Ok(())
    }

    /// Whether the Key MIC verifies under `kck` (constant-time compare).
    fn verify_mic(&self, akm: &str, kck: PyBuffer<u8>) -> PyResult<bool> {
        let akm = buf::akm(akm)?;
        let kdv = self.r.key_info.key_descriptor_version().py()?;
        let b = self.emit()?;
        let v = View::new_checked(&b[..], self.r.mic_len()).py()?;
        match v.verify_mic(kdv, akm, slice(&kck)?) {
            Ok(()) => Ok(true),
            Err(wsec::Error::MicFailure) => Ok(false),
            Err(e) => Err(errors::to_py(e)),
        }
    }

    /// The Key Data decrypted with `kek` (AES Key Wrap, RFC 3394, for descriptor versions
    /// 0, 2 and 3; RC4 with the Key IV for version 1).
    fn decrypt_key_data<'py>(&self, py: Python<'py>, kek: PyBuffer<u8>) -> PyResult<Bound<'py, PyBytes>> {
        let kek = slice(&kek)?;
        if self.r.key_info.descriptor_version() == 1 {
            let k: &[u8; 16] = kek.try_into().map_err(|_| errors::KeyLengthError::new_err("an RC4 KEK is 16 octets"))?;
            let mut d = Zeroizing::new(self.r.key_data.clone());
            wsec::rsn::keywrap::rc4_key_data(k, &self.r.key_iv, &mut d);
            return Ok(buf::bytes(py, &d));
        }
        let d = wsec::rsn::keywrap::aes_key_unwrap(kek, &self.r.key_data).py()?;
        Ok(buf::bytes(py, &d))
    }

    #[getter]
    fn protocol_version(&self) -> u8 {
        self.r.protocol_version
    }
    #[setter]
    fn set_protocol_version(&mut self, v: u8) {
        self.r.protocol_version = v;
    }
    #[getter]
    fn descriptor_type(&self) -> u8 {
        self.r.descriptor_type.number()
    }
    #[setter]
    fn set_descriptor_type(&mut self, v: u8) -> PyResult<()> {
        self.r.descriptor_type = descriptor(v)?;
        Ok(())
    }
    /// Key Information (12.7.2 b): version bits 0-2, Key Type b3, Install b6, Key Ack b7,
    /// Key MIC b8, Secure b9, Error b10, Request b11, Encrypted Key Data b12.
    #[getter]
    fn key_info(&self) -> u16 {
        self.r.key_info.0
    }
    #[setter]
    fn set_key_info(&mut self, v: u16) {
        self.r.key_info = KeyInfo(v);
    }
    #[getter]
    fn key_length(&self) -> u16 {
        self.r.key_length
    }
    #[setter]
    fn set_key_length(&mut self, v: u16) {
        self.r.key_length = v;
    }
    #[getter]
    fn replay_counter(&self) -> u64 {
        self.r.replay_counter
    }
    #[setter]
    fn set_replay_counter(&mut self, v: u64) {
        self.r.replay_counter = v;
    }
    #[getter]
    fn key_nonce<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        buf::bytes(py, &self.r.key_nonce)
    }
    #[setter]
    fn set_key_nonce(&mut self, v: PyBuffer<u8>) -> PyResult<()> {
        self.r.key_nonce = array::<32>(&v, "Key Nonce")?;
        Ok(())
    }
    #[getter]
    fn key_iv<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        buf::bytes(py, &self.r.key_iv)
    }
    #[setter]
    fn set_key_iv(&mut self, v: PyBuffer<u8>) -> PyResult<()> {
        self.r.key_iv = array::<16>(&v, "EAPOL-Key IV")?;
        Ok(())
    }
    /// Key RSC as a number (the octets are little-endian).
    #[getter]
    fn key_rsc(&self) -> u64 {
        self.r.key_rsc
    }
    #[setter]
    fn set_key_rsc(&mut self, v: u64) {
        self.r.key_rsc = v;
    }
    #[getter]
    fn key_mic<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        buf::bytes(py, &self.r.key_mic)
    }
    #[setter]
    fn set_key_mic(&mut self, v: PyBuffer<u8>) -> PyResult<()> {
        let m = slice(&v)?;
        if m.len() != self.r.key_mic.len() {
            return Err(errors::value(format!("the Key MIC field is {} octets, got {}", self.r.key_mic.len(), m.len())));
        }
        self.r.key_mic = m.to_vec();
        Ok(())
    }
    #[getter]
    fn key_data<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        buf::bytes(py, &self.r.key_data)
    }
    #[setter]
    fn set_key_data(&mut self, v: PyBuffer<u8>) -> PyResult<()> {
        self.r.key_data = slice(&v)?.to_vec();
        Ok(())
    }
    #[getter]
    fn mic_len(&self) -> usize {
        self.r.mic_len()
    }
    /// Key Descriptor Version (Key Information bits 0-2).
    #[getter]
    fn descriptor_version(&self) -> u8 {
        self.r.key_info.descriptor_version()
    }
    #[getter]
    fn pairwise(&self) -> bool {
        self.r.key_info.is_pairwise()
    }
    #[getter]
    fn install(&self) -> bool {
        self.r.key_info.install()
    }
    #[getter]
    fn ack(&self) -> bool {
        self.r.key_info.key_ack()
    }
    #[getter]
    fn mic(&self) -> bool {
        self.r.key_info.key_mic()
    }
    #[getter]
    fn secure(&self) -> bool {
        self.r.key_info.secure()
    }
    #[getter]
    fn encrypted_key_data(&self) -> bool {
        self.r.key_info.encrypted_key_data()
    }
    /// Which handshake message this is by its Key Information and Key Data (12.7.6.2-5,
    /// 12.7.7.2-3): `'4way-1'` .. `'4way-4'`, `'group-1'`, `'group-2'`, or None.
    #[getter]
    fn message(&self) -> Option<&'static str> {
        handshake::Msg::classify(self.r.key_info, self.r.key_data.len()).map(|m| match m {
            handshake::Msg::M1 => "4way-1",
            handshake::Msg::M2 => "4way-2",
            handshake::Msg::M3 => "4way-3",
            handshake::Msg::M4 => "4way-4",
            handshake::Msg::G1 => "group-1",
            handshake::Msg::G2 => "group-2",
        })
    }
    fn __repr__(&self) -> String {
        format!(
            "EapolKey(descriptor_type={}, key_info={:#06x}, replay_counter={}, key_data=<{} octets>)",
            self.r.descriptor_type.number(),
            self.r.key_info.0,
            self.r.replay_counter,
            self.r.key_data.len()
        )
    }
}

impl EapolKey {
    fn emit(&self) -> PyResult<Vec<u8>> {
        let mut b = vec![0u8; self.r.buffer_len()];
        self.r.emit(&mut b).py()?;
        Ok(b)
    }
}

/// What a handshake asks of its host (the hand-off to the link layer, 12.7.6.4): `kind` is
/// `install_ptk`, `install_gtk`, `install_igtk` (with `key`, `cipher`, `key_id`, `rsc`),
/// with Extended Key ID (12.6.21) `install_ptk_rx` (receive only) then `activate_ptk`
/// (`key_id`),
/// `established` (with `akm`, `cipher`, `group`), `group_key_done` (`key_id`),
/// `transition_disable` (`bitmap`), `dropped` or `failed` (`reason`).
#[pyclass(module = "wsec", frozen, get_all)]
pub struct Event {
    kind: &'static str,
    key: Option<Py<PyBytes>>,
    cipher: Option<&'static str>,
    group: Option<&'static str>,
    akm: Option<&'static str>,
    key_id: Option<u8>,
    rsc: Option<u64>,
    bitmap: Option<u8>,
    reason: Option<&'static str>,
}

#[pymethods]
impl Event {
    fn __repr__(&self) -> String {
        let mut s = format!("Event({:?}", self.kind);
        if let Some(c) = self.cipher {
            s += &format!(", cipher={c:?}");
        }
        if let Some(k) = self.key_id {
            s += &format!(", key_id={k}");
        }
        if let Some(r) = self.rsc {
            s += &format!(", rsc={r}");
        }
        if let Some(r) = self.reason {
            s += &format!(", reason={r:?}");
        }
        s + ")"
    }
}

impl Event {
    fn of(py: Python<'_>, e: CoreEvent) -> Event {
        let mut ev =
            Event { kind: "", key: None, cipher: None, group: None, akm: None, key_id: None, rsc: None, bitmap: None, reason: None };
        match e {
            CoreEvent::InstallPtk { tk, cipher, key_id } => {
                (ev.kind, ev.key, ev.cipher, ev.key_id) =
                    ("install_ptk", Some(buf::bytes(py, &tk).unbind()), Some(cipher.name()), Some(key_id))
            }
            CoreEvent::InstallPtkRx { tk, cipher, key_id } => {
                (ev.kind, ev.key, ev.cipher, ev.key_id) =
                    ("install_ptk_rx", Some(buf::bytes(py, &tk).unbind()), Some(cipher.name()), Some(key_id))
            }
            CoreEvent::ActivatePtk { key_id } => (ev.kind, ev.key_id) = ("activate_ptk", Some(key_id)),
            CoreEvent::InstallGtk { gtk, cipher, key_id, rsc } => {
                (ev.kind, ev.key, ev.cipher, ev.key_id, ev.rsc) =
                    ("install_gtk", Some(buf::bytes(py, &gtk).unbind()), Some(cipher.name()), Some(key_id), Some(rsc))
            }
            CoreEvent::InstallIgtk { igtk, cipher, key_id, ipn } => {
                (ev.kind, ev.key, ev.cipher, ev.key_id, ev.rsc) =
                    ("install_igtk", Some(buf::bytes(py, &igtk).unbind()), Some(cipher.name()), Some(key_id), Some(ipn))
            }
            CoreEvent::Established { akm, pairwise, group } => {
                (ev.kind, ev.akm, ev.cipher, ev.group) = ("established", Some(akm.name()), Some(pairwise.name()), Some(group.name()))
            }
            CoreEvent::GroupKeyDone { key_id } => (ev.kind, ev.key_id) = ("group_key_done", Some(key_id)),
            CoreEvent::TransitionDisable(b) => (ev.kind, ev.bitmap) = ("transition_disable", Some(b)),
            CoreEvent::Dropped(r) => (ev.kind, ev.reason) = ("dropped", Some(r)),
            CoreEvent::Failed(r) => (ev.kind, ev.reason) = ("failed", Some(r)),
        }
        ev
    }
}

/// The result of feeding a handshake one input: `tx` (EAPOL frames to send, in order),
/// `events`, `deadline` (when to call `handle_timeout` next, in the caller's ns, or None).
#[pyclass(module = "wsec", frozen, get_all)]
pub struct HandshakeOutput {
    tx: Vec<Py<PyBytes>>,
    events: Vec<Py<Event>>,
    deadline: Option<u64>,
}

#[pymethods]
impl HandshakeOutput {
    fn __repr__(&self) -> String {
        format!("HandshakeOutput(tx=<{} frames>, events={}, deadline={:?})", self.tx.len(), self.events.len(), self.deadline)
    }
}

fn output(py: Python<'_>, o: Output) -> PyResult<HandshakeOutput> {
    Ok(HandshakeOutput {
        tx: o.tx.iter().map(|f| buf::bytes(py, f).unbind()).collect(),
        events: o.events.into_iter().map(|e| Py::new(py, Event::of(py, e))).collect::<PyResult<_>>()?,
        deadline: o.deadline,
    })
}

#[allow(clippy::too_many_arguments)]
fn config(
    akm: &str,
    pmk: PyBuffer<u8>,
    aa: &Bound<'_, PyAny>,
    spa: &Bound<'_, PyAny>,
    ap_rsne: PyBuffer<u8>,
    sta_rsne: PyBuffer<u8>,
    pairwise: &str,
    group: &str,
    group_mgmt: Option<&str>,
) -> PyResult<Config> {
    let akm = buf::akm(akm)?;
    let pmk = Zeroizing::new(slice(&pmk)?.to_vec());
    if pmk.len() != akm.pmk_len() {
        return Err(errors::pmk_length(akm, pmk.len()));
    }
    Ok(Config {
        akm,
        pairwise: buf::suite(pairwise)?,
        group: buf::suite(group)?,
        group_mgmt: group_mgmt.map(buf::suite).transpose()?,
        pmk,
        aa: MacAddr(buf::mac(aa)?),
        spa: MacAddr(buf::mac(spa)?),
        ap_rsne: slice(&ap_rsne)?.to_vec(),
        sta_rsne: slice(&sta_rsne)?.to_vec(),
        timers: Timers::default(),
    })
}

/// The Authenticator (AP side) of the 4-way and group key handshakes (12.7.6, 12.7.7),
/// sans-IO. `ap_rsne`/`sta_rsne`: the RSN elements of the Beacon and of the STA's
/// (Re)Association Request (`rsn_element()` builds one). `gtk`: the group key to hand out
/// (random when None). `seed`: a reproducible RNG for the ANonce (the OS CSPRNG when None).
#[pyclass(module = "wsec")]
pub struct Authenticator {
    // A Mutex because the core's RNG is Send but not Sync, and a pyclass must be both.
    a: Mutex<handshake::Authenticator>,
}

#[pymethods]
impl Authenticator {
    #[new]
    #[pyo3(signature = (akm, pmk, aa, spa, ap_rsne, sta_rsne, *, pairwise="ccmp", group="ccmp", group_mgmt=None, gtk=None, gtk_key_id=1, seed=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        akm: &str,
        pmk: PyBuffer<u8>,
        aa: &Bound<'_, PyAny>,
        spa: &Bound<'_, PyAny>,
        ap_rsne: PyBuffer<u8>,
        sta_rsne: PyBuffer<u8>,
        pairwise: &str,
        group: &str,
        group_mgmt: Option<&str>,
        gtk: Option<PyBuffer<u8>>,
        gtk_key_id: u8,
        seed: Option<u64>,
    ) -> PyResult<Authenticator> {
        let cfg = config(akm, pmk, aa, spa, ap_rsne, sta_rsne, pairwise, group, group_mgmt)?;
        if !(1..=3).contains(&gtk_key_id) {
            return Err(errors::value(format!("a GTK's Key ID is 1-3, got {gtk_key_id}")));
        }
        let mut r = rng(seed);
        let mut keys = GroupKeys::random(&cfg, gtk_key_id, &mut *r);
        if let Some(g) = gtk {
            let g = slice(&g)?;
            if g.len() != cfg.group.key_len() {
                return Err(errors::key_length(cfg.group, g.len()));
            }
            keys.gtk = Zeroizing::new(g.to_vec());
        }
        Ok(Authenticator { a: Mutex::new(handshake::Authenticator::new(cfg, keys, r)) })
    }

    /// Starts the 4-way handshake: message 1.
    #[pyo3(signature = (now_ns=0))]
    fn start(&mut self, py: Python<'_>, now_ns: u64) -> PyResult<HandshakeOutput> {
        output(py, self.a().start(now_ns))
    }

    /// Takes a received EAPOL frame (802.1X header + body).
    #[pyo3(signature = (frame, now_ns=0))]
    fn handle_eapol(&mut self, py: Python<'_>, frame: PyBuffer<u8>, now_ns: u64) -> PyResult<HandshakeOutput> {
        output(py, self.a().handle_eapol(now_ns, slice(&frame)?))
    }

    /// Retransmits or gives up when a deadline passed.
    fn handle_timeout(&mut self, py: Python<'_>, now_ns: u64) -> PyResult<HandshakeOutput> {
        output(py, self.a().handle_timeout(now_ns))
    }

    /// Starts a PTK rekey (a new 4-way handshake on the established link, 12.7.6.1).
    #[pyo3(signature = (now_ns=0))]
    fn rekey_ptk(&mut self, py: Python<'_>, now_ns: u64) -> PyResult<HandshakeOutput> {
        output(py, self.a().rekey_ptk(now_ns))
    }

    #[getter]
    fn established(&mut self) -> bool {
        self.a().is_established()
    }

    /// The PTK in force (or being installed), if any.
    #[getter]
    fn ptk(&mut self) -> Option<Ptk> {
        self.a().ptk().cloned().map(Ptk::wrap)
    }
}

/// The Supplicant (STA side) of the 4-way and group key handshakes, sans-IO and KRACK-safe:
/// a retransmitted or replayed message 3 (or group message 1) gets its answer but never a
/// second install event, and an all-zero TK is never installed.
#[pyclass(module = "wsec")]
pub struct Supplicant {
    s: Mutex<handshake::Supplicant>,
}

#[pymethods]
impl Supplicant {
    #[new]
    #[pyo3(signature = (akm, pmk, aa, spa, ap_rsne, sta_rsne, *, pairwise="ccmp", group="ccmp", group_mgmt=None, seed=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        akm: &str,
        pmk: PyBuffer<u8>,
        aa: &Bound<'_, PyAny>,
        spa: &Bound<'_, PyAny>,
        ap_rsne: PyBuffer<u8>,
        sta_rsne: PyBuffer<u8>,
        pairwise: &str,
        group: &str,
        group_mgmt: Option<&str>,
        seed: Option<u64>,
    ) -> PyResult<Supplicant> {
        let cfg = config(akm, pmk, aa, spa, ap_rsne, sta_rsne, pairwise, group, group_mgmt)?;
        Ok(Supplicant { s: Mutex::new(handshake::Supplicant::new(cfg, rng(seed))) })
    }

    /// Takes a received EAPOL frame (802.1X header + body).
    #[pyo3(signature = (frame, now_ns=0))]
    fn handle_eapol(&mut self, py: Python<'_>, frame: PyBuffer<u8>, now_ns: u64) -> PyResult<HandshakeOutput> {
        output(py, self.s().handle_eapol(now_ns, slice(&frame)?))
    }

    fn handle_timeout(&mut self, py: Python<'_>, now_ns: u64) -> PyResult<HandshakeOutput> {
        output(py, self.s().handle_timeout(now_ns))
    }

    #[getter]
    fn established(&mut self) -> bool {
        self.s().is_established()
    }

    #[getter]
    fn ptk(&mut self) -> Option<Ptk> {
        self.s().ptk().cloned().map(Ptk::wrap)
    }
}

impl Authenticator {
    fn a(&mut self) -> &mut handshake::Authenticator {
        self.a.get_mut().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Supplicant {
    fn s(&mut self) -> &mut handshake::Supplicant {
        self.s.get_mut().unwrap_or_else(PoisonError::into_inner)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<EapolKey>()?;
    m.add_class::<Event>()?;
    m.add_class::<HandshakeOutput>()?;
    m.add_class::<Authenticator>()?;
    m.add_class::<Supplicant>()?;
    Ok(())
}
