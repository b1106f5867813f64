//! RSN key derivation, IEEE 802.11-2020 12.7.1.
//!
//! - [`prf_sha1`] and `prf_128`..`prf_704`: the PRF of 12.7.1.2,
//!   `PRF-Len(K, A, B) = L(HMAC-SHA1(K, A || 0x00 || B || 0) || HMAC-SHA1(K, A || 0x00 || B || 1) || ..., 0, Len)`
//!   with a one-octet counter. Its output length is not an input, so a shorter output is a
//!   prefix of a longer one.
//! - [`kdf_sha256`], [`kdf_sha384`]: KDF-Hash-Length of 12.7.1.7.2,
//!   `HMAC-Hash(K, i || label || Context || Length)` for i = 1, 2, ... with `i` and `Length`
//!   (in bits) as 16-bit little-endian integers. The length *is* hashed, so every output
//!   octet depends on the total length.
//! - [`derive_ptk`] (12.7.1.3): the PTK of the 4-way handshake, split into KCK, KEK, TK and
//!   the optional KDK (IEEE 802.11az); [`pmkid`] (12.7.1.3); [`derive_gtk`] (12.7.1.4).
//!
//! Which of PRF-SHA1, KDF-SHA256 or KDF-SHA384 an AKM uses is [`Akm::kdf_hash`].
use crate::cipher::CipherSuite;
use crate::error::{Error, Result};
use crate::rsn::akm::{Akm, KdfHash};
use core::fmt;
use hmac::{Hmac, Mac};
use sha1::Sha1;
use sha2::{Sha256, Sha384, Sha512};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// Label of the PTK derivation (12.7.1.3).
pub const PTK_LABEL: &[u8] = b"Pairwise key expansion";
/// Label of the GTK derivation (12.7.1.4).
pub const GTK_LABEL: &[u8] = b"Group key expansion";
/// Longest KDK [`derive_ptk`] accepts, in octets (IEEE 802.11az uses 32 with SHA-256 AKMs
/// and 48 with SHA-384 AKMs).
pub const MAX_KDK_LEN: usize = 64;
/// Longest PRF-SHA1 output: the counter is one octet (255 x 20 octets).
pub const MAX_PRF_SHA1_LEN: usize = 255 * 20;
/// Longest KDF output: `Length` is a 16-bit count of bits (8191 octets).
pub const MAX_KDF_LEN: usize = 0xFFFF / 8;

/// Keyed HMAC. `new_from_slice` cannot fail for HMAC (any key length is accepted: keys
/// longer than the block are hashed, shorter ones zero-padded).
macro_rules! hmac_keyed {
    ($h:ty, $k:expr) => {
        <Hmac<$h> as Mac>::new_from_slice($k).expect("HMAC accepts keys of any length")
    };
}

/// The PRF of 12.7.1.2 (PRF-SHA1): fills `out` with
/// `HMAC-SHA1(K, A || 0x00 || B || i)` for i = 0, 1, ... (one-octet counter), truncated.
///
/// `Oversize` when `out` is longer than [`MAX_PRF_SHA1_LEN`] (the counter would wrap).
pub fn prf_sha1(k: &[u8], a: &[u8], b: &[u8], out: &mut [u8]) -> Result<()> {
    if out.len() > MAX_PRF_SHA1_LEN {
        return Err(Error::Oversize);
    }
    let keyed = hmac_keyed!(Sha1, k);
    for (i, chunk) in out.chunks_mut(20).enumerate() {
        let mut mac = keyed.clone();
        mac.update(a);
        mac.update(&[0]);
        mac.update(b);
        mac.update(&[i as u8]);
        let mut d = mac.finalize().into_bytes();
        chunk.copy_from_slice(&d[..chunk.len()]);
        d.zeroize();
    }
    Ok(())
}

fn prf_fixed<const N: usize>(k: &[u8], a: &[u8], b: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    // N <= 88 < MAX_PRF_SHA1_LEN for every caller below, so this cannot fail.
    let _ = prf_sha1(k, a, b, &mut out);
    out
}

/// PRF-128 (12.7.1.2).
pub fn prf_128(k: &[u8], a: &[u8], b: &[u8]) -> [u8; 16] {
    prf_fixed(k, a, b)
}
/// PRF-192 (12.7.1.2).
pub fn prf_192(k: &[u8], a: &[u8], b: &[u8]) -> [u8; 24] {
    prf_fixed(k, a, b)
}
/// PRF-256 (12.7.1.2).
pub fn prf_256(k: &[u8], a: &[u8], b: &[u8]) -> [u8; 32] {
    prf_fixed(k, a, b)
}
/// PRF-384 (12.7.1.2): the PTK of TKIP with a SHA-1 AKM is PRF-512, CCMP-128's PRF-384.
pub fn prf_384(k: &[u8], a: &[u8], b: &[u8]) -> [u8; 48] {
    prf_fixed(k, a, b)
}
/// PRF-512 (12.7.1.2).
pub fn prf_512(k: &[u8], a: &[u8], b: &[u8]) -> [u8; 64] {
    prf_fixed(k, a, b)
}
/// PRF-704 (12.7.1.2).
pub fn prf_704(k: &[u8], a: &[u8], b: &[u8]) -> [u8; 88] {
    prf_fixed(k, a, b)
}

macro_rules! kdf_impl {
    ($name:ident, $h:ty, $clause:literal) => {
        #[doc = concat!("KDF-", $clause, "-Length (12.7.1.7.2): fills `out` (Length = 8 x `out.len()` bits) with")]
        /// `HMAC-Hash(K, i || label || context || Length)` for i = 1, 2, ... (`i` and `Length`
        /// 16-bit little endian), truncated. `label` is given without a terminating NUL.
        ///
        /// `Oversize` when `out` is longer than [`MAX_KDF_LEN`] octets.
        pub fn $name(k: &[u8], label: &[u8], context: &[u8], out: &mut [u8]) -> Result<()> {
            if out.len() > MAX_KDF_LEN {
                return Err(Error::Oversize);
            }
            let length = ((out.len() * 8) as u16).to_le_bytes();
            let keyed = hmac_keyed!($h, k);
            let hlen = <$h as sha2::digest::OutputSizeUser>::output_size();
            for (i, chunk) in out.chunks_mut(hlen).enumerate() {
                let mut mac = keyed.clone();
                mac.update(&((i + 1) as u16).to_le_bytes());
                mac.update(label);
                mac.update(context);
                mac.update(&length);
                let mut d = mac.finalize().into_bytes();
                chunk.copy_from_slice(&d[..chunk.len()]);
                d.zeroize();
            }
            Ok(())
        }
    };
}

kdf_impl!(kdf_sha256, Sha256, "SHA-256");
kdf_impl!(kdf_sha384, Sha384, "SHA-384");
kdf_impl!(kdf_sha512, Sha512, "SHA-512");

/// The key derivation an AKM uses for its PTK (Table 9-151): PRF-Length (12.7.1.2) for
/// [`KdfHash::Sha1`], KDF-SHA-256/384-Length (12.7.1.7.2) otherwise. `label` is the ASCII
/// label without NUL, `context` the PRF's `B` / the KDF's Context.
pub fn kdf_hash_length(hash: KdfHash, k: &[u8], label: &[u8], context: &[u8], out: &mut [u8]) -> Result<()> {
    match hash {
        KdfHash::Sha1 => prf_sha1(k, label, context, out),
        KdfHash::Sha256 => kdf_sha256(k, label, context, out),
        KdfHash::Sha384 => kdf_sha384(k, label, context, out),
        KdfHash::Sha512 => kdf_sha512(k, label, context, out),
    }
}

/// A pairwise transient key split into its parts (12.7.1.3): KCK || KEK || TK || KDK.
/// Every part is wiped on drop; `Debug` prints lengths only.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Ptk {
    kck: Vec<u8>,
    kek: Vec<u8>,
    tk: Vec<u8>,
    kdk: Vec<u8>,
}

impl Ptk {
    /// Splits a raw PTK (the KDF output) for `akm` and pairwise `cipher`: KCK
    /// ([`Akm::kck_len`]), KEK ([`Akm::kek_len`]), TK ([`CipherSuite::key_len`]), then a KDK of
    /// `kdk_len` octets. `raw` must be exactly that long (else `BadKeyLength`).
    pub fn split(akm: Akm, cipher: CipherSuite, kdk_len: usize, raw: &[u8]) -> Result<Ptk> {
        let tk_len = pairwise_tk_len(cipher)?;
        let (kck_len, kek_len) = (akm.kck_len(), akm.kek_len());
        if raw.len() != kck_len + kek_len + tk_len + kdk_len {
            return Err(Error::BadKeyLength);
        }
        let (kck, rest) = raw.split_at(kck_len);
        let (kek, rest) = rest.split_at(kek_len);
        let (tk, kdk) = rest.split_at(tk_len);
        Ok(Ptk { kck: kck.to_vec(), kek: kek.to_vec(), tk: tk.to_vec(), kdk: kdk.to_vec() })
    }

    /// A TDLS TPK (12.7.8.5): TPK-KCK and TPK-TK, no KEK (the TPK handshake wraps no key).
    pub fn tpk(kck: &[u8], tk: &[u8]) -> Ptk {
        Ptk { kck: kck.to_vec(), kek: Vec::new(), tk: tk.to_vec(), kdk: Vec::new() }
    }

    /// EAPOL-Key Confirmation Key (MIC key).
    pub fn kck(&self) -> &[u8] {
        &self.kck
    }
    /// EAPOL-Key Encryption Key (Key Data encryption).
    pub fn kek(&self) -> &[u8] {
        &self.kek
    }
    /// Temporal key of the pairwise cipher (for TKIP: TK || Michael A->S || Michael S->A).
    pub fn tk(&self) -> &[u8] {
        &self.tk
    }
    /// Key derivation key (IEEE 802.11az secure LTF); empty when not requested.
    pub fn kdk(&self) -> &[u8] {
        &self.kdk
    }
    /// True when the TK is all zeros: such a key must never be installed (an all-zero TK
    /// is what a reinstalled/cleared key looks like, cf. the KRACK attacks).
    pub fn tk_is_zero(&self) -> bool {
        self.tk.iter().fold(0u8, |acc, &b| acc | b) == 0
    }
}

impl fmt::Debug for Ptk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Ptk {{ kck: {} octets, kek: {} octets, tk: {} octets, kdk: {} octets }}",
            self.kck.len(),
            self.kek.len(),
            self.tk.len(),
            self.kdk.len()
        )
    }
}

/// TK length of a pairwise cipher (12.7.2, Table 12-8); `Unsupported` for the suites the
/// suite table does not allow as pairwise (WEP, BIP).
fn pairwise_tk_len(cipher: CipherSuite) -> Result<usize> {
    if cipher.is_pairwise() {
        Ok(cipher.key_len())
    } else {
        Err(Error::Unsupported("not a pairwise cipher suite (TKIP, CCMP or GCMP)"))
    }
}

/// The PTK of the 4-way handshake (12.7.1.3):
///
/// ```text
/// PTK = KDF(PMK, "Pairwise key expansion",
///           Min(AA,SPA) || Max(AA,SPA) || Min(ANonce,SNonce) || Max(ANonce,SNonce))
/// ```
///
/// with KDF = PRF-Length (12.7.1.2) for the SHA-1 AKMs and KDF-SHA-256/384-Length
/// (12.7.1.7.2) for the others; Length = KCK + KEK + TK + KDK bits. `kdk_len` is 0 unless
/// both peers use secure LTF (IEEE 802.11az). With PRF-SHA1 a KDK only appends octets;
/// with the KDFs the length is hashed, so asking for a KDK changes KCK, KEK and TK too.
///
/// Errors: `Unsupported` for the FT AKMs (their PTK comes from PMK-R1, 12.7.1.6.5) and for
/// non-pairwise ciphers; `BadKeyLength` when the PMK is not [`Akm::pmk_len`] octets;
/// `Malformed` for a KDK over [`MAX_KDK_LEN`] octets.
#[allow(clippy::too_many_arguments)]
pub fn derive_ptk(
    akm: Akm,
    pmk: &[u8],
    aa: &[u8; 6],
    spa: &[u8; 6],
    anonce: &[u8; 32],
    snonce: &[u8; 32],
    cipher: CipherSuite,
    kdk_len: usize,
) -> Result<Ptk> {
    if akm.is_ft() {
        return Err(Error::Unsupported("FT AKMs derive the PTK from PMK-R1 (12.7.1.6.5)"));
    }
    if pmk.len() != akm.pmk_len() {
        return Err(Error::BadKeyLength);
    }
    if kdk_len > MAX_KDK_LEN {
        return Err(Error::Malformed("KDK longer than 64 octets"));
    }
    let tk_len = pairwise_tk_len(cipher)?;
    let context = ptk_context(aa, spa, anonce, snonce);
    let total = akm.kck_len() + akm.kek_len() + tk_len + kdk_len;
    let mut raw = Zeroizing::new(vec![0u8; total]);
    kdf_hash_length(akm.kdf_hash(), pmk, PTK_LABEL, &context, &mut raw)?;
    Ptk::split(akm, cipher, kdk_len, &raw)
}

/// `Min(AA,SPA) || Max(AA,SPA) || Min(ANonce,SNonce) || Max(ANonce,SNonce)` (12.7.1.3;
/// octet strings compared as unsigned big-endian integers).
pub fn ptk_context(aa: &[u8; 6], spa: &[u8; 6], anonce: &[u8; 32], snonce: &[u8; 32]) -> [u8; 76] {
    let mut c = [0u8; 76];
    let (a1, a2) = if aa <= spa { (aa, spa) } else { (spa, aa) };
    let (n1, n2) = if anonce <= snonce { (anonce, snonce) } else { (snonce, anonce) };
    c[..6].copy_from_slice(a1);
    c[6..12].copy_from_slice(a2);
    c[12..44].copy_from_slice(n1);
    c[44..].copy_from_slice(n2);
    c
}

/// PMKID (12.7.1.3): `Truncate-128(HMAC-Hash(PMK, "PMK Name" || AA || SPA))` with Hash =
/// SHA-1 for the SHA-1 AKMs, SHA-256 for the SHA-256 AKMs, SHA-384 for the SHA-384 AKMs
/// ([`Akm::kdf_hash`]).
///
/// This is the PMKSA-caching PMKID. SAE (12.4.5.4) and OWE name their PMKSA from the key
/// exchange instead, and FT AKMs use PMKR0Name/PMKR1Name (12.7.1.6); those are not this.
pub fn pmkid(akm: Akm, pmk: &[u8], aa: &[u8; 6], spa: &[u8; 6]) -> [u8; 16] {
    let mut out = [0u8; 16];
    macro_rules! run {
        ($h:ty) => {{
            let mut mac = hmac_keyed!($h, pmk);
            mac.update(b"PMK Name");
            mac.update(aa);
            mac.update(spa);
            let mut d = mac.finalize().into_bytes();
            out.copy_from_slice(&d[..16]);
            d.zeroize();
        }};
    }
    match akm.kdf_hash() {
        KdfHash::Sha1 => run!(Sha1),
        KdfHash::Sha256 => run!(Sha256),
        KdfHash::Sha384 => run!(Sha384),
        KdfHash::Sha512 => run!(Sha512),
    }
    out
}

/// GTK derivation by an Authenticator (12.7.1.4):
/// `GTK = PRF-X(GMK, "Group key expansion", AA || GNonce)` with X = 8 x `len` bits
/// (`len` = the group cipher's [`CipherSuite::key_len`]). The standard allows any random
/// GTK; this is the one it describes. `Malformed` for `len` 0 or over 64.
pub fn derive_gtk(gmk: &[u8], aa: &[u8; 6], gnonce: &[u8; 32], len: usize) -> Result<Zeroizing<Vec<u8>>> {
    if len == 0 || len > 64 {
        return Err(Error::Malformed("GTK length must be 1..64 octets"));
    }
    let mut b = [0u8; 38];
    b[..6].copy_from_slice(aa);
    b[6..].copy_from_slice(gnonce);
    let mut gtk = Zeroizing::new(vec![0u8; len]);
    prf_sha1(gmk, GTK_LABEL, &b, &mut gtk)?;
    Ok(gtk)
}
