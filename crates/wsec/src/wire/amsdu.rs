//! The A-MSDU (IEEE 802.11-2020 9.3.2.2): the Frame Body of a QoS Data MPDU whose QoS
//! Control has A-MSDU Present (9.2.4.5.6) is a sequence of A-MSDU subframes (9.3.2.2.2),
//! each DA (6 octets), SA (6), Length (2, big-endian: the MSDU's octets), the MSDU (its
//! LLC/SNAP header first, 0-2304 octets), then 0-3 octets of padding so the subframe is a
//! multiple of 4 octets long; the last subframe has no padding.
//!
//! [`Amsdu`] is a view over a whole body with a strict walk of its subframes, [`Subframe`]
//! a view over one, [`SubframeRepr`] its header; [`emit`] and [`push`] aggregate MSDUs
//! up to a maximum A-MSDU length (the HT Capabilities element's Max A-MSDU Length,
//! 9.4.2.55.2, or the VHT Maximum MPDU Length, 9.4.2.157.2).
//!
//! What the walk refuses, as Linux's `ieee80211_amsdu_to_8023s` (net/wireless/util.c)
//! purges the whole A-MSDU for it: an empty body, a subframe header cut short, a Length
//! beyond the body, and octets after the last subframe that are neither its padding nor a
//! whole subframe. Stricter than Linux: an MSDU over 2304 octets. As Linux and Wireshark,
//! the padding's value is not checked (9.3.2.2.2 gives it none) and a last subframe
//! padded like the others is taken (some transmitters pad every subframe).
use crate::error::{Error, Result};
use crate::wire::mac::MacAddr;

/// Byte ranges of an A-MSDU subframe header (9.3.2.2.2).
pub mod field {
    pub const DA: core::ops::Range<usize> = 0..6;
    pub const SA: core::ops::Range<usize> = 6..12;
    pub const LENGTH: core::ops::Range<usize> = 12..14;
    pub const MSDU: core::ops::RangeFrom<usize> = 14..;
}

/// The subframe header: DA, SA, Length.
pub const HEADER_LEN: usize = 14;

/// The largest MSDU (9.2.4.7.1, 9.3.2.2.2).
pub const MAX_MSDU_LEN: usize = 2304;

/// Max A-MSDU Length of the HT Capabilities Information field (9.4.2.55.2), by the
/// subfield's value: 0 is 3839 octets, 1 is 7935.
pub const HT_MAX_AMSDU_LEN: [usize; 2] = [3839, 7935];

/// Maximum MPDU Length of the VHT Capabilities Information field (9.4.2.157.2), by the
/// subfield's value (3 reserved). In a VHT PPDU an A-MSDU is bounded by this MPDU length
/// (less the MAC header, security header and trailer, FCS) rather than the HT limit.
pub const VHT_MAX_MPDU_LEN: [usize; 3] = [3895, 7991, 11454];

/// Octets of padding after a subframe carrying `msdu_len` octets when another follows.
pub const fn padding(msdu_len: usize) -> usize {
    (4 - (HEADER_LEN + msdu_len) % 4) % 4
}

/// Zero-copy view of one A-MSDU subframe (without its padding).
#[derive(Debug, Clone)]
pub struct Subframe<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Subframe<T> {
    /// Wraps a buffer without checking it; the accessors panic on a short one.
    pub fn new_unchecked(buffer: T) -> Subframe<T> {
        Subframe { buffer }
    }

    /// Checks the header is there and the buffer holds the MSDU its Length announces
    /// (Error::Truncated otherwise). Octets after the MSDU are not this view's.
    pub fn new_checked(buffer: T) -> Result<Subframe<T>> {
        let s = Subframe { buffer };
        s.check_len()?;
        Ok(s)
    }

    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < HEADER_LEN || b.len() < HEADER_LEN + self.length() as usize {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    pub fn into_inner(self) -> T {
        self.buffer
    }

    pub fn da(&self) -> MacAddr {
        let b = &self.buffer.as_ref()[field::DA];
        MacAddr([b[0], b[1], b[2], b[3], b[4], b[5]])
    }

    pub fn sa(&self) -> MacAddr {
        let b = &self.buffer.as_ref()[field::SA];
        MacAddr([b[0], b[1], b[2], b[3], b[4], b[5]])
    }

    /// The Length field: the MSDU's octets.
    pub fn length(&self) -> u16 {
        let b = &self.buffer.as_ref()[field::LENGTH];
        u16::from_be_bytes([b[0], b[1]])
    }

    /// The subframe's octets without padding: header and MSDU.
    pub fn total_len(&self) -> usize {
        HEADER_LEN + self.length() as usize
    }

    pub fn msdu(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..self.total_len()]
    }
}

impl<'a> Subframe<&'a [u8]> {
    /// The MSDU, borrowed for as long as the buffer is.
    pub fn into_msdu(self) -> &'a [u8] {
        let end = self.total_len();
        &self.buffer[HEADER_LEN..end]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Subframe<T> {
    pub fn set_da(&mut self, a: MacAddr) {
        self.buffer.as_mut()[field::DA].copy_from_slice(&a.0);
    }
    pub fn set_sa(&mut self, a: MacAddr) {
        self.buffer.as_mut()[field::SA].copy_from_slice(&a.0);
    }
    pub fn set_length(&mut self, len: u16) {
        self.buffer.as_mut()[field::LENGTH].copy_from_slice(&len.to_be_bytes());
    }
    pub fn msdu_mut(&mut self) -> &mut [u8] {
        let end = self.total_len();
        &mut self.buffer.as_mut()[HEADER_LEN..end]
    }
}

/// The header of an A-MSDU subframe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SubframeRepr {
    pub da: MacAddr,
    pub sa: MacAddr,
    /// The MSDU's length in octets.
    pub length: u16,
}

impl SubframeRepr {
    /// Parses a checked subframe's header; an MSDU over 2304 octets is Error::Oversize.
    pub fn parse<T: AsRef<[u8]>>(s: &Subframe<T>) -> Result<SubframeRepr> {
        s.check_len()?;
        if s.length() as usize > MAX_MSDU_LEN {
            return Err(Error::Oversize);
        }
        Ok(SubframeRepr { da: s.da(), sa: s.sa(), length: s.length() })
    }

    /// Header and MSDU, no padding.
    pub fn buffer_len(&self) -> usize {
        HEADER_LEN + self.length as usize
    }

    /// Writes the header into the first 14 octets of `buf` (Error::Truncated if shorter).
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        let b = buf.get_mut(..HEADER_LEN).ok_or(Error::Truncated)?;
        b[field::DA].copy_from_slice(&self.da.0);
        b[field::SA].copy_from_slice(&self.sa.0);
        b[field::LENGTH].copy_from_slice(&self.length.to_be_bytes());
        Ok(())
    }
}

/// Zero-copy view of a whole A-MSDU (the Frame Body of the MPDU, after any security
/// header, without MIC or FCS).
#[derive(Debug, Clone)]
pub struct Amsdu<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Amsdu<T> {
    /// Wraps a buffer without walking it; [`Amsdu::subframes`] still reports what is wrong.
    pub fn new_unchecked(buffer: T) -> Amsdu<T> {
        Amsdu { buffer }
    }

    /// Walks every subframe (see the module documentation for what is refused).
    pub fn new_checked(buffer: T) -> Result<Amsdu<T>> {
        let a = Amsdu { buffer };
        a.check()?;
        Ok(a)
    }

    /// The strict walk of [`Amsdu::new_checked`].
    pub fn check(&self) -> Result<()> {
        self.subframes().try_for_each(|s| s.map(drop))
    }

    pub fn as_bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The subframes in order; after an error, nothing more.
    pub fn subframes(&self) -> Subframes<'_> {
        Subframes { rest: self.buffer.as_ref(), started: false }
    }

    /// How many subframes a checked A-MSDU holds.
    pub fn count(&self) -> usize {
        self.subframes().take_while(|s| s.is_ok()).count()
    }
}

impl<'a> Amsdu<&'a [u8]> {
    /// [`Amsdu::subframes`], borrowed for as long as the buffer is.
    pub fn into_subframes(self) -> Subframes<'a> {
        Subframes { rest: self.buffer, started: false }
    }
}

/// The subframes of an A-MSDU ([`Amsdu::subframes`]).
#[derive(Debug, Clone)]
pub struct Subframes<'a> {
    rest: &'a [u8],
    /// Whether one subframe was read: an empty body is an error, a consumed one the end.
    started: bool,
}

impl<'a> Iterator for Subframes<'a> {
    type Item = Result<Subframe<&'a [u8]>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() && self.started {
            return None;
        }
        self.started = true;
        let r = self.step();
        if r.is_err() {
            self.rest = &[];
        }
        Some(r)
    }
}

impl<'a> Subframes<'a> {
    fn step(&mut self) -> Result<Subframe<&'a [u8]>> {
        let rest = self.rest;
        if rest.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        let s = Subframe::new_checked(rest)?;
        SubframeRepr::parse(&s)?;
        let used = s.total_len();
        let tail = rest.len() - used;
        let pad = padding(s.length() as usize);
        // Up to its padding after the last MSDU is the last subframe padded (as Linux);
        // more must be a whole next subframe, read on the next call.
        self.rest = if tail <= pad { &[] } else { &rest[used + pad..] };
        Ok(Subframe::new_unchecked(&rest[..used]))
    }
}

/// One MSDU to aggregate: the subframe header's addresses and the MSDU (LLC/SNAP header
/// and payload).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MsduRef<'a> {
    pub da: MacAddr,
    pub sa: MacAddr,
    pub msdu: &'a [u8],
}

/// How many of `msdus`, from the first, fit one A-MSDU of at most `max_len` octets, and
/// that A-MSDU's length: padding goes between subframes, none after the last. An MSDU over
/// 2304 octets is Error::Oversize (even one that would not fit).
pub fn packing(msdus: &[MsduRef<'_>], max_len: usize) -> Result<(usize, usize)> {
    if msdus.iter().any(|m| m.msdu.len() > MAX_MSDU_LEN) {
        return Err(Error::Oversize);
    }
    let (mut n, mut len, mut prev_msdu) = (0, 0, None);
    for m in msdus {
        let start = prev_msdu.map_or(0, |p| len + padding(p));
        let end = start + HEADER_LEN + m.msdu.len();
        if end > max_len {
            break;
        }
        (n, len, prev_msdu) = (n + 1, end, Some(m.msdu.len()));
    }
    Ok((n, len))
}

/// Writes the A-MSDU of the first MSDUs of `msdus` that fit `max_len` octets
/// ([`packing`]) into `buf`: how many went in and the A-MSDU's length. Error::Truncated
/// when `buf` is shorter than that A-MSDU (nothing is written then).
pub fn emit(msdus: &[MsduRef<'_>], max_len: usize, buf: &mut [u8]) -> Result<(usize, usize)> {
    let (n, len) = packing(msdus, max_len)?;
    let out = buf.get_mut(..len).ok_or(Error::Truncated)?;
    let mut at = 0;
    for (i, m) in msdus[..n].iter().enumerate() {
        if i > 0 {
            let pad = padding(msdus[i - 1].msdu.len());
            out[at..at + pad].fill(0);
            at += pad;
        }
        // packing() bounded every MSDU by 2304 octets.
        let repr = SubframeRepr { da: m.da, sa: m.sa, length: m.msdu.len() as u16 };
        repr.emit(&mut out[at..])?;
        out[at + HEADER_LEN..at + repr.buffer_len()].copy_from_slice(m.msdu);
        at += repr.buffer_len();
    }
    debug_assert_eq!(at, len);
    Ok((n, len))
}

/// [`emit`] appended to `out`: how many MSDUs went in.
pub fn push(msdus: &[MsduRef<'_>], max_len: usize, out: &mut Vec<u8>) -> Result<usize> {
    let (_, len) = packing(msdus, max_len)?;
    let start = out.len();
    out.resize(start + len, 0);
    let (n, _) = emit(msdus, max_len, &mut out[start..])?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x0a]);
    const B: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x0b]);

    #[test]
    fn padding_values() {
        // 14 + len rounded up to a multiple of 4.
        assert_eq!([padding(0), padding(1), padding(2), padding(3), padding(4)], [2, 1, 0, 3, 2]);
    }

    #[test]
    fn one_subframe_view_and_repr() {
        let mut b = vec![0x02, 0, 0, 0, 0, 0x0a, 0x02, 0, 0, 0, 0, 0x0b, 0x00, 0x03, 7, 8, 9];
        let s = Subframe::new_checked(&b[..]).unwrap();
        assert_eq!((s.da(), s.sa(), s.length(), s.msdu()), (A, B, 3, &[7u8, 8, 9][..]));
        assert_eq!(SubframeRepr::parse(&s).unwrap(), SubframeRepr { da: A, sa: B, length: 3 });
        assert_eq!(Subframe::new_checked(&b[..16]).err(), Some(Error::Truncated));
        assert_eq!(Subframe::new_checked(&b[..13]).err(), Some(Error::Truncated));
        let mut m = Subframe::new_unchecked(&mut b[..]);
        m.set_da(B);
        m.set_length(2);
        m.msdu_mut().copy_from_slice(&[1, 2]);
        assert_eq!(&b[..6], &B.0);
        assert_eq!(&b[12..16], &[0, 2, 1, 2]);
        let mut o = [0u8; 13];
        assert_eq!(SubframeRepr { da: A, sa: B, length: 1 }.emit(&mut o), Err(Error::Truncated));
    }

    #[test]
    fn oversize_msdu_refused() {
        let mut b = vec![0u8; HEADER_LEN + 2305];
        b[12..14].copy_from_slice(&2305u16.to_be_bytes());
        assert_eq!(Amsdu::new_checked(&b[..]).err(), Some(Error::Oversize));
        let big = vec![0u8; 2305];
        assert_eq!(packing(&[MsduRef { da: A, sa: B, msdu: &big }], 20_000), Err(Error::Oversize));
    }

    #[test]
    fn empty_and_trailing_octets() {
        assert_eq!(Amsdu::new_checked(&[][..]).err(), Some(Error::Truncated));
        assert_eq!(Amsdu::new_unchecked(&[][..]).count(), 0);
        // One subframe with a 1-octet MSDU: 15 octets, 1 of padding to 16.
        let mut b = vec![0x02, 0, 0, 0, 0, 0x0a, 0x02, 0, 0, 0, 0, 0x0b, 0x00, 0x01, 0x55];
        assert_eq!(Amsdu::new_checked(&b[..]).unwrap().count(), 1);
        b.push(0xee); // its padding, any value
        assert_eq!(Amsdu::new_checked(&b[..]).unwrap().count(), 1);
        b.push(0); // one octet more than padding: a second subframe cut short
        assert_eq!(Amsdu::new_checked(&b[..]).err(), Some(Error::Truncated));
    }
}
