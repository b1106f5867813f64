"""wsec.scapy: scapy Dot11 packets in and out."""
import random

from scapy.layers.dot11 import Dot11, Dot11FCS, Dot11QoS, RadioTap
from scapy.layers.l2 import LLC, SNAP
from scapy.layers.inet import IP, UDP
from scapy.packet import Raw

import wsec
import wsec.scapy as ws


def test_protect_unprotect_scapy_packets():
    key = wsec.Key("ccmp", bytes(range(16)))
    pkt = (Dot11(type=2, subtype=8, FCfield=0x01, addr1="02:00:00:00:01:00", addr2="02:00:00:00:02:00",
                 addr3="02:00:00:00:03:00", SC=0x120) / Dot11QoS(TID=5) / LLC() / SNAP() /
           IP(src="10.0.0.2", dst="10.0.0.1") / UDP(sport=1234, dport=5678) / Raw(b"x" * 100))
    prot = ws.protect(pkt, key, pn=42)
    assert prot.haslayer(Dot11) and prot.FCfield & 0x40
    assert bytes(prot) == key.protect(bytes(pkt), 42)
    # With a radiotap header and an FCS, as a monitor interface captures it.
    captured = RadioTap() / Dot11FCS(bytes(prot) + b"\x00\x00\x00\x00")
    plain = ws.unprotect(captured, key)
    assert bytes(plain) == bytes(pkt)
    assert plain[IP].dst == "10.0.0.1" and plain[UDP].dport == 5678


def test_decrypt_capture_into_scapy(captures):
    pkts = list(ws.decrypt(str(captures / "aircrack/wpa2-psk-linksys.cap"), passphrases=[("linksys", "dictionary")]))
    dec = [p for p in pkts if p.wsec.decrypted]
    assert len(dec) >= 20
    assert all(p.haslayer(LLC) for p in dec)
    assert any(p.haslayer(IP) and p[IP].src == "172.16.0.101" for p in dec)


def test_scapy_round_trip_is_byte_exact():
    """scapy re-serialises a parsed protected frame to the same octets (so a script can
    edit fields and hand the packet back)."""
    rng = random.Random(3)
    for suite, klen in (("ccmp", 16), ("gcmp-256", 32), ("tkip", 32), ("wep", 13)):
        key = wsec.Key(suite, rng.randbytes(klen))
        frame = bytes([0x08, 0x01]) + bytes(2) + rng.randbytes(18) + bytes(2) + rng.randbytes(64)
        prot = key.protect(frame, 7)
        assert bytes(Dot11(prot)) == prot
        assert bytes(ws.unprotect(Dot11(prot), key)) == frame
