//! Per-MPDU protection (IEEE 802.11-2020 12.5) and the state around it: `Key` (one temporal
//! key of one suite: protect/unprotect a frame or a batch), `SecurityAssociation` (the link
//! layer's key tables, PN allocation and replay checks, 12.5.3.4.4, with fragments), and
//! `ReplayCounters` (the per-TID receive counters on their own).
use crate::buf::{self, slice};
use crate::errors::{self, IntoPy};
use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wsec::cipher::ccmp::{self, BatchKey, Ccmp, RxItem, TxItem};
use wsec::cipher::kernel::Backend;
use wsec::cipher::{AadOptions, Algorithm, CcmBackend, CipherSuite, KeyOptions, OrderRule, Pn, SuiteKey};
use wsec::link::replay;
use wsec::link::sa::{self, KeyType, RxOutcome};

/// Largest PN of the 48-bit space (12.5.3.2).
const PN_MAX: u64 = (1 << 48) - 1;

fn aad_options(spp_amsdu: bool, order_rule: &str) -> PyResult<AadOptions> {
    let order_rule = match order_rule {
        "current" => OrderRule::Current,
        "2003" => OrderRule::Draft2003,
        o => return Err(errors::value(format!("order_rule must be 'current' or '2003', got {o:?}"))),
    };
    Ok(AadOptions { order_rule, spp_amsdu })
}

/// `wep` picks WEP-40 or WEP-104 by key length, as `wsec protect --cipher wep` does.
fn suite_for(name: &str, key_len: usize) -> PyResult<CipherSuite> {
    if name.eq_ignore_ascii_case("wep") {
        return Ok(CipherSuite::by_algorithm(Algorithm::Wep, key_len).unwrap_or(CipherSuite::Wep104));
    }
    buf::suite(name)
}

fn backend(name: Option<&str>) -> PyResult<CcmBackend> {
    match name {
        None => Ok(CcmBackend::Detect),
        Some(n) => match Backend::from_name(n) {
            Some(Backend::Portable) => Ok(CcmBackend::Portable),
            Some(b) if b.supported() => Ok(CcmBackend::Kernel(b)),
            Some(b) => Err(errors::UnsupportedError::new_err(format!("this CPU cannot run the {} backend", b.name()))),
            None => Err(errors::value(format!("unknown backend {n:?} (one of: {})", backends().join(", ")))),
        },
    }
}

fn pn_of(pn: u64) -> PyResult<Pn> {
    if pn > PN_MAX {
        return Err(errors::value(format!("PN {pn} is above the 48-bit maximum")));
    }
    Ok(pn)
}

/// The AES kernel backends this CPU can run, fastest first (`avx512`, `vaes256`, `aesni` as
/// the CPU has them, `portable` always). `Key(..., backend=name)` picks one.
#[pyfunction]
pub fn backends() -> Vec<&'static str> {
    Backend::available().into_iter().map(Backend::name).collect()
}

/// The backend `Key` uses when none is named (the fastest, or `WSEC_BACKEND`).
#[pyfunction]
fn default_backend() -> &'static str {
    wsec::cipher::kernel::backend()
}

/// Every cipher suite name `Key` takes.
#[pyfunction]
fn suites() -> Vec<&'static str> {
    CipherSuite::ALL.iter().map(|s| s.name()).collect()
}

/// The PN (TSC, IPN, or WEP IV as a number) and Key ID of a protected MPDU, read from its
/// security header without a key (12.5.2.2, 12.5.3.2, 12.5.5.2).
#[pyfunction]
#[pyo3(signature = (mpdu, *, spp_amsdu=false, order_rule="current"))]
fn peek(mpdu: PyBuffer<u8>, spp_amsdu: bool, order_rule: &str) -> PyResult<(u64, u8)> {
    let info = wsec::cipher::mpdu::peek(slice(&mpdu)?, aad_options(spp_amsdu, order_rule)?).py()?;
    Ok((info.pn, info.key_id))
}

/// A temporal key of one cipher suite (IEEE 802.11-2020 12.5): WEP (5 or 13 octets), TKIP
/// (32: TK || Michael Authenticator->Supplicant || Michael Supplicant->Authenticator),
/// CCMP-128/256, GCMP-128/256, BIP-CMAC/GMAC-128/256, Enhanced CCMP 2/4/8 lanes.
///
/// Stateless: the PN is given to `protect`, and `unprotect` checks no replay (that is
/// `SecurityAssociation`'s job).
#[pyclass(module = "wsec", frozen)]
pub struct Key {
    key: SuiteKey,
}

#[pymethods]
impl Key {
    #[new]
    #[pyo3(signature = (suite, key, *, spp_amsdu=false, order_rule="current", backend=None))]
    fn new(suite: &str, key: PyBuffer<u8>, spp_amsdu: bool, order_rule: &str, backend: Option<&str>) -> PyResult<Key> {
        let k = slice(&key)?;
        let s = suite_for(suite, k.len())?;
        let opts = KeyOptions { aad: aad_options(spp_amsdu, order_rule)?, ccm_backend: self::backend(backend)? };
        let key = SuiteKey::new(s, k, opts).map_err(|e| match e {
            wsec::Error::BadKeyLength => errors::key_length(s, k.len()),
            e => errors::to_py(e),
        })?;
        Ok(Key { key })
    }

    /// The suite's name (`ccmp`, `gcmp-256`, ...).
    #[getter]
    fn suite(&self) -> &'static str {
        self.key.suite().name()
    }

    /// Protects a plaintext MPDU (MAC header + body, no FCS; Protected bit clear) with PN
    /// `pn` (for WEP the 24-bit IV) and Key ID `key_id`: the protected MPDU.
    #[pyo3(signature = (mpdu, pn, key_id=None))]
    fn protect<'py>(&self, py: Python<'py>, mpdu: PyBuffer<u8>, pn: u64, key_id: Option<u8>) -> PyResult<Bound<'py, PyBytes>> {
        let key_id = key_id.unwrap_or(if self.key.suite().is_bip() { 4 } else { 0 });
        let mut out = Vec::new();
        self.key.as_protection().encapsulate(slice(&mpdu)?, pn_of(pn)?, key_id, &mut out).py()?;
        Ok(buf::bytes(py, &out))
    }

    /// Checks and removes the protection of an MPDU: the plaintext MPDU. Raises
    /// `IntegrityError` on a MIC/ICV failure, `TruncatedError`/`MalformedError` on a bad frame.
    fn unprotect<'py>(&self, py: Python<'py>, mpdu: PyBuffer<u8>) -> PyResult<Bound<'py, PyBytes>> {
        let mut out = Vec::new();
        self.key.as_protection().decapsulate(slice(&mpdu)?, &mut out).py()?;
        Ok(buf::bytes(py, &out))
    }

    /// `unprotect`, also returning the frame's PN and Key ID: `(plaintext, pn, key_id)`.
    fn unprotect_with_info<'py>(&self, py: Python<'py>, mpdu: PyBuffer<u8>) -> PyResult<(Bound<'py, PyBytes>, u64, u8)> {
        let mut out = Vec::new();
        let info = self.key.as_protection().decapsulate(slice(&mpdu)?, &mut out).py()?;
        Ok((buf::bytes(py, &out), info.pn, info.key_id))
    }

    /// Protects many MPDUs at once, without the GIL: `pns` is one PN per frame, or the PN
    /// of the first frame (the next frames take the next PNs). CCMP runs the multi-buffer
    /// kernel (eight frames' CBC-MAC chains interleaved); the result equals `protect` frame
    /// by frame. Raises on the first frame that fails.
    #[pyo3(signature = (mpdus, pns, key_id=None))]
    fn protect_batch<'py>(
        &self,
        py: Python<'py>,
        mpdus: Vec<PyBuffer<u8>>,
        pns: &Bound<'py, PyAny>,
        key_id: Option<u8>,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let pns: Vec<u64> = match pns.extract::<u64>() {
            Ok(first) => (0..mpdus.len() as u64).map(|i| first + i).collect(),
            Err(_) => pns.extract()?,
        };
        if pns.len() != mpdus.len() {
            return Err(errors::value(format!("{} frames but {} PNs", mpdus.len(), pns.len())));
        }
        for &pn in &pns {
            pn_of(pn)?;
        }
        let key_id = key_id.unwrap_or(if self.key.suite().is_bip() { 4 } else { 0 });
        let frames: Vec<&[u8]> = mpdus.iter().map(slice).collect::<PyResult<_>>()?;
        let mut result = Vec::with_capacity(frames.len());
        // Chunks keep each chunk's outputs in cache until they are copied into bytes objects.
        for (fr, pn) in frames.chunks(CHUNK).zip(pns.chunks(CHUNK)) {
            let outs = py.detach(|| seal_chunk(&self.key, fr, pn, key_id)).py()?;
            result.extend(outs.iter().map(|o| buf::bytes(py, o)));
        }
        Ok(result)
    }

    /// Unprotects many MPDUs at once, without the GIL (CCMP on the multi-buffer kernel).
    /// Each item of the result is the plaintext MPDU, or the exception `unprotect` would
    /// raise for that frame (returned, not raised, so one bad frame does not hide the rest).
    fn unprotect_batch<'py>(&self, py: Python<'py>, mpdus: Vec<PyBuffer<u8>>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let frames: Vec<&[u8]> = mpdus.iter().map(slice).collect::<PyResult<_>>()?;
        let mut result = Vec::with_capacity(frames.len());
        for fr in frames.chunks(CHUNK) {
            let outs = py.detach(|| open_chunk(&self.key, fr));
            for r in outs {
                result.push(match r {
                    Ok(o) => buf::bytes(py, &o).into_any(),
                    Err(e) => errors::to_py(e).into_value(py).into_bound(py).into_any(),
                });
            }
        }
        Ok(result)
    }

    fn __repr__(&self) -> String {
        format!("Key({:?}, <{} octets>)", self.key.suite().name(), self.key.suite().key_len())
    }
}

/// Frames per kernel call of the batch methods: enough to fill the multi-buffer lanes many
/// times over, few enough that a chunk's outputs stay in cache until copied out.
const CHUNK: usize = 64;

/// CCMP through the multi-buffer kernel; the other suites frame by frame.
fn seal_chunk(key: &SuiteKey, frames: &[&[u8]], pns: &[u64], key_id: u8) -> wsec::Result<Vec<Vec<u8>>> {
    match key {
        SuiteKey::Ccmp(c) => {
            let mut items: Vec<TxItem<'_>> = frames
                .iter()
                .zip(pns)
                .map(|(m, &pn)| TxItem { key: BatchKey::Ccmp(c), mpdu: m, pn, key_id, out: Vec::new(), status: Ok(()) })
                .collect();
            ccmp::encapsulate_batch(&mut items);
            items.into_iter().map(|it| it.status.map(|()| it.out)).collect()
        }
        k => frames
            .iter()
            .zip(pns)
            .map(|(m, &pn)| {
                let mut out = Vec::new();
                k.as_protection().encapsulate(m, pn, key_id, &mut out).map(|()| out)
            })
            .collect(),
    }
}

fn open_chunk(key: &SuiteKey, frames: &[&[u8]]) -> Vec<wsec::Result<Vec<u8>>> {
    match key {
        SuiteKey::Ccmp(c) => {
            let c: &Ccmp = c;
            let mut items: Vec<RxItem<'_>> = frames
                .iter()
                .map(|m| RxItem { key: BatchKey::Ccmp(c), mpdu: m, out: Vec::new(), result: Err(wsec::Error::Truncated) })
                .collect();
            ccmp::decapsulate_batch(&mut items);
            items.into_iter().map(|it| it.result.map(|_| it.out)).collect()
        }
        k => frames
            .iter()
            .map(|m| {
                let mut out = Vec::new();
                k.as_protection().decapsulate(m, &mut out).map(|_| out)
            })
            .collect(),
    }
}

fn key_type(s: &str) -> PyResult<KeyType> {
    match s {
        "pairwise" | "ptk" => Ok(KeyType::Pairwise),
        "group" | "gtk" => Ok(KeyType::Group),
        "management" | "igtk" | "bigtk" => Ok(KeyType::ManagementGroup),
        o => Err(errors::value(format!("key type must be 'pairwise', 'group' or 'management', got {o:?}"))),
    }
}

/// One link's security association (IEEE 802.11-2020 12.5, 12.6): the pairwise (Key ID
/// 0-1), group (0-3) and management group (4-7) keys, a PN counter per transmit key, replay
/// counters per key and TID (12.5.3.4.4: a PN not above the last accepted is refused),
/// fragment reassembly with the consecutive-PN rule (12.5.3.4.4 b), TKIP MIC-failure
/// tracking. `role` picks TKIP's Michael key per direction.
#[pyclass(module = "wsec")]
pub struct SecurityAssociation {
    sa: sa::SecurityAssociation,
}

#[pymethods]
impl SecurityAssociation {
    #[new]
    #[pyo3(signature = (role="supplicant"))]
    fn new(role: &str) -> PyResult<SecurityAssociation> {
        let role = match role {
            "authenticator" | "ap" => sa::Role::Authenticator,
            "supplicant" | "sta" => sa::Role::Supplicant,
            o => return Err(errors::value(format!("role must be 'authenticator' or 'supplicant', got {o:?}"))),
        };
        Ok(SecurityAssociation { sa: sa::SecurityAssociation::new(role) })
    }

    /// Installs a key (and selects it for transmission in its table). `rsc`: the receive
    /// sequence counter announced with a GTK/IGTK; received frames must carry a PN above it.
    #[pyo3(signature = (key_type, key_id, suite, key, *, rsc=None, spp_amsdu=false))]
    fn install(&mut self, key_type: &str, key_id: u8, suite: &str, key: PyBuffer<u8>, rsc: Option<u64>, spp_amsdu: bool) -> PyResult<()> {
        let k = slice(&key)?;
        let s = suite_for(suite, k.len())?;
        let rsc = rsc.map(pn_of).transpose()?;
        let opts = AadOptions { spp_amsdu, ..AadOptions::default() };
        self.sa.install(self::key_type(key_type)?, key_id, s, k, opts, rsc).map_err(|e| match e {
            wsec::Error::BadKeyLength => errors::key_length(s, k.len()),
            e => errors::to_py(e),
        })
    }

    /// Selects the transmit key of a table (Extended Key ID, 12.6.21).
    fn set_tx_key(&mut self, key_type: &str, key_id: u8) -> PyResult<()> {
        self.sa.set_tx_key(self::key_type(key_type)?, key_id).py()
    }

    /// Deletes a key.
    fn remove(&mut self, key_type: &str, key_id: u8) -> PyResult<()> {
        self.sa.remove(self::key_type(key_type)?, key_id).py()
    }

    /// The PN the next frame protected with the table's transmit key will carry.
    fn next_pn(&mut self, key_type: &str) -> PyResult<Option<u64>> {
        Ok(self.sa.tx_pn(self::key_type(key_type)?))
    }

    /// Protects a plaintext MPDU with the right transmit key (pairwise, group for
    /// group-addressed data, BIP for group-addressed management) and the next PN.
    fn protect<'py>(&mut self, py: Python<'py>, mpdu: PyBuffer<u8>) -> PyResult<Bound<'py, PyBytes>> {
        let mut out = Vec::new();
        self.sa.protect(slice(&mpdu)?, &mut out).py()?;
        Ok(buf::bytes(py, &out))
    }

    /// Fragments (9.2.4.4.2) and protects a plaintext MPDU: one protected MPDU per fragment,
    /// consecutive PNs.
    fn protect_fragmented<'py>(
        &mut self,
        py: Python<'py>,
        mpdu: PyBuffer<u8>,
        max_fragment_body: usize,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let frags = self.sa.protect_fragmented(slice(&mpdu)?, max_fragment_body).py()?;
        Ok(frags.iter().map(|f| buf::bytes(py, f)).collect())
    }

    /// Checks a received protected MPDU (key by Key ID, integrity, replay) and removes the
    /// protection: the plaintext MPDU, or None when it was a fragment held for reassembly.
    /// `now_ns`: a monotonic clock (fragment lifetime, TKIP countermeasures).
    #[pyo3(signature = (mpdu, now_ns=0))]
    fn unprotect<'py>(&mut self, py: Python<'py>, mpdu: PyBuffer<u8>, now_ns: u64) -> PyResult<Option<Bound<'py, PyBytes>>> {
        Ok(match self.sa.unprotect(now_ns, slice(&mpdu)?).py()? {
            RxOutcome::Frame { mpdu, .. } => Some(buf::bytes(py, &mpdu)),
            RxOutcome::FragmentHeld => None,
        })
    }

    fn __repr__(&self) -> String {
        format!("{:?}", self.sa)
    }
}

/// Receive replay counters of one key (12.5.3.4.4): one per TID and one for management
/// frames; a PN is accepted only when above the last accepted in its slot.
#[pyclass(module = "wsec")]
pub struct ReplayCounters {
    rc: replay::ReplayCounters,
}

#[pymethods]
impl ReplayCounters {
    /// `rsc`: frames must carry a PN above it (a GTK's RSC); None accepts any first PN.
    #[new]
    #[pyo3(signature = (rsc=None))]
    fn new(rsc: Option<u64>) -> PyResult<ReplayCounters> {
        Ok(ReplayCounters {
            rc: match rsc {
                Some(r) => replay::ReplayCounters::with_rsc(pn_of(r)?),
                None => replay::ReplayCounters::new(),
            },
        })
    }

    /// The counter slot of an MPDU: its TID for QoS Data, else the non-QoS/management slot.
    #[staticmethod]
    fn slot_of(mpdu: PyBuffer<u8>) -> PyResult<usize> {
        let m = wsec::wire::mac::Mpdu::new_checked(slice(&mpdu)?).py()?;
        Ok(replay::ReplayCounters::slot_of(&m))
    }

    /// Raises `ReplayError` when `pn` is not above the slot's last accepted PN.
    fn check(&self, slot: usize, pn: u64) -> PyResult<()> {
        self.slot_ok(slot)?;
        self.rc.check(slot, pn).py()
    }

    /// Records `pn` as the slot's last accepted (call after the MIC verified).
    fn accept(&mut self, slot: usize, pn: u64) -> PyResult<()> {
        self.slot_ok(slot)?;
        self.rc.accept(slot, pn);
        Ok(())
    }

    /// `check`, then `accept`.
    fn check_and_accept(&mut self, slot: usize, pn: u64) -> PyResult<()> {
        self.check(slot, pn)?;
        self.rc.accept(slot, pn);
        Ok(())
    }

    fn last(&self, slot: usize) -> PyResult<Option<u64>> {
        self.slot_ok(slot)?;
        Ok(self.rc.last(slot))
    }
}

impl ReplayCounters {
    fn slot_ok(&self, slot: usize) -> PyResult<()> {
        if slot >= replay::NUM_SLOTS {
            return Err(errors::value(format!("slot must be below {}, got {slot}", replay::NUM_SLOTS)));
        }
        Ok(())
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Key>()?;
    m.add_class::<SecurityAssociation>()?;
    m.add_class::<ReplayCounters>()?;
    m.add_function(wrap_pyfunction!(backends, m)?)?;
    m.add_function(wrap_pyfunction!(default_backend, m)?)?;
    m.add_function(wrap_pyfunction!(suites, m)?)?;
    m.add_function(wrap_pyfunction!(peek, m)?)?;
    Ok(())
}
