//! Opportunistic Wireless Encryption (RFC 8110; IEEE 802.11-2020 12.4 / AKM 00-0F-AC:18):
//! the Diffie-Hellman exchange carried in the OWE Diffie-Hellman Parameter element of the
//! (Re)Association Request and Response, and the PMK and PMKID it yields. Groups 19, 20
//! and 21 on the same curves as SAE; public keys are x coordinates only (RFC 8110 4.3,
//! the compact representation of RFC 6090), as hostapd and wpa_supplicant send them.

use crate::error::{Error, Result};
use crate::rsn::sae::group::Group;
use crate::rsn::sae::kdf::{hkdf_expand, hmac, SaeHash};
use rand_core::CryptoRngCore;
use sha2::Digest;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// Element ID Extension of the OWE Diffie-Hellman Parameter element (9.4.2.243).
pub const EXT_OWE_DH_PARAM: u8 = 32;

/// One side's ephemeral key pair.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct OweKeyPair {
    #[zeroize(skip)]
    group: Group,
    secret: Vec<u8>,
    public: Vec<u8>,
}

impl OweKeyPair {
    pub fn generate(group: Group, rng: &mut dyn CryptoRngCore) -> OweKeyPair {
        let secret = group.random_scalar(rng);
        let public = group.ecdh_public(&secret).expect("a valid scalar has a public key");
        OweKeyPair { group, secret: secret.to_vec(), public }
    }
    /// A key pair from a given secret (tests).
    pub fn from_secret(group: Group, secret: &[u8]) -> Result<OweKeyPair> {
        let public = group.ecdh_public(secret).ok_or(Error::Malformed("OWE: secret scalar"))?;
        Ok(OweKeyPair { group, secret: secret.to_vec(), public })
    }
    /// The public key, x coordinate, `prime_len` octets.
    pub fn public(&self) -> &[u8] {
        &self.public
    }
    /// The DH shared secret z with the peer's public key (its x coordinate).
    pub fn shared(&self, peer: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        self.group.ecdh_shared(&self.secret, peer).ok_or(Error::Malformed("OWE: peer public key not on the curve"))
    }
}

/// The hash of an OWE group (RFC 8110 4.4): SHA-256, SHA-384, SHA-512 for 19, 20, 21.
pub fn owe_hash(group: Group) -> SaeHash {
    group.h2e_hash()
}

/// PMK and PMKID of OWE (RFC 8110 4.4): prk = HKDF-Extract(C | A | group, z), PMK =
/// HKDF-Expand(prk, "OWE Key Generation", n), n the hash length; PMKID =
/// Truncate-128(Hash(C | A)). `c` is the client's public key, `a` the AP's.
pub fn owe_pmk(group: Group, c: &[u8], a: &[u8], z: &[u8]) -> (Zeroizing<Vec<u8>>, [u8; 16]) {
    let hash = owe_hash(group);
    let prk = hmac(hash, &[c, a, &group.id().to_le_bytes()].concat(), &[z]);
    let pmk = hkdf_expand(hash, &prk, b"OWE Key Generation", hash.output_len());
    let digest = match hash {
        SaeHash::Sha256 => sha2::Sha256::new().chain_update(c).chain_update(a).finalize().to_vec(),
        SaeHash::Sha384 => sha2::Sha384::new().chain_update(c).chain_update(a).finalize().to_vec(),
        SaeHash::Sha512 => sha2::Sha512::new().chain_update(c).chain_update(a).finalize().to_vec(),
    };
    let mut pmkid = [0u8; 16];
    pmkid.copy_from_slice(&digest[..16]);
    (pmk, pmkid)
}

/// The OWE Diffie-Hellman Parameter element: group (LE) then the public key.
pub fn dh_param_element(group: Group, public: &[u8]) -> Vec<u8> {
    let mut out = vec![255, (1 + 2 + public.len()) as u8, EXT_OWE_DH_PARAM];
    out.extend_from_slice(&group.id().to_le_bytes());
    out.extend_from_slice(public);
    out
}

/// (group number, public key) of an OWE Diffie-Hellman Parameter element (whole element).
pub fn parse_dh_param_element(e: &[u8]) -> Result<(u16, &[u8])> {
    if e.len() < 5 || e[0] != 255 || e[2] != EXT_OWE_DH_PARAM || e.len() != 2 + e[1] as usize {
        return Err(Error::Malformed("OWE Diffie-Hellman Parameter element"));
    }
    Ok((u16::from_le_bytes([e[3], e[4]]), &e[5..]))
}

/// The Wi-Fi Alliance OUI and the OWE Transition Mode element's OUI type (Wi-Fi Alliance
/// OWE Specification 2.3.1; hostapd `OWE_IE_VENDOR_TYPE` 0x506f9a1c).
pub const WFA_OUI: [u8; 3] = [0x50, 0x6f, 0x9a];
pub const OUI_TYPE_OWE_TRANSITION: u8 = 0x1c;

/// The OWE Transition Mode element (Vendor Specific, element ID 221): the other BSS of the
/// pair, `BSSID | SSID Length | SSID` (hostapd `hostapd_eid_owe_trans` sends no band or
/// channel: the pair shares the channel). `ssid` is 1 to 32 octets.
pub fn transition_element(bssid: &[u8; 6], ssid: &[u8]) -> Vec<u8> {
    let ssid = &ssid[..ssid.len().min(32)];
    let mut out = vec![221, (4 + 6 + 1 + ssid.len()) as u8];
    out.extend_from_slice(&WFA_OUI);
    out.push(OUI_TYPE_OWE_TRANSITION);
    out.extend_from_slice(bssid);
    out.push(ssid.len() as u8);
    out.extend_from_slice(ssid);
    out
}

/// Whether a whole element is an OWE Transition Mode element.
pub fn is_transition_element(e: &[u8]) -> bool {
    e.len() >= 6 && e[0] == 221 && e[2..5] == WFA_OUI && e[5] == OUI_TYPE_OWE_TRANSITION
}

/// (BSSID, SSID) of an OWE Transition Mode element (whole element); the optional Band
/// Info and Channel octets after the SSID are allowed and not used.
pub fn parse_transition_element(e: &[u8]) -> Result<([u8; 6], &[u8])> {
    let bad = Error::Malformed("OWE Transition Mode element");
    if !is_transition_element(e) || e.len() != 2 + e[1] as usize || e.len() < 6 + 7 {
        return Err(bad);
    }
    let mut bssid = [0u8; 6];
    bssid.copy_from_slice(&e[6..12]);
    let n = e[12] as usize;
    let ssid = e.get(13..13 + n).ok_or(bad)?;
    if n == 0 || n > 32 || !matches!(e.len() - 13 - n, 0 | 2) {
        return Err(Error::Malformed("OWE Transition Mode element"));
    }
    Ok((bssid, ssid))
}
