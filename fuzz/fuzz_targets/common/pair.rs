//! An access point core and a station core on one simulated medium, driven by a byte
//! stream: the harness of the `ap_core`, `sta_core` and `ctrl` targets (issue 38).
//!
//! Both cores are the live system's ([`wsec::node::ap::AccessPoint`],
//! [`wsec::node::sta::Station`]), configured from hostapd.conf / wpa_supplicant.conf text as
//! `wsec ap` / `wsec sta` are (one of [`CONFIGS`]), with seeded randomness and the harness's
//! clock, so one input always runs the same way. One core is under test (it gets the
//! fuzzer's frames); the other is a real peer that runs the handshakes with it and protects
//! frames with the keys they made, so the fuzzer gets past decryption.
//!
//! The input: `[config][flags]` then operations, one opcode octet each ([`Pair::op`]).
//! After every operation the invariants of [`Pair::check`] hold: the AP's station table
//! within `max_num_sta`, each data path's backlog within the card queue bound
//! ([`wsec::node::card::QUEUE_MAX`]), the reassembly buffers within their bound, and no
//! plaintext given to a host from an unprotected (non-EAPOL) data frame on a protected link.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;
use wsec::node::ap::{AccessPoint, ApConfig};
use wsec::node::card::QUEUE_MAX;
use wsec::node::sta::{StaConfig, Station};
use wsec::node::{Output, Security};
use wsec::wire::mac::MacAddr;
use wsec_live::ctrl::{Action, Ctrl, CtrlSpec, Ctx};

pub const BSSID: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
pub const STA: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x11]);
const PSK: &str = "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9";

/// The AP's lines after its common head, the station's network block lines, and the
/// station's global lines: open, WPA2-PSK CCMP, WPA3-SAE with PMF, OWE, WEP-104 shared
/// key, WPA1 TKIP, and WPA2-PSK-SHA256 GCMP-256 with optional PMF, BIP-GMAC-256, the card
/// model and short GTK/PTK rekey periods.
pub const CONFIGS: [(&str, &str, &str); 7] = [
    ("max_num_sta=4\n", " key_mgmt=NONE\n", ""),
    ("wpa=2\nwpa_key_mgmt=WPA-PSK\nrsn_pairwise=CCMP\nwpa_psk=@\nmax_num_sta=4\n", " key_mgmt=WPA-PSK\n psk=@\n", ""),
    (
        "wpa=2\nwpa_key_mgmt=SAE\nrsn_pairwise=CCMP\nieee80211w=2\nsae_password=secret sauce\nmax_num_sta=4\n",
        " key_mgmt=SAE\n sae_password=\"secret sauce\"\n ieee80211w=2\n",
        "",
    ),
    ("wpa=2\nwpa_key_mgmt=OWE\nrsn_pairwise=CCMP\nmax_num_sta=4\n", " key_mgmt=OWE\n", ""),
    (
        "wep_key0=0102030405060708090a0b0c0d\nwep_default_key=0\nauth_algs=2\nmax_num_sta=4\n",
        " key_mgmt=NONE\n wep_key0=0102030405060708090a0b0c0d\n wep_tx_keyidx=0\n auth_alg=SHARED\n",
        "",
    ),
    (
        "wpa=1\nwpa_key_mgmt=WPA-PSK\nwpa_pairwise=TKIP\nwpa_psk=@\nmax_num_sta=4\n",
        " key_mgmt=WPA-PSK\n psk=@\n proto=WPA\n pairwise=TKIP\n group=TKIP\n",
        "",
    ),
    (
        "wpa=2\nwpa_key_mgmt=WPA-PSK-SHA256\nrsn_pairwise=GCMP-256\nwpa_psk=@\nieee80211w=1\ngroup_mgmt_cipher=BIP-GMAC-256\n\
         crypto_offload=card\nwpa_group_rekey=3\nwpa_ptk_rekey=5\nmax_num_sta=4\n",
        " key_mgmt=WPA-PSK-SHA256\n psk=@\n pairwise=GCMP-256\n ieee80211w=2\n",
        "crypto_offload=card\n",
    ),
];

/// Addresses the operations pick by a 4-bit index: the BSSID, the station, broadcast, a
/// multicast group and twelve other stations.
pub fn addr(i: u8) -> MacAddr {
    match i & 15 {
        0 => BSSID,
        1 => STA,
        2 => MacAddr([0xff; 6]),
        3 => MacAddr([0x01, 0x00, 0x5e, 0, 0, 0x01]),
        n => MacAddr([0x02, 0, 0, 0, 0, 0x20 + n]),
    }
}

/// The parsed configurations (the PSK text parses once per process).
fn configs() -> &'static Vec<(ApConfig, StaConfig)> {
    static C: OnceLock<Vec<(ApConfig, StaConfig)>> = OnceLock::new();
    C.get_or_init(|| {
        CONFIGS
            .iter()
            .map(|(ap, net, global)| {
                let ap = format!("interface=wsec-ap\nmedium=air:127.0.0.1:7411\nbssid={BSSID}\nssid=wsec-fuzz\n{ap}").replace('@', PSK);
                let sta = format!(
                    "interface=wsec-sta\nmedium=air:127.0.0.1:7411\naddr={STA}\n{global}network={{\n ssid=\"wsec-fuzz\"\n{net}}}\n"
                )
                .replace('@', PSK);
                let ap = wsec_live::conf::parse_ap(&ap).unwrap_or_else(|e| panic!("harness AP configuration: {e}\n{ap}")).ap;
                let sta = wsec_live::conf::parse_sta(&sta).unwrap_or_else(|e| panic!("harness STA configuration: {e}\n{sta}")).sta;
                (ap, sta)
            })
            .collect()
    })
}

/// Which core gets the fuzzer's frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Ap,
    Sta,
}

/// Reads the input front to back; past its end every read gives zeros.
pub struct Input<'a>(pub &'a [u8]);

impl Input<'_> {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    /// Up to `n` octets (fewer at the end of the input).
    pub fn take(&mut self, n: usize) -> &[u8] {
        let (a, b) = self.0.split_at(n.min(self.0.len()));
        self.0 = b;
        a
    }
    /// A length-prefixed octet string (one octet of length, or 0xff then two).
    pub fn bytes(&mut self) -> Vec<u8> {
        let n = match self.u8() {
            0xff => self.u16() as usize,
            n => n as usize,
        };
        self.take(n).to_vec()
    }
}

/// The harness's bound on frames waiting to cross the medium (its own queue, not a core's).
const MEDIUM_MAX: usize = 256;
/// At most this many operations per input (a repeat counts each time).
const OPS_MAX: usize = 2048;
/// A documented bound on the octets one security association holds for reassembly:
/// 8 partial MSDUs of at most 7943 octets each and their MAC headers
/// (`wsec::link::defrag::Reassembler`'s defaults).
const REASSEMBLY_PER_SA: usize = 8 * (7935 + 8 + 40);

pub struct Pair {
    pub ap: AccessPoint,
    pub sta: Station,
    pub now: u64,
    pub side: Side,
    /// The configuration index (see [`CONFIGS`]).
    pub cfg: usize,
    protected_link: bool,
    /// The largest `max_num_sta` the AP had (its configuration's, or a larger `SET`).
    max_stations: usize,
    ap_out: Output,
    sta_out: Output,
    /// Frames on the medium not yet delivered: to the AP, to the station.
    to_ap: Vec<Vec<u8>>,
    to_sta: Vec<Vec<u8>>,
    /// The last frames seen on the medium (either way), for the replay operation.
    seen: Vec<Vec<u8>>,
    /// What each host got (Ethernet frames), counted.
    pub ap_host: usize,
    pub sta_host: usize,
    enabled: [bool; 2],
    ctrl: [Option<Ctrl>; 2],
    ctrl_dir: PathBuf,
    started: Instant,
    last_op: Option<Vec<u8>>,
    ops: usize,
}

impl Pair {
    /// The cores of configuration `cfg % CONFIGS.len()`; with `establish`, the real
    /// handshake has run (discovery, authentication, association, the 4-way handshake).
    pub fn new(cfg: u8, side: Side, establish: bool) -> Pair {
        let cfg = cfg as usize % CONFIGS.len();
        let (apc, stac) = configs()[cfg].clone();
        let protected_link = !matches!(apc.security, Security::Open);
        let max_stations = apc.max_stations;
        let now = 1;
        let ap = AccessPoint::new(apc, now, wsec::rng::seeded(1)).expect("harness AP core");
        let sta = Station::new(stac, now, wsec::rng::seeded(2)).expect("harness STA core");
        let mut p = Pair {
            ap,
            sta,
            now,
            side,
            cfg,
            protected_link,
            max_stations,
            ap_out: Output::default(),
            sta_out: Output::default(),
            to_ap: Vec::new(),
            to_sta: Vec::new(),
            seen: Vec::new(),
            ap_host: 0,
            sta_host: 0,
            enabled: [true; 2],
            ctrl: [None, None],
            ctrl_dir: PathBuf::from(format!("/tmp/wsec-fuzz-ctrl-{}", std::process::id())),
            started: Instant::now(),
            last_op: None,
            ops: 0,
        };
        if establish {
            let deadline = p.now + 5 * wsec::node::SEC;
            while !(p.sta.is_established() && p.ap.stations().iter().any(|(a, _)| *a == STA)) {
                assert!(p.now < deadline, "harness: configuration {cfg} did not establish in 5 s ({})", p.sta.wpa_state());
                p.exchange(8);
                p.advance_to_deadline(10 * wsec::node::TU);
            }
            p.exchange(8);
        }
        p
    }

    /// Drains both cores' outputs onto the medium and to the hosts.
    fn collect(&mut self) {
        self.ap_host += self.ap_out.host.len();
        self.sta_host += self.sta_out.host.len();
        self.ap_out.host.clear();
        self.sta_out.host.clear();
        self.ap_out.events.clear();
        self.sta_out.events.clear();
        for f in self.ap_out.air.drain(..) {
            remember(&mut self.seen, &f);
            push_bounded(&mut self.to_sta, f);
        }
        for f in self.sta_out.air.drain(..) {
            remember(&mut self.seen, &f);
            push_bounded(&mut self.to_ap, f);
        }
    }

    /// Up to `rounds` rounds of delivering what is on the medium, each side's frames as one
    /// batch (as the live runtime does).
    pub fn exchange(&mut self, rounds: usize) {
        for _ in 0..rounds {
            self.collect();
            if self.to_ap.is_empty() && self.to_sta.is_empty() {
                break;
            }
            let (to_ap, to_sta) = (std::mem::take(&mut self.to_ap), std::mem::take(&mut self.to_sta));
            self.ap.handle_air_batch(self.now, to_ap.iter().map(|f| f.as_slice()), &mut self.ap_out);
            self.sta.handle_air_batch(self.now, to_sta.iter().map(|f| f.as_slice()), &mut self.sta_out);
        }
        self.collect();
    }

    /// Runs the timers due at `now` (of the cores that are serving).
    fn timeouts(&mut self) {
        if self.enabled[0] && self.ap.poll_timeout() <= self.now {
            self.ap.handle_timeout(self.now, &mut self.ap_out);
        }
        if self.enabled[1] && self.sta.poll_timeout() <= self.now {
            self.sta.handle_timeout(self.now, &mut self.sta_out);
        }
        self.collect();
    }

    /// Time moves to the next deadline of either core, at most `max` ns on.
    pub fn advance_to_deadline(&mut self, max: u64) {
        let mut t = u64::MAX;
        if self.enabled[0] {
            t = t.min(self.ap.poll_timeout());
        }
        if self.enabled[1] {
            t = t.min(self.sta.poll_timeout());
        }
        self.now = t.clamp(self.now, self.now.saturating_add(max)).min(1 << 62);
        self.timeouts();
    }

    /// One frame from the medium to the core under test, checked against the plaintext
    /// rule: an unprotected data frame that is not EAPOL gives its host nothing on a
    /// protected link.
    fn deliver(&mut self, f: &[u8]) {
        let before = match self.side {
            Side::Ap => self.ap.counters.tx_host,
            Side::Sta => self.sta.counters.tx_host,
        };
        match self.side {
            Side::Ap => self.ap.handle_air(self.now, f, &mut self.ap_out),
            Side::Sta => self.sta.handle_air(self.now, f, &mut self.sta_out),
        }
        let after = match self.side {
            Side::Ap => self.ap.counters.tx_host,
            Side::Sta => self.sta.counters.tx_host,
        };
        if self.protected_link && after != before && unprotected_non_eapol_data(f) {
            panic!("{:?} (configuration {}) gave its host plaintext of an unprotected data frame: {f:02x?}", self.side, self.cfg);
        }
        self.collect();
    }

    /// Several frames from the medium to the core under test in one batch.
    fn deliver_batch(&mut self, fs: &[Vec<u8>]) {
        match self.side {
            Side::Ap => self.ap.handle_air_batch(self.now, fs.iter().map(|f| f.as_slice()), &mut self.ap_out),
            Side::Sta => self.sta.handle_air_batch(self.now, fs.iter().map(|f| f.as_slice()), &mut self.sta_out),
        }
        self.collect();
    }

    /// The peer core (not under test) takes an Ethernet frame from its host and protects
    /// it with its keys; what it sends is returned instead of put on the medium.
    fn peer_sends(&mut self, eth: &[u8]) -> Vec<Vec<u8>> {
        self.collect();
        match self.side {
            Side::Ap => {
                self.sta.handle_host(self.now, eth, &mut self.sta_out);
                std::mem::take(&mut self.sta_out.air)
            }
            Side::Sta => {
                self.ap.handle_host(self.now, eth, &mut self.ap_out);
                std::mem::take(&mut self.ap_out.air)
            }
        }
    }

    /// A control interface request to core `which` (0 AP, 1 station), as the runtime
    /// makes it; the socket is opened on first use.
    pub fn ctrl_request(&mut self, which: usize, req: &str) -> String {
        let which = which & 1;
        if self.ctrl[which].is_none() {
            let spec = CtrlSpec::parse(self.ctrl_dir.to_str().unwrap(), None).expect("harness ctrl_interface");
            self.ctrl[which] = Some(Ctrl::open(&spec, if which == 0 { "ap" } else { "sta" }).expect("harness control socket"));
        }
        let from = self.ctrl_dir.join("client");
        let ctx = Ctx {
            now: self.now,
            ifname: "wsec-fuzz",
            enabled: self.enabled[which],
            started: self.started,
            bad_fcs: 0,
            config: None,
            radio: &[],
        };
        let ctrl = self.ctrl[which].as_mut().unwrap();
        let (reply, action) = if which == 0 {
            let out = &mut self.ap_out;
            let r = ctrl.request(&mut self.ap, req, &from, &ctx, out);
            use wsec_live::ctrl::CtrlNode;
            self.ap.events(ctrl, &out.events);
            r
        } else {
            let out = &mut self.sta_out;
            let r = ctrl.request(&mut self.sta, req, &from, &ctx, out);
            use wsec_live::ctrl::CtrlNode;
            self.sta.events(ctrl, &out.events);
            r
        };
        // `SET max_num_sta` changes the bound from the next association on: the table
        // never holds more than the largest bound it had.
        self.max_stations = self.max_stations.max(self.ap.tunables().max_stations);
        match action {
            Some(Action::Pause) => self.enabled[which] = false,
            Some(Action::Resume) => self.enabled[which] = true,
            Some(Action::Reload) | Some(Action::Terminate) | None => {}
        }
        assert!(reply.len() <= 1 << 20, "a control reply of {} octets", reply.len());
        self.collect();
        reply
    }

    /// Runs the operations of `input` until it ends, checking after each.
    pub fn run(&mut self, input: &mut Input<'_>) {
        while !input.is_empty() && self.ops < OPS_MAX {
            let start = input.0;
            let op = input.u8();
            if op % 16 == 15 {
                // Repeat the previous operation (1..=64 times): floods, to reach the bounds.
                let n = (input.u8() % 64) as usize + 1;
                if let Some(prev) = self.last_op.clone() {
                    for _ in 0..n {
                        if self.ops >= OPS_MAX {
                            break;
                        }
                        self.op(&mut Input(&prev));
                    }
                }
                continue;
            }
            let mut one = Input(start);
            self.op(&mut one);
            let used = start.len() - one.0.len();
            self.last_op = Some(start[..used].to_vec());
            input.0 = one.0;
        }
    }

    /// One operation: its opcode octet, then its operands.
    ///
    /// - 0: a raw MPDU (length-prefixed) to the core under test;
    /// - 1: an MPDU with a header the harness writes: Frame Control (2), an address
    ///   selector (2: addresses 1, 2 and 3 of [`addr`]), a sequence number (1), then the
    ///   body (length-prefixed);
    /// - 2: a batch of up to 8 raw MPDUs;
    /// - 3: an Ethernet frame from the host of the core under test: addresses (1 octet,
    ///   destination and source of [`addr`]), EtherType (2), payload;
    /// - 4: the peer core sends an Ethernet frame (as 3) protected with its keys, which
    ///   may then be changed (an octet at an offset XORed) and reaches the core under test;
    /// - 5: the medium carries what is waiting, both ways, for 1..=8 rounds;
    /// - 6: time moves on by up to 65535 ms (0: to the next deadline) and the timers run;
    /// - 7: a frame seen on the medium before comes back (replayed, maybe changed);
    /// - 8: a control interface request (text, length-prefixed) to the AP or the station;
    /// - 9: the core under test shuts down (and is still fed afterwards);
    /// - 10: the peer core sends an Ethernet frame (as 4), left on the medium for the next
    ///   delivery round (5), which hands it over in a batch;
    /// - 15: repeat the previous operation (see [`Pair::run`]).
    pub fn op(&mut self, i: &mut Input<'_>) {
        self.ops += 1;
        match i.u8() % 16 {
            0 => {
                let f = i.bytes();
                self.deliver(&f);
            }
            1 => {
                let fc = [i.u8(), i.u8()];
                let sel = i.u16();
                let seq = i.u8() as u16;
                let body = i.bytes();
                let mut f = Vec::with_capacity(24 + body.len());
                f.extend_from_slice(&fc);
                f.extend_from_slice(&[0, 0]);
                f.extend_from_slice(&addr(sel as u8).0);
                f.extend_from_slice(&addr((sel >> 4) as u8).0);
                f.extend_from_slice(&addr((sel >> 8) as u8).0);
                f.extend_from_slice(&(seq << 4).to_le_bytes());
                f.extend_from_slice(&body);
                self.deliver(&f);
            }
            2 => {
                let n = (i.u8() % 8) as usize + 1;
                let fs: Vec<Vec<u8>> = (0..n).map(|_| i.bytes()).collect();
                self.deliver_batch(&fs);
            }
            3 => {
                let eth = ethernet(i);
                match self.side {
                    Side::Ap => self.ap.handle_host(self.now, &eth, &mut self.ap_out),
                    Side::Sta => self.sta.handle_host(self.now, &eth, &mut self.sta_out),
                }
                self.collect();
            }
            4 => {
                let eth = ethernet(i);
                let (at, x) = (i.u16() as usize, i.u8());
                for mut f in self.peer_sends(&eth) {
                    if x != 0 && !f.is_empty() {
                        let n = f.len();
                        f[at % n] ^= x;
                    }
                    remember(&mut self.seen, &f);
                    self.deliver(&f);
                }
            }
            10 => {
                let eth = ethernet(i);
                for f in self.peer_sends(&eth) {
                    remember(&mut self.seen, &f);
                    match self.side {
                        Side::Ap => push_bounded(&mut self.to_ap, f),
                        Side::Sta => push_bounded(&mut self.to_sta, f),
                    }
                }
            }
            5 => {
                let n = (i.u8() % 8) as usize + 1;
                self.timeouts();
                self.exchange(n);
            }
            6 => {
                let ms = i.u16() as u64;
                if ms == 0 {
                    self.advance_to_deadline(u64::MAX);
                } else {
                    self.now = self.now.saturating_add(ms * 1_000_000).min(1 << 62);
                    self.timeouts();
                }
            }
            7 => {
                let k = i.u8() as usize;
                let (at, x) = (i.u16() as usize, i.u8());
                if !self.seen.is_empty() {
                    let mut f = self.seen[k % self.seen.len()].clone();
                    if x != 0 && !f.is_empty() {
                        let n = f.len();
                        f[at % n] ^= x;
                    }
                    self.deliver(&f);
                }
            }
            8 => {
                let which = i.u8() as usize;
                let req = i.bytes();
                let req = String::from_utf8_lossy(&req).into_owned();
                self.ctrl_request(which, &req);
            }
            9 => {
                match self.side {
                    Side::Ap => self.ap.shutdown(&mut self.ap_out),
                    Side::Sta => Station::shutdown(&mut self.sta, self.now, &mut self.sta_out),
                }
                self.collect();
            }
            _ => {}
        }
        self.check();
    }

    /// The invariants that hold after every operation.
    pub fn check(&self) {
        let n = self.ap.peer_count();
        assert!(n <= self.max_stations, "the AP holds {n} stations, max_num_sta={}", self.max_stations);
        for (who, dp) in [("AP", self.ap.datapath()), ("STA", self.sta.datapath())] {
            let b = dp.backlog();
            assert!(
                b <= QUEUE_MAX,
                "{who} (configuration {}) data path holds {b} frames, more than the card queue's {QUEUE_MAX}",
                self.cfg
            );
            let e = dp.engine();
            let r = e.reassembly_bytes();
            assert!(
                r <= (e.peer_count() + 1) * REASSEMBLY_PER_SA,
                "{who} holds {r} octets for reassembly with {} security associations",
                e.peer_count() + 1
            );
        }
        assert!(
            self.ap.datapath().engine().peer_count() <= self.max_stations,
            "the AP's engine holds keys of more stations than max_num_sta"
        );
        assert!(self.sta.datapath().engine().peer_count() <= 1, "the station holds pairwise keys of more than one AP");
    }
}

/// An Ethernet frame from operands: an address octet (destination, source), EtherType,
/// payload (length-prefixed).
fn ethernet(i: &mut Input<'_>) -> Vec<u8> {
    let a = i.u8();
    let ty = i.u16();
    let payload = i.bytes();
    let mut eth = Vec::with_capacity(14 + payload.len());
    eth.extend_from_slice(&addr(a).0);
    eth.extend_from_slice(&addr(a >> 4).0);
    eth.extend_from_slice(&ty.to_be_bytes());
    eth.extend_from_slice(&payload);
    eth
}

fn push_bounded(q: &mut Vec<Vec<u8>>, f: Vec<u8>) {
    if q.len() >= MEDIUM_MAX {
        q.remove(0);
    }
    q.push(f);
}

fn remember(seen: &mut Vec<Vec<u8>>, f: &[u8]) {
    if seen.len() >= 32 {
        seen.remove(0);
    }
    seen.push(f.to_vec());
}

/// A data frame without the Protected bit whose body is not an EAPOL frame (LLC/SNAP with
/// EtherType 0x888e) and not empty: what a protected link never hands to its host.
pub fn unprotected_non_eapol_data(f: &[u8]) -> bool {
    let Ok(h) = wsec::wire::mac::Mpdu::new_checked(f) else { return false };
    let fc = h.frame_control();
    if !fc.is_data() || fc.protected() {
        return false;
    }
    let body = &f[h.header_len().min(f.len())..];
    !(body.len() >= 8 && body[6..8] == [0x88, 0x8e])
}
