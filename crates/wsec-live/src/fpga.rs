//! `crypto_offload=fpga-sim`: the access point's link crypto on the Verilog engine.
//!
//! The engine is a separate process (`hw/build/engine/CFG/wsec-engine`, built by
//! `hw/run engine CFG`: a Verilator model of `ccm_engine` in that configuration and the C++
//! of `hw/sim/engine.cpp`) reached the way a PCIe card is: a descriptor ring in shared
//! memory that both map, a doorbell to say entries are waiting (here a message on a Unix
//! socket, there an MMIO write) and a completion interrupt back (a message, an MSI).
//! Why a process and a ring rather than linking the model in: the default build of wsec
//! needs no Verilator (only `hw/run engine` does), the model's C++ never shares an address
//! space with the keys' owner beyond the ring (as a device never does), a crashed or hung
//! model is an error the AP reports, not a crash of the AP, and the ring is the interface
//! a real card's driver would have: descriptors, payload buffers, key-table writes, status.
//!
//! Keys: the access point's core loads each key into the engine when the handshake (or a
//! rekey) installs it and erases it when it is replaced or the station leaves
//! ([`wsec::cipher::device`]); with a key table (ROM = 3 configurations) that is 16
//! key-table writes of the host-expanded round keys (FIPS-197 5.2) into a slot, and the
//! erase 16 writes of zeros.
//!
//! With `fpga_check=1` every result is compared with the software's; on the first
//! difference the frame is written as a `wsec hw-vectors` record (the testbench's input)
//! and the access point stops with an error naming it.
use crate::error::{Error, Result};
use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wsec::cipher::device::{CcmDevice, DeviceFrame, Direction, Mismatch};
use wsec::cipher::{AadOptions, CipherSuite, SuiteKey};
use wsec::error::Error as CoreError;

const MAGIC: u32 = 0x4345_5357;
const VERSION: u32 = 1;
const HDR: usize = 4096;
const DESC: usize = 256;
/// Ring entries: one frame is in flight at a time today (the AP waits for each), the ring
/// has room for a batch.
const ENTRIES: usize = 64;
/// Entry size: the descriptor and the largest MPDU body (11,454 octets, rounded up).
const ESIZE: usize = DESC + 11_520;
const OP_KT: u8 = 1;
const OP_SEAL: u8 = 2;
const OP_OPEN: u8 = 3;
const ST_OK: u8 = 1;
const ST_MIC: u8 = 2;
/// How long a frame may take in the model before the engine counts as hung (a 2,304-octet
/// frame is ~1,500 cycles; Verilator runs millions a second).
const COMPLETION_TIMEOUT: Duration = Duration::from_secs(20);

/// `hw_config`, `fpga_check` and where the engines are built.
#[derive(Debug, Clone)]
pub struct FpgaOptions {
    pub config: String,
    pub check: bool,
    /// Directory holding `CFG/wsec-engine` and `CFG/engine.json` (`hw_engine_dir`,
    /// default: `hw/build/engine` of the source tree the binary was built in).
    pub dir: Option<PathBuf>,
    /// Where a mismatching frame's vector is written (default: the working directory).
    pub vec_dir: PathBuf,
}

/// The configuration the engine was built from (`engine.json`, written by `hw/run engine`).
#[derive(Debug, Clone)]
pub struct EngineInfo {
    pub config: String,
    pub lanes: u32,
    pub rom: u32,
    pub dec: bool,
    /// Fmax of the configuration's place-and-route records (target, MHz), from
    /// `docs/results/hw-report.json`.
    pub fmax: Vec<(String, f64)>,
}

/// The counters `wsec ap` prints for the engine.
#[derive(Debug, Clone, Default)]
pub struct FpgaStats {
    pub sealed: u64,
    pub opened: u64,
    pub mic_failures: u64,
    pub octets: u64,
    /// Simulated clock cycles of the frames (descriptor accepted to tag beat).
    pub cycles: u64,
    pub kt_writes: u64,
    pub kt_cycles: u64,
    /// Keys loaded and erased.
    pub keys_loaded: u64,
    pub keys_erased: u64,
    /// Frames of keys the key table had no room for (run on the host).
    pub host_fallback: u64,
    /// Wall time of the engine process (the Verilator model and the ring round trips).
    pub sim_ns: u64,
    /// Wall time the host engine (wsec's software CCM) takes for the same frames.
    pub host_ns: u64,
}

struct Ring {
    base: *mut u8,
    len: usize,
    prod: u32,
}

// SAFETY: the mapping is owned by the Ring and reached only under FpgaSim's mutex.
unsafe impl Send for Ring {}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: base/len are the mapping made in FpgaSim::start, unmapped once.
        unsafe { libc::munmap(self.base as *mut libc::c_void, self.len) };
    }
}

impl Ring {
    fn entry(&mut self, i: u32) -> &mut [u8] {
        let off = HDR + (i as usize % ENTRIES) * ESIZE;
        // SAFETY: off + ESIZE <= len (the ring was sized HDR + ENTRIES * ESIZE); the
        // engine touches an entry only between our doorbell and its completion, and we
        // wait for that completion before touching the entry again.
        unsafe { std::slice::from_raw_parts_mut(self.base.add(off), ESIZE) }
    }
    fn word(&self, off: usize) -> &AtomicU32 {
        // SAFETY: off is 64 or 128, 4-aligned and inside the page-aligned mapping; both
        // processes reach these words only through atomic operations.
        unsafe { &*(self.base.add(off) as *const AtomicU32) }
    }
}

struct Inner {
    ring: Ring,
    bell: UnixStream,
    child: Child,
    free_slots: Vec<u32>,
    stats: FpgaStats,
    /// The first failure (engine gone, mismatch): the AP stops on it.
    failed: Option<String>,
}

/// The engine process and its ring (a [`CcmDevice`]).
pub struct FpgaSim {
    inner: Mutex<Inner>,
    info: EngineInfo,
    suite: CipherSuite,
    check: bool,
    vec_dir: PathBuf,
}

impl core::fmt::Debug for FpgaSim {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FpgaSim").field("config", &self.info.config).finish()
    }
}

/// The default engine directory: `hw/build/engine` of the source tree that holds the
/// running binary (`target/*/wsec` two or three levels below it).
fn default_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    exe.ancestors().map(|a| a.join("hw/build/engine")).find(|p| p.is_dir())
}

fn read_info(dir: &Path, config: &str) -> Result<EngineInfo> {
    let p = dir.join(config).join("engine.json");
    let text = std::fs::read_to_string(&p)
        .map_err(|e| Error::Setup(format!("hw_config={config}: {} ({e}); build it with `hw/run engine {config}`", p.display())))?;
    if text.len() > 1 << 20 {
        return Err(Error::Setup(format!("{}: too large", p.display())));
    }
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| Error::Setup(format!("{}: {e}", p.display())))?;
    let n = |k: &str| v.get(k).and_then(|x| x.as_u64()).map(|x| x as u32);
    let fmax = v
        .get("fmax_mhz")
        .and_then(|x| x.as_object())
        .map(|o| o.iter().filter_map(|(t, m)| Some((t.clone(), m.as_f64()?))).collect())
        .unwrap_or_default();
    Ok(EngineInfo {
        config: config.to_string(),
        lanes: n("lanes").ok_or_else(|| Error::Setup(format!("{}: no lanes", p.display())))?,
        rom: n("rom").unwrap_or(0),
        dec: n("dec") == Some(1),
        fmax,
    })
}

impl FpgaSim {
    /// Starts the engine process of `o.config` and waits for it to come up.
    pub fn start(o: &FpgaOptions) -> Result<Arc<FpgaSim>> {
        let dir =
            o.dir.clone().or_else(default_dir).ok_or_else(|| {
                Error::Setup("crypto_offload=fpga-sim: no hw/build/engine found beside the binary; set hw_engine_dir".into())
            })?;
        let info = read_info(&dir, &o.config)?;
        if !info.dec {
            return Err(Error::Setup(format!(
                "hw_config={}: this configuration only encapsulates; an access point needs one that also opens frames (a -dec configuration)",
                o.config
            )));
        }
        let suite = match info.lanes {
            1 => CipherSuite::Ccmp128,
            k => CipherSuite::eccmp(k as usize)
                .ok_or_else(|| Error::Setup(format!("hw_config={}: no ECCMP suite has {k} lanes", o.config)))?,
        };
        let exe = dir.join(&o.config).join("wsec-engine");
        // The ring: a file in /dev/shm, unlinked once the engine has mapped it.
        static N: AtomicU32 = AtomicU32::new(0);
        let tag = format!("wsec-engine-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed));
        let path = PathBuf::from("/dev/shm").join(&tag);
        let len = HDR + ENTRIES * ESIZE;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| Error::io(format!("ring {}", path.display()), e))?;
        let cleanup = |e: Error| {
            let _ = std::fs::remove_file(&path);
            e
        };
        file.set_len(len as u64).map_err(|e| cleanup(Error::io("ring", e)))?;
        use std::os::fd::AsRawFd;
        // SAFETY: a fresh shared mapping of the whole file (len octets), checked below.
        let base =
            unsafe { libc::mmap(core::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, file.as_raw_fd(), 0) };
        if base == libc::MAP_FAILED {
            return Err(cleanup(Error::io("ring mmap", std::io::Error::last_os_error())));
        }
        let mut ring = Ring { base: base as *mut u8, len, prod: 0 };
        {
            // SAFETY: the first HDR octets of the mapping.
            let h = unsafe { std::slice::from_raw_parts_mut(ring.base, HDR) };
            h[0..4].copy_from_slice(&MAGIC.to_le_bytes());
            h[4..8].copy_from_slice(&VERSION.to_le_bytes());
            h[8..12].copy_from_slice(&(ENTRIES as u32).to_le_bytes());
            h[12..16].copy_from_slice(&(ESIZE as u32).to_le_bytes());
        }
        let _ = &mut ring;
        let sock = std::env::temp_dir().join(format!("{tag}.sock"));
        let _ = std::fs::remove_file(&sock);
        let listener = UnixListener::bind(&sock).map_err(|e| cleanup(Error::io(format!("doorbell {}", sock.display()), e)))?;
        let child = Command::new(&exe)
            .arg(&path)
            .arg(&sock)
            .stdin(Stdio::null())
            .spawn()
            .map_err(|e| cleanup(Error::io(format!("engine {}", exe.display()), e)));
        let mut child = match child {
            Ok(c) => c,
            Err(e) => {
                let _ = std::fs::remove_file(&sock);
                return Err(e);
            }
        };
        // Accept with a deadline: a model that never comes up is an error, not a hang.
        listener.set_nonblocking(true).map_err(|e| Error::io("doorbell", e))?;
        let t0 = Instant::now();
        let bell = loop {
            match listener.accept() {
                Ok((s, _)) => break s,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock && t0.elapsed() < Duration::from_secs(10) => {
                    if let Ok(Some(st)) = child.try_wait() {
                        let _ = std::fs::remove_file(&sock);
                        return Err(cleanup(Error::Setup(format!("engine {} exited at start ({st})", exe.display()))));
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(e) => {
                    let _ = child.kill();
                    let _ = std::fs::remove_file(&sock);
                    return Err(cleanup(Error::io("engine did not connect to its doorbell", e)));
                }
            }
        };
        let _ = std::fs::remove_file(&sock);
        bell.set_nonblocking(false).map_err(|e| Error::io("doorbell", e))?;
        bell.set_read_timeout(Some(COMPLETION_TIMEOUT)).map_err(|e| Error::io("doorbell", e))?;
        let mut inner = Inner { ring, bell, child, free_slots: Vec::new(), stats: FpgaStats::default(), failed: None };
        // The ready interrupt, then the engine's own description of itself.
        let mut w = [0u8; 4];
        inner.bell.read_exact(&mut w).map_err(|e| cleanup(Error::io("engine start", e)))?;
        let _ = std::fs::remove_file(&path);
        // SAFETY: the header's first 64 octets, written by the engine before its ready message.
        let h = unsafe { std::slice::from_raw_parts(inner.ring.base, 64) };
        let rd = |o: usize| u32::from_le_bytes([h[o], h[o + 1], h[o + 2], h[o + 3]]);
        let (mode, k, rom, dec, slots) = (rd(16), rd(20), rd(28), rd(32), rd(36));
        if mode != 0 || k != info.lanes || rom != info.rom || dec != 1 {
            return Err(Error::Setup(format!(
                "engine {} is not {} (it says mode {mode} K {k} ROM {rom} DEC {dec}): rebuild with `hw/run engine {}`",
                exe.display(),
                o.config,
                o.config
            )));
        }
        inner.free_slots = (0..slots).rev().collect();
        Ok(Arc::new(FpgaSim { inner: Mutex::new(inner), info, suite, check: o.check, vec_dir: o.vec_dir.clone() }))
    }

    pub fn info(&self) -> &EngineInfo {
        &self.info
    }

    pub fn stats(&self) -> FpgaStats {
        self.lock().stats.clone()
    }

    /// The first failure, if any: the access point stops on it.
    pub fn failed(&self) -> Option<String> {
        self.lock().failed.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The engine report `wsec ap` prints: frames and octets through the engine, cycles
    /// per frame, the time at each Fmax against the host engine's, and utilisation.
    pub fn report(&self, wall: Duration) -> String {
        let s = self.stats();
        let frames = s.sealed + s.opened;
        let mut out = format!(
            "fpga-sim {}: {} frames ({} sealed, {} opened, {} MIC failures) {} octets, {} cycles ({:.1} per frame), key table: {} loaded {} erased ({} writes), {} frames on the host (table full); model {:.3} s wall, host engine {:.3} ms",
            self.info.config,
            frames,
            s.sealed,
            s.opened,
            s.mic_failures,
            s.octets,
            s.cycles,
            if frames > 0 { s.cycles as f64 / frames as f64 } else { 0.0 },
            s.keys_loaded,
            s.keys_erased,
            s.kt_writes,
            s.host_fallback,
            s.sim_ns as f64 / 1e9,
            s.host_ns as f64 / 1e6,
        );
        for (t, mhz) in &self.info.fmax {
            let ns = (s.cycles + s.kt_cycles) as f64 * 1e3 / mhz;
            out += &format!(
                "\n  at {mhz:.2} MHz ({t}): {:.3} ms of engine time, {:.2} Gb/s while busy, utilisation {:.4}% of {:.1} s",
                ns / 1e6,
                if s.cycles > 0 { s.octets as f64 * 8.0 / (s.cycles as f64 * 1e3 / mhz) } else { 0.0 },
                100.0 * ns / wall.as_nanos().max(1) as f64,
                wall.as_secs_f64()
            );
        }
        out
    }

    /// One ring entry through the engine: fill, doorbell, completion. Returns the status
    /// and the engine's cycles; the entry's data area holds the result.
    fn submit(&self, inner: &mut Inner, fill: impl FnOnce(&mut [u8])) -> core::result::Result<(u8, u64, u32), CoreError> {
        if inner.failed.is_some() {
            return Err(CoreError::Device("the engine has failed; the access point is stopping"));
        }
        let i = inner.ring.prod;
        {
            let e = inner.ring.entry(i);
            e[..DESC].fill(0);
            fill(e);
        }
        inner.ring.prod = i.wrapping_add(1);
        inner.ring.word(64).store(inner.ring.prod, Ordering::Release);
        let t0 = Instant::now();
        let bell = inner.bell.write_all(&inner.ring.prod.to_le_bytes()).and_then(|_| {
            let mut w = [0u8; 4];
            loop {
                inner.bell.read_exact(&mut w)?;
                if inner.ring.word(128).load(Ordering::Acquire) == inner.ring.prod {
                    return Ok(());
                }
            }
        });
        inner.stats.sim_ns += t0.elapsed().as_nanos() as u64;
        if let Err(e) = bell {
            let st = inner.child.try_wait().ok().flatten().map(|s| format!(" ({s})")).unwrap_or_default();
            inner.failed = Some(format!("the engine process stopped answering: {e}{st}"));
            return Err(CoreError::Device("the engine process stopped answering"));
        }
        let e = inner.ring.entry(i);
        let status = e[3];
        let cycles = u64::from_le_bytes(e[80..88].try_into().unwrap_or([0; 8]));
        Ok((status, cycles, i))
    }

    fn frame_desc(e: &mut [u8], op: u8, f: &DeviceFrame<'_>, len: usize) {
        e[0] = op;
        e[1] = f.spp as u8;
        e[2] = f.slot.unwrap_or(0) as u8;
        e[4..6].copy_from_slice(&(len as u16).to_le_bytes());
        e[8..16].copy_from_slice(&f.pn.to_le_bytes());
        e[16..32].copy_from_slice(f.key);
        e[32..64].copy_from_slice(&f.hdr);
    }

    /// The host engine's time for the same frame (the software suite on the same MPDU).
    fn host_time(&self, f: &DeviceFrame<'_>, plain: &[u8]) -> u64 {
        let fc = wsec::wire::mac::FrameControl(u16::from_le_bytes([f.hdr[0], f.hdr[1]]));
        let Ok(hl) = fc.header_len() else { return 0 };
        if hl > 32 {
            return 0;
        }
        let Ok(k) = SuiteKey::new(self.suite, f.key, AadOptions { spp_amsdu: f.spp, ..Default::default() }.into()) else { return 0 };
        let mut m = Vec::with_capacity(hl + plain.len());
        m.extend_from_slice(&f.hdr[..hl]);
        m[1] &= !0x40;
        m.extend_from_slice(plain);
        let mut out = Vec::new();
        let t0 = Instant::now();
        let _ = k.as_protection().encapsulate(&m, f.pn, 0, &mut out);
        t0.elapsed().as_nanos() as u64
    }
}

impl Drop for FpgaSim {
    fn drop(&mut self) {
        let inner = self.inner.get_mut().unwrap_or_else(|e| e.into_inner());
        let _ = inner.bell.shutdown(std::net::Shutdown::Both);
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(2) {
            if let Ok(Some(_)) = inner.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = inner.child.kill();
        let _ = inner.child.wait();
    }
}

/// FIPS-197 5.2: the round keys 1..10 of an AES-128 key, in key-table word order (word j
/// = round key j; words 0 and 11-15 zero).
fn round_keys(key: &[u8; 16]) -> [u8; 256] {
    const SBOX: [u8; 256] = wsec_sbox();
    let mut w = [0u8; 176];
    w[..16].copy_from_slice(key);
    let mut rcon = 1u8;
    for i in 4..44 {
        let mut t = [w[4 * i - 4], w[4 * i - 3], w[4 * i - 2], w[4 * i - 1]];
        if i % 4 == 0 {
            t = [SBOX[t[1] as usize] ^ rcon, SBOX[t[2] as usize], SBOX[t[3] as usize], SBOX[t[0] as usize]];
            rcon = if rcon & 0x80 != 0 { (rcon << 1) ^ 0x1b } else { rcon << 1 };
        }
        for j in 0..4 {
            w[4 * i + j] = w[4 * i - 16 + j] ^ t[j];
        }
    }
    let mut out = [0u8; 256];
    out[16..176].copy_from_slice(&w[16..176]);
    out
}

/// The AES S-box (FIPS-197 5.1.1), computed: the multiplicative inverse in GF(2^8) and the
/// affine map.
const fn wsec_sbox() -> [u8; 256] {
    let mut s = [0u8; 256];
    let mut x = 0usize;
    while x < 256 {
        // inverse by exponentiation: x^254
        let mut r = 1u8;
        let mut b = x as u8;
        let mut e = 254u32;
        while e > 0 {
            if e & 1 == 1 {
                r = gmul(r, b);
            }
            b = gmul(b, b);
            e >>= 1;
        }
        let inv = if x == 0 { 0 } else { r };
        s[x] = inv ^ inv.rotate_left(1) ^ inv.rotate_left(2) ^ inv.rotate_left(3) ^ inv.rotate_left(4) ^ 0x63;
        x += 1;
    }
    s
}

const fn gmul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    while b != 0 {
        if b & 1 == 1 {
            p ^= a;
        }
        a = if a & 0x80 != 0 { (a << 1) ^ 0x1b } else { a << 1 };
        b >>= 1;
    }
    p
}

impl CcmDevice for FpgaSim {
    fn suite(&self) -> CipherSuite {
        self.suite
    }

    fn load_key(&self, key: &[u8; 16]) -> wsec::error::Result<Option<u32>> {
        let mut g = self.lock();
        let inner = &mut *g;
        if self.info.rom != 3 {
            inner.stats.keys_loaded += 1;
            println!("ap engine: key {} given to the engine (no key table: it travels in each descriptor)", inner.stats.keys_loaded);
            return Ok(None);
        }
        let slot = inner.free_slots.pop().ok_or(CoreError::Device("key table full"))?;
        let words = zeroize::Zeroizing::new(round_keys(key));
        let r = self.submit(inner, |e| {
            e[0] = OP_KT;
            e[2] = slot as u8;
            e[DESC..DESC + 256].copy_from_slice(&words[..]);
        });
        // The round keys leave the ring entry once written.
        inner.ring.entry(inner.ring.prod.wrapping_sub(1))[DESC..DESC + 256].fill(0);
        match r {
            Ok((ST_OK, c, _)) => {
                inner.stats.kt_writes += 16;
                inner.stats.kt_cycles += c;
                inner.stats.keys_loaded += 1;
                println!("ap engine: key-table slot {slot} loaded (16 writes: round keys 1-10 expanded by the host, FIPS-197 5.2)");
                Ok(Some(slot))
            }
            Ok(_) => {
                inner.free_slots.push(slot);
                Err(CoreError::Device("the engine refused a key-table write"))
            }
            Err(e) => Err(e),
        }
    }

    fn erase_key(&self, slot: u32) {
        let mut g = self.lock();
        let inner = &mut *g;
        let r = self.submit(inner, |e| {
            e[0] = OP_KT;
            e[2] = slot as u8;
            e[DESC..DESC + 256].fill(0);
        });
        if let Ok((ST_OK, c, _)) = r {
            inner.stats.kt_writes += 16;
            inner.stats.kt_cycles += c;
            inner.stats.keys_erased += 1;
            inner.free_slots.push(slot);
            println!("ap engine: key-table slot {slot} erased (16 writes of zeros)");
        }
    }

    fn seal(&self, f: &DeviceFrame<'_>, data: &mut [u8], mic: &mut [u8; 8]) -> wsec::error::Result<()> {
        let host = self.host_time(f, data);
        let mut g = self.lock();
        let inner = &mut *g;
        inner.stats.host_ns += host;
        let len = data.len();
        let (st, c, i) = self.submit(inner, |e| {
            Self::frame_desc(e, OP_SEAL, f, len);
            e[DESC..DESC + len].copy_from_slice(data);
        })?;
        let e = inner.ring.entry(i);
        data.copy_from_slice(&e[DESC..DESC + len]);
        mic.copy_from_slice(&e[72..80]);
        if st != ST_OK {
            inner.failed = Some(format!("the engine returned status {st} on a frame to seal"));
            return Err(CoreError::Device("the engine refused a frame to seal"));
        }
        inner.stats.sealed += 1;
        inner.stats.octets += len as u64;
        inner.stats.cycles += c;
        Ok(())
    }

    fn open(&self, f: &DeviceFrame<'_>, data: &mut [u8], mic: &[u8; 8]) -> wsec::error::Result<()> {
        let mut g = self.lock();
        let inner = &mut *g;
        let len = data.len();
        let (st, c, i) = self.submit(inner, |e| {
            Self::frame_desc(e, OP_OPEN, f, len);
            e[64..72].copy_from_slice(mic);
            e[DESC..DESC + len].copy_from_slice(data);
        })?;
        let e = inner.ring.entry(i);
        data.copy_from_slice(&e[DESC..DESC + len]);
        e[DESC..DESC + len].fill(0);
        inner.stats.cycles += c;
        inner.stats.octets += len as u64;
        match st {
            ST_OK => {
                inner.stats.opened += 1;
                drop(g);
                let host = self.host_time(f, data);
                self.lock().stats.host_ns += host;
                Ok(())
            }
            ST_MIC => {
                inner.stats.mic_failures += 1;
                // A line per failure, then one in a thousand (a flood of forgeries must not
                // flood the log).
                let n = inner.stats.mic_failures;
                if n <= 100 || n.is_multiple_of(1000) {
                    let ta = &f.hdr[10..16];
                    println!(
                        "ap engine: MIC check failed in the engine on a frame from {:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x} (PN {}, {len} octets): dropped, its plaintext zeroed ({n} so far)",
                        ta[0], ta[1], ta[2], ta[3], ta[4], ta[5], f.pn
                    );
                }
                Err(CoreError::MicFailure)
            }
            _ => {
                inner.failed = Some(format!("the engine returned status {st} on a frame to open"));
                Err(CoreError::Device("the engine refused a frame to open"))
            }
        }
    }

    fn check(&self) -> bool {
        self.check
    }

    fn mismatch(&self, m: &Mismatch<'_>) -> CoreError {
        let mut g = self.lock();
        let n = g.stats.sealed + g.stats.opened + g.stats.mic_failures;
        let name = format!("fpga-mismatch-{}-{}.txt", self.info.config, n);
        let path = self.vec_dir.join(&name);
        // The record in `wsec hw-vectors` format (crates/wsec-bench/src/hw_vectors.rs):
        // the software's plaintext, ciphertext and MIC, for tb_ccm_engine.
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        let mut s = format!(
            "00000001\n{} {} {:012x} {:04x} {:02x}\n",
            hex(m.frame.key),
            hex(&m.frame.hdr),
            m.frame.pn,
            m.cipher.len(),
            m.frame.spp as u8
        );
        for i in 0..m.cipher.len().div_ceil(16) {
            let mut p = [0u8; 16];
            let mut c = [0u8; 16];
            let a = 16 * i;
            let b = (a + 16).min(m.cipher.len());
            if let Some(x) = m.plain.get(a..b) {
                p[..b - a].copy_from_slice(x);
            }
            c[..b - a].copy_from_slice(&m.cipher[a..b]);
            s += &format!("{} {}\n", hex(&p), hex(&c));
        }
        s += &format!("{}\n", hex(m.mic));
        let tmp = path.with_extension("tmp");
        let saved = std::fs::write(&tmp, &s).and_then(|_| std::fs::rename(&tmp, &path));
        let dir = match m.dir {
            Direction::Seal => "sealing",
            Direction::Open => "opening",
        };
        g.failed = Some(format!(
            "fpga_check: {} frame {n} ({} octets, PN {}): {}; {}",
            dir,
            m.cipher.len(),
            m.frame.pn,
            m.what,
            match saved {
                Ok(()) => format!("saved as a test vector: {}", path.display()),
                Err(e) => format!("could not save its vector to {}: {e}", path.display()),
            }
        ));
        CoreError::Device("fpga_check: the engine and the software disagree")
    }

    fn host_fallback(&self, octets: usize) {
        let mut g = self.lock();
        g.stats.host_fallback += 1;
        let _ = octets;
    }
}
