//! The model's configuration, as written in a scenario file (TOML) or built in code. Every
//! field has a default taken from the standard or named as an assumption; unknown keys are
//! errors.
use super::costs::Location;
use super::edca::Access;
use super::error::{Error, Result};
use super::phy::{Ns, Phy, PhyKind, MS, US};
use super::tcp::TcpParams;
use serde::{Deserialize, Serialize};
use wsec_base::CipherSuite;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PhySpec {
    /// `b`, `a`, `g`, `n` or `fhss`.
    pub standard: String,
    pub rate_mbps: f64,
    /// 802.11n in the 5 GHz band (default 2.4 GHz).
    pub band_5ghz: bool,
    pub short_preamble: bool,
    /// 802.11g: long (20 µs) slot, as in a BSS with 802.11b stations.
    pub long_slot: bool,
    /// Overrides of the standard's values (Bianchi's validation uses them).
    pub slot_us: Option<f64>,
    pub sifs_us: Option<f64>,
    pub cw_min: Option<u32>,
    pub cw_max: Option<u32>,
    pub prop_delay_us: Option<f64>,
    pub control_rate_mbps: Option<f64>,
    /// `fixed` (every data frame at `rate_mbps`) or `arf`: Auto Rate Fallback, the rate
    /// control of the WaveLAN-II cards (Kamerman & Monteban, Bell Labs Technical Journal
    /// 1997) that the 2003-2010 drivers' algorithms descend from (AARF, Onoe, SampleRate,
    /// Minstrel): two failures in a row step the data rate down one rung, ten successes
    /// step it up, and a failure of the first frame after a step up steps back at once. It
    /// cannot tell a collision from a channel error, so contention alone lowers its rate.
    /// `rate_mbps` is the highest rung. `minstrel`: the sampling rate control of Linux's
    /// mac80211 and MadWifi (F. Fietkau, D. Smithies, 2005-2008) as ns-3's
    /// MinstrelWifiManager models it (sim.rs [`Minstrel`](crate::sim)): per-rate success
    /// statistics averaged every 100 ms (EWMA weight 75% on the past), 10% of frames sent at
    /// a random other rate, and a retry chain (best throughput, second best, best
    /// probability, lowest rate; two attempts each).
    pub rate_control: RateControl,
    /// Signal-to-noise ratio of every link in dB (all nodes at one point, as in the ns-3
    /// comparison). Absent: no channel errors besides `mac.frame_error_rate`. Present: each
    /// data PPDU is lost with the probability of errmodel.rs (ns-3's NIST curves) for its
    /// rate and length, so rate control has something to adapt to (OFDM and HT PHYs).
    pub snr_db: Option<f64>,
}

/// See [`PhySpec::rate_control`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum RateControl {
    #[default]
    Fixed,
    Arf,
    Minstrel,
}

impl Default for PhySpec {
    fn default() -> Self {
        PhySpec {
            standard: "g".into(),
            rate_mbps: 54.0,
            band_5ghz: false,
            short_preamble: false,
            long_slot: false,
            slot_us: None,
            sifs_us: None,
            cw_min: None,
            cw_max: None,
            prop_delay_us: None,
            control_rate_mbps: None,
            rate_control: RateControl::Fixed,
            snr_db: None,
        }
    }
}

fn us(x: f64) -> Ns {
    (x * US as f64).round() as Ns
}

impl PhySpec {
    pub fn build(&self) -> Result<Phy> {
        let kind: PhyKind = self.standard.parse()?;
        let mut p = Phy::new(kind, self.rate_mbps)?;
        if self.band_5ghz {
            p.set_band_5g();
        }
        p.short_preamble = self.short_preamble;
        if self.long_slot {
            if kind != PhyKind::G {
                return Err(Error::Spec("long_slot applies to 802.11g only".into()));
            }
            p.slot = 20 * US;
            p.cw_min = 31;
        }
        if let Some(x) = self.slot_us {
            p.slot = us(x);
        }
        if let Some(x) = self.sifs_us {
            p.sifs = us(x);
        }
        if let Some(x) = self.cw_min {
            p.cw_min = x;
        }
        if let Some(x) = self.cw_max {
            p.cw_max = x;
        }
        if let Some(x) = self.prop_delay_us {
            p.prop_delay = us(x);
        }
        if let Some(x) = self.control_rate_mbps {
            p.control_rate_kbps = Some((x * 1000.0).round() as u32);
        }
        if p.cw_max < p.cw_min {
            return Err(Error::Spec(format!("cw_max {} is below cw_min {}", p.cw_max, p.cw_min)));
        }
        Ok(p)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MacSpec {
    /// MAC header + FCS of a data frame. Default: 24 + 4 (3-address Data, 9.3.2.1) for
    /// the legacy PHYs, 26 + 4 (QoS Data, which HT requires for aggregation) for 802.11n.
    pub header_bytes: Option<usize>,
    /// LLC/SNAP header of the MSDU (8; 0 for Bianchi's MAC payload).
    pub llc_bytes: usize,
    /// RTS/CTS before MPDUs longer than this many octets; absent = never (2347 = off).
    pub rts_threshold: Option<usize>,
    /// dot11ShortRetryLimit / dot11LongRetryLimit (7 / 4); `retries = false` removes the
    /// limit (Bianchi's assumption).
    pub retries: bool,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    /// MAC transmit queue of every node, in frames (drops counted).
    pub queue_limit: usize,
    /// EIFS after a frame received in error (10.3.2.3.7); `false`: DIFS after every failed
    /// exchange for every node, no ACKTimeout (Bianchi's assumption).
    pub eifs: bool,
    /// What the nodes that did not transmit defer after a collision (with `eifs`):
    /// `eifs` = a preamble was decoded and the frame failed its FCS, so PHY-RXEND.indication
    /// reports an error (10.3.2.3.7): what a real receiver mostly sees, because colliding
    /// stations arrive at different powers and one preamble is detected; `difs` = no preamble
    /// was decoded, only energy (CCA busy, then DIFS/AIFS): ns-3 3.37 with equal received
    /// powers, where the ThresholdPreambleDetectionModel (4 dB) rejects both preambles.
    pub collision_ifs: CollisionIfs,
    /// The sender of a failed frame waits ACKTimeout (10.3.2.11, [`Phy::ack_timeout`]) after
    /// its own transmission before its DIFS/AIFS starts (standard; ns-3). Off: it defers
    /// like the other nodes.
    pub ack_timeout: bool,
    /// The ACK time inside EIFS, µs (default: [`Phy::eifs_ack_time`], 304 µs at 2.4 GHz).
    pub eifs_ack_us: Option<f64>,
    /// A frame that reaches an empty queue with no backoff pending while the medium is idle:
    /// `immediate` = it goes at once if the medium has already been idle for DIFS/AIFS
    /// since the last busy period (10.3.4.2: "idle when a frame is queued ... and remains
    /// idle for a period of a DIFS ... from the end of the immediately preceding
    /// medium-busy event"); `difs` = it waits a DIFS counted from its arrival, which is
    /// what ns-3 3.37's DCF does (`ChannelAccessManager::NeedBackoffUponAccess`: backoff
    /// start = now + SIFS + AIFSN x slot for a non-QoS Txop; its EDCA Txops go at once).
    /// `difs` also takes ns-3's view of a frame queued at the instant the node's own
    /// reception ends (an AP forwarding): the medium is idle then (`IsBusy()` is false at
    /// RX end and no NAV is set by a frame addressed to the node), so no backoff is drawn
    /// and the frame goes DIFS after the ACK; `immediate` draws a backoff, the medium being
    /// busy with that ACK, as for a real AP whose forwarding takes longer than SIFS.
    pub access_on_arrival: AccessOnArrival,
    /// The access function of every node: `dcf`, or the EDCA category `be`, `bk`, `vi`,
    /// `vo` (Table 9-155). Default: `be` for 802.11n (QoS is mandatory for HT and WMM APs
    /// put untagged traffic in AC_BE; ns-3 does the same), `dcf` for the others.
    pub access: Option<Access>,
    /// EDCA parameters by hostapd's names (`wmm_ac_vi_txop_limit = 94`,
    /// `tx_queue_data1_burst = 3.0`, ...; edca.rs); absent: Table 9-155.
    pub edca: std::collections::BTreeMap<String, f64>,
    /// A TXOP holder whose queue empties before its TXOP limit sends a CF-End (20 octets at
    /// the beacon rate, SIFS after the last ACK) to truncate the TXOP (10.23.2.9), because
    /// its frames' Duration/ID covered the rest of the limit ("multiple protection",
    /// 9.2.5.2). Off (default): each frame's Duration/ID covers its own exchange, as Linux
    /// mac80211 sets it, and no CF-End is sent. On: ns-3 3.37
    /// (`QosFrameExchangeManager::SendCfEndIfNeeded`, at DSSS 1 Mb/s in the 2.4 GHz band).
    pub cf_end: bool,
    /// Which frames a TXOP holder sends after its first (10.23.2.9 leaves it to the
    /// implementation): `start` (default) = the frames already queued when the TXOP was
    /// won, fixed then: what a driver has handed the hardware queue before the burst
    /// (mac80211 queues to the driver as frames come; whether a frame queued during a burst
    /// still joins it depends on the driver's DMA chain, not modelled) and the cheaper form;
    /// `each_ack` = the queue is looked at again SIFS after each ACK, so a frame that arrived
    /// during the burst joins it: ns-3 3.37 (`QosFrameExchangeManager::TransmissionSucceeded`
    /// schedules `StartTransmission` a SIFS later while the remaining TXOP exceeds a SIFS;
    /// `StartFrameExchange` peeks the queue then; if it is empty or the frame does not fit,
    /// `SendCfEndIfNeeded`).
    pub txop_fill: TxopFill,
    pub beacons: bool,
    /// Beacon interval in TU (1 TU = 1024 µs).
    pub beacon_interval_tu: f64,
    /// Beacon frame length in octets (header, fixed fields, SSID, rates, DS, TIM, ERP,
    /// RSN element, FCS).
    pub beacon_bytes: usize,
    /// 802.11n A-MPDU: at most this many MPDUs per PPDU (1 = no aggregation).
    pub ampdu_max: usize,
    /// Probability that a data frame (or A-MPDU) sent alone is received in error.
    pub frame_error_rate: f64,
    /// Bianchi's embedded-chain rule: a counter that was frozen by a busy period also
    /// loses the slot in which the busy period began. Off: the standard's rule, where only
    /// idle slots count (10.3.4.3). For validation only.
    pub busy_slot_decrement: bool,
}

impl Default for MacSpec {
    fn default() -> Self {
        MacSpec {
            header_bytes: None,
            llc_bytes: 8,
            rts_threshold: None,
            retries: true,
            short_retry_limit: 7,
            long_retry_limit: 4,
            queue_limit: 100,
            eifs: true,
            collision_ifs: CollisionIfs::Eifs,
            ack_timeout: true,
            eifs_ack_us: None,
            access: None,
            edca: Default::default(),
            cf_end: false,
            txop_fill: TxopFill::Start,
            access_on_arrival: AccessOnArrival::Immediate,
            beacons: true,
            beacon_interval_tu: 100.0,
            beacon_bytes: 160,
            ampdu_max: 1,
            frame_error_rate: 0.0,
            busy_slot_decrement: false,
        }
    }
}

/// See [`MacSpec::access_on_arrival`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccessOnArrival {
    Immediate,
    Difs,
}

/// See [`MacSpec::txop_fill`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxopFill {
    Start,
    EachAck,
}

/// See [`MacSpec::collision_ifs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CollisionIfs {
    Eifs,
    Difs,
}

impl MacSpec {
    /// The access function, with the PHY's default.
    pub fn access_for(&self, kind: PhyKind) -> Access {
        self.access.unwrap_or(if kind == PhyKind::N { Access::Be } else { Access::Dcf })
    }

    pub fn beacon_interval(&self) -> Ns {
        (self.beacon_interval_tu * 1024.0 * US as f64).round() as Ns
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TopologyKind {
    /// Stations, an AP, and optionally a wired host behind the AP.
    Infrastructure,
    /// Stations only (IBSS).
    Adhoc,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TopologySpec {
    pub kind: TopologyKind,
    pub stations: usize,
    pub wired_host: bool,
    /// The AP's Ethernet link to the wired host.
    pub ethernet_mbps: f64,
    pub ethernet_delay_us: f64,
    pub ethernet_queue_limit: usize,
}

impl Default for TopologySpec {
    fn default() -> Self {
        TopologySpec {
            kind: TopologyKind::Infrastructure,
            stations: 2,
            wired_host: true,
            ethernet_mbps: 100.0,
            ethernet_delay_us: 50.0,
            ethernet_queue_limit: 1000,
        }
    }
}

/// Link security and where its crypto runs.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SecuritySpec {
    /// `open`, `wep-40`, `wep-104`, `tkip`, `ccmp`, `ccmp-256`, `gcmp`, `gcmp-256`.
    pub mode: String,
    /// Where stations run the crypto: `card` (standard) or `host` (Enhanced-WPA2).
    pub sta_crypto: Location,
    /// Where the AP runs it: `ap_cpu`, `ap_hw_engine`, or `card`.
    pub ap_crypto: Location,
    /// Frames waiting at a crypto stage before it drops (per stage).
    pub stage_queue_limit: usize,
    /// Parallel servers of the host CPU stage (cores given to the crypto).
    pub host_cores: usize,
    /// The card processor's speed in million instructions per second for this scenario
    /// (clock x IPC; default: the cost file's). The seed scenarios set the speed calibrated
    /// against their paper (docs/model.md 2a).
    pub card_mips: Option<f64>,
}

impl Default for SecuritySpec {
    fn default() -> Self {
        SecuritySpec {
            mode: "open".into(),
            sta_crypto: Location::Card,
            ap_crypto: Location::ApCpu,
            stage_queue_limit: 100,
            host_cores: 1,
            card_mips: None,
        }
    }
}

impl SecuritySpec {
    pub fn suite(&self) -> Result<Option<CipherSuite>> {
        if self.mode == "open" || self.mode == "none" {
            return Ok(None);
        }
        let s: CipherSuite = self.mode.parse().map_err(|_| Error::Spec(format!("unknown security mode '{}'", self.mode)))?;
        if s.is_bip() {
            return Err(Error::Spec(format!("{} protects management frames only", s.name())));
        }
        Ok(Some(s))
    }
}

/// A node by name: `ap`, `wired`, `sta1`..`staN`.
pub type NodeName = String;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrafficKind {
    /// Always a frame waiting (Bianchi's saturation).
    Saturated,
    /// UDP constant bit rate.
    Cbr,
    /// UDP, Poisson arrivals.
    Poisson,
    /// HD video over UDP: VBR frames with a GOP structure, split into MPEG-TS packets.
    Video,
    /// TCP bulk transfer (unlimited data).
    Tcp,
    /// TCP transfer of `file_bytes`, optionally encrypted first by an application cipher.
    File,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FlowSpec {
    pub name: Option<String>,
    /// A node name, or `each_sta` for one flow from every station.
    pub src: NodeName,
    pub dst: NodeName,
    /// The flow's EDCA access category (`vo`, `vi`, `be`, `bk`: the UP its packets carry,
    /// 10.2.4.2). Absent: `mac.access`, or AC_BE once any flow names a category (a WMM
    /// network: untagged traffic is AC_BE).
    pub ac: Option<Access>,
    pub traffic: TrafficKind,
    /// UDP payload in bytes (CBR, Poisson, saturated); video uses `video_packet`.
    pub payload: usize,
    /// Offered load in Mb/s (CBR, Poisson, video mean rate).
    pub rate_mbps: f64,
    pub start_s: f64,
    /// A CBR/Poisson/video source's first packet this long after `start_s`; absent (the
    /// default): a random phase within one interval, so periodic flows do not align. Set
    /// it to place packets exactly (tests).
    pub phase_s: Option<f64>,
    pub stop_s: Option<f64>,
    /// Video: frames per second, GOP pattern, I:P:B mean size ratio, coefficient of
    /// variation of frame sizes, packet payload (7 x 188-byte TS packets = 1316).
    pub fps: f64,
    pub gop: String,
    pub ipb_ratio: [f64; 3],
    pub frame_cv: f64,
    pub video_packet: usize,
    /// File transfer size and the application cipher applied before sending.
    pub file_bytes: u64,
    pub app_cipher: Option<String>,
    pub tcp: TcpParams,
}

impl Default for FlowSpec {
    fn default() -> Self {
        FlowSpec {
            name: None,
            src: "sta1".into(),
            dst: "wired".into(),
            ac: None,
            traffic: TrafficKind::Cbr,
            payload: 1460,
            rate_mbps: 1.0,
            start_s: 0.0,
            phase_s: None,
            stop_s: None,
            fps: 30.0,
            gop: "IBBPBBPBBPBB".into(),
            ipb_ratio: [5.0, 2.0, 1.0],
            frame_cv: 0.2,
            video_packet: 1316,
            file_bytes: 1_000_000,
            app_cipher: None,
            tcp: TcpParams::default(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunSpec {
    pub duration_s: f64,
    /// Statistics start after the warm-up.
    pub warmup_s: f64,
    /// After `duration_s` sources stop and the network drains for this long.
    pub drain_s: f64,
    pub replications: usize,
    pub seed: u64,
    /// Stop as soon as every file transfer has finished.
    pub stop_when_files_done: bool,
}

impl Default for RunSpec {
    fn default() -> Self {
        RunSpec { duration_s: 10.0, warmup_s: 1.0, drain_s: 1.0, replications: 5, seed: 1, stop_when_files_done: true }
    }
}

/// IP and transport header sizes added to the application payload.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HeaderSpec {
    pub ip: usize,
    pub udp: usize,
    pub tcp: usize,
}

impl Default for HeaderSpec {
    fn default() -> Self {
        HeaderSpec { ip: 20, udp: 8, tcp: 20 }
    }
}

/// Everything one simulation run needs.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct ModelSpec {
    pub phy: PhySpec,
    pub mac: MacSpec,
    pub topology: TopologySpec,
    pub security: SecuritySpec,
    pub headers: HeaderSpec,
    pub flows: Vec<FlowSpec>,
    pub run: RunSpec,
}

/// Limits on what one simulation may ask for: each bounds the memory or time of a run,
/// and a spec past one is an error naming it ([`ModelSpec::check_limits`]).
pub mod limits {
    /// Stations: an AP associates at most 2007 (AID 1-2007, IEEE 802.11-2020 9.4.1.8).
    pub const STATIONS: usize = 2007;
    /// Flows after `each_sta` is expanded.
    pub const FLOWS: usize = 8192;
    /// Simulated seconds of a run, its warm-up and its drain (the delay samples of every
    /// packet are kept, so memory grows with the simulated time).
    pub const DURATION_S: f64 = 3600.0;
    /// Replications of one configuration.
    pub const REPLICATIONS: usize = 1000;
    /// Runs of one `wsec model run`/`sweep` (cases x sweep points x replications).
    pub const JOBS: usize = 100_000;
    /// Values of one `--param` sweep.
    pub const SWEEP_POINTS: usize = 10_000;
    /// MPDUs per A-MPDU (the 802.11n Block Ack window is 64).
    pub const AMPDU: usize = 64;
    /// Frames a queue (MAC, crypto stage, Ethernet) may hold.
    pub const QUEUE: usize = 1_000_000;
    /// Host CPU cores given to the crypto.
    pub const HOST_CORES: usize = 1024;
}

impl ModelSpec {
    /// Refuses a spec that asks for more than [`limits`] allows, naming the key and its limit.
    /// Checked before anything is allocated for the stations or flows.
    pub fn check_limits(&self) -> Result<()> {
        let over = |key: &str, v: String, max: String| Err(Error::Spec(format!("{key} = {v} exceeds the limit of {max}")));
        if self.topology.stations > limits::STATIONS {
            return over("topology.stations", self.topology.stations.to_string(), limits::STATIONS.to_string());
        }
        let each_sta = self.flows.iter().filter(|f| f.src == "each_sta" || f.dst == "each_sta").count();
        let flows = self.flows.len() - each_sta + each_sta * self.topology.stations;
        if flows > limits::FLOWS {
            return over("flows (after each_sta)", flows.to_string(), limits::FLOWS.to_string());
        }
        for (key, v) in [("run.duration_s", self.run.duration_s), ("run.warmup_s", self.run.warmup_s), ("run.drain_s", self.run.drain_s)] {
            if !v.is_finite() || v > limits::DURATION_S {
                return over(key, v.to_string(), format!("{} s", limits::DURATION_S));
            }
        }
        if self.run.replications > limits::REPLICATIONS {
            return over("run.replications", self.run.replications.to_string(), limits::REPLICATIONS.to_string());
        }
        if self.mac.ampdu_max > limits::AMPDU {
            return over("mac.ampdu_max", self.mac.ampdu_max.to_string(), limits::AMPDU.to_string());
        }
        for (key, v) in [
            ("mac.queue_limit", self.mac.queue_limit),
            ("security.stage_queue_limit", self.security.stage_queue_limit),
            ("topology.ethernet_queue_limit", self.topology.ethernet_queue_limit),
        ] {
            if v > limits::QUEUE {
                return over(key, v.to_string(), limits::QUEUE.to_string());
            }
        }
        if self.security.host_cores > limits::HOST_CORES {
            return over("security.host_cores", self.security.host_cores.to_string(), limits::HOST_CORES.to_string());
        }
        Ok(())
    }
}

pub(crate) fn secs(x: f64) -> Ns {
    (x * 1e9).round() as Ns
}

pub(crate) const _MS: Ns = MS;
