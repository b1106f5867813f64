//! Building and checking the EAPOL-Key messages of the handshakes (12.7.6.2-12.7.6.5,
//! 12.7.7.2-12.7.7.3): Key Information per message, Key Data encryption per descriptor
//! version (12.7.2 j: RC4 for version 1, AES Key Wrap otherwise) and the MIC.
use super::Config;
use crate::error::{Error, Result};
use crate::rsn::akm::KeyDescriptorVersion;
use crate::rsn::eapol::{self, DescriptorType, EapolKey, EapolKeyRepr, KeyInfo};
use crate::rsn::{kde, keywrap};
use zeroize::Zeroizing;

/// The six EAPOL-Key messages of the 4-way handshake (12.7.6.2-12.7.6.5) and the group
/// key handshake (12.7.7.2-12.7.7.3). [`Msg::classify`] is how every receiver in wsec (the
/// handshake cores, the capture decryptor) tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Msg {
    M1,
    M2,
    M3,
    M4,
    G1,
    G2,
}

impl Msg {
    /// Key Information flags (without the descriptor version) of each RSN message.
    #[cfg(test)]
    fn flags(self) -> u16 {
        self.flags_for(false)
    }

    /// The flags for RSN (`wpa1 == false`) or for WPA1 (descriptor 254). WPA1 (Wi-Fi
    /// Alliance WPA v3.1; hostapd `__wpa_send_eapol`, wpa_supplicant `wpa.c`): message 3
    /// is Pairwise|Install|Ack|MIC with neither Secure nor Encrypted Key Data (it carries
    /// no GTK), message 4 Pairwise|MIC; group message 1 is Ack|MIC|Secure (no Install
    /// while a pairwise key is in use, hostapd `sm->Pair`) and its Key Data is encrypted
    /// without the Encrypted Key Data flag, which RSN introduced.
    fn flags_for(self, wpa1: bool) -> u16 {
        use KeyInfo as K;
        if wpa1 {
            match self {
                Msg::M3 => return K::KEY_TYPE | K::INSTALL | K::KEY_ACK | K::KEY_MIC,
                Msg::M4 => return K::KEY_TYPE | K::KEY_MIC,
                Msg::G1 => return K::KEY_ACK | K::KEY_MIC | K::SECURE,
                _ => {}
            }
        }
        match self {
            Msg::M1 => K::KEY_TYPE | K::KEY_ACK,
            Msg::M2 => K::KEY_TYPE | K::KEY_MIC,
            Msg::M3 => K::KEY_TYPE | K::INSTALL | K::KEY_ACK | K::KEY_MIC | K::SECURE | K::ENCRYPTED_KEY_DATA,
            Msg::M4 => K::KEY_TYPE | K::KEY_MIC | K::SECURE,
            Msg::G1 => K::KEY_ACK | K::KEY_MIC | K::SECURE | K::ENCRYPTED_KEY_DATA,
            Msg::G2 => K::KEY_MIC | K::SECURE,
        }
    }

    /// Classifies a received EAPOL-Key frame (RSN or WPA1 descriptor) by its Key
    /// Information and the length of its Key Data; `None` for Request, Error and SMK
    /// frames and for flag combinations no message has.
    ///
    /// Key Type, Key Ack, Key MIC and Install decide the message; Secure and Encrypted Key
    /// Data do not (WPA1's message 3 has neither). Messages 2 and 4 have the same four
    /// flags, and Secure does not tell them apart either (a PTK rekey's message 2 sets it,
    /// WPA1's message 4 does not): message 2 carries the STA's RSNE (or WPA element) as
    /// Key Data (12.7.6.3), message 4 none (12.7.6.5). hostapd's `wpa_receive` decides the
    /// same way.
    pub fn classify(ki: KeyInfo, key_data_len: usize) -> Option<Msg> {
        if ki.request() || ki.error() || ki.smk_message() {
            return None;
        }
        Some(match (ki.is_pairwise(), ki.key_ack(), ki.key_mic(), ki.install()) {
            (true, true, false, false) => Msg::M1,
            (true, false, true, false) if key_data_len > 0 => Msg::M2,
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
    /// WPA1 only: the Key Index (Key Information b4-b5) of group messages 1 and 2.
    pub key_index: u8,
}

/// Whether Key Data of message `m` is encrypted: RSN says so with the Encrypted Key Data
/// flag; WPA1's group message 1 always carries the GTK encrypted (RC4 or AES key wrap by
/// descriptor version) without the flag.
fn key_data_encrypted(cfg: &Config, m: Msg, ki: KeyInfo) -> bool {
    ki.encrypted_key_data() || (cfg.is_wpa1() && m == Msg::G1)
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
    let wpa1 = cfg.is_wpa1();
    let mut ki = KeyInfo(m.flags_for(wpa1)).with_descriptor_version(v);
    if wpa1 && matches!(m, Msg::G1 | Msg::G2) {
        ki = ki.with_key_index(f.key_index);
    }
    let dt = if wpa1 { DescriptorType::Wpa } else { DescriptorType::Rsn };
    let mut r = EapolKeyRepr::new(dt, ki, mic_len(cfg));
    // Key Length: the pairwise TK length in M1 and M3 (12.7.2 c), 0 elsewhere. WPA1: every
    // pairwise message carries the pairwise key length and both group messages the GTK's
    // (hostapd `__wpa_send_eapol`; wpa_supplicant copies the request's into its reply).
    if matches!(m, Msg::M1 | Msg::M3) || (wpa1 && matches!(m, Msg::M2 | Msg::M4)) {
        r.key_length = cfg.pairwise.key_len() as u16;
    } else if wpa1 {
        r.key_length = cfg.group.key_len() as u16;
    }
    r.replay_counter = f.replay_counter;
    r.key_nonce = f.nonce;
    r.key_rsc = f.rsc;
    r.key_data = if key_data_encrypted(cfg, m, ki) {
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

/// Parses a received frame as an EAPOL-Key frame of this link's AKM and descriptor type
/// (2 for RSN, 254 for WPA1: a link never accepts the other one).
pub(crate) fn parse(cfg: &Config, frame: &[u8]) -> Result<(EapolKeyRepr, Msg)> {
    let r = EapolKeyRepr::parse(frame, mic_len(cfg))?;
    let want = if cfg.is_wpa1() { DescriptorType::Wpa } else { DescriptorType::Rsn };
    if r.descriptor_type != want {
        return Err(Error::Malformed("EAPOL-Key descriptor type is not the link's (2 RSN, 254 WPA)"));
    }
    if r.key_info.descriptor_version() != kdv(cfg).number() {
        return Err(Error::Malformed("Key Descriptor Version does not match the negotiated AKM and cipher"));
    }
    let m = Msg::classify(r.key_info, r.key_data.len()).ok_or(Error::Malformed("EAPOL-Key message of no known kind"))?;
    Ok((r, m))
}

/// Checks the MIC of a received frame.
pub(crate) fn verify(cfg: &Config, frame: &[u8], kck: &[u8]) -> Result<()> {
    let view = EapolKey::new_checked(frame, mic_len(cfg))?;
    view.verify_mic(kdv(cfg), cfg.akm, kck)
}

/// Decrypts the Key Data of a received frame with the KEK.
pub(crate) fn decrypt_key_data(cfg: &Config, m: Msg, r: &EapolKeyRepr, kek: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    if !key_data_encrypted(cfg, m, r.key_info) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Key Information and Key Data Length of real handshakes, as tshark dissects them
    /// (`wlan_rsna_eapol.keydes.key_info`, `.data_len`, `.msgnr`).
    #[test]
    fn classify_captured_messages() {
        let cases: [(&str, u16, usize, Msg); 15] = [
            // aircrack-ng wpa-psk-linksys.cap (WPA1, descriptor 254), frames 18, 19, 22, 23, 25, 211.
            ("wpa1 m1", 0x0089, 0, Msg::M1),
            ("wpa1 m2", 0x0109, 26, Msg::M2),
            ("wpa1 m3: no Secure, no Encrypted Key Data", 0x01c9, 24, Msg::M3),
            ("wpa1 m4: no Secure, no Key Data", 0x0109, 0, Msg::M4),
            ("wpa1 group 1/2, Key Index 1", 0x0391, 32, Msg::G1),
            ("wpa1 group 2/2", 0x0301, 0, Msg::G2),
            // aircrack-ng wpa2-psk-linksys.cap, frames 50, 51, 53, 54 and 90.
            ("rsn m1", 0x008a, 22, Msg::M1),
            ("rsn m2", 0x010a, 22, Msg::M2),
            ("rsn m3", 0x13ca, 56, Msg::M3),
            ("rsn m4", 0x030a, 0, Msg::M4),
            ("rsn m2 of a rekey: Secure set, as in m4", 0x030a, 22, Msg::M2),
            // aircrack-ng n-02.cap (PSK-SHA256, descriptor version 3), frames 126-134.
            ("v3 m1", 0x008b, 0, Msg::M1),
            ("v3 m2", 0x010b, 22, Msg::M2),
            ("v3 m3", 0x13cb, 88, Msg::M3),
            ("v3 m4", 0x030b, 0, Msg::M4),
        ];
        for (what, ki, kd, m) in cases {
            assert_eq!(Msg::classify(KeyInfo(ki), kd), Some(m), "{what}");
        }
        // What build() sends classifies as itself (with Key Data where the message has it).
        for m in [Msg::M1, Msg::M2, Msg::M3, Msg::M4, Msg::G1, Msg::G2] {
            let kd = if matches!(m, Msg::M2 | Msg::M3 | Msg::G1) { 22 } else { 0 };
            assert_eq!(Msg::classify(KeyInfo(m.flags() | 2), kd), Some(m), "{m:?}");
        }
        // Request and Error frames (12.7.8 EAPOL-Key requests, MIC failure reports), SMK
        // messages and flag sets no message has are none of the six.
        for ki in [0x0b0a, 0x0f0a, 0x0902, 0x210a, 0x0082, 0x00ca, 0x014a, 0x018a, 0x004a, 0x0002] {
            assert_eq!(Msg::classify(KeyInfo(ki), 22), None, "{ki:#06x}");
        }
    }
}
