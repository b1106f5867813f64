//! Security headers that sit between the MAC header and the (encrypted) frame body.
use crate::error::{Error, Result};

/// Key ID octet: Key ID in b6-b7, Ext IV in b5 (12.5.2.2, 12.5.3.2).
pub const EXT_IV: u8 = 0x20;

/// The Key ID octet, the fourth octet of every security header (WEP 12.5.1.2 Figure 12-1,
/// TKIP 12.5.2.2 Figure 12-5, CCMP 12.5.3.2 Figure 12-16, GCMP 12.5.5.2): Ext IV in b5, Key
/// ID in b6-b7. A receiver reads it before it knows the cipher, to pick the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyIdOctet(pub u8);

impl KeyIdOctet {
    /// Offset of the octet from the start of the security header.
    pub const OFFSET: usize = 3;

    /// Reads the octet of the security header at the start of `b` (the MPDU's payload).
    pub fn parse(b: &[u8]) -> Result<KeyIdOctet> {
        b.get(Self::OFFSET).map(|&o| KeyIdOctet(o)).ok_or(Error::Truncated)
    }
    pub fn key_id(self) -> u8 {
        self.0 >> 6
    }
    /// Ext IV set: a TKIP, CCMP or GCMP header (8 octets); clear: WEP (4 octets).
    pub fn ext_iv(self) -> bool {
        self.0 & EXT_IV != 0
    }
}

/// A 48-bit packet number (CCMP/GCMP PN, TKIP TSC, BIP IPN) held in the low bits of a u64.
pub type Pn = u64;
/// Largest 48-bit PN.
pub const PN_MAX: Pn = (1 << 48) - 1;

/// CCMP header (12.5.3.2, Figure 12-16) and GCMP header (12.5.5.2): 8 octets,
/// `PN0 PN1 Rsvd KeyID|ExtIV PN2 PN3 PN4 PN5`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CcmpHeaderRepr {
    pub pn: Pn,
    pub key_id: u8,
}

impl CcmpHeaderRepr {
    pub const LEN: usize = 8;

    pub fn parse(b: &[u8]) -> Result<CcmpHeaderRepr> {
        if b.len() < Self::LEN {
            return Err(Error::Truncated);
        }
        if b[3] & EXT_IV == 0 {
            return Err(Error::ExtIvMissing);
        }
        let pn = u64::from_le_bytes([b[0], b[1], b[4], b[5], b[6], b[7], 0, 0]);
        Ok(CcmpHeaderRepr { pn, key_id: b[3] >> 6 })
    }

    pub fn emit(&self, b: &mut [u8]) -> Result<()> {
        if b.len() < Self::LEN {
            return Err(Error::Truncated);
        }
        if self.pn > PN_MAX || self.key_id > 3 {
            return Err(Error::Malformed("PN over 48 bits or Key ID over 3"));
        }
        let p = self.pn.to_le_bytes();
        b[..8].copy_from_slice(&[p[0], p[1], 0, (self.key_id << 6) | EXT_IV, p[2], p[3], p[4], p[5]]);
        Ok(())
    }

    /// PN in the big-endian order the CCM/GCM nonce uses (PN5 first).
    pub fn pn_be(pn: Pn) -> [u8; 6] {
        let p = pn.to_be_bytes();
        [p[2], p[3], p[4], p[5], p[6], p[7]]
    }
}

/// TKIP IV/Key ID/Extended IV (12.5.2.2, Figure 12-5): 8 octets,
/// `TSC1 WEPSeed[1] TSC0 KeyID|ExtIV TSC2 TSC3 TSC4 TSC5`, WEPSeed[1] = (TSC1 | 0x20) & 0x7f.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TkipHeaderRepr {
    /// 48-bit TKIP Sequence Counter.
    pub tsc: Pn,
    pub key_id: u8,
}

impl TkipHeaderRepr {
    pub const LEN: usize = 8;

    /// Parses the TKIP header. The WEPSeed[1] octet is not checked (it is derived from TSC1
    /// and peers ignore it on receive).
    pub fn parse(b: &[u8]) -> Result<TkipHeaderRepr> {
        if b.len() < Self::LEN {
            return Err(Error::Truncated);
        }
        if b[3] & EXT_IV == 0 {
            return Err(Error::ExtIvMissing);
        }
        let tsc = u64::from_le_bytes([b[2], b[0], b[4], b[5], b[6], b[7], 0, 0]);
        Ok(TkipHeaderRepr { tsc, key_id: b[3] >> 6 })
    }

    pub fn emit(&self, b: &mut [u8]) -> Result<()> {
        if b.len() < Self::LEN {
            return Err(Error::Truncated);
        }
        if self.tsc > PN_MAX || self.key_id > 3 {
            return Err(Error::Malformed("TSC over 48 bits or Key ID over 3"));
        }
        let t = self.tsc.to_le_bytes();
        b[..8].copy_from_slice(&[t[1], (t[1] | 0x20) & 0x7f, t[0], (self.key_id << 6) | EXT_IV, t[2], t[3], t[4], t[5]]);
        Ok(())
    }

    /// IV16 = TSC0..TSC1 and IV32 = TSC2..TSC5, the halves TKIP's key mixing uses.
    pub fn iv16(tsc: Pn) -> u16 {
        tsc as u16
    }
    pub fn iv32(tsc: Pn) -> u32 {
        (tsc >> 16) as u32
    }
}

/// WEP IV and Key ID (12.5.1.2, Figure 12-1): 4 octets, `IV0 IV1 IV2 KeyID<<6`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WepHeaderRepr {
    /// The 24-bit IV, IV0 first on the wire: `iv = IV0 | IV1<<8 | IV2<<16`.
    pub iv: [u8; 3],
    pub key_id: u8,
}

impl WepHeaderRepr {
    pub const LEN: usize = 4;

    pub fn parse(b: &[u8]) -> Result<WepHeaderRepr> {
        if b.len() < Self::LEN {
            return Err(Error::Truncated);
        }
        Ok(WepHeaderRepr { iv: [b[0], b[1], b[2]], key_id: b[3] >> 6 })
    }

    pub fn emit(&self, b: &mut [u8]) -> Result<()> {
        if b.len() < Self::LEN {
            return Err(Error::Truncated);
        }
        if self.key_id > 3 {
            return Err(Error::Malformed("Key ID over 3"));
        }
        b[..4].copy_from_slice(&[self.iv[0], self.iv[1], self.iv[2], self.key_id << 6]);
        Ok(())
    }

    /// The 24-bit IV as the number `--pn` names: IV0 is the most significant octet, so that
    /// the RC4 seed `IV0 IV1 IV2 || key` reads as the number followed by the key.
    pub fn iv_from_u32(v: u32) -> [u8; 3] {
        [(v >> 16) as u8, (v >> 8) as u8, v as u8]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ccmp_header_vector() {
        // IEEE 802.11-2012 M.6.4: PN 0xB5039776E70C, key 0 -> 0ce70020769703b5.
        let b = [0x0c, 0xe7, 0x00, 0x20, 0x76, 0x97, 0x03, 0xb5];
        let r = CcmpHeaderRepr::parse(&b).unwrap();
        assert_eq!(r, CcmpHeaderRepr { pn: 0xB5039776E70C, key_id: 0 });
        let mut o = [0u8; 8];
        r.emit(&mut o).unwrap();
        assert_eq!(o, b);
        assert_eq!(CcmpHeaderRepr::pn_be(r.pn), [0xb5, 0x03, 0x97, 0x76, 0xe7, 0x0c]);
        // MPDU 2: PN 0x31F3CBBA97EA, key 2 -> ea9700a0bacbf331.
        let mut o = [0u8; 8];
        CcmpHeaderRepr { pn: 0x31F3CBBA97EA, key_id: 2 }.emit(&mut o).unwrap();
        assert_eq!(o, [0xea, 0x97, 0x00, 0xa0, 0xba, 0xcb, 0xf3, 0x31]);
        assert_eq!(CcmpHeaderRepr::parse(&b[..7]), Err(Error::Truncated));
        let mut no_ext = b;
        no_ext[3] = 0;
        assert_eq!(CcmpHeaderRepr::parse(&no_ext), Err(Error::ExtIvMissing));
        assert!(CcmpHeaderRepr { pn: 1 << 48, key_id: 0 }.emit(&mut o).is_err());
    }

    #[test]
    fn tkip_header_vector() {
        // IEEE 802.11-2012 M.6.3: TSC 1, key 0 -> 0020012000000000.
        let b = [0x00, 0x20, 0x01, 0x20, 0, 0, 0, 0];
        let r = TkipHeaderRepr::parse(&b).unwrap();
        assert_eq!(r, TkipHeaderRepr { tsc: 1, key_id: 0 });
        let mut o = [0u8; 8];
        r.emit(&mut o).unwrap();
        assert_eq!(o, b);
        let r = TkipHeaderRepr { tsc: 0x0504_0302_ff01, key_id: 1 };
        r.emit(&mut o).unwrap();
        assert_eq!(o, [0xff, 0x7f, 0x01, 0x60, 0x02, 0x03, 0x04, 0x05]);
        assert_eq!(TkipHeaderRepr::parse(&o).unwrap(), r);
        assert_eq!(TkipHeaderRepr::iv16(r.tsc), 0xff01);
        assert_eq!(TkipHeaderRepr::iv32(r.tsc), 0x0504_0302);
    }

    #[test]
    fn key_id_octet() {
        // The CCMP header of IEEE 802.11-2012 M.6.4 MPDU 2 (key 2) and the WEP IV of
        // P802.11i/D7.0 I.7.2 (key 2, no Ext IV).
        let k = KeyIdOctet::parse(&[0xea, 0x97, 0x00, 0xa0, 0xba, 0xcb, 0xf3, 0x31]).unwrap();
        assert_eq!((k.key_id(), k.ext_iv()), (2, true));
        let k = KeyIdOctet::parse(&[0xfb, 0x02, 0x9e, 0x80]).unwrap();
        assert_eq!((k.key_id(), k.ext_iv()), (2, false));
        assert_eq!(KeyIdOctet::parse(&[0xfb, 0x02, 0x9e]), Err(Error::Truncated));
    }

    #[test]
    fn wep_header_vector() {
        // P802.11i/D7.0 I.7.2: IV fb029e, key ID 2 -> fb029e80.
        let b = [0xfb, 0x02, 0x9e, 0x80];
        let r = WepHeaderRepr::parse(&b).unwrap();
        assert_eq!(r, WepHeaderRepr { iv: [0xfb, 0x02, 0x9e], key_id: 2 });
        let mut o = [0u8; 4];
        r.emit(&mut o).unwrap();
        assert_eq!(o, b);
        assert_eq!(WepHeaderRepr::iv_from_u32(0xfb029e), [0xfb, 0x02, 0x9e]);
        assert_eq!(WepHeaderRepr::parse(&b[..3]), Err(Error::Truncated));
    }
}
