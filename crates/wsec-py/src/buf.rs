//! Inputs from Python: bytes-like objects read in place (any buffer-protocol object:
//! `bytes`, `bytearray`, `memoryview`, a NumPy `uint8` array), MAC addresses, fixed-size
//! fields, suite and AKM names.
use crate::errors::value;
use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use wsec::cipher::CipherSuite;
use wsec::rsn::akm::Akm;

/// The octets of a C-contiguous buffer, without a copy. The slice lives as long as the
/// `PyBuffer`, which holds the exporter's buffer (and so its memory) until dropped.
pub fn slice(b: &PyBuffer<u8>) -> PyResult<&[u8]> {
    if !b.is_c_contiguous() {
        return Err(value("a bytes-like object must be C-contiguous"));
    }
    let len = b.len_bytes();
    if len == 0 {
        return Ok(&[]);
    }
    // SAFETY: the buffer was obtained with PyObject_GetBuffer (PyBuffer::get) and stays
    // valid until `b` is dropped, which the returned lifetime ties to; it is C-contiguous
    // (checked above), so `len_bytes` octets from `buf_ptr` are one allocation. The exporter
    // may still be mutated by other Python code (a bytearray written by another thread while
    // the GIL is released): the octets read are then whatever is there, as with any C
    // extension reading a buffer, but never out of bounds.
    Ok(unsafe { std::slice::from_raw_parts(b.buf_ptr() as *const u8, len) })
}

/// Exactly `N` octets.
pub fn array<const N: usize>(b: &PyBuffer<u8>, what: &str) -> PyResult<[u8; N]> {
    let s = slice(b)?;
    s.try_into().map_err(|_| value(format!("{what} must be {N} octets, got {}", s.len())))
}

/// A MAC address: 6 octets (bytes-like) or text such as `02:00:00:00:01:00` (also with
/// `-` or no separators).
pub fn mac(obj: &Bound<'_, PyAny>) -> PyResult<[u8; 6]> {
    if let Ok(s) = obj.cast::<PyString>() {
        let t = s.to_str()?;
        let hex: String = t.chars().filter(|c| *c != ':' && *c != '-').collect();
        let bad = || value(format!("not a MAC address: {t:?}"));
        if hex.len() != 12 || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(bad());
        }
        let mut a = [0u8; 6];
        for (i, o) in a.iter_mut().enumerate() {
            *o = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        return Ok(a);
    }
    let b = PyBuffer::<u8>::get(obj).map_err(|_| value("a MAC address is 6 octets or text like 02:00:00:00:01:00"))?;
    array::<6>(&b, "a MAC address")
}

/// Text or bytes, as octets (a passphrase, an SSID: text is UTF-8).
pub fn text_or_bytes(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(s.to_str()?.as_bytes().to_vec());
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    let b = PyBuffer::<u8>::get(obj).map_err(|_| value("expected str or a bytes-like object"))?;
    Ok(slice(&b)?.to_vec())
}

/// A cipher suite by wsec's name (`ccmp`, `ccmp-256`, `gcmp`, `tkip`, `wep40`, `bip-cmac`,
/// `eccmp-4`, ... or an alias such as hostapd's `CCMP`).
pub fn suite(name: &str) -> PyResult<CipherSuite> {
    name.parse::<CipherSuite>().map_err(|_| {
        let names: Vec<&str> = CipherSuite::ALL.iter().map(|s| s.name()).collect();
        crate::errors::UnsupportedError::new_err(format!("unknown cipher suite {name:?} (one of: {})", names.join(", ")))
    })
}

/// An AKM by wsec's name (hostapd's `wpa_key_mgmt` names in lower case: `psk`, `sae`,
/// `wpa-eap`, `ft-psk`, `owe`, ...).
pub fn akm(name: &str) -> PyResult<Akm> {
    Akm::from_name(name).map_err(|_| {
        let names: Vec<&str> = Akm::ALL.iter().map(|a| a.name()).collect();
        crate::errors::UnsupportedError::new_err(format!("unknown AKM {name:?} (one of: {})", names.join(", ")))
    })
}

pub fn bytes<'py>(py: Python<'py>, b: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, b)
}
