//! Test vectors for the Verilog engines in `hw/` (`wsec hw-vectors`), computed by the
//! library (the golden model) and written in a hex line format that a testbench reads with
//! `$fscanf(fd, "%h", ...)`.
//!
//! File format (all numbers hex, no prefix, whitespace separated):
//! ```text
//! <frames>                                   number of frame records that follow
//! per frame:
//! <key:32> <hdr:64> <pn:12> <len:4> <flags:2>
//! <plain:32> <cipher:32>                     ceil(len / 16) lines, zero padded past len
//! <mic:16>
//! ```
//! - `ccmp`, `eccmp-k`: `hdr` is the first 32 octets of the plaintext MPDU's MAC header
//!   (Frame Control first, zero padded; octets past the header are don't-care for the
//!   engine, which parses Frame Control itself), `pn` the 48-bit PN, `flags` bit 0 = SPP
//!   A-MSDU. Expected ciphertext and MIC come from the library: `wsec::cipher::ccmp::Ccmp`
//!   for `ccmp`, and for `eccmp-k` a construction written here literally from
//!   `docs/eccmp.md` with block-by-block AES (the `aes` crate), under the library's own
//!   802.11 framing (`cipher::mpdu::encapsulate`: same AAD and nonce as CCMP), and every
//!   frame is checked against the library's own ECCMP (`wsec::cipher::eccmp`) before it
//!   is written: two implementations must agree.
//!   Frame 0 of these suites is the IEEE CCMP vector of 802.11-2020 J.6.4 (vectors.md 1.1);
//!   for `ccmp` its expected output is checked against the published MPDU before writing.
//! - `ccm16e`: `hdr` holds the 5 octets of the generic MAC header that enter the nonce
//!   (as transmitted: EC, EKS, LEN set), in the first 5 octets; `pn` the 32-bit PN.
//!   Expected output from `wsec::cipher::ccm16e::Ccm16e::encapsulate` on a random PDU.
//!
//! - `aes`: `<frames>` then lines `<key:32> <plaintext:32> <ciphertext:32>` (AES-128 from
//!   the `aes` crate) for the AES core alone.
//!
//! Frame 1 of the frame suites has a 1500-octet body; the testbenches time it.
//! Random frames (seeded, reproducible): body lengths 0-2304 octets (`--max-len`), data
//! frames with and without QoS and with 4 addresses, HT Control (Order), management
//! frames (MFP), random Retry/PwrMgt/MoreData/fragment/sequence bits, 1 in 4 with SPP.
use crate::error::{Error, Result};
use aes::cipher::{BlockEncrypt, KeyInit};
use aes::Aes128;
use std::fmt::Write as _;
use std::path::Path;
use wsec::cipher::ccm16e::Ccm16e;
use wsec::cipher::ccmp::Ccmp;
use wsec::cipher::eccmp::Eccmp;
use wsec::cipher::{mpdu, AadOptions, CipherSuite, OrderRule, Protection};

/// The engine the vectors are for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Suite {
    Ccmp,
    Eccmp1,
    Eccmp2,
    Eccmp4,
    Eccmp8,
    Ccm16e,
    /// AES-128 blocks alone: lines `key plaintext ciphertext` (for tb_aes_block).
    Aes,
}

/// What [`generate`] writes.
#[derive(Clone, Copy, Debug)]
pub struct Generate {
    pub suite: Suite,
    /// Number of frames (the first is the IEEE CCMP vector for ccmp/eccmp-k).
    pub count: usize,
    /// Seed of the random frames.
    pub seed: u64,
    /// Largest frame body in octets (0-2304; 802.16e PDUs are capped by LEN at 2029).
    pub max_len: usize,
}

/// splitmix64: a small reproducible generator (the vectors must not depend on a crate's
/// RNG algorithm staying the same across versions).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn fill(&mut self, b: &mut [u8]) {
        for x in b {
            *x = self.next() as u8;
        }
    }
}

/// One frame as the testbench sees it.
struct Record {
    key: [u8; 16],
    hdr: [u8; 32],
    pn: u64,
    plain: Vec<u8>,
    cipher: Vec<u8>,
    mic: [u8; 8],
    spp: bool,
}

impl Record {
    fn write(&self, s: &mut String) {
        let _ = writeln!(s, "{} {} {:012x} {:04x} {:02x}", hex(&self.key), hex(&self.hdr), self.pn, self.plain.len(), self.spp as u8);
        for (p, c) in self.plain.chunks(16).zip(self.cipher.chunks(16)) {
            let mut pb = [0u8; 16];
            let mut cb = [0u8; 16];
            pb[..p.len()].copy_from_slice(p);
            cb[..c.len()].copy_from_slice(c);
            let _ = writeln!(s, "{} {}", hex(&pb), hex(&cb));
        }
        let _ = writeln!(s, "{}", hex(&self.mic));
    }
}

/// The lane count of an ECCMP suite (1 for CCMP).
fn lanes(s: Suite) -> usize {
    match s {
        Suite::Eccmp2 => 2,
        Suite::Eccmp4 => 4,
        Suite::Eccmp8 => 8,
        _ => 1,
    }
}

/// ECCMP-k seal written literally from docs/eccmp.md ("The construction", steps 1-4).
pub fn eccmp_seal_doc(key: &[u8; 16], k: usize, nonce: &[u8; 13], aad: &[u8], data: &mut [u8], mic: &mut [u8]) {
    let aes = Aes128::new(key.into());
    let enc = |b: [u8; 16]| {
        let mut g = b.into();
        aes.encrypt_block(&mut g);
        <[u8; 16]>::from(g)
    };
    let p = data.len();
    // Step 1: X_0 = B0, X_1..X_A = len(a) || a padded, then P padded.
    let mut x: Vec<[u8; 16]> = Vec::new();
    let mut b0 = [0u8; 16];
    b0[0] = 0x59;
    b0[1..14].copy_from_slice(nonce);
    b0[14..].copy_from_slice(&(p as u16).to_be_bytes());
    x.push(b0);
    let mut a = (aad.len() as u16).to_be_bytes().to_vec();
    a.extend_from_slice(aad);
    let n_a = a.len().div_ceil(16);
    for c in a.chunks(16) {
        let mut blk = [0u8; 16];
        blk[..c.len()].copy_from_slice(c);
        x.push(blk);
    }
    for c in data.chunks(16) {
        let mut blk = [0u8; 16];
        blk[..c.len()].copy_from_slice(c);
        x.push(blk);
    }
    let cbc = |seq: &mut dyn Iterator<Item = [u8; 16]>| {
        let mut y = [0u8; 16];
        for z in seq {
            for i in 0..16 {
                y[i] ^= z[i];
            }
            y = enc(y);
        }
        y
    };
    // Steps 2-3.
    let t = if k == 1 {
        cbc(&mut x.iter().copied())
    } else {
        let mut t = [0u8; 16];
        for l in 0..k {
            let mut d = [0u8; 16];
            d[0] = 0x80 | ((l as u8) << 4) | (((k.trailing_zeros() - 1) as u8) << 2) | n_a as u8;
            d[1..14].copy_from_slice(nonce);
            d[14..].copy_from_slice(&(p as u16).to_be_bytes());
            let lane = std::iter::once(d).chain(x.iter().copied().skip(l).step_by(k));
            let v = cbc(&mut lane.into_iter());
            for i in 0..16 {
                t[i] ^= v[i];
            }
        }
        t
    };
    // Step 4: CCM's CTR.
    let ctr = |i: usize| {
        let mut blk = [0u8; 16];
        blk[0] = 0x01;
        blk[1..14].copy_from_slice(nonce);
        blk[14..].copy_from_slice(&(i as u16).to_be_bytes());
        enc(blk)
    };
    for (j, c) in data.chunks_mut(16).enumerate() {
        let s = ctr(j + 1);
        for (i, b) in c.iter_mut().enumerate() {
            *b ^= s[i];
        }
    }
    let s0 = ctr(0);
    for i in 0..mic.len() {
        mic[i] = t[i] ^ s0[i];
    }
}

/// Body length of frame 1 (the frame the testbenches time).
const FRAME_TIMED: usize = 1500;

/// The IEEE CCMP vector (802.11-2020 J.6.4; vectors.md 1.1).
const J64_TK: &str = "c97c1f67ce371185514a8a19f2bdd52f";
const J64_PN: u64 = 0xB503_9776_E70C;
const J64_HDR: &str = "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033";
const J64_DATA: &str = "f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050";
const J64_MPDU: &str = "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba80330ce70020769703b5\
                        f3d0a2fe9a3dbf2342a643e43246e80c3c04d0197845ce0b16f97623";

/// A random plaintext MPDU (header || body) that CCMP can protect.
fn random_mpdu(r: &mut Rng, max_len: usize, body_len: Option<usize>) -> Vec<u8> {
    let kind = if body_len.is_some() { 1 } else { r.below(6) };
    let mut fcv: u16 = match kind {
        0 => 0x0008,                                        // Data
        1 | 2 => 0x0088,                                    // QoS Data
        3 => 0x0008 | 0x0300,                               // Data, 4 addresses
        4 => 0x0088 | 0x0300,                               // QoS Data, 4 addresses
        _ => [0x00d0, 0x00a0, 0x00c0][r.below(3) as usize], // Action, Disassoc, Deauth
    };
    if kind < 5 {
        // To/From DS: 4-address frames have both; the others any other combination.
        fcv |= if kind == 3 || kind == 4 { 0x0300 } else { [0x0000, 0x0100, 0x0200][r.below(3) as usize] };
        // Data subtype bits b4-b5 (CF-Ack/CF-Poll variants still carry a body): masked in the AAD.
        fcv |= (r.below(4) as u16) << 4;
    }
    // Retry, PwrMgt, MoreData, MoreFragments, Order at random.
    fcv |= (r.next() as u16) & 0x2c00;
    fcv |= (r.next() as u16) & 0x1000;
    if r.below(3) == 0 {
        fcv |= 0x8000;
    }
    let f = wsec::wire::mac::FrameControl(fcv);
    let hl = f.header_len().expect("data/management header");
    let body = body_len.unwrap_or_else(|| r.below(max_len as u64 + 1) as usize);
    let mut m = vec![0u8; hl + body];
    r.fill(&mut m);
    m[..2].copy_from_slice(&fcv.to_le_bytes());
    m
}

fn ccmp_record(key: [u8; 16], mpdu: &[u8], pn: u64, spp: bool, k: usize) -> Result<Record> {
    let opts = AadOptions { order_rule: OrderRule::Current, spp_amsdu: spp };
    let f = wsec::wire::mac::FrameControl(u16::from_le_bytes([mpdu[0], mpdu[1]]));
    let hl = f.header_len()?;
    let mut out = Vec::new();
    if k == 1 {
        let c = Ccmp::with_options(&key, opts)?;
        c.encapsulate(mpdu, pn, 0, &mut out)?;
        // The doc's k = 1 is CCMP bit for bit: check the literal construction agrees.
        let mut again = Vec::new();
        mpdu::encapsulate(mpdu, pn, 0, 8, opts, &mut again, |n, aad, data, mic| {
            eccmp_seal_doc(&key, 1, &n.ccm(pn), aad.as_bytes(), data, mic);
            Ok(())
        })?;
        if again != out {
            return Err(Error::Verify("docs/eccmp.md k = 1 differs from the library's CCMP".into()));
        }
    } else {
        mpdu::encapsulate(mpdu, pn, 0, 8, opts, &mut out, |n, aad, data, mic| {
            eccmp_seal_doc(&key, k, &n.ccm(pn), aad.as_bytes(), data, mic);
            Ok(())
        })?;
        // The independent check: the library's ECCMP kernel must give the same MPDU.
        let suite = CipherSuite::eccmp(k).ok_or_else(|| Error::Setup(format!("no ECCMP suite has {k} lanes")))?;
        let lib = Eccmp::with_options(&key, suite, opts)?;
        let mut again = Vec::new();
        lib.encapsulate(mpdu, pn, 0, &mut again)?;
        if again != out {
            return Err(Error::Verify(format!("docs/eccmp.md ECCMP-{k} differs from the library's wsec::cipher::eccmp")));
        }
    }
    let body = mpdu.len() - hl;
    let mut hdr = [0u8; 32];
    let n = hl.min(32);
    hdr[..n].copy_from_slice(&mpdu[..n]);
    Ok(Record {
        key,
        hdr,
        pn,
        plain: mpdu[hl..].to_vec(),
        cipher: out[hl + 8..hl + 8 + body].to_vec(),
        mic: out[hl + 8 + body..].try_into().map_err(|_| Error::Verify("MIC length".into()))?,
        spp,
    })
}

fn ccm16e_record(r: &mut Rng, max_len: usize, body_len: Option<usize>) -> Result<Record> {
    let mut key = [0u8; 16];
    r.fill(&mut key);
    let max_body = max_len.min(wsec::cipher::ccm16e::MAX_PDU_LEN - 6 - 12 - 4);
    let body = body_len.unwrap_or_else(|| r.below(max_body as u64 + 1) as usize);
    let ci = r.below(2) == 1;
    let len = 6 + body + if ci { 4 } else { 0 };
    let mut pdu = vec![0u8; 6];
    pdu[0] = r.next() as u8 & 0x3f;
    pdu[1] = (r.next() as u8 & 0x88) | if ci { 0x40 } else { 0 } | ((len >> 8) as u8 & 7);
    pdu[2] = len as u8;
    pdu[3] = r.next() as u8;
    pdu[4] = r.next() as u8;
    pdu[5] = wsec::cipher::ccm16e::hcs(&pdu[..5]);
    let mut b = vec![0u8; body];
    r.fill(&mut b);
    pdu.extend_from_slice(&b);
    if ci {
        let c = wsec::cipher::ccm16e::crc32(&pdu);
        pdu.extend_from_slice(&c.to_be_bytes());
    }
    let pn = 1 + r.below(u32::MAX as u64) as u32;
    let eks = r.below(4) as u8;
    let mut out = Vec::new();
    Ccm16e::new(&key).and_then(|c| c.encapsulate(&pdu, pn, eks, &mut out))?;
    let mut hdr = [0u8; 32];
    hdr[..5].copy_from_slice(&out[..5]);
    let ct = &out[10..10 + body];
    Ok(Record {
        key,
        hdr,
        pn: pn as u64,
        plain: b,
        cipher: ct.to_vec(),
        mic: out[10 + body..10 + body + 8].try_into().map_err(|_| Error::Verify("ICV length".into()))?,
        spp: false,
    })
}

/// The name on the lines of a vector file: the library's suite name (ECCMP-1 is CCMP bit
/// for bit, and its lines say `ccmp`), or the engine's for `ccm16e` and `aes`.
fn suite_name(s: Suite) -> &'static str {
    match s {
        Suite::Ccm16e => "ccm16e",
        Suite::Aes => "aes",
        _ => CipherSuite::eccmp(lanes(s)).unwrap_or(CipherSuite::Ccmp128).name(),
    }
}

/// Records from a checked-in vector file; the expected ciphertext and MIC are the file's.
fn from_file(path: &Path, suite: Suite, max_len: usize) -> Result<Vec<Record>> {
    // A vector file is a few MB at most.
    const MAX: u64 = 64 << 20;
    let len = std::fs::metadata(path).map_err(Error::io(path))?.len();
    if len > MAX {
        return Err(Error::Setup(format!("{}: larger than {MAX} octets", path.display())));
    }
    let text = std::fs::read_to_string(path).map_err(Error::io(path))?;
    let mut v = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if line.starts_with('#') || f.len() != 6 || f[0] != suite_name(suite) {
            continue;
        }
        let bad = |what: &str| Error::Setup(format!("{}:{}: {what}", path.display(), ln + 1));
        let key: [u8; 16] = decode(f[1]).and_then(|k| k.try_into().ok()).ok_or_else(|| bad("key"))?;
        let pn: u64 = f[2].parse().map_err(|_| bad("pn"))?;
        let plain = decode(f[4]).ok_or_else(|| bad("plaintext"))?;
        let prot = decode(f[5]).ok_or_else(|| bad("protected MPDU"))?;
        let fc = wsec::wire::mac::FrameControl(u16::from_le_bytes([plain[0], plain[1]]));
        let hl = fc.header_len().map_err(|e| bad(&e.to_string()))?;
        if plain.len() < hl {
            return Err(bad("plaintext shorter than its MAC header"));
        }
        let body = plain.len() - hl;
        if body > max_len {
            continue;
        }
        if prot.len() != plain.len() + 16 {
            return Err(bad("protected MPDU is not plaintext + 16 octets"));
        }
        let mut hdr = [0u8; 32];
        let n = hl.min(32);
        hdr[..n].copy_from_slice(&plain[..n]);
        v.push(Record {
            key,
            hdr,
            pn,
            plain: plain[hl..].to_vec(),
            cipher: prot[hl + 8..hl + 8 + body].to_vec(),
            mic: prot[hl + 8 + body..].try_into().map_err(|_| bad("MIC"))?,
            spp: false,
        });
    }
    if v.is_empty() {
        return Err(Error::Setup(format!("{}: no {} lines", path.display(), suite_name(suite))));
    }
    Ok(v)
}

/// The lines of `suite` from a vector file of `suite tk pn key_id plaintext_mpdu
/// protected_mpdu` lines (such as crates/wsec/tests/data/eccmp_vectors.txt), as the
/// testbench's file: the expected output is the file's protected MPDU, not recomputed.
/// Lines with bodies longer than `max_len` are skipped. Returns the text and the count.
pub fn convert(path: &Path, suite: Suite, max_len: usize) -> Result<(String, usize)> {
    let recs = from_file(path, suite, max_len)?;
    let mut s = format!("{:08x}\n", recs.len());
    for r in &recs {
        r.write(&mut s);
    }
    Ok((s, recs.len()))
}

/// Random frames (seeded) for `g.suite`, as the testbench's file.
pub fn generate(g: &Generate) -> Result<String> {
    if g.max_len > 2304 {
        return Err(Error::Setup("--max-len is at most 2304 (the largest MSDU)".into()));
    }
    let mut r = Rng(g.seed);
    let mut s = String::new();
    let _ = writeln!(s, "{:08x}", g.count);
    let k = lanes(g.suite);
    if g.suite == Suite::Aes {
        for _ in 0..g.count {
            let mut key = [0u8; 16];
            let mut b = [0u8; 16];
            r.fill(&mut key);
            r.fill(&mut b);
            let pt = b;
            Aes128::new(&key.into()).encrypt_block((&mut b).into());
            let _ = writeln!(s, "{} {} {}", hex(&key), hex(&pt), hex(&b));
        }
        return Ok(s);
    }
    for i in 0..g.count {
        // Frame 1 has a 1500-octet body: the testbenches time it at full speed.
        let body_len = if i == 1 { Some(FRAME_TIMED) } else { None };
        let rec = if g.suite == Suite::Ccm16e {
            ccm16e_record(&mut r, g.max_len, body_len)
        } else if i == 0 {
            let key: [u8; 16] = unhex(J64_TK).try_into().expect("16 octets");
            let mut m = unhex(J64_HDR);
            m[1] &= !0x40; // the published header has Protected set; the input is plaintext
            m.extend_from_slice(&unhex(J64_DATA));
            let rec = ccmp_record(key, &m, J64_PN, false, k).map_err(|e| Error::Verify(format!("frame 0 (J.6.4): {e}")))?;
            if k == 1 {
                let want = unhex(J64_MPDU);
                let got = [&want[..32], &rec.cipher[..], &rec.mic[..]].concat();
                if got != want {
                    return Err(Error::Verify("library CCMP does not reproduce 802.11-2020 J.6.4".into()));
                }
            }
            Ok(rec)
        } else {
            let mut key = [0u8; 16];
            r.fill(&mut key);
            let m = random_mpdu(&mut r, g.max_len, body_len);
            let pn = r.next() & 0xffff_ffff_ffff;
            let spp = r.below(4) == 0;
            ccmp_record(key, &m, pn, spp, k)
        };
        rec.map_err(|e| Error::Verify(format!("frame {i}: {e}")))?.write(&mut s);
    }
    Ok(s)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The constants above (valid hex, whitespace ignored).
fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex constant")).collect()
}

/// Hex from a vector file line; None if it is not hex.
fn decode(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok())).collect()
}
