"""wsec on scapy packets: protect and unprotect ``Dot11`` frames, decrypt captures into
scapy packets. scapy is an optional dependency (``pip install wsec[scapy]``).

A packet may come with a ``RadioTap`` header and an FCS (``Dot11FCS``): both are removed
before the crypto (an FCS is over the frame as sent, so it cannot survive protection), and
the result is a bare ``Dot11`` (prepend ``RadioTap()`` to inject it).
"""
from __future__ import annotations

from typing import Iterator, Optional

from scapy.layers.dot11 import Dot11, Dot11FCS, RadioTap

from . import _wsec

__all__ = ["mpdu_bytes", "protect", "unprotect", "decrypt"]


def mpdu_bytes(pkt) -> bytes:
    """The MPDU (MAC header + body, no FCS) of a scapy packet, or of bytes as they are."""
    if isinstance(pkt, (bytes, bytearray, memoryview)):
        return bytes(pkt)
    if pkt.haslayer(Dot11FCS):
        return bytes(pkt[Dot11FCS])[:-4]
    if pkt.haslayer(Dot11):
        return bytes(pkt[Dot11])
    raise _wsec.MalformedError("not an 802.11 packet: no Dot11 layer")


def protect(pkt, key: "_wsec.Key", pn: int, key_id: Optional[int] = None) -> Dot11:
    """The protected ``Dot11`` of a plaintext one (IEEE 802.11-2020 12.5), with PN ``pn``."""
    return Dot11(key.protect(mpdu_bytes(pkt), pn, key_id))


def unprotect(pkt, key: "_wsec.Key") -> Dot11:
    """The plaintext ``Dot11`` of a protected one; raises ``IntegrityError`` and the other
    ``WsecError`` subclasses as :meth:`wsec.Key.unprotect` does."""
    return Dot11(key.unprotect(mpdu_bytes(pkt)))


def decrypt(path: str, **keys) -> Iterator[Dot11]:
    """Every frame of a capture as a ``Dot11`` packet, decrypted where the keys allow
    (keyword arguments as :func:`wsec.decrypt`); the packet's ``wsec`` attribute is the
    :class:`wsec.Frame` (status, suite, reason, index). Unreadable records are skipped."""
    for f in _wsec.decrypt(path, **keys):
        if f.mpdu is None:
            continue
        p = Dot11(f.mpdu)
        p.wsec = f
        p.time = f.ts_ns / 1e9
        yield p
