//! wsec's errors as Python exceptions. Every class derives from `WsecError` (a `ValueError`)
//! and carries the message the `wsec` command line prints for the same error.
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use wsec::cipher::CipherSuite;
use wsec::Error;

create_exception!(wsec, WsecError, PyValueError, "Base class of every wsec error.");
create_exception!(wsec, TruncatedError, WsecError, "The frame (or a field of it) is cut short.");
create_exception!(wsec, MalformedError, WsecError, "The input is not a well-formed frame, element or field.");
create_exception!(wsec, UnsupportedError, WsecError, "Valid input that wsec does not handle (an unknown suite, AKM, group).");
create_exception!(wsec, KeyLengthError, WsecError, "A key of the wrong length for its cipher suite or AKM.");
create_exception!(wsec, KeyIdError, WsecError, "No key is installed under the frame's Key ID.");
create_exception!(wsec, IntegrityError, WsecError, "MIC or ICV failure: the frame was altered or the key is wrong.");
create_exception!(wsec, ReplayError, WsecError, "The PN/TSC/IPN is not above the last accepted (12.5.3.4.4).");
create_exception!(wsec, PnExhaustedError, WsecError, "The 48-bit PN space is used up: rekey.");
create_exception!(wsec, CaptureError, WsecError, "A capture file that cannot be read (I/O, not pcap/pcapng, damaged).");

/// The Python exception of a wsec error, with the CLI's message.
pub fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::Truncated => TruncatedError::new_err(msg),
        Error::Malformed(_)
        | Error::Oversize
        | Error::NotProtected
        | Error::AlreadyProtected
        | Error::ExtIvMissing
        | Error::MmeMissing
        | Error::Fragment(_) => MalformedError::new_err(msg),
        Error::Unsupported(_) => UnsupportedError::new_err(msg),
        Error::BadKeyLength => KeyLengthError::new_err(msg),
        Error::UnknownKeyId(_) => KeyIdError::new_err(msg),
        Error::MicFailure | Error::IcvFailure => IntegrityError::new_err(msg),
        Error::Replay => ReplayError::new_err(msg),
        Error::PnExhausted => PnExhaustedError::new_err(msg),
        _ => WsecError::new_err(msg),
    }
}

/// A key of the wrong length for `suite`, worded as `wsec protect` words it.
pub fn key_length(suite: CipherSuite, got: usize) -> PyErr {
    KeyLengthError::new_err(format!("{suite} needs a {}-octet key, got {got}", suite.key_len()))
}

/// A PMK of the wrong length for `akm` (12.7.1.3: 32 octets, 48 for the SHA-384 AKMs).
pub fn pmk_length(akm: wsec::rsn::akm::Akm, got: usize) -> PyErr {
    KeyLengthError::new_err(format!("the PMK of {} is {} octets, got {got}", akm.name(), akm.pmk_len()))
}

/// Bad argument values (names, lengths, ranges) that are not frame errors.
pub fn value(msg: impl Into<String>) -> PyErr {
    WsecError::new_err(msg.into())
}

pub trait IntoPy<T> {
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for wsec::Result<T> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("WsecError", py.get_type::<WsecError>())?;
    m.add("TruncatedError", py.get_type::<TruncatedError>())?;
    m.add("MalformedError", py.get_type::<MalformedError>())?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    m.add("KeyLengthError", py.get_type::<KeyLengthError>())?;
    m.add("KeyIdError", py.get_type::<KeyIdError>())?;
    m.add("IntegrityError", py.get_type::<IntegrityError>())?;
    m.add("ReplayError", py.get_type::<ReplayError>())?;
    m.add("PnExhaustedError", py.get_type::<PnExhaustedError>())?;
    m.add("CaptureError", py.get_type::<CaptureError>())?;
    Ok(())
}
