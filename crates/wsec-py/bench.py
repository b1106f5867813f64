#!/usr/bin/env python3
"""Frames per second unprotected (CCMP-128, 1500-octet MSDUs) from Python, in one run:

- wsec from Python, one frame per call (``Key.unprotect``);
- wsec from Python, batched (``Key.unprotect_batch``: the multi-buffer kernel, GIL released);
- pycryptodome, as KRACK/FragAttacks-style scripts do it: nonce and AAD built in Python
  (IEEE 802.11-2020 12.5.3.3.3-4), then ``AES.new(tk, MODE_CCM).decrypt_and_verify``;
- the ``wsec`` command line: ``wsec decrypt --tk`` over a pcap of the same frames (process
  start, file I/O and the capture engine included).

Every path is checked octet for octet against the others before anything is timed.
Prints the CPU, the AES backend, Python's version, the median of the repetitions and the
ratios; ``--json FILE`` writes the same figures.

    python crates/wsec-py/bench.py [--frames N] [--reps R] [--wsec target/release/wsec]
"""
import argparse
import json
import os
import platform
import random
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import wsec

try:
    from Crypto.Cipher import AES
except ImportError:  # pycryptodomex installs as Cryptodome
    from Cryptodome.Cipher import AES


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def make_frames(n: int, body: int, seed: int = 1):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        seq = ((i % 4096) << 4).to_bytes(2, "little")
        hdr = bytes([0x88, 0x01, 0, 0]) + bytes.fromhex("020000000100020000000200020000000300") + seq + bytes([i % 8, 0])
        llc = bytes.fromhex("aaaa030000000800")
        out.append(hdr + llc + rng.randbytes(body - len(llc)))
    return out


def pycryptodome_unprotect(tk: bytes, mpdu: bytes) -> bytes:
    """CCMP decapsulation the way Python scripts hand-write it (QoS Data, no A4/HT Control)."""
    fc0, fc1 = mpdu[0], mpdu[1]
    hlen = 26
    hdr, ccmp_hdr = mpdu[:hlen], mpdu[hlen:hlen + 8]
    pn = bytes([ccmp_hdr[7], ccmp_hdr[6], ccmp_hdr[5], ccmp_hdr[4], ccmp_hdr[1], ccmp_hdr[0]])
    qc = hdr[24:26]
    nonce = bytes([qc[0] & 0x0F]) + hdr[10:16] + pn
    # AAD: FC with subtype b4-b6, Retry, PwrMgt, MoreData masked, Protected set, Order masked
    # in QoS Data; A1-A3; SC with the sequence number masked; QC with TID only.
    aad = bytes([fc0 & 0x8F, (fc1 & 0x47) | 0x40]) + hdr[4:22] + bytes([hdr[22] & 0x0F, 0]) + bytes([qc[0] & 0x0F, 0])
    c = AES.new(tk, AES.MODE_CCM, nonce=nonce, mac_len=8)
    c.update(aad)
    body = c.decrypt_and_verify(mpdu[hlen + 8:-8], mpdu[-8:])
    return bytes([fc0, fc1 & ~0x40 & 0xFF]) + hdr[2:] + body


def write_pcap(path: str, frames) -> None:
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 105))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", i, 0, len(fr), len(fr)))
            f.write(fr)


def timed(fn, reps: int):
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), min(ts), max(ts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=20000)
    ap.add_argument("--body", type=int, default=1500, help="MSDU octets per frame (LLC/SNAP included)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--wsec", default=os.environ.get("WSEC_BIN", "target/release/wsec"), help="the wsec binary")
    ap.add_argument("--json", help="also write the figures to this file")
    a = ap.parse_args()
    if a.frames < 1 or a.reps < 1 or not (8 <= a.body <= 2304):
        ap.error("--frames and --reps must be positive, --body 8-2304")
    if not os.access(a.wsec, os.X_OK):
        ap.error(f"no wsec binary at {a.wsec} (cargo build --release -p wsec-cli, or --wsec)")

    tk = bytes(range(16))
    key = wsec.Key("ccmp", tk)
    plain = make_frames(a.frames, a.body)
    prot = key.protect_batch(plain, 1)

    # Byte-for-byte checks first: every path must give the same plaintexts.
    assert [key.unprotect(f) for f in prot] == plain, "wsec one-at-a-time"
    assert key.unprotect_batch(prot) == plain, "wsec batch"
    assert [pycryptodome_unprotect(tk, f) for f in prot] == plain, "pycryptodome"
    with tempfile.TemporaryDirectory() as d:
        cap, out = os.path.join(d, "in.pcap"), os.path.join(d, "out.pcap")
        write_pcap(cap, prot)
        cli = [a.wsec, "decrypt", "--tk", tk.hex(), "--one-pass", "-o", out, cap]
        subprocess.run(cli, check=True, capture_output=True, timeout=600)
        got = []
        with open(out, "rb") as f:
            f.read(24)
            while hdr := f.read(16):
                n = struct.unpack("<IIII", hdr)[2]
                got.append(f.read(n))
        assert got == plain, "wsec decrypt"

        def run_cli():
            subprocess.run(cli, check=True, capture_output=True, timeout=600)

        rows = [
            ("wsec, one frame per call", lambda: [key.unprotect(f) for f in prot]),
            ("wsec, unprotect_batch", lambda: key.unprotect_batch(prot)),
            ("pycryptodome (hand-built nonce/AAD)", lambda: [pycryptodome_unprotect(tk, f) for f in prot]),
            ("wsec decrypt CLI (pcap in/out)", run_cli),
        ]
        res = []
        for name, fn in rows:
            med, lo, hi = timed(fn, a.reps)
            res.append({"path": name, "median_s": med, "min_s": lo, "max_s": hi, "frames_per_s": a.frames / med})

    base = next(r for r in res if r["path"].startswith("pycryptodome"))["frames_per_s"]
    print(f"CPU: {cpu_model()}; wsec backend: {wsec.default_backend()}; Python {platform.python_version()}")
    print(f"CCMP-128 unprotect, {a.frames} frames of {a.body} octets, median of {a.reps} (min-max)")
    print(f"{'path':40} {'frames/s':>12} {'Gb/s':>7} {'x pycryptodome':>15}")
    for r in res:
        gbps = r["frames_per_s"] * a.body * 8 / 1e9
        spread = f"{a.frames / r['max_s']:.0f}-{a.frames / r['min_s']:.0f}"
        print(f"{r['path']:40} {r['frames_per_s']:12.0f} {gbps:7.2f} {r['frames_per_s'] / base:15.1f}   ({spread})")
    if a.json:
        doc = {"cpu": cpu_model(), "backend": wsec.default_backend(), "python": platform.python_version(),
               "frames": a.frames, "body": a.body, "reps": a.reps, "results": res,
               "command": "python " + " ".join(sys.argv)}
        tmp = a.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(tmp, a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
