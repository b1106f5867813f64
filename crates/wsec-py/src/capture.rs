//! Capture decryption as a streaming iterator: `decrypt(path, ...)` reads a pcap/pcapng one
//! record at a time (records over 1 MiB refused) and yields one `Frame` per packet, as
//! `wsec decrypt` does: 4-way handshakes, group key handshakes, FT and TDLS learnt on the
//! way, every protected frame decrypted or told why not.
use crate::buf::{self, slice};
use crate::errors::{self, CaptureError};
use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::PathBuf;
use wsec::capture::{radio, CaptureReader};
use wsec::decrypt::keys::UserKey;
use wsec::decrypt::{Decryptor, Outcome};
use zeroize::Zeroizing;

/// One packet of the capture and what became of it. `status`: `decrypted`, `duplicate` (a
/// retransmission of a frame already decrypted), `clear` (not protected), `failed` (with
/// `reason`, the CLI's wording) or `unreadable` (no 802.11 frame in the record).
/// `mpdu` is the plaintext MPDU when decrypted, else the captured MPDU (radio header and
/// FCS removed); `packet` is the record as captured.
#[pyclass(module = "wsec", frozen, get_all)]
pub struct Frame {
    index: u64,
    ts_ns: u64,
    linktype: u32,
    status: &'static str,
    suite: Option<&'static str>,
    reason: Option<&'static str>,
    mpdu: Option<Py<PyBytes>>,
    packet: Py<PyBytes>,
}

#[pymethods]
impl Frame {
    /// True when the frame was decrypted here (also for duplicates).
    #[getter]
    fn decrypted(&self) -> bool {
        matches!(self.status, "decrypted" | "duplicate")
    }
    fn __repr__(&self) -> String {
        let opt = |o: Option<&str>| o.map_or("None".to_string(), |s| format!("{s:?}"));
        format!("Frame(index={}, status={:?}, suite={}, reason={})", self.index, self.status, opt(self.suite), opt(self.reason))
    }
}

fn open(path: &std::path::Path) -> PyResult<CaptureReader> {
    CaptureReader::open(path).map_err(|e| CaptureError::new_err(format!("{}: {e}", path.display())))
}

/// The iterator `decrypt()` returns. After (or during) the iteration, `stats()` has the
/// counters of `wsec decrypt`'s summary and `sessions()` every pairwise key learnt.
#[pyclass(module = "wsec")]
pub struct Decryption {
    path: PathBuf,
    reader: CaptureReader,
    d: Decryptor,
    index: u64,
}

#[pymethods]
impl Decryption {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Frame>> {
        let p = match self.reader.next() {
            None => return Ok(None),
            Some(Err(e)) => return Err(CaptureError::new_err(format!("{}: {e}", self.path.display()))),
            Some(Ok(p)) => p,
        };
        self.index += 1;
        let mut f = Frame {
            index: self.index,
            ts_ns: p.ts_ns,
            linktype: p.linktype,
            status: "unreadable",
            suite: None,
            reason: None,
            mpdu: None,
            packet: buf::bytes(py, &p.data).unbind(),
        };
        let Ok(m) = radio::mpdu(p.linktype, &p.data) else { return Ok(Some(f)) };
        let d = &mut self.d;
        let outcome = py.detach(|| d.process(m.bytes));
        match outcome {
            Outcome::Clear => (f.status, f.mpdu) = ("clear", Some(buf::bytes(py, m.bytes).unbind())),
            Outcome::Decrypted { mpdu, suite } => {
                (f.status, f.suite, f.mpdu) = ("decrypted", Some(suite.name()), Some(buf::bytes(py, &mpdu).unbind()))
            }
            Outcome::Duplicate { mpdu, suite } => {
                (f.status, f.suite, f.mpdu) = ("duplicate", Some(suite.name()), Some(buf::bytes(py, &mpdu).unbind()))
            }
            Outcome::Failed(r) => (f.status, f.reason, f.mpdu) = ("failed", Some(r.describe()), Some(buf::bytes(py, m.bytes).unbind())),
        }
        Ok(Some(f))
    }

    /// The counters so far: frames, protected, decrypted (by suite), failed (by reason),
    /// duplicates, handshakes verified, group keys.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = &self.d.stats;
        let d = PyDict::new(py);
        d.set_item("frames", s.frames)?;
        d.set_item("protected", s.protected)?;
        let dec = PyDict::new(py);
        for (k, v) in &s.decrypted {
            dec.set_item(k.name(), v)?;
        }
        d.set_item("decrypted", dec)?;
        let fail = PyDict::new(py);
        for (k, v) in &s.failed {
            fail.set_item(k.describe(), v)?;
        }
        d.set_item("failed", fail)?;
        d.set_item("duplicates", s.duplicates)?;
        d.set_item("handshakes_verified", s.handshakes_verified)?;
        d.set_item("group_keys", s.group_keys)?;
        Ok(d)
    }

    /// Every pairwise key learnt, in capture order: dicts with `frame` (1-based), `aa`,
    /// `spa` (text MAC addresses), `akm`, `cipher` and `source` (how it was learnt).
    fn sessions<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.d
            .stats
            .keys_learnt
            .iter()
            .map(|k| {
                let d = PyDict::new(py);
                d.set_item("frame", k.frame)?;
                d.set_item("aa", k.aa.to_string())?;
                d.set_item("spa", k.spa.to_string())?;
                d.set_item("akm", k.akm.map(|a| a.name()))?;
                d.set_item("cipher", k.cipher.name())?;
                d.set_item("source", k.source.name())?;
                Ok(d)
            })
            .collect()
    }
}

fn pair(obj: &Bound<'_, PyAny>) -> PyResult<(String, Zeroizing<String>)> {
    let (ssid, pass): (String, String) = obj.extract().map_err(|_| errors::value("passphrases are (ssid, passphrase) pairs of text"))?;
    Ok((ssid, Zeroizing::new(pass)))
}

fn checked(kind: &str, k: &[u8], ok: &[usize]) -> PyResult<Zeroizing<Vec<u8>>> {
    if !ok.contains(&k.len()) {
        let l: Vec<String> = ok.iter().map(|n| n.to_string()).collect();
        return Err(errors::KeyLengthError::new_err(format!("a {kind} is {} octets, got {}", l.join(" or "), k.len())));
    }
    Ok(Zeroizing::new(k.to_vec()))
}

/// Decrypts a pcap/pcapng capture (radiotap, PPI, Prism, AVS or bare 802.11) with the keys
/// given, as `wsec decrypt` does: `passphrases` as `(ssid, passphrase)` pairs, `pmks` (32, 48
/// or 64 octets), `msks` (64-128), `wep_keys` (5, 13 or 16), `tks` (16 or 32), `keys_file`
/// (Wireshark's `80211_keys`). With `learn` (the default), a first pass over the file
/// collects every handshake and group key, so frames sent before the handshake that revealed
/// their key decrypt too.
#[pyfunction]
#[pyo3(signature = (path, *, passphrases=Vec::new(), pmks=Vec::new(), msks=Vec::new(), wep_keys=Vec::new(), tks=Vec::new(), keys_file=None, learn=true))]
#[allow(clippy::too_many_arguments)]
fn decrypt(
    py: Python<'_>,
    path: PathBuf,
    passphrases: Vec<Bound<'_, PyAny>>,
    pmks: Vec<PyBuffer<u8>>,
    msks: Vec<PyBuffer<u8>>,
    wep_keys: Vec<PyBuffer<u8>>,
    tks: Vec<PyBuffer<u8>>,
    keys_file: Option<PathBuf>,
    learn: bool,
) -> PyResult<Decryption> {
    let mut keys = Vec::new();
    for p in &passphrases {
        let (ssid, pass) = pair(p)?;
        keys.push(UserKey::passphrase(&ssid, &pass).map_err(errors::to_py)?);
    }
    for k in &pmks {
        keys.push(UserKey::Pmk(checked("PMK", slice(k)?, &[32, 48, 64])?));
    }
    for k in &msks {
        let k = slice(k)?;
        if !(64..=128).contains(&k.len()) {
            return Err(errors::KeyLengthError::new_err(format!("an MSK is 64 to 128 octets, got {}", k.len())));
        }
        keys.push(UserKey::Msk(Zeroizing::new(k.to_vec())));
    }
    for k in &wep_keys {
        keys.push(UserKey::Wep(checked("WEP key", slice(k)?, &[5, 13, 16])?));
    }
    for k in &tks {
        keys.push(UserKey::Tk(checked("TK", slice(k)?, &[16, 32])?));
    }
    if let Some(f) = &keys_file {
        let text = wsec::input::read_text_file(f, 1 << 20).map_err(|e| errors::value(format!("{}: {e}", f.display())))?;
        keys.extend(UserKey::from_80211_keys(&text).map_err(|e| errors::value(format!("{}: {e}", f.display())))?);
    }
    let learnable = keys.iter().any(|k| !matches!(k, UserKey::Wep(_) | UserKey::Tk(_)));
    let mut d = Decryptor::new(keys);
    if learn && learnable {
        d.start_learning();
        let reader = open(&path)?;
        py.detach(|| {
            for p in reader {
                let Ok(p) = p else { break };
                if let Ok(m) = radio::mpdu(p.linktype, &p.data) {
                    d.process(m.bytes);
                }
            }
        });
        d.end_learning();
    }
    let reader = open(&path)?;
    Ok(Decryption { path, reader, d, index: 0 })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Frame>()?;
    m.add_class::<Decryption>()?;
    m.add_function(wrap_pyfunction!(decrypt, m)?)?;
    Ok(())
}
