//! EAPOL-Key frames: the EAPOL header of IEEE 802.1X-2010 11.3 and the EAPOL-Key frame of
//! IEEE 802.11-2020 12.7.2 (Figure 12-32), with the EAPOL-Key MIC of 12.7.3 (Table 12-11).
//!
//! ```text
//! EAPOL header (4)       Protocol Version (1) | Packet Type (1) = 3 | Packet Body Length (2, BE)
//! EAPOL-Key body         Descriptor Type (1) | Key Information (2, BE) | Key Length (2, BE)
//!                        Key Replay Counter (8, BE) | Key Nonce (32) | EAPOL-Key IV (16)
//!                        Key RSC (8) | Reserved (8) | Key MIC (16 or 24)
//!                        Key Data Length (2, BE) | Key Data (Key Data Length)
//! ```
//!
//! The Key MIC field has no length of its own: it is the MIC length of the negotiated AKM
//! ([`Akm::mic_len`], 16 or 24 octets), so every parser here takes it as a parameter.
//!
//! [`EapolKey`] is a zero-copy view (with [`EapolKey::new_checked`]); [`EapolKeyRepr`] is the
//! parsed form with `parse`/`emit`. A buffer may hold octets after the EAPOL body (link-layer
//! padding of short Ethernet frames, as real captures have): they are accepted and never
//! read. [`compute_mic`], [`verify_mic`] and [`write_mic`] implement the MIC.
use crate::error::{Error, Result};
use crate::rsn::akm::{Akm, KeyDescriptorVersion};
use hmac::{Hmac, Mac};
use subtle::ConstantTimeEq;

/// Length of the EAPOL header (IEEE 802.1X-2010 11.3.1).
pub const EAPOL_HEADER_LEN: usize = 4;
/// EAPOL Packet Type of an EAPOL-Key frame (IEEE 802.1X-2010 Table 11-3).
pub const PACKET_TYPE_EAPOL_KEY: u8 = 3;
/// Octets of the EAPOL-Key body before the Key MIC field (Descriptor Type .. Reserved).
pub const KEY_FIXED_LEN: usize = 77;
/// Length of the Key Nonce field.
pub const NONCE_LEN: usize = 32;
/// Length of the Key Data Length field.
pub const KEY_DATA_LENGTH_LEN: usize = 2;

/// Byte offsets from the start of the EAPOL frame (the Protocol Version octet).
pub mod field {
    pub type Field = core::ops::Range<usize>;
    pub const PROTOCOL_VERSION: usize = 0;
    pub const PACKET_TYPE: usize = 1;
    pub const PACKET_BODY_LENGTH: Field = 2..4;
    pub const DESCRIPTOR_TYPE: usize = 4;
    pub const KEY_INFORMATION: Field = 5..7;
    pub const KEY_LENGTH: Field = 7..9;
    pub const KEY_REPLAY_COUNTER: Field = 9..17;
    pub const KEY_NONCE: Field = 17..49;
    pub const EAPOL_KEY_IV: Field = 49..65;
    pub const KEY_RSC: Field = 65..73;
    pub const RESERVED: Field = 73..81;
    /// First octet of the Key MIC field.
    pub const KEY_MIC_START: usize = 81;

    /// The Key MIC field for a MIC of `mic_len` octets.
    pub const fn key_mic(mic_len: usize) -> Field {
        KEY_MIC_START..KEY_MIC_START + mic_len
    }
    /// The Key Data Length field.
    pub const fn key_data_length(mic_len: usize) -> Field {
        KEY_MIC_START + mic_len..KEY_MIC_START + mic_len + 2
    }
    /// First octet of the Key Data field.
    pub const fn key_data_start(mic_len: usize) -> usize {
        KEY_MIC_START + mic_len + 2
    }
}

/// EAPOL-Key Descriptor Type (IEEE 802.1X-2010 Table 11-5; 802.11-2020 12.7.2 a).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DescriptorType {
    /// 2: IEEE 802.11 key descriptor (RSN).
    Rsn,
    /// 254: the pre-RSNA WPA key descriptor (WPA1).
    Wpa,
}

impl DescriptorType {
    pub fn number(self) -> u8 {
        match self {
            DescriptorType::Rsn => 2,
            DescriptorType::Wpa => 254,
        }
    }

    /// Error::Unsupported for any other value (1 = the RC4 descriptor of 802.1X-2004, ...).
    pub fn from_number(n: u8) -> Result<DescriptorType> {
        match n {
            2 => Ok(DescriptorType::Rsn),
            254 => Ok(DescriptorType::Wpa),
            _ => Err(Error::Unsupported("EAPOL-Key descriptor type other than 2 (RSN) or 254 (WPA)")),
        }
    }
}

/// The Key Descriptor Version numbered `n` (Key Information b0-b2).
pub fn key_descriptor_version_from_number(n: u8) -> Result<KeyDescriptorVersion> {
    match n {
        0 => Ok(KeyDescriptorVersion::AkmDefined),
        1 => Ok(KeyDescriptorVersion::HmacMd5Rc4),
        2 => Ok(KeyDescriptorVersion::HmacSha1Aes),
        3 => Ok(KeyDescriptorVersion::AesCmacAes),
        _ => Err(Error::Unsupported("Key Descriptor Version above 3")),
    }
}

/// Key Information field, 12.7.2 b (Figure 12-33), big-endian on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct KeyInfo(pub u16);

impl KeyInfo {
    /// b0-b2: Key Descriptor Version.
    pub const DESCRIPTOR_VERSION_MASK: u16 = 0x0007;
    /// b3: Key Type, 1 = Pairwise, 0 = Group.
    pub const KEY_TYPE: u16 = 1 << 3;
    /// b4-b5: reserved in RSN; the Key Index of WPA1 group key messages.
    pub const KEY_INDEX_MASK: u16 = 0x0030;
    /// b6: Install.
    pub const INSTALL: u16 = 1 << 6;
    /// b7: Key Ack.
    pub const KEY_ACK: u16 = 1 << 7;
    /// b8: Key MIC.
    pub const KEY_MIC: u16 = 1 << 8;
    /// b9: Secure.
    pub const SECURE: u16 = 1 << 9;
    /// b10: Error.
    pub const ERROR: u16 = 1 << 10;
    /// b11: Request.
    pub const REQUEST: u16 = 1 << 11;
    /// b12: Encrypted Key Data.
    pub const ENCRYPTED_KEY_DATA: u16 = 1 << 12;
    /// b13: SMK Message.
    pub const SMK_MESSAGE: u16 = 1 << 13;

    fn flag(self, bit: u16) -> bool {
        self.0 & bit != 0
    }
    /// The Key Descriptor Version number (b0-b2), 0-7.
    pub fn descriptor_version(self) -> u8 {
        (self.0 & Self::DESCRIPTOR_VERSION_MASK) as u8
    }
    /// The Key Descriptor Version; Error::Unsupported for 4-7.
    pub fn key_descriptor_version(self) -> Result<KeyDescriptorVersion> {
        key_descriptor_version_from_number(self.descriptor_version())
    }
    /// Key Type (b3): true for a pairwise key, false for a group key.
    pub fn key_type(self) -> bool {
        self.flag(Self::KEY_TYPE)
    }
    /// Same as [`KeyInfo::key_type`].
    pub fn is_pairwise(self) -> bool {
        self.key_type()
    }
    /// b4-b5, the WPA1 Key Index (reserved in RSN).
    pub fn key_index(self) -> u8 {
        ((self.0 & Self::KEY_INDEX_MASK) >> 4) as u8
    }
    pub fn install(self) -> bool {
        self.flag(Self::INSTALL)
    }
    pub fn key_ack(self) -> bool {
        self.flag(Self::KEY_ACK)
    }
    pub fn key_mic(self) -> bool {
        self.flag(Self::KEY_MIC)
    }
    pub fn secure(self) -> bool {
        self.flag(Self::SECURE)
    }
    pub fn error(self) -> bool {
        self.flag(Self::ERROR)
    }
    pub fn request(self) -> bool {
        self.flag(Self::REQUEST)
    }
    pub fn encrypted_key_data(self) -> bool {
        self.flag(Self::ENCRYPTED_KEY_DATA)
    }
    pub fn smk_message(self) -> bool {
        self.flag(Self::SMK_MESSAGE)
    }
    /// Sets or clears `bit` (one of the constants above).
    pub fn set(&mut self, bit: u16, on: bool) {
        if on {
            self.0 |= bit
        } else {
            self.0 &= !bit
        }
    }
    /// `self` with `bit` set or cleared.
    pub fn with(mut self, bit: u16, on: bool) -> KeyInfo {
        self.set(bit, on);
        self
    }
    /// `self` with the Key Descriptor Version replaced.
    pub fn with_descriptor_version(self, v: KeyDescriptorVersion) -> KeyInfo {
        KeyInfo((self.0 & !Self::DESCRIPTOR_VERSION_MASK) | v.number() as u16)
    }
    /// `self` with the WPA1 Key Index (b4-b5) replaced (`index & 3`).
    pub fn with_key_index(self, index: u8) -> KeyInfo {
        KeyInfo((self.0 & !Self::KEY_INDEX_MASK) | (((index & 3) as u16) << 4))
    }
}

/// 16, 24, or 32 (OWE with group 21, hostapd `wpa_mic_len`).
fn check_mic_len(mic_len: usize) -> Result<()> {
    if mic_len == 16 || mic_len == 24 || mic_len == 32 {
        Ok(())
    } else {
        Err(Error::Unsupported("EAPOL-Key MIC length other than 16, 24 or 32"))
    }
}

fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}

/// Zero-copy view of an EAPOL-Key frame, from the EAPOL Protocol Version octet on.
#[derive(Debug, Clone)]
pub struct EapolKey<T: AsRef<[u8]>> {
    buffer: T,
    mic_len: usize,
}

impl<T: AsRef<[u8]>> EapolKey<T> {
    /// Wraps a buffer without checking it; the accessors may panic on a buffer that would
    /// fail [`EapolKey::check_len`]. Use [`EapolKey::new_checked`] on wire data.
    pub fn new_unchecked(buffer: T, mic_len: usize) -> EapolKey<T> {
        EapolKey { buffer, mic_len }
    }

    /// Wraps a buffer, checking everything the accessors rely on (see [`EapolKey::check_len`]).
    pub fn new_checked(buffer: T, mic_len: usize) -> Result<EapolKey<T>> {
        let v = EapolKey::new_unchecked(buffer, mic_len);
        v.check_len()?;
        Ok(v)
    }

    /// Checks, in this order:
    /// - `mic_len` is 16, 24 or 32 (else Error::Unsupported);
    /// - the EAPOL header is present (Truncated) and its Packet Type is EAPOL-Key
    ///   (Unsupported);
    /// - the buffer holds the whole Packet Body Length (Truncated; more is allowed: padding);
    /// - the body holds every fixed field and the Key Data Length (Truncated);
    /// - the Descriptor Type is 2 or 254 (Unsupported);
    /// - Key Data Length fits in the body (Oversize) and fills it exactly (Malformed).
    pub fn check_len(&self) -> Result<()> {
        check_mic_len(self.mic_len)?;
        let d = self.buffer.as_ref();
        if d.len() < EAPOL_HEADER_LEN {
            return Err(Error::Truncated);
        }
        if d[field::PACKET_TYPE] != PACKET_TYPE_EAPOL_KEY {
            return Err(Error::Unsupported("EAPOL packet type other than EAPOL-Key"));
        }
        let body_len = be16(&d[field::PACKET_BODY_LENGTH]) as usize;
        if d.len() < EAPOL_HEADER_LEN + body_len {
            return Err(Error::Truncated);
        }
        let min = KEY_FIXED_LEN + self.mic_len + KEY_DATA_LENGTH_LEN;
        if body_len < min {
            return Err(Error::Truncated);
        }
        DescriptorType::from_number(d[field::DESCRIPTOR_TYPE])?;
        let kdl = be16(&d[field::key_data_length(self.mic_len)]) as usize;
        if min + kdl > body_len {
            return Err(Error::Oversize);
        }
        if min + kdl < body_len {
            return Err(Error::Malformed("EAPOL Packet Body Length exceeds the Key Data"));
        }
        Ok(())
    }

    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The MIC length this view was checked with.
    pub fn mic_len(&self) -> usize {
        self.mic_len
    }

    /// The whole buffer, padding included.
    pub fn as_bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// The EAPOL frame: header and Packet Body Length octets of body, without any padding.
    /// This is what the Key MIC covers.
    pub fn frame(&self) -> &[u8] {
        &self.buffer.as_ref()[..self.frame_len()]
    }

    /// EAPOL header plus Packet Body Length.
    pub fn frame_len(&self) -> usize {
        EAPOL_HEADER_LEN + self.body_len() as usize
    }

    /// Octets after the EAPOL body.
    pub fn padding(&self) -> &[u8] {
        &self.buffer.as_ref()[self.frame_len()..]
    }

    /// EAPOL Protocol Version (1: 802.1X-2001, 2: -2004, 3: -2010).
    pub fn protocol_version(&self) -> u8 {
        self.buffer.as_ref()[field::PROTOCOL_VERSION]
    }

    pub fn packet_type(&self) -> u8 {
        self.buffer.as_ref()[field::PACKET_TYPE]
    }

    /// Packet Body Length.
    pub fn body_len(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::PACKET_BODY_LENGTH])
    }

    pub fn descriptor_type(&self) -> DescriptorType {
        // check_len has validated it; WPA is only the fallback of an unchecked view.
        DescriptorType::from_number(self.buffer.as_ref()[field::DESCRIPTOR_TYPE]).unwrap_or(DescriptorType::Wpa)
    }

    pub fn key_info(&self) -> KeyInfo {
        KeyInfo(be16(&self.buffer.as_ref()[field::KEY_INFORMATION]))
    }

    /// Key Length: length of the pairwise temporal key (msg 1/3) or 0.
    pub fn key_length(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::KEY_LENGTH])
    }

    /// Key Replay Counter, a big-endian 64-bit counter.
    pub fn replay_counter(&self) -> u64 {
        let mut b = [0u8; 8];
        b.copy_from_slice(&self.buffer.as_ref()[field::KEY_REPLAY_COUNTER]);
        u64::from_be_bytes(b)
    }

    pub fn key_nonce(&self) -> &[u8] {
        &self.buffer.as_ref()[field::KEY_NONCE]
    }

    pub fn key_iv(&self) -> &[u8] {
        &self.buffer.as_ref()[field::EAPOL_KEY_IV]
    }

    /// Key RSC octets as sent: PN0/TSC0 first.
    pub fn key_rsc_bytes(&self) -> &[u8] {
        &self.buffer.as_ref()[field::KEY_RSC]
    }

    /// Key RSC as a number (little-endian: the first octet is PN0/TSC0).
    pub fn key_rsc(&self) -> u64 {
        let mut b = [0u8; 8];
        b.copy_from_slice(self.key_rsc_bytes());
        u64::from_le_bytes(b)
    }

    pub fn reserved(&self) -> &[u8] {
        &self.buffer.as_ref()[field::RESERVED]
    }

    pub fn key_mic(&self) -> &[u8] {
        &self.buffer.as_ref()[field::key_mic(self.mic_len)]
    }

    pub fn key_data_len(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::key_data_length(self.mic_len)])
    }

    /// Key Data (still encrypted when Encrypted Key Data is set).
    pub fn key_data(&self) -> &[u8] {
        let s = field::key_data_start(self.mic_len);
        &self.buffer.as_ref()[s..s + self.key_data_len() as usize]
    }

    /// Checks the Key MIC (see [`verify_mic`]).
    pub fn verify_mic(&self, kdv: KeyDescriptorVersion, akm: Akm, kck: &[u8]) -> Result<()> {
        if mic_len(kdv, akm) != self.mic_len {
            return Err(Error::Malformed("MIC length of the view differs from the AKM's"));
        }
        verify_frame_mic(kdv, akm, kck, self.frame(), self.mic_len)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EapolKey<T> {
    pub fn key_mic_mut(&mut self) -> &mut [u8] {
        let r = field::key_mic(self.mic_len);
        &mut self.buffer.as_mut()[r]
    }

    /// Writes the Key MIC field; `mic` must be `mic_len` octets (else Error::Malformed).
    pub fn set_key_mic(&mut self, mic: &[u8]) -> Result<()> {
        if mic.len() != self.mic_len {
            return Err(Error::Malformed("Key MIC of the wrong length"));
        }
        self.key_mic_mut().copy_from_slice(mic);
        Ok(())
    }

    /// Key Data, for in-place decryption by the caller.
    pub fn key_data_mut(&mut self) -> &mut [u8] {
        let s = field::key_data_start(self.mic_len);
        let n = self.key_data_len() as usize;
        &mut self.buffer.as_mut()[s..s + n]
    }

    pub fn set_key_info(&mut self, ki: KeyInfo) {
        self.buffer.as_mut()[field::KEY_INFORMATION].copy_from_slice(&ki.0.to_be_bytes());
    }

    pub fn set_replay_counter(&mut self, rc: u64) {
        self.buffer.as_mut()[field::KEY_REPLAY_COUNTER].copy_from_slice(&rc.to_be_bytes());
    }

    /// Computes the MIC over the frame with a zeroed Key MIC field and writes it.
    pub fn write_mic(&mut self, kdv: KeyDescriptorVersion, akm: Akm, kck: &[u8]) -> Result<()> {
        let end = self.frame_len();
        write_mic_at(kdv, akm, kck, &mut self.buffer.as_mut()[..end], self.mic_len)
    }
}

/// An EAPOL-Key frame in parsed form. `key_mic.len()` is the MIC length (16 or 24) that
/// `emit` lays out; `key_data` is the Key Data as carried (encrypted or not).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EapolKeyRepr {
    /// EAPOL Protocol Version (1, 2 or 3; hostapd sends 2 by default).
    pub protocol_version: u8,
    pub descriptor_type: DescriptorType,
    pub key_info: KeyInfo,
    pub key_length: u16,
    pub replay_counter: u64,
    pub key_nonce: [u8; 32],
    pub key_iv: [u8; 16],
    /// Key RSC as a little-endian number (PN0/TSC0 in the first octet).
    pub key_rsc: u64,
    /// The Reserved field (octets 73-80), kept so that emit reproduces a frame exactly.
    pub reserved: [u8; 8],
    pub key_mic: Vec<u8>,
    pub key_data: Vec<u8>,
}

impl EapolKeyRepr {
    /// An all-zero frame (EAPOL version 2) with a `mic_len`-octet zero Key MIC.
    pub fn new(descriptor_type: DescriptorType, key_info: KeyInfo, mic_len: usize) -> EapolKeyRepr {
        EapolKeyRepr {
            protocol_version: 2,
            descriptor_type,
            key_info,
            key_length: 0,
            replay_counter: 0,
            key_nonce: [0; 32],
            key_iv: [0; 16],
            key_rsc: 0,
            reserved: [0; 8],
            key_mic: vec![0; mic_len],
            key_data: Vec::new(),
        }
    }

    /// Parses an EAPOL-Key frame whose Key MIC field is `mic_len` octets (see
    /// [`EapolKey::check_len`] for the errors).
    pub fn parse(buf: &[u8], mic_len: usize) -> Result<EapolKeyRepr> {
        Ok(EapolKeyRepr::from_view(&EapolKey::new_checked(buf, mic_len)?))
    }

    /// The parsed form of a checked view.
    pub fn from_view<T: AsRef<[u8]>>(v: &EapolKey<T>) -> EapolKeyRepr {
        let mut key_nonce = [0u8; 32];
        key_nonce.copy_from_slice(v.key_nonce());
        let mut key_iv = [0u8; 16];
        key_iv.copy_from_slice(v.key_iv());
        let mut reserved = [0u8; 8];
        reserved.copy_from_slice(v.reserved());
        EapolKeyRepr {
            protocol_version: v.protocol_version(),
            descriptor_type: v.descriptor_type(),
            key_info: v.key_info(),
            key_length: v.key_length(),
            replay_counter: v.replay_counter(),
            key_nonce,
            key_iv,
            key_rsc: v.key_rsc(),
            reserved,
            key_mic: v.key_mic().to_vec(),
            key_data: v.key_data().to_vec(),
        }
    }

    pub fn mic_len(&self) -> usize {
        self.key_mic.len()
    }

    /// Octets `emit` writes: EAPOL header, body, Key Data.
    pub fn buffer_len(&self) -> usize {
        EAPOL_HEADER_LEN + KEY_FIXED_LEN + self.key_mic.len() + KEY_DATA_LENGTH_LEN + self.key_data.len()
    }

    /// Writes the frame to the first [`EapolKeyRepr::buffer_len`] octets of `buf`.
    /// Errors: `buf` too short (Truncated), Key MIC not 16, 24 or 32 octets (Malformed), body
    /// over 65535 octets (Oversize).
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        if check_mic_len(self.key_mic.len()).is_err() {
            return Err(Error::Malformed("Key MIC of a length other than 16, 24 or 32"));
        }
        let len = self.buffer_len();
        let body_len = u16::try_from(len - EAPOL_HEADER_LEN).map_err(|_| Error::Oversize)?;
        if buf.len() < len {
            return Err(Error::Truncated);
        }
        let ml = self.key_mic.len();
        let b = &mut buf[..len];
        b[field::PROTOCOL_VERSION] = self.protocol_version;
        b[field::PACKET_TYPE] = PACKET_TYPE_EAPOL_KEY;
        b[field::PACKET_BODY_LENGTH].copy_from_slice(&body_len.to_be_bytes());
        b[field::DESCRIPTOR_TYPE] = self.descriptor_type.number();
        b[field::KEY_INFORMATION].copy_from_slice(&self.key_info.0.to_be_bytes());
        b[field::KEY_LENGTH].copy_from_slice(&self.key_length.to_be_bytes());
        b[field::KEY_REPLAY_COUNTER].copy_from_slice(&self.replay_counter.to_be_bytes());
        b[field::KEY_NONCE].copy_from_slice(&self.key_nonce);
        b[field::EAPOL_KEY_IV].copy_from_slice(&self.key_iv);
        b[field::KEY_RSC].copy_from_slice(&self.key_rsc.to_le_bytes());
        b[field::RESERVED].copy_from_slice(&self.reserved);
        b[field::key_mic(ml)].copy_from_slice(&self.key_mic);
        // key_data.len() <= body_len <= 65535
        b[field::key_data_length(ml)].copy_from_slice(&(self.key_data.len() as u16).to_be_bytes());
        b[field::key_data_start(ml)..].copy_from_slice(&self.key_data);
        Ok(())
    }

    /// The emitted frame as a new vector.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()];
        self.emit(&mut v)?;
        Ok(v)
    }

    /// Emits the frame with its Key MIC computed under `kck` (the `key_mic` field of `self`
    /// only fixes the MIC length, which must agree with `kdv`/`akm`).
    pub fn to_bytes_with_mic(&self, kdv: KeyDescriptorVersion, akm: Akm, kck: &[u8]) -> Result<Vec<u8>> {
        let mut v = self.to_bytes()?;
        write_mic(kdv, akm, kck, &mut v)?;
        Ok(v)
    }
}

/// Length of the EAPOL-Key MIC for a Key Descriptor Version and AKM (12.7.3, Table 12-11):
/// 16 octets for versions 1-3, the AKM's MIC length for AKM-defined (0).
pub fn mic_len(kdv: KeyDescriptorVersion, akm: Akm) -> usize {
    match kdv {
        KeyDescriptorVersion::AkmDefined => akm.mic_len(),
        _ => 16,
    }
}

fn hmac_trunc<M: Mac + hmac::digest::KeyInit>(kck: &[u8], frame: &[u8], n: usize) -> Result<Vec<u8>> {
    let mut m = <M as hmac::digest::KeyInit>::new_from_slice(kck).map_err(|_| Error::BadKeyLength)?;
    m.update(frame);
    let out = m.finalize().into_bytes();
    Ok(out[..n].to_vec())
}

fn aes_cmac(kck: &[u8], frame: &[u8]) -> Result<Vec<u8>> {
    hmac_trunc::<cmac::Cmac<aes::Aes128>>(kck, frame, 16)
}

/// Computes the EAPOL-Key MIC (12.7.3, Table 12-11) over `eapol_frame_with_zero_mic`, the
/// EAPOL frame from the Protocol Version octet to the end of the body with the Key MIC
/// field set to zero:
///
/// | Key Descriptor Version | AKM | MIC |
/// |---|---|---|
/// | 1 | any | HMAC-MD5 (16) |
/// | 2 | any | HMAC-SHA1-128 (first 16 of 20) |
/// | 3 | any | AES-128-CMAC (16) |
/// | 0 (AKM-defined) | SAE (8), FT-SAE (9) | AES-128-CMAC (16) |
/// | 0 | Suite B (11), OWE (18, group 19), SAE-EXT-KEY (24, group 19) | HMAC-SHA256-128 |
/// | 0 | Suite B 192 (12), FT-802.1X-SHA384 (13), OWE (group 20) | HMAC-SHA384-192 |
/// | 0 | OWE (group 21) | HMAC-SHA512-256 |
///
/// The SAE rows follow Table 12-11 and hostap's `wpa_eapol_key_mic()`. The KCK must be
/// 16 octets (24 for the SHA-384 AKMs): else Error::BadKeyLength. An AKM-defined version
/// with an AKM that names a version of its own (PSK, 802.1X, FT-PSK, ...) is
/// Error::Unsupported.
pub fn compute_mic(kdv: KeyDescriptorVersion, akm: Akm, kck: &[u8], eapol_frame_with_zero_mic: &[u8]) -> Result<Vec<u8>> {
    let frame = eapol_frame_with_zero_mic;
    let want_kck = match kdv {
        KeyDescriptorVersion::AkmDefined => akm.kck_len(),
        _ => 16,
    };
    if kck.len() != want_kck {
        return Err(Error::BadKeyLength);
    }
    match kdv {
        KeyDescriptorVersion::HmacMd5Rc4 => hmac_trunc::<Hmac<md5::Md5>>(kck, frame, 16),
        KeyDescriptorVersion::HmacSha1Aes => hmac_trunc::<Hmac<sha1::Sha1>>(kck, frame, 16),
        KeyDescriptorVersion::AesCmacAes => aes_cmac(kck, frame),
        KeyDescriptorVersion::AkmDefined => match akm {
            Akm::Sae | Akm::FtSae => aes_cmac(kck, frame),
            Akm::SuiteB | Akm::Owe | Akm::SaeExtKey => hmac_trunc::<Hmac<sha2::Sha256>>(kck, frame, 16),
            Akm::SuiteB192 | Akm::FtIeee8021xSha384 | Akm::OweSha384 => hmac_trunc::<Hmac<sha2::Sha384>>(kck, frame, 24),
            // hostapd wpa_eapol_key_mic, OWE with a 32-octet KCK (group 21).
            Akm::OweSha512 => hmac_trunc::<Hmac<sha2::Sha512>>(kck, frame, 32),
            Akm::Ieee8021x | Akm::Psk | Akm::FtIeee8021x | Akm::FtPsk | Akm::Ieee8021xSha256 | Akm::PskSha256 => {
                Err(Error::Unsupported("AKM-defined EAPOL-Key MIC for an AKM that defines none"))
            }
        },
    }
}

fn verify_frame_mic(kdv: KeyDescriptorVersion, akm: Akm, kck: &[u8], frame: &[u8], ml: usize) -> Result<()> {
    let r = field::key_mic(ml);
    let mut copy = frame.to_vec();
    copy[r.clone()].fill(0);
    let want = compute_mic(kdv, akm, kck, &copy)?;
    if bool::from(want.ct_eq(&frame[r])) {
        Ok(())
    } else {
        Err(Error::MicFailure)
    }
}

fn write_mic_at(kdv: KeyDescriptorVersion, akm: Akm, kck: &[u8], frame: &mut [u8], ml: usize) -> Result<()> {
    let r = field::key_mic(ml);
    frame[r.clone()].fill(0);
    let mic = compute_mic(kdv, akm, kck, frame)?;
    frame[r].copy_from_slice(&mic);
    Ok(())
}

/// Checks the Key MIC of the EAPOL-Key frame `eapol_frame` (octets after the body, i.e.
/// padding, are allowed and not covered). The frame is parsed with the MIC length of
/// `kdv`/`akm` ([`mic_len`]); the MIC is recomputed over a copy with the Key MIC field
/// zeroed and compared in constant time. Error::MicFailure when it differs; parse errors
/// and Error::BadKeyLength as for [`EapolKey::new_checked`] and [`compute_mic`]. It does
/// not look at the Key MIC bit or the frame's own Key Descriptor Version: the caller
/// checks those against what was negotiated.
pub fn verify_mic(kdv: KeyDescriptorVersion, akm: Akm, kck: &[u8], eapol_frame: &[u8]) -> Result<()> {
    let ml = mic_len(kdv, akm);
    let v = EapolKey::new_checked(eapol_frame, ml)?;
    verify_frame_mic(kdv, akm, kck, v.frame(), ml)
}

/// Computes the Key MIC of the EAPOL-Key frame in `eapol_frame` (MIC length from
/// `kdv`/`akm`) and writes it into the Key MIC field.
pub fn write_mic(kdv: KeyDescriptorVersion, akm: Akm, kck: &[u8], eapol_frame: &mut [u8]) -> Result<()> {
    let ml = mic_len(kdv, akm);
    let end = EapolKey::new_checked(&*eapol_frame, ml)?.frame_len();
    write_mic_at(kdv, akm, kck, &mut eapol_frame[..end], ml)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame() -> Vec<u8> {
        let mut r = EapolKeyRepr::new(DescriptorType::Rsn, KeyInfo(0x008a), 16);
        r.replay_counter = 7;
        r.key_data = vec![0xdd, 0x00];
        r.to_bytes().unwrap()
    }

    #[test]
    fn layout_and_errors() {
        let f = frame();
        assert_eq!(f.len(), 4 + 95 + 2);
        let v = EapolKey::new_checked(&f[..], 16).unwrap();
        assert_eq!(v.replay_counter(), 7);
        assert!(v.key_info().key_ack() && v.key_info().key_type());
        assert_eq!(v.key_info().descriptor_version(), 2);
        assert_eq!(v.key_data(), &[0xdd, 0]);
        assert_eq!(EapolKey::new_checked(&f[..], 24).unwrap_err(), Error::Truncated);
        assert!(EapolKey::new_checked(&f[..], 20).is_err());
        let mut padded = f.clone();
        padded.extend([0u8; 7]);
        let v = EapolKey::new_checked(&padded[..], 16).unwrap();
        assert_eq!(v.frame(), &f[..]);
        assert_eq!(v.padding().len(), 7);
        let mut bad = f.clone();
        bad[4] = 1;
        assert!(matches!(EapolKey::new_checked(&bad[..], 16), Err(Error::Unsupported(_))));
        let mut bad = f.clone();
        bad[98] = 3; // Key Data Length 3 > 2
        assert_eq!(EapolKey::new_checked(&bad[..], 16).unwrap_err(), Error::Oversize);
        bad[98] = 1;
        assert!(matches!(EapolKey::new_checked(&bad[..], 16), Err(Error::Malformed(_))));
        let mut bad = f.clone();
        bad[1] = 0;
        assert!(matches!(EapolKey::new_checked(&bad[..], 16), Err(Error::Unsupported(_))));
    }

    #[test]
    fn mic_write_verify() {
        let kck = [7u8; 16];
        for (kdv, akm) in [
            (KeyDescriptorVersion::HmacMd5Rc4, Akm::Psk),
            (KeyDescriptorVersion::HmacSha1Aes, Akm::Psk),
            (KeyDescriptorVersion::AesCmacAes, Akm::PskSha256),
            (KeyDescriptorVersion::AkmDefined, Akm::Sae),
            (KeyDescriptorVersion::AkmDefined, Akm::Owe),
        ] {
            let mut f = frame();
            write_mic(kdv, akm, &kck, &mut f).unwrap();
            verify_mic(kdv, akm, &kck, &f).unwrap();
            f[50] ^= 1;
            assert_eq!(verify_mic(kdv, akm, &kck, &f), Err(Error::MicFailure));
        }
        assert_eq!(compute_mic(KeyDescriptorVersion::HmacSha1Aes, Akm::Psk, &[0; 15], &frame()), Err(Error::BadKeyLength));
        assert!(compute_mic(KeyDescriptorVersion::AkmDefined, Akm::Psk, &kck, &frame()).is_err());
    }
}
