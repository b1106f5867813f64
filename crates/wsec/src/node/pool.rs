//! The host engine's crypto threads: a fixed set of workers that run one fork-join job at a
//! time ([`Pool::run`]), the calling thread taking part.
//!
//! Why not rayon: a batch of 64 frames is 50-100 us of AES work, and a fork-join through
//! rayon wakes a sleeping worker and then the caller (two futex wake-ups, and on a virtual
//! machine two inter-processor interrupts to halted vCPUs): measured, the relay with
//! rayon on 2 vCPUs ran slower than one thread (`wsec bench relay`). Here a worker keeps
//! polling for [`WORKER_SPIN`] after each job before it sleeps, as a poll-mode driver
//! does, so back-to-back batches find it awake; the caller polls for the workers' end.
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long an idle worker polls for the next job before it sleeps (a few batches' worth
/// of the live loop's I/O between two batches).
pub const WORKER_SPIN: Duration = Duration::from_micros(200);

/// A job: called with the thread's index (0 is the caller).
type Job = dyn Fn(usize) + Sync;

/// A job whose borrow [`Pool::run`] keeps alive until every worker is done with it.
#[derive(Clone, Copy)]
struct JobPtr(*const Job);
// SAFETY: the pointee is Sync, and `run` does not return while a worker may use it.
unsafe impl Send for JobPtr {}

struct Shared {
    /// Bumped once per job, after `job` and `pending` are set.
    epoch: AtomicUsize,
    /// Workers still running the current job.
    pending: AtomicUsize,
    stop: AtomicBool,
    panicked: AtomicBool,
    job: Mutex<Option<JobPtr>>,
    /// Sleeping workers, and the condition they sleep on.
    sleepers: Mutex<usize>,
    wake: Condvar,
}

pub struct Pool {
    shared: Arc<Shared>,
    workers: Vec<std::thread::JoinHandle<()>>,
}

impl Pool {
    /// A pool of `threads` threads in all: `threads - 1` workers and the caller.
    pub fn new(threads: usize) -> std::io::Result<Pool> {
        let shared = Arc::new(Shared {
            epoch: AtomicUsize::new(0),
            pending: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            panicked: AtomicBool::new(false),
            job: Mutex::new(None),
            sleepers: Mutex::new(0),
            wake: Condvar::new(),
        });
        let mut workers = Vec::new();
        for i in 1..threads.max(1) {
            let s = shared.clone();
            workers.push(std::thread::Builder::new().name(format!("wsec-crypto-{i}")).spawn(move || worker(&s, i))?);
        }
        Ok(Pool { shared, workers })
    }

    /// Threads a job runs on (the caller included).
    pub fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// Runs `f(0)` here and `f(1)`..`f(threads - 1)` on the workers; returns when all are
    /// done. A panic in a worker is caught there and re-raised here.
    pub fn run(&self, f: &(dyn Fn(usize) + Sync)) {
        let s = &*self.shared;
        if self.workers.is_empty() {
            return f(0);
        }
        // SAFETY: only the lifetime is erased; we wait below until `pending` is 0, after
        // which no worker touches the job again (each reads it before decrementing).
        let p: *const Job = unsafe { std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), *const Job>(f) };
        *s.job.lock().unwrap_or_else(|e| e.into_inner()) = Some(JobPtr(p));
        s.pending.store(self.workers.len(), Ordering::Release);
        s.epoch.fetch_add(1, Ordering::AcqRel);
        {
            let sleeping = s.sleepers.lock().unwrap_or_else(|e| e.into_inner());
            if *sleeping > 0 {
                s.wake.notify_all();
            }
        }
        let mine = catch_unwind(AssertUnwindSafe(|| f(0)));
        let t0 = Instant::now();
        let mut n = 0u32;
        while s.pending.load(Ordering::Acquire) != 0 {
            n = n.wrapping_add(1);
            if n % 64 == 0 && t0.elapsed() > WORKER_SPIN {
                // A worker was descheduled: let it have this CPU.
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        *s.job.lock().unwrap_or_else(|e| e.into_inner()) = None;
        if let Err(e) = mine {
            std::panic::resume_unwind(e);
        }
        if s.panicked.swap(false, Ordering::AcqRel) {
            panic!("a crypto worker panicked");
        }
    }
}

fn worker(s: &Shared, i: usize) {
    let mut seen = 0usize;
    loop {
        // Wait for the next job: poll, then sleep.
        let t0 = Instant::now();
        let mut n = 0u32;
        loop {
            if s.stop.load(Ordering::Acquire) {
                return;
            }
            let e = s.epoch.load(Ordering::Acquire);
            if e != seen {
                seen = e;
                break;
            }
            n = n.wrapping_add(1);
            if n % 64 != 0 || t0.elapsed() < WORKER_SPIN {
                std::hint::spin_loop();
                continue;
            }
            let mut sleeping = s.sleepers.lock().unwrap_or_else(|e| e.into_inner());
            *sleeping += 1;
            while s.epoch.load(Ordering::Acquire) == seen && !s.stop.load(Ordering::Acquire) {
                sleeping = s.wake.wait(sleeping).unwrap_or_else(|e| e.into_inner());
            }
            *sleeping -= 1;
        }
        let job = *s.job.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(JobPtr(p)) = job {
            // SAFETY: `run` keeps the job alive until `pending` reaches 0 below.
            let f = unsafe { &*p };
            if catch_unwind(AssertUnwindSafe(|| f(i))).is_err() {
                s.panicked.store(true, Ordering::Release);
            }
        }
        s.pending.fetch_sub(1, Ordering::AcqRel);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_thread_runs_its_part_of_every_job() {
        let p = Pool::new(3).unwrap();
        assert_eq!(p.threads(), 3);
        for round in 0..2000usize {
            let hits: Vec<AtomicUsize> = (0..3).map(|_| AtomicUsize::new(0)).collect();
            p.run(&|i| {
                hits[i].fetch_add(round + 1, Ordering::Relaxed);
            });
            for h in &hits {
                assert_eq!(h.load(Ordering::Relaxed), round + 1, "round {round}");
            }
            if round % 500 == 0 {
                // Let the workers fall asleep: the next job must wake them.
                std::thread::sleep(WORKER_SPIN * 3);
            }
        }
    }

    #[test]
    fn a_worker_panic_reaches_the_caller_and_the_pool_goes_on() {
        let p = Pool::new(2).unwrap();
        let r = catch_unwind(AssertUnwindSafe(|| p.run(&|i| assert!(i == 0, "worker fails"))));
        assert!(r.is_err());
        let n = AtomicUsize::new(0);
        p.run(&|_| {
            n.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(n.load(Ordering::Relaxed), 2);
    }
}
