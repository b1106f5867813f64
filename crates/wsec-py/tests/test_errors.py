"""Every error path with bad input: a Python exception of the right class with a clear
message, never a crash, and no secret in the message."""
import pytest

import wsec

FRAME = bytes.fromhex("88010000") + bytes(18) + bytes(4) + b"payload"
KEY = bytes(range(16))


def test_wrong_key_lengths():
    with pytest.raises(wsec.KeyLengthError, match="ccmp needs a 16-octet key, got 15"):
        wsec.Key("ccmp", KEY[:15])
    with pytest.raises(wsec.KeyLengthError, match="tkip needs a 32-octet key, got 16"):
        wsec.Key("tkip", KEY)
    with pytest.raises(wsec.KeyLengthError, match="the PMK of psk is 32 octets, got 31"):
        wsec.derive_ptk("psk", bytes(31), "02:00:00:00:00:01", "02:00:00:00:00:02", bytes(32), bytes(32))
    with pytest.raises(wsec.KeyLengthError):
        wsec.Authenticator("psk", bytes(16), "02:00:00:00:00:01", "02:00:00:00:00:02", b"", b"")
    with pytest.raises(wsec.KeyLengthError, match="an MSK is 64-128 octets, got 10"):
        wsec.msk_pmk("wpa-eap", bytes(10))
    sa = wsec.SecurityAssociation()
    with pytest.raises(wsec.KeyLengthError):
        sa.install("pairwise", 0, "gcmp-256", KEY)


def test_secrets_are_not_echoed():
    secret = bytes.fromhex("deadbeefcafe")
    with pytest.raises(wsec.KeyLengthError) as e:
        wsec.Key("ccmp", secret)
    assert "dead" not in str(e.value) and "cafe" not in str(e.value)
    with pytest.raises(wsec.WsecError) as e:
        wsec.psk("short", "ssid")
    assert "short" not in str(e.value)


def test_truncated_and_malformed_frames():
    k = wsec.Key("ccmp", KEY)
    good = k.protect(FRAME, 1)
    for n in (0, 1, 10, 23, 25, 33):
        with pytest.raises((wsec.TruncatedError, wsec.MalformedError)):
            k.unprotect(good[:n])
    with pytest.raises(wsec.MalformedError, match="Protected Frame bit is not set"):
        k.unprotect(FRAME)
    with pytest.raises(wsec.MalformedError, match="already set"):
        k.protect(good, 2)
    with pytest.raises(wsec.IntegrityError, match="MIC failure"):
        wsec.Key("ccmp", bytes(16)).unprotect(good)
    with pytest.raises(wsec.WsecError, match="above the 48-bit maximum"):
        k.protect(FRAME, 1 << 48)
    with pytest.raises(OverflowError):
        k.protect(FRAME, -1)
    with pytest.raises(wsec.TruncatedError):
        wsec.peek(b"\x88")
    # Every prefix of a good frame is refused with a wsec error, for every suite.
    for suite, key in (("tkip", bytes(32)), ("wep", bytes(5)), ("gcmp", KEY), ("bip-cmac", KEY), ("eccmp-8", KEY)):
        kk = wsec.Key(suite, key)
        frame = FRAME if not suite.startswith("bip") else bytes([0xC0, 0, 0, 0]) + b"\xff" * 6 + bytes(14) + b"\x07\x00"
        p = kk.protect(frame, 1)
        for n in range(len(p)):
            with pytest.raises(wsec.WsecError):
                kk.unprotect(p[:n])


def test_replayed_pn():
    tx, rx = wsec.SecurityAssociation("authenticator"), wsec.SecurityAssociation("supplicant")
    tx.install("pairwise", 0, "ccmp", KEY)
    rx.install("pairwise", 0, "ccmp", KEY)
    c = tx.protect(FRAME)
    assert rx.unprotect(c) == FRAME
    with pytest.raises(wsec.ReplayError, match=r"replayed PN/TSC \(not above the last accepted\)"):
        rx.unprotect(c)
    with pytest.raises(wsec.KeyIdError, match="unknown key ID 1"):
        rx.unprotect(wsec.Key("ccmp", KEY).protect(FRAME, 9, key_id=1))


def test_malformed_eapol():
    with pytest.raises(wsec.TruncatedError):
        wsec.EapolKey.parse(b"\x02\x03\x00")
    with pytest.raises(wsec.UnsupportedError, match="other than EAPOL-Key"):
        wsec.EapolKey.parse(bytes([2, 0, 0, 95]) + bytes(95))  # EAP-Packet, not EAPOL-Key
    e = wsec.EapolKey(key_info=0x010A)
    frame = e.to_bytes()
    assert wsec.EapolKey.parse(frame).key_info == 0x010A
    with pytest.raises(wsec.WsecError):
        wsec.EapolKey.parse(frame[:-1])
    with pytest.raises(wsec.WsecError, match="mic_len"):
        wsec.EapolKey(mic_len=20)
    with pytest.raises(wsec.WsecError, match="Key Nonce must be 32 octets"):
        e.key_nonce = bytes(31)
    with pytest.raises(wsec.WsecError):
        wsec.EapolKey(descriptor_type=7)
    # A handshake core given garbage drops it (no exception, no reply).
    pmk = bytes(32)
    s = wsec.Supplicant("psk", pmk, "02:00:00:00:00:01", "02:00:00:00:00:02", b"", b"", seed=1)
    for junk in (b"", b"\x02", bytes(200), frame):
        out = s.handle_eapol(junk)
        assert out.tx == [] and not s.established


def test_bad_names_and_addresses():
    with pytest.raises(wsec.UnsupportedError, match='unknown cipher suite "aes-ocb"'):
        wsec.Key("aes-ocb", KEY)
    with pytest.raises(wsec.UnsupportedError, match='unknown AKM "wpa4"'):
        wsec.pmkid("wpa4", bytes(32), "02:00:00:00:00:01", "02:00:00:00:00:02")
    with pytest.raises(wsec.WsecError, match="not a MAC address"):
        wsec.pmkid("psk", bytes(32), "02:00:00:00:00", "02:00:00:00:00:02")
    with pytest.raises(wsec.WsecError, match="a MAC address must be 6 octets, got 5"):
        wsec.pmkid("psk", bytes(32), bytes(5), "02:00:00:00:00:02")
    with pytest.raises(wsec.WsecError, match="unknown backend"):
        wsec.Key("ccmp", KEY, backend="quantum")
    with pytest.raises(wsec.UnsupportedError, match="SAE group 1"):
        wsec.Sae("pw", "02:00:00:00:00:01", "02:00:00:00:00:02", group=1)
    with pytest.raises(TypeError):
        wsec.Key("ccmp", "not bytes")


def test_bad_captures(tmp_path):
    with pytest.raises(wsec.CaptureError, match="No such file"):
        wsec.decrypt(tmp_path / "missing.pcap")
    junk = tmp_path / "junk.pcap"
    junk.write_bytes(b"this is not a capture at all")
    with pytest.raises(wsec.CaptureError, match="not a pcap or pcapng file"):
        wsec.decrypt(junk)
    # A pcap cut in the middle of a record: the whole records come out, then the error.
    hdr = bytes.fromhex("d4c3b2a1020004000000000000000000ffff000069000000")
    rec = bytes.fromhex("000000000000000018000000180000") + b"\x00"
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(hdr + rec + bytes(24) + rec[:10])
    frames = []
    with pytest.raises(wsec.CaptureError):
        for f in wsec.decrypt(cut, tks=[KEY]):
            frames.append(f)
    assert len(frames) == 1
    with pytest.raises(wsec.KeyLengthError, match="a TK is 16 or 32 octets, got 3"):
        wsec.decrypt(junk, tks=[b"abc"])
    with pytest.raises(wsec.WsecError):
        wsec.decrypt(junk, passphrases=[("ssid", "short")])
