//! `wsec stream`: a UDP stream for handover measurements. The sender puts a numbered
//! datagram on the wire every interval; the receiver counts what arrived and reports the
//! datagrams lost and the gaps in arrival (the longest one is a roam's interruption as the
//! station's traffic sees it).
use clap::{Args, Subcommand};
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct StreamArgs {
    #[command(subcommand)]
    cmd: StreamCmd,
}

#[derive(Subcommand)]
enum StreamCmd {
    /// Send a numbered datagram every --interval-ms for --seconds.
    Send {
        /// Where to send (IP:port)
        #[arg(long)]
        to: SocketAddr,
        /// Interval between datagrams, ms (1-1000)
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
        interval_ms: u64,
        /// How long to send, s (1-3600)
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=3600))]
        seconds: u64,
        /// Datagram size, octets (16-1400)
        #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(16..=1400))]
        size: u64,
    },
    /// Receive a stream until --seconds passed or the sender's last datagram came, then print
    /// one line of key=value (received, lost, longest gap) and the gaps over 2 intervals.
    Recv {
        /// Where to listen (IP:port)
        #[arg(long)]
        bind: SocketAddr,
        /// The sender's interval, ms: what a gap is measured against (1-1000)
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
        interval_ms: u64,
        /// Give up after this long, s (1-3600)
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=3600))]
        seconds: u64,
    },
}

const MAGIC: &[u8; 4] = b"wsST";

pub fn run(a: StreamArgs) -> Result<String, (u8, String)> {
    match a.cmd {
        StreamCmd::Send { to, interval_ms, seconds, size } => send(to, interval_ms, seconds, size as usize),
        StreamCmd::Recv { bind, interval_ms, seconds } => recv(bind, interval_ms, seconds),
    }
}

fn send(to: SocketAddr, interval_ms: u64, seconds: u64, size: usize) -> Result<String, (u8, String)> {
    let any: SocketAddr = if to.is_ipv4() { "0.0.0.0:0".parse().unwrap_or(to) } else { "[::]:0".parse().unwrap_or(to) };
    let s = UdpSocket::bind(any).map_err(|e| (1, format!("udp socket: {e}")))?;
    let n = seconds * 1000 / interval_ms;
    let t0 = Instant::now();
    let mut sent = 0u64;
    let mut errors = 0u64;
    for seq in 0..n {
        let due = t0 + Duration::from_millis(seq * interval_ms);
        if let Some(w) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(w);
        }
        let mut d = vec![0u8; size];
        d[..4].copy_from_slice(MAGIC);
        d[4..12].copy_from_slice(&seq.to_be_bytes());
        d[12..16].copy_from_slice(&(n as u32).to_be_bytes());
        // While the station roams the route may be gone for a moment: count, go on.
        match s.send_to(&d, to) {
            Ok(_) => sent += 1,
            Err(_) => errors += 1,
        }
    }
    Ok(format!("sent={sent} send_errors={errors} interval_ms={interval_ms}"))
}

fn recv(bind: SocketAddr, interval_ms: u64, seconds: u64) -> Result<String, (u8, String)> {
    let s = UdpSocket::bind(bind).map_err(|e| (1, format!("udp bind {bind}: {e}")))?;
    s.set_read_timeout(Some(Duration::from_millis(100))).map_err(|e| (1, format!("udp socket: {e}")))?;
    let end = Instant::now() + Duration::from_secs(seconds);
    let (mut received, mut dup, mut total, mut max_seq) = (0u64, 0u64, 0u64, None::<u64>);
    let mut seen = std::collections::HashSet::new();
    let mut last: Option<Instant> = None;
    let t0 = Instant::now();
    let mut gaps: Vec<(f64, f64)> = Vec::new();
    let mut buf = [0u8; 2048];
    while Instant::now() < end {
        let n = match s.recv_from(&mut buf) {
            Ok((n, _)) => n,
            Err(_) => continue,
        };
        if n < 16 || &buf[..4] != MAGIC {
            continue;
        }
        let now = Instant::now();
        let seq = u64::from_be_bytes(buf[4..12].try_into().unwrap_or_default());
        total = u64::from(u32::from_be_bytes(buf[12..16].try_into().unwrap_or_default()));
        if seq >= total || !seen.insert(seq) {
            dup += 1;
            continue;
        }
        received += 1;
        max_seq = Some(max_seq.map_or(seq, |m| m.max(seq)));
        if let Some(l) = last {
            let gap = now.duration_since(l).as_secs_f64() * 1e3;
            if gap > 2.0 * interval_ms as f64 {
                gaps.push((l.duration_since(t0).as_secs_f64() * 1e3, gap));
            }
        }
        last = Some(now);
        if max_seq == Some(total.saturating_sub(1)) && received > 0 && seq + 1 == total {
            break;
        }
    }
    if received == 0 {
        return Err((1, format!("no datagram of a wsec stream arrived on {bind} in {seconds} s")));
    }
    let lost = total.saturating_sub(received);
    let longest = gaps.iter().map(|g| g.1).fold(0.0f64, f64::max);
    let mut out = format!(
        "received={received} lost={lost} total={total} duplicates={dup} longest_gap_ms={longest:.1} gaps_over_2_intervals={}",
        gaps.len()
    );
    for (at, g) in &gaps {
        out += &format!("\ngap at_ms={at:.0} ms={g:.1}");
    }
    Ok(out)
}
