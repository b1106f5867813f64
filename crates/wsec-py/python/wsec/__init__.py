"""wsec: IEEE 802.11 link security from Python, on wsec's Rust core.

- Per-MPDU protection (IEEE 802.11-2020 12.5): :class:`Key` for WEP, TKIP, CCMP-128/256,
  GCMP-128/256, BIP-CMAC/GMAC and Enhanced CCMP, one frame or a batch on the multi-buffer
  kernels; :class:`SecurityAssociation` adds PN allocation, replay checks (12.5.3.4.4) and
  fragments; :class:`ReplayCounters` the receive counters alone.
- The key hierarchy (12.7.1): :func:`psk`, :func:`derive_ptk`, :func:`pmkid`,
  :func:`derive_gtk`, :func:`msk_pmk`, the FT keys (:func:`ft_pmk_r0`, :func:`ft_pmk_r1`,
  :func:`ft_ptk`), SAE (:class:`Sae`, 12.4) and :func:`rsn_element`.
- EAPOL-Key (12.7.2): :class:`EapolKey`; the sans-IO 4-way and group key handshakes
  (12.7.6-7): :class:`Authenticator`, :class:`Supplicant`.
- Capture decryption: :func:`decrypt` iterates over a pcap/pcapng.
- :mod:`wsec.scapy`: the same on scapy ``Dot11`` packets.

Errors are :class:`WsecError` subclasses carrying the ``wsec`` command line's message.
docs/python.md in the repository is the guide.
"""
from ._wsec import (
    Authenticator,
    CaptureError,
    Decryption,
    EapolKey,
    Event,
    Frame,
    HandshakeOutput,
    IntegrityError,
    Key,
    KeyIdError,
    KeyLengthError,
    MalformedError,
    PnExhaustedError,
    Ptk,
    ReplayCounters,
    ReplayError,
    Sae,
    SecurityAssociation,
    Supplicant,
    TruncatedError,
    UnsupportedError,
    WsecError,
    backends,
    decrypt,
    default_backend,
    derive_gtk,
    derive_ptk,
    ft_pmk_r0,
    ft_pmk_r1,
    ft_ptk,
    msk_pmk,
    peek,
    pmkid,
    psk,
    rsn_element,
    suites,
)

__all__ = [
    "Authenticator",
    "CaptureError",
    "Decryption",
    "EapolKey",
    "Event",
    "Frame",
    "HandshakeOutput",
    "IntegrityError",
    "Key",
    "KeyIdError",
    "KeyLengthError",
    "MalformedError",
    "PnExhaustedError",
    "Ptk",
    "ReplayCounters",
    "ReplayError",
    "Sae",
    "SecurityAssociation",
    "Supplicant",
    "TruncatedError",
    "UnsupportedError",
    "WsecError",
    "backends",
    "decrypt",
    "default_backend",
    "derive_gtk",
    "derive_ptk",
    "ft_pmk_r0",
    "ft_pmk_r1",
    "ft_ptk",
    "msk_pmk",
    "peek",
    "pmkid",
    "psk",
    "rsn_element",
    "suites",
]
