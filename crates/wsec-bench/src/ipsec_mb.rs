//! Intel ipsec-mb (Debian libipsec-mb-dev) as a peer in `wsec bench ccmp`, through the C
//! shim in `csrc/ipsec_mb_shim.c`. Only AES-128 CCM, as the benchmark needs.
use crate::error::{Error, Result};
use std::ffi::CStr;
use std::hint::black_box;
use std::os::raw::{c_char, c_int, c_void};

#[repr(C)]
struct ImbJob {
    key_exp: *const c_void,
    nonce: *const u8,
    aad: *const u8,
    aad_len: u64,
    data: *mut u8,
    len: u64,
    tag: *mut u8,
    tag_len: u64,
}

extern "C" {
    fn wsec_imb_version() -> *const c_char;
    fn wsec_imb_init(arch: *mut c_int) -> c_int;
    fn wsec_imb_keyexp128(key: *const u8, enc: *mut c_void);
    fn wsec_imb_ccm(jobs: *const ImbJob, n: c_int, encrypt: c_int) -> c_int;
}

#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct KeyExp([u8; 16 * 15]);

fn init() -> Result<&'static str> {
    let mut arch: c_int = 0;
    // SAFETY: the shim allocates and initialises its manager once; single-threaded use.
    if unsafe { wsec_imb_init(&mut arch) } != 0 {
        return Err(Error::Setup("ipsec-mb: alloc_mb_mgr failed".into()));
    }
    // IMB_ARCH of ipsec-mb 1.3 (enum order in intel-ipsec-mb.h).
    Ok(match arch {
        1 => "noaesni",
        2 => "sse",
        3 => "avx",
        4 => "avx2",
        5 => "avx512",
        _ => "unknown",
    })
}

pub fn version() -> String {
    // SAFETY: returns a static NUL-terminated string.
    let v = unsafe { CStr::from_ptr(wsec_imb_version()) }.to_string_lossy().into_owned();
    match init() {
        Ok(a) => format!("{v} ({a})"),
        Err(e) => format!("{v} ({e})"),
    }
}

fn keyexp(key: &[u8; 16]) -> Box<KeyExp> {
    let mut k = Box::new(KeyExp([0; 16 * 15]));
    // SAFETY: init() ran (callers); `k` is 16-byte aligned and large enough.
    unsafe { wsec_imb_keyexp128(key.as_ptr(), k.0.as_mut_ptr().cast()) };
    k
}

struct Batch {
    keys: Vec<Box<KeyExp>>,
    nonces: Vec<[u8; 13]>,
    aads: Vec<Vec<u8>>,
    bufs: Vec<Vec<u8>>,
    tags: Vec<[u8; 16]>,
}

impl Batch {
    fn run(&mut self, encrypt: bool, m: usize) -> c_int {
        let jobs: Vec<ImbJob> = (0..self.bufs.len())
            .map(|i| ImbJob {
                key_exp: self.keys[i].0.as_ptr().cast(),
                nonce: self.nonces[i].as_ptr(),
                aad: self.aads[i].as_ptr(),
                aad_len: self.aads[i].len() as u64,
                data: self.bufs[i].as_mut_ptr(),
                len: self.bufs[i].len() as u64,
                tag: self.tags[i].as_mut_ptr(),
                tag_len: m as u64,
            })
            .collect();
        // SAFETY: every pointer refers to a live buffer of the stated length owned by self.
        unsafe { wsec_imb_ccm(jobs.as_ptr(), jobs.len() as c_int, encrypt as c_int) }
    }
}

/// ipsec-mb's output must equal wsec's before it is timed.
pub fn verify(key: &[u8; 16], nonce: &[u8; 13], aad: &[u8], pt: &[u8], ct: &[u8], tag: &[u8]) -> Result<()> {
    init()?;
    let mut b =
        Batch { keys: vec![keyexp(key)], nonces: vec![*nonce], aads: vec![aad.to_vec()], bufs: vec![pt.to_vec()], tags: vec![[0; 16]] };
    if b.run(true, tag.len()) != 1 {
        return Err(Error::Verify("ipsec-mb CCM job failed".into()));
    }
    if b.bufs[0] != ct || b.tags[0][..tag.len()] != *tag {
        return Err(Error::Verify(format!("ipsec-mb disagrees with wsec at {} octets", pt.len())));
    }
    b.tags[0] = [0; 16];
    if b.run(false, tag.len()) != 1 || b.bufs[0] != pt || b.tags[0][..tag.len()] != *tag {
        return Err(Error::Verify("ipsec-mb decryption disagrees with wsec".into()));
    }
    Ok(())
}

type Case = (String, &'static str, usize, Box<dyn FnMut()>);

/// Encap and decap cases with 1, 8 and 16 (or 64) frames per submit/flush round.
pub fn cases(size: usize, quick: bool) -> Vec<Case> {
    if init().is_err() {
        return Vec::new();
    }
    let mut v: Vec<Case> = Vec::new();
    let fifs: &[usize] = if quick { &[1, 8, 16] } else { &[1, 8, 16, 64] };
    for &n in fifs {
        let mk = |seed: u8| -> Batch {
            let f = |len: usize, s: u8| -> Vec<u8> { (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(s)).collect() };
            Batch {
                keys: (0..n).map(|i| keyexp(&f(16, 0x40 ^ i as u8).try_into().expect("16"))).collect(),
                nonces: (0..n).map(|i| f(13, 0x11 ^ i as u8).try_into().expect("13")).collect(),
                aads: (0..n).map(|i| f(24, 0x22 ^ i as u8)).collect(),
                bufs: (0..n).map(|i| f(size, i as u8 ^ seed)).collect(),
                tags: vec![[0; 16]; n],
            }
        };
        let mut enc = mk(0);
        v.push((
            "ipsec-mb".into(),
            "encap",
            n,
            Box::new(move || {
                black_box(enc.run(true, 8));
            }),
        ));
        // Decap: sealed copies, restored into the work buffers each time (as for the others).
        let mut dec = mk(0);
        dec.run(true, 8);
        let sealed: Vec<Vec<u8>> = dec.bufs.clone();
        v.push((
            "ipsec-mb".into(),
            "decap",
            n,
            Box::new(move || {
                for (b, s) in dec.bufs.iter_mut().zip(&sealed) {
                    b.copy_from_slice(s);
                }
                black_box(dec.run(false, 8));
            }),
        ));
    }
    v
}
