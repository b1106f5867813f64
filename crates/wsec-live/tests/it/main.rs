//! The integration tests of `wsec-live` as one binary: one module per area (run one with
//! `cargo test --release -p wsec-live --test it <module>::`).

mod engine_batch;
mod fpga_sim;
mod load_air;
mod node_conf;
mod packet_ring;
mod tap_offload;
