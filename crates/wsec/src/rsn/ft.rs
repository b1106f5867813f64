//! The FT key hierarchy (802.11r; IEEE 802.11-2020 12.7.1.6.3-12.7.1.6.5): PMK-R0 and
//! PMKR0Name from the XXKey, PMK-R1 and PMKR1Name for one R1KH, and the FT PTK.
//!
//! Hash and lengths by AKM (Table 9-151): SHA-256 with a 256-bit PMK-R0/R1 for FT-802.1X,
//! FT-PSK and FT-SAE; SHA-384 with 384 bits for FT-802.1X-SHA384. The XXKey is the PSK
//! (FT-PSK), the PMK (FT-SAE) or the second 256 bits of the MSK (FT-802.1X).
use crate::cipher::CipherSuite;
use crate::error::{Error, Result};
use crate::rsn::akm::{Akm, KdfHash};
use crate::rsn::kdf::{kdf_hash_length, Ptk};
use sha2::{Digest, Sha256, Sha384};
use zeroize::Zeroizing;

/// PMK-R0 with its name.
#[derive(Clone)]
pub struct PmkR0 {
    pub key: Zeroizing<Vec<u8>>,
    pub name: [u8; 16],
}

/// PMK-R1 with its name.
#[derive(Clone)]
pub struct PmkR1 {
    pub key: Zeroizing<Vec<u8>>,
    pub name: [u8; 16],
}

fn hash_of(akm: Akm) -> Result<KdfHash> {
    if !akm.is_ft() {
        return Err(Error::Unsupported("not an FT AKM"));
    }
    Ok(akm.kdf_hash())
}

/// Q: the PMK-R0/PMK-R1 length in octets.
fn q(h: KdfHash) -> usize {
    if h == KdfHash::Sha384 {
        48
    } else {
        32
    }
}

fn truncate_128(h: KdfHash, parts: &[&[u8]]) -> [u8; 16] {
    let mut out = [0u8; 16];
    if h == KdfHash::Sha384 {
        let mut d = Sha384::new();
        parts.iter().for_each(|p| d.update(p));
        out.copy_from_slice(&d.finalize()[..16]);
    } else {
        let mut d = Sha256::new();
        parts.iter().for_each(|p| d.update(p));
        out.copy_from_slice(&d.finalize()[..16]);
    }
    out
}

/// 12.7.1.6.3: R0-Key-Data = KDF-Hash-Length(XXKey, "FT-R0", SSIDlength || SSID || MDID ||
/// R0KHlength || R0KH-ID || S0KH-ID); PMK-R0 = its first Q octets, PMK-R0Name-Salt the next
/// 16; PMKR0Name = Truncate-128(Hash("FT-R0N" || PMK-R0Name-Salt)).
pub fn derive_pmk_r0(akm: Akm, xxkey: &[u8], ssid: &[u8], mdid: [u8; 2], r0kh_id: &[u8], s0kh_id: [u8; 6]) -> Result<PmkR0> {
    let h = hash_of(akm)?;
    if ssid.len() > 32 || r0kh_id.is_empty() || r0kh_id.len() > 48 {
        return Err(Error::Malformed("SSID over 32 octets or R0KH-ID not 1-48 octets"));
    }
    let mut ctx = Vec::with_capacity(1 + ssid.len() + 2 + 1 + r0kh_id.len() + 6);
    ctx.push(ssid.len() as u8);
    ctx.extend_from_slice(ssid);
    ctx.extend_from_slice(&mdid);
    ctx.push(r0kh_id.len() as u8);
    ctx.extend_from_slice(r0kh_id);
    ctx.extend_from_slice(&s0kh_id);
    let mut data = Zeroizing::new(vec![0u8; q(h) + 16]);
    kdf_hash_length(h, xxkey, b"FT-R0", &ctx, &mut data)?;
    let name = truncate_128(h, &[b"FT-R0N", &data[q(h)..]]);
    Ok(PmkR0 { key: Zeroizing::new(data[..q(h)].to_vec()), name })
}

/// 12.7.1.6.4: PMK-R1 = KDF-Hash-Length(PMK-R0, "FT-R1", R1KH-ID || S1KH-ID);
/// PMKR1Name = Truncate-128(Hash("FT-R1N" || PMKR0Name || R1KH-ID || S1KH-ID)).
pub fn derive_pmk_r1(akm: Akm, r0: &PmkR0, r1kh_id: [u8; 6], s1kh_id: [u8; 6]) -> Result<PmkR1> {
    let h = hash_of(akm)?;
    if r0.key.len() != q(h) {
        return Err(Error::BadKeyLength);
    }
    let mut ctx = [0u8; 12];
    ctx[..6].copy_from_slice(&r1kh_id);
    ctx[6..].copy_from_slice(&s1kh_id);
    let mut key = Zeroizing::new(vec![0u8; q(h)]);
    kdf_hash_length(h, &r0.key, b"FT-R1", &ctx, &mut key)?;
    let name = truncate_128(h, &[b"FT-R1N", &r0.name, &r1kh_id, &s1kh_id]);
    Ok(PmkR1 { key, name })
}

/// 12.7.1.6.5: PTK = KDF-Hash-Length(PMK-R1, "FT-PTK", SNonce || ANonce || BSSID ||
/// STA-ADDR), split into KCK, KEK, TK (and a KDK of `kdk_len` octets).
#[allow(clippy::too_many_arguments)]
pub fn derive_ft_ptk(
    akm: Akm,
    r1: &PmkR1,
    snonce: &[u8; 32],
    anonce: &[u8; 32],
    bssid: [u8; 6],
    sta: [u8; 6],
    cipher: CipherSuite,
    kdk_len: usize,
) -> Result<Ptk> {
    let h = hash_of(akm)?;
    if r1.key.len() != q(h) {
        return Err(Error::BadKeyLength);
    }
    let mut ctx = Vec::with_capacity(76);
    ctx.extend_from_slice(snonce);
    ctx.extend_from_slice(anonce);
    ctx.extend_from_slice(&bssid);
    ctx.extend_from_slice(&sta);
    let tk_len = cipher.key_len();
    let mut raw = Zeroizing::new(vec![0u8; akm.kck_len() + akm.kek_len() + tk_len + kdk_len]);
    kdf_hash_length(h, &r1.key, b"FT-PTK", &ctx, &mut raw)?;
    Ptk::split(akm, cipher, kdk_len, &raw)
}

/// The Mobility Domain element's MDID (IEEE 802.11-2020 9.4.2.46): the first two octets
/// of its body. `None` for a body shorter than the element's 3 octets.
pub fn mdid_of(mde_body: &[u8]) -> Option<[u8; 2]> {
    (mde_body.len() >= 3).then(|| [mde_body[0], mde_body[1]])
}

/// The XXKey of an FT-802.1X AKM from the MSK (12.7.1.6.3): its second 256 bits for
/// 00-0F-AC:3, its first 384 for 00-0F-AC:13; `None` for other AKMs or a short MSK.
pub fn msk_xxkey(akm: Akm, msk: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
    let r = match akm {
        Akm::FtIeee8021x => msk.get(32..64),
        Akm::FtIeee8021xSha384 => msk.get(..48),
        _ => None,
    };
    r.map(|x| Zeroizing::new(x.to_vec()))
}

/// PMKR1Name from PMKR0Name alone (12.7.1.6.4), what an R1KH computes from the PMKID
/// of an FT Authentication Request before it has the PMK-R1.
pub fn derive_pmk_r1_name(akm: Akm, r0_name: &[u8; 16], r1kh_id: [u8; 6], s1kh_id: [u8; 6]) -> Result<[u8; 16]> {
    Ok(truncate_128(hash_of(akm)?, &[b"FT-R1N", r0_name, &r1kh_id, &s1kh_id]))
}

/// FT Capability and Policy of the MDE (9.4.2.46): Fast BSS Transition over DS.
pub const MDE_FT_OVER_DS: u8 = 0x01;

/// The whole Mobility Domain element (9.4.2.46): MDID and FT Capability and Policy.
pub fn mde(mdid: [u8; 2], ft_over_ds: bool) -> Vec<u8> {
    vec![crate::wire::element::id::MOBILITY_DOMAIN, 3, mdid[0], mdid[1], if ft_over_ds { MDE_FT_OVER_DS } else { 0 }]
}

/// FTE subelement IDs (9.4.2.47, Table 9-188).
pub mod subelement {
    pub const R1KH_ID: u8 = 1;
    pub const GTK: u8 = 2;
    pub const R0KH_ID: u8 = 3;
    pub const IGTK: u8 = 4;
}

/// The IGTK subelement of an FTE (9.4.2.47): Key ID, IPN, Key Length and the IGTK
/// wrapped with the KEK.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FtIgtk {
    pub key_id: u16,
    pub ipn: [u8; 6],
    pub key_len: u8,
    pub wrapped: Vec<u8>,
}

/// The GTK for an FTE's GTK subelement, wrapped with the KEK (13.8.5): padded as hostapd's
/// `wpa_ft_gtk_subelem` does (12.7.2: to a multiple of 8 and at least 16 octets, 0xdd
/// then zeros), `rsc` the GTK's transmit sequence counter.
pub fn wrap_gtk(kek: &[u8], key_id: u8, gtk: &[u8], rsc: u64) -> Result<FtGtk> {
    let mut k = Zeroizing::new(gtk.to_vec());
    let mut pad = (8 - k.len() % 8) % 8;
    if k.len() + pad < 16 {
        pad += 8;
    }
    if pad > 0 {
        k.push(0xdd);
        k.resize(gtk.len() + pad, 0);
    }
    let mut rsc8 = [0u8; 8];
    rsc8.copy_from_slice(&rsc.to_le_bytes());
    let key_len = u8::try_from(gtk.len()).map_err(|_| Error::BadKeyLength)?;
    Ok(FtGtk { key_id: key_id & 3, key_len, rsc: rsc8, wrapped: crate::rsn::keywrap::aes_key_wrap(kek, &k)? })
}

/// The GTK of a GTK subelement, unwrapped with the KEK and cut to its Key Length.
pub fn unwrap_gtk(kek: &[u8], g: &FtGtk) -> Result<Zeroizing<Vec<u8>>> {
    let mut k = crate::rsn::keywrap::aes_key_unwrap(kek, &g.wrapped)?;
    if g.key_len as usize > k.len() || g.key_len == 0 {
        return Err(Error::Malformed("GTK subelement Key Length beyond the wrapped key"));
    }
    k.truncate(g.key_len as usize);
    Ok(k)
}

/// The IGTK subelement (13.8.5): `ipn` the IGTK's packet number.
pub fn wrap_igtk(kek: &[u8], key_id: u16, igtk: &[u8], ipn: u64) -> Result<FtIgtk> {
    if !igtk.len().is_multiple_of(8) || igtk.len() < 16 {
        return Err(Error::BadKeyLength);
    }
    let mut ipn6 = [0u8; 6];
    ipn6.copy_from_slice(&ipn.to_le_bytes()[..6]);
    Ok(FtIgtk { key_id, ipn: ipn6, key_len: igtk.len() as u8, wrapped: crate::rsn::keywrap::aes_key_wrap(kek, igtk)? })
}

/// The IGTK of an IGTK subelement.
pub fn unwrap_igtk(kek: &[u8], g: &FtIgtk) -> Result<Zeroizing<Vec<u8>>> {
    let k = crate::rsn::keywrap::aes_key_unwrap(kek, &g.wrapped)?;
    if k.len() != g.key_len as usize {
        return Err(Error::Malformed("IGTK subelement Key Length differs from the wrapped key"));
    }
    Ok(k)
}

/// The GTK subelement of an FTE (9.4.2.47): Key ID (Key Info b0-b1), Key Length, RSC and
/// the GTK wrapped with the KEK (AES Key Wrap, padded as in 12.7.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FtGtk {
    pub key_id: u8,
    pub key_len: u8,
    pub rsc: [u8; 8],
    pub wrapped: Vec<u8>,
}

/// A Fast BSS Transition element (9.4.2.47): MIC Control, MIC, ANonce, SNonce and the
/// subelements an observer needs (R0KH-ID, R1KH-ID, GTK).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Fte {
    /// Octet 2 of MIC Control: the number of elements the MIC covers.
    pub element_count: u8,
    /// MIC Control b0 (RSNXE Used, 9.4.2.47).
    pub rsnxe_used: bool,
    pub mic: Vec<u8>,
    pub anonce: [u8; 32],
    pub snonce: [u8; 32],
    pub r0kh_id: Option<Vec<u8>>,
    pub r1kh_id: Option<[u8; 6]>,
    pub gtk: Option<FtGtk>,
    pub igtk: Option<FtIgtk>,
}

impl Fte {
    /// Parses an FTE body whose MIC field is `mic_len` octets (16; 24 with the SHA-384 AKMs,
    /// 9.4.2.47). Unknown subelements are skipped; a subelement that runs past the body,
    /// an R1KH-ID not 6 octets or an R0KH-ID not 1-48 octets is `Malformed`.
    pub fn parse(body: &[u8], mic_len: usize) -> Result<Fte> {
        let fixed = 2 + mic_len + 64;
        if body.len() < fixed {
            return Err(Error::Truncated);
        }
        let mut f = Fte { rsnxe_used: body[0] & 1 != 0, element_count: body[1], mic: body[2..2 + mic_len].to_vec(), ..Default::default() };
        f.anonce.copy_from_slice(&body[2 + mic_len..2 + mic_len + 32]);
        f.snonce.copy_from_slice(&body[2 + mic_len + 32..fixed]);
        let mut rest = &body[fixed..];
        while !rest.is_empty() {
            let (id, len) = match rest {
                [id, len, ..] => (*id, *len as usize),
                _ => return Err(Error::Malformed("FTE subelement header cut short")),
            };
            let data = rest.get(2..2 + len).ok_or(Error::Malformed("FTE subelement runs past the element"))?;
            match id {
                subelement::R1KH_ID => {
                    f.r1kh_id = Some(data.try_into().map_err(|_| Error::Malformed("R1KH-ID is not 6 octets"))?);
                }
                subelement::R0KH_ID => {
                    if data.is_empty() || data.len() > 48 {
                        return Err(Error::Malformed("R0KH-ID is not 1-48 octets"));
                    }
                    f.r0kh_id = Some(data.to_vec());
                }
                subelement::GTK => {
                    if data.len() < 11 + 24 {
                        return Err(Error::Malformed("FTE GTK subelement too short"));
                    }
                    let mut rsc = [0u8; 8];
                    rsc.copy_from_slice(&data[3..11]);
                    f.gtk = Some(FtGtk { key_id: data[0] & 3, key_len: data[2], rsc, wrapped: data[11..].to_vec() });
                }
                subelement::IGTK => {
                    if data.len() < 9 + 24 {
                        return Err(Error::Malformed("FTE IGTK subelement too short"));
                    }
                    let mut ipn = [0u8; 6];
                    ipn.copy_from_slice(&data[2..8]);
                    let key_id = u16::from_le_bytes([data[0], data[1]]);
                    f.igtk = Some(FtIgtk { key_id, ipn, key_len: data[8], wrapped: data[9..].to_vec() });
                }
                _ => {}
            }
            rest = &rest[2 + len..];
        }
        Ok(f)
    }

    /// The whole element, its MIC field `mic_len` octets, the subelements in hostapd's
    /// order (`wpa_write_ftie`): R1KH-ID, R0KH-ID, GTK, IGTK.
    pub fn emit(&self, mic_len: usize) -> Result<Vec<u8>> {
        let mut b = vec![self.rsnxe_used as u8, self.element_count];
        let mut mic = self.mic.clone();
        mic.resize(mic_len, 0);
        b.extend_from_slice(&mic);
        b.extend_from_slice(&self.anonce);
        b.extend_from_slice(&self.snonce);
        if let Some(r1) = self.r1kh_id {
            b.extend_from_slice(&[subelement::R1KH_ID, 6]);
            b.extend_from_slice(&r1);
        }
        if let Some(r0) = &self.r0kh_id {
            if r0.is_empty() || r0.len() > 48 {
                return Err(Error::Malformed("R0KH-ID is not 1-48 octets"));
            }
            b.extend_from_slice(&[subelement::R0KH_ID, r0.len() as u8]);
            b.extend_from_slice(r0);
        }
        if let Some(g) = &self.gtk {
            b.extend_from_slice(&[subelement::GTK, (11 + g.wrapped.len()) as u8]);
            b.extend_from_slice(&[g.key_id & 3, 0, g.key_len]);
            b.extend_from_slice(&g.rsc);
            b.extend_from_slice(&g.wrapped);
        }
        if let Some(g) = &self.igtk {
            b.extend_from_slice(&[subelement::IGTK, (9 + g.wrapped.len()) as u8]);
            b.extend_from_slice(&g.key_id.to_le_bytes());
            b.extend_from_slice(&g.ipn);
            b.push(g.key_len);
            b.extend_from_slice(&g.wrapped);
        }
        let mut e = Vec::with_capacity(2 + b.len());
        crate::wire::element::push(&mut e, crate::wire::element::id::FAST_BSS_TRANSITION, &b)?;
        Ok(e)
    }
}

/// The elements of an FT exchange (13.8), whole (ID and Length included) as they were
/// found: what the MICs cover and the checks read.
#[derive(Debug, Default, Clone, Copy)]
pub struct FtElements<'a> {
    pub rsne: Option<&'a [u8]>,
    pub mde: Option<&'a [u8]>,
    pub fte: Option<&'a [u8]>,
    pub rsnxe: Option<&'a [u8]>,
    /// Timeout Interval elements (reassociation deadline, key lifetime): the first.
    pub tie: Option<&'a [u8]>,
}

impl<'a> FtElements<'a> {
    /// The first of each from a sequence of elements; the walk stops at a truncated one.
    pub fn find(ies: &'a [u8]) -> FtElements<'a> {
        use crate::wire::element::{self, id};
        let mut f = FtElements::default();
        for e in element::elements(ies) {
            let Ok(e) = e else { break };
            let slot = match e.id {
                id::RSN => &mut f.rsne,
                id::MOBILITY_DOMAIN => &mut f.mde,
                id::FAST_BSS_TRANSITION => &mut f.fte,
                id::RSNX => &mut f.rsnxe,
                id::TIMEOUT_INTERVAL => &mut f.tie,
                _ => continue,
            };
            if slot.is_none() {
                *slot = Some(e.bytes);
            }
        }
        f
    }

    /// The MDE's MDID.
    pub fn mdid(&self) -> Option<[u8; 2]> {
        self.mde.and_then(|m| mdid_of(m.get(2..)?))
    }

    /// The FTE parsed with `akm`'s MIC length.
    pub fn fte(&self, akm: Akm) -> Result<Fte> {
        let e = self.fte.ok_or(Error::Malformed("no FTE"))?;
        Fte::parse(&e[2..], fte_mic_len(akm))
    }

    /// The first PMKID of the RSNE (PMKR0Name or PMKR1Name in FT exchanges).
    pub fn pmkid(&self) -> Option<[u8; 16]> {
        let r = crate::rsn::ie::RsnElementRepr::parse(self.rsne?).ok()?;
        r.pmkids.first().copied()
    }
}

/// MIC field length of the FTE (9.4.2.47): 24 octets with the SHA-384 AKMs, else 16.
pub fn fte_mic_len(akm: Akm) -> usize {
    if akm.kdf_hash() == KdfHash::Sha384 {
        24
    } else {
        16
    }
}

/// Writes `mic` into the MIC field of a whole FTE.
pub fn set_fte_mic(fte: &mut [u8], mic: &[u8]) -> Result<()> {
    let f = fte.get_mut(4..4 + mic.len()).ok_or(Error::Truncated)?;
    f.copy_from_slice(mic);
    Ok(())
}

/// `rsne` (a whole RSN element) with `pmkid` as its only PMKID (12.7.1.6: PMKR0Name in an
/// FT Authentication Request, PMKR1Name in the Reassociation and in the FT 4-way
/// handshake).
pub fn rsne_with_pmkid(rsne: &[u8], pmkid: [u8; 16]) -> Result<Vec<u8>> {
    let mut r = crate::rsn::ie::RsnElementRepr::parse(rsne)?;
    r.pmkids = vec![pmkid];
    r.to_bytes()
}

/// The MIC of an FTE in a (Re)Association Request (Transaction Sequence Number 5) or
/// Response (6), or an FT Confirm/Ack (13.8.4, 13.8.5; 12.7.1.7.5 for the KCK):
///
/// `MIC = AES-128-CMAC(KCK, STA-ADDR || BSSID || TSN || RSNE || MDE || FTE || [RSNXE])`
///
/// with the FTE's MIC field zero; HMAC-SHA-384 truncated to 24 octets when the KCK is 24
/// octets (the SHA-384 AKMs). The elements are whole (ID and Length included), as sent.
#[allow(clippy::too_many_arguments)]
pub fn fte_mic(
    kck: &[u8],
    sta: [u8; 6],
    bssid: [u8; 6],
    tsn: u8,
    rsne: &[u8],
    mde: &[u8],
    fte_zero_mic: &[u8],
    rsnxe: Option<&[u8]>,
) -> Result<Vec<u8>> {
    use hmac::Mac;
    let parts: [&[u8]; 7] = [&sta, &bssid, &[tsn], rsne, mde, fte_zero_mic, rsnxe.unwrap_or(&[])];
    match kck.len() {
        16 => {
            let mut m = <cmac::Cmac<aes::Aes128> as cmac::digest::KeyInit>::new_from_slice(kck).map_err(|_| Error::BadKeyLength)?;
            parts.iter().for_each(|p| m.update(p));
            Ok(m.finalize().into_bytes().to_vec())
        }
        24 => {
            let mut m = <hmac::Hmac<Sha384> as hmac::digest::KeyInit>::new_from_slice(kck).map_err(|_| Error::BadKeyLength)?;
            parts.iter().for_each(|p| m.update(p));
            Ok(m.finalize().into_bytes()[..24].to_vec())
        }
        _ => Err(Error::BadKeyLength),
    }
}
