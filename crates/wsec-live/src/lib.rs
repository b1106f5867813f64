//! wsec-live: the live Enhanced-WPA2 system around the sans-IO cores of [`wsec::node`].
//!
//! | module | what |
//! |---|---|
//! | [`load`] | `wsec load`: many emulated stations on one medium, to load an access point |
//! | [`conf`] | hostapd.conf / wpa_supplicant.conf: the configuration files of `wsec ap` / `wsec sta` |
//! | [`ctrl`] | hostapd's / wpa_supplicant's control interface (`hostapd_cli`, `wpa_cli`) |
//! | [`medium`] | the wireless medium: the `air` hub on loopback UDP or in shared memory, raw packet sockets (monitor interfaces, veth), radiotap framing; TAP devices and network namespaces |
//! | [`pool`] | the host engine's crypto threads ([`wsec::node::engine::Parallel`]) |
//! | [`runtime`] | the run loop of `wsec ap` / `wsec sta`: medium, TAP and clock around a core |
//! | [`error`] | setup and I/O errors of the live system |
pub mod conf;
pub mod ctrl;
pub mod error;
pub mod fpga;
pub mod load;
pub mod medium;
pub mod pool;
pub mod radsec;
pub mod runtime;

pub use error::{Error, Result};
