//! One error type for every wire parser and every decapsulation path.
//!
//! Each variant says *why* a frame was refused, so a tool can count failures per reason
//! (as airdecap-ng does) and a caller never has to guess.
use core::fmt;

pub type Result<T> = core::result::Result<T, Error>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// The buffer ends before a field the format requires.
    Truncated,
    /// The frame is longer than the format allows (e.g. an MSDU over 2304 octets).
    Oversize,
    /// A field holds a value the format forbids; the text names it.
    Malformed(&'static str),
    /// The frame type cannot carry this protection (e.g. a control frame).
    Unsupported(&'static str),
    /// The Protected Frame bit is clear on a frame given to a decapsulation path.
    NotProtected,
    /// The Protected Frame bit is already set on a frame given to an encapsulation path.
    AlreadyProtected,
    /// CCMP/GCMP/TKIP security header without the Ext IV bit set.
    ExtIvMissing,
    /// No key is installed under this Key ID.
    UnknownKeyId(u8),
    /// Key of the wrong length for the cipher.
    BadKeyLength,
    /// CCMP/GCMP/BIP MIC, or TKIP Michael MIC, does not verify.
    MicFailure,
    /// WEP/TKIP ICV (CRC-32) does not verify.
    IcvFailure,
    /// PN/TSC/IPN not greater than the last one accepted for this replay counter.
    Replay,
    /// The transmit PN/TSC/IV space is used up: the key must be replaced.
    PnExhausted,
    /// Management MIC element missing or not the last element of the body.
    MmeMissing,
    /// Fragment sequence is inconsistent (gap, PN not consecutive, different key).
    Fragment(&'static str),
    /// The crypto engine the keys were given to (a hardware engine, e.g. `crypto_offload=
    /// fpga-sim`) failed or disagreed with the software; the text says how.
    Device(&'static str),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated => f.write_str("truncated frame"),
            Error::Oversize => f.write_str("frame too long"),
            Error::Malformed(what) => write!(f, "malformed: {what}"),
            Error::Unsupported(what) => write!(f, "unsupported: {what}"),
            Error::NotProtected => f.write_str("Protected Frame bit is not set"),
            Error::AlreadyProtected => f.write_str("Protected Frame bit is already set"),
            Error::ExtIvMissing => f.write_str("Ext IV bit not set in security header"),
            Error::UnknownKeyId(id) => write!(f, "unknown key ID {id}"),
            Error::BadKeyLength => f.write_str("wrong key length for the cipher"),
            Error::MicFailure => f.write_str("MIC failure"),
            Error::IcvFailure => f.write_str("ICV failure"),
            Error::Replay => f.write_str("replayed PN/TSC (not above the last accepted)"),
            Error::PnExhausted => f.write_str("PN space exhausted: rekey required"),
            Error::MmeMissing => f.write_str("Management MIC element missing or not last"),
            Error::Fragment(what) => write!(f, "fragment error: {what}"),
            Error::Device(what) => write!(f, "crypto engine: {what}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<crate::suite::UnknownSuite> for Error {
    fn from(_: crate::suite::UnknownSuite) -> Error {
        Error::Unsupported("unknown cipher suite name")
    }
}
