"""The bindings against the standard's vectors (../shared/vectors.md, section numbers
below), on every AES backend this CPU has."""
import pytest

import wsec

H = bytes.fromhex


def plain_header(h: bytes) -> bytes:
    """The vectors print the header as sent (Protected bit set); protect() takes it clear."""
    return bytes([h[0], h[1] & ~0x40]) + h[2:]


BACKENDS = wsec.backends()


def test_backends_listed():
    assert "portable" in BACKENDS and wsec.default_backend() in BACKENDS


# vectors.md 1.1 (IEEE 802.11-2012 M.6.4), 2.1 (CCMP-256), 2.3 (GCMP-128 #2), 2.4 (GCMP-256)
AEAD = [
    ("ccmp", "c97c1f67ce371185514a8a19f2bdd52f", 0xB5039776E70C,
     "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033", "f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050",
     "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba80330ce70020769703b5"
     "f3d0a2fe9a3dbf2342a643e43246e80c3c04d0197845ce0b16f97623"),
    ("ccmp-256", "c97c1f67ce371185514a8a19f2bdd52f000102030405060708090a0b0c0d0e0f", 0xB5039776E70C,
     "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033", "f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050",
     "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba80330ce70020769703b5"
     "6d155d8832668256d6a92b78e11d8e54495dd17480aa56c9492e882b97642f80d50fe97b"),
    ("gcmp", "c97c1f67ce371185514a8a19f2bdd52f", 0x00895F5F2B08,
     "88480b000fd2e128a57c5030f18444085030f184440880330300",
     "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324252627",
     "88480b000fd2e128a57c5030f18444085030f184440880330300082b00205f5f8900"
     "60e9700cc4d40ac6d288b201c38f5bf08b807442640a1596e5dbdad41d1f3623f45d7a12db7afb23"
     "def619c2a374b6df66ffa53b6c69d79e"),
    ("gcmp-256", "c97c1f67ce371185514a8a19f2bdd52f000102030405060708090a0b0c0d0e0f", 0x00895F5F2B08,
     "88480b000fd2e128a57c5030f18444085030f184440880330300",
     "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324252627",
     "88480b000fd2e128a57c5030f18444085030f184440880330300082b00205f5f8900"
     "658343c8b14447d9211defd46ad89c710c6fc33333236e3997b9176a5a8be779b21266555e70ad79"
     "114316859095473d5b1bd596b3dea3bf"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("suite,tk,pn,hdr,data,expected", AEAD, ids=[a[0] for a in AEAD])
def test_aead_vectors(backend, suite, tk, pn, hdr, data, expected):
    k = wsec.Key(suite, H(tk), backend=backend)
    mpdu = plain_header(H(hdr)) + H(data)
    out = k.protect(mpdu, pn)
    assert out.hex() == expected
    assert k.unprotect(out) == mpdu
    assert k.unprotect_with_info(out)[1:] == (pn, 0)
    assert wsec.peek(out) == (pn, 0)
    # The batch path (the multi-buffer kernel for CCMP) gives the same octets.
    assert k.protect_batch([mpdu] * 9, [pn] * 9) == [out] * 9
    assert k.unprotect_batch([out] * 9) == [mpdu] * 9


# vectors.md 3.1-3.3: BIP on a broadcast Deauthentication frame, IPN 4, Key ID 4
BIP = [
    ("bip-cmac", "4ea9543e09cf2b1eca66ffc58bdecbcf", "4c10040004000000000048dfbfa7b8278872"),
    ("bip-gmac", "4ea9543e09cf2b1eca66ffc58bdecbcf", "4c1804000400000000003ed862fb0f3338dd3386c897e2ed053d"),
    ("bip-gmac-256", "4ea9543e09cf2b1eca66ffc58bdecbcf000102030405060708090a0b0c0d0e0f",
     "4c18040004000000000023be59dcc7022ee383627ebb1017ddfc"),
]


@pytest.mark.parametrize("suite,igtk,mme", BIP, ids=[b[0] for b in BIP])
def test_bip_vectors(suite, igtk, mme):
    frame = H("c0000000ffffffffffff02000000000002000000000009000200")
    k = wsec.Key(suite, H(igtk))
    out = k.protect(frame, 4)
    assert out == frame + H(mme)
    assert k.unprotect(out) == frame


def test_tkip_vector():
    """vectors.md 4.1 (IEEE 802.11-2012 M.6.3): FromDS, so the Michael key is TK[16:24]."""
    tk = H("12345678901234567890123456789012") + H("3456789012345678") + H("9012345678901234")
    hdr = H("08422c00020304050608020304050607020304050607d002")
    data = H("aaaa03000000080045000054000040004001a555c0a80a02c0a80a0108003ab0"
             "00000000cd4c05000000000008090a0b0c0d0e0f101112131415161718191a1b"
             "1c1d1e1f202122232425262728292a2b2c2d2e2f3031323334353637")
    expected = H("08422c00020304050608020304050607020304050607d0020020012000000000"
                 "c00e14fce7cfabc77547e666e57c0dac704a1e358a88c11c8e2e282e3801027a"
                 "4656055ee93e9c254702e9735805ddb5769ba73f1ebb56e844ef912285d3dd6e"
                 "541e823873558adba079068abd7f7f50959675acc4b4de9aa99c05f289a7c52f"
                 "ee5bfc14f6f8e5f8")
    k = wsec.Key("tkip", tk)
    out = k.protect(plain_header(hdr) + data, 1)
    assert out == expected
    assert k.unprotect(out) == plain_header(hdr) + data


def test_wep_vector():
    """vectors.md 5 (P802.11i/D7.0 I.7.2): WEP-40, IV fb029e, Key ID 2."""
    hdr = H("0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033")
    data = H("aaaa0300000008004500004e661a00008011be640a0001220affffff00890089"
             "003a000080a601100001000000000000204543454a4548454346434550464545"
             "49454646434341434143414341434141410000200001")
    expected = H("0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033fb029e80f69c5806"
                 "bd6ce84626bcbefb9474650aad1f7909b0f64d5f58a503a258b7ed22eb0ea649"
                 "30d3a056a55742fcce141d485f8aa836dea18df42c5380805ad0c61a5d6f58f4"
                 "1040b24b7d1a693856ed0d4398e7aee3bf0e2a2ca8f7")
    k = wsec.Key("wep", H("3031323334"))
    assert k.suite == "wep-40"
    out = k.protect(plain_header(hdr) + data, 0xFB029E, key_id=2)
    assert out == expected
    assert k.unprotect(out) == plain_header(hdr) + data


@pytest.mark.parametrize("passphrase,ssid,expected", [
    ("password", "IEEE", "f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e"),
    ("ThisIsAPassword", "ThisIsASSID", "0dc0d6eb90555ed6419756b9a15ec3e3209b63df707dd508d14581f8982721af"),
    ("a" * 32, "Z" * 32, "becb93866bb8c3832cb777c2f559807c8c59afcb6eae734885001300a981cc62"),
])
def test_psk_vectors(passphrase, ssid, expected):
    """vectors.md 6.1 (J.4)."""
    assert wsec.psk(passphrase, ssid).hex() == expected
    assert wsec.psk(passphrase.encode(), bytearray(ssid.encode())).hex() == expected


def test_ptk_and_eapol_mic_vector():
    """vectors.md 6.3: PRF-SHA1 PTK and the HMAC-SHA1-128 MIC of a message 2."""
    ptk = wsec.derive_ptk(
        "psk", H("ee51883793a6f68e9615fe73c80a3aa6f2dd0ea537bce627b929183cc6e57925"),
        "00:14:6c:7e:40:80", H("001346fe320c"),
        H("225854b0444de3af06d1492b852984f04cf6274c0e3218b8681756864db7a055"),
        H("59168bc3a5df18d71efb6423f340088dab9e1ba2bbc58659e07b3764b0de8570"))
    assert ptk.kck.hex() == "ea0e404633c802450302868ccaa749de"
    assert ptk.kek.hex() == "5cba5abcb267e2de1d5e21e57accd507"
    assert ptk.tk.hex() == "9b31e9ff220e132ae4f6ed9ef1acc885"
    m2 = H("0103007502010a0010000000000000000159168bc3a5df18d71efb6423f34008"
           "8dab9e1ba2bbc58659e07b3764b0de8570000000000000000000000000000000"
           "0000000000000000000000000000000000000000000000000000000000000000"
           "00001630140100000fac040100000fac040100000fac020100")
    e = wsec.EapolKey.parse(m2)
    assert e.message == "4way-2" and e.descriptor_version == 2 and e.replay_counter == 1
    assert e.to_bytes() == m2
    e.sign("psk", ptk.kck)
    assert e.key_mic.hex() == "d5355382b8a9b806dcaf99cdaf564eb6"
    assert e.verify_mic("psk", ptk.kck)
    assert not e.verify_mic("psk", bytes(16))


def test_ptk_sha256_kdk_vector():
    """vectors.md 6.4 (IEEE 802.11-2024 J.13): KDF-SHA256 with a 32-octet KDK."""
    ptk = wsec.derive_ptk(
        "sae", H("def43e5567e01ca6649265f19a290eeff8bd888f6c1d9cc9d10f04bd378f3cad"),
        "c0:ff:d4:a8:db:c1", "00:90:4c:01:c1:07",
        H("be7a1ca284347b5bd67dbd2dfdb4d99f1afae0b88ba18e008718417e4b27ef5f"),
        H("404b012ffb43ed0fb43ea1f287c91f2506d21b4a92d74b5ea50c943350ce8671"), kdk_len=32)
    assert (ptk.kck.hex(), ptk.kek.hex(), ptk.tk.hex()) == (
        "cd7b9e7555362df0b63568484a8112f5", "99cad3588da0f1e63fd190191039bb4b", "9e2e9377e7532e737a1bc250fe194a03")
    assert ptk.kdk.hex() == "6c7fb97ceb55b01acff00f070942bdf5291feb4bee38e0365b25a250bb2ac9ff"
