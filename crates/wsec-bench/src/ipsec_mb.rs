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

#[repr(C)]
struct ImbGcmJob {
    key: *const c_void,
    iv: *const u8,
    aad: *const u8,
    aad_len: u64,
    data: *mut u8,
    len: u64,
    tag: *mut u8,
}

extern "C" {
    fn wsec_imb_version() -> *const c_char;
    fn wsec_imb_init(arch: *mut c_int) -> c_int;
    fn wsec_imb_init_arch(which: c_int, arch: *mut c_int) -> c_int;
    fn wsec_imb_keyexp128(key: *const u8, enc: *mut c_void);
    fn wsec_imb_ccm_on(which: c_int, jobs: *const ImbJob, n: c_int, encrypt: c_int) -> c_int;
    fn wsec_imb_gcm_key128(which: c_int, key: *const u8) -> *mut c_void;
    fn wsec_imb_gcm_key_free(k: *mut c_void);
    fn wsec_imb_gcm_on(which: c_int, jobs: *const ImbGcmJob, n: c_int, encrypt: c_int) -> c_int;
}

/// An ipsec-mb manager architecture to time: `auto` (ipsec-mb's own choice), `sse`, `avx`,
/// `avx2`, `avx512`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arch(c_int);

impl Arch {
    pub const AUTO: Arch = Arch(0);
    pub const SSE: Arch = Arch(1);
    pub const AVX: Arch = Arch(2);
    pub const AVX2: Arch = Arch(3);
    pub const AVX512: Arch = Arch(4);

    pub fn parse(s: &str) -> Option<Arch> {
        Some(match s {
            "auto" => Arch::AUTO,
            "sse" => Arch::SSE,
            "avx" => Arch::AVX,
            "avx2" => Arch::AVX2,
            "avx512" => Arch::AVX512,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        ["auto", "sse", "avx", "avx2", "avx512"][self.0 as usize]
    }

    /// Whether this CPU has what the architecture's code needs (ipsec-mb does not check
    /// when a manager is initialised for a named architecture).
    pub fn supported(self) -> bool {
        use std::arch::is_x86_feature_detected as f;
        match self.0 {
            0 => true,
            1 => f!("aes") && f!("sse4.2") && f!("pclmulqdq"),
            2 => f!("aes") && f!("avx") && f!("pclmulqdq"),
            3 => f!("aes") && f!("avx2") && f!("bmi2") && f!("pclmulqdq"),
            _ => f!("aes") && f!("avx512f") && f!("avx512vl") && f!("avx512bw") && f!("avx512dq"),
        }
    }

    /// ipsec-mb's architecture for a wsec backend: the SSE path for AES-NI, AVX2 for VAES-256,
    /// AVX-512 for AVX-512.
    pub fn for_backend(b: wsec::cipher::kernel::Backend) -> Option<Arch> {
        use wsec::cipher::kernel::Backend;
        match b {
            Backend::Portable => None,
            Backend::AesNi => Some(Arch::SSE),
            Backend::Vaes256 => Some(Arch::AVX2),
            Backend::Avx512 => Some(Arch::AVX512),
        }
    }

    /// Initialises the manager; its label: the requested name, and for `auto` what
    /// ipsec-mb picked (`auto:avx512`).
    pub fn init(self) -> Result<String> {
        if !self.supported() {
            return Err(Error::Setup(format!("ipsec-mb {}: this CPU lacks its instructions", self.name())));
        }
        let mut arch: c_int = 0;
        // SAFETY: the shim allocates and initialises the manager once; single-threaded use.
        if unsafe { wsec_imb_init_arch(self.0, &mut arch) } != 0 {
            return Err(Error::Setup(format!("ipsec-mb {}: manager initialisation failed", self.name())));
        }
        Ok(if self == Arch::AUTO { format!("auto:{}", arch_name(arch)) } else { self.name().to_string() })
    }
}

fn arch_name(a: c_int) -> &'static str {
    match a {
        1 => "noaesni",
        2 => "sse",
        3 => "avx",
        4 => "avx2",
        5 => "avx512",
        _ => "unknown",
    }
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
    Ok(arch_name(arch))
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
    fn run_on(&mut self, arch: Arch, encrypt: bool, m: usize) -> c_int {
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
        unsafe { wsec_imb_ccm_on(arch.0, jobs.as_ptr(), jobs.len() as c_int, encrypt as c_int) }
    }
}

/// ipsec-mb's output must equal wsec's before it is timed.
pub fn verify(key: &[u8; 16], nonce: &[u8; 13], aad: &[u8], pt: &[u8], ct: &[u8], tag: &[u8]) -> Result<()> {
    verify_on(Arch::AUTO, key, nonce, aad, pt, ct, tag)
}

/// [`verify`] on one architecture's manager.
pub fn verify_on(arch: Arch, key: &[u8; 16], nonce: &[u8; 13], aad: &[u8], pt: &[u8], ct: &[u8], tag: &[u8]) -> Result<()> {
    init()?;
    arch.init()?;
    let mut b =
        Batch { keys: vec![keyexp(key)], nonces: vec![*nonce], aads: vec![aad.to_vec()], bufs: vec![pt.to_vec()], tags: vec![[0; 16]] };
    if b.run_on(arch, true, tag.len()) != 1 {
        return Err(Error::Verify("ipsec-mb CCM job failed".into()));
    }
    if b.bufs[0] != ct || b.tags[0][..tag.len()] != *tag {
        return Err(Error::Verify(format!("ipsec-mb {} disagrees with wsec at {} octets", arch.name(), pt.len())));
    }
    b.tags[0] = [0; 16];
    if b.run_on(arch, false, tag.len()) != 1 || b.bufs[0] != pt || b.tags[0][..tag.len()] != *tag {
        return Err(Error::Verify("ipsec-mb decryption disagrees with wsec".into()));
    }
    Ok(())
}

type Case = (String, &'static str, usize, Box<dyn FnMut()>);

/// Encap and decap cases with 1, 8 and 16 (or 64) frames per submit/flush round.
pub fn cases(size: usize, quick: bool) -> Vec<Case> {
    cases_on(Arch::AUTO, size, quick)
}

/// [`cases`] on one architecture's manager.
pub fn cases_on(arch: Arch, size: usize, quick: bool) -> Vec<Case> {
    if init().is_err() || arch.init().is_err() {
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
                black_box(enc.run_on(arch, true, 8));
            }),
        ));
        // Decap: sealed copies, restored into the work buffers each time (as for the others).
        let mut dec = mk(0);
        dec.run_on(arch, true, 8);
        let sealed: Vec<Vec<u8>> = dec.bufs.clone();
        v.push((
            "ipsec-mb".into(),
            "decap",
            n,
            Box::new(move || {
                for (b, s) in dec.bufs.iter_mut().zip(&sealed) {
                    b.copy_from_slice(s);
                }
                black_box(dec.run_on(arch, false, 8));
            }),
        ));
    }
    v
}

/// An ipsec-mb AES-128-GCM key (round keys and GHASH table), freed on drop.
struct GcmKeyData(*mut c_void);

impl GcmKeyData {
    fn new(arch: Arch, key: &[u8; 16]) -> Result<GcmKeyData> {
        // SAFETY: the manager of `arch` was initialised (callers ran arch.init()); the shim
        // allocates an aligned key structure or returns null.
        let p = unsafe { wsec_imb_gcm_key128(arch.0, key.as_ptr()) };
        if p.is_null() {
            return Err(Error::Setup("ipsec-mb: GCM key allocation failed".into()));
        }
        Ok(GcmKeyData(p))
    }
}

impl Drop for GcmKeyData {
    fn drop(&mut self) {
        // SAFETY: allocated by wsec_imb_gcm_key128, freed once.
        unsafe { wsec_imb_gcm_key_free(self.0) }
    }
}

struct GcmBatch {
    keys: Vec<GcmKeyData>,
    ivs: Vec<[u8; 12]>,
    aads: Vec<Vec<u8>>,
    bufs: Vec<Vec<u8>>,
    tags: Vec<[u8; 16]>,
}

impl GcmBatch {
    fn run(&mut self, arch: Arch, encrypt: bool) -> c_int {
        let jobs: Vec<ImbGcmJob> = (0..self.bufs.len())
            .map(|i| ImbGcmJob {
                key: self.keys[i].0,
                iv: self.ivs[i].as_ptr(),
                aad: self.aads[i].as_ptr(),
                aad_len: self.aads[i].len() as u64,
                data: self.bufs[i].as_mut_ptr(),
                len: self.bufs[i].len() as u64,
                tag: self.tags[i].as_mut_ptr(),
            })
            .collect();
        // SAFETY: every pointer refers to a live buffer of the stated length owned by self.
        unsafe { wsec_imb_gcm_on(arch.0, jobs.as_ptr(), jobs.len() as c_int, encrypt as c_int) }
    }
}

/// ipsec-mb's AES-128-GCM output must equal the expected one before it is timed.
pub fn verify_gcm(arch: Arch, key: &[u8; 16], iv: &[u8; 12], aad: &[u8], pt: &[u8], ct: &[u8], tag: &[u8; 16]) -> Result<()> {
    init()?;
    arch.init()?;
    let mut b = GcmBatch {
        keys: vec![GcmKeyData::new(arch, key)?],
        ivs: vec![*iv],
        aads: vec![aad.to_vec()],
        bufs: vec![pt.to_vec()],
        tags: vec![[0; 16]],
    };
    if b.run(arch, true) != 1 || b.bufs[0] != ct || b.tags[0] != *tag {
        return Err(Error::Verify(format!("ipsec-mb {} GCM disagrees with wsec at {} octets", arch.name(), pt.len())));
    }
    b.tags[0] = [0; 16];
    if b.run(arch, false) != 1 || b.bufs[0] != pt || b.tags[0] != *tag {
        return Err(Error::Verify("ipsec-mb GCM decryption disagrees with wsec".into()));
    }
    Ok(())
}

/// AES-128-GCM encap and decap cases with 1, 8 and 16 (or 64) frames per submit/flush round.
pub fn gcm_cases(arch: Arch, size: usize, quick: bool) -> Vec<Case> {
    if init().is_err() || arch.init().is_err() {
        return Vec::new();
    }
    let mut v: Vec<Case> = Vec::new();
    let fifs: &[usize] = if quick { &[1, 8, 16] } else { &[1, 8, 16, 64] };
    for &n in fifs {
        let mk = || -> Option<GcmBatch> {
            let f = |len: usize, s: u8| -> Vec<u8> { (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(s)).collect() };
            let mut keys = Vec::new();
            for i in 0..n {
                keys.push(GcmKeyData::new(arch, &f(16, 0x40 ^ i as u8).try_into().ok()?).ok()?);
            }
            Some(GcmBatch {
                keys,
                ivs: (0..n).map(|i| f(12, 0x11 ^ i as u8).try_into().unwrap_or([0; 12])).collect(),
                aads: (0..n).map(|i| f(24, 0x22 ^ i as u8)).collect(),
                bufs: (0..n).map(|i| f(size, i as u8)).collect(),
                tags: vec![[0; 16]; n],
            })
        };
        let (Some(mut enc), Some(mut dec)) = (mk(), mk()) else { return Vec::new() };
        v.push((
            "ipsec-mb".into(),
            "encap",
            n,
            Box::new(move || {
                black_box(enc.run(arch, true));
            }),
        ));
        dec.run(arch, true);
        let sealed: Vec<Vec<u8>> = dec.bufs.clone();
        v.push((
            "ipsec-mb".into(),
            "decap",
            n,
            Box::new(move || {
                for (b, s) in dec.bufs.iter_mut().zip(&sealed) {
                    b.copy_from_slice(s);
                }
                black_box(dec.run(arch, false));
            }),
        ));
    }
    v
}
