//! A Linux 802.11 radio as the medium (`radio:IFNAME`): the interface is turned into an
//! active monitor on wsec's own address and channel through nl80211, and frames go both
//! ways through a packet socket as radiotap + 802.11, the way a user-space access point
//! or station runs on a card whose firmware does no crypto.
//!
//! - Received: radiotap parsed ([`wsec::capture::radio::radiotap_info`]); frames with a
//!   bad FCS are dropped and counted; the transmit reports mac80211 hands back to monitor
//!   interfaces (radiotap TX flags) are this radio's own frames and are skipped.
//! - Sent: a radiotap header with Flags (no FCS: the hardware appends it; with the "FCS
//!   at end" flag Linux 6.1 loses eight octets of the frame) and Rate, no FCS. Unicast
//!   data goes at the top rate of the band, management and group-addressed frames at the
//!   lowest mandatory rate (1 Mb/s at 2.4 GHz, 6 Mb/s at 5 GHz) so every station hears
//!   them. Injected frames get the hardware's retries but no mac80211 retransmission: the
//!   cores' own timers (EAPOL-Key, SA Query, authentication) retransmit what matters.
//! - Active monitor (NL80211_MNTR_FLAG_ACTIVE) with the interface's address set to the
//!   node's (BSSID or station address): the radio acknowledges unicast frames to it as an
//!   associated card would; without that a peer's frames are never acknowledged and a
//!   real station gives up after three authentication attempts. A driver without active
//!   monitor support gets a plain monitor and a warning.
//! - The interface's type, address and state are put back when the node stops.
//! - Frames move through the packet socket's PACKET_MMAP rings ([`super::ring`]): sends
//!   are queued and go to the kernel in one send(2) at [`super::Medium::flush`].
use super::nl80211::Nl80211;
use super::packet::PacketSocket;
use std::ffi::CString;
use std::io;
use std::os::fd::RawFd;
use wl_nl80211::Nl80211InterfaceType;
use wsec::capture::radio::radiotap_info;
use wsec::wire::mac::MacAddr;

/// ARPHRD_IEEE80211_RADIOTAP: the link type of a monitor interface.
const ARPHRD_IEEE80211_RADIOTAP: u16 = 803;

/// Counters of the radio medium.
#[derive(Clone, Copy, Debug, Default)]
pub struct RadioStats {
    pub rx: u64,
    pub bad_fcs: u64,
    pub own_tx_reports: u64,
    pub malformed: u64,
    pub tx_too_long: u64,
    pub last_signal_dbm: Option<i8>,
}

struct Restore {
    mtu: i32,
    ifindex: u32,
    iftype: Nl80211InterfaceType,
    mac: [u8; 6],
    family: u16,
    was_up: bool,
}

pub struct Radio {
    sock: PacketSocket,
    nl: Nl80211,
    ifname: String,
    freq: u16,
    restore: Option<Restore>,
    pub stats: RadioStats,
    /// Whether the driver acknowledges frames to our address (active monitor).
    pub active: bool,
    /// The further BSSs' interfaces on this radio (name, index), removed at the end.
    extra: Vec<(String, u32)>,
}

fn ifreq(name: &str) -> io::Result<libc::ifreq> {
    let c = CString::new(name).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "interface name"))?;
    let b = c.as_bytes_with_nul();
    if b.len() > libc::IFNAMSIZ {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "interface name longer than IFNAMSIZ"));
    }
    // SAFETY: ifreq is plain data; zeroed is a valid value.
    let mut r: libc::ifreq = unsafe { core::mem::zeroed() };
    for (d, s) in r.ifr_name.iter_mut().zip(b) {
        *d = *s as libc::c_char;
    }
    Ok(r)
}

/// One SIOC* ioctl on a throwaway datagram socket.
fn ioctl(req: libc::c_ulong, r: &mut libc::ifreq) -> io::Result<()> {
    // SAFETY: a plain socket(2); the fd is closed below.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: r is a valid ifreq for the request, which reads or writes only that.
    let rc = unsafe { libc::ioctl(fd, req as _, r as *mut libc::ifreq) };
    let e = io::Error::last_os_error();
    // SAFETY: fd is ours.
    unsafe { libc::close(fd) };
    if rc < 0 {
        Err(e)
    } else {
        Ok(())
    }
}

fn get_flags(name: &str) -> io::Result<libc::c_short> {
    let mut r = ifreq(name)?;
    ioctl(libc::SIOCGIFFLAGS, &mut r)?;
    // SAFETY: SIOCGIFFLAGS filled the flags member of the union.
    Ok(unsafe { r.ifr_ifru.ifru_flags })
}

fn set_up(name: &str, up: bool) -> io::Result<()> {
    let flags = get_flags(name)?;
    let mut r = ifreq(name)?;
    let f = if up { flags | libc::IFF_UP as libc::c_short } else { flags & !(libc::IFF_UP as libc::c_short) };
    r.ifr_ifru.ifru_flags = f;
    ioctl(libc::SIOCSIFFLAGS, &mut r)
}

/// The largest MSDU a frame carries (IEEE 802.11-2020 9.2.4.7.1: 2304 octets), the MTU the
/// monitor interface gets so that a protected 1500-octet packet fits with its headers.
const MONITOR_MTU: i32 = 2304;

fn set_mtu(name: &str, mtu: i32) -> io::Result<()> {
    let mut r = ifreq(name)?;
    r.ifr_ifru.ifru_mtu = mtu;
    ioctl(libc::SIOCSIFMTU, &mut r)
}

fn get_mac(name: &str) -> io::Result<(u16, [u8; 6])> {
    let mut r = ifreq(name)?;
    ioctl(libc::SIOCGIFHWADDR, &mut r)?;
    // SAFETY: SIOCGIFHWADDR filled the hwaddr member of the union.
    let sa = unsafe { r.ifr_ifru.ifru_hwaddr };
    let mut m = [0u8; 6];
    for (d, s) in m.iter_mut().zip(sa.sa_data.iter()) {
        *d = *s as u8;
    }
    Ok((sa.sa_family, m))
}

/// The interface's current hardware address.
pub fn address(name: &str) -> io::Result<[u8; 6]> {
    get_mac(name).map(|(_, m)| m)
}

fn set_mac(name: &str, family: u16, mac: [u8; 6]) -> io::Result<()> {
    let mut r = ifreq(name)?;
    // SAFETY: sockaddr is plain data; zeroed is a valid value.
    let mut sa: libc::sockaddr = unsafe { core::mem::zeroed() };
    sa.sa_family = family;
    for (d, s) in sa.sa_data.iter_mut().zip(mac) {
        *d = s as libc::c_char;
    }
    r.ifr_ifru.ifru_hwaddr = sa;
    ioctl(libc::SIOCSIFHWADDR, &mut r)
}

/// Frequency of a channel number: 2.4 GHz channels 1 to 14, 5 GHz channels 32 to 177
/// (IEEE 802.11-2020 15.4.4.3, 17.3.8.4.2, 19.3.15.4).
pub fn channel_freq(ch: u8) -> Option<u16> {
    match ch {
        1..=13 => Some(2407 + 5 * ch as u16),
        14 => Some(2484),
        32..=177 => Some(5000 + 5 * ch as u16),
        _ => None,
    }
}

impl Radio {
    /// Takes `ifname` over as an active monitor on `addr` and `channel`.
    pub fn open(ifname: &str, channel: u8, addr: MacAddr) -> io::Result<Radio> {
        let freq = channel_freq(channel).ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("no channel {channel}")))?;
        let c = CString::new(ifname).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "interface name"))?;
        // SAFETY: c is a valid C string.
        let ifindex = unsafe { libc::if_nametoindex(c.as_ptr()) };
        if ifindex == 0 {
            return Err(io::Error::new(io::ErrorKind::NotFound, format!("no interface {ifname}")));
        }
        let mut nl = Nl80211::open()?;
        let info = nl.interface(ifindex).map_err(|e| io::Error::new(e.kind(), format!("{ifname}: {e}")))?;
        let was_up = get_flags(ifname)? & libc::IFF_UP as libc::c_short != 0;
        let (family, mac) = get_mac(ifname)?;
        let mut mr = ifreq(ifname)?;
        ioctl(libc::SIOCGIFMTU, &mut mr)?;
        // SAFETY: SIOCGIFMTU filled the mtu member of the union.
        let mtu = unsafe { mr.ifr_ifru.ifru_mtu };
        let restore = Restore { mtu, ifindex, iftype: info.iftype, mac, family, was_up };
        let mut radio_restore = Some(restore);
        let r = (|| -> io::Result<bool> {
            set_up(ifname, false)?;
            let active = match nl.set_monitor(ifindex, true) {
                Ok(()) => true,
                Err(e) if matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP) | Some(libc::EINVAL)) => {
                    nl.set_monitor(ifindex, false)?;
                    false
                }
                Err(e) => return Err(e),
            };
            set_mac(ifname, ARPHRD_IEEE80211_RADIOTAP, addr.0)?;
            set_mtu(ifname, MONITOR_MTU)?;
            set_up(ifname, true)?;
            nl.set_freq(ifindex, freq as u32)
                .map_err(|e| io::Error::new(e.kind(), format!("{ifname}: channel {channel} ({freq} MHz): {e}")))?;
            Ok(active)
        })();
        let active = match r {
            Ok(a) => a,
            Err(e) => {
                if let Some(rs) = radio_restore.take() {
                    give_back(ifname, &rs);
                }
                return Err(e);
            }
        };
        let sock = match PacketSocket::open(ifname, channel) {
            Ok(s) => s,
            Err(e) => {
                if let Some(rs) = radio_restore.take() {
                    give_back(ifname, &rs);
                }
                return Err(e);
            }
        };
        Ok(Radio { sock, nl, ifname: ifname.into(), freq, restore: radio_restore, stats: RadioStats::default(), active, extra: Vec::new() })
    }

    /// One more BSS on this radio (a `bss=` section): an active monitor interface `name` on
    /// the same wiphy with the BSS's address, only so that the radio acknowledges frames to
    /// it (hostapd creates an AP interface per BSS for the same reason); frames still come
    /// and go through the first interface. Removed when the radio is given back.
    pub fn add_bss(&mut self, name: &str, addr: MacAddr) -> io::Result<()> {
        let ifindex = self.restore.as_ref().map(|r| r.ifindex).unwrap_or(0);
        let wiphy = self.nl.interface(ifindex)?.wiphy;
        let idx = self
            .nl
            .new_monitor(wiphy, name, self.active)
            .map_err(|e| io::Error::new(e.kind(), format!("{name}: a monitor on the radio of {}: {e}", self.ifname)))?;
        self.extra.push((name.to_string(), idx));
        set_mac(name, ARPHRD_IEEE80211_RADIOTAP, addr.0)?;
        set_up(name, true)
    }

    /// radiotap (Flags, Rate) + MPDU, no FCS.
    pub fn encap(&self, mpdu: &[u8]) -> Vec<u8> {
        encap(mpdu, self.freq)
    }
}

/// A frame as it is handed to a monitor interface for transmission: radiotap with Flags
/// (none: the hardware appends the FCS) and Rate, then the MPDU.
pub fn encap(mpdu: &[u8], freq: u16) -> Vec<u8> {
    {
        let five = freq >= 5000;
        let group_or_mgmt = mpdu.len() < 10 || mpdu[0] & 0x0c != 0x08 || mpdu[4] & 1 != 0;
        let rate = match (five, group_or_mgmt) {
            (false, true) => 2, // 1 Mb/s
            (true, true) => 12, // 6 Mb/s
            (_, false) => 108,  // 54 Mb/s
        };
        let mut v = Vec::with_capacity(10 + mpdu.len());
        v.extend_from_slice(&[0, 0, 10, 0]);
        v.extend_from_slice(&0x0000_0006u32.to_le_bytes());
        v.push(0); // Flags: none (no FCS)
        v.push(rate);
        v.extend_from_slice(mpdu);
        v
    }
}

fn give_back(ifname: &str, r: &Restore) {
    let _ = set_up(ifname, false);
    if let Ok(mut nl) = Nl80211::open() {
        let _ = nl.set_type(r.ifindex, r.iftype);
    }
    // The address family follows the type: Ethernet for managed, radiotap for monitor.
    let fam = get_mac(ifname).map(|(f, _)| f).unwrap_or(r.family);
    let _ = set_mac(ifname, fam, r.mac);
    let _ = set_mtu(ifname, r.mtu);
    if r.was_up {
        let _ = set_up(ifname, true);
    }
}

impl Drop for Radio {
    fn drop(&mut self) {
        for (_, idx) in self.extra.drain(..) {
            let _ = self.nl.del_interface(idx);
        }
        if let Some(r) = self.restore.take() {
            give_back(&self.ifname, &r);
        }
    }
}

impl super::Medium for Radio {
    fn max_mpdu(&self) -> usize {
        super::Medium::max_mpdu(&self.sock)
    }

    fn send(&mut self, mpdu: &[u8]) -> io::Result<()> {
        let f = self.encap(mpdu);
        match self.sock.queue_raw(&f) {
            // A frame the interface will not take is lost, as on a radio; counted.
            Err(e) if e.raw_os_error() == Some(libc::EMSGSIZE) => {
                self.stats.tx_too_long += 1;
                Ok(())
            }
            r => r,
        }
    }

    fn recv(&mut self, buf: &mut Vec<u8>) -> io::Result<bool> {
        loop {
            if !self.sock.recv_raw(buf)? {
                return Ok(false);
            }
            match radiotap_info(buf) {
                Ok(i) if i.tx_report => self.stats.own_tx_reports += 1,
                Ok(i) if i.bad_fcs() => self.stats.bad_fcs += 1,
                Ok(i) => {
                    self.stats.rx += 1;
                    if i.signal_dbm.is_some() {
                        self.stats.last_signal_dbm = i.signal_dbm;
                    }
                    return Ok(true);
                }
                Err(_) => self.stats.malformed += 1,
            }
        }
    }

    fn fd(&self) -> RawFd {
        super::Medium::fd(&self.sock)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.sock.flush()
    }

    fn prepare_wait(&mut self) -> io::Result<bool> {
        self.sock.prepare_wait()
    }

    fn set_channel(&mut self, channel: u8) -> io::Result<bool> {
        let freq = channel_freq(channel).ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("no channel {channel}")))?;
        let ifindex = self.restore.as_ref().map(|r| r.ifindex).unwrap_or(0);
        self.nl.set_freq(ifindex, freq as u32)?;
        self.freq = freq;
        Ok(true)
    }

    fn describe(&self) -> String {
        format!(
            "radio {} at {} MHz ({}): rx {}, bad FCS {}, own transmit reports {}, malformed {}, too long to send {}{}; {}",
            self.ifname,
            self.freq,
            if self.active { "active monitor" } else { "monitor, frames to us not acknowledged" },
            self.stats.rx,
            self.stats.bad_fcs,
            self.stats.own_tx_reports,
            self.stats.malformed,
            self.stats.tx_too_long,
            self.stats.last_signal_dbm.map(|s| format!(", last signal {s} dBm")).unwrap_or_default(),
            self.sock.describe_io()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wsec::capture::radio::{mpdu, radiotap_info, LINKTYPE_RADIOTAP};

    #[test]
    fn injected_frames_carry_no_fcs_and_a_rate_by_kind() {
        // Unicast QoS data, a beacon, group-addressed data.
        let data = [0x88u8, 0x02, 0, 0, 2, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0xaa];
        let mut beacon = data;
        beacon[0] = 0x80;
        let mut group = data;
        group[4] = 0xff;
        for (f, freq, rate) in [(&data, 2437, 108), (&beacon, 2437, 2), (&group, 2437, 2), (&beacon, 5180, 12), (&data, 5180, 108)] {
            let v = encap(f, freq);
            let i = radiotap_info(&v).unwrap();
            assert_eq!(i.rate, Some(rate));
            // No FCS flag and no FCS: Linux trims eight octets of a frame marked FCS-at-end.
            assert!(!i.has_fcs());
            let m = mpdu(LINKTYPE_RADIOTAP, &v).unwrap();
            assert_eq!(m.bytes, &f[..]);
            assert!(!m.had_fcs);
        }
    }

    #[test]
    fn channels_map_to_their_frequencies() {
        assert_eq!(channel_freq(1), Some(2412));
        assert_eq!(channel_freq(6), Some(2437));
        assert_eq!(channel_freq(14), Some(2484));
        assert_eq!(channel_freq(36), Some(5180));
        assert_eq!(channel_freq(0), None);
        assert_eq!(channel_freq(15), None);
        assert_eq!(channel_freq(200), None);
        for ch in (1..=13).chain(36..=165) {
            let f = channel_freq(ch).unwrap() as u32;
            assert_eq!(crate::conf::freq_channel(f), Some(ch), "{ch}");
        }
    }
}
