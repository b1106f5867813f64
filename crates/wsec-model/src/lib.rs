//! WLAN performance model: what link security costs in throughput, delay, jitter and loss.
//!
//! A discrete-event simulation of the IEEE 802.11 DCF in one collision domain, with the
//! crypto of each security mode running in FIFO stages where the system under study puts it
//! (the station's card or host CPU, the AP's CPU or hardware engine), at costs measured from
//! wsec's own cipher code and from the hardware design. Run by `wsec model`.
//!
//! | module | what |
//! |---|---|
//! | [`phy`] | PHY timing: IFS, slot, CW bounds, TXTIME for FHSS, 802.11b/a/g and HT single stream |
//! | [`config`] | every parameter, as written in a scenario file |
//! | [`sim`] | the event loop: DCF, beacons, crypto stages, Ethernet, sources and sinks |
//! | [`edca`] | the access functions: DCF or EDCA access categories (Table 9-155), TXOP |
//! | [`errmodel`] | frame error rate from the SNR, rate and length (ns-3's NIST curves) |
//! | [`tcp`] | NewReno sender and delayed-ACK receiver |
//! | [`costs`] | the cost file: per-frame and per-byte crypto costs by location and suite |
//! | [`stats`] | confidence intervals, percentiles, RFC 3550 jitter |
//! | [`scenario`] | scenario files with cases, replications on all cores, sweeps |
//! | [`error`] | what a scenario, cost file or parameter got wrong |
//!
//! Model description, assumptions and validation: `docs/model.md`.
pub mod config;
pub mod costs;
pub mod edca;
pub mod errmodel;
pub mod error;
pub mod phy;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod tcp;

pub use config::ModelSpec;
pub use costs::{Costs, Location};
pub use error::{Error, Result};
pub use scenario::{replicate, saturation_spec, Scenario, Summary};
pub use sim::{run_once, FlowResult, RunResult};
