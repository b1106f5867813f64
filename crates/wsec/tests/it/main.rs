//! The integration tests of `wsec` as one binary: one module per area (run one with
//! `cargo test --release -p wsec --test it <module>::`), and the helpers they share,
//! compiled once.

mod common;
mod multi_ap;
mod nodesim;
mod peers;

mod backends;
mod capture_handshakes;
mod capture_read;
mod captures;
mod ccm16e;
mod ccm_batch;
mod crosscheck;
mod decrypt_engine;
mod decrypt_ft;
mod decrypt_keys_peers;
mod decrypt_lab;
mod decrypt_synth;
mod decrypt_tdls;
mod eccmp;
mod handshake;
mod kernel;
mod node_amsdu_tx;
mod node_core;
mod node_device;
mod node_eapol_port;
mod node_engine_batch;
mod node_ext_key_id;
mod node_ft;
mod node_mfp;
mod node_owe;
mod node_pmksa;
mod node_sae;
mod node_wnm;
mod node_wpa1;
mod ota_fragattacks;
mod ota_krack;
mod peer_compare;
mod peer_harness;
mod rrb;
mod rrb_hostapd;
mod rsn_ft;
mod rsn_kdf;
mod rsn_owe;
mod rsn_sae;
mod rsn_sae_sm;
mod rsn_wire;
mod sa;
mod tkip_wep;
mod vectors_ccmp;
mod vectors_gcmp_bip;
mod wire_amsdu;
mod wire_mgmt;
mod zeroize;
