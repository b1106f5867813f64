//! Keys held by an external AES-CCM engine: seed 000's access point, whose link crypto
//! runs in a dedicated hardware engine once the 4-way handshake has handed it the keys.
//!
//! [`CcmDevice`] is the engine's host interface as the core sees it (sans-IO: how the
//! engine is reached, a PCIe card's rings or `wsec-live`'s Verilator engine process, is
//! the implementer's): a key is loaded into the engine's key table when it is installed
//! ([`CcmDevice::load_key`]) and erased when the last copy of it is dropped (a rekey, a
//! station leaving, the association torn down); each frame goes through the engine as a
//! descriptor (the key, the first 32 octets of the MAC header, the PN, the SPP A-MSDU bit,
//! the key-table slot) and its payload. The engine forms the nonce and AAD itself (the
//! RTL's `ccmp_format`), so the 802.11 framing around it (security header, Protected bit,
//! where the MIC goes) is [`super::mpdu`]'s, the same as the software suites'.
//!
//! With [`CcmDevice::check`] every result is compared with the software suite's
//! ([`super::ccmp`], [`super::eccmp`]) before it is used; a difference is reported through
//! [`CcmDevice::mismatch`] (which records the frame as a test vector) and the frame fails
//! with [`Error::Device`].
use super::ccmp::Ccmp;
use super::eccmp::Eccmp;
use super::{mpdu, AadOptions, CipherSuite, Pn, Protection, RxInfo};
use crate::error::{Error, Result};
use crate::wire::mac::Mpdu;
use std::sync::Arc;
use zeroize::Zeroizing;

/// One frame's descriptor for the engine (the fields of the RTL's `s_desc` beat).
#[derive(Debug)]
pub struct DeviceFrame<'a> {
    /// The TK (round key 0; the key table holds rounds 1-10 when the engine has one).
    pub key: &'a [u8; 16],
    /// The key-table slot of the key, when the engine has a key table.
    pub slot: Option<u32>,
    /// The first 32 octets of the MAC header (Frame Control first, zero padded): the
    /// engine builds the nonce and AAD from it (IEEE 802.11-2020 12.5.3.3.3-4).
    pub hdr: [u8; 32],
    pub pn: Pn,
    /// SPP A-MSDU (12.5.3.3.3: the A-MSDU Present bit stays in the AAD).
    pub spp: bool,
}

/// Which way a frame went through the engine (for [`CcmDevice::mismatch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Seal,
    Open,
}

/// A frame on which the engine and the software disagreed.
#[derive(Debug)]
pub struct Mismatch<'a> {
    pub dir: Direction,
    pub frame: &'a DeviceFrame<'a>,
    /// The plaintext payload (seal: the input; open: the software's output, empty when
    /// the software refused the frame).
    pub plain: &'a [u8],
    /// The software's ciphertext payload and MIC (seal: its output; open: the input).
    pub cipher: &'a [u8],
    pub mic: &'a [u8],
    /// What differed, for the error message.
    pub what: &'static str,
}

/// An AES-128 CCM engine (CCMP-128 or one ECCMP-K) reached through its host interface.
pub trait CcmDevice: Send + Sync + core::fmt::Debug {
    /// The one suite the engine runs (its lane count K is fixed in the hardware).
    fn suite(&self) -> CipherSuite;
    /// Writes the round keys of `key` into a free key-table slot and returns it; `None`
    /// when the engine has no key table (the key travels in each descriptor). Errs when
    /// the table is full: the key then stays on the host (as mac80211 falls back to
    /// software crypto when a driver's `set_key` has no room).
    fn load_key(&self, key: &[u8; 16]) -> Result<Option<u32>>;
    /// Erases a slot [`Self::load_key`] gave (its words written with zeros).
    fn erase_key(&self, slot: u32);
    /// Encrypts `data` in place and writes the 8-octet MIC.
    fn seal(&self, f: &DeviceFrame<'_>, data: &mut [u8], mic: &mut [u8; 8]) -> Result<()>;
    /// Decrypts `data` in place and checks `mic` in the engine: [`Error::MicFailure`] when
    /// the engine's comparison fails (and `data` is then all zeros).
    fn open(&self, f: &DeviceFrame<'_>, data: &mut [u8], mic: &[u8; 8]) -> Result<()>;
    /// Compare every result with the software (`fpga_check=1`).
    fn check(&self) -> bool;
    /// Records a disagreement (a test vector for the testbench) and says how it failed.
    fn mismatch(&self, m: &Mismatch<'_>) -> Error;
    /// Counts a frame the software protected or opened under a key the engine could not
    /// hold (its key table full).
    fn host_fallback(&self, _octets: usize) {}
}

/// A key's slot in the engine: erased when the last copy of the key goes.
struct Loaded {
    dev: Arc<dyn CcmDevice>,
    slot: Option<u32>,
    key: Zeroizing<[u8; 16]>,
}

impl Drop for Loaded {
    fn drop(&mut self) {
        if let Some(s) = self.slot {
            self.dev.erase_key(s);
        }
    }
}

/// The software suite beside the engine: the framing's AAD options, the `fpga_check`
/// reference and the fallback when the key table is full.
#[derive(Clone, Debug)]
enum Soft {
    Ccmp(Box<Ccmp>),
    Eccmp(Box<Eccmp>),
}

impl Soft {
    fn as_protection(&self) -> &(dyn Protection + Send + Sync) {
        match self {
            Soft::Ccmp(c) => c.as_ref(),
            Soft::Eccmp(e) => e.as_ref(),
        }
    }
    fn opts(&self) -> AadOptions {
        match self {
            Soft::Ccmp(c) => c.opts,
            Soft::Eccmp(e) => e.opts,
        }
    }
    fn encapsulate_parsed(&self, m: &Mpdu<'_>, pn: Pn, key_id: u8, out: &mut Vec<u8>) -> Result<()> {
        match self {
            Soft::Ccmp(c) => c.encapsulate_parsed(m, pn, key_id, out),
            Soft::Eccmp(e) => e.encapsulate_parsed(m, pn, key_id, out),
        }
    }
    fn decapsulate_parsed(&self, m: &Mpdu<'_>, out: &mut Vec<u8>) -> Result<RxInfo> {
        match self {
            Soft::Ccmp(c) => c.decapsulate_parsed(m, out),
            Soft::Eccmp(e) => e.decapsulate_parsed(m, out),
        }
    }
}

/// A temporal key whose frames the engine protects and opens.
#[derive(Clone)]
pub struct DeviceKey {
    soft: Soft,
    /// None: the engine's key table was full, the software runs this key.
    hw: Option<Arc<Loaded>>,
    dev: Arc<dyn CcmDevice>,
}

impl core::fmt::Debug for DeviceKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeviceKey")
            .field("suite", &self.soft.as_protection().suite())
            .field("slot", &self.hw.as_ref().map(|l| l.slot))
            .finish()
    }
}

impl DeviceKey {
    /// Whether `dev` runs `suite` (the engine's own suite, AES-128 only).
    pub fn runs(dev: &dyn CcmDevice, suite: CipherSuite) -> bool {
        suite == dev.suite()
    }

    /// Loads `key` of `suite` (which [`Self::runs`]) into the engine.
    pub fn new(dev: Arc<dyn CcmDevice>, suite: CipherSuite, key: &[u8], opts: AadOptions) -> Result<DeviceKey> {
        let soft = match suite {
            CipherSuite::Ccmp128 => Soft::Ccmp(Box::new(Ccmp::with_options(key, opts)?)),
            s if s.eccmp_lanes().is_some() => Soft::Eccmp(Box::new(Eccmp::with_options(key, s, opts)?)),
            _ => return Err(Error::Unsupported("the crypto engine runs AES-128 CCM suites only")),
        };
        if !Self::runs(dev.as_ref(), suite) {
            return Err(Error::Unsupported("the crypto engine does not run this suite"));
        }
        let k: [u8; 16] = key.try_into().map_err(|_| Error::BadKeyLength)?;
        let hw = match dev.load_key(&k) {
            Ok(slot) => Some(Arc::new(Loaded { dev: dev.clone(), slot, key: Zeroizing::new(k) })),
            // The table is full: the host keeps the key (counted per frame).
            Err(_) => None,
        };
        Ok(DeviceKey { soft, hw, dev })
    }

    pub fn suite(&self) -> CipherSuite {
        self.soft.as_protection().suite()
    }

    /// The AAD options of the link (for the security-header peek).
    pub fn opts(&self) -> AadOptions {
        self.soft.opts()
    }

    /// The key-table slot, when the engine holds the key in one.
    pub fn slot(&self) -> Option<u32> {
        self.hw.as_ref().and_then(|l| l.slot)
    }

    /// Whether the engine holds this key (false: its key table was full).
    pub fn on_device(&self) -> bool {
        self.hw.is_some()
    }

    fn frame<'a>(&self, l: &'a Loaded, m: &Mpdu<'_>, pn: Pn) -> DeviceFrame<'a> {
        let b = m.bytes();
        let n = m.header_len().min(32).min(b.len());
        let mut hdr = [0u8; 32];
        hdr[..n].copy_from_slice(&b[..n]);
        DeviceFrame { key: &l.key, slot: l.slot, hdr, pn, spp: self.soft.opts().spp_amsdu }
    }

    /// [`Protection::encapsulate`] through the engine.
    pub fn encapsulate_parsed(&self, m: &Mpdu<'_>, pn: Pn, key_id: u8, out: &mut Vec<u8>) -> Result<()> {
        let Some(l) = &self.hw else {
            self.dev.host_fallback(m.bytes().len());
            return self.soft.encapsulate_parsed(m, pn, key_id, out);
        };
        let f = self.frame(l, m, pn);
        mpdu::encapsulate_parsed(m, pn, key_id, 8, self.soft.opts(), out, |_, _, data, mic| {
            let mic: &mut [u8; 8] = mic.try_into().map_err(|_| Error::Device("MIC length"))?;
            self.dev.seal(&f, data, mic)
        })?;
        if self.dev.check() {
            let mut sw = Vec::new();
            self.soft.encapsulate_parsed(m, pn, key_id, &mut sw)?;
            if sw != *out {
                let hl = m.header_len();
                let body = &m.bytes()[hl..];
                let (c, mic) = sw[hl + 8..].split_at(body.len());
                let e = self.dev.mismatch(&Mismatch {
                    dir: Direction::Seal,
                    frame: &f,
                    plain: body,
                    cipher: c,
                    mic,
                    what: "the engine's ciphertext or MIC differs from the software's",
                });
                out.clear();
                return Err(e);
            }
        }
        Ok(())
    }

    /// [`Protection::decapsulate`] through the engine.
    pub fn decapsulate_parsed(&self, m: &Mpdu<'_>, out: &mut Vec<u8>) -> Result<RxInfo> {
        let Some(l) = &self.hw else {
            self.dev.host_fallback(m.bytes().len());
            return self.soft.decapsulate_parsed(m, out);
        };
        let mut desc: Option<DeviceFrame<'_>> = None;
        let got = mpdu::decapsulate_parsed(m, 8, self.soft.opts(), out, |_, _, pn, data, mic| {
            let mic: &[u8; 8] = mic.try_into().map_err(|_| Error::Device("MIC length"))?;
            let f = self.frame(l, m, pn);
            let r = self.dev.open(&f, data, mic);
            desc = Some(f);
            r
        });
        if self.dev.check() {
            let mut sw = Vec::new();
            let soft = self.soft.decapsulate_parsed(m, &mut sw);
            // Framing errors (no security header, truncated) never reach the engine; what
            // must agree is the engine's verdict and plaintext.
            if let Some(f) = &desc {
                let same = match (&got, &soft) {
                    (Ok(a), Ok(b)) => a == b && *out == sw,
                    (Err(Error::MicFailure), Err(Error::MicFailure)) => true,
                    _ => false,
                };
                if !same {
                    let hl = m.header_len();
                    let rest = &m.bytes()[hl + 8..];
                    let (c, mic) = rest.split_at(rest.len().saturating_sub(8));
                    let e = self.dev.mismatch(&Mismatch {
                        dir: Direction::Open,
                        frame: f,
                        plain: sw.get(hl..).unwrap_or(&[]),
                        cipher: c,
                        mic,
                        what: if got.is_ok() != soft.is_ok() {
                            "the engine's MIC check and the software's disagree"
                        } else {
                            "the engine's plaintext differs from the software's"
                        },
                    });
                    out.clear();
                    return Err(e);
                }
            }
        }
        got
    }
}

impl Protection for DeviceKey {
    fn suite(&self) -> CipherSuite {
        DeviceKey::suite(self)
    }
    fn encapsulate(&self, mpdu: &[u8], pn: Pn, key_id: u8, out: &mut Vec<u8>) -> Result<()> {
        self.encapsulate_parsed(&Mpdu::new_checked(mpdu)?, pn, key_id, out)
    }
    fn decapsulate(&self, mpdu: &[u8], out: &mut Vec<u8>) -> Result<RxInfo> {
        self.decapsulate_parsed(&Mpdu::new_checked(mpdu)?, out)
    }
}
