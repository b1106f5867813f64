//! Portable CCM backend over the RustCrypto `aes` block cipher (encrypt-only key schedules;
//! round keys zeroized on drop by `aes`'s `zeroize` feature).
//!
//! Straightforward CCM: the CBC-MAC is chained one block at a time; the keystream is made
//! [`BATCH`] blocks at a time with `encrypt_blocks`, which lets `aes` pipeline them.
use super::{aad_first_block, b0_a0};
use crate::error::{Error, Result};
use aes::cipher::{consts::U16, generic_array::GenericArray, BlockEncrypt, BlockSizeUser, KeyInit};
use aes::{Aes128Enc, Aes256Enc};

const BATCH: usize = 8;
type Block = GenericArray<u8, U16>;

// AES-256's schedule is larger; boxing it would add an indirection to every block.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub(crate) enum PortableKey {
    Aes128(Aes128Enc),
    Aes256(Aes256Enc),
}

impl PortableKey {
    pub(crate) fn new(key: &[u8]) -> Result<Self> {
        match key.len() {
            16 => Ok(PortableKey::Aes128(Aes128Enc::new(GenericArray::from_slice(key)))),
            32 => Ok(PortableKey::Aes256(Aes256Enc::new(GenericArray::from_slice(key)))),
            _ => Err(Error::BadKeyLength),
        }
    }

    pub(crate) fn key_bits(&self) -> u32 {
        match self {
            PortableKey::Aes128(_) => 128,
            PortableKey::Aes256(_) => 256,
        }
    }

    pub(crate) fn seal(&self, nonce: &[u8; 13], m: usize, aad: &[u8], data: &mut [u8], tag: &mut [u8; 16]) {
        let (b0, a0) = b0_a0(nonce, aad.len(), m, data.len());
        match self {
            PortableKey::Aes128(c) => ccm::<_, true>(c, &b0, &a0, aad, data, tag),
            PortableKey::Aes256(c) => ccm::<_, true>(c, &b0, &a0, aad, data, tag),
        }
    }

    pub(crate) fn open(&self, nonce: &[u8; 13], m: usize, aad: &[u8], data: &mut [u8], tag: &mut [u8; 16]) {
        let (b0, a0) = b0_a0(nonce, aad.len(), m, data.len());
        match self {
            PortableKey::Aes128(c) => ccm::<_, false>(c, &b0, &a0, aad, data, tag),
            PortableKey::Aes256(c) => ccm::<_, false>(c, &b0, &a0, aad, data, tag),
        }
    }

    pub(crate) fn ctr_xor(&self, nonce: &[u8; 13], data: &mut [u8]) {
        let (_, a0) = b0_a0(nonce, 0, 4, 0);
        match self {
            PortableKey::Aes128(c) => ctr_only(c, &a0, data),
            PortableKey::Aes256(c) => ctr_only(c, &a0, data),
        }
    }
}

#[inline(always)]
fn xor_into(x: &mut Block, b: &[u8]) {
    for (x, b) in x.iter_mut().zip(b) {
        *x ^= b;
    }
}

/// Counter block A_i (L = 2): A0 with i in octets 14..16, big endian.
#[inline(always)]
fn ctr_block(a0: &[u8; 16], i: usize) -> Block {
    let mut a = *a0;
    a[14] = (i >> 8) as u8;
    a[15] = i as u8;
    a.into()
}

/// `ENCRYPT = true`: MAC over `data`, then encrypt it. `false`: decrypt, then MAC the
/// plaintext. Either way `tag` gets the full 16-octet `T ^ E(A0)`.
fn ccm<C: BlockEncrypt + BlockSizeUser<BlockSize = U16>, const ENCRYPT: bool>(
    c: &C,
    b0: &[u8; 16],
    a0: &[u8; 16],
    aad: &[u8],
    data: &mut [u8],
    tag: &mut [u8; 16],
) {
    let mut x: Block = (*b0).into();
    c.encrypt_block(&mut x);
    if !aad.is_empty() {
        let (first, rest) = aad_first_block(aad);
        xor_into(&mut x, &first);
        c.encrypt_block(&mut x);
        for chunk in rest.chunks(16) {
            xor_into(&mut x, chunk); // a short last chunk is implicitly zero padded
            c.encrypt_block(&mut x);
        }
    }
    let mut ks = [Block::default(); BATCH];
    let mut ctr = 1usize;
    for batch in data.chunks_mut(16 * BATCH) {
        let nblk = batch.len().div_ceil(16);
        for (j, k) in ks[..nblk].iter_mut().enumerate() {
            *k = ctr_block(a0, ctr + j);
        }
        ctr += nblk;
        c.encrypt_blocks(&mut ks[..nblk]);
        for (blk, k) in batch.chunks_mut(16).zip(&ks) {
            if ENCRYPT {
                xor_into(&mut x, blk);
                c.encrypt_block(&mut x);
            }
            for (d, k) in blk.iter_mut().zip(k) {
                *d ^= k;
            }
            if !ENCRYPT {
                xor_into(&mut x, blk);
                c.encrypt_block(&mut x);
            }
        }
    }
    let mut s0 = ctr_block(a0, 0);
    c.encrypt_block(&mut s0);
    for ((t, x), s) in tag.iter_mut().zip(&x).zip(&s0) {
        *t = x ^ s;
    }
}

fn ctr_only<C: BlockEncrypt + BlockSizeUser<BlockSize = U16>>(c: &C, a0: &[u8; 16], data: &mut [u8]) {
    let mut ks = [Block::default(); BATCH];
    let mut ctr = 1usize;
    for batch in data.chunks_mut(16 * BATCH) {
        let nblk = batch.len().div_ceil(16);
        for (j, k) in ks[..nblk].iter_mut().enumerate() {
            *k = ctr_block(a0, ctr + j);
        }
        ctr += nblk;
        c.encrypt_blocks(&mut ks[..nblk]);
        for (blk, k) in batch.chunks_mut(16).zip(&ks) {
            for (d, k) in blk.iter_mut().zip(k) {
                *d ^= k;
            }
        }
    }
}

impl PortableKey {
    /// ECCMP-k MIC before masking (docs/eccmp.md); k = 1 is CBC-MAC over the CCM stream.
    pub(crate) fn lane_mac(&self, k: usize, m: usize, nonce: &[u8; 13], aad: &[u8], data: &[u8]) -> [u8; 16] {
        match self {
            PortableKey::Aes128(c) => lanes(c, k, m, nonce, aad, data),
            PortableKey::Aes256(c) => lanes(c, k, m, nonce, aad, data),
        }
    }

    /// `E(A_0)`.
    pub(crate) fn tag_mask(&self, nonce: &[u8; 13]) -> [u8; 16] {
        let (_, a0) = b0_a0(nonce, 0, 4, 0);
        let mut s: Block = a0.into();
        match self {
            PortableKey::Aes128(c) => c.encrypt_block(&mut s),
            PortableKey::Aes256(c) => c.encrypt_block(&mut s),
        }
        s.into()
    }
}

/// One lane at a time: a straightforward reading of docs/eccmp.md.
fn lanes<C: BlockEncrypt + BlockSizeUser<BlockSize = U16>>(
    c: &C,
    k: usize,
    m: usize,
    nonce: &[u8; 13],
    aad: &[u8],
    data: &[u8],
) -> [u8; 16] {
    let (b0, _) = b0_a0(nonce, aad.len(), m, data.len());
    let mut stream: Vec<[u8; 16]> = vec![b0];
    if !aad.is_empty() {
        let mut f = vec![(aad.len() >> 8) as u8, aad.len() as u8];
        f.extend_from_slice(aad);
        for ch in f.chunks(16) {
            let mut b = [0u8; 16];
            b[..ch.len()].copy_from_slice(ch);
            stream.push(b);
        }
    }
    let a_blocks = stream.len() - 1;
    for ch in data.chunks(16) {
        let mut b = [0u8; 16];
        b[..ch.len()].copy_from_slice(ch);
        stream.push(b);
    }
    let mut t = [0u8; 16];
    for l in 0..k {
        let mut x = Block::default();
        if k > 1 {
            let mut d = [0u8; 16];
            d[0] = 0x80 | ((l as u8) << 4) | (((k.trailing_zeros() as u8) - 1) << 2) | a_blocks as u8;
            d[1..14].copy_from_slice(nonce);
            d[14] = (data.len() >> 8) as u8;
            d[15] = data.len() as u8;
            x = d.into();
            c.encrypt_block(&mut x);
        }
        for b in stream.iter().skip(l).step_by(k) {
            xor_into(&mut x, b);
            c.encrypt_block(&mut x);
        }
        for (t, x) in t.iter_mut().zip(&x) {
            *t ^= x;
        }
    }
    t
}
