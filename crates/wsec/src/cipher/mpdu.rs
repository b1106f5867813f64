//! MPDU framing shared by the AEAD suites (CCMP 12.5.3.3, GCMP 12.5.5.3): which frames
//! may be protected, where the 8-octet security header goes, what the output looks like.
pub use super::aad::NonceInput;
use super::aad::{aad_raw, Aad};
use super::{AadOptions, OrderRule, Pn, RxInfo, MAX_MPDU_BODY};
use crate::error::{Error, Result};
use crate::wire::mac::{fc, FrameControl, Mpdu};
use crate::wire::sechdr::CcmpHeaderRepr;

/// Checks the MPDU can carry CCMP/GCMP; returns its Frame Control and header length.
/// One decode of the Frame Control serves the whole frame (the per-frame fast path).
fn check_frame(mpdu: &[u8], opts: AadOptions) -> Result<(FrameControl, usize)> {
    #[cfg(test)]
    crate::wire::mac::parse_count::bump();
    if mpdu.len() < 2 {
        return Err(Error::Truncated);
    }
    let f = FrameControl(u16::from_le_bytes([mpdu[0], mpdu[1]]));
    if f.is_data() && !f.has_data_body() {
        return Err(Error::Unsupported("Null data frames carry no body to protect"));
    }
    if !(f.is_data() || f.is_mgmt()) {
        return Err(Error::Unsupported("only data and management frames can be protected"));
    }
    let hl = f.header_len_for(opts.order_rule == OrderRule::Draft2003)?;
    if mpdu.len() < hl {
        return Err(Error::Truncated);
    }
    Ok((f, hl))
}

/// [`check_frame`] of an MPDU whose header was checked already: the Frame Control rules
/// only (a header whole under the current rules is whole under the pre-HT ones).
fn check_parsed(m: &Mpdu<'_>, opts: AadOptions) -> Result<(FrameControl, usize)> {
    let f = m.frame_control();
    if f.is_data() && !f.has_data_body() {
        return Err(Error::Unsupported("Null data frames carry no body to protect"));
    }
    if !(f.is_data() || f.is_mgmt()) {
        return Err(Error::Unsupported("only data and management frames can be protected"));
    }
    Ok((f, m.header_len_for(opts.order_rule == OrderRule::Draft2003)))
}

/// Encapsulates: `out` = header (Protected set) || CCMP/GCMP header || sealed body || MIC.
/// `seal(nonce_input, aad, body_in_place, mic_out)` is the AEAD: wsec's CCM kernel and GCM
/// in [`super::ccmp`] and [`super::gcmp`]; public so that another AEAD (a peer library in a
/// benchmark, a hardware engine's model) runs under exactly the same 802.11 framing.
pub fn encapsulate(
    mpdu: &[u8],
    pn: Pn,
    key_id: u8,
    mic_len: usize,
    opts: AadOptions,
    out: &mut Vec<u8>,
    seal: impl FnOnce(NonceInput, &Aad, &mut [u8], &mut [u8]) -> Result<()>,
) -> Result<()> {
    out.clear();
    let (f, hl) = check_frame(mpdu, opts)?;
    encapsulate_framed(mpdu, (f, hl), CcmpHeaderRepr { pn, key_id }, mic_len, opts, out, seal)
}

/// [`encapsulate`] of an MPDU whose header was checked once ([`Mpdu`]).
pub fn encapsulate_parsed(
    m: &Mpdu<'_>,
    pn: Pn,
    key_id: u8,
    mic_len: usize,
    opts: AadOptions,
    out: &mut Vec<u8>,
    seal: impl FnOnce(NonceInput, &Aad, &mut [u8], &mut [u8]) -> Result<()>,
) -> Result<()> {
    out.clear();
    let (f, hl) = check_parsed(m, opts)?;
    encapsulate_framed(m.bytes(), (f, hl), CcmpHeaderRepr { pn, key_id }, mic_len, opts, out, seal)
}

/// The framing after the checks: `(f, hl)` the Frame Control and header length.
fn encapsulate_framed(
    mpdu: &[u8],
    (f, hl): (FrameControl, usize),
    sec: CcmpHeaderRepr,
    mic_len: usize,
    opts: AadOptions,
    out: &mut Vec<u8>,
    seal: impl FnOnce(NonceInput, &Aad, &mut [u8], &mut [u8]) -> Result<()>,
) -> Result<()> {
    if f.protected() {
        return Err(Error::AlreadyProtected);
    }
    let body = &mpdu[hl..];
    if body.len() > MAX_MPDU_BODY {
        return Err(Error::Oversize);
    }
    let aad = aad_raw(mpdu, f, opts);
    let nonce = NonceInput::raw(mpdu, f);
    fit(out, hl + 8 + body.len() + mic_len);
    out.extend_from_slice(&mpdu[..hl]);
    out[1] |= (fc::PROTECTED >> 8) as u8;
    out.extend_from_slice(&[0u8; 8]);
    sec.emit(&mut out[hl..hl + 8])?;
    wsec_kernel::bytes::extend(out, body);
    out.resize(hl + 8 + body.len() + mic_len, 0);
    let (data, mic) = out[hl + 8..].split_at_mut(body.len());
    if let Err(e) = seal(nonce, &aad, data, mic) {
        out.clear();
        return Err(e);
    }
    Ok(())
}

/// Readies the emptied `out` for `need` octets without copying: a buffer too small is
/// replaced, not grown (growing copies its stale contents, a whole frame when it is a
/// recycled plaintext about to hold the same frame protected), and a new buffer gets a
/// power-of-two capacity so that, recycled, it holds the same frame with its security
/// header and MIC.
fn fit(out: &mut Vec<u8>, need: usize) {
    debug_assert!(out.is_empty());
    if out.capacity() < need {
        *out = Vec::with_capacity(need.next_power_of_two());
    }
}

/// Decapsulates: `out` = header (Protected cleared) || opened body.
/// `open(nonce_input, aad, pn, body_in_place, mic)`.
pub fn decapsulate(
    mpdu: &[u8],
    mic_len: usize,
    opts: AadOptions,
    out: &mut Vec<u8>,
    open: impl FnOnce(NonceInput, &Aad, Pn, &mut [u8], &[u8]) -> Result<()>,
) -> Result<RxInfo> {
    out.clear();
    let (f, hl) = check_frame(mpdu, opts)?;
    decapsulate_framed(mpdu, f, hl, mic_len, opts, out, open)
}

/// [`decapsulate`] of an MPDU whose header was checked once ([`Mpdu`]).
pub fn decapsulate_parsed(
    m: &Mpdu<'_>,
    mic_len: usize,
    opts: AadOptions,
    out: &mut Vec<u8>,
    open: impl FnOnce(NonceInput, &Aad, Pn, &mut [u8], &[u8]) -> Result<()>,
) -> Result<RxInfo> {
    out.clear();
    let (f, hl) = check_parsed(m, opts)?;
    decapsulate_framed(m.bytes(), f, hl, mic_len, opts, out, open)
}

fn decapsulate_framed(
    mpdu: &[u8],
    f: FrameControl,
    hl: usize,
    mic_len: usize,
    opts: AadOptions,
    out: &mut Vec<u8>,
    open: impl FnOnce(NonceInput, &Aad, Pn, &mut [u8], &[u8]) -> Result<()>,
) -> Result<RxInfo> {
    if !f.protected() {
        return Err(Error::NotProtected);
    }
    let rest = &mpdu[hl..];
    let sec = CcmpHeaderRepr::parse(rest)?;
    if rest.len() < 8 + mic_len {
        return Err(Error::Truncated);
    }
    let body_len = rest.len() - 8 - mic_len;
    if body_len > MAX_MPDU_BODY {
        return Err(Error::Oversize);
    }
    let aad = aad_raw(mpdu, f, opts);
    let nonce = NonceInput::raw(mpdu, f);
    fit(out, hl + body_len);
    out.extend_from_slice(&mpdu[..hl]);
    out[1] &= !((fc::PROTECTED >> 8) as u8);
    wsec_kernel::bytes::extend(out, &rest[8..8 + body_len]);
    let mic = &rest[8 + body_len..];
    if let Err(e) = open(nonce, &aad, sec.pn, &mut out[hl..], mic) {
        out.clear();
        return Err(e);
    }
    Ok(RxInfo { pn: sec.pn, key_id: sec.key_id })
}

/// Reads the PN and Key ID of a CCMP/GCMP-protected MPDU without decrypting it (for key
/// selection and the replay pre-check).
pub fn peek(mpdu: &[u8], opts: AadOptions) -> Result<RxInfo> {
    let (f, hl) = check_frame(mpdu, opts)?;
    peek_framed(mpdu, f, hl)
}

/// [`peek`] of an MPDU whose header was checked once ([`Mpdu`]).
pub fn peek_parsed(m: &Mpdu<'_>, opts: AadOptions) -> Result<RxInfo> {
    let (f, hl) = check_parsed(m, opts)?;
    peek_framed(m.bytes(), f, hl)
}

fn peek_framed(mpdu: &[u8], f: FrameControl, hl: usize) -> Result<RxInfo> {
    if !f.protected() {
        return Err(Error::NotProtected);
    }
    let sec = CcmpHeaderRepr::parse(&mpdu[hl..])?;
    Ok(RxInfo { pn: sec.pn, key_id: sec.key_id })
}
