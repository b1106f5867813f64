//! The ECC groups of SAE (IEEE 802.11-2020 12.4.4.2): 19 (P-256), 20 (P-384), 21 (P-521), on
//! RustCrypto's `p256`/`p384`/`p521` (field and point arithmetic in constant time).
//!
//! Scalars and elements cross this module as big-endian octet strings: a scalar in
//! `prime_len` octets, an element as `x || y` (12.4.7.2.3, 12.4.7.2.4). Everything secret
//! (PWE, rand, mask, k) is held in `Zeroizing` buffers.
//!
//! Constant time: the password element derivations use no branch or index that depends on
//! the password. Hunting-and-pecking always runs 40 rounds and selects the found x with
//! `subtle`'s conditional selection (a test with a 2^-40 chance of needing more rounds
//! runs on until found, as hostapd does). The quadratic-residue test is the field's
//! square root with a fixed addition chain / exponent followed by a constant-time compare,
//! so it needs no blinding (hostapd blinds because OpenSSL's Legendre symbol is not
//! constant time). SSWU (RFC 9380 6.6.2) computes both candidates and selects.

use super::kdf::{hkdf_expand, hmac, kdf_bits, SaeHash};
use crate::error::{Error, Result};
use rand_core::CryptoRngCore;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::{Zeroize, Zeroizing};

/// Hunting-and-pecking rounds run regardless of when x is found (hostapd's
/// `dragonfly_min_pwe_loop_iter` for ECC groups).
pub const HNP_MIN_ROUNDS: u8 = 40;

/// MAX(a, b) || MIN(a, b) of two MAC addresses (12.4.4.2.2, 12.4.4.2.3).
pub fn max_min(a: &[u8; 6], b: &[u8; 6]) -> [u8; 12] {
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    let mut out = [0u8; 12];
    out[..6].copy_from_slice(hi);
    out[6..].copy_from_slice(lo);
    out
}

/// Shift a big-endian octet string right by `n` < 8 bits (hostapd's `buf_shift_right`).
fn shift_right(buf: &mut [u8], n: u32) {
    let mut carry = 0u8;
    for b in buf.iter_mut() {
        let v = *b;
        *b = (v >> n) | carry;
        carry = v << (8 - n);
    }
}

/// What a hunting-and-pecking run did, for the timing test: the round whose candidate
/// became x (secret: do not log it outside tests) and how many rounds ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HnpTrace {
    pub found_at: u8,
    pub rounds: u8,
}

macro_rules! ecc_group {
    ($m:ident, $curve:ty, $krate:ident, $len:literal, $bits:literal, $z_neg:literal, $h2e_hash:expr) => {
        pub mod $m {
            //! One ECC group's operations on octet strings.
            use super::*;
            use elliptic_curve::bigint::{Encoding, NonZero, U576};
            use elliptic_curve::ff::{Field, PrimeField};
            use elliptic_curve::sec1::{EncodedPoint, FromEncodedPoint, ToEncodedPoint};
            use elliptic_curve::FieldBytes;
            use primeorder::PrimeCurveParams;
            use $krate::{AffinePoint, ProjectivePoint, Scalar};

            type Fe = <$curve as PrimeCurveParams>::FieldElement;

            /// Octets of the prime (and of the order): the length of a scalar and of a
            /// coordinate.
            pub const LEN: usize = $len;
            /// Bits of the prime.
            const BITS: usize = $bits;

            fn fe(bytes: &[u8]) -> subtle::CtOption<Fe> {
                Fe::from_repr(FieldBytes::<$curve>::clone_from_slice(bytes))
            }

            /// The prime p as an octet string: (p - 1) + 1.
            fn prime() -> [u8; LEN] {
                let mut p = [0u8; LEN];
                p.copy_from_slice(&(-Fe::ONE).to_repr());
                for b in p.iter_mut().rev() {
                    let (v, carry) = b.overflowing_add(1);
                    *b = v;
                    if !carry {
                        break;
                    }
                }
                p
            }

            /// An octet string of any length reduced modulo p, in constant time
            /// (Horner's rule in the field).
            fn fe_reduce(bytes: &[u8]) -> Fe {
                let base = Fe::from(256u64);
                bytes.iter().fold(Fe::ZERO, |acc, b| acc * base + Fe::from(*b as u64))
            }

            /// y^2 = x^3 + a x + b.
            fn y_sqr(x: &Fe) -> Fe {
                x.square() * x + <$curve as PrimeCurveParams>::EQUATION_A * x + <$curve as PrimeCurveParams>::EQUATION_B
            }

            fn point(x: &[u8], y: &[u8]) -> Option<AffinePoint> {
                let ep = EncodedPoint::<$curve>::from_affine_coordinates(
                    FieldBytes::<$curve>::from_slice(x),
                    FieldBytes::<$curve>::from_slice(y),
                    false,
                );
                Option::from(AffinePoint::from_encoded_point(&ep))
            }

            fn point_fe(x: &Fe, y: &Fe) -> Option<AffinePoint> {
                point(&x.to_repr(), &y.to_repr())
            }

            /// `x || y`, or `None` for the point at infinity.
            fn encode(p: &ProjectivePoint) -> Option<Zeroizing<Vec<u8>>> {
                let ep = AffinePoint::from(*p).to_encoded_point(false);
                let (x, y) = (ep.x()?, ep.y()?);
                let mut out = Zeroizing::new(Vec::with_capacity(2 * LEN));
                out.extend_from_slice(x);
                out.extend_from_slice(y);
                Some(out)
            }

            /// An element (x || y) decoded and validated: both coordinates below p and
            /// the point on the curve (12.4.5.4); the identity has no such encoding.
            pub fn element(bytes: &[u8]) -> Option<ProjectivePoint> {
                if bytes.len() != 2 * LEN {
                    return None;
                }
                point(&bytes[..LEN], &bytes[LEN..]).map(ProjectivePoint::from)
            }

            /// A scalar decoded and checked 1 < s < r (12.4.5.4).
            pub fn scalar(bytes: &[u8]) -> Option<Scalar> {
                if bytes.len() != LEN {
                    return None;
                }
                let s: Option<Scalar> = Scalar::from_repr(FieldBytes::<$curve>::clone_from_slice(bytes)).into();
                s.filter(|s| !bool::from(s.is_zero() | s.ct_eq(&Scalar::ONE)))
            }

            pub fn valid_scalar(bytes: &[u8]) -> bool {
                scalar(bytes).is_some()
            }

            pub fn valid_element(bytes: &[u8]) -> bool {
                element(bytes).is_some()
            }

            /// A random scalar with 1 < s < r.
            pub fn random_scalar(rng: &mut dyn CryptoRngCore) -> Zeroizing<Vec<u8>> {
                loop {
                    let s = Scalar::random(&mut *rng);
                    if !bool::from(s.is_zero() | s.ct_eq(&Scalar::ONE)) {
                        return Zeroizing::new(s.to_repr().to_vec());
                    }
                }
            }

            /// PWE by hunting and pecking (12.4.4.2.2), as `x || y`, with the round that
            /// found x and the number of rounds run.
            pub fn pwe_hunting_and_pecking(
                addr1: &[u8; 6],
                addr2: &[u8; 6],
                password: &[u8],
                rng: &mut dyn CryptoRngCore,
            ) -> Result<(Zeroizing<Vec<u8>>, HnpTrace)> {
                let key = max_min(addr1, addr2);
                let p = prime();
                // After x is found, the rounds hash a random stub instead of the password.
                let mut stub = Zeroizing::new(vec![0u8; password.len()]);
                rng.fill_bytes(&mut stub);
                let mut base = Zeroizing::new(vec![0u8; password.len()]);
                let mut found = Choice::from(0);
                let mut x = Fe::ZERO;
                let mut seed_odd = 0u8;
                let mut found_at = 0u8;
                let mut counter: u8 = 1;
                loop {
                    for ((b, pw), st) in base.iter_mut().zip(password).zip(stub.iter()) {
                        *b = u8::conditional_select(pw, st, found);
                    }
                    let seed = hmac(SaeHash::Sha256, &key, &[&base, &[counter]]);
                    let mut value = kdf_bits(SaeHash::Sha256, &seed, b"SAE Hunting and Pecking", &p, BITS);
                    if BITS % 8 != 0 {
                        shift_right(&mut value, (8 - BITS % 8) as u32);
                    }
                    let cand = fe(&value);
                    value.zeroize();
                    let in_range = cand.is_some();
                    let xc = cand.unwrap_or(Fe::ZERO);
                    let is_qr = y_sqr(&xc).sqrt().is_some() & in_range;
                    let take = is_qr & !found;
                    x.conditional_assign(&xc, take);
                    seed_odd.conditional_assign(&(seed[31] & 1), take);
                    found_at.conditional_assign(&counter, take);
                    found |= is_qr;
                    if counter >= HNP_MIN_ROUNDS && bool::from(found) {
                        break;
                    }
                    if counter == u8::MAX {
                        return Err(Error::Malformed("SAE: no password element after 255 rounds"));
                    }
                    counter += 1;
                }
                let y = Option::<Fe>::from(y_sqr(&x).sqrt()).ok_or(Error::Malformed("SAE: PWE y"))?;
                let flip = !seed_odd.ct_eq(&y.is_odd().unwrap_u8());
                let y = Fe::conditional_select(&y, &-y, flip);
                let pwe = point_fe(&x, &y).ok_or(Error::Malformed("SAE: PWE not on the curve"))?;
                let pwe = encode(&ProjectivePoint::from(pwe)).ok_or(Error::Malformed("SAE: PWE"))?;
                Ok((pwe, HnpTrace { found_at, rounds: counter }))
            }

            /// Simplified SWU map (RFC 9380 6.6.2) with this curve's Z (RFC 9380 8.2-8.4),
            /// both candidates computed and one selected in constant time.
            pub fn sswu(u: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
                let u = Option::<Fe>::from(fe(u))?;
                encode(&sswu_fe(&u))
            }

            fn sswu_fe(u: &Fe) -> ProjectivePoint {
                let a = <$curve as PrimeCurveParams>::EQUATION_A;
                let b = <$curve as PrimeCurveParams>::EQUATION_B;
                let z = -Fe::from($z_neg as u64);
                let zu2 = z * u.square();
                let tv1 = (zu2.square() + zu2).invert().unwrap_or(Fe::ZERO);
                // -B/A and B/(Z A) are constants: A and Z A are not zero.
                let x1 =
                    Fe::conditional_select(&(-b * a.invert().unwrap() * (Fe::ONE + tv1)), &(b * (z * a).invert().unwrap()), tv1.is_zero());
                let x2 = zu2 * x1;
                let s1 = y_sqr(&x1).sqrt();
                let s2 = y_sqr(&x2).sqrt();
                let gx1_square = s1.is_some();
                let x = Fe::conditional_select(&x2, &x1, gx1_square);
                let y = Fe::conditional_select(&s2.unwrap_or(Fe::ZERO), &s1.unwrap_or(Fe::ZERO), gx1_square);
                let flip = !u.is_odd().unwrap_u8().ct_eq(&y.is_odd().unwrap_u8());
                let y = Fe::conditional_select(&y, &-y, flip);
                // On the curve by construction (one of gx1, gx2 is a square).
                ProjectivePoint::from(point_fe(&x, &y).expect("SSWU output lies on the curve"))
            }

            /// The password element seed PT of hash-to-element (12.4.4.2.3), as `x || y`.
            pub fn pt(ssid: &[u8], password: &[u8], identifier: Option<&[u8]>) -> Result<Zeroizing<Vec<u8>>> {
                let hash: SaeHash = $h2e_hash;
                let seed = hmac(hash, ssid, &[password, identifier.unwrap_or(&[])]);
                let len = LEN + LEN.div_ceil(2);
                let u1 = fe_reduce(&hkdf_expand(hash, &seed, b"SAE Hash to Element u1 P1", len));
                let u2 = fe_reduce(&hkdf_expand(hash, &seed, b"SAE Hash to Element u2 P2", len));
                encode(&(sswu_fe(&u1) + sswu_fe(&u2))).ok_or(Error::Malformed("SAE: PT is the identity"))
            }

            /// PWE = scalar-op(val, PT), val = H(0^n, MAX || MIN) mod (r - 1) + 1 (12.4.4.2.3).
            pub fn pwe_from_pt(pt: &[u8], addr1: &[u8; 6], addr2: &[u8; 6]) -> Result<Zeroizing<Vec<u8>>> {
                let hash: SaeHash = $h2e_hash;
                let pt = element(pt).ok_or(Error::Malformed("SAE: PT"))?;
                let h = hmac(hash, &vec![0u8; hash.output_len()], &[&max_min(addr1, addr2)]);
                // val depends on the addresses only: public, so plain big integers will do.
                let mut wide = [0u8; 72];
                wide[72 - h.len()..].copy_from_slice(&h);
                let val = U576::from_be_slice(&wide);
                let mut rm1 = [0u8; 72];
                rm1[72 - LEN..].copy_from_slice(&(-Scalar::ONE).to_repr());
                let rm1 = NonZero::new(U576::from_be_slice(&rm1)).unwrap();
                let val = val.rem(&rm1).wrapping_add(&U576::ONE).to_be_bytes();
                let val: Option<Scalar> = Scalar::from_repr(FieldBytes::<$curve>::clone_from_slice(&val[72 - LEN..])).into();
                let val = val.ok_or(Error::Malformed("SAE: val"))?;
                encode(&(pt * val)).ok_or(Error::Malformed("SAE: PWE is the identity"))
            }

            /// commit-scalar = (rand + mask) mod r, COMMIT-ELEMENT = inverse(scalar-op(mask, PWE))
            /// (12.4.5.2).
            pub fn commit(pwe: &[u8], rand: &[u8], mask: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
                let pwe = element(pwe).ok_or(Error::Malformed("SAE: PWE"))?;
                let rand = scalar(rand).ok_or(Error::Malformed("SAE: rand"))?;
                let mask = scalar(mask).ok_or(Error::Malformed("SAE: mask"))?;
                let s = rand + mask;
                let el = encode(&-(pwe * mask)).ok_or(Error::Malformed("SAE: element is the identity"))?;
                Ok((s.to_repr().to_vec(), el.to_vec()))
            }

            /// k = F(scalar-op(rand, elem-op(scalar-op(peer-commit-scalar, PWE),
            /// PEER-COMMIT-ELEMENT))) (12.4.5.4): the x coordinate; `None` when K is the
            /// identity or an input is invalid.
            pub fn shared_k(pwe: &[u8], rand: &[u8], peer_scalar: &[u8], peer_element: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
                let pwe = element(pwe)?;
                let rand = scalar(rand)?;
                let ps = scalar(peer_scalar)?;
                let pe = element(peer_element)?;
                let k = encode(&((pwe * ps + pe) * rand))?;
                Some(Zeroizing::new(k[..LEN].to_vec()))
            }

            /// The x coordinate of secret * G: an OWE / ECDH public key in RFC 8110's
            /// compact form (RFC 6090).
            pub fn ecdh_public(secret: &[u8]) -> Option<Vec<u8>> {
                let k = scalar(secret)?;
                Some(encode(&(ProjectivePoint::GENERATOR * k))?[..LEN].to_vec())
            }

            /// z = x of secret * Y, Y the point with x = `peer_x` (either y: the x of the
            /// product is the same), `None` for an x not on the curve or an identity result.
            pub fn ecdh_shared(secret: &[u8], peer_x: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
                if peer_x.len() != LEN {
                    return None;
                }
                let k = scalar(secret)?;
                let mut sec1 = vec![0x02u8];
                sec1.extend_from_slice(peer_x);
                let ep = EncodedPoint::<$curve>::from_bytes(&sec1).ok()?;
                let y: AffinePoint = Option::from(AffinePoint::from_encoded_point(&ep))?;
                let z = encode(&(ProjectivePoint::from(y) * k))?;
                Some(Zeroizing::new(z[..LEN].to_vec()))
            }

            /// (a + b) mod r of two scalars, `LEN` octets.
            pub fn scalar_sum(a: &[u8], b: &[u8]) -> Option<Vec<u8>> {
                let a: Option<Scalar> = Scalar::from_repr(FieldBytes::<$curve>::clone_from_slice(a)).into();
                let b: Option<Scalar> = Scalar::from_repr(FieldBytes::<$curve>::clone_from_slice(b)).into();
                Some((a? + b?).to_repr().to_vec())
            }
        }
    };
}

ecc_group!(p256_ops, p256::NistP256, p256, 32, 256, 10, SaeHash::Sha256);
ecc_group!(p384_ops, p384::NistP384, p384, 48, 384, 12, SaeHash::Sha384);
ecc_group!(p521_ops, p521::NistP521, p521, 66, 521, 4, SaeHash::Sha512);

/// A SAE finite cyclic group (12.4.4.2, IANA "Group Description" numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Group {
    /// 19: 256-bit random ECP group (NIST P-256).
    P256,
    /// 20: 384-bit random ECP group (NIST P-384).
    P384,
    /// 21: 521-bit random ECP group (NIST P-521).
    P521,
}

macro_rules! dispatch {
    ($g:expr, $f:ident ( $($a:expr),* )) => {
        match $g {
            Group::P256 => p256_ops::$f($($a),*),
            Group::P384 => p384_ops::$f($($a),*),
            Group::P521 => p521_ops::$f($($a),*),
        }
    };
}

impl Group {
    /// The group of an IANA number; `None` for groups this implementation does not offer.
    pub fn from_id(id: u16) -> Option<Group> {
        match id {
            19 => Some(Group::P256),
            20 => Some(Group::P384),
            21 => Some(Group::P521),
            _ => None,
        }
    }

    /// The IANA number.
    pub fn id(self) -> u16 {
        match self {
            Group::P256 => 19,
            Group::P384 => 20,
            Group::P521 => 21,
        }
    }

    /// Octets of a scalar or coordinate (the prime's length).
    pub fn prime_len(self) -> usize {
        match self {
            Group::P256 => p256_ops::LEN,
            Group::P384 => p384_ops::LEN,
            Group::P521 => p521_ops::LEN,
        }
    }

    /// The hash of hash-to-element for this group (12.4.2, Table 12-1).
    pub fn h2e_hash(self) -> SaeHash {
        match self {
            Group::P256 => SaeHash::Sha256,
            Group::P384 => SaeHash::Sha384,
            Group::P521 => SaeHash::Sha512,
        }
    }

    /// PWE by hunting and pecking (12.4.4.2.2).
    pub fn pwe_hunting_and_pecking(
        self,
        addr1: &[u8; 6],
        addr2: &[u8; 6],
        password: &[u8],
        rng: &mut dyn CryptoRngCore,
    ) -> Result<Zeroizing<Vec<u8>>> {
        Ok(self.pwe_hunting_and_pecking_traced(addr1, addr2, password, rng)?.0)
    }

    /// [`Group::pwe_hunting_and_pecking`] with its [`HnpTrace`].
    pub fn pwe_hunting_and_pecking_traced(
        self,
        addr1: &[u8; 6],
        addr2: &[u8; 6],
        password: &[u8],
        rng: &mut dyn CryptoRngCore,
    ) -> Result<(Zeroizing<Vec<u8>>, HnpTrace)> {
        dispatch!(self, pwe_hunting_and_pecking(addr1, addr2, password, rng))
    }

    /// PT of hash-to-element (12.4.4.2.3).
    pub fn pt(self, ssid: &[u8], password: &[u8], identifier: Option<&[u8]>) -> Result<Zeroizing<Vec<u8>>> {
        dispatch!(self, pt(ssid, password, identifier))
    }

    /// PWE from PT (12.4.4.2.3).
    pub fn pwe_from_pt(self, pt: &[u8], addr1: &[u8; 6], addr2: &[u8; 6]) -> Result<Zeroizing<Vec<u8>>> {
        dispatch!(self, pwe_from_pt(pt, addr1, addr2))
    }

    /// The SSWU map of a field element given as `len()` octets (RFC 9380 6.6.2).
    pub fn sswu(self, u: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
        dispatch!(self, sswu(u))
    }

    /// A random scalar, 1 < s < r.
    pub fn random_scalar(self, rng: &mut dyn CryptoRngCore) -> Zeroizing<Vec<u8>> {
        dispatch!(self, random_scalar(rng))
    }

    /// (commit-scalar, COMMIT-ELEMENT) from PWE, rand and mask (12.4.5.2).
    pub fn commit(self, pwe: &[u8], rand: &[u8], mask: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
        dispatch!(self, commit(pwe, rand, mask))
    }

    /// Whether a peer scalar is valid: 1 < s < r.
    pub fn valid_scalar(self, s: &[u8]) -> bool {
        dispatch!(self, valid_scalar(s))
    }

    /// Whether a peer element is valid: coordinates below p, on the curve.
    pub fn valid_element(self, e: &[u8]) -> bool {
        dispatch!(self, valid_element(e))
    }

    /// The shared secret k (12.4.5.4); `None` if K is the identity.
    pub fn shared_k(self, pwe: &[u8], rand: &[u8], peer_scalar: &[u8], peer_element: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
        dispatch!(self, shared_k(pwe, rand, peer_scalar, peer_element))
    }

    /// The ECDH public key (x coordinate) of a secret scalar (OWE, RFC 8110).
    pub fn ecdh_public(self, secret: &[u8]) -> Option<Vec<u8>> {
        dispatch!(self, ecdh_public(secret))
    }

    /// The ECDH shared secret z (x coordinate) with a peer's x-only public key.
    pub fn ecdh_shared(self, secret: &[u8], peer_x: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
        dispatch!(self, ecdh_shared(secret, peer_x))
    }

    /// (a + b) mod r.
    pub fn scalar_sum(self, a: &[u8], b: &[u8]) -> Option<Vec<u8>> {
        dispatch!(self, scalar_sum(a, b))
    }
}
