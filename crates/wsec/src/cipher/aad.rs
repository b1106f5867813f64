//! AAD and nonce construction shared by CCMP and GCMP.
//!
//! - AAD: IEEE 802.11-2020 12.5.3.3.3 (CCMP), reused by GCMP (12.5.5.3.3).
//! - CCM nonce: 12.5.3.3.4 (Nonce Flags || A2 || PN5..PN0).
//! - GCM nonce: 12.5.5.3.4 (A2 || PN5..PN0).
use super::{AadOptions, OrderRule, Pn};
use crate::error::{Error, Result};
use crate::wire::mac::{fc, FrameControl, Header};
use crate::wire::sechdr::CcmpHeaderRepr;

/// Longest AAD: FC(2) A1 A2 A3(18) SC(2) A4(6) QC(2).
pub const MAX_AAD_LEN: usize = 30;

/// The AAD of one MPDU, on the stack.
#[derive(Clone, Copy)]
pub struct Aad {
    buf: [u8; MAX_AAD_LEN],
    len: usize,
}

impl Aad {
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl core::fmt::Debug for Aad {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// Frame Control as it enters the AAD (12.5.3.3.3 a)):
/// subtype b4-b6 masked in data frames, Retry/PwrMgt/MoreData masked, Order masked in QoS
/// Data frames (current rule), Protected forced to 1.
pub fn masked_frame_control(fc_val: u16, order_rule: OrderRule) -> u16 {
    let f = crate::wire::mac::FrameControl(fc_val);
    let mut m = fc_val & !(fc::RETRY | fc::POWER_MGMT | fc::MORE_DATA);
    if f.is_data() {
        m &= !0x0070;
    }
    if f.is_qos_data() && order_rule == OrderRule::Current {
        m &= !fc::ORDER;
    }
    m | fc::PROTECTED
}

/// Builds the AAD of an MPDU (MAC header at the start of `mpdu`).
///
/// Sequence Control keeps only the Fragment Number (12.5.3.3.3 e)); A4 when present;
/// QoS Control reduced to the TID, plus the A-MSDU Present bit when SPP A-MSDU is in use.
/// HT Control is never in the AAD.
pub fn build_aad<T: AsRef<[u8]>>(hdr: &Header<T>, opts: AadOptions) -> Result<Aad> {
    hdr.check_len()?;
    let fcv = hdr.frame_control();
    if !(fcv.is_data() || fcv.is_mgmt()) {
        return Err(Error::Unsupported("CCMP/GCMP protect data and management frames only"));
    }
    Ok(aad_raw(hdr.as_bytes(), fcv, opts))
}

/// Offset of the QoS Control field of a data frame.
fn qos_offset(fcv: FrameControl) -> usize {
    if fcv.has_addr4() {
        30
    } else {
        24
    }
}

/// The AAD from the octets of a data or management MPDU whose header (as `fcv` lays it
/// out) is known to be whole: the per-frame fast path, one pass, no re-parsing.
pub(crate) fn aad_raw(b: &[u8], fcv: FrameControl, opts: AadOptions) -> Aad {
    let mut buf = [0u8; MAX_AAD_LEN];
    buf[0..2].copy_from_slice(&masked_frame_control(fcv.0, opts.order_rule).to_le_bytes());
    buf[2..20].copy_from_slice(&b[4..22]);
    buf[20] = b[22] & 0x0f; // Fragment Number only; Sequence Number masked
    let mut len = 22;
    if fcv.has_addr4() {
        buf[22..28].copy_from_slice(&b[24..30]);
        len = 28;
    }
    if fcv.is_qos_data() {
        let keep = if opts.spp_amsdu { 0x8f } else { 0x0f };
        buf[len] = b[qos_offset(fcv)] & keep;
        len += 2;
    }
    Aad { buf, len }
}

/// What the nonces need from the header: the CCM Nonce Flags and A2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NonceInput {
    pub flags: u8,
    pub a2: [u8; 6],
}

impl NonceInput {
    /// From the octets of a data or management MPDU with a whole header.
    pub(crate) fn raw(b: &[u8], fcv: FrameControl) -> NonceInput {
        let flags = if fcv.is_mgmt() {
            0x10
        } else if fcv.is_qos_data() {
            b[qos_offset(fcv)] & 0x0f
        } else {
            0
        };
        let mut a2 = [0u8; 6];
        a2.copy_from_slice(&b[10..16]);
        NonceInput { flags, a2 }
    }

    /// CCM nonce (12.5.3.3.4): Nonce Flags || A2 || PN5..PN0.
    pub fn ccm(&self, pn: Pn) -> [u8; 13] {
        // Built in a register and stored whole: byte-wise stores followed by the kernels'
        // wide loads of the nonce stall on store forwarding (measured on 64-octet frames).
        let a2 = u64::from_le_bytes([self.a2[0], self.a2[1], self.a2[2], self.a2[3], self.a2[4], self.a2[5], 0, 0]);
        let pn_be = ((pn & 0xffff_ffff_ffff) << 16).swap_bytes();
        let v = self.flags as u128 | (a2 as u128) << 8 | (pn_be as u128) << 56;
        let b = v.to_le_bytes();
        let mut n = [0u8; 13];
        n.copy_from_slice(&b[..13]);
        n
    }

    /// GCM nonce (12.5.5.3.4): A2 || PN5..PN0.
    pub fn gcm(&self, pn: Pn) -> [u8; 12] {
        let mut n = [0u8; 12];
        n[0..6].copy_from_slice(&self.a2);
        n[6..12].copy_from_slice(&CcmpHeaderRepr::pn_be(pn));
        n
    }
}

/// CCM Nonce Flags (12.5.3.3.4): Priority in b0-b3 (the TID of a QoS Data frame, else 0),
/// Management in b4.
pub fn nonce_flags<T: AsRef<[u8]>>(hdr: &Header<T>) -> u8 {
    let fcv = hdr.frame_control();
    if fcv.is_mgmt() {
        0x10
    } else {
        hdr.qos_control().map(|q| q.tid()).unwrap_or(0)
    }
}

/// CCM nonce: Nonce Flags || A2 || PN (PN5 first).
pub fn ccm_nonce<T: AsRef<[u8]>>(hdr: &Header<T>, pn: Pn) -> Result<[u8; 13]> {
    let a2 = hdr.addr2().ok_or(Error::Unsupported("frame without Address 2"))?;
    let mut n = [0u8; 13];
    n[0] = nonce_flags(hdr);
    n[1..7].copy_from_slice(a2.as_bytes());
    n[7..13].copy_from_slice(&CcmpHeaderRepr::pn_be(pn));
    Ok(n)
}

/// GCM nonce: A2 || PN (PN5 first).
pub fn gcm_nonce<T: AsRef<[u8]>>(hdr: &Header<T>, pn: Pn) -> Result<[u8; 12]> {
    let a2 = hdr.addr2().ok_or(Error::Unsupported("frame without Address 2"))?;
    let mut n = [0u8; 12];
    n[0..6].copy_from_slice(a2.as_bytes());
    n[6..12].copy_from_slice(&CcmpHeaderRepr::pn_be(pn));
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    fn aad_nonce(hdr: &str, pn: Pn, rule: OrderRule) -> (String, String) {
        let b = h(hdr);
        // The D7.0 MPDUs come from pre-HT transmitters: 26-octet QoS headers even with Order.
        let hd = Header::new_checked_pre_ht(&b[..]).unwrap();
        let a = build_aad(&hd, AadOptions { order_rule: rule, spp_amsdu: false }).unwrap();
        let n = ccm_nonce(&hd, pn).unwrap();
        (format!("{a:?}"), n.iter().map(|b| format!("{b:02x}")).collect())
    }

    // AAD and nonce values of vectors.md 1.1-1.3.
    #[test]
    fn vectors_aad_and_nonce() {
        let cur = OrderRule::Current;
        let d7 = OrderRule::Draft2003;
        assert_eq!(
            aad_nonce("0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033", 0xB5039776E70C, cur),
            ("08400fd2e128a57c5030f1844408abaea5b8fcba0000".into(), "005030f1844408b5039776e70c".into())
        );
        assert_eq!(
            aad_nonce("38c06a51ea100c846850eec1762c88deaf2ee9f46a07e0cc", 0x31F3CBBA97EA, d7),
            ("08c0ea100c846850eec1762c88deaf2ee9f46a070000".into(), "00eec1762c88de31f3cbba97ea".into())
        );
        let mpdu3 = "b8c8dc61d9577df763c8b6a88adf3691dc4a8bca94dd60822085";
        assert_eq!(aad_nonce(mpdu3, 0x2FDCA0F3A5AE, d7).0, "88c0d9577df763c8b6a88adf3691dc4a8bca94dd00000000");
        assert_eq!(aad_nonce(mpdu3, 0x2FDCA0F3A5AE, cur).0, "8840d9577df763c8b6a88adf3691dc4a8bca94dd00000000");
        assert_eq!(aad_nonce(mpdu3, 0x2FDCA0F3A5AE, cur).1, "00b6a88adf36912fdca0f3a5ae");
        // MPDU 6: TID 13 -> nonce flags 0x0d.
        assert_eq!(
            aad_nonce("8852e11f5af28430fdabbff943b9f9a6ab1d98c7fe7350713d6a", 0x6B81ECA48989, cur),
            ("88425af28430fdabbff943b9f9a6ab1d98c7fe7300000d00".into(), "0dbff943b9f9a66b81eca48989".into())
        );
        // M.9.2 management frame: Protected forced, management flag in the nonce.
        assert_eq!(
            aad_nonce("c00000000200000001000200000000000200000000006000", 1, cur),
            ("c0400200000001000200000000000200000000000000".into(), "10020000000000000000000001".into())
        );
    }

    #[test]
    fn spp_amsdu_keeps_qc_b7() {
        // QoS data with A-MSDU Present and TID 5, EOSP and ack policy bits set.
        let b = h("880000000101010101010202020202020303030303030000f501");
        let hd = Header::new_checked(&b[..]).unwrap();
        let mut o = AadOptions::default();
        assert_eq!(&build_aad(&hd, o).unwrap().as_bytes()[22..], &[0x05, 0x00]);
        o.spp_amsdu = true;
        assert_eq!(&build_aad(&hd, o).unwrap().as_bytes()[22..], &[0x85, 0x00]);
    }
}
