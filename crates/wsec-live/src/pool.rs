//! The host engine's crypto threads: a fixed set of workers that run one fork-join job at a
//! time ([`Pool::run`]), the calling thread taking part.
//!
//! Why not rayon: a batch of 64 frames is 50-100 us of AES work, and a fork-join through
//! rayon wakes a sleeping worker and then the caller (two futex wake-ups, and on a virtual
//! machine two inter-processor interrupts to halted vCPUs): measured, the relay with
//! rayon on 2 vCPUs ran slower than one thread (`wsec bench relay`). Here a worker keeps
//! polling for [`WORKER_SPIN`] after each job before it sleeps, as a poll-mode driver
//! does, so back-to-back batches find it awake.
//!
//! Parts are claimed, not assigned: the caller takes parts until none is left and then
//! waits only for the parts a worker has started. A worker that is asleep or descheduled
//! (a busy machine: the stations, the air hub and the AP share two vCPUs in `wsec demo`)
//! therefore costs nothing; with fixed assignment the caller would wait for its time slice
//! (the relay measured 0.45 instead of 10 Gb/s on a loaded CI machine). A worker that loses
//! its CPU in the middle of a part still makes the caller wait; after such a stall the
//! caller runs the next jobs alone (1, 2, 4, ... up to [`MAX_SOLO`] of them) before it
//! tries the workers again: a machine busy with other work costs a few per cent, not half.
//!
//! Spreading is also measured, not assumed (on a 2-core Zen 3 the relay with crypto on both
//! cores runs at 170k frames/s where one thread runs 283k): the pool keeps a moving average
//! of the time per part of jobs it spread and of jobs it ran alone, and spreads only while
//! that pays ([`SPREAD_GAIN`]). Now and then a job runs the other way, so that a change of
//! load is noticed: every [`PROBE_EVERY`]th job while spreading pays; while it does not,
//! the gap doubles after each losing probe up to [`MAX_PROBE_GAP`] (a spread job on a
//! machine whose other cores are busy can cost fifty alone jobs).
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long an idle worker polls for the next job before it sleeps (a few batches' worth
/// of the live loop's I/O between two batches).
pub const WORKER_SPIN: Duration = Duration::from_micros(200);

/// Most parts one job may have (the part counter is the low 16 bits of `claim`).
pub const MAX_PARTS: usize = 0xffff;

/// A job: called with a part's index.
type Job = dyn Fn(usize) + Sync;

/// A job whose borrow [`Pool::run`] keeps alive until every part is done.
#[derive(Clone, Copy)]
struct JobPtr(*const Job);
// SAFETY: the pointee is Sync, and `run` does not return while a worker may use it.
unsafe impl Send for JobPtr {}

struct Shared {
    /// The current job's epoch (high 48 bits) and its next unclaimed part (low 16 bits).
    claim: AtomicU64,
    /// Parts of the current job that are finished.
    done: AtomicUsize,
    stop: AtomicBool,
    panicked: AtomicBool,
    /// The current job: its epoch, the closure, how many parts it has.
    job: Mutex<Option<(u64, JobPtr, usize)>>,
    /// Sleeping workers, and the condition they sleep on.
    sleepers: Mutex<usize>,
    wake: Condvar,
}

pub struct Pool {
    shared: Arc<Shared>,
    workers: Vec<std::thread::JoinHandle<()>>,
    /// Jobs still to run on the caller alone after a stall, and how many the next stall
    /// buys (doubling per stall up to [`MAX_SOLO`], halving per job that ran clean).
    solo: AtomicU32,
    backoff: AtomicU32,
    /// Jobs run so far, the job number of the next probe, and the gap to the one after.
    jobs: AtomicU64,
    next_probe: AtomicU64,
    probe_gap: AtomicU64,
    /// Moving averages of seconds per part, as f64 bits (0: not measured yet): jobs run
    /// alone, and jobs spread over the workers.
    alone_s: AtomicU64,
    spread_s: AtomicU64,
    /// Jobs that ran alone because spreading did not pay (not counting stalls' backoff).
    pub(crate) alone_jobs: AtomicU64,
}

/// How the pool has been running jobs ([`Pool::choice`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// Whether jobs are currently spread over the workers.
    pub spreading: bool,
    /// Moving averages of microseconds per part, alone and spread (None: not measured).
    pub alone_us: Option<f64>,
    pub spread_us: Option<f64>,
    pub jobs: u64,
    /// Jobs run alone (after a stall, as a probe, or because spreading did not pay).
    pub alone_jobs: u64,
}

/// Spreading must make a part at least this much faster (time per part, spread over alone)
/// to be kept: 0.9, a 10 % margin, so that two equal ways do not flap.
pub const SPREAD_GAIN: f64 = 0.9;

/// Every this many jobs, one runs the way not currently preferred, to refresh its average.
pub const PROBE_EVERY: u64 = 32;

/// Longest gap between two probes of spreading while it keeps losing.
pub const MAX_PROBE_GAP: u64 = 4096;

/// Weight of a new job in the moving averages of time per part (1/8).
const EWMA_WEIGHT: f64 = 0.125;

/// Most jobs run on the caller alone after a stall before the workers are tried again.
pub const MAX_SOLO: u32 = 4096;

/// A wait for a worker's part this long, and longer than the caller's own parts took, is a
/// stall: the worker lost its CPU to another process mid-part.
const STALL: Duration = Duration::from_micros(100);

impl Pool {
    /// A pool of `threads` threads in all: `threads - 1` workers and the caller.
    pub fn new(threads: usize) -> std::io::Result<Pool> {
        let shared = Arc::new(Shared {
            claim: AtomicU64::new(0),
            done: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            panicked: AtomicBool::new(false),
            job: Mutex::new(None),
            sleepers: Mutex::new(0),
            wake: Condvar::new(),
        });
        let mut workers = Vec::new();
        for i in 1..threads.max(1) {
            let s = shared.clone();
            workers.push(std::thread::Builder::new().name(format!("wsec-crypto-{i}")).spawn(move || worker(&s))?);
        }
        Ok(Pool {
            shared,
            workers,
            solo: AtomicU32::new(0),
            backoff: AtomicU32::new(0),
            jobs: AtomicU64::new(0),
            next_probe: AtomicU64::new(PROBE_EVERY),
            probe_gap: AtomicU64::new(PROBE_EVERY),
            alone_s: AtomicU64::new(0),
            spread_s: AtomicU64::new(0),
            alone_jobs: AtomicU64::new(0),
        })
    }

    /// Whether spreading pays, from the averages: unknown counts as paying (try it first).
    fn spreading_pays(&self) -> bool {
        let (a, s) = (f64::from_bits(self.alone_s.load(Ordering::Relaxed)), f64::from_bits(self.spread_s.load(Ordering::Relaxed)));
        a == 0.0 || s == 0.0 || s <= a * SPREAD_GAIN
    }

    fn record(avg: &AtomicU64, secs_per_part: f64) {
        let old = f64::from_bits(avg.load(Ordering::Relaxed));
        let new = if old == 0.0 { secs_per_part } else { old + EWMA_WEIGHT * (secs_per_part - old) };
        avg.store(new.max(f64::MIN_POSITIVE).to_bits(), Ordering::Relaxed);
    }

    /// What the pool measured and currently does.
    pub fn choice(&self) -> Choice {
        let us = |a: &AtomicU64| Some(f64::from_bits(a.load(Ordering::Relaxed)) * 1e6).filter(|&x| x > 0.0);
        Choice {
            spreading: self.spreading_pays(),
            alone_us: us(&self.alone_s),
            spread_us: us(&self.spread_s),
            jobs: self.jobs.load(Ordering::Relaxed),
            alone_jobs: self.alone_jobs.load(Ordering::Relaxed),
        }
    }

    /// Threads a job runs on (the caller included).
    pub fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// Runs `f(0)`..`f(parts - 1)` (at most [`MAX_PARTS`]), each exactly once, on this
    /// thread and the workers; returns when all are done. A panic in a part is caught and
    /// re-raised here once every part has finished.
    pub fn run(&self, parts: usize, f: &(dyn Fn(usize) + Sync)) {
        assert!(parts <= MAX_PARTS, "too many parts for one job");
        let s = &*self.shared;
        if self.workers.is_empty() || parts <= 1 {
            return (0..parts).for_each(f);
        }
        // Spread or not, as measured; every PROBE_EVERY-th job the other way. After a
        // stall, alone regardless (backing off: the other cores are taken by other
        // processes).
        let job = self.jobs.fetch_add(1, Ordering::Relaxed);
        let probe = job >= self.next_probe.load(Ordering::Relaxed);
        let pays = self.spreading_pays();
        if probe {
            self.next_probe.store(job + self.probe_gap.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        let solo = self.solo.load(Ordering::Relaxed);
        if solo > 0 {
            self.solo.store(solo - 1, Ordering::Relaxed);
        }
        let t_job = Instant::now();
        if solo > 0 || pays == probe {
            self.alone_jobs.fetch_add(1, Ordering::Relaxed);
            (0..parts).for_each(f);
            Self::record(&self.alone_s, t_job.elapsed().as_secs_f64() / parts as f64);
            return;
        }
        // SAFETY: only the lifetime is erased; we wait below until every part is done, and
        // a worker touches the job only inside a part it claimed.
        let p: *const Job = unsafe { std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), *const Job>(f) };
        let epoch = (s.claim.load(Ordering::Relaxed) >> 16) + 1;
        s.done.store(0, Ordering::Relaxed);
        *s.job.lock().unwrap_or_else(|e| e.into_inner()) = Some((epoch, JobPtr(p), parts));
        s.claim.store(epoch << 16, Ordering::Release);
        {
            let sleeping = s.sleepers.lock().unwrap_or_else(|e| e.into_inner());
            if *sleeping > 0 {
                s.wake.notify_all();
            }
        }
        let mut mine = Ok(());
        let started = Instant::now();
        while let Some(k) = take(s, epoch, parts) {
            if let Err(e) = catch_unwind(AssertUnwindSafe(|| f(k))) {
                mine = Err(e);
            }
            s.done.fetch_add(1, Ordering::AcqRel);
        }
        let t0 = Instant::now();
        let own = t0 - started;
        let mut n = 0u32;
        while s.done.load(Ordering::Acquire) != parts {
            n = n.wrapping_add(1);
            if n.is_multiple_of(64) && t0.elapsed() > WORKER_SPIN {
                // The worker running a part was descheduled: let it have this CPU.
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        let waited = t0.elapsed();
        Self::record(&self.spread_s, t_job.elapsed().as_secs_f64() / parts as f64);
        // A probe of spreading that lost again waits twice as long for the next one.
        let gap = if self.spreading_pays() { PROBE_EVERY } else { (self.probe_gap.load(Ordering::Relaxed) * 2).min(MAX_PROBE_GAP) };
        self.probe_gap.store(gap, Ordering::Relaxed);
        let backoff = self.backoff.load(Ordering::Relaxed);
        if waited > STALL && waited > own {
            let b = (backoff * 2).clamp(1, MAX_SOLO);
            self.backoff.store(b, Ordering::Relaxed);
            self.solo.store(b, Ordering::Relaxed);
        } else {
            self.backoff.store(backoff / 2, Ordering::Relaxed);
        }
        *s.job.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let theirs = s.panicked.swap(false, Ordering::AcqRel);
        if let Err(e) = mine {
            std::panic::resume_unwind(e);
        }
        if theirs {
            panic!("a crypto worker panicked");
        }
    }
}

/// Claims the next part of job `epoch`, if the job is still current and has one left.
fn take(s: &Shared, epoch: u64, parts: usize) -> Option<usize> {
    let mut cur = s.claim.load(Ordering::Acquire);
    loop {
        let k = (cur & 0xffff) as usize;
        if cur >> 16 != epoch || k >= parts {
            return None;
        }
        match s.claim.compare_exchange_weak(cur, cur + 1, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return Some(k),
            Err(now) => cur = now,
        }
    }
}

fn worker(s: &Shared) {
    let mut seen = 0u64;
    loop {
        // Wait for the next job: poll, then sleep.
        let t0 = Instant::now();
        let mut n = 0u32;
        loop {
            if s.stop.load(Ordering::Acquire) {
                return;
            }
            if s.claim.load(Ordering::Acquire) >> 16 != seen {
                break;
            }
            n = n.wrapping_add(1);
            if !n.is_multiple_of(64) || t0.elapsed() < WORKER_SPIN {
                std::hint::spin_loop();
                continue;
            }
            let mut sleeping = s.sleepers.lock().unwrap_or_else(|e| e.into_inner());
            *sleeping += 1;
            while s.claim.load(Ordering::Acquire) >> 16 == seen && !s.stop.load(Ordering::Acquire) {
                sleeping = s.wake.wait(sleeping).unwrap_or_else(|e| e.into_inner());
            }
            *sleeping -= 1;
        }
        let job = *s.job.lock().unwrap_or_else(|e| e.into_inner());
        let Some((epoch, JobPtr(p), parts)) = job else {
            // Published and already finished by the caller: wait for the one after.
            seen = s.claim.load(Ordering::Acquire) >> 16;
            continue;
        };
        seen = epoch;
        while let Some(k) = take(s, epoch, parts) {
            // SAFETY: part k of this epoch is claimed and not done, so `run` is still
            // waiting and the job is alive.
            let f = unsafe { &*p };
            if catch_unwind(AssertUnwindSafe(|| f(k))).is_err() {
                s.panicked.store(true, Ordering::Release);
            }
            s.done.fetch_add(1, Ordering::AcqRel);
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        {
            let _g = self.shared.sleepers.lock().unwrap_or_else(|e| e.into_inner());
            self.shared.wake.notify_all();
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

impl wsec::node::engine::Parallel for Pool {
    fn threads(&self) -> usize {
        Pool::threads(self)
    }
    fn run(&self, parts: usize, f: &(dyn Fn(usize) + Sync)) {
        Pool::run(self, parts, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A part that takes `on_worker` on a pool worker and `here` on the calling thread.
    fn part(here: Duration, on_worker: Duration) {
        let w = std::thread::current().name().is_some_and(|n| n.starts_with("wsec-crypto-"));
        std::thread::sleep(if w { on_worker } else { here });
    }

    #[test]
    fn the_pool_stops_spreading_when_it_does_not_pay_and_spreads_when_it_does() {
        // Workers 10x slower than the caller (a core taken by something else): spreading
        // loses, and after the first probes the pool runs jobs alone.
        let p = Pool::new(2).unwrap();
        for _ in 0..256 {
            p.run(2, &|_| part(Duration::from_micros(50), Duration::from_millis(2)));
        }
        let c = p.choice();
        // Probes of spreading back off (32, 64, 128 jobs apart...): few jobs are spread
        // (about 7 on an idle machine; a pool that kept spreading would run about 8 of the
        // 256 alone). On a loaded machine a worker can be so slow to wake that the caller
        // runs both parts of a spread job itself, which measures as cheap and buys more
        // spreading: 23 spread jobs were seen beside a place-and-route run, hence 3/4.
        assert!(!c.spreading && c.alone_jobs > 192, "{c:?}");
        assert!(c.spread_us.unwrap() > c.alone_us.unwrap(), "{c:?}");
        // Equal parts on 3 threads: spreading makes a part about 3x cheaper; it is chosen,
        // and most jobs are spread. Parts of 10 ms, well above the few milliseconds a
        // sleeping worker can wait for a core on a loaded machine (with 1 ms parts, a CI
        // run beside other builds measured spreading at 2.8 ms a part against 1.1 alone).
        let p = Pool::new(3).unwrap();
        for _ in 0..64 {
            p.run(3, &|_| part(Duration::from_millis(10), Duration::from_millis(10)));
        }
        let c = p.choice();
        // (Probes and the backoff after a rare stall on a busy machine run alone too.)
        assert!(c.spreading && c.alone_jobs < 24, "{c:?}");
        assert!(c.alone_us.unwrap() > c.spread_us.unwrap(), "{c:?}");
    }

    #[test]
    fn every_part_of_every_job_runs_exactly_once() {
        let p = Pool::new(3).unwrap();
        assert_eq!(p.threads(), 3);
        for round in 0..3000usize {
            let parts = 1 + round % 7;
            let hits: Vec<AtomicUsize> = (0..parts).map(|_| AtomicUsize::new(0)).collect();
            p.run(parts, &|i| {
                hits[i].fetch_add(round + 1, Ordering::Relaxed);
            });
            for (i, h) in hits.iter().enumerate() {
                assert_eq!(h.load(Ordering::Relaxed), round + 1, "round {round} part {i}");
            }
            if round % 500 == 0 {
                // Let the workers fall asleep: the next job must wake them.
                std::thread::sleep(WORKER_SPIN * 3);
            }
        }
    }

    #[test]
    fn a_stalled_worker_does_not_hold_up_the_other_parts() {
        // A worker that takes a part stalls in it until every other part is done, as a
        // descheduled worker would: the caller must take those parts itself (with parts
        // assigned to threads, this waited for the timeout).
        let p = Pool::new(2).unwrap();
        let me = std::thread::current().id();
        for _ in 0..200 {
            let done = AtomicUsize::new(0);
            let timed_out = AtomicBool::new(false);
            p.run(8, &|_| {
                if std::thread::current().id() != me {
                    let t0 = Instant::now();
                    while done.load(Ordering::Acquire) < 7 {
                        if t0.elapsed() > Duration::from_secs(5) {
                            timed_out.store(true, Ordering::Relaxed);
                            break;
                        }
                        std::thread::yield_now();
                    }
                }
                done.fetch_add(1, Ordering::AcqRel);
            });
            assert_eq!(done.load(Ordering::Relaxed), 8);
            assert!(!timed_out.load(Ordering::Relaxed), "the caller waited for a stalled worker");
        }
    }

    #[test]
    fn a_worker_panic_reaches_the_caller_and_the_pool_goes_on() {
        let p = Pool::new(2).unwrap();
        for _ in 0..100 {
            // Whichever thread runs a part, its panic comes back here.
            let r = catch_unwind(AssertUnwindSafe(|| p.run(4, &|_| panic!("every part fails"))));
            assert!(r.is_err());
        }
        let n = AtomicUsize::new(0);
        p.run(2, &|_| {
            n.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(n.load(Ordering::Relaxed), 2);
    }
}
