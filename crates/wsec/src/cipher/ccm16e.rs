//! IEEE 802.16e AES-CCM MAC PDU encapsulation: IEEE Std 802.16-2004 7.5.1.2 as amended by
//! IEEE Std 802.16e-2005 (the "AES-CCM" data encryption algorithm of the SA, cryptographic
//! suite 0x02). This is the golden model of the hardware AESCCM6 engine in `hw/`
//! (seed 001), and a complete encapsulation for software use.
//!
//! Encapsulation of a MAC PDU = generic MAC header (GMH, 6 octets) || payload || [CRC-32]:
//! - the GMH stays in clear; EC is set, EKS carries the key sequence, LEN grows by 12
//!   (PN and ICV) and the HCS is recomputed (7.5.1.2.1, 6.3.2.1.1);
//! - the encrypted payload is `PN (4 octets, little endian) || ciphertext || ICV (8 octets)`
//!   (7.5.1.2.1, Figure 134);
//! - CCM (NIST SP 800-38C / RFC 3610) with M = 8, L = 2 and no additional authenticated
//!   data: `B0 = 0x19 || nonce || l(m)` (7.5.1.2.4);
//! - the 13-octet nonce is GMH octets 0-4 (HCS excluded) || 4 reserved octets `00 00 00 00`
//!   || PN (7.5.1.2.3, Figure 137);
//! - the CRC-32, when the GMH's CI bit is set, is recomputed over the encrypted PDU.
//!
//! No public test vector exists for 802.16e AES-CCM, so the CCM core is the one CCMP uses
//! ([`CcmKey`], checked against RFC 3610's packet vectors in `tests/ccm16e.rs`), and every
//! reading of the standard this module makes is written down here:
//!
//! 1. **Which GMH goes into the nonce**: the header *as transmitted*, i.e. after EC, EKS and
//!    LEN have been set for the encrypted PDU. The receiver can only rebuild the nonce from
//!    the header it receives, so no other reading can interoperate.
//! 2. **PN octet order in the nonce**: the four PN octets exactly as they prefix the
//!    payload, least significant first (7.5.1.2.1 transmits the PN "in little endian byte
//!    order"; Figure 137 gives the PN field without a second encoding, so we read it as the
//!    same field).
//! 3. **l(m) in B0** is the length of the plaintext payload only (subheaders included, PN,
//!    ICV and CRC excluded): the "message" that CCM encrypts.
//! 4. **What is encrypted**: everything between the GMH and the CRC (subheaders and
//!    payload); the GMH is authenticated only through the nonce (no AAD, Adata = 0).
//! 5. **HCS**: CRC-8 with generator x^8 + x^2 + x + 1 over GMH octets 0-4, initial value 0,
//!    most significant bit first, no final inversion (6.3.2.1.1).
//! 6. **CRC-32** (CI = 1): the IEEE 802.3 polynomial 0x04C11DB7, initial value all ones,
//!    final inversion, processed most significant bit first and sent most significant octet
//!    first (the convention of Wireshark's WiMAX dissector, `plugins/epan/wimax/crc.c`).
//!    It covers GMH and encrypted payload (6.3.3.5.2: the CRC is calculated after
//!    encryption).
//! 7. **LEN** (11 bits) counts the whole MAC PDU, GMH and CRC included; a PDU whose LEN
//!    would exceed 2047 after the 12 octets of overhead is refused.
//! 8. **PN range** (7.5.1.2.2: downlink 0x00000001-0x7FFFFFFF, uplink from 0x80000001):
//!    the PN is an input here, as the PN is for CCMP; replay and range rules belong to the
//!    SA. PN 0 is refused (a PN starts at 1 and never wraps under one TEK).
use super::kernel::CcmKey;
use crate::error::{Error, Result};

/// Generic MAC header length (6.3.2.1.1).
pub const GMH_LEN: usize = 6;
/// Packet number length (7.5.1.2.1).
pub const PN_LEN: usize = 4;
/// ICV (CCM tag) length, M = 8 (7.5.1.2.4).
pub const ICV_LEN: usize = 8;
/// CRC-32 length when CI = 1.
pub const CRC_LEN: usize = 4;
/// Octets the encryption adds to a MAC PDU (PN + ICV).
pub const OVERHEAD: usize = PN_LEN + ICV_LEN;
/// Largest LEN (11 bits).
pub const MAX_PDU_LEN: usize = 0x7ff;
/// CCM B0 flags: Adata = 0, M' = (8 - 2) / 2 = 3, L' = 2 - 1 = 1.
pub const B0_FLAGS: u8 = 0x19;

/// A view of the generic MAC header fields (6.3.2.1.1, Table 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gmh(pub [u8; GMH_LEN]);

impl Gmh {
    /// Header Type: 0 for a generic MAC header (1 for a bandwidth-request/signalling header).
    pub fn ht(&self) -> bool {
        self.0[0] & 0x80 != 0
    }
    /// Encryption Control: the payload is encrypted.
    pub fn ec(&self) -> bool {
        self.0[0] & 0x40 != 0
    }
    /// CRC Indicator: a CRC-32 ends the PDU.
    pub fn ci(&self) -> bool {
        self.0[1] & 0x40 != 0
    }
    /// Encryption Key Sequence (2 bits).
    pub fn eks(&self) -> u8 {
        (self.0[1] >> 4) & 3
    }
    /// LEN: the whole MAC PDU in octets, header and CRC included (11 bits).
    pub fn len(&self) -> usize {
        (((self.0[1] & 7) as usize) << 8) | self.0[2] as usize
    }
    /// True if LEN is 0 (never the case for a valid PDU, which holds at least its header).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Connection identifier.
    pub fn cid(&self) -> u16 {
        u16::from_be_bytes([self.0[3], self.0[4]])
    }
    /// The HCS octet as received.
    pub fn hcs(&self) -> u8 {
        self.0[5]
    }
    /// True if the HCS matches octets 0-4.
    pub fn hcs_ok(&self) -> bool {
        hcs(&self.0[..5]) == self.0[5]
    }

    fn set(&mut self, ec: bool, eks: u8, len: usize) {
        self.0[0] = (self.0[0] & !0x40) | if ec { 0x40 } else { 0 };
        self.0[1] = (self.0[1] & !0x37) | ((eks & 3) << 4) | ((len >> 8) as u8 & 7);
        self.0[2] = len as u8;
        self.0[5] = hcs(&self.0[..5]);
    }
}

/// HCS: CRC-8, generator x^8 + x^2 + x + 1, initial 0, MSB first (reading 5).
pub fn hcs(octets: &[u8]) -> u8 {
    let mut c = 0u8;
    for &b in octets {
        c ^= b;
        for _ in 0..8 {
            c = if c & 0x80 != 0 { (c << 1) ^ 0x07 } else { c << 1 };
        }
    }
    c
}

/// CRC-32 of 802.16 (reading 6): polynomial 0x04C11DB7, MSB first, initial and final
/// inversion; sent most significant octet first.
pub fn crc32(octets: &[u8]) -> u32 {
    let mut c = 0xffff_ffffu32;
    for &b in octets {
        c ^= (b as u32) << 24;
        for _ in 0..8 {
            c = if c & 0x8000_0000 != 0 { (c << 1) ^ 0x04c1_1db7 } else { c << 1 };
        }
    }
    !c
}

/// The CCM nonce (7.5.1.2.3, Figure 137; readings 1 and 2): GMH octets 0-4 || 00 00 00 00
/// || PN, least significant octet first.
pub fn nonce(gmh5: &[u8; 5], pn: u32) -> [u8; 13] {
    let mut n = [0u8; 13];
    n[..5].copy_from_slice(gmh5);
    n[9..].copy_from_slice(&pn.to_le_bytes());
    n
}

/// An 802.16e AES-CCM traffic encryption key (TEK, AES-128).
#[derive(Clone, Debug)]
pub struct Ccm16e {
    key: CcmKey,
}

/// What decapsulation learned besides the plaintext PDU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rx16e {
    pub pn: u32,
    pub eks: u8,
}

impl Ccm16e {
    /// A 16-octet TEK (802.16e AES-CCM uses AES-128 only).
    pub fn new(tek: &[u8]) -> Result<Ccm16e> {
        if tek.len() != 16 {
            return Err(Error::BadKeyLength);
        }
        Ok(Ccm16e { key: CcmKey::new(tek)? })
    }

    /// The CCM core alone: encrypts `payload` in place under the nonce of `gmh5` (the first
    /// five octets of the header as transmitted) and `pn`, and returns the ICV.
    pub fn seal(&self, gmh5: &[u8; 5], pn: u32, payload: &mut [u8]) -> Result<[u8; ICV_LEN]> {
        let mut icv = [0u8; ICV_LEN];
        self.key.seal_in_place(&nonce(gmh5, pn), &[], payload, &mut icv)?;
        Ok(icv)
    }

    /// The reverse of [`Ccm16e::seal`]; `Err(MicFailure)` leaves `payload` as given.
    pub fn open(&self, gmh5: &[u8; 5], pn: u32, payload: &mut [u8], icv: &[u8]) -> Result<()> {
        if icv.len() != ICV_LEN {
            return Err(Error::Malformed("802.16e ICV is 8 octets"));
        }
        self.key.open_in_place(&nonce(gmh5, pn), &[], payload, icv)
    }

    /// Encrypts a plaintext MAC PDU (GMH || payload || [CRC-32 if CI]); `out` receives the
    /// encrypted PDU (GMH with EC = 1, `eks`, LEN + 12, new HCS || PN || ciphertext || ICV
    /// || [new CRC-32]).
    pub fn encapsulate(&self, pdu: &[u8], pn: u32, eks: u8, out: &mut Vec<u8>) -> Result<()> {
        out.clear();
        let (mut gmh, body) = check_pdu(pdu)?;
        if gmh.ec() {
            return Err(Error::AlreadyProtected);
        }
        if pn == 0 {
            return Err(Error::Malformed("802.16e PN starts at 1"));
        }
        if eks > 3 {
            return Err(Error::Malformed("EKS is a 2-bit field"));
        }
        let ci = gmh.ci();
        let new_len = pdu.len() + OVERHEAD;
        if new_len > MAX_PDU_LEN {
            return Err(Error::Oversize);
        }
        gmh.set(true, eks, new_len);
        out.reserve(new_len);
        out.extend_from_slice(&gmh.0);
        out.extend_from_slice(&pn.to_le_bytes());
        out.extend_from_slice(body);
        let gmh5: [u8; 5] = gmh.0[..5].try_into().expect("5 octets");
        let icv = self.seal(&gmh5, pn, &mut out[GMH_LEN + PN_LEN..])?;
        out.extend_from_slice(&icv);
        if ci {
            let c = crc32(out);
            out.extend_from_slice(&c.to_be_bytes());
        }
        Ok(())
    }

    /// Checks and removes the encryption of a MAC PDU; `out` receives the plaintext PDU
    /// (EC = 0, EKS = 0, LEN - 12, new HCS, new CRC-32 if CI). On error `out` is empty.
    pub fn decapsulate(&self, pdu: &[u8], out: &mut Vec<u8>) -> Result<Rx16e> {
        out.clear();
        let (mut gmh, body) = check_pdu(pdu)?;
        if !gmh.ec() {
            return Err(Error::NotProtected);
        }
        if body.len() < OVERHEAD {
            return Err(Error::Truncated);
        }
        let eks = gmh.eks();
        let pn = u32::from_le_bytes(body[..PN_LEN].try_into().expect("4 octets"));
        let (ct, icv) = body[PN_LEN..].split_at(body.len() - OVERHEAD);
        let gmh5: [u8; 5] = gmh.0[..5].try_into().expect("5 octets");
        let mut plain = ct.to_vec();
        self.open(&gmh5, pn, &mut plain, icv)?;
        let ci = gmh.ci();
        gmh.set(false, 0, pdu.len() - OVERHEAD);
        out.extend_from_slice(&gmh.0);
        out.extend_from_slice(&plain);
        if ci {
            let c = crc32(out);
            out.extend_from_slice(&c.to_be_bytes());
        }
        Ok(Rx16e { pn, eks })
    }
}

/// Checks a generic MAC PDU: header type, HCS, LEN against the buffer, CRC-32 when CI is
/// set. Returns the header and the octets between header and CRC.
fn check_pdu(pdu: &[u8]) -> Result<(Gmh, &[u8])> {
    if pdu.len() < GMH_LEN {
        return Err(Error::Truncated);
    }
    let gmh = Gmh(pdu[..GMH_LEN].try_into().expect("6 octets"));
    if gmh.ht() {
        return Err(Error::Unsupported("bandwidth request / signalling header (HT = 1) has no payload"));
    }
    if !gmh.hcs_ok() {
        return Err(Error::Malformed("GMH header check sequence"));
    }
    if gmh.len() != pdu.len() {
        return Err(Error::Malformed("GMH LEN differs from the PDU length"));
    }
    let end = if gmh.ci() {
        if pdu.len() < GMH_LEN + CRC_LEN {
            return Err(Error::Truncated);
        }
        let e = pdu.len() - CRC_LEN;
        let got = u32::from_be_bytes(pdu[e..].try_into().expect("4 octets"));
        if crc32(&pdu[..e]) != got {
            return Err(Error::IcvFailure);
        }
        e
    } else {
        pdu.len()
    };
    Ok((gmh, &pdu[GMH_LEN..end]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_check_values() {
        // CRC-8 (poly 0x07, init 0): check value of "123456789" is 0xF4.
        assert_eq!(hcs(b"123456789"), 0xf4);
        // CRC-32/BZIP2 check value of "123456789" is 0xFC891918.
        assert_eq!(crc32(b"123456789"), 0xfc89_1918);
    }
}
