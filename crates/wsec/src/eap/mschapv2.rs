//! MS-CHAPv2 (RFC 2759) and EAP-MSCHAPv2 (EAP Type 26, draft-kamath-pppext-eap-mschapv2-02),
//! the peer side, with the MPPE master keys (RFC 3079 3.3, 3.4).
//!
//! - RFC 2759 8.1-8.7: NtPasswordHash (MD4 of the password in UTF-16LE), ChallengeHash
//!   (SHA-1 of PeerChallenge | AuthenticatorChallenge | UserName, 8 octets),
//!   ChallengeResponse (three DES encryptions of the challenge under the zero-padded hash),
//!   GenerateAuthenticatorResponse (the server's "S=" proof, which the peer checks).
//! - RFC 3079 3.4: GetMasterKey and GetAsymmetricStartKey, 16 octets each.
//!
//! EAP-MSCHAPv2 messages (Type-Data): OpCode (1) | MS-CHAPv2-ID (1) | MS-Length (2, BE) |
//! the rest. Challenge (1): Value-Size 16 | Challenge | Name; Response (2): Value-Size 49 |
//! Peer-Challenge (16) | Reserved (8, 0) | NT-Response (24) | Flags (1, 0) | Name; Success
//! (3): "S=<40 hex> M=<message>", answered by OpCode 3 alone; Failure (4): "E=<error> R=<retry>
//! C=<challenge> V=<version> M=<message>", answered by OpCode 4 alone. A Success whose
//! authenticator response does not verify fails the method (the server did not know the
//! password); a Failure fails it with the server's error code (691: authentication failure),
//! without a retry.
//!
//! The MSK is as hostapd and wpa_supplicant derive it (`eap_mschapv2.c`, getKey): the peer's
//! MasterSendKey | MasterReceiveKey (= the server's MS-MPPE-Recv-Key | MS-MPPE-Send-Key),
//! 32 octets; PEAP uses it as the inner session key of its crypto binding.
//!
//! The user name in ChallengeHash is the identity after a `DOMAIN\` prefix, as hostapd's
//! `mschapv2_remove_domain`; the Name field carries the whole identity. The password may be
//! given as its NtPasswordHash (wpa_supplicant's `password=hash:<32 hex>`).
use crate::error::{Error, Result};
use des::cipher::{BlockEncrypt, KeyInit};
use hmac::digest::Digest;
use zeroize::Zeroizing;

/// EAP-MSCHAPv2 OpCodes.
pub const OP_CHALLENGE: u8 = 1;
pub const OP_RESPONSE: u8 = 2;
pub const OP_SUCCESS: u8 = 3;
pub const OP_FAILURE: u8 = 4;

/// A password for MS-CHAPv2: the text, or its NtPasswordHash.
#[derive(Clone)]
pub enum Password {
    Clear(Zeroizing<Vec<u8>>),
    NtHash(Zeroizing<[u8; 16]>),
}

impl core::fmt::Debug for Password {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Password::Clear(_) => f.write_str("Password(<hidden>)"),
            Password::NtHash(_) => f.write_str("Password(hash: <hidden>)"),
        }
    }
}

impl Password {
    /// wpa_supplicant's `password` value without its quotes: `hash:<32 hex>` is the
    /// NtPasswordHash, anything else the password itself.
    pub fn from_config(v: &[u8]) -> Result<Password> {
        match v.strip_prefix(b"hash:") {
            Some(h) => {
                let s = core::str::from_utf8(h).map_err(|_| Error::Malformed("password hash: not hex"))?;
                let b = Zeroizing::new(crate::input::hex_decode(s).ok_or(Error::Malformed("password hash: not hex"))?);
                let a: [u8; 16] = b[..].try_into().map_err(|_| Error::Malformed("password hash: 32 hex digits (16 octets)"))?;
                Ok(Password::NtHash(Zeroizing::new(a)))
            }
            None => Ok(Password::Clear(Zeroizing::new(v.to_vec()))),
        }
    }

    /// The NtPasswordHash (RFC 2759 8.3).
    pub fn nt_hash(&self) -> Result<Zeroizing<[u8; 16]>> {
        match self {
            Password::Clear(p) => nt_password_hash(p),
            Password::NtHash(h) => Ok(h.clone()),
        }
    }

    /// The text (PAP needs it; a hash will not do).
    pub fn clear(&self) -> Option<&[u8]> {
        match self {
            Password::Clear(p) => Some(p),
            Password::NtHash(_) => None,
        }
    }
}

/// NtPasswordHash (RFC 2759 8.3): MD4 of the password as UTF-16LE (the text must be UTF-8).
pub fn nt_password_hash(password: &[u8]) -> Result<Zeroizing<[u8; 16]>> {
    let s = core::str::from_utf8(password).map_err(|_| Error::Malformed("password is not UTF-8"))?;
    let mut u = Zeroizing::new(Vec::with_capacity(s.len() * 2));
    for c in s.encode_utf16() {
        u.extend_from_slice(&c.to_le_bytes());
    }
    let mut out = Zeroizing::new([0u8; 16]);
    out.copy_from_slice(&md4::Md4::digest(&u[..]));
    Ok(out)
}

/// HashNtPasswordHash (RFC 2759 8.4): MD4 of the hash.
pub fn hash_nt_password_hash(hash: &[u8; 16]) -> Zeroizing<[u8; 16]> {
    let mut out = Zeroizing::new([0u8; 16]);
    out.copy_from_slice(&md4::Md4::digest(hash));
    out
}

/// The user name MS-CHAPv2 hashes: the identity after a `DOMAIN\` prefix.
pub fn user_name(identity: &[u8]) -> &[u8] {
    match identity.iter().position(|&c| c == b'\\') {
        Some(i) => &identity[i + 1..],
        None => identity,
    }
}

/// ChallengeHash (RFC 2759 8.2).
pub fn challenge_hash(peer_challenge: &[u8; 16], auth_challenge: &[u8; 16], user: &[u8]) -> [u8; 8] {
    let d = sha1::Sha1::new().chain_update(peer_challenge).chain_update(auth_challenge).chain_update(user).finalize();
    let mut c = [0u8; 8];
    c.copy_from_slice(&d[..8]);
    c
}

/// One DES encryption under a 7-octet key, spread to 8 with (ignored) parity bits (RFC 2759
/// 8.6 DesEncrypt).
fn des_encrypt(clear: &[u8; 8], key7: &[u8]) -> [u8; 8] {
    let mut k = Zeroizing::new([0u8; 8]);
    let mut next = 0u8;
    for i in 0..7 {
        let b = key7[i];
        k[i] = (b >> i) | next | 1;
        next = b << (7 - i);
    }
    k[7] = next | 1;
    let c = des::Des::new_from_slice(&k[..]).expect("an 8-octet DES key");
    let mut block = des::cipher::generic_array::GenericArray::clone_from_slice(clear);
    c.encrypt_block(&mut block);
    block.into()
}

/// ChallengeResponse (RFC 2759 8.5): the hash zero-padded to 21 octets, three DES keys.
pub fn challenge_response(challenge: &[u8; 8], hash: &[u8; 16]) -> [u8; 24] {
    let mut z = Zeroizing::new([0u8; 21]);
    z[..16].copy_from_slice(hash);
    let mut out = [0u8; 24];
    for i in 0..3 {
        out[i * 8..i * 8 + 8].copy_from_slice(&des_encrypt(challenge, &z[i * 7..i * 7 + 7]));
    }
    out
}

/// GenerateNTResponse (RFC 2759 8.1).
pub fn generate_nt_response(auth_challenge: &[u8; 16], peer_challenge: &[u8; 16], user: &[u8], hash: &[u8; 16]) -> [u8; 24] {
    challenge_response(&challenge_hash(peer_challenge, auth_challenge, user), hash)
}

const MAGIC1: &[u8] = b"Magic server to client signing constant";
const MAGIC2: &[u8] = b"Pad to make it do more than one iteration";

/// GenerateAuthenticatorResponse (RFC 2759 8.7): the 20 octets after "S=".
pub fn authenticator_response(
    hash: &[u8; 16],
    nt_response: &[u8; 24],
    peer_challenge: &[u8; 16],
    auth_challenge: &[u8; 16],
    user: &[u8],
) -> [u8; 20] {
    let hh = hash_nt_password_hash(hash);
    let d = sha1::Sha1::new().chain_update(&hh[..]).chain_update(nt_response).chain_update(MAGIC1).finalize();
    let c = challenge_hash(peer_challenge, auth_challenge, user);
    sha1::Sha1::new().chain_update(d).chain_update(c).chain_update(MAGIC2).finalize().into()
}

/// CheckAuthenticatorResponse (RFC 2759 8.8): `msg` begins with "S=" and 40 hex digits
/// (either case) equal to the expected response, compared in constant time.
pub fn check_authenticator_response(expected: &[u8; 20], msg: &[u8]) -> bool {
    let Some(h) = msg.strip_prefix(b"S=").and_then(|m| m.get(..40)) else { return false };
    let Some(got) = core::str::from_utf8(h).ok().and_then(crate::input::hex_decode) else { return false };
    subtle::ConstantTimeEq::ct_eq(&got[..], &expected[..]).into()
}

const MASTER_MAGIC: &[u8] = b"This is the MPPE Master Key";
const MAGIC_SEND_CLIENT: &[u8] = b"On the client side, this is the send key; on the server side, it is the receive key.";
const MAGIC_RECV_CLIENT: &[u8] = b"On the client side, this is the receive key; on the server side, it is the send key.";

/// GetMasterKey (RFC 3079 3.4): SHA-1(PasswordHashHash | NT-Response | Magic1), 16 octets.
pub fn master_key(password_hash_hash: &[u8; 16], nt_response: &[u8; 24]) -> Zeroizing<[u8; 16]> {
    let d = sha1::Sha1::new().chain_update(password_hash_hash).chain_update(nt_response).chain_update(MASTER_MAGIC).finalize();
    let mut m = Zeroizing::new([0u8; 16]);
    m.copy_from_slice(&d[..16]);
    m
}

/// GetAsymmetricStartKey (RFC 3079 3.4) for 128-bit keys: SHA-1(MasterKey | 40 x 0x00 |
/// Magic | 40 x 0xf2), 16 octets; Magic 2 is the client's send key and the server's
/// receive key, Magic 3 the other way.
pub fn asymmetric_start_key(master: &[u8; 16], is_send: bool, is_server: bool) -> Zeroizing<[u8; 16]> {
    let magic = if is_send != is_server { MAGIC_SEND_CLIENT } else { MAGIC_RECV_CLIENT };
    let d = sha1::Sha1::new().chain_update(master).chain_update([0u8; 40]).chain_update(magic).chain_update([0xf2u8; 40]).finalize();
    let mut k = Zeroizing::new([0u8; 16]);
    k.copy_from_slice(&d[..16]);
    k
}

/// The peer's MSK of MS-CHAPv2 as hostapd derives it: MasterSendKey | MasterReceiveKey.
pub fn peer_msk(hash: &[u8; 16], nt_response: &[u8; 24]) -> Zeroizing<[u8; 32]> {
    let m = master_key(&hash_nt_password_hash(hash), nt_response);
    let mut k = Zeroizing::new([0u8; 32]);
    k[..16].copy_from_slice(&asymmetric_start_key(&m, true, false)[..]);
    k[16..].copy_from_slice(&asymmetric_start_key(&m, false, false)[..]);
    k
}

/// A server's failure message (RFC 2759 6: "E=eeeeeeeeee R=r C=cccc... V=vvvvvvvvvv M=<msg>").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// E=: 691 ERROR_AUTHENTICATION_FAILURE, 646 restricted hours, 647 disabled, 648
    /// password expired, 649 no dial-in permission, 709 changing password.
    pub error: u32,
    pub retry: bool,
    /// M=, printable characters only (at most 200).
    pub message: String,
}

impl Failure {
    /// Parses the message; fields it lacks stay at 0 / false / empty.
    pub fn parse(msg: &[u8]) -> Failure {
        let mut f = Failure { error: 0, retry: false, message: String::new() };
        let text = String::from_utf8_lossy(msg);
        let (head, m) = match text.find("M=") {
            Some(i) => (&text[..i], Some(&text[i + 2..])),
            None => (&text[..], None),
        };
        for w in head.split_whitespace() {
            if let Some(e) = w.strip_prefix("E=") {
                f.error = e.parse().unwrap_or(0);
            } else if let Some(r) = w.strip_prefix("R=") {
                f.retry = r == "1";
            }
        }
        if let Some(m) = m {
            f.message = m.chars().filter(|c| !c.is_control()).take(200).collect();
        }
        f
    }
}

impl core::fmt::Display for Failure {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "MSCHAPV2 error {}", self.error)?;
        if !self.message.is_empty() {
            write!(f, " ({})", self.message)?;
        }
        Ok(())
    }
}

/// Where the method is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Waiting for the server's Challenge.
    Challenge,
    /// The Response went; waiting for Success or Failure.
    Responded,
    /// The server proved it knows the password too.
    Success,
    /// The server refused (its error), or its proof was wrong.
    Failed(String),
}

/// One EAP-MSCHAPv2 run, the peer side.
pub struct EapMschapv2 {
    identity: Vec<u8>,
    hash: Zeroizing<[u8; 16]>,
    peer_challenge: [u8; 16],
    expected: Option<[u8; 20]>,
    nt_response: Option<[u8; 24]>,
    state: State,
    failure: Option<Failure>,
}

impl EapMschapv2 {
    /// `peer_challenge`: 16 random octets (the caller's randomness source).
    pub fn new(identity: &[u8], password: &Password, peer_challenge: [u8; 16]) -> Result<EapMschapv2> {
        Ok(EapMschapv2 {
            identity: identity.to_vec(),
            hash: password.nt_hash()?,
            peer_challenge,
            expected: None,
            nt_response: None,
            state: State::Challenge,
            failure: None,
        })
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    /// The server's Failure message, if it sent one.
    pub fn failure(&self) -> Option<&Failure> {
        self.failure.as_ref()
    }

    /// The MSK (32 octets) once the server's Success verified.
    pub fn msk(&self) -> Option<Zeroizing<[u8; 32]>> {
        match (&self.state, &self.nt_response) {
            (State::Success, Some(nt)) => Some(peer_msk(&self.hash, nt)),
            _ => None,
        }
    }

    /// One EAP-Request/MSCHAPv2's Type-Data in, the EAP-Response's Type-Data out.
    pub fn process(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        let (&op, rest) = data.split_first().ok_or(Error::Truncated)?;
        if rest.len() < 3 {
            return Err(Error::Truncated);
        }
        let ms_id = rest[0];
        let ms_len = u16::from_be_bytes([rest[1], rest[2]]) as usize;
        // MS-Length counts from the OpCode; octets past it are ignored.
        if ms_len < 4 || ms_len > data.len() {
            return Err(Error::Malformed("EAP-MSCHAPv2 MS-Length"));
        }
        let body = &data[4..ms_len];
        match op {
            OP_CHALLENGE => {
                if self.state != State::Challenge {
                    self.state = State::Failed("a second MSCHAPv2 Challenge".into());
                    return Err(Error::Malformed("EAP-MSCHAPv2 Challenge after the Response"));
                }
                if body.len() < 17 || body[0] != 16 {
                    return Err(Error::Malformed("EAP-MSCHAPv2 Challenge Value-Size is not 16"));
                }
                let auth: [u8; 16] = body[1..17].try_into().expect("16 octets");
                let user = user_name(&self.identity);
                let nt = generate_nt_response(&auth, &self.peer_challenge, user, &self.hash);
                self.expected = Some(authenticator_response(&self.hash, &nt, &self.peer_challenge, &auth, user));
                self.nt_response = Some(nt);
                self.state = State::Responded;
                let len = 54 + self.identity.len();
                if len > usize::from(u16::MAX) - 5 {
                    return Err(Error::Oversize);
                }
                let mut r = Vec::with_capacity(len);
                r.extend_from_slice(&[OP_RESPONSE, ms_id]);
                r.extend_from_slice(&(len as u16).to_be_bytes());
                r.push(49);
                r.extend_from_slice(&self.peer_challenge);
                r.extend_from_slice(&[0u8; 8]);
                r.extend_from_slice(&nt);
                r.push(0);
                r.extend_from_slice(&self.identity);
                Ok(r)
            }
            OP_SUCCESS => {
                let ok = self.state == State::Responded && self.expected.as_ref().is_some_and(|e| check_authenticator_response(e, body));
                if !ok {
                    // RFC 2759 8.8 / hostapd: a wrong authenticator response is a failure;
                    // nothing is answered (the server gives up with EAP-Failure).
                    self.state = State::Failed("the server's MSCHAPv2 authenticator response does not verify".into());
                    return Err(Error::Malformed("EAP-MSCHAPv2 Success whose authenticator response does not verify"));
                }
                self.state = State::Success;
                Ok(vec![OP_SUCCESS])
            }
            OP_FAILURE => {
                let f = Failure::parse(body);
                self.state = State::Failed(f.to_string());
                self.failure = Some(f);
                Ok(vec![OP_FAILURE])
            }
            _ => Err(Error::Malformed("EAP-MSCHAPv2 OpCode a server does not send")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Vec<u8> {
        crate::input::hex_decode(&s.replace(' ', "")).unwrap()
    }

    // RFC 2759 9.2.
    const USER: &[u8] = b"User";
    const PASSWORD: &[u8] = b"clientPass";
    const AUTH_CHALLENGE: &str = "5B 5D 7C 7D 7B 3F 2F 3E 3C 2C 60 21 32 26 26 28";
    const PEER_CHALLENGE: &str = "21 40 23 24 25 5E 26 2A 28 29 5F 2B 3A 33 7C 7E";
    const NT_RESPONSE: &str = "82 30 9E CD 8D 70 8B 5E A0 8F AA 39 81 CD 83 54 42 33 11 4A 3D 85 D6 DF";

    fn a16(s: &str) -> [u8; 16] {
        h(s).try_into().unwrap()
    }

    #[test]
    fn rfc2759_section_9_2() {
        let hash = nt_password_hash(PASSWORD).unwrap();
        assert_eq!(&hash[..], &h("44 EB BA 8D 53 12 B8 D6 11 47 44 11 F5 69 89 AE")[..]);
        assert_eq!(&hash_nt_password_hash(&hash)[..], &h("41 C0 0C 58 4B D2 D9 1C 40 17 A2 A1 2F A5 9F 3F")[..]);
        let (auth, peer) = (a16(AUTH_CHALLENGE), a16(PEER_CHALLENGE));
        assert_eq!(&challenge_hash(&peer, &auth, USER)[..], &h("D0 2E 43 86 BC E9 12 26")[..]);
        let nt = generate_nt_response(&auth, &peer, USER, &hash);
        assert_eq!(&nt[..], &h(NT_RESPONSE)[..]);
        let ar = authenticator_response(&hash, &nt, &peer, &auth, USER);
        assert!(check_authenticator_response(&ar, b"S=407A5589115FD0D6209F510FE9C04566932CDA56"));
        assert!(check_authenticator_response(&ar, b"S=407a5589115fd0d6209f510fe9c04566932cda56 M=welcome"));
        assert!(!check_authenticator_response(&ar, b"S=407A5589115FD0D6209F510FE9C04566932CDA57"));
        assert!(!check_authenticator_response(&ar, b"S=407A"));
        assert!(!check_authenticator_response(&ar, b"407A5589115FD0D6209F510FE9C04566932CDA56"));
    }

    #[test]
    fn rfc3079_section_3_5_3() {
        // 128-bit keys from the RFC 2759 inputs: MasterKey, and SendStartKey128, which the
        // RFC computes as the server's send key (Magic 3): the client's receive key.
        let hash = nt_password_hash(PASSWORD).unwrap();
        let nt: [u8; 24] = h(NT_RESPONSE).try_into().unwrap();
        let m = master_key(&hash_nt_password_hash(&hash), &nt);
        assert_eq!(&m[..], &h("FD EC E3 71 7A 8C 83 8C B3 88 E5 27 AE 3C DD 31")[..]);
        let send = h("8B 7C DC 14 9B 99 3A 1B A1 18 CB 15 3F 56 DC CB");
        assert_eq!(&asymmetric_start_key(&m, true, true)[..], &send[..]);
        assert_eq!(&asymmetric_start_key(&m, false, false)[..], &send[..]);
        assert_ne!(&asymmetric_start_key(&m, true, false)[..], &send[..]);
        // The peer's MSK: its send key, then its receive key (hostapd's order).
        let msk = peer_msk(&hash, &nt);
        assert_eq!(&msk[16..], &send[..]);
        assert_eq!(&msk[..16], &asymmetric_start_key(&m, true, false)[..]);
    }

    #[test]
    fn password_forms() {
        let p = Password::from_config(b"hash:44EBBA8D5312B8D611474411F56989AE").unwrap();
        assert_eq!(&p.nt_hash().unwrap()[..], &nt_password_hash(PASSWORD).unwrap()[..]);
        assert!(p.clear().is_none());
        assert!(Password::from_config(b"hash:44EB").is_err());
        assert!(Password::from_config(b"hash:zz").is_err());
        assert_eq!(Password::from_config(b"clientPass").unwrap().clear(), Some(PASSWORD));
        assert!(!format!("{p:?}").contains("44"), "no secret in Debug");
        assert!(nt_password_hash(&[0xff, 0xfe]).is_err());
        assert_eq!(user_name(b"CORP\\alice"), b"alice");
        assert_eq!(user_name(b"alice@example.com"), b"alice@example.com");
    }

    fn challenge(id: u8, name: &[u8]) -> Vec<u8> {
        let mut d = vec![OP_CHALLENGE, id, 0, 0, 16];
        d.extend_from_slice(&a16(AUTH_CHALLENGE));
        d.extend_from_slice(name);
        let l = d.len() as u16;
        d[2..4].copy_from_slice(&l.to_be_bytes());
        d
    }

    fn with_len(op: u8, id: u8, msg: &[u8]) -> Vec<u8> {
        let mut d = vec![op, id, 0, 0];
        d.extend_from_slice(msg);
        let l = d.len() as u16;
        d[2..4].copy_from_slice(&l.to_be_bytes());
        d
    }

    #[test]
    fn method_success_checks_the_server() {
        let pw = Password::Clear(Zeroizing::new(PASSWORD.to_vec()));
        let mut m = EapMschapv2::new(USER, &pw, a16(PEER_CHALLENGE)).unwrap();
        let r = m.process(&challenge(7, b"srv")).unwrap();
        assert_eq!(&r[..5], &[OP_RESPONSE, 7, 0, 58, 49]);
        assert_eq!(&r[5..21], &a16(PEER_CHALLENGE));
        assert_eq!(&r[21..29], &[0; 8]);
        assert_eq!(&r[29..53], &h(NT_RESPONSE)[..]);
        assert_eq!(r[53], 0);
        assert_eq!(&r[54..], USER);
        assert!(m.msk().is_none());
        let ok = m.process(&with_len(OP_SUCCESS, 7, b"S=407A5589115FD0D6209F510FE9C04566932CDA56 M=hi")).unwrap();
        assert_eq!(ok, vec![OP_SUCCESS]);
        assert_eq!(m.state(), &State::Success);
        assert_eq!(m.msk().unwrap()[16..], h("8B 7C DC 14 9B 99 3A 1B A1 18 CB 15 3F 56 DC CB")[..]);
        // The hash form of the password gives the same answer.
        let ph = Password::from_config(b"hash:44EBBA8D5312B8D611474411F56989AE").unwrap();
        let mut m2 = EapMschapv2::new(USER, &ph, a16(PEER_CHALLENGE)).unwrap();
        assert_eq!(m2.process(&challenge(7, b"srv")).unwrap(), r);
    }

    #[test]
    fn method_wrong_server_proof_and_failure() {
        let pw = Password::Clear(Zeroizing::new(PASSWORD.to_vec()));
        let mut m = EapMschapv2::new(USER, &pw, a16(PEER_CHALLENGE)).unwrap();
        m.process(&challenge(1, b"")).unwrap();
        assert!(m.process(&with_len(OP_SUCCESS, 1, b"S=0000000000000000000000000000000000000000")).is_err());
        assert!(matches!(m.state(), State::Failed(_)));
        assert!(m.msk().is_none());
        // A Success before any Challenge is no success either.
        let mut m = EapMschapv2::new(USER, &pw, a16(PEER_CHALLENGE)).unwrap();
        assert!(m.process(&with_len(OP_SUCCESS, 1, b"S=407A5589115FD0D6209F510FE9C04566932CDA56")).is_err());
        // Failure: E=691, the answer is OpCode 4 alone.
        let mut m = EapMschapv2::new(USER, &pw, a16(PEER_CHALLENGE)).unwrap();
        m.process(&challenge(2, b"")).unwrap();
        let r = m.process(&with_len(OP_FAILURE, 2, b"E=691 R=0 C=00112233445566778899AABBCCDDEEFF V=3 M=Authentication rejected")).unwrap();
        assert_eq!(r, vec![OP_FAILURE]);
        let f = m.failure().unwrap();
        assert_eq!((f.error, f.retry, f.message.as_str()), (691, false, "Authentication rejected"));
        assert_eq!(m.state(), &State::Failed("MSCHAPV2 error 691 (Authentication rejected)".into()));
        // Malformed input is an error, never a panic.
        for bad in [&[][..], &[1], &[1, 0, 0, 3], &[1, 0, 0xff, 0xff, 16], &[9, 0, 0, 4], &[1, 0, 0, 5, 15]] {
            let mut m = EapMschapv2::new(USER, &pw, a16(PEER_CHALLENGE)).unwrap();
            assert!(m.process(bad).is_err(), "{bad:?}");
        }
    }
}
