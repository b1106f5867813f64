//! The few nl80211 requests a user-space access point or station on a monitor interface
//! needs (the Linux wireless configuration API, `include/uapi/linux/nl80211.h`): read an
//! interface's type and wiphy, turn it into an active monitor (NL80211_MNTR_FLAG_ACTIVE:
//! "use the configured MAC address and ACK incoming unicast packets", so the radio
//! acknowledges frames addressed to wsec's BSSID or station address as a card in AP or
//! station mode would), set its channel, and put the type back at the end.
//!
//! Messages are built and parsed with rust-netlink's `wl-nl80211` types over a blocking
//! `netlink-sys` socket: a request, then replies until the kernel's ACK or error.
use netlink_packet_core::{DefaultNla, NetlinkMessage, NetlinkPayload, NLM_F_ACK, NLM_F_REQUEST};
use netlink_packet_generic::ctrl::nlas::GenlCtrlAttrs;
use netlink_packet_generic::ctrl::{GenlCtrl, GenlCtrlCmd};
use netlink_packet_generic::GenlMessage;
use netlink_sys::{protocols::NETLINK_GENERIC, Socket, SocketAddr};
use std::io;
use wl_nl80211::{Nl80211Attr, Nl80211Command, Nl80211InterfaceType, Nl80211Message};

/// NL80211_ATTR_MNTR_FLAGS (nested NLA_FLAG attributes of enum nl80211_mntr_flags).
const NL80211_ATTR_MNTR_FLAGS: u16 = 23;
/// NL80211_MNTR_FLAG_ACTIVE.
const NL80211_MNTR_FLAG_ACTIVE: u16 = 6;
/// NL80211_ATTR_WIPHY_CHANNEL_TYPE; NL80211_CHAN_NO_HT is 0 (a 20 MHz channel).
const NL80211_ATTR_WIPHY_CHANNEL_TYPE: u16 = 39;

/// An interface as nl80211 reports it.
#[derive(Clone, Debug)]
pub struct Interface {
    pub wiphy: u32,
    pub iftype: Nl80211InterfaceType,
}

/// A generic netlink socket talking to the nl80211 family.
pub struct Nl80211 {
    sock: Socket,
    family: u16,
    seq: u32,
}

fn invalid(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

impl Nl80211 {
    /// Opens the socket and resolves the family id ("nl80211" is missing when no wireless
    /// driver, cfg80211, is loaded).
    pub fn open() -> io::Result<Nl80211> {
        let mut sock = Socket::new(NETLINK_GENERIC)?;
        sock.bind_auto()?;
        sock.connect(&SocketAddr::new(0, 0))?;
        let mut nl = Nl80211 { sock, family: 0, seq: 1 };
        let mut g =
            GenlMessage::from_payload(GenlCtrl { cmd: GenlCtrlCmd::GetFamily, nlas: vec![GenlCtrlAttrs::FamilyName("nl80211".into())] });
        g.finalize();
        let replies = nl.exchange(g).map_err(|e| {
            if e.raw_os_error() == Some(libc::ENOENT) {
                io::Error::new(io::ErrorKind::NotFound, "no nl80211 family (is cfg80211 loaded?)")
            } else {
                e
            }
        })?;
        let family = replies
            .iter()
            .flat_map(|m: &GenlCtrl| m.nlas.iter())
            .find_map(|a| if let GenlCtrlAttrs::FamilyId(id) = a { Some(*id) } else { None })
            .ok_or_else(|| invalid("nl80211 family id missing from the reply"))?;
        nl.family = family;
        Ok(nl)
    }

    /// Sends one request and collects its replies up to the ACK (or the error).
    fn exchange<F>(&mut self, mut g: GenlMessage<F>) -> io::Result<Vec<F>>
    where
        F: netlink_packet_generic::GenlFamily + Clone + core::fmt::Debug + PartialEq + Eq,
        F: for<'a> netlink_packet_core::ParseableParametrized<[u8], netlink_packet_generic::GenlHeader>,
        F: netlink_packet_core::Emitable,
    {
        if self.family != 0 {
            g.set_resolved_family_id(self.family);
        }
        let mut m = NetlinkMessage::from(g);
        m.header.flags = NLM_F_REQUEST | NLM_F_ACK;
        self.seq = self.seq.wrapping_add(1);
        m.header.sequence_number = self.seq;
        m.finalize();
        let mut tx = vec![0u8; m.buffer_len()];
        m.serialize(&mut tx);
        self.sock.send(&tx, 0)?;
        let mut out = Vec::new();
        let mut rx: Vec<u8> = Vec::with_capacity(1 << 16);
        loop {
            rx.clear();
            let n = self.sock.recv(&mut rx, 0)?;
            let mut off = 0;
            while off < n {
                let msg = NetlinkMessage::<GenlMessage<F>>::deserialize(&rx[off..n]).map_err(|e| invalid(format!("nl80211 reply: {e}")))?;
                let len = msg.header.length as usize;
                if msg.header.sequence_number == self.seq {
                    match msg.payload {
                        NetlinkPayload::Error(e) if e.code.is_none() => return Ok(out),
                        NetlinkPayload::Error(e) => return Err(e.to_io()),
                        NetlinkPayload::Done(_) => return Ok(out),
                        NetlinkPayload::InnerMessage(g) => out.push(g.payload),
                        _ => {}
                    }
                }
                if len == 0 {
                    break;
                }
                off += (len + 3) & !3;
            }
        }
    }

    fn request(&mut self, cmd: Nl80211Command, attributes: Vec<Nl80211Attr>) -> io::Result<Vec<Nl80211Message>> {
        let mut g = GenlMessage::from_payload(Nl80211Message { cmd, attributes });
        g.finalize();
        self.exchange(g)
    }

    /// NL80211_CMD_GET_INTERFACE: the interface's wiphy and type.
    pub fn interface(&mut self, ifindex: u32) -> io::Result<Interface> {
        let r = self.request(Nl80211Command::GetInterface, vec![Nl80211Attr::IfIndex(ifindex)])?;
        let attrs = r.first().map(|m| m.attributes.as_slice()).unwrap_or(&[]);
        let wiphy = attrs.iter().find_map(|a| if let Nl80211Attr::Wiphy(w) = a { Some(*w) } else { None });
        let iftype = attrs.iter().find_map(|a| if let Nl80211Attr::IfType(t) = a { Some(*t) } else { None });
        match (wiphy, iftype) {
            (Some(wiphy), Some(iftype)) => Ok(Interface { wiphy, iftype }),
            _ => Err(io::Error::new(io::ErrorKind::NotFound, "not an nl80211 (Wi-Fi) interface")),
        }
    }

    /// NL80211_CMD_SET_INTERFACE to monitor, with the active flag when `active`.
    pub fn set_monitor(&mut self, ifindex: u32, active: bool) -> io::Result<()> {
        let mut flags = Vec::new();
        if active {
            // One NLA_FLAG attribute: a 4-octet header and no value.
            flags.extend_from_slice(&4u16.to_ne_bytes());
            flags.extend_from_slice(&NL80211_MNTR_FLAG_ACTIVE.to_ne_bytes());
        }
        let mut attrs = vec![Nl80211Attr::IfIndex(ifindex), Nl80211Attr::IfType(Nl80211InterfaceType::Monitor)];
        if active {
            attrs.push(Nl80211Attr::Other(DefaultNla::new(NL80211_ATTR_MNTR_FLAGS, flags)));
        }
        self.request(Nl80211Command::SetInterface, attrs).map(drop)
    }

    /// NL80211_CMD_NEW_INTERFACE: a monitor interface `name` on `wiphy`, active (it
    /// acknowledges frames to its address) when `active`; its interface index.
    pub fn new_monitor(&mut self, wiphy: u32, name: &str, active: bool) -> io::Result<u32> {
        let mut attrs =
            vec![Nl80211Attr::Wiphy(wiphy), Nl80211Attr::IfName(name.into()), Nl80211Attr::IfType(Nl80211InterfaceType::Monitor)];
        if active {
            let mut flags = Vec::new();
            flags.extend_from_slice(&4u16.to_ne_bytes());
            flags.extend_from_slice(&NL80211_MNTR_FLAG_ACTIVE.to_ne_bytes());
            attrs.push(Nl80211Attr::Other(DefaultNla::new(NL80211_ATTR_MNTR_FLAGS, flags)));
        }
        let r = self.request(Nl80211Command::NewInterface, attrs)?;
        r.iter()
            .flat_map(|m| m.attributes.iter())
            .find_map(|a| if let Nl80211Attr::IfIndex(i) = a { Some(*i) } else { None })
            .ok_or_else(|| invalid(format!("NL80211_CMD_NEW_INTERFACE {name}: no interface index in the reply")))
    }

    /// NL80211_CMD_DEL_INTERFACE.
    pub fn del_interface(&mut self, ifindex: u32) -> io::Result<()> {
        self.request(Nl80211Command::DelInterface, vec![Nl80211Attr::IfIndex(ifindex)]).map(drop)
    }

    /// NL80211_CMD_SET_INTERFACE to another type (to give the interface back).
    pub fn set_type(&mut self, ifindex: u32, t: Nl80211InterfaceType) -> io::Result<()> {
        self.request(Nl80211Command::SetInterface, vec![Nl80211Attr::IfIndex(ifindex), Nl80211Attr::IfType(t)]).map(drop)
    }

    /// NL80211_CMD_SET_WIPHY with a frequency: the monitor's channel (20 MHz, no HT).
    pub fn set_freq(&mut self, ifindex: u32, mhz: u32) -> io::Result<()> {
        self.request(
            Nl80211Command::SetWiphy,
            vec![
                Nl80211Attr::IfIndex(ifindex),
                Nl80211Attr::WiphyFreq(mhz),
                Nl80211Attr::Other(DefaultNla::new(NL80211_ATTR_WIPHY_CHANNEL_TYPE, 0u32.to_ne_bytes().to_vec())),
            ],
        )
        .map(drop)
    }
}
