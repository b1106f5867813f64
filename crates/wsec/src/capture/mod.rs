//! Reading 802.11 captures: pcap and pcapng files (via `pcap-file`), and the radio
//! headers in front of the MPDU ([`radio`]).
pub mod radio;
pub mod rewrite;
pub mod synth;
pub mod synth_ft;
pub mod synth_tdls;
pub mod writer;

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

/// Why a capture could not be read.
#[derive(Debug)]
pub enum CaptureError {
    Io(std::io::Error),
    /// Not a pcap/pcapng file, or a damaged record; the text says where.
    Format(String),
}

impl core::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CaptureError::Io(e) => write!(f, "I/O error: {e}"),
            CaptureError::Format(s) => write!(f, "bad capture: {s}"),
        }
    }
}

impl std::error::Error for CaptureError {}

impl From<std::io::Error> for CaptureError {
    fn from(e: std::io::Error) -> Self {
        CaptureError::Io(e)
    }
}

/// One captured packet with the link type of its interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    pub linktype: u32,
    /// Timestamp in nanoseconds since the epoch, as recorded (not validated).
    pub ts_ns: u64,
    pub data: Vec<u8>,
}

/// Largest packet or block accepted: a bound on memory for garbage input.
pub const MAX_RECORD: usize = 1 << 20;

enum Format {
    /// Classic pcap (tcpdump): byte order, nanosecond timestamps, link type.
    Pcap { le: bool, nanos: bool, linktype: u32 },
    /// pcapng: byte order of the current section, link type and tick of each interface,
    /// and where the next block starts (its index in the file and its offset), for errors.
    PcapNg { le: bool, ifaces: Vec<(u32, TsResol)>, block: u64, offset: u64 },
}

/// Streams the packets of a pcap or pcapng file, one record in memory at a time.
///
/// Hand-written because the readers on crates.io refuse records that tshark and
/// aircrack-ng read (e.g. a timestamp with a microsecond field over 10^6): a capture tool
/// must keep such packets. After a truncated or damaged record it yields one error and
/// then ends; every whole packet before it has been delivered.
pub struct CaptureReader<R: Read = BufReader<File>> {
    r: R,
    fmt: Format,
    done: bool,
}

/// A pcapng interface's timestamp tick: 10^-n or 2^-n seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TsResol {
    Dec(u8),
    Bin(u8),
}

impl TsResol {
    fn to_ns(self, ts: u64) -> u64 {
        let ns: u128 = match self {
            TsResol::Dec(n) if n <= 9 => ts as u128 * 10u128.pow(9 - n as u32),
            TsResol::Dec(n) => ts as u128 / 10u128.pow((n as u32 - 9).min(38)),
            TsResol::Bin(n) => ((ts as u128) * 1_000_000_000) >> n.min(127),
        };
        u64::try_from(ns).unwrap_or(u64::MAX)
    }
}

/// The if_tsresol option (code 9) among an Interface Description Block's options.
fn tsresol(mut opts: &[u8], le: bool) -> TsResol {
    let u16_of = |b: &[u8]| if le { u16::from_le_bytes([b[0], b[1]]) } else { u16::from_be_bytes([b[0], b[1]]) };
    while opts.len() >= 4 {
        let (code, len) = (u16_of(&opts[0..2]), u16_of(&opts[2..4]) as usize);
        if code == 0 {
            break;
        }
        let Some(v) = opts.get(4..4 + len) else { break };
        if code == 9 && len == 1 {
            return if v[0] & 0x80 == 0 { TsResol::Dec(v[0]) } else { TsResol::Bin(v[0] & 0x7f) };
        }
        opts = opts.get(4 + len.div_ceil(4) * 4..).unwrap_or(&[]);
    }
    TsResol::Dec(6)
}

fn u32_of(b: &[u8], le: bool) -> u32 {
    let a = [b[0], b[1], b[2], b[3]];
    if le {
        u32::from_le_bytes(a)
    } else {
        u32::from_be_bytes(a)
    }
}

impl CaptureReader<BufReader<File>> {
    /// Opens a capture file, telling pcap from pcapng by the magic number.
    pub fn open(path: &Path) -> Result<Self, CaptureError> {
        Self::new(BufReader::new(File::open(path)?))
    }
}

impl<R: Read> CaptureReader<R> {
    /// Reads a capture from any byte stream.
    pub fn new(mut r: R) -> Result<Self, CaptureError> {
        let mut head = [0u8; 24];
        r.read_exact(&mut head[..4]).map_err(|_| CaptureError::Format("shorter than a file header".into()))?;
        let fmt = match head[..4] {
            [0x0a, 0x0d, 0x0d, 0x0a] => {
                // Section Header Block: total length, byte-order magic; the rest skipped.
                r.read_exact(&mut head[4..12]).map_err(|_| CaptureError::Format("truncated pcapng header".into()))?;
                let le = match head[8..12] {
                    [0x4d, 0x3c, 0x2b, 0x1a] => true,
                    [0x1a, 0x2b, 0x3c, 0x4d] => false,
                    _ => return Err(CaptureError::Format("pcapng byte-order magic".into())),
                };
                let total = u32_of(&head[4..8], le) as usize;
                if !(28..=MAX_RECORD).contains(&total) {
                    return Err(CaptureError::Format("pcapng section header length".into()));
                }
                let mut rest = vec![0u8; total - 12];
                r.read_exact(&mut rest).map_err(|_| CaptureError::Format("truncated pcapng header".into()))?;
                Format::PcapNg { le, ifaces: Vec::new(), block: 1, offset: total as u64 }
            }
            _ => {
                r.read_exact(&mut head[4..]).map_err(|_| CaptureError::Format("truncated pcap header".into()))?;
                let (le, nanos) = match head[..4] {
                    [0xd4, 0xc3, 0xb2, 0xa1] => (true, false),
                    [0xa1, 0xb2, 0xc3, 0xd4] => (false, false),
                    [0x4d, 0x3c, 0xb2, 0xa1] => (true, true),
                    [0xa1, 0xb2, 0x3c, 0x4d] => (false, true),
                    _ => return Err(CaptureError::Format("not a pcap or pcapng file".into())),
                };
                Format::Pcap { le, nanos, linktype: u32_of(&head[20..24], le) & 0x0fff_ffff }
            }
        };
        Ok(CaptureReader { r, fmt, done: false })
    }

    fn fail(&mut self, what: String) -> Option<Result<Packet, CaptureError>> {
        self.done = true;
        Some(Err(CaptureError::Format(what)))
    }

    /// Reads exactly `n` octets; `Ok(false)` at a clean end of file before the first octet.
    fn read_record(&mut self, buf: &mut [u8]) -> std::io::Result<bool> {
        let mut got = 0;
        while got < buf.len() {
            match self.r.read(&mut buf[got..]) {
                Ok(0) if got == 0 => return Ok(false),
                Ok(0) => return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "truncated record")),
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }
}

impl<R: Read> Iterator for CaptureReader<R> {
    type Item = Result<Packet, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.fmt {
            Format::Pcap { le, nanos, linktype } => {
                let mut h = [0u8; 16];
                match self.read_record(&mut h) {
                    Ok(false) => {
                        self.done = true;
                        return None;
                    }
                    Ok(true) => {}
                    Err(e) => return self.fail(format!("pcap record header: {e}")),
                }
                let (sec, frac, incl) = (u32_of(&h[0..4], le) as u64, u32_of(&h[4..8], le) as u64, u32_of(&h[8..12], le) as usize);
                if incl > MAX_RECORD {
                    return self.fail(format!("pcap record of {incl} octets"));
                }
                let mut data = vec![0u8; incl];
                match self.read_record(&mut data) {
                    Ok(true) => {}
                    Ok(false) => return self.fail("pcap record: truncated record".into()),
                    Err(e) => return self.fail(format!("pcap record: {e}")),
                }
                let ts_ns = sec * 1_000_000_000 + if nanos { frac } else { frac * 1000 };
                Some(Ok(Packet { linktype, ts_ns, data }))
            }
            Format::PcapNg { le, .. } => loop {
                // Every refusal below says which block and where (pcapng, IETF draft
                // draft-ietf-opsawg-pcapng section 3.1: a block is type, total length, body,
                // total length again).
                let Format::PcapNg { block, offset, .. } = self.fmt else { unreachable!() };
                let at = |what: String| format!("block {block} at offset {offset:#x}: {what}");
                let mut h = [0u8; 8];
                match self.read_record(&mut h) {
                    Ok(false) => {
                        self.done = true;
                        return None;
                    }
                    Ok(true) => {}
                    Err(e) => return self.fail(at(format!("pcapng block header: {e}"))),
                }
                let (btype, total) = (u32_of(&h[0..4], le), u32_of(&h[4..8], le) as usize);
                if total < 12 || !total.is_multiple_of(4) || total > MAX_RECORD {
                    return self.fail(at(format!("pcapng block length {total}")));
                }
                let mut b = vec![0u8; total - 8];
                match self.read_record(&mut b) {
                    Ok(true) => {}
                    Ok(false) | Err(_) => return self.fail(at("pcapng block: truncated".into())),
                }
                let trailer = u32_of(&b[b.len() - 4..], le) as usize;
                if trailer != total {
                    return self.fail(at(format!("trailing block length {trailer} differs from {total}")));
                }
                // The minimum length of each block type the reader interprets.
                let min = match btype {
                    1 => Some((20, "interface description block")),
                    6 => Some((32, "enhanced packet block")),
                    3 => Some((16, "simple packet block")),
                    _ => None,
                };
                if let Some((min, name)) = min.filter(|&(min, _)| total < min) {
                    return self.fail(at(format!("{name} shorter than {min} octets")));
                }
                let Format::PcapNg { ifaces, block, offset, .. } = &mut self.fmt else { unreachable!() };
                *block += 1;
                *offset += total as u64;
                // The body without its trailing length.
                let body = &b[..b.len() - 4];
                match btype {
                    // Interface Description: link type (2), reserved (2), snaplen (4), options;
                    // option 9, if_tsresol, gives the timestamp tick (default 10^-6 s).
                    1 => {
                        let lt = if le { u16::from_le_bytes([body[0], body[1]]) } else { u16::from_be_bytes([body[0], body[1]]) };
                        ifaces.push((lt as u32, tsresol(&body[8..], le)));
                    }
                    // Enhanced Packet: interface, ts high, ts low, captured len, orig len, data.
                    6 => {
                        let iface = u32_of(&body[0..4], le) as usize;
                        let ts = ((u32_of(&body[4..8], le) as u64) << 32) | u32_of(&body[8..12], le) as u64;
                        let cap = u32_of(&body[12..16], le) as usize;
                        let Some(&(lt, tick)) = ifaces.get(iface) else {
                            return self.fail(at(format!("packet of an undeclared interface {iface}")));
                        };
                        let Some(data) = body.get(20..20 + cap) else {
                            return self.fail(at(format!("captured length {cap} longer than the block")));
                        };
                        return Some(Ok(Packet { linktype: lt, ts_ns: tick.to_ns(ts), data: data.to_vec() }));
                    }
                    // Simple Packet: original length, data (up to the interface's snap length).
                    3 => {
                        let Some(&(lt, _)) = ifaces.first() else {
                            return self.fail(at("simple packet before any interface".into()));
                        };
                        let orig = u32_of(&body[0..4], le) as usize;
                        let data = &body[4..(4 + orig).min(body.len())];
                        return Some(Ok(Packet { linktype: lt, ts_ns: 0, data: data.to_vec() }));
                    }
                    // A new section may change the byte order.
                    0x0a0d0d0a => return self.fail(at("multi-section pcapng files are not supported".into())),
                    _ => continue,
                }
            },
        }
    }
}
