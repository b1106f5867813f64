//! `rsn::rrb` against the real hostapd (Debian's 2.10, `driver=wired`) on one end of a veth
//! pair in a network namespace made here; our key holder is on the other end, through an
//! AF_PACKET socket (`wsec_live::medium::packet`). hostapd is an FT-PSK AP whose
//! `r0kh=`/`r1kh=` lines name our side, with `ft_psk_generate_local=0` so it must get
//! every PMK-R1 from an R0KH. Three exchanges, each checked in our events, in the frames
//! and in hostapd's own debug log (`-dd -K`):
//!
//! 1. Our R1KH PULLs from hostapd's R0KH a PMKR0Name it does not have: SEQ_REQ both
//!    ways, hostapd's RESP without session TLVs (its NAK) decrypted and taken.
//! 2. An FT Request over the DS (89-0D) for a station whose PMK-R0 only we hold: hostapd,
//!    as R1KH, PULLs it from our R0KH (after SEQ_REQs), takes our RESP, and answers the
//!    FT Request with status 0; the PMK-R1 hostapd selected (its log) is the one we
//!    derived.
//! 3. Our PUSH of a third station's PMK-R1, then its FT Request: hostapd answers at once
//!    from its cache (no PULL) with that PMK-R1.
//!
//! Then replays: our PULL again (hostapd: "Invalid sequence number"), a PULL under a
//! wrong key (hostapd: "Failed to decrypt"), and hostapd's RESP again (ours: dropped).
//!
//! Needs root and /usr/sbin/hostapd (scripts/setup installs it): without them it fails.
//! With `WSEC_RRB_CAPTURE=<file>` the run's frames are written in the format of
//! `tests/data/rrb/hostapd-2.10.txt` (what `rrb::replay_hostapd_capture` replays), and
//! hostapd's log beside it.
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use wsec::rsn::akm::Akm;
use wsec::rsn::ft::{derive_pmk_r0, derive_pmk_r1};
use wsec::rsn::rrb::msg::suite_to_pairwise;
use wsec::rsn::rrb::wire::{FtAction, OverDs, OverDsType, ETHERTYPE_OUI, ETHERTYPE_RRB};
use wsec::rsn::rrb::{KeyHolder, KhFrame, Msg, PacketType, PmkR0Entry, RemoteR0kh, RemoteR1kh, RkhKey, RrbEvent, RrbOutput};
use wsec::wire::mac::MacAddr;
use wsec_live::medium::packet::PacketSocket;

pub const SSID: &[u8] = b"wsec-ft";
pub const PASSPHRASE: &[u8] = b"correct horse battery";
pub const MDID: [u8; 2] = [0xa1, 0xb2];
/// hostapd's BSS (rrbh) and our side (rrbw).
pub const HOSTAPD: MacAddr = MacAddr([0x02, 0, 0, 0, 0x01, 0]);
pub const WSEC: MacAddr = MacAddr([0x02, 0, 0, 0, 0x02, 0]);
pub const HOSTAPD_R0KH_ID: &[u8] = b"hostapd.r0kh";
pub const WSEC_R0KH_ID: &[u8] = b"wsec.r0kh";
/// hostapd's `r1kh=` line for us (256-bit): hostapd as R0KH, we as R1KH.
pub const KEY_R1: &str = "8a7a4d5e1c0ff6e2b3a49c7d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081";
/// hostapd's `r0kh=` line for us (an old 128-bit key, which hostapd stretches):
/// hostapd as R1KH, we as R0KH.
pub const KEY_R0: &str = "00112233445566778899aabbccddeeff";
/// Station 1 (unknown PMKR0Name), 2 (pulled by hostapd), 3 (pushed).
pub const SPA: [MacAddr; 3] = [MacAddr([0x02, 0, 0, 0, 0, 0x11]), MacAddr([0x02, 0, 0, 0, 0, 0x12]), MacAddr([0x02, 0, 0, 0, 0, 0x13])];
pub const UNKNOWN_PMK_R0_NAME: [u8; 16] = [0x5a; 16];
pub const SNONCE: [u8; 32] = [0x3c; 32];
/// Our key holder's RNG seed: the replay makes the same nonces and sequence numbers.
pub const SEED: u64 = 0x5eed_0f2b;

/// Our key holder, as configured against hostapd, with the PMK-R0s of stations 2 and 3.
pub fn key_holder() -> KeyHolder {
    let mut kh = KeyHolder::new(WSEC, WSEC_R0KH_ID, WSEC).unwrap();
    kh.r1.add_r0kh(RemoteR0kh { addr: HOSTAPD, r0kh_id: HOSTAPD_R0KH_ID.to_vec(), key: RkhKey::from_hex(KEY_R1).unwrap() });
    kh.r0.add_r1kh(RemoteR1kh { addr: HOSTAPD, r1kh_id: HOSTAPD, key: RkhKey::from_hex(KEY_R0).unwrap() });
    for spa in &SPA[1..] {
        kh.r0.store(PmkR0Entry {
            akm: Akm::FtPsk,
            pmk_r0: pmk_r0(*spa),
            spa: *spa,
            pairwise: suite_to_pairwise(wsec::cipher::CipherSuite::Ccmp128).unwrap(),
            expires_at_ns: None,
            session_timeout_at_ns: None,
            identity: Vec::new(),
            radius_cui: Vec::new(),
            vlan_untagged: 0,
            vlan_tagged: Vec::new(),
        });
    }
    kh
}

/// PMK-R0 of `spa` for our R0KH-ID, from the passphrase (FT-PSK: XXKey = PSK).
pub fn pmk_r0(spa: MacAddr) -> wsec::rsn::ft::PmkR0 {
    let psk = wsec::rsn::pbkdf2::psk_from_passphrase(PASSPHRASE, SSID).unwrap();
    derive_pmk_r0(Akm::FtPsk, &psk, SSID, MDID, WSEC_R0KH_ID, spa.0).unwrap()
}

/// The FT Request a station of `spa` would send its current AP (us) for hostapd: RSNE
/// naming PMKR0Name, MDE, FTE with SNonce and our R0KH-ID (IEEE 802.11-2020 13.5.2).
pub fn ft_request(spa: MacAddr) -> Vec<u8> {
    let mut rsne = vec![0x30, 38, 1, 0, 0x00, 0x0f, 0xac, 4, 1, 0, 0x00, 0x0f, 0xac, 4, 1, 0, 0x00, 0x0f, 0xac, 4, 0, 0, 1, 0];
    rsne.extend_from_slice(&pmk_r0(spa).name);
    let mde = [0x36, 3, MDID[0], MDID[1], 0x01];
    let mut fte = vec![0x37, 0, 0, 0];
    fte.extend_from_slice(&[0u8; 16 + 32]);
    fte.extend_from_slice(&SNONCE);
    fte.extend_from_slice(&[3, WSEC_R0KH_ID.len() as u8]);
    fte.extend_from_slice(WSEC_R0KH_ID);
    fte[1] = (fte.len() - 2) as u8;
    let ies = [rsne, mde.to_vec(), fte].concat();
    let action = FtAction { action: FtAction::REQUEST, sta: spa, target_ap: HOSTAPD, status: None, ies }.emit();
    OverDs { dst: HOSTAPD, src: WSEC, packet_type: OverDsType::Request, ap_address: WSEC, action }.emit().unwrap()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn sh(args: &[&str]) {
    let st = Command::new(args[0]).args(&args[1..]).status().unwrap_or_else(|e| panic!("{}: {e}", args[0]));
    assert!(st.success(), "{args:?}: {st}");
}

/// What [`Lab::run`] saw: our key holder's events, the over-DS frames and the key-holder
/// frames received.
type Seen = (Vec<RrbEvent>, Vec<OverDs>, Vec<Vec<u8>>);

/// The namespace, hostapd in it and our socket on the other veth end.
struct Lab {
    ns: String,
    dir: PathBuf,
    hostapd: Child,
    sock: PacketSocket,
    t0: Instant,
    /// The capture (see the module text).
    cap: String,
}

impl Lab {
    fn start() -> Lab {
        assert!(wsec_live::medium::netns::is_root(), "rrb_hostapd needs root (network namespaces, packet sockets)");
        assert!(std::path::Path::new("/usr/sbin/hostapd").exists(), "/usr/sbin/hostapd is missing (scripts/setup installs it)");
        let ns = format!("wrrb{}", std::process::id());
        let _ = Command::new("ip").args(["netns", "del", &ns]).stderr(Stdio::null()).status();
        sh(&["ip", "netns", "add", &ns]);
        sh(&["ip", "-n", &ns, "link", "add", "rrbh", "type", "veth", "peer", "name", "rrbw"]);
        sh(&["ip", "-n", &ns, "link", "set", "rrbh", "address", &HOSTAPD.to_string(), "up"]);
        sh(&["ip", "-n", &ns, "link", "set", "rrbw", "address", &WSEC.to_string(), "up"]);
        let dir = std::env::temp_dir().join(format!("wsec-rrb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let conf = format!(
            "interface=rrbh\ndriver=wired\nssid={}\nwpa=2\nwpa_key_mgmt=FT-PSK\nrsn_pairwise=CCMP\nwpa_passphrase={}\n\
             mobility_domain={}\nnas_identifier={}\nr1_key_holder={}\nft_psk_generate_local=0\n\
             r0kh={WSEC} {} {KEY_R0}\nr1kh={WSEC} {WSEC} {KEY_R1}\n",
            String::from_utf8_lossy(SSID),
            String::from_utf8_lossy(PASSPHRASE),
            hex(&MDID),
            String::from_utf8_lossy(HOSTAPD_R0KH_ID),
            hex(&HOSTAPD.0),
            String::from_utf8_lossy(WSEC_R0KH_ID),
        );
        std::fs::write(dir.join("hostapd.conf"), conf).unwrap();
        let log = std::fs::File::create(dir.join("hostapd.log")).unwrap();
        let hostapd = Command::new("ip")
            .args(["netns", "exec", &ns, "/usr/sbin/hostapd", "-dd", "-K"])
            .arg(dir.join("hostapd.conf"))
            .stdout(Stdio::from(log.try_clone().unwrap()))
            .stderr(Stdio::from(log))
            .spawn()
            .expect("hostapd starts");
        let nsc = ns.clone();
        let sock = wsec_live::medium::netns::run_in(&ns, || PacketSocket::open("rrbw", 0))
            .unwrap()
            .join()
            .unwrap()
            .unwrap()
            .unwrap_or_else(|e| panic!("packet socket in {nsc}: {e}"));
        let mut lab = Lab { ns, dir, hostapd, sock, t0: Instant::now(), cap: String::new() };
        while !lab.log().contains("AP-ENABLED") {
            if let Some(st) = lab.hostapd.try_wait().unwrap() {
                panic!("hostapd exited ({st}):\n{}", lab.log());
            }
            assert!(lab.t0.elapsed() < Duration::from_secs(10), "hostapd not ready:\n{}", lab.log());
            std::thread::sleep(Duration::from_millis(20));
        }
        lab.t0 = Instant::now();
        lab
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("hostapd.log")).unwrap_or_default()
    }

    fn now(&self) -> u64 {
        self.t0.elapsed().as_nanos() as u64
    }

    /// Sends our key holder's frames and records them with its events.
    fn flush(&mut self, out: &mut RrbOutput) {
        for f in out.frames.drain(..) {
            writeln!(self.cap, "out {}", hex(&f)).unwrap();
            self.sock.send_raw(&f).unwrap();
        }
        for e in &out.events {
            writeln!(self.cap, "ev {e}").unwrap();
            eprintln!("{e}");
        }
    }

    /// Runs the key holder on what arrives until `done` says so (or `wait` passes: then
    /// `None`). Returns the over-DS frames and key-holder frames received.
    fn run(
        &mut self,
        kh: &mut KeyHolder,
        rng: &mut dyn rand_core::CryptoRngCore,
        wait: Duration,
        mut done: impl FnMut(&[RrbEvent], &[OverDs]) -> bool,
    ) -> Option<Seen> {
        let end = Instant::now() + wait;
        let (mut events, mut ds, mut kframes) = (Vec::new(), Vec::new(), Vec::new());
        let mut buf = Vec::new();
        let mut out = RrbOutput::default();
        while Instant::now() < end {
            if self.sock.recv_raw(&mut buf).unwrap() {
                if buf.len() < 14 {
                    continue;
                }
                match u16::from_be_bytes([buf[12], buf[13]]) {
                    ETHERTYPE_OUI => {
                        let now = self.now();
                        writeln!(self.cap, "rx {now} {}", hex(&buf)).unwrap();
                        kframes.push(buf.clone());
                        kh.handle(&buf, now, rng, &mut out);
                    }
                    ETHERTYPE_RRB => {
                        writeln!(self.cap, "ds-rx {}", hex(&buf)).unwrap();
                        ds.push(OverDs::parse(&buf).unwrap());
                    }
                    _ => continue,
                }
            } else {
                let now = self.now();
                kh.poll(now, rng, &mut out);
                if !out.frames.is_empty() || !out.events.is_empty() {
                    writeln!(self.cap, "poll {now}").unwrap();
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            events.extend(out.events.iter().cloned());
            self.flush(&mut out);
            out.clear();
            if done(&events, &ds) {
                return Some((events, ds, kframes));
            }
        }
        None
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        let _ = self.hostapd.kill();
        let _ = self.hostapd.wait();
        let _ = Command::new("ip").args(["netns", "del", &self.ns]).status();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// The PMK-R1 hostapd's log shows as selected for the station last processed after `from`.
fn selected_pmk_r1(log: &str, from: usize) -> Option<String> {
    let l = log[from..].lines().find(|l| l.starts_with("FT: Selected PMK-R1 - hexdump(len=32):"))?;
    Some(l.split("):").nth(1)?.split_whitespace().collect())
}

fn dropped(ev: &[RrbEvent]) -> Vec<&RrbEvent> {
    ev.iter().filter(|e| matches!(e, RrbEvent::Dropped { .. })).collect()
}

#[test]
fn key_holders_against_hostapd() {
    let mut lab = Lab::start();
    let mut kh = key_holder();
    let mut rng = wsec::rng::seeded(SEED);
    let key_r1 = RkhKey::from_hex(KEY_R1).unwrap();
    let key_r0 = RkhKey::from_hex(KEY_R0).unwrap();
    writeln!(lab.cap, "# hostapd 2.10 (driver=wired) and rsn::rrb; see crates/wsec/tests/it/rrb_hostapd.rs").unwrap();

    // 1. PULL for a PMKR0Name hostapd does not have.
    let mut out = RrbOutput::default();
    let now = lab.now();
    writeln!(lab.cap, "pull {now}").unwrap();
    kh.r1.pull(SPA[0], HOSTAPD_R0KH_ID, UNKNOWN_PMK_R0_NAME, now, &mut rng, &mut out).unwrap();
    let ours: Vec<Vec<u8>> = out.frames.clone();
    assert_eq!(ours.iter().map(|f| KhFrame::parse(f).unwrap().packet_type).collect::<Vec<_>>(), [PacketType::SeqReq, PacketType::Pull]);
    lab.flush(&mut out);
    let (ev, _, kf) = lab
        .run(&mut kh, &mut rng, Duration::from_secs(5), |ev, _| ev.iter().any(|e| matches!(e, RrbEvent::PullRefused { .. })))
        .unwrap_or_else(|| panic!("no RESP from hostapd:\n{}", lab.log()));
    assert!(dropped(&ev).is_empty(), "{ev:?}");
    assert_eq!(ev.last(), Some(&RrbEvent::PullRefused { spa: SPA[0], pmk_r0_name: UNKNOWN_PMK_R0_NAME }));
    // Every frame hostapd sent decrypts under the shared key, here too.
    let got: Vec<Msg> = kf.iter().map(|f| Msg::open(&KhFrame::parse(f).unwrap(), &key_r1).unwrap()).collect();
    let Msg::SeqReq(our_req) = Msg::open(&KhFrame::parse(&ours[0]).unwrap(), &key_r1).unwrap() else { unreachable!() };
    let Some(Msg::SeqResp(sr)) = got.iter().find(|m| matches!(m, Msg::SeqResp(_))) else { panic!("no SEQ_RESP: {got:?}") };
    assert_eq!((sr.nonce, &sr.r0kh_id[..], sr.r1kh_id), (our_req.nonce, HOSTAPD_R0KH_ID, WSEC));
    assert!(
        got.iter().any(|m| matches!(m, Msg::SeqReq(q) if q.r0kh_id == HOSTAPD_R0KH_ID && q.r1kh_id == WSEC)),
        "hostapd asked for our sequence state: {got:?}"
    );
    let Some(Msg::Resp(resp)) = got.iter().find(|m| matches!(m, Msg::Resp(_))) else { panic!("no RESP: {got:?}") };
    assert_eq!((resp.s1kh_id, resp.session.is_none()), (SPA[0], true));
    let log = lab.log();
    for want in [
        "FT: Received sequence number request",
        "FT: Received PMK-R1 pull",
        "FT: No matching PMK-R0-Name found",
        "FT: Send PMK-R1 pull response",
        "FT: Received sequence number response",
    ] {
        assert!(log.contains(want), "hostapd log lacks {want:?}:\n{log}");
    }
    assert!(!log.contains("Failed to decrypt"), "{log}");
    eprintln!("1: hostapd answered SEQ_REQ and the PULL (NAK) with {} frames, all verified", kf.len());

    // 2. hostapd pulls station 2's PMK-R1 from us for an FT Request over the DS.
    let mark = lab.log().len();
    let req = ft_request(SPA[1]);
    writeln!(lab.cap, "ds-tx {}", hex(&req)).unwrap();
    lab.sock.send_raw(&req).unwrap();
    let (ev, ds, kf) = lab
        .run(&mut kh, &mut rng, Duration::from_secs(8), |_, ds| ds.iter().any(|d| d.packet_type == OverDsType::Response))
        .unwrap_or_else(|| panic!("no FT Response over the DS:\n{}", &lab.log()[mark..]));
    assert!(dropped(&ev).is_empty(), "{ev:?}");
    assert!(
        ev.contains(&RrbEvent::PullAnswered { r1kh_id: HOSTAPD, spa: SPA[1], pmk_r0_name: pmk_r0(SPA[1]).name, found: true }),
        "{ev:?}"
    );
    let types: Vec<PacketType> = kf.iter().map(|f| KhFrame::parse(f).unwrap().packet_type).collect();
    assert!(types.contains(&PacketType::Pull), "{types:?}");
    for f in &kf {
        Msg::open(&KhFrame::parse(f).unwrap(), &key_r0).unwrap();
    }
    let resp = &ds[0];
    assert_eq!((resp.dst, resp.src, resp.ap_address), (WSEC, HOSTAPD, HOSTAPD));
    let a = FtAction::parse(&resp.action).unwrap();
    assert_eq!((a.action, a.sta, a.target_ap, a.status), (FtAction::RESPONSE, SPA[1], HOSTAPD, Some(0)), "{a:?}");
    let log = lab.log();
    let want = hex(&derive_pmk_r1(Akm::FtPsk, &pmk_r0(SPA[1]), HOSTAPD.0, SPA[1].0).unwrap().key);
    assert_eq!(selected_pmk_r1(&log, mark).as_deref(), Some(&want[..]), "{}", &log[mark..]);
    assert!(log[mark..].contains("FT: Received PMK-R1 pull response"), "{}", &log[mark..]);
    assert!(!log.contains("Failed to decrypt"), "{log}");
    eprintln!("2: hostapd pulled from our R0KH and selected PMK-R1 {want}");

    // 3. PUSH station 3's PMK-R1; its FT Request is answered from hostapd's cache.
    let mark = lab.log().len();
    let now = lab.now();
    writeln!(lab.cap, "push {now}").unwrap();
    assert_eq!(kh.r0.push(SPA[2], now, &mut rng, &mut out).unwrap(), 1);
    lab.flush(&mut out);
    out.clear();
    let t = Instant::now();
    while !lab.log()[mark..].contains("FT: PMK-R1 push - expires_in") {
        assert!(t.elapsed() < Duration::from_secs(5), "hostapd did not take the PUSH:\n{}", &lab.log()[mark..]);
        lab.run(&mut kh, &mut rng, Duration::from_millis(20), |_, _| false);
    }
    let req = ft_request(SPA[2]);
    writeln!(lab.cap, "ds-tx {}", hex(&req)).unwrap();
    lab.sock.send_raw(&req).unwrap();
    let (ev, ds, kf) = lab
        .run(&mut kh, &mut rng, Duration::from_secs(5), |_, ds| ds.iter().any(|d| d.packet_type == OverDsType::Response))
        .unwrap_or_else(|| panic!("no FT Response over the DS:\n{}", &lab.log()[mark..]));
    assert!(dropped(&ev).is_empty() && kf.is_empty(), "no PULL for a pushed key: {ev:?} {kf:?}");
    assert_eq!(FtAction::parse(&ds[0].action).unwrap().status, Some(0));
    let log = lab.log();
    let want = hex(&derive_pmk_r1(Akm::FtPsk, &pmk_r0(SPA[2]), HOSTAPD.0, SPA[2].0).unwrap().key);
    assert_eq!(selected_pmk_r1(&log, mark).as_deref(), Some(&want[..]), "{}", &log[mark..]);
    assert!(log[mark..].contains("FT: Found PMKR1Name from local cache"), "{}", &log[mark..]);
    eprintln!("3: hostapd took our PUSH and selected PMK-R1 {want} from its cache");

    // Replays and a wrong key, refused on both sides.
    let mark = lab.log().len();
    lab.sock.send_raw(&ours[1]).unwrap();
    let mut bad = key_holder();
    bad.r1.add_r0kh(RemoteR0kh { addr: HOSTAPD, r0kh_id: HOSTAPD_R0KH_ID.to_vec(), key: RkhKey::from_bytes([7; 32]) });
    let mut o = RrbOutput::default();
    bad.r1.pull(SPA[0], HOSTAPD_R0KH_ID, [0x77; 16], lab.now(), &mut wsec::rng::seeded(9), &mut o).unwrap();
    lab.sock.send_raw(o.frames.last().unwrap()).unwrap();
    let resp_frame = kf_resp(&lab.cap);
    let mut o = RrbOutput::default();
    kh.handle(&resp_frame, lab.now(), &mut rng, &mut o);
    assert_eq!(
        o.events,
        [RrbEvent::Dropped { from: HOSTAPD, packet_type: Some(PacketType::Resp), reason: "RESP nonce matches no pending PULL" }]
    );
    let t = Instant::now();
    loop {
        let log = lab.log();
        if log[mark..].contains("FT: Invalid sequence number in pull request") && log[mark..].contains("FT(RRB): Failed to decrypt") {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(5), "hostapd did not refuse the replay and the wrong key:\n{}", &log[mark..]);
        // hostapd may first ask for our sequence state (a timestamp over 10 s old).
        lab.run(&mut kh, &mut rng, Duration::from_millis(20), |_, _| false);
    }
    assert!(!lab.log()[mark..].contains("FT: Send PMK-R1 pull response"), "{}", &lab.log()[mark..]);
    eprintln!("replayed PULL and wrong key refused by hostapd; replayed RESP refused by us");

    if let Ok(p) = std::env::var("WSEC_RRB_CAPTURE") {
        std::fs::write(&p, &lab.cap).unwrap();
        std::fs::write(format!("{p}.hostapd.log"), lab.log()).unwrap();
        eprintln!("capture written to {p} (hostapd's log beside it)");
    }
}

/// hostapd's RESP of exchange 1, from the capture.
fn kf_resp(cap: &str) -> Vec<u8> {
    cap.lines()
        .filter_map(|l| l.strip_prefix("rx "))
        .map(|l| hex_decode(l.split_whitespace().nth(1).unwrap()))
        .find(|f| KhFrame::parse(f).map(|k| k.packet_type == PacketType::Resp).unwrap_or(false))
        .unwrap()
}

pub fn hex_decode(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}
