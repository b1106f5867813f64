//! [`Node`]: the one sans-IO surface of the access point and station cores, which a
//! run loop (`wsec-live`'s runtime, the tests' simulators) drives without knowing which
//! core it holds, in the manner of quinn-proto's `handle_event` / `poll_transmit` /
//! `handle_timeout` / `poll_timeout`.
//!
//! Inputs are the bytes and the time: MPDUs from the wireless medium, Ethernet frames from
//! the host's side (the distribution system of IEEE 802.11-2020 4.3.5 for an AP, the
//! station's own MAC service interface 5.1 for a STA) and timer expiries. Outputs go to
//! an [`Output`]: MPDUs for the medium, Ethernet frames for the host, phase events; the
//! next deadline comes from [`Node::poll_timeout`].
use super::ap::AccessPoint;
use super::datapath::Datapath;
use super::engine::Parallel;
use super::sta::Station;
use super::{Counters, Output};

/// A sans-IO node core: an access point or a station.
pub trait Node {
    /// One MPDU (no FCS) received from the medium at `now` (ns).
    fn handle_air(&mut self, now: u64, mpdu: &[u8], out: &mut Output);
    /// MPDUs from the medium, as [`Node::handle_air`] one by one, except that the frames
    /// they make the node protect go through the host engine as one batch.
    fn handle_air_batch<'a>(&mut self, now: u64, mpdus: impl IntoIterator<Item = &'a [u8]>, out: &mut Output);
    /// One Ethernet frame from the host's side.
    fn handle_host(&mut self, now: u64, eth: &[u8], out: &mut Output);
    /// Ethernet frames from the host's side, protected as one batch.
    fn handle_host_batch<'a>(&mut self, now: u64, eths: impl IntoIterator<Item = &'a [u8]>, out: &mut Output);
    /// The timers due at `now`: beacons, retransmissions, rekeying, inactivity, the card's
    /// queue.
    fn handle_timeout(&mut self, now: u64, out: &mut Output);
    /// When [`Node::handle_timeout`] is next due (ns; `u64::MAX`: nothing pending).
    fn poll_timeout(&self) -> u64;
    /// Leaves the network: an AP deauthenticates every station, a station its AP
    /// (IEEE 802.11-2020 11.3.4.4, Deauthentication).
    fn shutdown(&mut self, now: u64, out: &mut Output);
    /// A station still looking for its BSS (the run loop moves a radio over the scan
    /// channels meanwhile); never an AP.
    fn scanning(&self) -> bool;
    /// The node's frame counters.
    fn counters(&self) -> &Counters;
    /// The node's frame counters, to carry them over to a core that replaces this one.
    fn counters_mut(&mut self) -> &mut Counters;
    /// The data path: the host engine's statistics, the card model.
    fn datapath(&self) -> &Datapath;
    /// Spreads the host engine's batch crypto over these threads (None: the calling one).
    fn set_crypto_threads(&mut self, p: Option<Box<dyn Parallel>>);
}

impl Node for AccessPoint {
    fn handle_air(&mut self, now: u64, mpdu: &[u8], out: &mut Output) {
        AccessPoint::handle_air(self, now, mpdu, out)
    }
    fn handle_air_batch<'a>(&mut self, now: u64, mpdus: impl IntoIterator<Item = &'a [u8]>, out: &mut Output) {
        AccessPoint::handle_air_batch(self, now, mpdus, out)
    }
    fn handle_host(&mut self, now: u64, eth: &[u8], out: &mut Output) {
        AccessPoint::handle_host(self, now, eth, out)
    }
    fn handle_host_batch<'a>(&mut self, now: u64, eths: impl IntoIterator<Item = &'a [u8]>, out: &mut Output) {
        AccessPoint::handle_host_batch(self, now, eths, out)
    }
    fn handle_timeout(&mut self, now: u64, out: &mut Output) {
        AccessPoint::handle_timeout(self, now, out)
    }
    fn poll_timeout(&self) -> u64 {
        AccessPoint::poll_timeout(self)
    }
    fn shutdown(&mut self, _now: u64, out: &mut Output) {
        AccessPoint::shutdown(self, out)
    }
    fn scanning(&self) -> bool {
        false
    }
    fn counters(&self) -> &Counters {
        &self.counters
    }
    fn counters_mut(&mut self) -> &mut Counters {
        &mut self.counters
    }
    fn datapath(&self) -> &Datapath {
        AccessPoint::datapath(self)
    }
    fn set_crypto_threads(&mut self, p: Option<Box<dyn Parallel>>) {
        AccessPoint::set_crypto_threads(self, p)
    }
}

impl Node for Station {
    fn handle_air(&mut self, now: u64, mpdu: &[u8], out: &mut Output) {
        Station::handle_air(self, now, mpdu, out)
    }
    fn handle_air_batch<'a>(&mut self, now: u64, mpdus: impl IntoIterator<Item = &'a [u8]>, out: &mut Output) {
        Station::handle_air_batch(self, now, mpdus, out)
    }
    fn handle_host(&mut self, now: u64, eth: &[u8], out: &mut Output) {
        Station::handle_host(self, now, eth, out)
    }
    fn handle_host_batch<'a>(&mut self, now: u64, eths: impl IntoIterator<Item = &'a [u8]>, out: &mut Output) {
        Station::handle_host_batch(self, now, eths, out)
    }
    fn handle_timeout(&mut self, now: u64, out: &mut Output) {
        Station::handle_timeout(self, now, out)
    }
    fn poll_timeout(&self) -> u64 {
        Station::poll_timeout(self)
    }
    fn shutdown(&mut self, now: u64, out: &mut Output) {
        Station::shutdown(self, now, out)
    }
    fn scanning(&self) -> bool {
        self.bssid().is_none()
    }
    fn counters(&self) -> &Counters {
        &self.counters
    }
    fn counters_mut(&mut self) -> &mut Counters {
        &mut self.counters
    }
    fn datapath(&self) -> &Datapath {
        Station::datapath(self)
    }
    fn set_crypto_threads(&mut self, p: Option<Box<dyn Parallel>>) {
        Station::set_crypto_threads(self, p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cipher::CipherSuite;
    use crate::node::ap::ApConfig;
    use crate::node::sta::StaConfig;
    use crate::node::Security;
    use crate::rsn::akm::Akm;
    use zeroize::Zeroizing;

    fn rsn() -> Security {
        Security::Rsn {
            akms: vec![Akm::Psk],
            pairwise: vec![CipherSuite::Ccmp128],
            groups: vec![CipherSuite::Ccmp128],
            pmk: Zeroizing::new(vec![7u8; 32]),
        }
    }

    /// Runs two nodes through the trait alone, moving each one's MPDUs to the other,
    /// until neither has a timer due before `until`.
    fn exchange<A: Node, B: Node>(a: &mut A, b: &mut B, mut now: u64, until: u64) -> u64 {
        let (mut oa, mut ob) = (Output::default(), Output::default());
        while now < until {
            now = a.poll_timeout().min(b.poll_timeout()).max(now).min(until);
            a.handle_timeout(now, &mut oa);
            b.handle_timeout(now, &mut ob);
            for _ in 0..8 {
                if oa.air.is_empty() && ob.air.is_empty() {
                    break;
                }
                let to_b = std::mem::take(&mut oa.air);
                let to_a = std::mem::take(&mut ob.air);
                b.handle_air_batch(now, to_b.iter().map(|f| f.as_slice()), &mut ob);
                a.handle_air_batch(now, to_a.iter().map(|f| f.as_slice()), &mut oa);
            }
            now += 1;
        }
        now
    }

    /// An AP and a station driven only through [`Node`] find each other, run the 4-way
    /// handshake and carry a frame from the station's host to the AP's; shutdown sends the
    /// station's Deauthentication.
    #[test]
    fn ap_and_station_through_the_trait() {
        let bssid = "02:00:00:00:00:01".parse().unwrap();
        let addr = "02:00:00:00:00:11".parse().unwrap();
        let mut ap = AccessPoint::new(ApConfig::new(bssid, b"node-if", rsn()), 1, crate::rng::seeded(1)).unwrap();
        let mut sta = Station::new(StaConfig::new(addr, b"node-if", rsn()), 1, crate::rng::seeded(2)).unwrap();
        assert!(!Node::scanning(&ap));
        assert!(Node::scanning(&sta));
        let now = exchange(&mut ap, &mut sta, 1, 2_000_000_000);
        assert!(!Node::scanning(&sta), "the station found the BSS");
        assert!(sta.is_established(), "4-way handshake done");

        let mut eth = Vec::new();
        eth.extend_from_slice(&[0x02, 0, 0, 0, 0, 0x99]);
        eth.extend_from_slice(&[0x02, 0, 0, 0, 0, 0x11]);
        eth.extend_from_slice(&[0x08, 0x00]);
        eth.extend_from_slice(&[0x45; 60]);
        let (mut oa, mut os) = (Output::default(), Output::default());
        let before = Node::counters(&ap).rx_data;
        Node::handle_host_batch(&mut sta, now, [eth.as_slice()], &mut os);
        for f in os.air.drain(..) {
            Node::handle_air(&mut ap, now, &f, &mut oa);
        }
        // The card model may hold the frame until its service time has passed.
        let later = Node::poll_timeout(&sta).min(now + 1_000_000_000);
        Node::handle_timeout(&mut sta, later, &mut os);
        for f in os.air.drain(..) {
            Node::handle_air(&mut ap, later, &f, &mut oa);
        }
        assert_eq!(Node::counters(&ap).rx_data, before + 1, "one data frame reached the AP");
        assert!(oa.host.iter().any(|h| h[6..12] == eth[6..12] && h[14..] == eth[14..]), "the AP delivered it to its host side");

        os.air.clear();
        Node::shutdown(&mut sta, later, &mut os);
        assert!(!os.air.is_empty(), "the station said goodbye");
        Node::counters_mut(&mut ap).relayed = 5;
        assert_eq!(ap.counters.relayed, 5);
        assert_eq!(Node::datapath(&ap).threads(), 1);
    }
}
