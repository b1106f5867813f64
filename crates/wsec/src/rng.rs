//! Randomness, injected: every object that needs random octets (nonces, group keys, WEP IV
//! starts, SA Query transaction identifiers) takes an RNG instead of calling the OS, so a
//! test or a fuzz run can make a run reproducible with a seeded one.
//!
//! The type is RustCrypto's [`CryptoRngCore`] (what `p256`, `aes-gcm` and the rest take).
//! This crate has no source of its own: the live system hands in the OS CSPRNG
//! (`rand_core::OsRng`, in `wsec-live`), tests and fuzz targets a seeded one.
use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRngCore, SeedableRng};

/// An owned RNG, as the cores hold it.
pub type BoxRng = Box<dyn CryptoRngCore + Send>;

/// A ChaCha20 RNG seeded with 32 octets of `parent`: each station's handshake gets its own
/// RNG, and a seeded node RNG makes every station's nonces reproducible.
pub fn fork(parent: &mut dyn CryptoRngCore) -> BoxRng {
    let mut seed = [0u8; 32];
    parent.fill_bytes(&mut seed);
    let r = ChaCha20Rng::from_seed(seed);
    zeroize::Zeroize::zeroize(&mut seed);
    Box::new(r)
}

/// A ChaCha20 RNG from a seed (tests, fuzzing, reproducible simulations).
pub fn seeded(seed: u64) -> BoxRng {
    Box::new(ChaCha20Rng::seed_from_u64(seed))
}

/// `N` random octets.
pub fn array<const N: usize>(rng: &mut dyn CryptoRngCore) -> [u8; N] {
    let mut b = [0u8; N];
    rng.fill_bytes(&mut b);
    b
}
