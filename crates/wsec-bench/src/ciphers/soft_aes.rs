//! The portable AES, in the same binary as the hardware one.
//!
//! The `aes` 0.8 crate chooses between AES-NI and its portable fixsliced implementation
//! at run time, but only among what was compiled in: forcing the portable code needs the
//! `aes_force_soft` cfg, which applies to the whole build (every user of `aes` 0.8,
//! including the CCMP kernel and AES-GCM, would lose AES-NI). `aes` 0.7 offers the same
//! choice as a Cargo feature, `force-soft`; built as a separate dependency (`aes-soft` in
//! Cargo.toml) it affects only itself. Its portable code is the fixsliced, constant-time
//! AES of Adomnicai and Peyrin (TCHES 2021/1) that `aes` 0.8's software backend still uses
//! (64-bit variant, 4 blocks per call).
//!
//! `aes` 0.7 speaks the `cipher` 0.3 traits; `cbc` 0.1 wants `cipher` 0.4. [`SoftAes`]
//! adapts one to the other without touching a byte (both use `generic-array` 0.14), handing
//! `cbc` the 8-block parallel call for decryption and the single-block call for the serial
//! CBC encryption chain. A single block still costs a 4-block fixsliced pass: that is what
//! a bitsliced AES costs in any serial mode.
use aes_soft::cipher::{BlockCipher as BlockCipher03, BlockDecrypt as BlockDecrypt03, BlockEncrypt as BlockEncrypt03, NewBlockCipher};
use cipher::consts::{U16, U8};
use cipher::inout::InOut;
use cipher::{Block, BlockBackend, BlockCipher, BlockClosure, BlockDecrypt, BlockEncrypt, BlockSizeUser, ParBlocks, ParBlocksSizeUser};

/// AES from `aes` 0.7 built with `force-soft`: `SoftAes<aes_soft::Aes128>` etc.
#[derive(Clone)]
pub struct SoftAes<A>(A);

/// Portable AES-128.
pub type SoftAes128 = SoftAes<aes_soft::Aes128>;
/// Portable AES-192.
pub type SoftAes192 = SoftAes<aes_soft::Aes192>;
/// Portable AES-256.
pub type SoftAes256 = SoftAes<aes_soft::Aes256>;

impl<A: NewBlockCipher> SoftAes<A> {
    /// `None` when `key` is not A's key length.
    pub fn new_from_slice(key: &[u8]) -> Option<Self> {
        A::new_from_slice(key).ok().map(SoftAes)
    }
}

/// What the adapter needs of an `aes` 0.7 cipher.
pub trait Aes07: BlockEncrypt03 + BlockDecrypt03 + BlockCipher03<BlockSize = U16, ParBlocks = U8> {}
impl<A: BlockEncrypt03 + BlockDecrypt03 + BlockCipher03<BlockSize = U16, ParBlocks = U8>> Aes07 for A {}

impl<A: Aes07> BlockSizeUser for SoftAes<A> {
    type BlockSize = U16;
}

impl<A: Aes07> BlockCipher for SoftAes<A> {}

impl<A: Aes07> BlockEncrypt for SoftAes<A> {
    fn encrypt_with_backend(&self, f: impl BlockClosure<BlockSize = U16>) {
        f.call(&mut Backend::<A, true>(&self.0))
    }
}

impl<A: Aes07> BlockDecrypt for SoftAes<A> {
    fn decrypt_with_backend(&self, f: impl BlockClosure<BlockSize = U16>) {
        f.call(&mut Backend::<A, false>(&self.0))
    }
}

/// `cipher` 0.4 backend over an `aes` 0.7 cipher; `ENC` picks the direction.
struct Backend<'a, A, const ENC: bool>(&'a A);

impl<A: Aes07, const ENC: bool> BlockSizeUser for Backend<'_, A, ENC> {
    type BlockSize = U16;
}

impl<A: Aes07, const ENC: bool> ParBlocksSizeUser for Backend<'_, A, ENC> {
    type ParBlocksSize = U8;
}

impl<A: Aes07, const ENC: bool> BlockBackend for Backend<'_, A, ENC> {
    #[inline]
    fn proc_block(&mut self, mut block: InOut<'_, '_, Block<Self>>) {
        let mut b = block.clone_in();
        if ENC {
            self.0.encrypt_block(&mut b);
        } else {
            self.0.decrypt_block(&mut b);
        }
        *block.get_out() = b;
    }

    #[inline]
    fn proc_par_blocks(&mut self, mut blocks: InOut<'_, '_, ParBlocks<Self>>) {
        let mut b = blocks.clone_in();
        if ENC {
            self.0.encrypt_par_blocks(&mut b);
        } else {
            self.0.decrypt_par_blocks(&mut b);
        }
        *blocks.get_out() = b;
    }
}
