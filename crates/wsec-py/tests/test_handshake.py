"""The sans-IO 4-way handshake (12.7.6) between the bindings' Authenticator and Supplicant,
KRACK-style replays (Vanhoef and Piessens, CCS 2017), the link's replay checks, SAE (12.4)
and the FT key hierarchy (12.7.1.6)."""
import pytest

import wsec

AA, SPA = "02:00:00:00:01:00", "02:00:00:00:02:00"
PMK = wsec.psk("correct horse", "wsec-lab")
RSNE = wsec.rsn_element("psk", "ccmp", "ccmp")


def pair(seed=1, **kw):
    a = wsec.Authenticator("psk", PMK, AA, SPA, RSNE, RSNE, seed=seed, **kw)
    s = wsec.Supplicant("psk", PMK, AA, SPA, RSNE, RSNE, seed=seed + 1, **kw)
    return a, s


def kinds(out):
    return [e.kind for e in out.events]


def run_4way(a, s):
    m1 = a.start().tx
    assert len(m1) == 1 and wsec.EapolKey.parse(m1[0]).message == "4way-1"
    m2 = s.handle_eapol(m1[0])
    assert wsec.EapolKey.parse(m2.tx[0]).message == "4way-2"
    m3 = a.handle_eapol(m2.tx[0])
    assert wsec.EapolKey.parse(m3.tx[0]).message == "4way-3"
    m4 = s.handle_eapol(m3.tx[0])
    done = a.handle_eapol(m4.tx[0])
    return m3.tx[0], m4, done


def test_four_way_handshake_installs_the_same_keys():
    a, s = pair()
    m3, sta, ap = run_4way(a, s)
    assert kinds(sta) == ["install_ptk", "install_gtk", "established"]
    assert "install_ptk" in kinds(ap) and "established" in kinds(ap)
    tk_sta = next(e.key for e in sta.events if e.kind == "install_ptk")
    tk_ap = next(e.key for e in ap.events if e.kind == "install_ptk")
    assert tk_sta == tk_ap == a.ptk.tk == s.ptk.tk and len(tk_sta) == 16
    assert a.established and s.established
    # The PTK is the one the key hierarchy gives for the nonces on the air.
    e3 = wsec.EapolKey.parse(m3)
    assert e3.install and e3.ack and e3.mic and e3.secure and e3.encrypted_key_data
    assert e3.verify_mic("psk", s.ptk.kck)
    gtk = next(e for e in sta.events if e.kind == "install_gtk")
    assert gtk.key_id == 1 and len(gtk.key) == 16
    # Message 3's Key Data (AES Key Wrap under the KEK) holds the GTK KDE.
    assert gtk.key in e3.decrypt_key_data(s.ptk.kek)


def test_replayed_message_3_reinstalls_nothing():
    """KRACK: a retransmitted message 3 gets its message 4, and no second install."""
    a, s = pair(seed=7)
    m3, sta, _ = run_4way(a, s)
    again = s.handle_eapol(m3)
    assert not [k for k in kinds(again) if k.startswith("install")]
    # A message 3 with an old replay counter is dropped outright.
    old = wsec.EapolKey.parse(m3)
    old.replay_counter -= 1
    old.sign("psk", s.ptk.kck)
    out = s.handle_eapol(old.to_bytes())
    assert out.tx == [] and not [k for k in kinds(out) if k.startswith("install")]


def test_forged_message_is_dropped():
    a, s = pair(seed=9)
    m1 = a.start().tx[0]
    m2 = s.handle_eapol(m1).tx[0]
    m3 = a.handle_eapol(m2).tx[0]
    forged = bytearray(m3)
    forged[-1] ^= 1
    out = s.handle_eapol(bytes(forged))
    assert out.tx == [] and kinds(out) in (["dropped"], [])
    assert not s.established


def test_wrong_pmk_never_establishes():
    a = wsec.Authenticator("psk", PMK, AA, SPA, RSNE, RSNE, seed=3)
    s = wsec.Supplicant("psk", wsec.psk("wrong password", "wsec-lab"), AA, SPA, RSNE, RSNE, seed=4)
    m2 = s.handle_eapol(a.start().tx[0]).tx[0]
    out = a.handle_eapol(m2)
    assert out.tx == [] and not a.established


def test_rekey_and_timeouts():
    a, s = pair(seed=11)
    run_4way(a, s)
    r = a.rekey_ptk(10)
    assert r.deadline is not None and len(r.tx) == 1
    # No answer: the message is sent again at the deadline, then the handshake gives up.
    t, sent = r.deadline, 1
    while True:
        out = a.handle_timeout(t)
        sent += len(out.tx)
        if "failed" in kinds(out) or out.deadline is None:
            break
        t = out.deadline
    assert sent == 4 and "failed" in kinds(out)


def test_security_association_refuses_replays():
    a, s = pair(seed=5)
    run_4way(a, s)
    ap, sta = wsec.SecurityAssociation("authenticator"), wsec.SecurityAssociation("supplicant")
    ap.install("pairwise", 0, "ccmp", a.ptk.tk)
    sta.install("pairwise", 0, "ccmp", s.ptk.tk)
    frame = bytes.fromhex("88020000") + bytes.fromhex("020000000200") + bytes.fromhex("020000000100") * 2 + bytes(4) + b"data"
    assert ap.next_pn("pairwise") == 1
    c1, c2 = ap.protect(frame), ap.protect(frame)
    assert wsec.peek(c1)[0] == 1 and wsec.peek(c2)[0] == 2
    assert sta.unprotect(c2) == frame
    with pytest.raises(wsec.ReplayError, match="replayed PN"):
        sta.unprotect(c1)
    with pytest.raises(wsec.ReplayError):
        sta.unprotect(c2)
    rc = wsec.ReplayCounters(rsc=10)
    slot = wsec.ReplayCounters.slot_of(frame)
    with pytest.raises(wsec.ReplayError):
        rc.check(slot, 10)
    rc.check_and_accept(slot, 11)
    assert rc.last(slot) == 11


def test_sae_both_sides_agree():
    for kw in ({}, {"ssid": "wsec-lab"}):
        x = wsec.Sae("sae password", AA, SPA, seed=1, **kw)
        y = wsec.Sae("sae password", SPA, AA, seed=2, **kw)
        x.process_commit(y.commit())
        y.process_commit(x.commit())
        assert x.pmk == y.pmk and len(x.pmk) == 32 and x.pmkid == y.pmkid
        assert y.verify_confirm(x.confirm()) and x.verify_confirm(y.confirm())
        # A different password agrees on nothing.
        z = wsec.Sae("other password", SPA, AA, seed=3, **kw)
        w = wsec.Sae("sae password", AA, SPA, seed=4, **kw)
        w.process_commit(z.commit())
        z.process_commit(w.commit())
        assert w.pmk != z.pmk and not w.verify_confirm(z.confirm())
    with pytest.raises(wsec.MalformedError, match="reflects"):
        x = wsec.Sae("p", AA, SPA, seed=1)
        x.process_commit(x.commit())


def test_ft_hierarchy_is_consistent():
    xx = wsec.psk("correct horse", "ft-lab")
    r0, r0name = wsec.ft_pmk_r0("ft-psk", xx, "ft-lab", b"\xa1\xb2", "nas1.example", SPA)
    assert len(r0) == 32 and len(r0name) == 16
    r1, r1name = wsec.ft_pmk_r1("ft-psk", r0, r0name, AA, SPA)
    assert len(r1) == 32 and r1name != r0name
    ptk = wsec.ft_ptk("ft-psk", r1, bytes(range(32)), bytes(range(32, 64)), AA, SPA)
    assert len(ptk.kck) == 16 and len(ptk.tk) == 16
    with pytest.raises(wsec.UnsupportedError, match="FT"):
        wsec.derive_ptk("ft-psk", xx, AA, SPA, bytes(32), bytes(32))
    with pytest.raises(wsec.UnsupportedError, match="not an FT AKM"):
        wsec.ft_pmk_r0("psk", xx, "ft-lab", b"\xa1\xb2", "nas1", SPA)


def test_pmkid_and_gtk():
    pmkid = wsec.pmkid("psk", PMK, AA, SPA)
    assert len(pmkid) == 16 and pmkid != wsec.pmkid("psk", PMK, SPA, AA)
    assert wsec.pmkid("psk-sha256", PMK, AA, SPA) != pmkid
    g = wsec.derive_gtk(bytes(32), AA, bytes(32), 16)
    assert len(g) == 16 and g != wsec.derive_gtk(bytes(32), AA, bytes(31) + b"\x01", 16)
    assert len(wsec.msk_pmk("wpa-eap", bytes(64))) == 32
    assert len(wsec.msk_pmk("wpa-eap-suite-b-192", bytes(64))) == 48
