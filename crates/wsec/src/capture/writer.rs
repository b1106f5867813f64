//! Writing captures: classic pcap and pcapng, streamed one packet at a time.
//!
//! Formats, as [`super::CaptureReader`] reads them:
//! - classic pcap (tcpdump.org "pcap-savefile"; IETF draft-ietf-opsawg-pcap): a 24-octet
//!   file header (magic `a1b2c3d4` for microsecond or `a1b23c4d` for nanosecond time
//!   stamps, version 2.4, snap length, link type) and per packet a 16-octet record header
//!   (seconds, fraction, captured length, original length). Written little-endian.
//! - pcapng (IETF draft-ietf-opsawg-pcapng): a Section Header Block, one Interface
//!   Description Block per link type (written when the first packet of that link type
//!   arrives) and one Enhanced Packet Block per packet. Little-endian.
//!
//! Nothing is buffered beyond the record being written: wrap the sink in a
//! [`std::io::BufWriter`] for speed. Refused input (a time stamp the format cannot hold,
//! a packet of another link type in a pcap file, a link type over 16 bits in pcapng) is an
//! `io::Error` of kind `InvalidInput`, never a panic.
use std::io::{self, Read, Write};
use std::path::Path;

use super::{Packet, MAX_RECORD};

/// Snap length written in headers: libpcap's `MAXIMUM_SNAPLEN` (262144).
pub const SNAPLEN: u32 = 262_144;

const PCAP_MAGIC_US: u32 = 0xa1b2_c3d4;
const PCAP_MAGIC_NS: u32 = 0xa1b2_3c4d;
const BT_SHB: u32 = 0x0a0d_0d0a;
const BT_IDB: u32 = 1;
const BT_EPB: u32 = 6;
const BYTE_ORDER_MAGIC: u32 = 0x1a2b_3c4d;
/// IDB option `if_tsresol` (code 9): time stamp resolution, 10^-value seconds.
const OPT_IF_TSRESOL: u16 = 9;

/// The container of a capture file, as told by its first octets; see [`file_kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Classic pcap: time stamp resolution and the file's link type.
    Pcap { nanos: bool, linktype: u32 },
    /// pcapng (link types are per interface).
    PcapNg,
}

/// Tells pcap from pcapng by the first 24 octets of a file (as `CaptureReader::new` does),
/// so that an output file can be written in the input's format and time resolution.
pub fn kind_of(head: &[u8]) -> Option<FileKind> {
    let magic = head.get(..4)?;
    if magic == [0x0a, 0x0d, 0x0d, 0x0a] {
        return Some(FileKind::PcapNg);
    }
    let lt = head.get(20..24)?;
    let (le, nanos) = match magic {
        [0xd4, 0xc3, 0xb2, 0xa1] => (true, false),
        [0xa1, 0xb2, 0xc3, 0xd4] => (false, false),
        [0x4d, 0x3c, 0xb2, 0xa1] => (true, true),
        [0xa1, 0xb2, 0x3c, 0x4d] => (false, true),
        _ => return None,
    };
    let lt = [lt[0], lt[1], lt[2], lt[3]];
    let linktype = if le { u32::from_le_bytes(lt) } else { u32::from_be_bytes(lt) } & 0x0fff_ffff;
    Some(FileKind::Pcap { nanos, linktype })
}

/// [`kind_of`] on the first octets of a file.
pub fn file_kind(path: &Path) -> io::Result<FileKind> {
    let mut head = Vec::with_capacity(24);
    std::fs::File::open(path)?.take(24).read_to_end(&mut head)?;
    kind_of(&head).ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "not a pcap or pcapng file"))
}

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, what)
}

enum Out {
    Pcap {
        linktype: u32,
        nanos: bool,
    },
    /// Link type of each interface written so far (interface ID = index).
    PcapNg {
        ifaces: Vec<u32>,
        nanos: bool,
    },
}

/// Streams packets into a pcap or pcapng file.
pub struct CaptureWriter<W: Write> {
    w: W,
    out: Out,
    count: u64,
}

impl<W: Write> CaptureWriter<W> {
    /// Classic pcap with one link type; `nanos` selects nanosecond time stamps (magic
    /// `a1b23c4d`), else microseconds. Writes the file header now.
    pub fn pcap(mut w: W, linktype: u32, nanos: bool) -> io::Result<Self> {
        if linktype > 0x0fff_ffff {
            return Err(invalid(format!("link type {linktype} does not fit a pcap header")));
        }
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&(if nanos { PCAP_MAGIC_NS } else { PCAP_MAGIC_US }).to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        // thiszone and sigfigs: 0.
        h[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
        h[20..24].copy_from_slice(&linktype.to_le_bytes());
        w.write_all(&h)?;
        Ok(CaptureWriter { w, out: Out::Pcap { linktype, nanos }, count: 0 })
    }

    /// pcapng with microsecond time stamps (the format's default resolution, which every
    /// reader assumes when `if_tsresol` is absent). Writes the Section Header Block now.
    pub fn pcapng(w: W) -> io::Result<Self> {
        Self::pcapng_with(w, false)
    }

    /// pcapng whose interfaces carry `if_tsresol` = 9 (nanoseconds): no precision is lost
    /// from what [`crate::capture::CaptureReader`] delivers.
    pub fn pcapng_nanos(w: W) -> io::Result<Self> {
        Self::pcapng_with(w, true)
    }

    fn pcapng_with(mut w: W, nanos: bool) -> io::Result<Self> {
        // SHB: type, length 28, byte-order magic, version 1.0, section length -1
        // (unknown), no options, length again.
        let mut b = Vec::with_capacity(28);
        b.extend_from_slice(&BT_SHB.to_le_bytes());
        b.extend_from_slice(&28u32.to_le_bytes());
        b.extend_from_slice(&BYTE_ORDER_MAGIC.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&u64::MAX.to_le_bytes());
        b.extend_from_slice(&28u32.to_le_bytes());
        w.write_all(&b)?;
        Ok(CaptureWriter { w, out: Out::PcapNg { ifaces: Vec::new(), nanos }, count: 0 })
    }

    /// A writer in the format of an input file (see [`file_kind`]), for packets of
    /// `linktype` (used by classic pcap only; pcapng declares link types as they come).
    pub fn like(w: W, kind: FileKind, linktype: u32) -> io::Result<Self> {
        match kind {
            FileKind::Pcap { nanos, .. } => Self::pcap(w, linktype, nanos),
            FileKind::PcapNg => Self::pcapng_nanos(w),
        }
    }

    /// Packets written so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Appends one packet. A refused packet writes nothing.
    pub fn write(&mut self, pkt: &Packet) -> io::Result<()> {
        let len = pkt.data.len();
        if len > MAX_RECORD {
            // CaptureReader refuses records this long: do not write what cannot be read.
            return Err(invalid(format!("packet of {len} octets (at most {MAX_RECORD})")));
        }
        match &mut self.out {
            Out::Pcap { linktype, nanos } => {
                if pkt.linktype != *linktype {
                    return Err(invalid(format!(
                        "packet of link type {} in a pcap file of link type {linktype} (use pcapng)",
                        pkt.linktype
                    )));
                }
                let sec = pkt.ts_ns / 1_000_000_000;
                let sub = pkt.ts_ns % 1_000_000_000;
                let frac = if *nanos { sub } else { sub / 1000 };
                let sec = u32::try_from(sec).map_err(|_| invalid(format!("time stamp {} ns after 2106", pkt.ts_ns)))?;
                let mut h = [0u8; 16];
                h[0..4].copy_from_slice(&sec.to_le_bytes());
                h[4..8].copy_from_slice(&(frac as u32).to_le_bytes());
                h[8..12].copy_from_slice(&(len as u32).to_le_bytes());
                // The original length is not kept by `Packet`: the captured length stands in.
                h[12..16].copy_from_slice(&(len as u32).to_le_bytes());
                self.w.write_all(&h)?;
                self.w.write_all(&pkt.data)?;
            }
            Out::PcapNg { ifaces, nanos } => {
                let nanos = *nanos;
                let iface = match ifaces.iter().position(|&l| l == pkt.linktype) {
                    Some(i) => i,
                    None => {
                        let lt =
                            u16::try_from(pkt.linktype).map_err(|_| invalid(format!("link type {} does not fit pcapng", pkt.linktype)))?;
                        write_idb(&mut self.w, lt, nanos)?;
                        ifaces.push(pkt.linktype);
                        ifaces.len() - 1
                    }
                };
                let ts = if nanos { pkt.ts_ns } else { pkt.ts_ns / 1000 };
                let pad = (4 - len % 4) % 4;
                let total = (32 + len + pad) as u32;
                let mut h = [0u8; 28];
                h[0..4].copy_from_slice(&BT_EPB.to_le_bytes());
                h[4..8].copy_from_slice(&total.to_le_bytes());
                h[8..12].copy_from_slice(&(iface as u32).to_le_bytes());
                h[12..16].copy_from_slice(&((ts >> 32) as u32).to_le_bytes());
                h[16..20].copy_from_slice(&(ts as u32).to_le_bytes());
                h[20..24].copy_from_slice(&(len as u32).to_le_bytes());
                h[24..28].copy_from_slice(&(len as u32).to_le_bytes());
                self.w.write_all(&h)?;
                self.w.write_all(&pkt.data)?;
                self.w.write_all(&[0u8; 3][..pad])?;
                self.w.write_all(&total.to_le_bytes())?;
            }
        }
        self.count += 1;
        Ok(())
    }

    /// Flushes the sink (a live capture streams each frame as it is written).
    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }

    /// Flushes and returns the sink. (Dropping the writer without calling this leaves a
    /// valid file too, once the sink itself is flushed: there is no trailer.)
    pub fn finish(mut self) -> io::Result<W> {
        self.w.flush()?;
        Ok(self.w)
    }
}

/// Interface Description Block: link type, reserved, snap length, then `if_tsresol` for
/// nanoseconds and `opt_endofopt`.
fn write_idb<W: Write>(w: &mut W, linktype: u16, nanos: bool) -> io::Result<()> {
    let mut b = Vec::with_capacity(32);
    b.extend_from_slice(&BT_IDB.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes()); // length, patched below
    b.extend_from_slice(&linktype.to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    b.extend_from_slice(&SNAPLEN.to_le_bytes());
    if nanos {
        b.extend_from_slice(&OPT_IF_TSRESOL.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&[9, 0, 0, 0]); // value and padding to 32 bits
        b.extend_from_slice(&[0u8; 4]); // opt_endofopt
    }
    let total = (b.len() + 4) as u32;
    b[4..8].copy_from_slice(&total.to_le_bytes());
    b.extend_from_slice(&total.to_le_bytes());
    w.write_all(&b)
}

#[cfg(test)]
mod tests {
    use super::super::CaptureReader;
    use super::*;
    use std::path::PathBuf;

    fn pkt(linktype: u32, ts_ns: u64, data: &[u8]) -> Packet {
        Packet { linktype, ts_ns, data: data.to_vec() }
    }

    fn read_all(bytes: &[u8]) -> Vec<Packet> {
        CaptureReader::new(bytes).unwrap().map(|p| p.unwrap()).collect()
    }

    #[test]
    fn pcap_micro_and_nano() {
        let ps = [pkt(105, 1_234_567_891_000, &[1, 2, 3]), pkt(105, 5_000_000_000, &[]), pkt(105, 7, &[9; 70])];
        let mut w = CaptureWriter::pcap(Vec::new(), 105, true).unwrap();
        for p in &ps {
            w.write(p).unwrap();
        }
        let bytes = w.finish().unwrap();
        assert_eq!(&bytes[..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(bytes.len(), 24 + 3 * 16 + 3 + 70);
        assert_eq!(kind_of(&bytes), Some(FileKind::Pcap { nanos: true, linktype: 105 }));
        assert_eq!(read_all(&bytes), ps);

        // Microseconds: the sub-microsecond part is dropped.
        let mut w = CaptureWriter::pcap(Vec::new(), 127, false).unwrap();
        w.write(&pkt(127, 1_000_001_999, &[5])).unwrap();
        let bytes = w.finish().unwrap();
        assert_eq!(&bytes[..4], &[0xd4, 0xc3, 0xb2, 0xa1]);
        assert_eq!(read_all(&bytes), [pkt(127, 1_000_001_000, &[5])]);
    }

    #[test]
    fn pcap_refusals_are_errors() {
        let mut w = CaptureWriter::pcap(Vec::new(), 105, false).unwrap();
        assert_eq!(w.write(&pkt(127, 0, &[1])).unwrap_err().kind(), io::ErrorKind::InvalidInput);
        assert!(w.write(&pkt(105, (u32::MAX as u64 + 1) * 1_000_000_000, &[1])).is_err());
        assert!(w.write(&pkt(105, 0, &vec![0; MAX_RECORD + 1])).is_err());
        assert_eq!(w.count(), 0);
        assert_eq!(w.finish().unwrap().len(), 24, "refused packets leave nothing behind");
        assert!(CaptureWriter::pcap(Vec::new(), 0x1000_0000, false).is_err());
        let mut w = CaptureWriter::pcapng(Vec::new()).unwrap();
        assert!(w.write(&pkt(70_000, 0, &[1])).is_err());
    }

    #[test]
    fn pcapng_one_idb_per_link_type() {
        let ps = [
            pkt(127, 1_000, &[1, 2, 3, 4, 5]),
            pkt(105, 2_000, &[6]),
            pkt(127, 3_000, &[7, 8, 9, 10]),
            pkt(1, u64::MAX / 1000 * 1000, &[]),
        ];
        let mut w = CaptureWriter::pcapng(Vec::new()).unwrap();
        for p in &ps {
            w.write(p).unwrap();
        }
        let bytes = w.finish().unwrap();
        // SHB 28 + 3 IDBs of 20 + EPBs of 32 + padded data (8, 4, 4, 0).
        assert_eq!(bytes.len(), 28 + 3 * 20 + 4 * 32 + 8 + 4 + 4);
        // Block types in order: SHB, IDB(127), EPB, IDB(105), EPB, EPB, IDB(1), EPB.
        let mut types = Vec::new();
        let mut off = 0;
        while off < bytes.len() {
            types.push(u32::from_le_bytes(bytes[off..off + 4].try_into().unwrap()));
            off += u32::from_le_bytes(bytes[off + 4..off + 8].try_into().unwrap()) as usize;
        }
        assert_eq!(types, [BT_SHB, 1, 6, 1, 6, 6, 1, 6]);
        assert_eq!(kind_of(&bytes), Some(FileKind::PcapNg));
        assert_eq!(read_all(&bytes), ps);

        // Nanosecond variant: if_tsresol present, the block structure still reads.
        let mut w = CaptureWriter::pcapng_nanos(Vec::new()).unwrap();
        w.write(&pkt(105, 123_456_789, &[1, 2])).unwrap();
        let bytes = w.finish().unwrap();
        assert_eq!(bytes.len(), 28 + 32 + 32 + 4);
        assert_eq!(&bytes[28 + 16..28 + 24], &[9, 0, 1, 0, 9, 0, 0, 0]);
        assert_eq!(read_all(&bytes).len(), 1);
    }

    fn captures_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/captures")
    }

    fn capture_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                capture_files(&p, out);
            } else if kind_of(&std::fs::read(&p).unwrap_or_default()).is_some() {
                out.push(p);
            }
        }
    }

    /// Every shared capture, read, written (in its own format, then in the other), read
    /// back: the same packets. Time stamps in these files are whole microseconds.
    #[test]
    fn round_trip_every_shared_capture() {
        let mut files = Vec::new();
        capture_files(&captures_dir(), &mut files);
        files.sort();
        assert!(files.len() >= 25, "captures missing under {}", captures_dir().display());
        let mut total = 0;
        for f in &files {
            // A file cut short in its last record (pmkid-not-recognized.cap) yields its whole
            // packets, then one error: the whole packets are what is written.
            let (mut packets, mut errors) = (Vec::new(), 0);
            for p in CaptureReader::open(f).unwrap() {
                match p {
                    Ok(p) => packets.push(p),
                    Err(_) => errors += 1,
                }
            }
            let cut = f.ends_with("pmkid-not-recognized.cap");
            assert_eq!(errors, cut as usize, "{}", f.display());
            assert!(!packets.is_empty(), "{}", f.display());
            total += packets.len();
            let kind = file_kind(f).unwrap();
            let lt = packets[0].linktype;
            let single = packets.iter().all(|p| p.linktype == lt);
            // (output, whether it keeps nanoseconds)
            let mut outs = Vec::new();
            let mut ng = CaptureWriter::pcapng_nanos(Vec::new()).unwrap();
            let mut same = CaptureWriter::like(Vec::new(), kind, lt).unwrap();
            for p in &packets {
                ng.write(p).unwrap();
                if single {
                    same.write(p).unwrap();
                }
            }
            outs.push((ng.finish().unwrap(), true));
            if single {
                let same_ns = !matches!(kind, FileKind::Pcap { nanos: false, .. });
                outs.push((same.finish().unwrap(), same_ns));
                for nanos in [false, true] {
                    let mut w = CaptureWriter::pcap(Vec::new(), lt, nanos).unwrap();
                    for p in &packets {
                        w.write(p).unwrap();
                    }
                    outs.push((w.finish().unwrap(), nanos));
                }
            }
            let micro: Vec<Packet> = packets.iter().map(|p| Packet { ts_ns: p.ts_ns / 1000 * 1000, ..p.clone() }).collect();
            for (o, ns) in &outs {
                assert_eq!(read_all(o), if *ns { packets.clone() } else { micro.clone() }, "{}", f.display());
            }
        }
        assert!(total > 80_000, "{total} packets");
    }
}
