//! The cryptography of one SAE protocol instance (IEEE 802.11-2020 12.4.5): commit,
//! processing of the peer's commit (validation, reflection check, k, KCK, PMK, PMKID) and
//! confirm.

use super::group::Group;
use super::kdf::{hmac, kdf_bits, SaeHash};
use super::msg::{Commit, Confirm};
use super::status;
use crate::error::{Error, Result};
use rand_core::CryptoRngCore;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// PMK length of AKM 8 (SAE): 256 bits (12.4.5.4).
pub const PMK_LEN: usize = 32;

/// The keys of an accepted exchange. Wiped on drop; `Debug` shows lengths only.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SaeKeys {
    kck: Vec<u8>,
    pmk: Vec<u8>,
    pmkid: [u8; 16],
}

impl core::fmt::Debug for SaeKeys {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SaeKeys {{ kck: {} octets, pmk: {} octets }}", self.kck.len(), self.pmk.len())
    }
}

impl SaeKeys {
    pub fn kck(&self) -> &[u8] {
        &self.kck
    }
    pub fn pmk(&self) -> &[u8] {
        &self.pmk
    }
    /// PMKID = L((commit-scalar + peer-commit-scalar) mod r, 0, 128) (12.4.5.4).
    pub fn pmkid(&self) -> &[u8; 16] {
        &self.pmkid
    }
}

/// Why a peer commit was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitError {
    /// Drop the frame without an answer (a reflection of our own commit, 12.4.8.6.4).
    SilentlyDiscard,
    /// Answer with this status code.
    Status(u16),
}

/// One protocol instance's cryptographic state.
pub struct Exchange {
    group: Group,
    h2e: bool,
    own_addr: [u8; 6],
    peer_addr: [u8; 6],
    pwe: Zeroizing<Vec<u8>>,
    rand: Zeroizing<Vec<u8>>,
    scalar: Vec<u8>,
    element: Vec<u8>,
    peer_scalar: Option<Vec<u8>>,
    peer_element: Option<Vec<u8>>,
    /// Groups we were refused with status 77 in this attempt (sent in our commit, H2E).
    pub own_rejected: Vec<u16>,
    peer_rejected: Vec<u16>,
    keys: Option<SaeKeys>,
    send_confirm: u16,
}

impl Exchange {
    /// A new instance with fresh rand and mask (12.4.5.2): both random in (1, r), drawn
    /// again until commit-scalar is above 1.
    pub fn new(
        group: Group,
        pwe: Zeroizing<Vec<u8>>,
        h2e: bool,
        own: [u8; 6],
        peer: [u8; 6],
        rng: &mut dyn CryptoRngCore,
    ) -> Result<Exchange> {
        loop {
            let rand = group.random_scalar(rng);
            let mask = group.random_scalar(rng);
            let ex = Exchange::with_rand_mask(group, pwe.clone(), h2e, own, peer, &rand, &mask)?;
            if group.valid_scalar(&ex.scalar) {
                return Ok(ex);
            }
        }
    }

    /// An instance with given rand and mask (known-answer tests).
    pub fn with_rand_mask(
        group: Group,
        pwe: Zeroizing<Vec<u8>>,
        h2e: bool,
        own: [u8; 6],
        peer: [u8; 6],
        rand: &[u8],
        mask: &[u8],
    ) -> Result<Exchange> {
        let (scalar, element) = group.commit(&pwe, rand, mask)?;
        Ok(Exchange {
            group,
            h2e,
            own_addr: own,
            peer_addr: peer,
            pwe,
            rand: Zeroizing::new(rand.to_vec()),
            scalar,
            element,
            peer_scalar: None,
            peer_element: None,
            own_rejected: Vec::new(),
            peer_rejected: Vec::new(),
            keys: None,
            send_confirm: 0,
        })
    }

    pub fn group(&self) -> Group {
        self.group
    }
    pub fn h2e(&self) -> bool {
        self.h2e
    }
    pub fn scalar(&self) -> &[u8] {
        &self.scalar
    }
    pub fn element(&self) -> &[u8] {
        &self.element
    }
    pub fn peer_scalar(&self) -> Option<&[u8]> {
        self.peer_scalar.as_deref()
    }
    pub fn keys(&self) -> Option<&SaeKeys> {
        self.keys.as_ref()
    }

    /// The hash of the key derivation and confirm: SHA-256 for hunting-and-pecking (as
    /// hostapd and the 2016 text), the group's for hash-to-element (12.4.2).
    pub fn hash(&self) -> SaeHash {
        if self.h2e {
            self.group.h2e_hash()
        } else {
            SaeHash::Sha256
        }
    }

    /// Our commit message.
    pub fn commit_msg(&self, token: Option<&[u8]>, password_id: Option<&[u8]>) -> Commit {
        Commit {
            group: self.group.id(),
            token: token.map(<[u8]>::to_vec),
            scalar: self.scalar.clone(),
            element: self.element.clone(),
            password_id: password_id.map(<[u8]>::to_vec),
            rejected_groups: if self.h2e { self.own_rejected.clone() } else { Vec::new() },
        }
    }

    /// Take the peer's commit (12.4.5.4): check scalar and element, refuse a reflection
    /// of our own values, compute k and then KCK, PMK and PMKID.
    pub fn process_commit(&mut self, c: &Commit) -> core::result::Result<(), CommitError> {
        if c.group != self.group.id() {
            return Err(CommitError::Status(status::FINITE_CYCLIC_GROUP_NOT_SUPPORTED));
        }
        if !self.group.valid_scalar(&c.scalar) || !self.group.valid_element(&c.element) {
            return Err(CommitError::Status(status::UNSPECIFIED_FAILURE));
        }
        if c.scalar == self.scalar && c.element == self.element {
            return Err(CommitError::SilentlyDiscard);
        }
        let k =
            self.group.shared_k(&self.pwe, &self.rand, &c.scalar, &c.element).ok_or(CommitError::Status(status::UNSPECIFIED_FAILURE))?;
        self.peer_rejected = if self.h2e { c.rejected_groups.clone() } else { Vec::new() };
        self.peer_scalar = Some(c.scalar.clone());
        self.peer_element = Some(c.element.clone());
        self.keys = Some(self.derive_keys(&k).map_err(|_| CommitError::Status(status::UNSPECIFIED_FAILURE))?);
        Ok(())
    }

    /// The rejected groups the peer listed in its commit.
    pub fn peer_rejected(&self) -> &[u16] {
        &self.peer_rejected
    }

    /// keyseed = H(salt, k); KCK || PMK = KDF-Hash-Length(keyseed, "SAE KCK and PMK",
    /// (commit-scalar + peer-commit-scalar) mod r) (12.4.5.4). The salt is zeros, or for
    /// hash-to-element with rejected groups the lists of the higher then the lower
    /// address.
    fn derive_keys(&self, k: &[u8]) -> Result<SaeKeys> {
        let hash = self.hash();
        let peer_scalar = self.peer_scalar.as_deref().ok_or(Error::Malformed("SAE: no peer scalar"))?;
        let salt: Vec<u8> = if self.h2e && !(self.own_rejected.is_empty() && self.peer_rejected.is_empty()) {
            let enc = |l: &[u16]| l.iter().flat_map(|g| g.to_le_bytes()).collect::<Vec<u8>>();
            let (first, second) = if self.own_addr > self.peer_addr {
                (&self.own_rejected, &self.peer_rejected)
            } else {
                (&self.peer_rejected, &self.own_rejected)
            };
            [enc(first), enc(second)].concat()
        } else {
            vec![0u8; hash.output_len()]
        };
        let keyseed = hmac(hash, &salt, &[k]);
        let val = self.group.scalar_sum(&self.scalar, peer_scalar).ok_or(Error::Malformed("SAE: scalar sum"))?;
        let out = kdf_bits(hash, &keyseed, b"SAE KCK and PMK", &val, (hash.output_len() + PMK_LEN) * 8);
        let mut pmkid = [0u8; 16];
        pmkid.copy_from_slice(&val[..16]);
        Ok(SaeKeys { kck: out[..hash.output_len()].to_vec(), pmk: out[hash.output_len()..].to_vec(), pmkid })
    }

    /// CN(KCK, send-confirm, scalar1, element1, scalar2, element2) (12.4.5.5).
    fn cn(&self, sc: u16, s1: &[u8], e1: &[u8], s2: &[u8], e2: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
        let keys = self.keys.as_ref()?;
        Some(hmac(self.hash(), &keys.kck, &[&sc.to_le_bytes(), s1, e1, s2, e2]))
    }

    /// Our next Confirm (Send-Confirm incremented first, saturating, as hostapd).
    pub fn confirm(&mut self) -> Option<Confirm> {
        self.send_confirm = self.send_confirm.saturating_add(1);
        self.confirm_with(self.send_confirm)
    }

    /// A Confirm with a given Send-Confirm (resending after the peer's retransmission).
    pub fn confirm_with(&self, sc: u16) -> Option<Confirm> {
        let (ps, pe) = (self.peer_scalar.as_deref()?, self.peer_element.as_deref()?);
        let c = self.cn(sc, &self.scalar, &self.element, ps, pe)?;
        Some(Confirm { send_confirm: sc, confirm: c.to_vec() })
    }

    /// Verify the peer's Confirm in constant time (12.4.5.6).
    pub fn verify_confirm(&self, c: &Confirm) -> bool {
        let (Some(ps), Some(pe)) = (self.peer_scalar.as_deref(), self.peer_element.as_deref()) else {
            return false;
        };
        match self.cn(c.send_confirm, ps, pe, &self.scalar, &self.element) {
            Some(v) => v.len() == c.confirm.len() && bool::from(v.as_slice().ct_eq(&c.confirm)),
            None => false,
        }
    }
}
