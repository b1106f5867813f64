//! Reassembly of fragmented MSDUs/MMPDUs after decryption, IEEE 802.11-2020 10.6, with the
//! rules that keep it safe:
//! - CCMP/GCMP fragments of one MSDU carry consecutive PNs (12.5.3.4.4 / 12.5.5.4.4);
//! - all fragments were decrypted under the same key (the "mixed key" attack of
//!   FragAttacks, Vanhoef 2021), which the caller states with a key tag;
//! - fragment numbers run 0, 1, 2... within one sequence number, and a new fragment 0
//!   discards any unfinished MSDU of the same TA/TID ("cache" attack);
//! - memory is bounded: at most `max_entries` partial MSDUs, each at most `max_msdu`
//!   octets, dropped after `timeout_ns` (dot11MaxReceiveLifetime).
use crate::error::{Error, Result};
use crate::wire::mac::{fc, MacAddr, Mpdu, SeqControl};
use crate::wire::sechdr::Pn;

/// What the caller knows about a decrypted fragment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FragMeta {
    /// PN/TSC of the fragment, if its cipher has one.
    pub pn: Option<Pn>,
    /// Whether consecutive PNs are required (CCMP, GCMP).
    pub consecutive_pn: bool,
    /// Identifies the key instance that decrypted it (changes on every key install).
    pub key_tag: u64,
}

#[derive(Debug)]
struct Entry {
    ta: MacAddr,
    tid: u8,
    seq: u16,
    next_frag: u8,
    last_pn: Option<Pn>,
    key_tag: u64,
    started_ns: u64,
    /// Header of fragment 0 followed by the bodies so far.
    mpdu: Vec<u8>,
    header_len: usize,
}

#[derive(Debug)]
pub struct Reassembler {
    entries: Vec<Entry>,
    pub max_entries: usize,
    pub max_msdu: usize,
    pub timeout_ns: u64,
}

/// dot11MaxReceiveLifetime default: 512 TU.
pub const DEFAULT_TIMEOUT_NS: u64 = 512 * 1024 * 1000;

impl Default for Reassembler {
    fn default() -> Self {
        // 802.11 requires at least 3 concurrent reassemblies; a little more for QoS.
        // max_msdu: 7935-octet A-MSDU + 8-octet TKIP Michael MIC.
        Reassembler { entries: Vec::new(), max_entries: 8, max_msdu: 7935 + 8, timeout_ns: DEFAULT_TIMEOUT_NS }
    }
}

impl Reassembler {
    pub fn new() -> Self {
        Self::default()
    }

    /// Partial MSDUs held now.
    pub fn pending(&self) -> usize {
        self.entries.len()
    }

    /// Octets held now (bounded by `max_entries * (max_msdu + header)`).
    pub fn bytes_held(&self) -> usize {
        self.entries.iter().map(|e| e.mpdu.len()).sum()
    }

    /// Drops everything (on a key change or disassociation).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// True if the plaintext MPDU is a fragment (More Fragments set or fragment number > 0).
    pub fn is_fragment(mpdu: &[u8]) -> bool {
        Mpdu::new_checked(mpdu).is_ok_and(|m| m.is_fragment())
    }

    /// Adds a decrypted fragment (plaintext MPDU: header + body). Returns the whole MSDU as
    /// one MPDU (fragment 0's header with More Fragments cleared, bodies joined) when the
    /// last fragment arrives, `Ok(None)` while more are expected, or an error that names
    /// why the fragment was dropped (its partial MSDU is discarded too).
    pub fn push(&mut self, now_ns: u64, mpdu: &[u8], meta: FragMeta) -> Result<Option<Vec<u8>>> {
        self.entries.retain(|e| now_ns.saturating_sub(e.started_ns) <= self.timeout_ns);
        let hdr = Mpdu::new_checked(mpdu)?;
        self.push_parsed(now_ns, &hdr, mpdu, meta)
    }

    /// [`Self::push`] of a decrypted fragment `plain` whose header is that of the received
    /// MPDU `hdr` (checked once on receive; decryption clears only its Protected bit).
    pub fn push_parsed(&mut self, now_ns: u64, hdr: &Mpdu<'_>, plain: &[u8], meta: FragMeta) -> Result<Option<Vec<u8>>> {
        self.entries.retain(|e| now_ns.saturating_sub(e.started_ns) <= self.timeout_ns);
        let f = hdr.frame_control();
        let hl = hdr.header_len();
        if plain.len() < hl {
            return Err(Error::Truncated);
        }
        let mpdu = plain;
        let sc = hdr.seq_control().ok_or(Error::Unsupported("fragment without Sequence Control"))?;
        let ta = hdr.addr2().ok_or(Error::Truncated)?;
        let tid = if f.is_mgmt() { 16 } else { hdr.tid() };
        let body = &mpdu[hl..];
        let more = f.more_fragments();
        let pos = self.entries.iter().position(|e| e.ta == ta && e.tid == tid);

        if sc.fragment() == 0 {
            if let Some(i) = pos {
                self.entries.swap_remove(i);
            }
            if !more {
                return Ok(Some(mpdu.to_vec()));
            }
            if body.len() > self.max_msdu {
                return Err(Error::Oversize);
            }
            if self.entries.len() >= self.max_entries {
                // Evict the oldest partial MSDU.
                if let Some((i, _)) = self.entries.iter().enumerate().min_by_key(|(_, e)| e.started_ns) {
                    self.entries.swap_remove(i);
                }
            }
            self.entries.push(Entry {
                ta,
                tid,
                seq: sc.sequence(),
                next_frag: 1,
                last_pn: meta.pn,
                key_tag: meta.key_tag,
                started_ns: now_ns,
                mpdu: mpdu.to_vec(),
                header_len: hl,
            });
            return Ok(None);
        }

        let i = pos.ok_or(Error::Fragment("no first fragment for this sequence"))?;
        let e = &self.entries[i];
        let why = if e.seq != sc.sequence() {
            Some("sequence number changed within an MSDU")
        } else if e.next_frag != sc.fragment() {
            Some("fragment number out of order")
        } else if e.key_tag != meta.key_tag {
            Some("fragments decrypted under different keys")
        } else if meta.consecutive_pn && !matches!((e.last_pn, meta.pn), (Some(a), Some(b)) if a.checked_add(1) == Some(b)) {
            Some("PNs of fragments not consecutive")
        } else if e.mpdu.len() - e.header_len + body.len() > self.max_msdu {
            Some("reassembled MSDU too long")
        } else {
            None
        };
        if let Some(w) = why {
            self.entries.swap_remove(i);
            return Err(Error::Fragment(w));
        }
        let e = &mut self.entries[i];
        e.mpdu.extend_from_slice(body);
        e.next_frag += 1;
        e.last_pn = meta.pn;
        if more {
            if e.next_frag > 15 {
                self.entries.swap_remove(i);
                return Err(Error::Fragment("more than 16 fragments"));
            }
            return Ok(None);
        }
        let mut out = self.entries.swap_remove(i).mpdu;
        let fcv = u16::from_le_bytes([out[0], out[1]]) & !fc::MORE_FRAGMENTS;
        out[0..2].copy_from_slice(&fcv.to_le_bytes());
        let seq = SeqControl::new(sc.sequence(), 0);
        out[22..24].copy_from_slice(&seq.0.to_le_bytes());
        Ok(Some(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::mac::{FrameControl, FrameType, HeaderRepr};

    fn frag(seq: u16, n: u8, more: bool, body: &[u8]) -> Vec<u8> {
        let repr = HeaderRepr {
            frame_control: FrameControl::new(FrameType::Data, 0).with(fc::MORE_FRAGMENTS, more),
            duration_id: 0,
            addr1: MacAddr([1; 6]),
            addr2: Some(MacAddr([2; 6])),
            addr3: Some(MacAddr([3; 6])),
            seq_control: Some(SeqControl::new(seq, n)),
            addr4: None,
            qos_control: None,
            ht_control: None,
        };
        let mut v = repr.to_vec().unwrap();
        v.extend_from_slice(body);
        v
    }

    fn meta(pn: u64, key_tag: u64) -> FragMeta {
        FragMeta { pn: Some(pn), consecutive_pn: true, key_tag }
    }

    #[test]
    fn reassembles_in_order() {
        let mut r = Reassembler::new();
        assert_eq!(r.push(0, &frag(7, 0, true, b"ab"), meta(10, 1)).unwrap(), None);
        assert_eq!(r.push(1, &frag(7, 1, true, b"cd"), meta(11, 1)).unwrap(), None);
        let whole = r.push(2, &frag(7, 2, false, b"e"), meta(12, 1)).unwrap().unwrap();
        assert_eq!(whole, frag(7, 0, false, b"abcde"));
        assert_eq!(r.pending(), 0);
        // An unfragmented MPDU passes straight through.
        assert_eq!(r.push(3, &frag(8, 0, false, b"x"), meta(13, 1)).unwrap().unwrap(), frag(8, 0, false, b"x"));
    }

    #[test]
    fn rejects_unsafe_sequences() {
        let mut r = Reassembler::new();
        r.push(0, &frag(7, 0, true, b"ab"), meta(10, 1)).unwrap();
        assert_eq!(r.push(0, &frag(7, 1, false, b"cd"), meta(12, 1)), Err(Error::Fragment("PNs of fragments not consecutive")));
        assert_eq!(r.pending(), 0);
        r.push(0, &frag(7, 0, true, b"ab"), meta(10, 1)).unwrap();
        assert_eq!(r.push(0, &frag(7, 1, false, b"cd"), meta(11, 2)), Err(Error::Fragment("fragments decrypted under different keys")));
        r.push(0, &frag(7, 0, true, b"ab"), meta(10, 1)).unwrap();
        assert_eq!(r.push(0, &frag(7, 2, false, b"cd"), meta(11, 1)), Err(Error::Fragment("fragment number out of order")));
        assert_eq!(r.push(0, &frag(9, 1, false, b"cd"), meta(11, 1)), Err(Error::Fragment("no first fragment for this sequence")));
        r.push(0, &frag(7, 0, true, b"ab"), meta(10, 1)).unwrap();
        assert!(r.push(0, &frag(8, 1, false, b"cd"), meta(11, 1)).is_err());
        // Timeout drops the partial MSDU.
        r.push(0, &frag(7, 0, true, b"ab"), meta(10, 1)).unwrap();
        assert!(r.push(DEFAULT_TIMEOUT_NS + 1, &frag(7, 1, false, b"cd"), meta(11, 1)).is_err());
    }

    #[test]
    fn memory_is_bounded() {
        let mut r = Reassembler::new();
        r.max_msdu = 100;
        let big = vec![0u8; 60];
        r.push(0, &frag(1, 0, true, &big), meta(1, 1)).unwrap();
        assert_eq!(r.push(0, &frag(1, 1, true, &big), meta(2, 1)), Err(Error::Fragment("reassembled MSDU too long")));
        for i in 0..100u16 {
            let mut f = frag(i, 0, true, &big);
            f[10] = i as u8; // a different TA each time
            r.push(i as u64, &f, meta(1, 1)).unwrap();
        }
        assert_eq!(r.pending(), r.max_entries);
        assert!(r.bytes_held() <= r.max_entries * (r.max_msdu + 36));
    }
}
