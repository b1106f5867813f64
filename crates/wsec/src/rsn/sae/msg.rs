//! SAE Commit and Confirm message bodies (IEEE 802.11-2020 9.3.3.12, Table 9-41, 12.4.7):
//! the fields that follow Authentication Algorithm Number, Transaction Sequence Number and
//! Status Code in an Authentication frame of algorithm 3.

use super::group::Group;
use super::status;
use crate::error::{Error, Result};

/// Element ID Extension (9.4.2.1).
const EID_EXTENSION: u8 = 255;
/// Password Identifier element (9.4.2.216).
pub const EXT_PASSWORD_IDENTIFIER: u8 = 33;
/// Rejected Groups element (9.4.2.245).
pub const EXT_REJECTED_GROUPS: u8 = 92;
/// Anti-Clogging Token Container element (9.4.2.246).
pub const EXT_ANTI_CLOGGING_TOKEN: u8 = 93;

/// Largest SAE Authentication frame body accepted (a bound for every reader).
pub const MAX_BODY: usize = 2048;
/// Shortest token hostapd accepts outside a container (a SHA-256 MAC).
const MIN_TOKEN: usize = 32;

/// A SAE Commit message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    /// Finite Cyclic Group (IANA number).
    pub group: u16,
    /// Anti-Clogging Token: a plain field for hunting-and-pecking, in its container
    /// element for hash-to-element (12.4.6).
    pub token: Option<Vec<u8>>,
    /// commit-scalar, `prime_len` octets.
    pub scalar: Vec<u8>,
    /// COMMIT-ELEMENT, `x || y`.
    pub element: Vec<u8>,
    /// Password Identifier, if any.
    pub password_id: Option<Vec<u8>>,
    /// Rejected Groups (hash-to-element only; 12.4.4.2.3 downgrade protection).
    pub rejected_groups: Vec<u16>,
}

fn ext_element(out: &mut Vec<u8>, ext_id: u8, body: &[u8]) {
    out.push(EID_EXTENSION);
    out.push((1 + body.len()) as u8);
    out.push(ext_id);
    out.extend_from_slice(body);
}

/// The extension element with `ext_id` at the start of `data`, as (body, rest).
fn take_ext(data: &[u8], ext_id: u8) -> Option<(&[u8], &[u8])> {
    if data.len() >= 3 && data[0] == EID_EXTENSION && data[1] >= 1 && data.len() - 2 >= data[1] as usize && data[2] == ext_id {
        let end = 2 + data[1] as usize;
        Some((&data[3..end], &data[end..]))
    } else {
        None
    }
}

impl Commit {
    /// The body of a Commit (12.4.7.2): group, [token], scalar, element, [Password
    /// Identifier], [Rejected Groups], [Anti-Clogging Token Container].
    pub fn to_bytes(&self, h2e: bool) -> Vec<u8> {
        let mut out = Vec::with_capacity(2 + 3 * self.scalar.len() + 64);
        out.extend_from_slice(&self.group.to_le_bytes());
        if let (false, Some(t)) = (h2e, &self.token) {
            out.extend_from_slice(t);
        }
        out.extend_from_slice(&self.scalar);
        out.extend_from_slice(&self.element);
        if let Some(id) = &self.password_id {
            ext_element(&mut out, EXT_PASSWORD_IDENTIFIER, id);
        }
        if h2e && !self.rejected_groups.is_empty() {
            let body: Vec<u8> = self.rejected_groups.iter().flat_map(|g| g.to_le_bytes()).collect();
            ext_element(&mut out, EXT_REJECTED_GROUPS, &body);
        }
        if let (true, Some(t)) = (h2e, &self.token) {
            ext_element(&mut out, EXT_ANTI_CLOGGING_TOKEN, t);
        }
        out
    }

    /// Parse a Commit body. `Err(status)` with the status code to answer:
    /// 77 for a group not offered, 1 for a malformed body. Field lengths follow the group,
    /// so an unsupported group cannot be parsed further.
    pub fn parse(body: &[u8], h2e: bool) -> core::result::Result<Commit, u16> {
        if body.len() > MAX_BODY || body.len() < 2 {
            return Err(status::UNSPECIFIED_FAILURE);
        }
        let group_id = u16::from_le_bytes([body[0], body[1]]);
        let group = Group::from_id(group_id).ok_or(status::FINITE_CYCLIC_GROUP_NOT_SUPPORTED)?;
        let len = group.prime_len();
        let mut rest = &body[2..];
        let mut token = None;
        if !h2e && rest.len() > 3 * len {
            // As hostapd: whatever precedes scalar and element is the token.
            let tlen = rest.len() - 3 * len;
            if tlen >= MIN_TOKEN {
                token = Some(rest[..tlen].to_vec());
                rest = &rest[tlen..];
            }
        }
        if rest.len() < 3 * len {
            return Err(status::UNSPECIFIED_FAILURE);
        }
        let scalar = rest[..len].to_vec();
        let element = rest[len..3 * len].to_vec();
        rest = &rest[3 * len..];
        let mut password_id = None;
        if let Some((id, r)) = take_ext(rest, EXT_PASSWORD_IDENTIFIER) {
            password_id = Some(id.to_vec());
            rest = r;
        }
        let mut rejected_groups = Vec::new();
        if h2e {
            if let Some((g, r)) = take_ext(rest, EXT_REJECTED_GROUPS) {
                if g.is_empty() || g.len() % 2 != 0 {
                    return Err(status::UNSPECIFIED_FAILURE);
                }
                rejected_groups = g.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
                rest = r;
            }
            if let Some((t, r)) = take_ext(rest, EXT_ANTI_CLOGGING_TOKEN) {
                token = Some(t.to_vec());
                rest = r;
            }
        }
        let _ = rest; // later elements (AKM Suite Selector, SAE-PK) are not used
        Ok(Commit { group: group_id, token, scalar, element, password_id, rejected_groups })
    }
}

/// The body of an anti-clogging request (status 76, 12.4.6): the group, then the token (a
/// plain field for hunting-and-pecking, its container element for hash-to-element).
pub fn anti_clogging_request(group: u16, token: &[u8], h2e: bool) -> Vec<u8> {
    let mut out = group.to_le_bytes().to_vec();
    if h2e {
        ext_element(&mut out, EXT_ANTI_CLOGGING_TOKEN, token);
    } else {
        out.extend_from_slice(token);
    }
    out
}

/// Parse an anti-clogging request body into (group, token).
pub fn parse_anti_clogging_request(body: &[u8], h2e: bool) -> Result<(u16, Vec<u8>)> {
    if body.len() < 3 || body.len() > MAX_BODY {
        return Err(Error::Malformed("SAE anti-clogging request"));
    }
    let group = u16::from_le_bytes([body[0], body[1]]);
    let token =
        if h2e { take_ext(&body[2..], EXT_ANTI_CLOGGING_TOKEN).ok_or(Error::Malformed("SAE token container"))?.0 } else { &body[2..] };
    Ok((group, token.to_vec()))
}

/// A SAE Confirm message (12.4.7.3): Send-Confirm and the confirm value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    pub send_confirm: u16,
    pub confirm: Vec<u8>,
}

impl Confirm {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.send_confirm.to_le_bytes().to_vec();
        out.extend_from_slice(&self.confirm);
        out
    }

    /// Parse with the KCK's hash length; elements after it are ignored.
    pub fn parse(body: &[u8], hash_len: usize) -> Result<Confirm> {
        if body.len() > MAX_BODY || body.len() < 2 + hash_len {
            return Err(Error::Malformed("SAE Confirm length"));
        }
        Ok(Confirm { send_confirm: u16::from_le_bytes([body[0], body[1]]), confirm: body[2..2 + hash_len].to_vec() })
    }
}
