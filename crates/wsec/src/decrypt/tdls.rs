//! TDLS (802.11z) in captures: the TPK handshake travels in data frames through the AP
//! (usually encrypted under each station's PTK), as TDLS Action frames after an LLC/SNAP
//! header with EtherType 89-0d (11.20.2). The Setup Response carries both nonces in its
//! FTE and a MIC under the TPK-KCK (12.7.8.4.3): the TPK that verifies it protects the
//! direct link (To DS = From DS = 0 data frames between the two stations).
use super::{Decryptor, KeySource};
use crate::cipher::CipherSuite;
use crate::rsn::ft::Fte;
use crate::rsn::ie::RsnElementRepr;
use crate::rsn::tdls::{self, action};
use crate::wire::element;
use crate::wire::mac::{Header, MacAddr};
use subtle::ConstantTimeEq;

/// Link Identifier element (9.4.2.62): BSSID, initiator and responder addresses.
const LINK_IDENTIFIER: u8 = 101;

/// The TDLS Action frame of a plaintext data MPDU: (action code, the octets after it).
pub(super) fn tdls_of<'a>(h: &'a Header<&[u8]>) -> Option<(u8, &'a [u8])> {
    let b = h.payload();
    let snap = b.get(..8)?;
    if snap[..6] != [0xaa, 0xaa, 0x03, 0, 0, 0] || u16::from_be_bytes([snap[6], snap[7]]) != tdls::ETHERTYPE {
        return None;
    }
    match b.get(8..11)? {
        [tdls::PAYLOAD_TYPE_TDLS, tdls::CATEGORY_TDLS, a] => Some((*a, &b[11..])),
        _ => None,
    }
}

impl Decryptor {
    /// Learns the TPK from a successful TDLS Setup Response (Status Code 0, or 85 for
    /// success with power save mode, as Wireshark accepts).
    pub(super) fn on_tdls(&mut self, code: u8, body: &[u8]) {
        if code != action::SETUP_RESPONSE {
            return;
        }
        // Status Code (2), Dialog Token (1), Capability (2), then elements (9.6.12.3).
        let Some(status) = body.get(..2).map(|s| u16::from_le_bytes([s[0], s[1]])) else { return };
        if status != 0 && status != 85 {
            return;
        }
        let Some(ies) = body.get(5..) else { return };
        let (mut rsne, mut fte, mut timeout, mut link) = (None, None, None, None);
        for e in element::elements(ies) {
            let Ok(e) = e else { break };
            match e.id {
                element::id::RSN => rsne = Some(e.bytes),
                element::id::FAST_BSS_TRANSITION => fte = Some(e.bytes),
                element::id::TIMEOUT_INTERVAL => timeout = Some(e.bytes),
                LINK_IDENTIFIER => link = Some(e.bytes),
                _ => {}
            }
        }
        let (Some(rsne), Some(fte_whole), Some(timeout), Some(link)) = (rsne, fte, timeout, link) else { return };
        let Some(l) = link.get(2..20) else { return };
        let mac = |o: usize| -> [u8; 6] { core::array::from_fn(|i| l[o + i]) };
        let (bssid, init, resp) = (mac(0), mac(6), mac(12));
        let Ok(f) = Fte::parse(&fte_whole[2..], 16) else { return };
        let cipher =
            RsnElementRepr::parse(rsne).ok().and_then(|r| r.pairwise.first().and_then(|s| s.cipher())).unwrap_or(CipherSuite::Ccmp128);
        let Ok(tpk) = tdls::derive_tpk(&f.snonce, &f.anonce, init, resp, bssid, cipher) else { return };
        let mut zeroed = fte_whole.to_vec();
        zeroed[4..20].fill(0);
        let Ok(mic) = tdls::tdls_mic(tpk.kck(), init, resp, 2, link, rsne, timeout, &zeroed) else { return };
        if bool::from(mic.ct_eq(&f.mic[..])) {
            self.learn_ptk(MacAddr(init), MacAddr(resp), tpk, cipher, None, KeySource::Tdls);
        }
    }
}
