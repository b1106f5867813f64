//! The integration tests of `wsec-model` as one binary: one module per area (run one with
//! `cargo test --release -p wsec-model --test it <module>::`).

mod model_analytic;
mod model_bianchi;
mod model_conventions;
mod model_errmodel;
mod model_traffic;
