//! The integration tests of `wsec-cli` as one binary: one module per area (run one with
//! `cargo test --release -p wsec-cli --test it <module>::`).

mod air_check;
mod bench_cli;
mod cli;
mod cli_contract;
mod ctrl_cli;
mod ctrl_wnm;
mod decrypt_cli;
mod decrypt_output;
mod dot1x_cores;
mod exit_codes;
mod freeradius;
mod help;
mod live_enterprise;
mod live_fpga;
mod live_netns;
mod model_cli;
mod radius_live;
mod radsec_live;
mod report_check;
mod report_cli;
mod rsn_cli;
