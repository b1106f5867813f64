//! wsec-base: what wsec's crates share without its protocol code.
//!
//! - [`suite`]: the cipher-suite table ([`CipherSuite`] and one row of facts per suite).
//! - [`input`]: whole-file reads with a size limit, strict hex text.
//! - [`error`]: the error type of the whole stack (`wsec::Error`), returned by the kernels
//!   (`wsec-kernel`) and the protocol code alike.
//!
//! `wsec` re-exports both (`wsec::cipher::CipherSuite`, `wsec::input`); crates that need
//! no more than these (the model) depend on this crate alone.
#![forbid(unsafe_code)]

pub mod error;
pub mod input;
pub mod suite;

pub use error::{Error, Result};
pub use suite::CipherSuite;

#[cfg(test)]
mod suite_guard;
