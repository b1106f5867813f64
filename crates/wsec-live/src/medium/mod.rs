//! The wireless medium and the host side of a live node.
//!
//! Frames on the medium are what a monitor-mode interface with injection reads and
//! writes: a radiotap header (radiotap.org: version 0, Flags with "FCS at end", Rate,
//! Channel), the 802.11 MPDU and its FCS (CRC-32, 9.2.4.8). [`Medium`] is the one
//! interface the programs use; behind it:
//!
//! - [`air`]: `wsec air`, a hub on loopback UDP that repeats every frame to every other
//!   node (a broadcast medium), with an optional loss probability and pcap recording;
//! - [`shm`]: `wsec air --shm NAME`, the same broadcast medium for the nodes of one host in
//!   shared memory (a ring of slots, batched wake-ups), with loss and recording as the hub's;
//! - [`packet`]: a raw packet socket on a named interface (a monitor interface set up by
//!   hand, or a veth pair in the tests), radiotap with FCS as on the hub; frames move
//!   through PACKET_MMAP rings ([`ring`]), one send(2) per burst;
//! - [`radio`]: a Linux 802.11 radio, taken over through [`nl80211`] as an active monitor
//!   on the node's address and channel (what runs next to real stations and APs);
//! - [`hwsim`]: the medium of the mac80211_hwsim radios themselves, in user space (the
//!   wmediumd interface): the node is on the air beside the radios without one of its own.
//!
//! The medium never sees a key: it carries bytes the host engine already protected.
//! [`tap`] and [`netns`] are the host side: the TAP device a node bridges to and the
//! network namespace it lives in; [`vnet`] is the TAP's offload layer (virtio-net header,
//! TCP segmentation and coalescing).
pub mod air;
pub mod hwsim;
pub mod netns;
pub mod nl80211;
pub mod packet;
pub mod radio;
pub mod ring;
pub mod shared;
pub mod shm;
pub mod tap;
pub mod vnet;

use std::io;
use wsec::capture::radio::{mpdu, LINKTYPE_RADIOTAP};
use wsec::error::{Error, Result};

/// Length of the radiotap header wsec writes: it_version 0, it_pad, it_len 14,
/// it_present = Flags (bit 1) | Rate (bit 2) | Channel (bit 3); Flags 0x10 (frame
/// includes FCS), Rate in 500 kb/s units, Channel frequency (MHz) and flags.
pub const RADIOTAP_LEN: usize = 14;

/// Frequency of a 2.4 GHz channel (IEEE 802.11-2020 15.4.4.3 / 17.3.8.4.2).
pub fn channel_mhz(ch: u8) -> u16 {
    if ch == 14 {
        2484
    } else {
        2407 + 5 * ch as u16
    }
}

/// radiotap + MPDU + FCS: the frame as it goes on the medium.
pub fn encap(mpdu_bytes: &[u8], channel: u8) -> Vec<u8> {
    let mut v = Vec::with_capacity(RADIOTAP_LEN + mpdu_bytes.len() + 4);
    encap_into(&mut v, mpdu_bytes, channel);
    v
}

/// [`encap`] into `v` (cleared first), reusing its allocation.
pub fn encap_into(v: &mut Vec<u8>, mpdu_bytes: &[u8], channel: u8) {
    v.clear();
    v.extend_from_slice(&radiotap(channel, true));
    v.extend_from_slice(mpdu_bytes);
    v.extend_from_slice(&crc32fast::hash(mpdu_bytes).to_le_bytes());
}

/// The radiotap header of [`encap`]; `fcs`: the Flags field says an FCS follows the MPDU.
/// A medium in memory ([`shm`]) carries no FCS: nothing between two processes' memory
/// corrupts a frame the way a radio channel does, and the ring has its own checks.
pub fn radiotap(channel: u8, fcs: bool) -> [u8; RADIOTAP_LEN] {
    let mhz = channel_mhz(channel).to_le_bytes();
    [
        0,
        0,
        RADIOTAP_LEN as u8,
        0,
        0x0e,
        0,
        0,
        0,
        if fcs { 0x10 } else { 0 }, // Flags: FCS at end
        108,                        // Rate: 54 Mb/s
        mhz[0],
        mhz[1],
        0xc0, // Channel flags: 2 GHz spectrum (0x0080) | OFDM (0x0040).
        0,
    ]
}

/// The MPDU of a frame from the medium (any radiotap header), its FCS checked if present.
pub fn decap(frame: &[u8]) -> Result<&[u8]> {
    let m = mpdu(LINKTYPE_RADIOTAP, frame)?;
    if m.had_fcs {
        let end = m.radio_len + m.bytes.len();
        let fcs = frame.get(end..end + 4).ok_or(Error::Truncated)?;
        if crc32fast::hash(m.bytes).to_le_bytes() != fcs {
            return Err(Error::Malformed("bad FCS"));
        }
    }
    Ok(m.bytes)
}

/// One node's attachment to the wireless medium.
pub trait Medium {
    /// Puts one MPDU (no FCS) on the medium.
    fn send(&mut self, mpdu: &[u8]) -> io::Result<()>;
    /// The next frame from the medium (radiotap + MPDU + FCS), if one is waiting
    /// (non-blocking).
    fn recv(&mut self, buf: &mut Vec<u8>) -> io::Result<bool>;
    /// The descriptor to poll for readability.
    fn fd(&self) -> std::os::fd::RawFd;
    /// Ends a burst of [`Medium::send`]s: a medium that batches its receivers' wake-ups
    /// ([`shm`]) wakes them now. Callers call it after each burst.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// Called right before polling [`Medium::fd`]: true if frames are waiting already, so
    /// the caller must not sleep (the descriptor of [`shm`] is readable only when a writer
    /// has woken it). Callers that poll the descriptor call it each time.
    fn prepare_wait(&mut self) -> io::Result<bool> {
        Ok(false)
    }
    /// Called about once a second (the hub's registration keep-alive).
    fn tick(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// Moves to another channel (a scanning station); false where the medium has none.
    fn set_channel(&mut self, _channel: u8) -> io::Result<bool> {
        Ok(false)
    }
    /// What the medium is and its own counters, for the exit report.
    fn describe(&self) -> String {
        String::new()
    }
    /// The longest MPDU (no radiotap, no FCS) the medium carries: the nodes bound their
    /// A-MSDUs by it ([`amsdu_room`]). Interfaces have an MTU; the hub and the ring carry
    /// up to [`air::MAX_FRAME`].
    fn max_mpdu(&self) -> usize {
        air::MAX_FRAME - RADIOTAP_LEN - 4
    }
}

/// The longest A-MSDU (the Frame Body of a QoS Data MPDU) that fits an MPDU of `mpdu`
/// octets whatever protects it: the QoS header (26 octets), a CCMP/GCMP header (8) and the
/// longest MIC (16).
pub fn amsdu_room(mpdu: usize) -> usize {
    mpdu.saturating_sub(26 + 8 + 16)
}

/// Opens a medium for the BSSs of one radio: the first's address as in [`open`], and each
/// further (interface, BSSID) acknowledged too where the medium acknowledges (a radio gets
/// an active monitor per BSS, the hwsim medium answers for every BSSID).
pub fn open_bsses(
    spec: &str,
    channel: u8,
    own: wsec::wire::mac::MacAddr,
    more: &[(String, wsec::wire::mac::MacAddr)],
) -> io::Result<Box<dyn Medium>> {
    if let Some(ifname) = spec.strip_prefix("radio:") {
        let mut r = radio::Radio::open(ifname, channel, own)?;
        for (name, addr) in more {
            r.add_bss(name, *addr)?;
        }
        return Ok(Box::new(r));
    }
    if let Some(radios) = spec.strip_prefix("hwsim:") {
        return Ok(Box::new(hwsim::Hwsim::open(radios, channel, std::iter::once(own.0).chain(more.iter().map(|(_, a)| a.0)))?));
    }
    open(spec, channel, own)
}

/// Opens a medium from its spec: `air:HOST:PORT` (the hub), `shm:NAME` (the hub's shared
/// memory), `packet:IFNAME`, `radio:IFNAME` or `hwsim:RADIO[,RADIO...]`; `own` is the
/// node's address (a radio acknowledges frames to it).
pub fn open(spec: &str, channel: u8, own: wsec::wire::mac::MacAddr) -> io::Result<Box<dyn Medium>> {
    if let Some(ifname) = spec.strip_prefix("radio:") {
        return Ok(Box::new(radio::Radio::open(ifname, channel, own)?));
    }
    if let Some(radios) = spec.strip_prefix("hwsim:") {
        return Ok(Box::new(hwsim::Hwsim::open(radios, channel, [own.0])?));
    }
    if let Some(name) = spec.strip_prefix("shm:") {
        return Ok(Box::new(shm::ShmMedium::open(name, channel)?));
    }
    if let Some(addr) = spec.strip_prefix("air:") {
        Ok(Box::new(air::AirClient::connect(addr, channel)?))
    } else if let Some(ifname) = spec.strip_prefix("packet:") {
        Ok(Box::new(packet::PacketSocket::open(ifname, channel)?))
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("medium must be air:HOST:PORT, shm:NAME, packet:IFNAME, radio:IFNAME or hwsim:RADIO[,RADIO...], not {spec}"),
        ))
    }
}
