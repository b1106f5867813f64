//! The cipher-suite table: one row per suite wsec knows, and every fact about a suite that
//! code outside the suite's own cipher module needs (as hostapd's `wpa_common.c` keeps
//! its cipher facts in one table).
//!
//! A row gives the selector (IEEE 802.11-2020 9.4.2.24.2, Table 9-149; wsec's Enhanced
//! CCMP under [`WSEC_CID`], docs/eccmp.md), the lengths that protection adds (12.5), the
//! temporal key length (12.7.2, Table 12-8), the AES key size, the names wsec, hostapd and
//! Wireshark give the suite, what the suite may be negotiated as, and its place in each
//! default list. Configuration parsing, the control interface, RSNE parsing and emission,
//! negotiation, capture decryption and the model read these rows; adding a suite is adding
//! a row here (and its variant), its cipher module and its kernel.

/// Cipher suites of 802.11-2020 Table 9-149 (OUI 00-0F-AC), WEP, and wsec's Enhanced CCMP
/// (vendor-specific selectors, see [`CipherSuite::selector`]). The variants are in the
/// order of [`SUITES`], whose row `i` describes the variant with discriminant `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CipherSuite {
    Wep40,
    Wep104,
    Tkip,
    Ccmp128,
    Ccmp256,
    Gcmp128,
    Gcmp256,
    BipCmac128,
    BipCmac256,
    BipGmac128,
    BipGmac256,
    /// Enhanced CCMP with 2, 4 or 8 MIC lanes (docs/eccmp.md); AES-128, 8-octet MIC.
    Eccmp2,
    Eccmp4,
    Eccmp8,
}

/// OUI of the IEEE 802.11 cipher and AKM suites (9.4.2.24.2).
pub const RSN_OUI: [u8; 3] = [0x00, 0x0f, 0xac];

/// The unregistered, locally administered CID under which wsec's ECCMP suites are selected
/// (docs/eccmp.md "Suite selectors").
pub const WSEC_CID: [u8; 3] = [0x0a, 0x57, 0x53];

/// The algorithm of a suite: suites of one algorithm differ only in key and MIC size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// RC4 with a CRC-32 ICV (12.5.1).
    Wep,
    /// RC4 per-packet keys, Michael MIC and ICV (12.5.2).
    Tkip,
    /// AES-CCM (12.5.3).
    Ccm,
    /// AES-GCM (12.5.5).
    Gcm,
    /// AES-CMAC over management frames (12.5.4).
    Cmac,
    /// AES-GMAC over management frames (12.5.6).
    Gmac,
    /// wsec's Enhanced CCMP with this many MIC lanes (docs/eccmp.md).
    Eccm { lanes: u8 },
}

/// What a suite may be negotiated as in an RSNE (9.4.2.24.1, 12.6.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Uses {
    /// A Pairwise Cipher Suite.
    pub pairwise: bool,
    /// The Group Data Cipher Suite.
    pub group: bool,
    /// The Group Management Cipher Suite (management frame protection, 12.6.3).
    pub group_mgmt: bool,
}

impl Uses {
    /// Not negotiable in an RSNA (WEP: pre-RSNA only).
    pub const NONE: Uses = Uses { pairwise: false, group: false, group_mgmt: false };
    /// A data suite: pairwise or group.
    pub const DATA: Uses = Uses { pairwise: true, group: true, group_mgmt: false };
    /// Pairwise only (wsec's Enhanced CCMP: the group cipher stays a standard one).
    pub const PAIRWISE: Uses = Uses { pairwise: true, group: false, group_mgmt: false };
    /// Group management only (BIP).
    pub const GROUP_MGMT: Uses = Uses { pairwise: false, group: false, group_mgmt: true };
}

/// The default suite lists. Each row holds its position in each list ([`Defaults`]);
/// [`CipherSuite::default_list`] puts a list together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DefaultList {
    /// An AP's `rsn_pairwise` when neither it nor `wpa_pairwise` is set (hostapd: CCMP).
    ApRsnPairwise,
    /// An AP's WPA1 `wpa_pairwise` when not set (hostapd: TKIP).
    ApWpaPairwise,
    /// A STA's `pairwise` when not set: wpa_supplicant's "CCMP TKIP" with the GCMP and
    /// 256-bit suites as well, in order of preference.
    StaPairwise,
    /// A STA's `group` when not set, in order of preference.
    StaGroup,
    /// The pairwise list of a STA's RSN preferences (`rsn::ie::Prefs::wpa2_personal`).
    PrefsPairwise,
    /// The group data list of a STA's RSN preferences.
    PrefsGroup,
    /// The group management list of a STA's RSN preferences.
    PrefsGroupMgmt,
}

impl DefaultList {
    pub const ALL: [DefaultList; 7] = [
        DefaultList::ApRsnPairwise,
        DefaultList::ApWpaPairwise,
        DefaultList::StaPairwise,
        DefaultList::StaGroup,
        DefaultList::PrefsPairwise,
        DefaultList::PrefsGroup,
        DefaultList::PrefsGroupMgmt,
    ];

    /// True when a suite of these uses may be a member of this list.
    pub fn admits(self, u: Uses) -> bool {
        match self {
            DefaultList::ApRsnPairwise | DefaultList::ApWpaPairwise | DefaultList::StaPairwise | DefaultList::PrefsPairwise => u.pairwise,
            DefaultList::StaGroup | DefaultList::PrefsGroup => u.group,
            DefaultList::PrefsGroupMgmt => u.group_mgmt,
        }
    }
}

/// A suite's position (0 = first) in each default list it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Defaults {
    pub ap_rsn_pairwise: Option<u8>,
    pub ap_wpa_pairwise: Option<u8>,
    pub sta_pairwise: Option<u8>,
    pub sta_group: Option<u8>,
    pub prefs_pairwise: Option<u8>,
    pub prefs_group: Option<u8>,
    pub prefs_group_mgmt: Option<u8>,
}

impl Defaults {
    /// In no default list.
    pub const NONE: Defaults = Defaults {
        ap_rsn_pairwise: None,
        ap_wpa_pairwise: None,
        sta_pairwise: None,
        sta_group: None,
        prefs_pairwise: None,
        prefs_group: None,
        prefs_group_mgmt: None,
    };

    /// The position in `list`, if the suite is in it.
    pub fn position(&self, list: DefaultList) -> Option<u8> {
        match list {
            DefaultList::ApRsnPairwise => self.ap_rsn_pairwise,
            DefaultList::ApWpaPairwise => self.ap_wpa_pairwise,
            DefaultList::StaPairwise => self.sta_pairwise,
            DefaultList::StaGroup => self.sta_group,
            DefaultList::PrefsPairwise => self.prefs_pairwise,
            DefaultList::PrefsGroup => self.prefs_group,
            DefaultList::PrefsGroupMgmt => self.prefs_group_mgmt,
        }
    }
}

/// One row of [`SUITES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SuiteRow {
    pub suite: CipherSuite,
    /// Selector OUI (or CID) and suite type (9.4.2.24.2).
    pub oui: [u8; 3],
    pub suite_type: u8,
    /// The suite also has a WPA1 selector: the same suite type under 00-50-F2 (WPA 1.0).
    pub wpa1: bool,
    pub algorithm: Algorithm,
    /// AES key size in bits; None for the RC4 suites.
    pub aes_bits: Option<u16>,
    /// Temporal key length in octets (12.7.2, Table 12-8); TKIP's is the TK and both
    /// Michael keys.
    pub key_len: usize,
    /// Security header octets before the body: IV/Key ID (WEP), IV/Ext IV (TKIP), the
    /// CCMP/GCMP header; for BIP the MME without its MIC (9.4.2.54).
    pub header_len: usize,
    /// Octets of the packet number in that header (PN, TSC, IPN; WEP's IV).
    pub pn_len: usize,
    /// MIC octets after the body (TKIP: Michael); for BIP the MME's MIC.
    pub mic_len: usize,
    /// ICV octets after the MIC (WEP, TKIP).
    pub icv_len: usize,
    pub uses: Uses,
    /// wsec's name (command line, model files, cost files); hostapd's spelling in lower case
    /// where it has one.
    pub name: &'static str,
    /// Other spellings wsec accepts for it (case-insensitive, as `name`).
    pub aliases: &'static [&'static str],
    /// hostapd.conf / wpa_supplicant.conf spellings (`wpa_pairwise`, `rsn_pairwise`,
    /// `pairwise`, `group_cipher`, `group`, `group_mgmt_cipher`), hostapd's first; wsec's
    /// own suites under wsec's names.
    pub hostapd_conf: &'static [&'static str],
    /// hostapd's and wpa_supplicant's name on their control interfaces (`wpa_cipher_txt`).
    pub hostapd_txt: &'static str,
    /// Wireshark's name of the suite type (`wlan.rsn.pcs.type`); None for vendor suites.
    pub wireshark: Option<&'static str>,
    pub defaults: Defaults,
}

const NO_NAMES: &[&str] = &[];

/// The table, in the order of [`CipherSuite`]'s variants; within a key length the data
/// suites are in the order a key of unknown suite is tried ([`CipherSuite::by_key_len`]).
pub static SUITES: [SuiteRow; 14] = [
    SuiteRow {
        suite: CipherSuite::Wep40,
        oui: RSN_OUI,
        suite_type: 1,
        wpa1: true,
        algorithm: Algorithm::Wep,
        aes_bits: None,
        key_len: 5,
        header_len: 4,
        pn_len: 3,
        mic_len: 0,
        icv_len: 4,
        uses: Uses::NONE,
        name: "wep-40",
        aliases: &["wep40"],
        hostapd_conf: &["WEP40"],
        hostapd_txt: "WEP-40",
        wireshark: Some("WEP (40-bit)"),
        defaults: Defaults::NONE,
    },
    SuiteRow {
        suite: CipherSuite::Wep104,
        oui: RSN_OUI,
        suite_type: 5,
        wpa1: true,
        algorithm: Algorithm::Wep,
        aes_bits: None,
        key_len: 13,
        header_len: 4,
        pn_len: 3,
        mic_len: 0,
        icv_len: 4,
        uses: Uses::NONE,
        name: "wep-104",
        aliases: &["wep104"],
        hostapd_conf: &["WEP104"],
        hostapd_txt: "WEP-104",
        wireshark: Some("WEP (104-bit)"),
        defaults: Defaults::NONE,
    },
    SuiteRow {
        suite: CipherSuite::Tkip,
        oui: RSN_OUI,
        suite_type: 2,
        wpa1: true,
        algorithm: Algorithm::Tkip,
        aes_bits: None,
        key_len: 32,
        header_len: 8,
        pn_len: 6,
        mic_len: 8,
        icv_len: 4,
        uses: Uses::DATA,
        name: "tkip",
        aliases: NO_NAMES,
        hostapd_conf: &["TKIP"],
        hostapd_txt: "TKIP",
        wireshark: Some("TKIP"),
        defaults: Defaults { ap_wpa_pairwise: Some(0), sta_pairwise: Some(4), sta_group: Some(4), prefs_group: Some(4), ..Defaults::NONE },
    },
    SuiteRow {
        suite: CipherSuite::Ccmp128,
        oui: RSN_OUI,
        suite_type: 4,
        wpa1: true,
        algorithm: Algorithm::Ccm,
        aes_bits: Some(128),
        key_len: 16,
        header_len: 8,
        pn_len: 6,
        mic_len: 8,
        icv_len: 0,
        uses: Uses::DATA,
        name: "ccmp",
        aliases: &["ccmp-128"],
        hostapd_conf: &["CCMP"],
        hostapd_txt: "CCMP",
        wireshark: Some("AES (CCM)"),
        defaults: Defaults {
            ap_rsn_pairwise: Some(0),
            sta_pairwise: Some(0),
            sta_group: Some(0),
            prefs_pairwise: Some(2),
            prefs_group: Some(2),
            ..Defaults::NONE
        },
    },
    SuiteRow {
        suite: CipherSuite::Ccmp256,
        oui: RSN_OUI,
        suite_type: 10,
        wpa1: false,
        algorithm: Algorithm::Ccm,
        aes_bits: Some(256),
        key_len: 32,
        header_len: 8,
        pn_len: 6,
        mic_len: 16,
        icv_len: 0,
        uses: Uses::DATA,
        name: "ccmp-256",
        aliases: NO_NAMES,
        hostapd_conf: &["CCMP-256"],
        hostapd_txt: "CCMP-256",
        wireshark: Some("CCMP (256)"),
        defaults: Defaults { sta_pairwise: Some(2), sta_group: Some(1), prefs_pairwise: Some(0), prefs_group: Some(0), ..Defaults::NONE },
    },
    SuiteRow {
        suite: CipherSuite::Gcmp128,
        oui: RSN_OUI,
        suite_type: 8,
        wpa1: false,
        algorithm: Algorithm::Gcm,
        aes_bits: Some(128),
        key_len: 16,
        header_len: 8,
        pn_len: 6,
        mic_len: 16,
        icv_len: 0,
        uses: Uses::DATA,
        name: "gcmp",
        aliases: &["gcmp-128"],
        hostapd_conf: &["GCMP"],
        hostapd_txt: "GCMP",
        wireshark: Some("GCMP (128)"),
        defaults: Defaults { sta_pairwise: Some(1), sta_group: Some(2), prefs_pairwise: Some(3), prefs_group: Some(3), ..Defaults::NONE },
    },
    SuiteRow {
        suite: CipherSuite::Gcmp256,
        oui: RSN_OUI,
        suite_type: 9,
        wpa1: false,
        algorithm: Algorithm::Gcm,
        aes_bits: Some(256),
        key_len: 32,
        header_len: 8,
        pn_len: 6,
        mic_len: 16,
        icv_len: 0,
        uses: Uses::DATA,
        name: "gcmp-256",
        aliases: NO_NAMES,
        hostapd_conf: &["GCMP-256"],
        hostapd_txt: "GCMP-256",
        wireshark: Some("GCMP (256)"),
        defaults: Defaults { sta_pairwise: Some(3), sta_group: Some(3), prefs_pairwise: Some(1), prefs_group: Some(1), ..Defaults::NONE },
    },
    SuiteRow {
        suite: CipherSuite::BipCmac128,
        oui: RSN_OUI,
        suite_type: 6,
        wpa1: false,
        algorithm: Algorithm::Cmac,
        aes_bits: Some(128),
        key_len: 16,
        header_len: 10,
        pn_len: 6,
        mic_len: 8,
        icv_len: 0,
        uses: Uses::GROUP_MGMT,
        name: "bip-cmac",
        aliases: &["bip-cmac-128", "aes-128-cmac"],
        hostapd_conf: &["AES-128-CMAC", "BIP-CMAC-128"],
        hostapd_txt: "BIP",
        wireshark: Some("BIP (128)"),
        defaults: Defaults { prefs_group_mgmt: Some(0), ..Defaults::NONE },
    },
    SuiteRow {
        suite: CipherSuite::BipCmac256,
        oui: RSN_OUI,
        suite_type: 13,
        wpa1: false,
        algorithm: Algorithm::Cmac,
        aes_bits: Some(256),
        key_len: 32,
        header_len: 10,
        pn_len: 6,
        mic_len: 16,
        icv_len: 0,
        uses: Uses::GROUP_MGMT,
        name: "bip-cmac-256",
        aliases: NO_NAMES,
        hostapd_conf: &["BIP-CMAC-256"],
        hostapd_txt: "BIP-CMAC-256",
        wireshark: Some("BIP (CMAC-256)"),
        defaults: Defaults { prefs_group_mgmt: Some(3), ..Defaults::NONE },
    },
    SuiteRow {
        suite: CipherSuite::BipGmac128,
        oui: RSN_OUI,
        suite_type: 11,
        wpa1: false,
        algorithm: Algorithm::Gmac,
        aes_bits: Some(128),
        key_len: 16,
        header_len: 10,
        pn_len: 6,
        mic_len: 16,
        icv_len: 0,
        uses: Uses::GROUP_MGMT,
        name: "bip-gmac",
        aliases: &["bip-gmac-128"],
        hostapd_conf: &["BIP-GMAC-128"],
        hostapd_txt: "BIP-GMAC-128",
        wireshark: Some("BIP (GMAC-128)"),
        defaults: Defaults { prefs_group_mgmt: Some(1), ..Defaults::NONE },
    },
    SuiteRow {
        suite: CipherSuite::BipGmac256,
        oui: RSN_OUI,
        suite_type: 12,
        wpa1: false,
        algorithm: Algorithm::Gmac,
        aes_bits: Some(256),
        key_len: 32,
        header_len: 10,
        pn_len: 6,
        mic_len: 16,
        icv_len: 0,
        uses: Uses::GROUP_MGMT,
        name: "bip-gmac-256",
        aliases: NO_NAMES,
        hostapd_conf: &["BIP-GMAC-256"],
        hostapd_txt: "BIP-GMAC-256",
        wireshark: Some("BIP (GMAC-256)"),
        defaults: Defaults { prefs_group_mgmt: Some(2), ..Defaults::NONE },
    },
    SuiteRow {
        suite: CipherSuite::Eccmp2,
        oui: WSEC_CID,
        suite_type: 2,
        wpa1: false,
        algorithm: Algorithm::Eccm { lanes: 2 },
        aes_bits: Some(128),
        key_len: 16,
        header_len: 8,
        pn_len: 6,
        mic_len: 8,
        icv_len: 0,
        uses: Uses::PAIRWISE,
        name: "eccmp-2",
        aliases: NO_NAMES,
        hostapd_conf: &["ECCMP-2"],
        hostapd_txt: "ECCMP-2",
        wireshark: None,
        defaults: Defaults::NONE,
    },
    SuiteRow {
        suite: CipherSuite::Eccmp4,
        oui: WSEC_CID,
        suite_type: 4,
        wpa1: false,
        algorithm: Algorithm::Eccm { lanes: 4 },
        aes_bits: Some(128),
        key_len: 16,
        header_len: 8,
        pn_len: 6,
        mic_len: 8,
        icv_len: 0,
        uses: Uses::PAIRWISE,
        name: "eccmp-4",
        aliases: NO_NAMES,
        hostapd_conf: &["ECCMP-4"],
        hostapd_txt: "ECCMP-4",
        wireshark: None,
        defaults: Defaults::NONE,
    },
    SuiteRow {
        suite: CipherSuite::Eccmp8,
        oui: WSEC_CID,
        suite_type: 8,
        wpa1: false,
        algorithm: Algorithm::Eccm { lanes: 8 },
        aes_bits: Some(128),
        key_len: 16,
        header_len: 8,
        pn_len: 6,
        mic_len: 8,
        icv_len: 0,
        uses: Uses::PAIRWISE,
        name: "eccmp-8",
        aliases: NO_NAMES,
        hostapd_conf: &["ECCMP-8"],
        hostapd_txt: "ECCMP-8",
        wireshark: None,
        defaults: Defaults::NONE,
    },
];

impl CipherSuite {
    /// Every suite, in table order.
    pub const ALL: [CipherSuite; 14] = [
        CipherSuite::Wep40,
        CipherSuite::Wep104,
        CipherSuite::Tkip,
        CipherSuite::Ccmp128,
        CipherSuite::Ccmp256,
        CipherSuite::Gcmp128,
        CipherSuite::Gcmp256,
        CipherSuite::BipCmac128,
        CipherSuite::BipCmac256,
        CipherSuite::BipGmac128,
        CipherSuite::BipGmac256,
        CipherSuite::Eccmp2,
        CipherSuite::Eccmp4,
        CipherSuite::Eccmp8,
    ];

    /// The suite's row of [`SUITES`].
    pub fn row(self) -> &'static SuiteRow {
        &SUITES[self as usize]
    }

    /// Suite type: in the 00-0F-AC OUI (Table 9-149), or for ECCMP the lane count under
    /// [`WSEC_CID`]. Use [`CipherSuite::selector`] for the OUI that goes with it.
    pub fn suite_type(self) -> u8 {
        self.row().suite_type
    }

    /// OUI (or CID) and suite type of the selector (9.4.2.24.2).
    pub fn selector(self) -> ([u8; 3], u8) {
        (self.row().oui, self.row().suite_type)
    }

    /// The suite a selector names, if wsec knows it (the RSN OUI's suites and ECCMP).
    pub fn from_selector(oui: [u8; 3], suite_type: u8) -> Option<CipherSuite> {
        SUITES.iter().find(|r| (r.oui, r.suite_type) == (oui, suite_type)).map(|r| r.suite)
    }

    /// The suite a WPA1 selector (00-50-F2) of this type names: WEP-40 (1), TKIP (2),
    /// CCMP (4), WEP-104 (5).
    pub fn from_wpa1_type(suite_type: u8) -> Option<CipherSuite> {
        SUITES.iter().find(|r| r.wpa1 && r.suite_type == suite_type).map(|r| r.suite)
    }

    /// True when the suite has a WPA1 selector.
    pub fn has_wpa1_selector(self) -> bool {
        self.row().wpa1
    }

    /// True for the WPA1 data ciphers (a WPA1 selector and a data use: TKIP, CCMP).
    pub fn wpa1_usable(self) -> bool {
        self.row().wpa1 && (self.row().uses.pairwise || self.row().uses.group)
    }

    /// True for the suites of the IEEE 802.11 OUI (not a vendor's).
    pub fn is_standard(self) -> bool {
        self.row().oui == RSN_OUI
    }

    pub fn algorithm(self) -> Algorithm {
        self.row().algorithm
    }

    pub fn uses(self) -> Uses {
        self.row().uses
    }

    /// MIC lanes of an Enhanced CCMP suite, None for the others.
    pub fn eccmp_lanes(self) -> Option<usize> {
        match self.row().algorithm {
            Algorithm::Eccm { lanes } => Some(lanes as usize),
            _ => None,
        }
    }

    /// The Enhanced CCMP suite with `lanes` MIC lanes (2, 4 or 8).
    pub fn eccmp(lanes: usize) -> Option<CipherSuite> {
        CipherSuite::ALL.iter().copied().find(|s| s.eccmp_lanes() == Some(lanes))
    }

    /// The name used on wsec's command line (hostapd's names where it has them).
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// hostapd's and wpa_supplicant's control-interface name (`wpa_cipher_txt`).
    pub fn hostapd_txt(self) -> &'static str {
        self.row().hostapd_txt
    }

    /// hostapd's configuration-file name of the suite.
    pub fn hostapd_conf_name(self) -> &'static str {
        self.row().hostapd_conf[0]
    }

    /// The suite a hostapd.conf / wpa_supplicant.conf cipher name (exact case) names.
    pub fn from_hostapd_conf(name: &str) -> Option<CipherSuite> {
        SUITES.iter().find(|r| r.hostapd_conf.contains(&name)).map(|r| r.suite)
    }

    /// Wireshark's name of the suite type; None for vendor suites.
    pub fn wireshark_name(self) -> Option<&'static str> {
        self.row().wireshark
    }

    /// Temporal key length in octets (12.7.2, Table 12-8).
    pub fn key_len(self) -> usize {
        self.row().key_len
    }

    /// AES key size in bits; None for WEP and TKIP.
    pub fn aes_bits(self) -> Option<u16> {
        self.row().aes_bits
    }

    /// MIC octets (TKIP: Michael; BIP: the MME's MIC).
    pub fn mic_len(self) -> usize {
        self.row().mic_len
    }

    /// Octets the protection adds to an MPDU: security header + MIC + ICV (for BIP, the MME).
    pub fn overhead(self) -> usize {
        let r = self.row();
        r.header_len + r.mic_len + r.icv_len
    }

    /// True for the group management suites (BIP), which add an MME instead of encrypting.
    pub fn is_bip(self) -> bool {
        self.row().uses.group_mgmt
    }

    /// True for the suites that may be a Pairwise Cipher Suite.
    pub fn is_pairwise(self) -> bool {
        self.row().uses.pairwise
    }

    /// True for the suites that may be the Group Data Cipher Suite.
    pub fn is_group(self) -> bool {
        self.row().uses.group
    }

    /// The suite of `algorithm` whose key has `key_len` octets (e.g. WEP-40 or WEP-104 by
    /// the key, CCMP-128 or CCMP-256).
    pub fn by_algorithm(algorithm: Algorithm, key_len: usize) -> Option<CipherSuite> {
        SUITES.iter().find(|r| r.algorithm == algorithm && r.key_len == key_len).map(|r| r.suite)
    }

    /// The standard data suites (pairwise or group) whose temporal key has `key_len`
    /// octets, in table order: the candidates for a key whose suite is not known.
    pub fn by_key_len(key_len: usize) -> impl Iterator<Item = CipherSuite> {
        SUITES.iter().filter(move |r| r.oui == RSN_OUI && (r.uses.pairwise || r.uses.group) && r.key_len == key_len).map(|r| r.suite)
    }

    /// A default suite list, in order of preference.
    pub fn default_list(list: DefaultList) -> Vec<CipherSuite> {
        let mut v: Vec<(u8, CipherSuite)> = SUITES.iter().filter_map(|r| r.defaults.position(list).map(|p| (p, r.suite))).collect();
        v.sort_by_key(|&(p, _)| p);
        v.into_iter().map(|(_, s)| s).collect()
    }

    /// The suites of the table that `keep` selects, in table order.
    pub fn filtered(keep: impl Fn(CipherSuite) -> bool) -> impl Iterator<Item = CipherSuite> {
        CipherSuite::ALL.into_iter().filter(move |&s| keep(s))
    }
}

impl core::fmt::Display for CipherSuite {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that no row of [`SUITES`] has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UnknownSuite;

impl core::fmt::Display for UnknownSuite {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("unknown cipher suite name")
    }
}

impl std::error::Error for UnknownSuite {}

impl core::str::FromStr for CipherSuite {
    type Err = UnknownSuite;
    /// wsec's name or one of its aliases, in any case.
    fn from_str(s: &str) -> Result<CipherSuite, UnknownSuite> {
        let s = s.to_ascii_lowercase();
        SUITES.iter().find(|r| r.name == s || r.aliases.contains(&s.as_str())).map(|r| r.suite).ok_or(UnknownSuite)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn rows_are_in_variant_order() {
        assert_eq!(SUITES.len(), CipherSuite::ALL.len());
        for (i, (r, s)) in SUITES.iter().zip(CipherSuite::ALL).enumerate() {
            assert_eq!(r.suite, s, "row {i}");
            assert_eq!(s as usize, i, "{s:?}");
        }
    }

    #[test]
    fn selectors_round_trip_and_are_unique() {
        let mut seen = HashSet::new();
        for s in CipherSuite::ALL {
            let (oui, t) = s.selector();
            assert!(seen.insert((oui, t)), "{s}: selector used twice");
            assert_eq!(CipherSuite::from_selector(oui, t), Some(s));
            assert!(oui == RSN_OUI || oui == WSEC_CID, "{s}: unknown OUI");
            // 0 (use group cipher) and 7 (group addressed traffic not allowed) name no cipher.
            assert!(oui != RSN_OUI || !matches!(t, 0 | 7), "{s}: reserved suite type");
            if s.has_wpa1_selector() {
                assert!(s.is_standard(), "{s}: WPA1 selectors exist for IEEE 802.11 suites only");
                assert_eq!(CipherSuite::from_wpa1_type(t), Some(s));
            }
        }
        assert_eq!(CipherSuite::from_selector(RSN_OUI, 0), None);
        assert_eq!(CipherSuite::from_wpa1_type(8), None);
    }

    #[test]
    fn names_are_unique_and_parse_back() {
        let mut wsec = HashSet::new();
        let mut conf = HashSet::new();
        let mut txt = HashSet::new();
        let mut wireshark = HashSet::new();
        for r in &SUITES {
            let s = r.suite;
            for n in std::iter::once(&r.name).chain(r.aliases) {
                assert_eq!(n.to_ascii_lowercase(), *n, "{s:?}: wsec names are lower case");
                assert!(wsec.insert(*n), "{n} names two suites");
                assert_eq!(n.parse::<CipherSuite>(), Ok(s));
                assert_eq!(n.to_ascii_uppercase().parse::<CipherSuite>(), Ok(s));
            }
            assert!(!r.hostapd_conf.is_empty(), "{s:?}: no hostapd name");
            for n in r.hostapd_conf {
                assert!(conf.insert(*n), "{n} names two suites in hostapd.conf");
                assert_eq!(CipherSuite::from_hostapd_conf(n), Some(s));
            }
            assert!(txt.insert(r.hostapd_txt), "{}: two suites", r.hostapd_txt);
            assert_eq!(r.wireshark.is_none(), !s.is_standard(), "{s:?}: Wireshark names the IEEE 802.11 suites only");
            if let Some(w) = r.wireshark {
                assert!(wireshark.insert(w), "{w}: two suites");
            }
            assert_eq!(s.to_string(), r.name);
        }
        assert_eq!("idea".parse::<CipherSuite>(), Err(UnknownSuite));
        assert_eq!(CipherSuite::from_hostapd_conf("ccmp"), None, "hostapd.conf names are case-sensitive");
    }

    #[test]
    fn lengths_fit_the_algorithm() {
        for r in &SUITES {
            let s = r.suite;
            match r.algorithm {
                Algorithm::Wep => {
                    assert!(r.key_len == 5 || r.key_len == 13, "{s}");
                    assert_eq!((r.header_len, r.pn_len, r.mic_len, r.icv_len, r.aes_bits), (4, 3, 0, 4, None), "{s}");
                }
                Algorithm::Tkip => {
                    // TK (16) || Michael Authenticator->Supplicant (8) || Supplicant->Authenticator (8).
                    assert_eq!((r.key_len, r.header_len, r.pn_len, r.mic_len, r.icv_len, r.aes_bits), (32, 8, 6, 8, 4, None), "{s}");
                }
                Algorithm::Ccm | Algorithm::Gcm | Algorithm::Eccm { .. } => {
                    assert_eq!((r.header_len, r.pn_len, r.icv_len), (8, 6, 0), "{s}");
                    // CCMP-128 and ECCMP: 8-octet MIC; CCMP-256 and GCMP: 16 (12.5.3.1, 12.5.5.1).
                    let mic = if r.algorithm == Algorithm::Gcm || r.key_len == 32 { 16 } else { 8 };
                    assert_eq!(r.mic_len, mic, "{s}");
                }
                Algorithm::Cmac | Algorithm::Gmac => {
                    // MME: Element ID, Length, Key ID (2), IPN (6), then the MIC (9.4.2.54).
                    assert_eq!((r.header_len, r.pn_len, r.icv_len), (10, 6, 0), "{s}");
                    let mic = if r.algorithm == Algorithm::Gmac || r.key_len == 32 { 16 } else { 8 };
                    assert_eq!(r.mic_len, mic, "{s}");
                }
            }
            if let Some(bits) = r.aes_bits {
                assert_eq!(bits as usize / 8, r.key_len, "{s}: the TK is the AES key");
            }
            if let Algorithm::Eccm { lanes } = r.algorithm {
                assert_eq!((r.oui, r.suite_type as usize), (WSEC_CID, lanes as usize), "{s}: ECCMP's suite type is its lane count");
                assert_eq!(CipherSuite::eccmp(lanes as usize), Some(s));
            }
            assert_eq!(CipherSuite::by_algorithm(r.algorithm, r.key_len), Some(s), "{s}: one suite per algorithm and key length");
        }
        assert_eq!(CipherSuite::eccmp(1), None);
    }

    #[test]
    fn uses_fit_the_algorithm() {
        for r in &SUITES {
            let (s, u) = (r.suite, r.uses);
            let mgmt = matches!(r.algorithm, Algorithm::Cmac | Algorithm::Gmac);
            assert_eq!(u.group_mgmt, mgmt, "{s}: BIP and only BIP protects management frames");
            assert!(!(u.group_mgmt && (u.pairwise || u.group)), "{s}: BIP protects no data");
            if matches!(r.algorithm, Algorithm::Eccm { .. }) {
                assert_eq!(u, Uses::PAIRWISE, "{s}: ECCMP is pairwise only");
            }
            if r.algorithm == Algorithm::Wep {
                assert_eq!(u, Uses::NONE, "{s}: WEP is not negotiated in an RSNA");
            }
            assert_eq!(s.is_bip(), u.group_mgmt);
        }
        let wpa1: Vec<_> = CipherSuite::filtered(CipherSuite::wpa1_usable).collect();
        assert_eq!(wpa1, [CipherSuite::Tkip, CipherSuite::Ccmp128]);
    }

    #[test]
    fn default_lists_are_ordered_and_fit_their_use() {
        for list in DefaultList::ALL {
            let mut pos: Vec<u8> = SUITES.iter().filter_map(|r| r.defaults.position(list)).collect();
            pos.sort();
            assert_eq!(pos, (0..pos.len() as u8).collect::<Vec<_>>(), "{list:?}: positions 0, 1, ... once each");
            let v = CipherSuite::default_list(list);
            assert!(!v.is_empty(), "{list:?}");
            for s in v {
                assert!(list.admits(s.uses()), "{list:?}: {s} cannot be used there");
            }
        }
        assert_eq!(CipherSuite::default_list(DefaultList::ApWpaPairwise), [CipherSuite::Tkip]);
        assert!(CipherSuite::default_list(DefaultList::ApWpaPairwise).iter().all(|s| s.wpa1_usable()));
    }

    #[test]
    fn key_length_inference() {
        use CipherSuite as C;
        assert_eq!(C::by_key_len(16).collect::<Vec<_>>(), [C::Ccmp128, C::Gcmp128]);
        assert_eq!(C::by_key_len(32).collect::<Vec<_>>(), [C::Tkip, C::Ccmp256, C::Gcmp256]);
        assert_eq!(C::by_key_len(5).count(), 0);
        assert_eq!(C::by_algorithm(Algorithm::Wep, 5), Some(C::Wep40));
        assert_eq!(C::by_algorithm(Algorithm::Wep, 13), Some(C::Wep104));
        assert_eq!(C::by_algorithm(Algorithm::Ccm, 32), Some(C::Ccmp256));
        assert_eq!(C::by_algorithm(Algorithm::Wep, 16), None);
    }
}
