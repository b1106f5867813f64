//! The ciphers of the benchmark, wired to one interface ([`CipherImpl`]).
//!
//! Seed 004's setting is CBC with PKCS#7 padding (its .NET `SymmetricAlgorithm` defaults),
//! with AES-256, DES (64-bit key), 3DES (192), RC2 (64), Blowfish (256) and RC6 (256). Each
//! block cipher here is a RustCrypto crate driven by RustCrypto's `cbc` (NIST SP 800-38A
//! 6.2) with PKCS#7 padding (RFC 5652 6.3): `aes` 0.8 (AES-NI when the CPU has it), `aes`
//! 0.7 with `force-soft` for the portable AES ([`super::soft_aes`]), `des`, `rc2`,
//! `blowfish`, and `rc6` (with `cbc` 0.2, the generation of `cipher` it is published for).
//! AES-GCM (`aes-gcm`, SP 800-38D) and ChaCha20-Poly1305 (`chacha20poly1305`, RFC 8439) are
//! there as what a protocol would use today; they run with a 12-octet nonce and a 16-octet
//! tag.
//!
//! CBC without a MAC is what the paper measured, not a recommendation: unauthenticated,
//! and PKCS#7 unpadding is a padding oracle wherever its errors can be observed.
//!
//! Key sizes: `key_bits` is the key length, except for RC2, where it is RFC 2268's
//! *effective* key bits (T1) and the key may be 1 to 128 octets long.
use aes_gcm::aead::AeadInPlace;
use aes_gcm::aead::KeyInit as AeadKeyInit;
use cbc_rc6::cipher as cipher05;
use cipher::block_padding::Pkcs7;
use cipher::generic_array::GenericArray;
use cipher::{BlockCipher, BlockDecrypt, BlockDecryptMut, BlockEncrypt, BlockEncryptMut, InnerIvInit};
use core::fmt;
use serde::Serialize;
use wsec::error::{Error, Result};

use super::soft_aes::{SoftAes128, SoftAes192, SoftAes256};

/// The algorithms of the benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Algorithm {
    /// AES (FIPS 197) from `aes` 0.8: AES-NI / ARMv8 AES when present, else portable.
    Aes,
    /// AES from `aes` 0.7 forced to its portable, fixsliced implementation.
    AesSoft,
    /// DES (FIPS 46-3).
    Des,
    /// Triple DES, EDE with three keys (SP 800-67 keying option 1).
    TripleDes,
    /// RC2 (RFC 2268).
    Rc2,
    /// Blowfish (Schneier 1993), big-endian as in the reference code.
    Blowfish,
    /// RC6-32/20/b (Rivest, Robshaw, Sidney, Yin 1998).
    Rc6,
    /// AES-GCM, 96-bit nonce, 128-bit tag (SP 800-38D).
    AesGcm,
    /// ChaCha20-Poly1305 (RFC 8439).
    ChaCha20Poly1305,
}

/// How a cipher is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Mode {
    /// CBC with PKCS#7 padding (seed 004's setting).
    #[serde(rename = "cbc-pkcs7")]
    CbcPkcs7,
    /// Authenticated encryption with a 12-octet nonce and 16-octet tag.
    #[serde(rename = "aead")]
    Aead,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::CbcPkcs7 => "cbc-pkcs7",
            Mode::Aead => "aead",
        }
    }
}

impl Algorithm {
    pub const ALL: [Algorithm; 9] = [
        Algorithm::Aes,
        Algorithm::AesSoft,
        Algorithm::Des,
        Algorithm::TripleDes,
        Algorithm::Rc2,
        Algorithm::Blowfish,
        Algorithm::Rc6,
        Algorithm::AesGcm,
        Algorithm::ChaCha20Poly1305,
    ];

    /// Short name, as in reports and `--json` ("AES", "AES-soft", "3DES", ...).
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Aes => "AES",
            Algorithm::AesSoft => "AES-soft",
            Algorithm::Des => "DES",
            Algorithm::TripleDes => "3DES",
            Algorithm::Rc2 => "RC2",
            Algorithm::Blowfish => "Blowfish",
            Algorithm::Rc6 => "RC6",
            Algorithm::AesGcm => "AES-GCM",
            Algorithm::ChaCha20Poly1305 => "ChaCha20-Poly1305",
        }
    }

    /// Which code runs (crate and backend).
    pub fn implementation(self) -> &'static str {
        match self {
            Algorithm::Aes => {
                if crate::cpu::has_hw_aes() {
                    "aes 0.8, AES instructions"
                } else {
                    "aes 0.8, portable (this CPU has no AES instructions)"
                }
            }
            Algorithm::AesSoft => "aes 0.7 force-soft, fixsliced",
            Algorithm::Des | Algorithm::TripleDes => "des 0.8",
            Algorithm::Rc2 => "rc2 0.8",
            Algorithm::Blowfish => "blowfish 0.9",
            Algorithm::Rc6 => "rc6 0.1",
            Algorithm::AesGcm => "aes-gcm 0.10",
            Algorithm::ChaCha20Poly1305 => "chacha20poly1305 0.10",
        }
    }

    pub fn mode(self) -> Mode {
        match self {
            Algorithm::AesGcm | Algorithm::ChaCha20Poly1305 => Mode::Aead,
            _ => Mode::CbcPkcs7,
        }
    }

    /// Block length in octets (the padding unit of CBC; 16 for the AEADs' underlying blocks).
    pub fn block_len(self) -> usize {
        match self {
            Algorithm::Des | Algorithm::TripleDes | Algorithm::Rc2 | Algorithm::Blowfish => 8,
            Algorithm::ChaCha20Poly1305 => 64,
            _ => 16,
        }
    }

    /// Whether `bits` is a key size this wiring accepts.
    pub fn accepts_key_bits(self, bits: u32) -> bool {
        match self {
            Algorithm::Aes | Algorithm::AesSoft | Algorithm::Rc6 => matches!(bits, 128 | 192 | 256),
            Algorithm::Des => bits == 64,
            Algorithm::TripleDes => bits == 192,
            Algorithm::Rc2 => (1..=1024).contains(&bits),
            Algorithm::Blowfish => (32..=448).contains(&bits) && bits.is_multiple_of(8),
            Algorithm::AesGcm => matches!(bits, 128 | 256),
            Algorithm::ChaCha20Poly1305 => bits == 256,
        }
    }

    /// Parses [`name`](Self::name), case-insensitively, also "aes-hw", "tdes", "bf" and
    /// "chacha20".
    pub fn parse(s: &str) -> Option<Self> {
        let l = s.to_ascii_lowercase();
        Some(match l.as_str() {
            "aes" | "aes-hw" | "aes-ni" => Algorithm::Aes,
            "aes-soft" | "aes-sw" => Algorithm::AesSoft,
            "des" => Algorithm::Des,
            "3des" | "tdes" | "des-ede3" => Algorithm::TripleDes,
            "rc2" => Algorithm::Rc2,
            "blowfish" | "bf" => Algorithm::Blowfish,
            "rc6" => Algorithm::Rc6,
            "aes-gcm" | "gcm" => Algorithm::AesGcm,
            "chacha20-poly1305" | "chacha20poly1305" | "chacha20" => Algorithm::ChaCha20Poly1305,
            _ => return None,
        })
    }
}

/// An algorithm with its key size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Spec {
    pub alg: Algorithm,
    pub key_bits: u32,
}

impl Spec {
    pub const fn new(alg: Algorithm, key_bits: u32) -> Self {
        Spec { alg, key_bits }
    }

    /// Seed 004's six ciphers with its key sizes (section 4): AES-256, DES-64, RC2-64,
    /// RC6-256, Blowfish-256, 3DES-192.
    pub const PAPER: [Spec; 6] = [
        Spec::new(Algorithm::Aes, 256),
        Spec::new(Algorithm::Des, 64),
        Spec::new(Algorithm::TripleDes, 192),
        Spec::new(Algorithm::Rc2, 64),
        Spec::new(Algorithm::Blowfish, 256),
        Spec::new(Algorithm::Rc6, 256),
    ];

    /// Everything `wsec bench ciphers` runs by default: AES-128/192/256 with AES
    /// instructions and portable, the paper's other five, AES-128/256-GCM, ChaCha20-Poly1305.
    pub fn defaults() -> Vec<Spec> {
        use Algorithm::*;
        vec![
            Spec::new(Aes, 128),
            Spec::new(Aes, 192),
            Spec::new(Aes, 256),
            Spec::new(AesSoft, 128),
            Spec::new(AesSoft, 192),
            Spec::new(AesSoft, 256),
            Spec::new(Des, 64),
            Spec::new(TripleDes, 192),
            Spec::new(Rc2, 64),
            Spec::new(Blowfish, 256),
            Spec::new(Rc6, 256),
            Spec::new(AesGcm, 128),
            Spec::new(AesGcm, 256),
            Spec::new(ChaCha20Poly1305, 256),
        ]
    }

    /// Parses "AES-256", "aes-soft-128", "3des", "rc2-64", "chacha20-poly1305": a name
    /// from [`Algorithm::parse`] and optionally "-" and a key size; without one, the
    /// paper's size (or the only size).
    pub fn parse(s: &str) -> Option<Spec> {
        if let Some(alg) = Algorithm::parse(s) {
            return Some(Spec::new(alg, default_bits(alg)));
        }
        let (name, bits) = s.rsplit_once('-')?;
        let (alg, bits) = (Algorithm::parse(name)?, bits.parse().ok()?);
        alg.accepts_key_bits(bits).then_some(Spec::new(alg, bits))
    }

    pub fn mode(&self) -> Mode {
        self.alg.mode()
    }

    /// Key length in octets this spec takes (for RC2: the 8 octets of the paper's
    /// setting when `key_bits` is 64, else `ceil(key_bits / 8)`).
    pub fn key_len(&self) -> usize {
        (self.key_bits as usize).div_ceil(8)
    }

    /// IV (CBC) or nonce (AEAD) length in octets.
    pub fn iv_len(&self) -> usize {
        match self.alg.mode() {
            Mode::CbcPkcs7 => self.alg.block_len(),
            Mode::Aead => 12,
        }
    }

    /// Ciphertext length for a plaintext of `pt_len` octets: CBC pads to the next whole
    /// block (always adding 1 to `block_len` octets), AEADs add a 16-octet tag.
    pub fn ciphertext_len(&self, pt_len: usize) -> usize {
        match self.alg.mode() {
            Mode::CbcPkcs7 => {
                let b = self.alg.block_len();
                (pt_len / b + 1) * b
            }
            Mode::Aead => pt_len + TAG_LEN,
        }
    }

    /// The engine for `key`. `BadKeyLength` when the key does not fit the spec or the spec
    /// is not a size the algorithm has.
    pub fn engine(&self, key: &[u8]) -> Result<Box<dyn CipherImpl>> {
        let s = *self;
        if !s.alg.accepts_key_bits(s.key_bits) {
            return Err(Error::BadKeyLength);
        }
        let exact = key.len() * 8 == s.key_bits as usize;
        use Algorithm::*;
        let e: Box<dyn CipherImpl> = match s.alg {
            Rc2 => {
                if key.is_empty() || key.len() > 128 {
                    return Err(Error::BadKeyLength);
                }
                Box::new(Cbc04 { spec: s, c: rc2::Rc2::new_with_eff_key_len(key, s.key_bits as usize) })
            }
            _ if !exact => return Err(Error::BadKeyLength),
            Aes => match s.key_bits {
                128 => cbc04::<aes::Aes128>(s, key)?,
                192 => cbc04::<aes::Aes192>(s, key)?,
                _ => cbc04::<aes::Aes256>(s, key)?,
            },
            AesSoft => match s.key_bits {
                128 => Box::new(Cbc04 { spec: s, c: SoftAes128::new_from_slice(key).ok_or(Error::BadKeyLength)? }),
                192 => Box::new(Cbc04 { spec: s, c: SoftAes192::new_from_slice(key).ok_or(Error::BadKeyLength)? }),
                _ => Box::new(Cbc04 { spec: s, c: SoftAes256::new_from_slice(key).ok_or(Error::BadKeyLength)? }),
            },
            Des => cbc04::<des::Des>(s, key)?,
            TripleDes => cbc04::<des::TdesEde3>(s, key)?,
            Blowfish => cbc04::<blowfish::Blowfish>(s, key)?,
            Rc6 => match s.key_bits {
                128 => cbc05::<Rc6Cipher<cipher05::consts::U16>>(s, key)?,
                192 => cbc05::<Rc6Cipher<cipher05::consts::U24>>(s, key)?,
                _ => cbc05::<Rc6Cipher<cipher05::consts::U32>>(s, key)?,
            },
            AesGcm => match s.key_bits {
                128 => aead::<aes_gcm::Aes128Gcm>(s, key)?,
                _ => aead::<aes_gcm::Aes256Gcm>(s, key)?,
            },
            ChaCha20Poly1305 => aead::<chacha20poly1305::ChaCha20Poly1305>(s, key)?,
        };
        Ok(e)
    }
}

impl fmt::Display for Spec {
    /// "AES-256", "AES-256 soft", "RC2-64", "AES-128-GCM", "ChaCha20-Poly1305".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.alg {
            Algorithm::AesSoft => write!(f, "AES-{} soft", self.key_bits),
            Algorithm::AesGcm => write!(f, "AES-{}-GCM", self.key_bits),
            Algorithm::ChaCha20Poly1305 => f.write_str("ChaCha20-Poly1305"),
            a => write!(f, "{}-{}", a.name(), self.key_bits),
        }
    }
}

fn default_bits(alg: Algorithm) -> u32 {
    match alg {
        Algorithm::Des | Algorithm::Rc2 => 64,
        Algorithm::TripleDes => 192,
        Algorithm::AesGcm => 128,
        _ => 256,
    }
}

/// AEAD tag length.
pub const TAG_LEN: usize = 16;

/// One cipher with its key schedule, in the mode of its [`Spec`].
///
/// Buffers are separate (`pt` -> `out`, `ct` -> `out`) as the paper's file-to-file setting
/// has them; `out` must hold [`Spec::ciphertext_len`] (encryption) or the ciphertext's
/// length (decryption). `iv` is the CBC IV or the AEAD nonce ([`Spec::iv_len`] octets);
/// `aad` must be empty for CBC.
pub trait CipherImpl: Send + Sync {
    fn spec(&self) -> Spec;

    /// Encrypts `pt` into `out`; returns the ciphertext length.
    fn encrypt(&self, iv: &[u8], aad: &[u8], pt: &[u8], out: &mut [u8]) -> Result<usize>;

    /// Decrypts `ct` into `out`; returns the plaintext length. Fails with
    /// `Malformed("PKCS#7 padding")` (CBC) or `MicFailure` (AEAD), leaving `out` zeroed.
    fn decrypt(&self, iv: &[u8], aad: &[u8], ct: &[u8], out: &mut [u8]) -> Result<usize>;

    /// The block cipher alone on one block (ECB), for known-answer tests.
    /// `Unsupported` for the AEADs.
    fn encrypt_block(&self, block: &mut [u8]) -> Result<()>;

    /// Inverse of [`encrypt_block`](Self::encrypt_block).
    fn decrypt_block(&self, block: &mut [u8]) -> Result<()>;
}

const E_IV: Error = Error::Malformed("IV/nonce length does not fit the cipher");
const E_OUT: Error = Error::Malformed("output buffer too short");
const E_CT_LEN: Error = Error::Malformed("CBC ciphertext is not a positive multiple of the block length");
const E_PAD: Error = Error::Malformed("PKCS#7 padding");
const E_AAD: Error = Error::Unsupported("associated data with CBC");
const E_BLOCK: Error = Error::Malformed("block length");

/// A `cipher` 0.4 block cipher in CBC-PKCS#7 (`cbc` 0.1).
struct Cbc04<C> {
    spec: Spec,
    c: C,
}

fn cbc04<C>(spec: Spec, key: &[u8]) -> Result<Box<dyn CipherImpl>>
where
    C: cipher::KeyInit + BlockEncrypt + BlockDecrypt + BlockCipher + Send + Sync + 'static,
{
    let c = C::new_from_slice(key).map_err(|_| Error::BadKeyLength)?;
    Ok(Box::new(Cbc04 { spec, c }))
}

impl<C> CipherImpl for Cbc04<C>
where
    C: BlockEncrypt + BlockDecrypt + BlockCipher + Send + Sync,
{
    fn spec(&self) -> Spec {
        self.spec
    }

    fn encrypt(&self, iv: &[u8], aad: &[u8], pt: &[u8], out: &mut [u8]) -> Result<usize> {
        let bs = self.spec.alg.block_len();
        if !aad.is_empty() {
            return Err(E_AAD);
        }
        if iv.len() != bs {
            return Err(E_IV);
        }
        if out.len() < self.spec.ciphertext_len(pt.len()) {
            return Err(E_OUT);
        }
        let enc = cbc::Encryptor::<&C>::inner_iv_init(&self.c, GenericArray::from_slice(iv));
        let ct = enc.encrypt_padded_b2b_mut::<Pkcs7>(pt, out).map_err(|_| E_OUT)?;
        Ok(ct.len())
    }

    fn decrypt(&self, iv: &[u8], aad: &[u8], ct: &[u8], out: &mut [u8]) -> Result<usize> {
        let bs = self.spec.alg.block_len();
        if !aad.is_empty() {
            return Err(E_AAD);
        }
        if iv.len() != bs {
            return Err(E_IV);
        }
        if ct.is_empty() || !ct.len().is_multiple_of(bs) {
            return Err(E_CT_LEN);
        }
        if out.len() < ct.len() {
            return Err(E_OUT);
        }
        let dec = cbc::Decryptor::<&C>::inner_iv_init(&self.c, GenericArray::from_slice(iv));
        match dec.decrypt_padded_b2b_mut::<Pkcs7>(ct, out) {
            Ok(p) => Ok(p.len()),
            Err(_) => {
                out[..ct.len()].fill(0);
                Err(E_PAD)
            }
        }
    }

    fn encrypt_block(&self, block: &mut [u8]) -> Result<()> {
        if block.len() != self.spec.alg.block_len() {
            return Err(E_BLOCK);
        }
        self.c.encrypt_block(GenericArray::from_mut_slice(block));
        Ok(())
    }

    fn decrypt_block(&self, block: &mut [u8]) -> Result<()> {
        if block.len() != self.spec.alg.block_len() {
            return Err(E_BLOCK);
        }
        self.c.decrypt_block(GenericArray::from_mut_slice(block));
        Ok(())
    }
}

/// A `cipher` 0.5 block cipher (RC6) in CBC-PKCS#7 (`cbc` 0.2).
struct Cbc05<C> {
    spec: Spec,
    c: C,
}

type Rc6Cipher<B> = rc6::RC6<u32, cipher05::consts::U20, B>;

fn cbc05<C>(spec: Spec, key: &[u8]) -> Result<Box<dyn CipherImpl>>
where
    C: cipher05::KeyInit + 'static,
    Cbc05<C>: CipherImpl,
{
    let c = C::new_from_slice(key).map_err(|_| Error::BadKeyLength)?;
    Ok(Box::new(Cbc05 { spec, c }))
}

impl<C> CipherImpl for Cbc05<C>
where
    C: cipher05::BlockCipherEncrypt + cipher05::BlockCipherDecrypt + Send + Sync,
{
    fn spec(&self) -> Spec {
        self.spec
    }

    fn encrypt(&self, iv: &[u8], aad: &[u8], pt: &[u8], out: &mut [u8]) -> Result<usize> {
        use cipher05::{BlockModeEncrypt, InnerIvInit};
        if !aad.is_empty() {
            return Err(E_AAD);
        }
        let iv = cipher05::array::Array::try_from(iv).map_err(|_| E_IV)?;
        if out.len() < self.spec.ciphertext_len(pt.len()) {
            return Err(E_OUT);
        }
        let enc = cbc_rc6::Encryptor::<&C>::inner_iv_init(&self.c, &iv);
        let ct = enc.encrypt_padded_b2b::<cipher05::block_padding::Pkcs7>(pt, out).map_err(|_| E_OUT)?;
        Ok(ct.len())
    }

    fn decrypt(&self, iv: &[u8], aad: &[u8], ct: &[u8], out: &mut [u8]) -> Result<usize> {
        use cipher05::{BlockModeDecrypt, InnerIvInit};
        if !aad.is_empty() {
            return Err(E_AAD);
        }
        let iv = cipher05::array::Array::try_from(iv).map_err(|_| E_IV)?;
        let bs = self.spec.alg.block_len();
        if ct.is_empty() || !ct.len().is_multiple_of(bs) {
            return Err(E_CT_LEN);
        }
        if out.len() < ct.len() {
            return Err(E_OUT);
        }
        let dec = cbc_rc6::Decryptor::<&C>::inner_iv_init(&self.c, &iv);
        match dec.decrypt_padded_b2b::<cipher05::block_padding::Pkcs7>(ct, out) {
            Ok(p) => Ok(p.len()),
            Err(_) => {
                out[..ct.len()].fill(0);
                Err(E_PAD)
            }
        }
    }

    fn encrypt_block(&self, block: &mut [u8]) -> Result<()> {
        let b: &mut cipher05::Block<C> = block.try_into().map_err(|_| E_BLOCK)?;
        self.c.encrypt_block(b);
        Ok(())
    }

    fn decrypt_block(&self, block: &mut [u8]) -> Result<()> {
        let b: &mut cipher05::Block<C> = block.try_into().map_err(|_| E_BLOCK)?;
        self.c.decrypt_block(b);
        Ok(())
    }
}

/// An AEAD (`aead` 0.5) with a 12-octet nonce and 16-octet tag, detached tag appended.
struct Aead<A> {
    spec: Spec,
    a: A,
}

fn aead<A>(spec: Spec, key: &[u8]) -> Result<Box<dyn CipherImpl>>
where
    A: AeadKeyInit + AeadInPlace + Send + Sync + 'static,
    Aead<A>: CipherImpl,
{
    let a = A::new_from_slice(key).map_err(|_| Error::BadKeyLength)?;
    Ok(Box::new(Aead { spec, a }))
}

impl<A> CipherImpl for Aead<A>
where
    A: AeadInPlace<NonceSize = aes_gcm::aead::consts::U12, TagSize = aes_gcm::aead::consts::U16> + Send + Sync,
{
    fn spec(&self) -> Spec {
        self.spec
    }

    fn encrypt(&self, iv: &[u8], aad: &[u8], pt: &[u8], out: &mut [u8]) -> Result<usize> {
        if iv.len() != 12 {
            return Err(E_IV);
        }
        let n = pt.len();
        if out.len() < n + TAG_LEN {
            return Err(E_OUT);
        }
        out[..n].copy_from_slice(pt);
        let tag = self.a.encrypt_in_place_detached(GenericArray::from_slice(iv), aad, &mut out[..n]).map_err(|_| Error::Oversize)?;
        out[n..n + TAG_LEN].copy_from_slice(&tag);
        Ok(n + TAG_LEN)
    }

    fn decrypt(&self, iv: &[u8], aad: &[u8], ct: &[u8], out: &mut [u8]) -> Result<usize> {
        if iv.len() != 12 {
            return Err(E_IV);
        }
        if ct.len() < TAG_LEN {
            return Err(Error::Truncated);
        }
        let n = ct.len() - TAG_LEN;
        if out.len() < n {
            return Err(E_OUT);
        }
        out[..n].copy_from_slice(&ct[..n]);
        let tag = GenericArray::from_slice(&ct[n..]);
        match self.a.decrypt_in_place_detached(GenericArray::from_slice(iv), aad, &mut out[..n], tag) {
            Ok(()) => Ok(n),
            Err(_) => {
                out[..n].fill(0);
                Err(Error::MicFailure)
            }
        }
    }

    fn encrypt_block(&self, _: &mut [u8]) -> Result<()> {
        Err(Error::Unsupported("block primitive of an AEAD"))
    }

    fn decrypt_block(&self, _: &mut [u8]) -> Result<()> {
        Err(Error::Unsupported("block primitive of an AEAD"))
    }
}
