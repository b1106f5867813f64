//! Seed 004 on this machine (placeholder while wiring).
pub mod engine;
pub mod soft_aes;
