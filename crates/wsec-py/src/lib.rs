//! `wsec._wsec`: the Python extension module of wsec (PyO3). The Python package `wsec`
//! (crates/wsec-py/python/wsec) re-exports it; docs/python.md is the guide.
//!
//! | module | what Python gets | clause |
//! |---|---|---|
//! | [`errors`] | the exception classes, one per kind of `wsec::Error` | - |
//! | [`buf`] | bytes-like inputs (buffer protocol, no copy) and MAC addresses | - |
//! | [`cipher`] | `Key` (protect/unprotect one MPDU or a batch), `SecurityAssociation` (PN, replay), `ReplayCounters` | 12.5, 12.5.3.4.4 |
//! | [`keys`] | `psk`, `derive_ptk`, `pmkid`, `derive_gtk`, FT keys, `Sae`, `rsn_element` | 12.7.1, 12.4 |
//! | [`eapol`] | `EapolKey` (parse/build/MIC), `Authenticator`, `Supplicant` | 12.7.2, 12.7.6-7 |
//! | [`capture`] | `decrypt()`: a streaming iterator over a pcap/pcapng | - |
use pyo3::prelude::*;

mod buf;
mod capture;
mod cipher;
mod eapol;
mod errors;
mod keys;

#[pymodule]
fn _wsec(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    cipher::register(m)?;
    keys::register(m)?;
    eapol::register(m)?;
    capture::register(m)?;
    Ok(())
}
