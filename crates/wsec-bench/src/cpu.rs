//! What the benchmark ran on: CPU model, the features that decide which code runs, and the
//! time-stamp counter (TSC) used to express costs in ticks per byte.
//!
//! On x86_64 with an invariant TSC (`constant_tsc`, `nonstop_tsc`) the TSC ticks at a fixed
//! rate whatever the core clock does, so ticks per byte are a time, not a cycle count; the
//! rate is measured against the monotonic clock ([`tsc_ghz`]). On other architectures
//! [`ticks`] returns 0 and tick figures are left out.
use std::time::{Duration, Instant};

/// The CPU as `/proc/cpuinfo` names it, e.g. "AMD EPYC 9R14 96-Core Processor" (with family
/// and model numbers when the name is generic, as in virtual machines), or "unknown".
pub fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    model_from_cpuinfo(&info)
}

/// [`cpu_model`] on a given `/proc/cpuinfo` text.
pub fn model_from_cpuinfo(info: &str) -> String {
    let field = |name: &str| {
        info.lines()
            .find(|l| l.split(':').next().map(str::trim) == Some(name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let Some(name) = field("model name").or_else(|| field("Model")).or_else(|| field("Hardware")) else {
        return "unknown".into();
    };
    // A bare vendor name (virtual machines often say only "AMD EPYC") says little: add
    // family/model/stepping, which identify the core generation.
    if name.split_whitespace().count() <= 2 {
        if let (Some(f), Some(m)) = (field("cpu family"), field("model")) {
            let s = field("stepping").map(|s| format!(" stepping {s}")).unwrap_or_default();
            return format!("{name} (family {f} model {m}{s})");
        }
    }
    name
}

/// Number of logical CPUs this process may run on.
pub fn logical_cpus() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Whether the CPU has AES instructions the `aes` crate uses (AES-NI on x86, the ARMv8
/// crypto extension on aarch64).
pub fn has_hw_aes() -> bool {
    #[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
    {
        std::arch::is_x86_feature_detected!("aes") && std::arch::is_x86_feature_detected!("sse2")
    }
    #[cfg(target_arch = "aarch64")]
    {
        std::arch::is_aarch64_feature_detected!("aes")
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64")))]
    {
        false
    }
}

/// The CPU features that matter for symmetric crypto, as a short list ("aes pclmulqdq avx2
/// vaes ..."), each present on this CPU.
pub fn crypto_features() -> Vec<&'static str> {
    #[allow(unused_mut)]
    let mut v = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! f {
            ($($name:tt),*) => {$(
                if std::arch::is_x86_feature_detected!($name) { v.push($name); }
            )*};
        }
        f!("aes", "pclmulqdq", "sse4.1", "avx2", "avx512f", "vaes", "vpclmulqdq", "sha");
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("aes") {
            v.push("aes");
        }
        if std::arch::is_aarch64_feature_detected!("pmull") {
            v.push("pmull");
        }
    }
    v
}

/// The time-stamp counter (0 where there is none).
#[inline(always)]
pub fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC exists on every x86_64 CPU and has no preconditions.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

/// Whether [`ticks`] counts at all on this build.
pub const HAS_TSC: bool = cfg!(target_arch = "x86_64");

/// CPU time used so far by the calling thread (`CLOCK_THREAD_CPUTIME_ID`), or `None` where
/// there is no such clock. Unlike wall-clock time it does not advance while the thread waits
/// for a CPU, which on a shared machine is most of the noise; with paravirtual steal-time
/// accounting (KVM guests) time stolen by the hypervisor is left out too.
pub fn thread_cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid, writable timespec; the call has no other preconditions.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        (rc == 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// TSC ticks per nanosecond, measured over `span` against the monotonic clock (the median of
/// five such spans, so that a preempted span does not skew it). `None` without a TSC.
pub fn tsc_ghz(span: Duration) -> Option<f64> {
    if !HAS_TSC {
        return None;
    }
    let mut rates: Vec<f64> = (0..5)
        .map(|_| {
            let (t0, c0) = (Instant::now(), ticks());
            while t0.elapsed() < span {
                std::hint::spin_loop();
            }
            let (c1, dt) = (ticks(), t0.elapsed());
            (c1 - c0) as f64 / dt.as_nanos() as f64
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    Some(rates[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names() {
        let epyc = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n\
                    model name\t: AMD EPYC\nstepping\t: 1\n";
        assert_eq!(model_from_cpuinfo(epyc), "AMD EPYC (family 25 model 17 stepping 1)");
        let intel = "model\t\t: 85\nmodel name\t: Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz\n";
        assert_eq!(model_from_cpuinfo(intel), "Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz");
        assert_eq!(model_from_cpuinfo(""), "unknown");
    }

    #[test]
    #[cfg(unix)]
    fn thread_cpu_time_advances_with_work_only() {
        let t0 = thread_cpu_time().unwrap();
        let w0 = Instant::now();
        let mut x = 0u64;
        while w0.elapsed() < Duration::from_millis(20) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let busy = thread_cpu_time().unwrap() - t0;
        assert!(busy > Duration::ZERO && busy <= w0.elapsed() + Duration::from_millis(1), "{busy:?}");
        let t1 = thread_cpu_time().unwrap();
        std::thread::sleep(Duration::from_millis(30));
        assert!(thread_cpu_time().unwrap() - t1 < Duration::from_millis(10));
    }
}
