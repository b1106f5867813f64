//! Building and checking the EAPOL-Key messages of the handshakes (12.7.6.2-12.7.6.5,
//! 12.7.7.2-12.7.7.3): Key Information per message, Key Data encryption per descriptor
//! version (12.7.2 j: RC4 for version 1, AES Key Wrap otherwise) and the MIC.
use super::Config;
use crate::error::{Error, Result};
use crate::rsn::akm::KeyDescriptorVersion;
use crate::rsn::eapol::{self, DescriptorType, EapolKey, EapolKeyRepr, KeyInfo};
use crate::rsn::{kde, keywrap};
use zeroize::Zeroizing;

/// The six messages, by their Key Information flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Msg {
    M1,
    M2,
    M3,
    M4,
    G1,
    G2,
}

impl Msg {
    /// Key Information flags (without the descriptor version) of each message.
    fn flags(self) -> u16 {
        use KeyInfo as K;
        match self {
            Msg::M1 => K::KEY_TYPE | K::KEY_ACK,
            Msg::M2 => K::KEY_TYPE | K::KEY_MIC,
            Msg::M3 => K::KEY_TYPE | K::INSTALL | K::KEY_ACK | K::KEY_MIC | K::SECURE | K::ENCRYPTED_KEY_DATA,
            Msg::M4 => K::KEY_TYPE | K::KEY_MIC | K::SECURE,
            Msg::G1 => K::KEY_ACK | K::KEY_MIC | K::SECURE | K::ENCRYPTED_KEY_DATA,
            Msg::G2 => K::KEY_MIC | K::SECURE,
        }
    }

    /// Classifies a received frame by its Key Information (Request/Error frames and
    /// unknown combinations are `None`).
    pub(crate) fn of(ki: KeyInfo) -> Option<Msg> {
        if ki.request() || ki.error() || ki.smk_message() {
            return None;
        }
        let f = ki.0 & !(KeyInfo::DESCRIPTOR_VERSION_MASK | KeyInfo::KEY_INDEX_MASK);
        // Classify on the flags that decide the message (WPA1 sets no Encrypted Key Data
        // bit in M3; Secure tells M4 from M2, and `parse` rechecks by the Key Data).
        let pairwise = f & KeyInfo::KEY_TYPE != 0;
        let ack = f & KeyInfo::KEY_ACK != 0;
        let mic = f & KeyInfo::KEY_MIC != 0;
        let install = f & KeyInfo::INSTALL != 0;
        Some(match (pairwise, ack, mic, install) {
            (true, true, false, false) => Msg::M1,
            (true, false, true, false) if f & KeyInfo::SECURE == 0 => Msg::M2,
            (true, true, true, true) => Msg::M3,
            (true, false, true, false) => Msg::M4,
            (false, true, true, false) => Msg::G1,
            (false, false, true, false) => Msg::G2,
            _ => return None,
        })
    }
}

pub(crate) fn kdv(cfg: &Config) -> KeyDescriptorVersion {
    cfg.akm.key_descriptor_version(cfg.pairwise)
}

pub(crate) fn mic_len(cfg: &Config) -> usize {
    eapol::mic_len(kdv(cfg), cfg.akm)
}

/// What goes into one message.
pub(crate) struct Fields<'a> {
    pub replay_counter: u64,
    pub nonce: [u8; 32],
    pub rsc: u64,
    /// Plaintext Key Data (encrypted here when the message says so).
    pub key_data: &'a [u8],
}

/// Builds message `m`; `kck` and `kek` are needed for every message but M1.
pub(crate) fn build(
    cfg: &Config,
    m: Msg,
    f: Fields<'_>,
    kck: Option<&[u8]>,
    kek: Option<&[u8]>,
    rng: &mut dyn rand_core::CryptoRngCore,
) -> Result<Vec<u8>> {
    let v = kdv(cfg);
    let ki = KeyInfo(m.flags()).with_descriptor_version(v);
    let mut r = EapolKeyRepr::new(DescriptorType::Rsn, ki, mic_len(cfg));
    // Key Length: the pairwise TK length in M1 and M3 (12.7.2 c), 0 elsewhere.
    if matches!(m, Msg::M1 | Msg::M3) {
        r.key_length = cfg.pairwise.key_len() as u16;
    }
    r.replay_counter = f.replay_counter;
    r.key_nonce = f.nonce;
    r.key_rsc = f.rsc;
    r.key_data = if ki.encrypted_key_data() {
        let kek = kek.ok_or(Error::Malformed("no KEK for encrypted Key Data"))?;
        encrypt_key_data(v, kek, f.key_data, &mut r.key_iv, rng)?
    } else {
        f.key_data.to_vec()
    };
    let mut buf = vec![0u8; r.buffer_len()];
    r.emit(&mut buf)?;
    if ki.key_mic() {
        let kck = kck.ok_or(Error::Malformed("no KCK for the MIC"))?;
        let mut view = EapolKey::new_checked(&mut buf[..], r.mic_len())?;
        view.write_mic(v, cfg.akm, kck)?;
    }
    Ok(buf)
}

fn encrypt_key_data(
    v: KeyDescriptorVersion,
    kek: &[u8],
    plain: &[u8],
    iv: &mut [u8; 16],
    rng: &mut dyn rand_core::CryptoRngCore,
) -> Result<Vec<u8>> {
    match v {
        KeyDescriptorVersion::HmacMd5Rc4 => {
            // RC4 keyed with EAPOL-Key IV || KEK; the IV is fresh per message.
            *iv = crate::rng::array::<16>(rng);
            let mut data = plain.to_vec();
            let kek16: &[u8; 16] = kek.try_into().map_err(|_| Error::BadKeyLength)?;
            keywrap::rc4_key_data(kek16, iv, &mut data);
            Ok(data)
        }
        _ => {
            let mut padded = Zeroizing::new(plain.to_vec());
            kde::pad_for_key_wrap(&mut padded);
            keywrap::aes_key_wrap(kek, &padded)
        }
    }
}

/// Parses a received frame as an RSN EAPOL-Key frame of this link's AKM.
pub(crate) fn parse(cfg: &Config, frame: &[u8]) -> Result<(EapolKeyRepr, Msg)> {
    let r = EapolKeyRepr::parse(frame, mic_len(cfg))?;
    if r.descriptor_type != DescriptorType::Rsn {
        return Err(Error::Malformed("not an RSN EAPOL-Key descriptor"));
    }
    if r.key_info.descriptor_version() != kdv(cfg).number() {
        return Err(Error::Malformed("Key Descriptor Version does not match the negotiated AKM and cipher"));
    }
    let mut m = Msg::of(r.key_info).ok_or(Error::Malformed("EAPOL-Key message of no known kind"))?;
    // M2 and M4 differ only in Secure and Key Data: an M2 always carries the RSNE.
    if m == Msg::M4 && !r.key_data.is_empty() {
        m = Msg::M2;
    }
    Ok((r, m))
}

/// Checks the MIC of a received frame.
pub(crate) fn verify(cfg: &Config, frame: &[u8], kck: &[u8]) -> Result<()> {
    let view = EapolKey::new_checked(frame, mic_len(cfg))?;
    view.verify_mic(kdv(cfg), cfg.akm, kck)
}

/// Decrypts the Key Data of a received frame with the KEK.
pub(crate) fn decrypt_key_data(cfg: &Config, r: &EapolKeyRepr, kek: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    if !r.key_info.encrypted_key_data() {
        return Err(Error::Malformed("Key Data not encrypted"));
    }
    match kdv(cfg) {
        KeyDescriptorVersion::HmacMd5Rc4 => {
            let mut data = Zeroizing::new(r.key_data.clone());
            let kek16: &[u8; 16] = kek.try_into().map_err(|_| Error::BadKeyLength)?;
            keywrap::rc4_key_data(kek16, &r.key_iv, &mut data);
            Ok(data)
        }
        _ => keywrap::aes_key_unwrap(kek, &r.key_data),
    }
}
