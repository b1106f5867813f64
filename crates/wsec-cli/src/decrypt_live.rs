//! `wsec decrypt --live IFACE`: decryption of what a Linux 802.11 radio hears, as it hears
//! it. The interface is taken over as a monitor on the channel given (the radio backend of
//! `wsec ap`/`wsec sta`, `wsec_live::medium::radio`, on the interface's own address so that
//! it acknowledges nothing of anyone else's), every frame goes through the decryptor in the
//! order received (one pass, the same engine and outcomes as for a file), and out as
//! radiotap (link type 127): to a pcapng file, or with `-o -` as a classic pcap stream on
//! standard output, flushed frame by frame (`wsec decrypt --live wlan1 -o - | tshark -i -`).
use crate::decrypt_cmd::{keys_of, summary, DecryptArgs};
use std::io::Write;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use wsec::capture::radio::{self, LINKTYPE_RADIOTAP};
use wsec::capture::rewrite::replace_mpdu;
use wsec::capture::writer::CaptureWriter;
use wsec::capture::Packet;
use wsec::decrypt::{Decryptor, Outcome};
use wsec::wire::mac::MacAddr;
use wsec_live::medium::radio::{address, Radio};
use wsec_live::medium::Medium;
use wsec_live::runtime::{install_signal_handlers, STOP};

fn now_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

pub fn run(a: &DecryptArgs) -> Result<crate::Reply, (u8, String)> {
    let iface = a.live.as_deref().unwrap_or_default();
    if a.ethernet {
        return Err((2, "--live writes radiotap frames; --ethernet is for files".into()));
    }
    let keys = keys_of(a).map_err(|e| (2, e))?;
    let to_stdout = a.output.as_os_str() == "-";
    let own = address(iface).map_err(|e| (1, format!("{iface}: {e}")))?;
    let mut radio = Radio::open(iface, a.channel, MacAddr(own)).map_err(|e| (1, format!("{iface}: {e}")))?;
    install_signal_handlers();
    let sink: Box<dyn Write> = if to_stdout {
        Box::new(std::io::stdout().lock())
    } else {
        Box::new(std::fs::File::create(&a.output).map_err(|e| (1, format!("{}: {e}", a.output.display())))?)
    };
    let mut w = if to_stdout { CaptureWriter::pcap(sink, LINKTYPE_RADIOTAP, false) } else { CaptureWriter::pcapng_nanos(sink) }
        .map_err(|e| (1, format!("{}: {e}", a.output.display())))?;
    let mut d = Decryptor::new(keys);
    let deadline = a.duration.map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0)));
    let mut buf = Vec::new();
    let mut written = 0u64;
    while !STOP.load(Ordering::SeqCst) && deadline.is_none_or(|t| Instant::now() < t) {
        let got = radio.recv(&mut buf).map_err(|e| (1, format!("{iface}: {e}")))?;
        if !got {
            // The socket is non-blocking: a short sleep keeps an idle radio cheap.
            std::thread::sleep(Duration::from_millis(2));
            continue;
        }
        let ts_ns = now_ns();
        let Ok(m) = radio::mpdu(LINKTYPE_RADIOTAP, &buf) else { continue };
        let out = match d.process(m.bytes) {
            Outcome::Decrypted { mpdu, .. } => replace_mpdu(LINKTYPE_RADIOTAP, &buf, &mpdu).ok(),
            Outcome::Duplicate { .. } => None,
            Outcome::Failed(_) if a.drop_undecrypted => None,
            _ => Some(buf.clone()),
        };
        if let Some(data) = out {
            w.write(&Packet { linktype: LINKTYPE_RADIOTAP, ts_ns, data }).map_err(|e| (1, e.to_string()))?;
            written += 1;
            // Frame by frame: a reader of the stream sees each frame as it is decrypted.
            w.flush().map_err(|e| (1, e.to_string()))?;
        }
    }
    w.finish().map_err(|e| (1, e.to_string()))?.flush().map_err(|e| (1, e.to_string()))?;
    let s = summary(a, &d.stats, written, &[]);
    let s = format!("{s}\n{}", radio.describe());
    if to_stdout {
        eprintln!("{s}");
        return Ok(crate::Reply { out: String::new(), partial: None });
    }
    Ok(crate::Reply { out: s, partial: None })
}
