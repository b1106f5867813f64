//! CCMP-128 and CCMP-256, IEEE 802.11-2020 12.5.3: AES-CCM with a 13-octet nonce (L = 2)
//! and an 8-octet (CCMP-128) or 16-octet (CCMP-256) MIC, over the fused kernel.
use super::kernel::CcmKey;
use super::{mpdu, AadOptions, CcmBackend, CipherSuite, Pn, Protection, RxInfo};
use crate::error::{Error, Result};
use crate::wire::mac::Mpdu;

/// A CCMP temporal key with the AAD options negotiated for the link.
#[derive(Clone, Debug)]
pub struct Ccmp {
    key: CcmKey,
    suite: CipherSuite,
    pub opts: AadOptions,
}

impl Ccmp {
    /// 16-octet TK → CCMP-128, 32-octet TK → CCMP-256.
    pub fn new(tk: &[u8]) -> Result<Ccmp> {
        Self::with_options(tk, AadOptions::default())
    }

    pub fn with_options(tk: &[u8], opts: AadOptions) -> Result<Ccmp> {
        Self::with_backend(tk, opts, CcmBackend::Detect)
    }

    /// As [`Ccmp::with_options`], on the CCM kernel `backend`.
    pub fn with_backend(tk: &[u8], opts: AadOptions, backend: CcmBackend) -> Result<Ccmp> {
        let suite = match tk.len() {
            16 => CipherSuite::Ccmp128,
            32 => CipherSuite::Ccmp256,
            _ => return Err(Error::BadKeyLength),
        };
        Ok(Ccmp { key: backend.key(tk)?, suite, opts })
    }

    pub fn mic_len(&self) -> usize {
        if self.suite == CipherSuite::Ccmp128 {
            8
        } else {
            16
        }
    }
}

impl Ccmp {
    /// [`Protection::encapsulate`] of an MPDU whose header was checked once.
    pub fn encapsulate_parsed(&self, m: &Mpdu<'_>, pn: Pn, key_id: u8, out: &mut Vec<u8>) -> Result<()> {
        mpdu::encapsulate_parsed(m, pn, key_id, self.mic_len(), self.opts, out, |n, aad, data, mic| {
            self.key.seal_in_place(&n.ccm(pn), aad.as_bytes(), data, mic)
        })
    }

    /// [`Protection::decapsulate`] of an MPDU whose header was checked once.
    pub fn decapsulate_parsed(&self, m: &Mpdu<'_>, out: &mut Vec<u8>) -> Result<RxInfo> {
        mpdu::decapsulate_parsed(m, self.mic_len(), self.opts, out, |n, aad, pn, data, mic| {
            self.key.open_in_place(&n.ccm(pn), aad.as_bytes(), data, mic)
        })
    }
}

impl Protection for Ccmp {
    fn suite(&self) -> CipherSuite {
        self.suite
    }

    fn encapsulate(&self, mpdu: &[u8], pn: Pn, key_id: u8, out: &mut Vec<u8>) -> Result<()> {
        mpdu::encapsulate(mpdu, pn, key_id, self.mic_len(), self.opts, out, |n, aad, data, mic| {
            self.key.seal_in_place(&n.ccm(pn), aad.as_bytes(), data, mic)
        })
    }

    fn decapsulate(&self, mpdu: &[u8], out: &mut Vec<u8>) -> Result<RxInfo> {
        mpdu::decapsulate(mpdu, self.mic_len(), self.opts, out, |n, aad, pn, data, mic| {
            self.key.open_in_place(&n.ccm(pn), aad.as_bytes(), data, mic)
        })
    }
}

/// The key of a batched frame: CCMP, or Enhanced CCMP (CCMP's framing and MIC length,
/// the MIC over lanes: [`super::eccmp`]), whose frames share the batch's passes (ECCMP-4
/// two frames to a pass on AVX-512).
#[derive(Clone, Copy, Debug)]
pub enum BatchKey<'a> {
    Ccmp(&'a Ccmp),
    Eccmp(&'a super::eccmp::Eccmp),
}

impl<'a> BatchKey<'a> {
    fn kernel(self) -> &'a CcmKey {
        match self {
            BatchKey::Ccmp(c) => &c.key,
            BatchKey::Eccmp(e) => e.kernel(),
        }
    }

    fn mic_len(self) -> usize {
        match self {
            BatchKey::Ccmp(c) => c.mic_len(),
            BatchKey::Eccmp(_) => super::eccmp::MIC_LEN,
        }
    }

    fn opts(self) -> AadOptions {
        match self {
            BatchKey::Ccmp(c) => c.opts,
            BatchKey::Eccmp(e) => e.opts,
        }
    }

    fn lanes(self) -> u8 {
        match self {
            BatchKey::Ccmp(_) => 1,
            BatchKey::Eccmp(e) => e.lanes() as u8,
        }
    }
}

impl<'a> From<&'a Ccmp> for BatchKey<'a> {
    fn from(c: &'a Ccmp) -> Self {
        BatchKey::Ccmp(c)
    }
}

impl<'a> From<&'a super::eccmp::Eccmp> for BatchKey<'a> {
    fn from(e: &'a super::eccmp::Eccmp) -> Self {
        BatchKey::Eccmp(e)
    }
}

/// One MPDU of a batch for [`encapsulate_batch`].
pub struct TxItem<'a> {
    pub key: BatchKey<'a>,
    /// Plaintext MPDU (Protected clear).
    pub mpdu: &'a [u8],
    pub pn: Pn,
    pub key_id: u8,
    /// The protected MPDU (its allocation is reused across batches).
    pub out: Vec<u8>,
    pub status: Result<()>,
}

/// One MPDU of a batch for [`decapsulate_batch`].
pub struct RxItem<'a> {
    pub key: BatchKey<'a>,
    /// Protected MPDU.
    pub mpdu: &'a [u8],
    /// The plaintext MPDU when `result` is Ok.
    pub out: Vec<u8>,
    pub result: Result<RxInfo>,
}

/// What the framing pass remembers of a frame for the batched AEAD.
struct Pending {
    nonce: [u8; 13],
    aad: [u8; 32],
    aad_len: usize,
    body: usize,
    mic: usize,
}

/// CCMP (and ECCMP) encapsulation of a batch of MPDUs (keys may differ): the 802.11 framing of each frame
/// as [`Protection::encapsulate`] does it, then one multi-buffer CCM pass over all frames
/// ([`super::kernel::seal_batch`]: eight frames' CBC-MAC chains interleaved on VAES). The
/// output of each item is byte-identical to `item.key.encapsulate(...)`.
pub fn encapsulate_batch(items: &mut [TxItem<'_>]) {
    let mut pend: Vec<Option<Pending>> = Vec::with_capacity(items.len());
    for it in items.iter_mut() {
        let mic_len = it.key.mic_len();
        let mut p = None;
        let pn = it.pn;
        it.status = mpdu::encapsulate(it.mpdu, pn, it.key_id, mic_len, it.key.opts(), &mut it.out, |n, aad, data, _| {
            let a = aad.as_bytes();
            let mut buf = [0u8; 32];
            buf[..a.len()].copy_from_slice(a);
            p = Some(Pending { nonce: n.ccm(pn), aad: buf, aad_len: a.len(), body: data.len(), mic: mic_len });
            Ok(())
        });
        pend.push(if it.status.is_ok() { p } else { None });
    }
    let mut jobs: Vec<super::kernel::CcmJob<'_>> = Vec::with_capacity(items.len());
    let mut which: Vec<usize> = Vec::with_capacity(items.len());
    for (i, (it, p)) in items.iter_mut().zip(&pend).enumerate() {
        if let Some(p) = p {
            let n = it.out.len();
            let (head, mic) = it.out.split_at_mut(n - p.mic);
            let body = &mut head[n - p.mic - p.body..];
            jobs.push(super::kernel::CcmJob::new(it.key.kernel(), p.nonce, &p.aad[..p.aad_len], body, mic).with_lanes(it.key.lanes()));
            which.push(i);
        }
    }
    super::kernel::seal_batch(&mut jobs);
    let st: Vec<Result<()>> = jobs.into_iter().map(|j| j.status).collect();
    for (i, s) in which.into_iter().zip(st) {
        if s.is_err() {
            items[i].out.clear();
        }
        items[i].status = s;
    }
}

/// CCMP decapsulation of a batch (see [`encapsulate_batch`]); each item's `result` is what
/// [`Protection::decapsulate`] returns for it (no replay check: that is [`crate::link`]'s).
pub fn decapsulate_batch(items: &mut [RxItem<'_>]) {
    let mut pend: Vec<Option<(Pending, [u8; 16], RxInfo)>> = Vec::with_capacity(items.len());
    for it in items.iter_mut() {
        let mic_len = it.key.mic_len();
        let mut p = None;
        let r = mpdu::decapsulate(it.mpdu, mic_len, it.key.opts(), &mut it.out, |n, aad, pn, data, mic| {
            let a = aad.as_bytes();
            let mut buf = [0u8; 32];
            buf[..a.len()].copy_from_slice(a);
            let mut m = [0u8; 16];
            m[..mic.len()].copy_from_slice(mic);
            p = Some((Pending { nonce: n.ccm(pn), aad: buf, aad_len: a.len(), body: data.len(), mic: mic_len }, m));
            Ok(())
        });
        it.result = r;
        pend.push(match (r, p) {
            (Ok(info), Some((p, mic))) => Some((p, mic, info)),
            _ => None,
        });
    }
    let mut jobs: Vec<super::kernel::CcmJob<'_>> = Vec::with_capacity(items.len());
    let mut which: Vec<usize> = Vec::with_capacity(items.len());
    for (i, (it, p)) in items.iter_mut().zip(pend.iter_mut()).enumerate() {
        if let Some((p, mic, _)) = p {
            let n = it.out.len();
            jobs.push(
                super::kernel::CcmJob::new(it.key.kernel(), p.nonce, &p.aad[..p.aad_len], &mut it.out[n - p.body..], &mut mic[..p.mic])
                    .with_lanes(it.key.lanes()),
            );
            which.push(i);
        }
    }
    super::kernel::open_batch(&mut jobs);
    let st: Vec<Result<()>> = jobs.into_iter().map(|j| j.status).collect();
    for (i, s) in which.into_iter().zip(st) {
        if let Err(e) = s {
            items[i].out.clear();
            items[i].result = Err(e);
        }
    }
}
