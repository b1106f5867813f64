//! Per-MPDU frame protection, IEEE 802.11-2020 clause 12.5.
pub mod kernel;
