//! Builds the ipsec-mb shim when the `ipsec-mb` feature is on (needs Debian's
//! libipsec-mb-dev, which scripts/setup installs).
fn main() {
    println!("cargo:rerun-if-changed=csrc/ipsec_mb_shim.c");
    if std::env::var_os("CARGO_FEATURE_IPSEC_MB").is_some() {
        cc::Build::new().file("csrc/ipsec_mb_shim.c").opt_level(2).compile("wsec_imb_shim");
        println!("cargo:rustc-link-lib=IPSec_MB");
    }
}
