//! The library part of wsec-cli: what the `wsec` binary and its integration tests share.
//!
//! - [`lab`]: an AP, two stations and a wired host in network namespaces, run from the
//!   `wsec` binary (`wsec demo`, the end-to-end tests).
pub mod lab;
