//! Key material is wiped on drop: these bounds fail to compile if a key type loses it.
use zeroize::ZeroizeOnDrop;

fn wiped_on_drop<T: ZeroizeOnDrop>() {}

#[test]
fn key_types_zeroize_on_drop() {
    wiped_on_drop::<wsec::cipher::wep::WepKey>();
    wiped_on_drop::<wsec::cipher::tkip::TkipKey>();
    wiped_on_drop::<wsec::cipher::michael::Michael>();
    // The AES key schedules inside CCMP's portable backend, GCMP and BIP.
    wiped_on_drop::<aes::Aes128>();
    wiped_on_drop::<aes::Aes256>();
    // (BIP-CMAC: `cmac::Cmac` holds an `Aes128`/`Aes256`, wiped by the bound above.)
}
