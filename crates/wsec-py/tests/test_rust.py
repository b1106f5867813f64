"""The bindings against the Rust library's own results: random frames protected by
`wsec protect` (the command line over the same core) and by the bindings must match octet
for octet, on every suite; the batch calls must equal the one-frame calls on every backend;
errors must carry the command line's message."""
import random

import pytest

import wsec
from conftest import run_cli

KEY_LEN = {"wep-40": 5, "wep-104": 13, "tkip": 32, "ccmp": 16, "ccmp-256": 32, "gcmp": 16, "gcmp-256": 32,
           "bip-cmac": 16, "bip-cmac-256": 32, "bip-gmac": 16, "bip-gmac-256": 32,
           "eccmp-2": 16, "eccmp-4": 16, "eccmp-8": 16}


def test_every_suite_is_covered():
    assert sorted(wsec.suites()) == sorted(KEY_LEN)


def random_frame(rng: random.Random, suite: str) -> bytes:
    if suite.startswith("bip"):
        # A group-addressed Deauthentication (BIP protects group-addressed management, 12.5.4).
        return bytes([0xC0, 0, 0, 0]) + b"\xff" * 6 + rng.randbytes(12) + rng.randbytes(2) + rng.randbytes(2)
    # A QoS Data frame ToDS, random TID, addresses, sequence number and body (0-1600
    # octets); fragment number 0 (TKIP's MIC is over whole MSDUs, 12.5.2.3).
    qos = bytes([rng.randrange(8), 0])
    seq = (rng.randrange(4096) << 4).to_bytes(2, "little")
    hdr = bytes([0x88, 0x01]) + rng.randbytes(2) + rng.randbytes(18) + seq + qos
    return hdr + rng.randbytes(rng.randrange(0, 1601))


def cli_name(suite: str) -> str:
    return "wep" if suite.startswith("wep") else suite


@pytest.mark.parametrize("suite", sorted(KEY_LEN))
def test_random_frames_match_the_cli(wsec_bin, suite):
    rng = random.Random(f"wsec-py {suite}")
    for _ in range(4):
        key = rng.randbytes(KEY_LEN[suite])
        frame = random_frame(rng, suite)
        pn = rng.randrange(1 << 24) if suite.startswith("wep") else rng.randrange(1, 1 << 48)
        key_id = rng.randrange(4, 6) if suite.startswith("bip") else rng.randrange(4)
        if suite in ("tkip", "ccmp", "ccmp-256", "gcmp", "gcmp-256") or suite.startswith("eccmp"):
            key_id = rng.randrange(2)
        code, out, err = run_cli(wsec_bin, "protect", "--cipher", cli_name(suite), "--key-file", "-",
                                 "--pn", str(pn), "--keyid", str(key_id), frame.hex(), stdin=key.hex())
        assert code == 0, err
        k = wsec.Key(cli_name(suite), key)
        assert k.suite == suite
        ours = k.protect(frame, pn, key_id)
        assert ours.hex() == out.replace(":", "").replace(" ", "")
        code, back, err = run_cli(wsec_bin, "unprotect", "--cipher", cli_name(suite), "--key-file", "-", ours.hex(),
                                  stdin=key.hex())
        assert code == 0, err
        assert k.unprotect(ours) == frame == bytes.fromhex(back)


@pytest.mark.parametrize("backend", wsec.backends())
@pytest.mark.parametrize("suite", ["ccmp", "ccmp-256", "gcmp", "gcmp-256", "eccmp-4", "tkip"])
def test_batch_equals_one_at_a_time(backend, suite):
    rng = random.Random(f"batch {suite} {backend}")
    k = wsec.Key(suite, rng.randbytes(KEY_LEN[suite]), backend=backend)
    frames = [random_frame(rng, suite) for _ in range(37)]
    pns = [rng.randrange(1, 1 << 48) for _ in frames]
    single = [k.protect(f, pn) for f, pn in zip(frames, pns)]
    # Any buffer-protocol object is taken (bytes, bytearray, memoryview).
    mixed = [bytearray(f) if i % 3 == 1 else memoryview(f) if i % 3 == 2 else f for i, f in enumerate(frames)]
    assert k.protect_batch(mixed, pns) == single
    assert k.protect_batch(frames, 5) == [k.protect(f, 5 + i) for i, f in enumerate(frames)]
    opened = k.unprotect_batch(single)
    assert opened == frames
    # One altered frame fails alone, as the exception unprotect would raise.
    bad = list(single)
    bad[3] = bad[3][:-1] + bytes([bad[3][-1] ^ 1])
    got = k.unprotect_batch(bad)
    assert isinstance(got[3], wsec.IntegrityError)
    assert str(got[3]) == ("ICV failure" if suite == "tkip" else "MIC failure")
    assert got[:3] == frames[:3] and got[4:] == frames[4:]


def test_backends_agree():
    rng = random.Random("backends agree")
    frames = [random_frame(rng, "ccmp") for _ in range(20)]
    for suite in ("ccmp", "gcmp-256", "eccmp-8"):
        key = rng.randbytes(KEY_LEN[suite])
        outs = {b: wsec.Key(suite, key, backend=b).protect_batch(frames, 1) for b in wsec.backends()}
        assert len(set(map(tuple, outs.values()))) == 1, suite


@pytest.mark.parametrize("case", ["mic", "truncated", "key length", "not protected"])
def test_messages_are_the_clis(wsec_bin, case):
    key = bytes(range(16))
    k = wsec.Key("ccmp", key)
    frame = bytes.fromhex("88010000") + bytes(18) + bytes(4) + b"hello, world"
    good = k.protect(frame, 1)
    cli_key, py_key = key, key
    arg = {"mic": good[:-1] + b"\x00", "truncated": good[:20], "key length": good, "not protected": frame}[case]
    if case == "key length":
        cli_key = py_key = key[:5]
    code, _, err = run_cli(wsec_bin, "unprotect", "--cipher", "ccmp", "--key-file", "-", arg.hex(), stdin=cli_key.hex())
    assert code != 0 and err.startswith("wsec: ")
    with pytest.raises(wsec.WsecError) as e:
        wsec.Key("ccmp", py_key).unprotect(arg)
    assert str(e.value) == err[len("wsec: "):]
