"""Capture decryption from Python against tshark on a real capture (aircrack-ng's
wpa2-psk-linksys.cap, WPA2-PSK "dictionary" on SSID "linksys"): every frame tshark
decrypts, wsec decrypts to the same LLC type and IPv4 header fields."""
import ipaddress
import os
import subprocess
import tempfile

import wsec

CAP = "aircrack/wpa2-psk-linksys.cap"
KEYS = {"passphrases": [("linksys", "dictionary")]}


def header_len(mpdu: bytes) -> int:
    fc0, fc1 = mpdu[0], mpdu[1]
    n = 24
    if fc1 & 0x03 == 0x03:
        n += 6
    if fc0 & 0x80:
        n += 2
        if fc1 & 0x80:
            n += 4
    return n


def fields_of(mpdu: bytes):
    """(LLC/SNAP type, IPv4 src, dst, total length, id) of a plaintext data MPDU."""
    body = mpdu[header_len(mpdu):]
    assert body[:6] == b"\xaa\xaa\x03\x00\x00\x00", body[:8].hex()
    etype = int.from_bytes(body[6:8], "big")
    if etype != 0x0800:
        return (f"0x{etype:04x}", "", "", "", "")
    ip = body[8:]
    return ("0x0800", str(ipaddress.IPv4Address(ip[12:16])), str(ipaddress.IPv4Address(ip[16:20])),
            str(int.from_bytes(ip[2:4], "big")), f"0x{int.from_bytes(ip[4:6], 'big'):04x}")


def tshark_fields(tshark, path):
    with tempfile.TemporaryDirectory() as conf:
        out = subprocess.run(
            [tshark, "-n", "-r", str(path), "-o", "wlan.enable_decryption:TRUE",
             "-o", 'uat:80211_keys:"wpa-pwd","dictionary:linksys"', "-Y", "wlan.fc.protected == 1 && llc",
             "-T", "fields", "-e", "frame.number", "-e", "llc.type", "-e", "ip.src", "-e", "ip.dst", "-e", "ip.len",
             "-e", "ip.id"],
            capture_output=True, text=True, check=True, timeout=120, env={**os.environ, "WIRESHARK_CONFIG_DIR": conf})
    rows = {}
    for line in out.stdout.splitlines():
        f = line.split("\t")
        rows[int(f[0])] = tuple(f[1:6])
    return rows


def test_decrypt_matches_tshark(captures, tshark):
    path = captures / CAP
    peer = tshark_fields(tshark, path)
    assert len(peer) >= 20, "tshark decrypted too little to compare"
    d = wsec.decrypt(path, **KEYS)
    ours = {}
    statuses = {}
    for f in d:
        statuses[f.status] = statuses.get(f.status, 0) + 1
        if f.decrypted:  # decrypted, or a retransmission of a frame decrypted (duplicate)
            assert f.suite == "ccmp"
            ours[f.index] = fields_of(f.mpdu)
    for n, row in peer.items():
        assert n in ours, f"frame {n}: tshark decrypted it, wsec did not"
        assert ours[n] == row, f"frame {n}"
    assert set(ours) >= set(peer)
    st = d.stats()
    assert st["decrypted"]["ccmp"] + st["duplicates"] == len(ours) and st["handshakes_verified"] >= 1
    sessions = d.sessions()
    assert sessions and sessions[0]["cipher"] == "ccmp" and sessions[0]["source"] == "4-way handshake"
    assert statuses.get("unreadable", 0) == 0


def test_wrong_passphrase_decrypts_nothing(captures):
    d = wsec.decrypt(captures / CAP, passphrases=[("linksys", "not the passphrase")])
    frames = list(d)
    assert frames and not any(f.decrypted for f in frames)
    assert any(f.reason and "no given passphrase" in f.reason for f in frames)


def test_pmk_and_keys_file_decrypt_alike(captures, tmp_path):
    path = captures / CAP
    pmk = wsec.psk("dictionary", "linksys")
    by_pmk = [f.mpdu for f in wsec.decrypt(path, pmks=[pmk]) if f.decrypted]
    keys = tmp_path / "80211_keys"
    keys.write_text(f'"wpa-psk","{pmk.hex()}"\n')
    by_file = [f.mpdu for f in wsec.decrypt(path, keys_file=keys) if f.decrypted]
    by_pass = [f.mpdu for f in wsec.decrypt(path, **KEYS) if f.decrypted]
    assert by_pmk == by_file == by_pass and len(by_pass) >= 20
