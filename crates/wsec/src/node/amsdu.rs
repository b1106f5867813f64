//! What the cores take out of a received A-MSDU (IEEE 802.11-2020 9.3.2.2, 10.12), with
//! the FragAttacks defences (Vanhoef, "Fragment and Forge", USENIX Security 2021) as
//! Linux mac80211 applies them (`ieee80211_rx_h_amsdu` in net/mac80211/rx.c,
//! `ieee80211_amsdu_to_8023s` in net/wireless/util.c). [`deaggregate`] gives the MSDUs of
//! a decrypted QoS Data MPDU with A-MSDU Present, or why the whole A-MSDU is dropped:
//!
//! - Protected only, except in an open BSS. The cores call it after decryption and the
//!   replay check, so every MSDU inherits its MPDU's PN check. An unprotected A-MSDU is
//!   refused on every link that has security (an RSNA, WEP) or is setting it up, which also stops
//!   CVE-2020-26144 (a plaintext A-MSDU dressed as an EAPOL MSDU).
//! - To one receiver (Address 1 individual, as 802.11-2012 9.11 required and mac80211
//!   checks), three addresses (mac80211 drops four-address ones outside WDS/mesh), under
//!   CCMP or GCMP: A-MSDUs are HT's and HT STAs do not pair under WEP or TKIP (mac80211
//!   drops them under those keys).
//! - Not reassembled from fragments. 802.11-2012 9.11 says an A-MSDU "shall be carried,
//!   without fragmentation, within a single QoS data MPDU" (the 2020 text of 10.12 could
//!   not be checked here); FragAttacks 6.3 shows fragmented A-MSDUs make the mixed
//!   plaintext/encrypted attack practical. The reassembler (`link::defrag`) only ever
//!   joins fragments of one key with consecutive PNs, so the PN rule holds anyway; the
//!   drop here is for the bit, taken from the first fragment (the reassembled header) or
//!   the last (the received one).
//! - The node's policy ([`AmsduRx`]) and the link's: SPP A-MSDUs (both SPP A-MSDU
//!   Capable, 9.4.2.24.4) keep the A-MSDU Present bit in the AAD (12.5.3.3.3), so only the
//!   sender can set it. Without SPP the bit is unprotected and an attacker sets it on a
//!   genuine MSDU (CVE-2020-24588): its LLC/SNAP header becomes the first subframe's DA.
//!   An A-MSDU whose first DA is AA-AA-03-00-00-00 is dropped whole, as mac80211 has
//!   done since 5.13 (6.16 looks at the first subframe only, as here; before, at every
//!   subframe). wsec also drops AA-AA-03-00-00-F8, the 802.1H header it takes MSDUs
//!   with too (mac80211 does not check it). mac80211 applies the check with SPP as well.
//! - The subframes as `wire::amsdu` walks them (a malformed one drops the whole A-MSDU,
//!   as mac80211's purge). Then each MSDU alone: an LLC/SNAP header (as a single MSDU);
//!   to the AP (To DS) its SA is the transmitter, from the AP (From DS) an individual DA
//!   is the receiver (mac80211's `check_sa`/`check_da`, which skip such subframes); no
//!   EAPOL (wsec's rule: the uncontrolled port's frames travel alone, never aggregated by
//!   the supplicant or authenticator; mac80211 would take one addressed to it).
use super::frames::Msdu;
use crate::cipher::{Algorithm, CipherSuite};
use crate::wire::amsdu::{Amsdu, Subframes};
use crate::wire::ethernet::EtherType;
use crate::wire::llc::{Snap, OUI_BRIDGE_TUNNEL, OUI_RFC1042};
use crate::wire::mac::{FrameControl, MacAddr, Mpdu};

/// The A-MSDUs a node takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AmsduRx {
    /// None: every A-MSDU is dropped.
    Refuse,
    /// SPP A-MSDUs only (FragAttacks' recommendation): a link without SPP A-MSDU takes none.
    SppOnly,
    /// SPP and non-SPP A-MSDUs, the latter behind the first-DA check (mac80211's policy).
    #[default]
    Mitigated,
}

/// What the link an A-MSDU came over negotiated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    /// The pairwise cipher (`None`: none negotiated, e.g. WEP).
    pub pairwise: Option<CipherSuite>,
    /// SPP A-MSDUs in use (both SPP A-MSDU Capable, 9.4.2.24.4).
    pub spp: bool,
    /// A-MSDUs allowed at all: false when one side requires SPP and the other cannot.
    pub allowed: bool,
    /// The BSS has no security at all (no RSN, no WEP): its A-MSDUs travel unprotected, as
    /// every frame there does, and are taken as mac80211 takes them (the rules below but
    /// the cipher's). An injected A-MSDU gains an attacker nothing such a BSS does not
    /// give already.
    pub open: bool,
}

/// The drop reasons, as the cores count them.
pub mod reason {
    pub const UNPROTECTED: &str = "unprotected a-msdu";
    pub const REFUSED: &str = "a-msdu refused";
    pub const GROUP: &str = "group-addressed a-msdu";
    pub const FOUR_ADDRESS: &str = "four-address a-msdu";
    pub const FRAGMENTED: &str = "fragmented a-msdu";
    pub const CIPHER: &str = "a-msdu not under ccmp or gcmp";
    /// CVE-2020-24588: the first subframe's DA is an LLC/SNAP header.
    pub const LLC_DA: &str = "a-msdu starts with an llc/snap header";
    pub const MALFORMED: &str = "malformed a-msdu";
    /// A subframe's MSDU without an LLC/SNAP header (the single-MSDU reason).
    pub const MSDU: &str = "malformed msdu";
    pub const SA: &str = "source address is not the transmitter";
    pub const DA: &str = "a-msdu subframe for another station";
    pub const EAPOL: &str = "eapol in an a-msdu";
}

/// The first six octets of an RFC 1042 and an 802.1H LLC/SNAP header.
const LLC_STARTS: [[u8; 6]; 2] = [
    [0xaa, 0xaa, 0x03, OUI_RFC1042[0], OUI_RFC1042[1], OUI_RFC1042[2]],
    [0xaa, 0xaa, 0x03, OUI_BRIDGE_TUNNEL[0], OUI_BRIDGE_TUNNEL[1], OUI_BRIDGE_TUNNEL[2]],
];

/// Whether A-MSDU Present is set in the QoS Control of a data MPDU's header bytes (at 24,
/// or 30 after Address 4; 9.2.3); false when it is not there.
fn qos_amsdu(mpdu: &[u8]) -> bool {
    let Some(&[a, b]) = mpdu.get(..2) else { return false };
    let fc = FrameControl(u16::from_le_bytes([a, b]));
    let at = if fc.has_addr4() { 30 } else { 24 };
    fc.is_qos_data() && mpdu.get(at).is_some_and(|q| q & 0x80 != 0)
}

/// Whether the received MPDU `hdr` or its plaintext `plain` (after reassembly, the first
/// fragment's header) says A-MSDU Present (9.2.4.5.6).
pub fn present(hdr: &Mpdu<'_>, plain: &[u8]) -> bool {
    hdr.qos_control().is_some_and(|q| q.amsdu_present()) || qos_amsdu(plain)
}

/// The MSDUs of the A-MSDU in `plain`, the decrypted (and reassembled) data MPDU whose
/// received header is `hdr`, or the reason it is dropped whole (see the module
/// documentation for the rules and their order). Each MSDU may still be dropped alone
/// (the iterator's `Err` items).
pub fn deaggregate<'a>(hdr: &Mpdu<'_>, plain: &'a [u8], policy: AmsduRx, link: Link) -> Result<Msdus<'a>, &'static str> {
    let fc = hdr.frame_control();
    if !fc.protected() && !link.open {
        return Err(reason::UNPROTECTED);
    }
    if hdr.addr1().is_group() {
        return Err(reason::GROUP);
    }
    if fc.has_addr4() {
        return Err(reason::FOUR_ADDRESS);
    }
    if hdr.is_fragment() {
        return Err(reason::FRAGMENTED);
    }
    if !link.open && !link.pairwise.is_some_and(|c| matches!(c.algorithm(), Algorithm::Ccm | Algorithm::Gcm | Algorithm::Eccm { .. })) {
        return Err(reason::CIPHER);
    }
    let takes = match policy {
        AmsduRx::Refuse => false,
        AmsduRx::SppOnly => link.spp,
        AmsduRx::Mitigated => true,
    };
    if !takes || !link.allowed {
        return Err(reason::REFUSED);
    }
    let (Some(da), Some(sa)) = (hdr.da(), hdr.sa()) else { return Err(reason::MALFORMED) };
    let body = plain.get(hdr.header_len()..).ok_or(reason::MALFORMED)?;
    // Before the walk: the attack's frame need not be a well-formed A-MSDU.
    if body.get(..6).is_some_and(|d| LLC_STARTS.iter().any(|l| l == d)) {
        return Err(reason::LLC_DA);
    }
    let subframes = Amsdu::new_checked(body).map_err(|_| reason::MALFORMED)?.into_subframes();
    let check_sa = (fc.to_ds() && !fc.from_ds()).then_some(sa);
    let check_da = (fc.from_ds() && !fc.to_ds()).then_some(da);
    Ok(Msdus { subframes, check_sa, check_da })
}

/// Hands each MSDU of a received data frame's plaintext to `on_msdu` with the octets it
/// counts for: the frame's one MSDU (the MPDU's length), or each MSDU of its A-MSDU
/// ([`deaggregate`]; the MSDU's length plus its LLC/SNAP header). Drops, of one MSDU or of
/// the whole A-MSDU, go to the core's counters by reason.
pub(crate) fn each_msdu<C: super::datapath::Core>(
    core: &mut C,
    hdr: &Mpdu<'_>,
    plain: &[u8],
    policy: AmsduRx,
    link: Link,
    out: &mut super::Output,
    mut on_msdu: impl FnMut(&mut C, Msdu<'_>, usize, &mut super::Output),
) {
    if !present(hdr, plain) {
        match super::frames::msdu_of(hdr, plain) {
            Ok(m) => on_msdu(core, m, plain.len(), out),
            Err(_) => core.datapath_mut().1.drop("malformed msdu"),
        }
        return;
    }
    match deaggregate(hdr, plain, policy, link) {
        Ok(msdus) => {
            for m in msdus {
                match m {
                    Ok(m) => {
                        let len = m.payload.len() + 8;
                        on_msdu(core, m, len, out)
                    }
                    Err(why) => core.datapath_mut().1.drop(why),
                }
            }
        }
        Err(why) => core.datapath_mut().1.drop(why),
    }
}

/// The MSDUs of an A-MSDU [`deaggregate`] took, in order; an `Err` is one MSDU dropped.
#[derive(Debug, Clone)]
pub struct Msdus<'a> {
    subframes: Subframes<'a>,
    check_sa: Option<MacAddr>,
    check_da: Option<MacAddr>,
}

impl<'a> Iterator for Msdus<'a> {
    type Item = Result<Msdu<'a>, &'static str>;

    fn next(&mut self) -> Option<Self::Item> {
        // The walk was checked: no Err here, but one would end the A-MSDU.
        let s = match self.subframes.next()? {
            Ok(s) => s,
            Err(_) => return Some(Err(reason::MALFORMED)),
        };
        let (da, sa) = (s.da(), s.sa());
        Some(self.msdu(da, sa, s.into_msdu()))
    }
}

impl<'a> Msdus<'a> {
    fn msdu(&self, da: MacAddr, sa: MacAddr, msdu: &'a [u8]) -> Result<Msdu<'a>, &'static str> {
        let snap = Snap::new_checked(msdu).map_err(|_| reason::MSDU)?;
        if snap.oui() != OUI_RFC1042 && snap.oui() != OUI_BRIDGE_TUNNEL {
            return Err(reason::MSDU);
        }
        if self.check_sa.is_some_and(|t| t != sa) {
            return Err(reason::SA);
        }
        if self.check_da.is_some_and(|r| da.is_individual() && da != r) {
            return Err(reason::DA);
        }
        let ethertype = snap.ethertype();
        if ethertype == EtherType::EAPOL {
            return Err(reason::EAPOL);
        }
        Ok(Msdu { da, sa, ethertype, payload: snap.into_payload() })
    }
}

/// The [`Link`] of a negotiation: what `rsn::ie::negotiate` gave a station.
impl From<&crate::rsn::ie::Negotiated> for Link {
    fn from(n: &crate::rsn::ie::Negotiated) -> Link {
        Link { pairwise: Some(n.pairwise), spp: n.spp_amsdu, allowed: n.amsdu_allowed, open: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qos_amsdu_reads_the_bit_where_the_header_has_it() {
        // QoS Data, To DS (3 addresses): QoS Control at 24 with b7 set.
        let mut f = vec![0x88, 0x01];
        f.resize(26, 0);
        f[24] = 0x80;
        assert!(qos_amsdu(&f));
        f[24] = 0x07;
        assert!(!qos_amsdu(&f));
        // Four addresses: QoS Control at 30.
        let mut g = vec![0x88, 0x03];
        g.resize(32, 0);
        g[30] = 0x80;
        assert!(qos_amsdu(&g));
        // Non-QoS data, short and empty buffers.
        assert!(!qos_amsdu(&[0x08, 0x01, 0, 0]));
        assert!(!qos_amsdu(&f[..24]));
        assert!(!qos_amsdu(&[0x88]));
        assert!(!qos_amsdu(&[]));
    }
}
