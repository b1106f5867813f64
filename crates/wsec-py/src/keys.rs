//! The RSN key hierarchy (IEEE 802.11-2020 12.7.1): PSK from a passphrase (J.4's PBKDF2),
//! PTK (12.7.1.3), PMKID, GTK (12.7.1.4), the PMK of an 802.1X AKM from its MSK, the FT
//! hierarchy (12.7.1.6), SAE (12.4) and the RSN element (9.4.2.24) to announce them.
use crate::buf::{self, array, slice};
use crate::errors::{self, IntoPy};
use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wsec::rsn::ie::{RsnCapabilities, RsnElementRepr, Suite};
use wsec::rsn::kdf;
use wsec::rsn::sae::{self, exchange::CommitError, Group};
use zeroize::Zeroizing;

/// A pairwise transient key split into its parts (12.7.1.3): KCK || KEK || TK || KDK.
#[pyclass(module = "wsec", frozen)]
pub struct Ptk {
    ptk: kdf::Ptk,
}

impl Ptk {
    pub fn wrap(ptk: kdf::Ptk) -> Ptk {
        Ptk { ptk }
    }
}

#[pymethods]
impl Ptk {
    /// EAPOL-Key Confirmation Key (the Key MIC key).
    #[getter]
    fn kck<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        buf::bytes(py, self.ptk.kck())
    }
    /// EAPOL-Key Encryption Key (Key Data encryption).
    #[getter]
    fn kek<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        buf::bytes(py, self.ptk.kek())
    }
    /// Temporal key of the pairwise cipher (TKIP: TK || Michael A->S || Michael S->A).
    #[getter]
    fn tk<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        buf::bytes(py, self.ptk.tk())
    }
    /// Key derivation key (IEEE 802.11az); empty unless asked for.
    #[getter]
    fn kdk<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        buf::bytes(py, self.ptk.kdk())
    }
    /// KCK || KEK || TK || KDK.
    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let all = Zeroizing::new([self.ptk.kck(), self.ptk.kek(), self.ptk.tk(), self.ptk.kdk()].concat());
        buf::bytes(py, &all)
    }
    fn __repr__(&self) -> String {
        format!("{:?}", self.ptk)
    }
}

/// The PSK of a WPA passphrase (8-63 ASCII characters) and SSID: PBKDF2-HMAC-SHA1 with
/// 4096 iterations, 32 octets (IEEE 802.11-2020 J.4). Runs without the GIL.
#[pyfunction]
fn psk<'py>(py: Python<'py>, passphrase: &Bound<'py, PyAny>, ssid: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let pass = Zeroizing::new(buf::text_or_bytes(passphrase)?);
    let ssid = buf::text_or_bytes(ssid)?;
    if ssid.len() > 32 {
        return Err(errors::value(format!("an SSID is at most 32 octets, got {}", ssid.len())));
    }
    let k = py.detach(|| wsec::rsn::pbkdf2::psk_from_passphrase(&pass, &ssid)).py()?;
    let k = Zeroizing::new(k);
    Ok(buf::bytes(py, &k[..]))
}

/// The PTK of a 4-way handshake (12.7.1.3): PRF-SHA1 for `psk`/`wpa-eap`, the SHA-256/384
/// KDF for the others; `kdk_len` octets of KDK when secure LTF is in use (802.11az).
#[pyfunction]
#[pyo3(signature = (akm, pmk, aa, spa, anonce, snonce, cipher="ccmp", kdk_len=0))]
#[allow(clippy::too_many_arguments)]
fn derive_ptk(
    akm: &str,
    pmk: PyBuffer<u8>,
    aa: &Bound<'_, PyAny>,
    spa: &Bound<'_, PyAny>,
    anonce: PyBuffer<u8>,
    snonce: PyBuffer<u8>,
    cipher: &str,
    kdk_len: usize,
) -> PyResult<Ptk> {
    let (akm, cipher) = (buf::akm(akm)?, buf::suite(cipher)?);
    let (aa, spa) = (buf::mac(aa)?, buf::mac(spa)?);
    let (an, sn) = (array::<32>(&anonce, "ANonce")?, array::<32>(&snonce, "SNonce")?);
    let pmk = slice(&pmk)?;
    kdf::derive_ptk(akm, pmk, &aa, &spa, &an, &sn, cipher, kdk_len)
        .map_err(|e| match e {
            wsec::Error::BadKeyLength => errors::pmk_length(akm, pmk.len()),
            e => errors::to_py(e),
        })
        .map(Ptk::wrap)
}

/// PMKID (12.7.1.3): Truncate-128(HMAC-Hash(PMK, "PMK Name" || AA || SPA)), Hash by AKM.
#[pyfunction]
fn pmkid<'py>(
    py: Python<'py>,
    akm: &str,
    pmk: PyBuffer<u8>,
    aa: &Bound<'py, PyAny>,
    spa: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let akm = buf::akm(akm)?;
    let pmk = slice(&pmk)?;
    if pmk.is_empty() {
        return Err(errors::KeyLengthError::new_err("the PMK is empty"));
    }
    Ok(buf::bytes(py, &kdf::pmkid(akm, pmk, &buf::mac(aa)?, &buf::mac(spa)?)))
}

/// GTK (or IGTK) derivation by an Authenticator (12.7.1.4):
/// PRF-X(GMK, "Group key expansion", AA || GNonce) with X = 8 x `length` bits.
#[pyfunction]
fn derive_gtk<'py>(
    py: Python<'py>,
    gmk: PyBuffer<u8>,
    aa: &Bound<'py, PyAny>,
    gnonce: PyBuffer<u8>,
    length: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let g = kdf::derive_gtk(slice(&gmk)?, &buf::mac(aa)?, &array::<32>(&gnonce, "GNonce")?, length).py()?;
    Ok(buf::bytes(py, &g))
}

/// The PMK of an 802.1X AKM from the EAP MSK (12.7.1.3): the first 256 bits (384 for
/// `wpa-eap-suite-b-192`). For the FT AKMs this is the XXKey (12.7.1.6.3).
#[pyfunction]
fn msk_pmk<'py>(py: Python<'py>, akm: &str, msk: PyBuffer<u8>) -> PyResult<Bound<'py, PyBytes>> {
    let akm = buf::akm(akm)?;
    let msk = slice(&msk)?;
    let k = if akm.is_ft() { wsec::decrypt::keys::msk_xxkey(akm, msk) } else { wsec::decrypt::keys::msk_pmk(akm, msk) };
    let k = k.ok_or_else(|| {
        errors::KeyLengthError::new_err(format!(
            "an MSK is {}-{} octets, got {} (or the AKM takes no MSK)",
            wsec::decrypt::keys::MSK_MIN_LEN,
            wsec::decrypt::keys::MSK_MAX_LEN,
            msk.len()
        ))
    })?;
    Ok(buf::bytes(py, &k))
}

/// PMK-R0 and PMKR0Name (12.7.1.6.3) from the XXKey (the PSK, the SAE PMK or the MSK's
/// second 256 bits): `(pmk_r0, pmk_r0_name)`.
#[pyfunction]
fn ft_pmk_r0<'py>(
    py: Python<'py>,
    akm: &str,
    xxkey: PyBuffer<u8>,
    ssid: &Bound<'py, PyAny>,
    mdid: PyBuffer<u8>,
    r0kh_id: &Bound<'py, PyAny>,
    s0kh_id: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let r0 = wsec::rsn::ft::derive_pmk_r0(
        buf::akm(akm)?,
        slice(&xxkey)?,
        &buf::text_or_bytes(ssid)?,
        array::<2>(&mdid, "MDID")?,
        &buf::text_or_bytes(r0kh_id)?,
        buf::mac(s0kh_id)?,
    )
    .py()?;
    Ok((buf::bytes(py, &r0.key), buf::bytes(py, &r0.name)))
}

/// PMK-R1 and PMKR1Name (12.7.1.6.4): `(pmk_r1, pmk_r1_name)`.
#[pyfunction]
fn ft_pmk_r1<'py>(
    py: Python<'py>,
    akm: &str,
    pmk_r0: PyBuffer<u8>,
    pmk_r0_name: PyBuffer<u8>,
    r1kh_id: &Bound<'py, PyAny>,
    s1kh_id: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let r0 = wsec::rsn::ft::PmkR0 { key: Zeroizing::new(slice(&pmk_r0)?.to_vec()), name: array::<16>(&pmk_r0_name, "PMKR0Name")? };
    let r1 = wsec::rsn::ft::derive_pmk_r1(buf::akm(akm)?, &r0, buf::mac(r1kh_id)?, buf::mac(s1kh_id)?).py()?;
    Ok((buf::bytes(py, &r1.key), buf::bytes(py, &r1.name)))
}

/// The PTK of a fast BSS transition (12.7.1.6.5): KDF(PMK-R1, "FT-PTK", SNonce || ANonce ||
/// BSSID || STA-ADDR).
#[pyfunction]
#[pyo3(signature = (akm, pmk_r1, snonce, anonce, bssid, sta, cipher="ccmp", kdk_len=0))]
#[allow(clippy::too_many_arguments)]
fn ft_ptk(
    akm: &str,
    pmk_r1: PyBuffer<u8>,
    snonce: PyBuffer<u8>,
    anonce: PyBuffer<u8>,
    bssid: &Bound<'_, PyAny>,
    sta: &Bound<'_, PyAny>,
    cipher: &str,
    kdk_len: usize,
) -> PyResult<Ptk> {
    let r1 = wsec::rsn::ft::PmkR1 { key: Zeroizing::new(slice(&pmk_r1)?.to_vec()), name: [0; 16] };
    wsec::rsn::ft::derive_ft_ptk(
        buf::akm(akm)?,
        &r1,
        &array::<32>(&snonce, "SNonce")?,
        &array::<32>(&anonce, "ANonce")?,
        buf::mac(bssid)?,
        buf::mac(sta)?,
        buf::suite(cipher)?,
        kdk_len,
    )
    .py()
    .map(Ptk::wrap)
}

/// An RSN element (9.4.2.24: Element ID 48, Length, body) announcing one AKM, one pairwise
/// cipher, the group cipher and, with management frame protection, the group management
/// cipher. `mfp`: 'off', 'optional' (MFPC) or 'required' (MFPC and MFPR).
#[pyfunction]
#[pyo3(signature = (akm="psk", pairwise="ccmp", group="ccmp", *, mfp="off", group_mgmt=None, pmkids=Vec::new()))]
fn rsn_element<'py>(
    py: Python<'py>,
    akm: &str,
    pairwise: &str,
    group: &str,
    mfp: &str,
    group_mgmt: Option<&str>,
    pmkids: Vec<PyBuffer<u8>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut caps = RsnCapabilities(0);
    let (c, r) = match mfp {
        "off" => (false, false),
        "optional" => (true, false),
        "required" => (true, true),
        o => return Err(errors::value(format!("mfp must be 'off', 'optional' or 'required', got {o:?}"))),
    };
    caps.set(RsnCapabilities::MFPC, c);
    caps.set(RsnCapabilities::MFPR, r);
    let e = RsnElementRepr {
        version: 1,
        group_cipher: Some(Suite::from_cipher(buf::suite(group)?)),
        pairwise: vec![Suite::from_cipher(buf::suite(pairwise)?)],
        akms: vec![Suite::from_akm(buf::akm(akm)?)],
        capabilities: Some(caps),
        pmkids: pmkids.iter().map(|p| array::<16>(p, "a PMKID")).collect::<PyResult<_>>()?,
        group_mgmt_cipher: group_mgmt.map(buf::suite).transpose()?.map(Suite::from_cipher),
    };
    Ok(buf::bytes(py, &e.to_bytes().py()?))
}

/// One SAE protocol instance's cryptography (IEEE 802.11-2020 12.4): the password element
/// (hunting-and-pecking, 12.4.4.2.2, or hash-to-element when `ssid` is given, 12.4.4.2.3),
/// the Commit (12.4.5.2), k and KCK/PMK/PMKID (12.4.5.4), the Confirm (12.4.5.5-6).
///
/// The bodies are those of the Authentication frames (12.4.7): `commit()` gives ours,
/// `process_commit()` takes the peer's; then `confirm()` / `verify_confirm()`.
#[pyclass(module = "wsec")]
pub struct Sae {
    ex: sae::Exchange,
}

fn commit_status(e: CommitError) -> PyErr {
    match e {
        CommitError::SilentlyDiscard => errors::MalformedError::new_err("SAE commit reflects our own (discarded, 12.4.8.6.4)"),
        CommitError::Status(s) => errors::MalformedError::new_err(format!("SAE commit refused with status {s}")),
    }
}

#[pymethods]
impl Sae {
    #[new]
    #[pyo3(signature = (password, own_addr, peer_addr, *, group=19, ssid=None, password_id=None, seed=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        password: &Bound<'_, PyAny>,
        own_addr: &Bound<'_, PyAny>,
        peer_addr: &Bound<'_, PyAny>,
        group: u16,
        ssid: Option<&Bound<'_, PyAny>>,
        password_id: Option<&Bound<'_, PyAny>>,
        seed: Option<u64>,
    ) -> PyResult<Sae> {
        let g =
            Group::from_id(group).ok_or_else(|| errors::UnsupportedError::new_err(format!("SAE group {group} (wsec has 19, 20, 21)")))?;
        let pw = Zeroizing::new(buf::text_or_bytes(password)?);
        let id = password_id.map(buf::text_or_bytes).transpose()?;
        let (own, peer) = (buf::mac(own_addr)?, buf::mac(peer_addr)?);
        let mut rng = crate::eapol::rng(seed);
        let (pwe, h2e) = match ssid {
            Some(s) => {
                let pt = g.pt(&buf::text_or_bytes(s)?, &pw, id.as_deref()).py()?;
                (g.pwe_from_pt(&pt, &own, &peer).py()?, true)
            }
            None => {
                let mut base = pw.clone();
                if let Some(i) = &id {
                    base.extend_from_slice(i);
                }
                (g.pwe_hunting_and_pecking(&own, &peer, &base, &mut *rng).py()?, false)
            }
        };
        Ok(Sae { ex: sae::Exchange::new(g, pwe, h2e, own, peer, &mut *rng).py()? })
    }

    /// Our Commit body: group, scalar, element (12.4.7.2).
    fn commit<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        buf::bytes(py, &self.ex.commit_msg(None, None).to_bytes(self.ex.h2e()))
    }

    #[getter]
    fn scalar<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        buf::bytes(py, self.ex.scalar())
    }

    #[getter]
    fn element<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        buf::bytes(py, self.ex.element())
    }

    /// Takes the peer's Commit body: checks its scalar and element, refuses a reflection,
    /// derives k, KCK, PMK and PMKID.
    fn process_commit(&mut self, body: PyBuffer<u8>) -> PyResult<()> {
        let c = sae::msg::Commit::parse(slice(&body)?, self.ex.h2e())
            .map_err(|s| errors::MalformedError::new_err(format!("SAE commit refused with status {s}")))?;
        self.ex.process_commit(&c).map_err(commit_status)
    }

    /// Our Confirm body (send-confirm || confirm), after `process_commit`.
    fn confirm<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let c = self.ex.confirm().ok_or_else(|| errors::value("SAE confirm before the peer's commit"))?;
        Ok(buf::bytes(py, &c.to_bytes()))
    }

    /// Whether the peer's Confirm body verifies (constant-time compare).
    fn verify_confirm(&self, body: PyBuffer<u8>) -> PyResult<bool> {
        let c = sae::msg::Confirm::parse(slice(&body)?, self.ex.hash().output_len()).py()?;
        Ok(self.ex.verify_confirm(&c))
    }

    #[getter]
    fn pmk<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.ex.keys().map(|k| buf::bytes(py, k.pmk()))
    }

    #[getter]
    fn kck<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.ex.keys().map(|k| buf::bytes(py, k.kck()))
    }

    #[getter]
    fn pmkid<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.ex.keys().map(|k| buf::bytes(py, k.pmkid()))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Ptk>()?;
    m.add_class::<Sae>()?;
    m.add_function(wrap_pyfunction!(psk, m)?)?;
    m.add_function(wrap_pyfunction!(derive_ptk, m)?)?;
    m.add_function(wrap_pyfunction!(pmkid, m)?)?;
    m.add_function(wrap_pyfunction!(derive_gtk, m)?)?;
    m.add_function(wrap_pyfunction!(msk_pmk, m)?)?;
    m.add_function(wrap_pyfunction!(ft_pmk_r0, m)?)?;
    m.add_function(wrap_pyfunction!(ft_pmk_r1, m)?)?;
    m.add_function(wrap_pyfunction!(ft_ptk, m)?)?;
    m.add_function(wrap_pyfunction!(rsn_element, m)?)?;
    Ok(())
}
