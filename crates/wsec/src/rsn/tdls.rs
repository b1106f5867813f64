//! The TDLS peer key (TPK) of IEEE 802.11-2020 12.7.8 (802.11z): derived from the nonces
//! of the TPK handshake (carried in the FTE of the TDLS Setup frames, 11.20.4) and checked
//! by the FTE MIC of the Setup Response and Confirm.
use crate::cipher::CipherSuite;
use crate::error::{Error, Result};
use crate::rsn::kdf::{kdf_sha256, Ptk};
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

/// TDLS Action codes (9.6.12.1, Table 9-409).
pub mod action {
    pub const SETUP_REQUEST: u8 = 0;
    pub const SETUP_RESPONSE: u8 = 1;
    pub const SETUP_CONFIRM: u8 = 2;
    pub const TEARDOWN: u8 = 3;
}

/// The TDLS EtherType (89-0d, 11.20.2) and its Payload Type for TDLS (2).
pub const ETHERTYPE: u16 = 0x890d;
pub const PAYLOAD_TYPE_TDLS: u8 = 2;
/// The TDLS Action category (9.4.1.11, Table 9-51).
pub const CATEGORY_TDLS: u8 = 12;

/// 12.7.8.5: `TPK-Key-Input = SHA-256(min(SNonce, ANonce) || max(SNonce, ANonce))`,
/// `TPK = KDF-SHA-256(TPK-Key-Input, "TDLS PMK", min(MAC_I, MAC_R) || max(MAC_I, MAC_R) ||
/// BSSID)` of 128 bits plus the cipher's TK; TPK-KCK is the first 128 bits, TPK-TK the rest.
/// SNonce is the initiator's nonce, ANonce the responder's (both in the FTE).
pub fn derive_tpk(
    snonce: &[u8; 32],
    anonce: &[u8; 32],
    mac_i: [u8; 6],
    mac_r: [u8; 6],
    bssid: [u8; 6],
    cipher: CipherSuite,
) -> Result<Ptk> {
    // The standard pairwise suites but TKIP (12.7.8: a TDLS direct link does not use TKIP).
    if !(cipher.is_pairwise() && cipher.is_standard()) || cipher == CipherSuite::Tkip {
        return Err(Error::Unsupported("TDLS uses CCMP or GCMP"));
    }
    let tk_len = cipher.key_len();
    let (n1, n2) = if snonce <= anonce { (snonce, anonce) } else { (anonce, snonce) };
    let mut h = Sha256::new();
    h.update(n1);
    h.update(n2);
    let input = Zeroizing::new(h.finalize().to_vec());
    let (a1, a2) = if mac_i <= mac_r { (mac_i, mac_r) } else { (mac_r, mac_i) };
    let mut ctx = [0u8; 18];
    ctx[..6].copy_from_slice(&a1);
    ctx[6..12].copy_from_slice(&a2);
    ctx[12..].copy_from_slice(&bssid);
    let mut tpk = Zeroizing::new(vec![0u8; 16 + tk_len]);
    kdf_sha256(&input, b"TDLS PMK", &ctx, &mut tpk)?;
    Ok(Ptk::tpk(&tpk[..16], &tpk[16..]))
}

/// The FTE MIC of TPK handshake messages 2 and 3 (12.7.8.4.3, 12.7.8.4.4):
/// `AES-128-CMAC(TPK-KCK, MAC_I || MAC_R || Transaction Sequence || Link Identifier element
/// || RSNE || Timeout Interval element || FTE with the MIC field zero)`, the Transaction
/// Sequence being 2 (Setup Response) or 3 (Setup Confirm). Elements whole, as sent.
#[allow(clippy::too_many_arguments)]
pub fn tdls_mic(
    kck: &[u8],
    mac_i: [u8; 6],
    mac_r: [u8; 6],
    tsn: u8,
    link_id: &[u8],
    rsne: &[u8],
    timeout: &[u8],
    fte_zero_mic: &[u8],
) -> Result<[u8; 16]> {
    use cmac::Mac;
    let mut m = <cmac::Cmac<aes::Aes128> as cmac::digest::KeyInit>::new_from_slice(kck).map_err(|_| Error::BadKeyLength)?;
    for p in [&mac_i[..], &mac_r[..], &[tsn][..], link_id, rsne, timeout, fte_zero_mic] {
        m.update(p);
    }
    Ok(m.finalize().into_bytes().into())
}
