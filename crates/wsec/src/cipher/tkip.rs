//! TKIP, IEEE 802.11-2020 12.5.2 (deprecated; kept for interoperability and for decrypting
//! old captures).
//!
//! Per MPDU: the 48-bit TSC splits into IV32 (TSC2..TSC5) and IV16 (TSC0..TSC1); phase-1
//! key mixing ([`phase1`], 12.5.2.5.2) turns TK, TA and IV32 into the 80-bit TTAK, phase-2
//! ([`phase2`], 12.5.2.5.3) turns TTAK, TK and IV16 into the 128-bit WEP seed, and the MPDU
//! is then WEP-encapsulated with that seed (ICV = CRC-32, RC4) behind the 8-octet TKIP
//! IV/Ext IV header ([`TkipHeaderRepr`]).
//!
//! Per MSDU: the Michael MIC ([`super::michael`], 12.5.2.3) over
//! `DA || SA || Priority || 0 0 0 || MSDU` is appended to the MSDU *before* fragmentation,
//! so it is checked only after reassembly. A frame whose ICV verifies but whose Michael MIC
//! does not is an active attack indication that drives countermeasures (12.5.2.4,
//! [`crate::link`]); this module reports it as [`Error::MicFailure`], distinct from
//! [`Error::IcvFailure`].
//!
//! API levels:
//! - [`Protection`] on [`TkipKey`]: one unfragmented MSDU per MPDU (Michael direction from
//!   the frame by [`MichaelDirection::of_frame`]); `encapsulate_dir`/`decapsulate_dir`
//!   with an explicit direction.
//! - Fragmented MSDUs: [`TkipKey::encapsulate_msdu`] on transmit;
//!   [`TkipKey::decapsulate_fragment`] (ICV only) per fragment, reassembly (by
//!   [`crate::link`]), then [`TkipKey::verify_msdu_mic`] on receive.
//! - Primitives: [`phase1`], [`phase2`], [`TkipKey::per_packet_key`].
use super::michael::MICHAEL_LEN;
use super::wep::{wep_open, wep_seal, ICV_LEN};
use super::{CipherSuite, Pn, Protection, RxInfo, MAX_MPDU_BODY};
use crate::error::{Error, Result};
use crate::wire::mac::{fc, FrameControl, Header, SeqControl};
use crate::wire::sechdr::{TkipHeaderRepr, PN_MAX};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// Length of the Michael MIC TKIP appends to an MSDU.
pub const MIC_LEN: usize = MICHAEL_LEN;
/// Length of a TKIP key as installed: TK (16) || Michael A→S (8) || Michael S→A (8).
pub const KEY_LEN: usize = 32;

/// The TKIP S-box (12.5.2.5.1, Table 12-3 as one 256-entry table): entry `i` is
/// `(2·S[i]) << 8 | (3·S[i])` in GF(2^8), S being the AES S-box. `_S_(v)` looks up the
/// low octet directly and the high octet byte-swapped.
#[rustfmt::skip]
static SBOX: [u16; 256] = [
    0xC6A5, 0xF884, 0xEE99, 0xF68D, 0xFF0D, 0xD6BD, 0xDEB1, 0x9154,
    0x6050, 0x0203, 0xCEA9, 0x567D, 0xE719, 0xB562, 0x4DE6, 0xEC9A,
    0x8F45, 0x1F9D, 0x8940, 0xFA87, 0xEF15, 0xB2EB, 0x8EC9, 0xFB0B,
    0x41EC, 0xB367, 0x5FFD, 0x45EA, 0x23BF, 0x53F7, 0xE496, 0x9B5B,
    0x75C2, 0xE11C, 0x3DAE, 0x4C6A, 0x6C5A, 0x7E41, 0xF502, 0x834F,
    0x685C, 0x51F4, 0xD134, 0xF908, 0xE293, 0xAB73, 0x6253, 0x2A3F,
    0x080C, 0x9552, 0x4665, 0x9D5E, 0x3028, 0x37A1, 0x0A0F, 0x2FB5,
    0x0E09, 0x2436, 0x1B9B, 0xDF3D, 0xCD26, 0x4E69, 0x7FCD, 0xEA9F,
    0x121B, 0x1D9E, 0x5874, 0x342E, 0x362D, 0xDCB2, 0xB4EE, 0x5BFB,
    0xA4F6, 0x764D, 0xB761, 0x7DCE, 0x527B, 0xDD3E, 0x5E71, 0x1397,
    0xA6F5, 0xB968, 0x0000, 0xC12C, 0x4060, 0xE31F, 0x79C8, 0xB6ED,
    0xD4BE, 0x8D46, 0x67D9, 0x724B, 0x94DE, 0x98D4, 0xB0E8, 0x854A,
    0xBB6B, 0xC52A, 0x4FE5, 0xED16, 0x86C5, 0x9AD7, 0x6655, 0x1194,
    0x8ACF, 0xE910, 0x0406, 0xFE81, 0xA0F0, 0x7844, 0x25BA, 0x4BE3,
    0xA2F3, 0x5DFE, 0x80C0, 0x058A, 0x3FAD, 0x21BC, 0x7048, 0xF104,
    0x63DF, 0x77C1, 0xAF75, 0x4263, 0x2030, 0xE51A, 0xFD0E, 0xBF6D,
    0x814C, 0x1814, 0x2635, 0xC32F, 0xBEE1, 0x35A2, 0x88CC, 0x2E39,
    0x9357, 0x55F2, 0xFC82, 0x7A47, 0xC8AC, 0xBAE7, 0x322B, 0xE695,
    0xC0A0, 0x1998, 0x9ED1, 0xA37F, 0x4466, 0x547E, 0x3BAB, 0x0B83,
    0x8CCA, 0xC729, 0x6BD3, 0x283C, 0xA779, 0xBCE2, 0x161D, 0xAD76,
    0xDB3B, 0x6456, 0x744E, 0x141E, 0x92DB, 0x0C0A, 0x486C, 0xB8E4,
    0x9F5D, 0xBD6E, 0x43EF, 0xC4A6, 0x39A8, 0x31A4, 0xD337, 0xF28B,
    0xD532, 0x8B43, 0x6E59, 0xDAB7, 0x018C, 0xB164, 0x9CD2, 0x49E0,
    0xD8B4, 0xACFA, 0xF307, 0xCF25, 0xCAAF, 0xF48E, 0x47E9, 0x1018,
    0x6FD5, 0xF088, 0x4A6F, 0x5C72, 0x3824, 0x57F1, 0x73C7, 0x9751,
    0xCB23, 0xA17C, 0xE89C, 0x3E21, 0x96DD, 0x61DC, 0x0D86, 0x0F85,
    0xE090, 0x7C42, 0x71C4, 0xCCAA, 0x90D8, 0x0605, 0xF701, 0x1C12,
    0xC2A3, 0x6A5F, 0xAEF9, 0x69D0, 0x1791, 0x9958, 0x3A27, 0x27B9,
    0xD938, 0xEB13, 0x2BB3, 0x2233, 0xD2BB, 0xA970, 0x0789, 0x33A7,
    0x2DB6, 0x3C22, 0x1592, 0xC920, 0x8749, 0xAAFF, 0x5078, 0xA57A,
    0x038F, 0x59F8, 0x0980, 0x1A17, 0x65DA, 0xD731, 0x84C6, 0xD0B8,
    0x82C3, 0x29B0, 0x5A77, 0x1E11, 0x7BCB, 0xA8FC, 0x6DD6, 0x2C3A,
];

/// `_S_[v]` of 12.5.2.5.1.
#[inline(always)]
fn s(v: u16) -> u16 {
    SBOX[(v & 0xff) as usize] ^ SBOX[(v >> 8) as usize].swap_bytes()
}

/// `Mk16(TK[off+1], TK[off])`: the little-endian 16-bit word of TK at byte offset `off`.
#[inline(always)]
fn tk16(tk: &[u8; 16], off: usize) -> u16 {
    u16::from_le_bytes([tk[off], tk[off + 1]])
}

/// Phase-1 key mixing (12.5.2.5.2): TTAK from TK, the transmitter address and IV32
/// (= TSC2..TSC5). Depends only on IV32, so it changes once every 65 536 frames.
pub fn phase1(tk: &[u8; 16], ta: &[u8; 6], iv32: u32) -> [u16; 5] {
    let mut p = [
        iv32 as u16,
        (iv32 >> 16) as u16,
        u16::from_le_bytes([ta[0], ta[1]]),
        u16::from_le_bytes([ta[2], ta[3]]),
        u16::from_le_bytes([ta[4], ta[5]]),
    ];
    for i in 0..8u16 {
        let j = 2 * (i as usize & 1);
        p[0] = p[0].wrapping_add(s(p[4] ^ tk16(tk, j)));
        p[1] = p[1].wrapping_add(s(p[0] ^ tk16(tk, 4 + j)));
        p[2] = p[2].wrapping_add(s(p[1] ^ tk16(tk, 8 + j)));
        p[3] = p[3].wrapping_add(s(p[2] ^ tk16(tk, 12 + j)));
        p[4] = p[4].wrapping_add(s(p[3] ^ tk16(tk, j))).wrapping_add(i);
    }
    p
}

/// Phase-2 key mixing (12.5.2.5.3): the 16-octet WEP seed (RC4 key) for one MPDU from TK,
/// the TTAK of [`phase1`] and IV16 (= TSC0..TSC1). Octets 0..3 are
/// `TSC1, (TSC1 | 0x20) & 0x7f, TSC0, (PPK5 ^ TK16(0)) >> 1`.
pub fn phase2(tk: &[u8; 16], ttak: &[u16; 5], iv16: u16) -> [u8; 16] {
    let mut p = [ttak[0], ttak[1], ttak[2], ttak[3], ttak[4], ttak[4].wrapping_add(iv16)];
    p[0] = p[0].wrapping_add(s(p[5] ^ tk16(tk, 0)));
    p[1] = p[1].wrapping_add(s(p[0] ^ tk16(tk, 2)));
    p[2] = p[2].wrapping_add(s(p[1] ^ tk16(tk, 4)));
    p[3] = p[3].wrapping_add(s(p[2] ^ tk16(tk, 6)));
    p[4] = p[4].wrapping_add(s(p[3] ^ tk16(tk, 8)));
    p[5] = p[5].wrapping_add(s(p[4] ^ tk16(tk, 10)));
    p[0] = p[0].wrapping_add((p[5] ^ tk16(tk, 12)).rotate_right(1));
    p[1] = p[1].wrapping_add((p[0] ^ tk16(tk, 14)).rotate_right(1));
    p[2] = p[2].wrapping_add(p[1].rotate_right(1));
    p[3] = p[3].wrapping_add(p[2].rotate_right(1));
    p[4] = p[4].wrapping_add(p[3].rotate_right(1));
    p[5] = p[5].wrapping_add(p[4].rotate_right(1));
    let hi = (iv16 >> 8) as u8;
    let mut k = [0u8; 16];
    k[0] = hi;
    k[1] = (hi | 0x20) & 0x7f;
    k[2] = iv16 as u8;
    k[3] = ((p[5] ^ tk16(tk, 0)) >> 1) as u8;
    for (i, w) in p.iter().enumerate() {
        k[4 + 2 * i..6 + 2 * i].copy_from_slice(&w.to_le_bytes());
    }
    p.zeroize();
    k
}

/// Which of the two Michael keys protects a frame (12.7.1.3, Table 12-8: TK octets 16..23
/// are the Michael key for Authenticator→Supplicant traffic, 24..31 for
/// Supplicant→Authenticator).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MichaelDirection {
    /// TK octets 16..23.
    AuthenticatorToSupplicant,
    /// TK octets 24..31.
    SupplicantToAuthenticator,
}

impl MichaelDirection {
    /// hostap's rule (wlantest `tkip.c`): From DS set → Authenticator→Supplicant (the AP
    /// sends), else Supplicant→Authenticator. Right for infrastructure BSS traffic and for
    /// group keys (always sent From DS). **Not** right in general for an IBSS (To DS =
    /// From DS = 0 both ways: which Michael key each peer sends with depends on which was
    /// Authenticator in that pair's 4-way handshake) nor for 4-address/mesh links; use the
    /// `*_dir` functions with the direction the key-management layer knows.
    pub fn of_frame(f: FrameControl) -> MichaelDirection {
        if f.from_ds() {
            MichaelDirection::AuthenticatorToSupplicant
        } else {
            MichaelDirection::SupplicantToAuthenticator
        }
    }
}

/// A TKIP key: TK (16 octets) and the two Michael keys; zeroized on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct TkipKey {
    tk: [u8; 16],
    mic_a2s: [u8; 8],
    mic_s2a: [u8; 8],
}

impl core::fmt::Debug for TkipKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("TkipKey(..)")
    }
}

/// Checks TKIP may protect this frame: a data frame with a body.
fn check_frame(mpdu: &[u8]) -> Result<(Header<&[u8]>, usize)> {
    let hdr = Header::new_checked(mpdu)?;
    let f = hdr.frame_control();
    if !f.is_data() {
        return Err(Error::Unsupported("TKIP protects data frames only"));
    }
    if !f.has_data_body() {
        return Err(Error::Unsupported("Null data frames carry no body to protect"));
    }
    let hl = hdr.header_len();
    Ok((hdr, hl))
}

fn is_fragment(hdr: &Header<&[u8]>) -> bool {
    hdr.frame_control().more_fragments() || hdr.seq_control().map(|s| s.fragment() != 0).unwrap_or(false)
}

/// DA, SA and Michael priority (TID of a QoS data frame, else 0) of a data frame.
fn michael_fields(hdr: &Header<&[u8]>) -> Result<([u8; 6], [u8; 6], u8)> {
    let da = hdr.da().ok_or(Error::Malformed("no DA"))?;
    let sa = hdr.sa().ok_or(Error::Malformed("no SA"))?;
    let prio = hdr.qos_control().map(|q| q.tid()).unwrap_or(0);
    Ok((da.0, sa.0, prio))
}

impl TkipKey {
    /// Builds a key from the 32 octets installed for TKIP: TK || Michael
    /// Authenticator→Supplicant || Michael Supplicant→Authenticator.
    pub fn new(key: &[u8]) -> Result<TkipKey> {
        if key.len() != KEY_LEN {
            return Err(Error::BadKeyLength);
        }
        let mut k = TkipKey { tk: [0; 16], mic_a2s: [0; 8], mic_s2a: [0; 8] };
        k.tk.copy_from_slice(&key[..16]);
        k.mic_a2s.copy_from_slice(&key[16..24]);
        k.mic_s2a.copy_from_slice(&key[24..32]);
        Ok(k)
    }

    /// The Michael key for a direction.
    pub fn michael_key(&self, dir: MichaelDirection) -> &[u8; 8] {
        match dir {
            MichaelDirection::AuthenticatorToSupplicant => &self.mic_a2s,
            MichaelDirection::SupplicantToAuthenticator => &self.mic_s2a,
        }
    }

    /// The per-MPDU RC4 key (WEP seed) for transmitter `ta` and TSC `tsc`.
    pub fn per_packet_key(&self, ta: &[u8; 6], tsc: Pn) -> Zeroizing<[u8; 16]> {
        let ttak = Zeroizing::new(phase1(&self.tk, ta, TkipHeaderRepr::iv32(tsc)));
        Zeroizing::new(phase2(&self.tk, &ttak, TkipHeaderRepr::iv16(tsc)))
    }

    /// Michael MIC of an MSDU (12.5.2.3.3) under the key for `dir`.
    pub fn msdu_mic(&self, da: &[u8; 6], sa: &[u8; 6], priority: u8, msdu: &[u8], dir: MichaelDirection) -> [u8; 8] {
        super::michael::michael_msdu(self.michael_key(dir), da, sa, priority, msdu)
    }

    /// Checks the Michael MIC at the end of a reassembled MSDU (`msdu_with_mic` = MSDU ||
    /// MIC) in constant time; returns the MSDU length. Shorter than the MIC →
    /// [`Error::Truncated`]; mismatch → [`Error::MicFailure`] (report it to the TKIP
    /// countermeasures).
    pub fn verify_msdu_mic(&self, da: &[u8; 6], sa: &[u8; 6], priority: u8, msdu_with_mic: &[u8], dir: MichaelDirection) -> Result<usize> {
        let n = msdu_with_mic.len().checked_sub(MIC_LEN).ok_or(Error::Truncated)?;
        let (msdu, mic) = msdu_with_mic.split_at(n);
        let want = self.msdu_mic(da, sa, priority, msdu, dir);
        if bool::from(want.ct_eq(mic)) {
            Ok(n)
        } else {
            Err(Error::MicFailure)
        }
    }

    /// Reads the TSC and Key ID of a TKIP-protected MPDU without decrypting it (for key
    /// selection, the replay pre-check, and MIC-failure reports).
    pub fn peek(mpdu: &[u8]) -> Result<RxInfo> {
        let (hdr, hl) = check_frame(mpdu)?;
        if !hdr.frame_control().protected() {
            return Err(Error::NotProtected);
        }
        let sec = TkipHeaderRepr::parse(&mpdu[hl..])?;
        Ok(RxInfo { pn: sec.tsc, key_id: sec.key_id })
    }

    /// Writes `header (Protected set) || TKIP header || pieces... || ICV`, encrypted, to
    /// `out` (cleared first). `header` is a checked plaintext MAC header of a data frame.
    fn seal_into(&self, header: &[u8], ta: &[u8; 6], tsc: Pn, key_id: u8, pieces: &[&[u8]], out: &mut Vec<u8>) -> Result<()> {
        out.clear();
        let mut ivh = [0u8; TkipHeaderRepr::LEN];
        TkipHeaderRepr { tsc, key_id }.emit(&mut ivh)?;
        let hl = header.len();
        let data_len: usize = pieces.iter().map(|p| p.len()).sum();
        out.reserve(hl + TkipHeaderRepr::LEN + data_len + ICV_LEN);
        out.extend_from_slice(header);
        out[1] |= (fc::PROTECTED >> 8) as u8;
        out.extend_from_slice(&ivh);
        for p in pieces {
            out.extend_from_slice(p);
        }
        out.extend_from_slice(&[0u8; ICV_LEN]);
        let seed = self.per_packet_key(ta, tsc);
        if let Err(e) = wep_seal(&seed[..], &mut out[hl + TkipHeaderRepr::LEN..]) {
            out.clear();
            return Err(e);
        }
        Ok(())
    }

    /// Decrypts a TKIP MPDU into `out` = header (Protected cleared) || data, checking only
    /// the ICV. The decrypted data must be `min_data..=max_data` octets long (Truncated
    /// below, Oversize above). Returns the parsed header view, its length and the RxInfo.
    fn open_into<'a>(
        &self,
        mpdu: &'a [u8],
        min_data: usize,
        max_data: usize,
        out: &mut Vec<u8>,
    ) -> Result<(Header<&'a [u8]>, usize, RxInfo)> {
        out.clear();
        let (hdr, hl) = check_frame(mpdu)?;
        if !hdr.frame_control().protected() {
            return Err(Error::NotProtected);
        }
        let rest = &mpdu[hl..];
        let sec = TkipHeaderRepr::parse(rest)?;
        let enc = &rest[TkipHeaderRepr::LEN..];
        let data_len = enc.len().checked_sub(ICV_LEN).ok_or(Error::Truncated)?;
        if data_len < min_data {
            return Err(Error::Truncated);
        }
        if data_len > max_data {
            return Err(Error::Oversize);
        }
        let ta = hdr.ta().ok_or(Error::Malformed("no TA"))?;
        out.reserve(hl + enc.len());
        out.extend_from_slice(&mpdu[..hl]);
        out[1] &= !((fc::PROTECTED >> 8) as u8);
        out.extend_from_slice(enc);
        let seed = self.per_packet_key(ta.as_bytes(), sec.tsc);
        match wep_open(&seed[..], &mut out[hl..]) {
            Ok(n) => {
                out.truncate(hl + n);
                Ok((hdr, hl, RxInfo { pn: sec.tsc, key_id: sec.key_id }))
            }
            Err(e) => {
                out.zeroize();
                Err(e)
            }
        }
    }

    /// [`Protection::encapsulate`] with an explicit Michael direction. The MPDU must carry a
    /// whole MSDU (More Fragments clear, fragment number 0; else [`Error::Fragment`]: use
    /// [`TkipKey::encapsulate_msdu`]). `pn` is the TSC.
    pub fn encapsulate_dir(&self, mpdu: &[u8], pn: Pn, key_id: u8, dir: MichaelDirection, out: &mut Vec<u8>) -> Result<()> {
        out.clear();
        let (hdr, hl) = check_frame(mpdu)?;
        if hdr.frame_control().protected() {
            return Err(Error::AlreadyProtected);
        }
        if is_fragment(&hdr) {
            return Err(Error::Fragment("fragmented MPDU given to encapsulate: use encapsulate_msdu"));
        }
        let body = &mpdu[hl..];
        if body.len() > MAX_MPDU_BODY {
            return Err(Error::Oversize);
        }
        let (da, sa, prio) = michael_fields(&hdr)?;
        let ta = hdr.ta().ok_or(Error::Malformed("no TA"))?;
        let mic = self.msdu_mic(&da, &sa, prio, body, dir);
        self.seal_into(&mpdu[..hl], ta.as_bytes(), pn, key_id, &[body, &mic], out)
    }

    /// [`Protection::decapsulate`] with an explicit Michael direction. Checks the ICV
    /// ([`Error::IcvFailure`]) and then Michael ([`Error::MicFailure`]); a fragment (More
    /// Fragments set or fragment number > 0) is refused with [`Error::Fragment`]: use
    /// [`TkipKey::decapsulate_fragment`].
    pub fn decapsulate_dir(&self, mpdu: &[u8], dir: MichaelDirection, out: &mut Vec<u8>) -> Result<RxInfo> {
        out.clear();
        if let Ok(h) = Header::new_checked(mpdu) {
            if h.frame_control().is_data() && is_fragment(&h) {
                return Err(Error::Fragment("fragment given to decapsulate: use decapsulate_fragment"));
            }
        }
        let (hdr, hl, info) = self.open_into(mpdu, MIC_LEN, MAX_MPDU_BODY + MIC_LEN, out)?;
        let checked = michael_fields(&hdr).and_then(|(da, sa, prio)| {
            let data = out.get(hl..).ok_or(Error::Truncated)?;
            self.verify_msdu_mic(&da, &sa, prio, data, dir)
        });
        match checked {
            Ok(n) => {
                out.truncate(hl + n);
                Ok(info)
            }
            Err(e) => {
                out.zeroize();
                Err(e)
            }
        }
    }

    /// Decrypts one MPDU of a possibly fragmented MSDU, checking only its ICV. Returns the
    /// plaintext MPDU (header with Protected cleared, no TKIP header, no ICV; the last
    /// fragment still ends with the Michael MIC, which may also straddle fragments) and its
    /// TSC/Key ID. After reassembly (consecutive TSCs, same key: [`crate::link`]) check the
    /// MSDU with [`TkipKey::verify_msdu_mic`].
    pub fn decapsulate_fragment(&self, mpdu: &[u8]) -> Result<(Vec<u8>, RxInfo)> {
        let mut out = Vec::new();
        let info = self.decapsulate_fragment_into(mpdu, &mut out)?;
        Ok((out, info))
    }

    /// [`TkipKey::decapsulate_fragment`] into a caller's buffer (replaced; empty on error).
    pub fn decapsulate_fragment_into(&self, mpdu: &[u8], out: &mut Vec<u8>) -> Result<RxInfo> {
        self.open_into(mpdu, 0, MAX_MPDU_BODY + MIC_LEN, out).map(|(_, _, info)| info)
    }

    /// Encapsulates a whole MSDU, fragmenting it (12.5.2.3.2, 10.5): Michael over the MSDU,
    /// then `MSDU || MIC` is cut into pieces of at most `max_fragment_body` octets (the
    /// plaintext per fragment, excluding TKIP header and ICV), each sent as its own MPDU with
    /// the header of `header_template` (exactly a plaintext data-frame MAC header; its
    /// sequence number is kept), fragment numbers 0, 1, 2..., More Fragments set on all but
    /// the last, TSCs `first_tsc`, `first_tsc + 1`, ..., and its own ICV.
    ///
    /// Errors: more than 16 fragments → [`Error::Fragment`]; TSCs beyond 48 bits →
    /// [`Error::PnExhausted`]; `max_fragment_body` 0 or a template that is not exactly one
    /// header → [`Error::Malformed`].
    pub fn encapsulate_msdu(
        &self,
        header_template: &[u8],
        msdu: &[u8],
        first_tsc: Pn,
        key_id: u8,
        max_fragment_body: usize,
        dir: MichaelDirection,
    ) -> Result<Vec<Vec<u8>>> {
        let (hdr, hl) = check_frame(header_template)?;
        if header_template.len() != hl {
            return Err(Error::Malformed("header_template must be exactly one MAC header"));
        }
        let f = hdr.frame_control();
        if f.protected() {
            return Err(Error::AlreadyProtected);
        }
        if msdu.len() > MAX_MPDU_BODY {
            return Err(Error::Oversize);
        }
        if max_fragment_body == 0 {
            return Err(Error::Malformed("max_fragment_body must be at least 1"));
        }
        if key_id > 3 {
            return Err(Error::Malformed("Key ID over 3"));
        }
        if first_tsc > PN_MAX {
            return Err(Error::Malformed("TSC over 48 bits"));
        }
        let total = msdu.len() + MIC_LEN;
        let nfrag = total.div_ceil(max_fragment_body);
        if nfrag > 16 {
            return Err(Error::Fragment("an MSDU has at most 16 fragments"));
        }
        if first_tsc + (nfrag as Pn - 1) > PN_MAX {
            return Err(Error::PnExhausted);
        }
        let (da, sa, prio) = michael_fields(&hdr)?;
        let ta = hdr.ta().ok_or(Error::Malformed("no TA"))?;
        let seq = hdr.seq_control().map(|s| s.sequence()).unwrap_or(0);
        let mic = self.msdu_mic(&da, &sa, prio, msdu, dir);

        let mut frames = Vec::with_capacity(nfrag);
        let mut header = header_template.to_vec();
        let mut off = 0usize;
        for i in 0..nfrag {
            let end = off.saturating_add(max_fragment_body).min(total);
            // The piece [off, end) of MSDU || MIC, without copying the MSDU.
            let ml = msdu.len();
            let from_msdu = &msdu[off.min(ml)..end.min(ml)];
            let from_mic = &mic[off.max(ml) - ml..end.max(ml) - ml];
            {
                let mut h = Header::new_unchecked(&mut header[..]);
                h.set_seq_control(SeqControl::new(seq, i as u8));
                h.set_frame_control(f.with(fc::MORE_FRAGMENTS, i + 1 < nfrag));
            }
            let mut out = Vec::new();
            self.seal_into(&header, ta.as_bytes(), first_tsc + i as Pn, key_id, &[from_msdu, from_mic], &mut out)?;
            frames.push(out);
            off = end;
        }
        Ok(frames)
    }
}

impl Protection for TkipKey {
    fn suite(&self) -> CipherSuite {
        CipherSuite::Tkip
    }

    /// Direction from the frame ([`MichaelDirection::of_frame`]); see
    /// [`TkipKey::encapsulate_dir`].
    fn encapsulate(&self, mpdu: &[u8], pn: Pn, key_id: u8, out: &mut Vec<u8>) -> Result<()> {
        out.clear();
        let f = Header::new_checked(mpdu)?.frame_control();
        self.encapsulate_dir(mpdu, pn, key_id, MichaelDirection::of_frame(f), out)
    }

    /// Direction from the frame ([`MichaelDirection::of_frame`]); see
    /// [`TkipKey::decapsulate_dir`].
    fn decapsulate(&self, mpdu: &[u8], out: &mut Vec<u8>) -> Result<RxInfo> {
        out.clear();
        let f = Header::new_checked(mpdu)?.frame_control();
        self.decapsulate_dir(mpdu, MichaelDirection::of_frame(f), out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GF(2^8) arithmetic and the AES S-box computed from its definition (inverse + affine
    /// map), to check the literal table.
    fn xtime(a: u8) -> u8 {
        (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 }
    }
    fn gmul(mut a: u8, mut b: u8) -> u8 {
        let mut r = 0;
        while b != 0 {
            if b & 1 != 0 {
                r ^= a;
            }
            a = xtime(a);
            b >>= 1;
        }
        r
    }
    fn aes_sbox(x: u8) -> u8 {
        let inv = if x == 0 { 0 } else { (1..=255u8).find(|&y| gmul(x, y) == 1).unwrap() };
        inv ^ inv.rotate_left(1) ^ inv.rotate_left(2) ^ inv.rotate_left(3) ^ inv.rotate_left(4) ^ 0x63
    }

    #[test]
    fn sbox_table_is_derived_from_aes_sbox() {
        for i in 0..=255u8 {
            let s = aes_sbox(i);
            let want = ((xtime(s) as u16) << 8) | (xtime(s) ^ s) as u16;
            assert_eq!(SBOX[i as usize], want, "entry {i}");
        }
    }

    #[test]
    fn m63_key_mixing() {
        // IEEE 802.11-2012 M.6.3 (vectors.md 4.1).
        let tk = [0x12, 0x34, 0x56, 0x78, 0x90, 0x12, 0x34, 0x56, 0x78, 0x90, 0x12, 0x34, 0x56, 0x78, 0x90, 0x12];
        let ta = [0x02, 0x03, 0x04, 0x05, 0x06, 0x07];
        let ttak = phase1(&tk, &ta, 0);
        assert_eq!(ttak, [0x58bb, 0x1f07, 0x939e, 0x38b4, 0x4b25]);
        let k = phase2(&tk, &ttak, 1);
        assert_eq!(k, [0x00, 0x20, 0x01, 0x4c, 0xfe, 0x67, 0xbe, 0xd2, 0x7c, 0x86, 0x7b, 0x1b, 0xf8, 0x02, 0x8b, 0x1c]);
    }

    #[test]
    fn direction_rule() {
        let d = FrameControl(0x0208);
        assert_eq!(MichaelDirection::of_frame(d), MichaelDirection::AuthenticatorToSupplicant);
        let u = FrameControl(0x0108);
        assert_eq!(MichaelDirection::of_frame(u), MichaelDirection::SupplicantToAuthenticator);
        assert_eq!(MichaelDirection::of_frame(FrameControl(0x0008)), MichaelDirection::SupplicantToAuthenticator);
    }

    #[test]
    fn key_length() {
        assert_eq!(TkipKey::new(&[0; 31]).unwrap_err(), Error::BadKeyLength);
        let mut k = [0u8; 32];
        k[16] = 1;
        k[24] = 2;
        let key = TkipKey::new(&k).unwrap();
        assert_eq!(key.michael_key(MichaelDirection::AuthenticatorToSupplicant)[0], 1);
        assert_eq!(key.michael_key(MichaelDirection::SupplicantToAuthenticator)[0], 2);
    }
}
