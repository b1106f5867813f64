#!/usr/bin/env python3
"""Markdown tables from `wsec bench ccmp --backend all --json` (stdin or a file argument):
every wsec backend x {CCMP-128, GCMP-128} x frame size, beside OpenSSL, RustCrypto and
ipsec-mb (the manager matching the backend, and ipsec-mb's fastest), in TSC ticks per
payload octet, encap / decap. Used for docs/results/kernels-*.md."""
import json
import sys

rep = json.load(open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin)
recs = rep["records"]
MATCH = {"aesni": "sse", "vaes256": "avx2", "avx512": "avx512"}


def pick(pred):
    """Fastest record per op matching pred: {op: record}."""
    out = {}
    for r in recs:
        if pred(r) and r["op"] in ("encap", "decap"):
            if r["op"] not in out or r["ns_per_frame"] < out[r["op"]]["ns_per_frame"]:
                out[r["op"]] = r
    return out


def cell(d, fif=False):
    if not d:
        return "-"
    e, c = d.get("encap"), d.get("decap")
    s = f"{e['ticks_per_byte']:.3f} / {c['ticks_per_byte']:.3f}" if e and c else "-"
    if fif and e and c:
        s += f" ({e['frames_in_flight']}/{c['frames_in_flight']})"
    return s


def ratio(a, b, op):
    """How many times faster a is than b for op."""
    if op in a and op in b:
        return b[op]["ns_per_frame"] / a[op]["ns_per_frame"]
    return None


sizes = sorted({r["frame_bytes"] for r in recs})
print(f"CPU: {rep['cpu']}; flags: {rep['cpu_flags']}; TSC {rep['tsc_ghz']:.3f} GHz; ipsec-mb {rep['ipsec_mb']} "
      f"(managers {', '.join(rep['ipsec_archs'])})\n")
for suite in ("ccmp-128", "gcmp-128"):
    if not any(r["suite"] == suite for r in recs):
        continue
    print(f"### {suite.upper()}: TSC ticks per payload octet, encap / decap (frames in flight)\n")
    print("| octets | wsec backend | wsec, 1 frame | wsec, batch (best of 8/16/64) | ipsec-mb, same class (best) | "
          "ipsec-mb, fastest manager | OpenSSL, 1 frame | RustCrypto, 1 frame |")
    print("|---|---|---|---|---|---|---|---|")
    for s in sizes:
        base = lambda r, s=s: r["suite"] == suite and r["frame_bytes"] == s and r["lanes"] == 1
        os_ = pick(lambda r: base(r) and r["impl"] == "openssl")
        rc = pick(lambda r: base(r) and r["impl"].startswith("rustcrypto"))
        ipb = pick(lambda r: base(r) and r["impl"] == "ipsec-mb")
        for b in rep["backends"]:
            w1 = pick(lambda r: base(r) and r["impl"] == "wsec" and r["backend"] == b and r["frames_in_flight"] == 1)
            mb = pick(lambda r: base(r) and r["impl"] == "wsec-mb" and r["backend"] == b)
            ip = pick(lambda r: base(r) and r["impl"] == "ipsec-mb" and r["backend"] == MATCH.get(b))
            ipname = f"{MATCH[b]}: " if b in MATCH else ""
            names = sorted({r["backend"] for r in ipb.values()}, key=lambda n: n != ipb.get("encap", {}).get("backend"))
            ipb_name = f"{'/'.join(names)}: " if ipb else ""
            print(f"| {s} | {b} | {cell(w1)} | {cell(mb, True)} | {ipname}{cell(ip, True)} | {ipb_name}{cell(ipb, True)} | "
                  f"{cell(os_)} | {cell(rc)} |")
    print()

print("### Ratios (same run; > 1: wsec faster), encap / decap\n")
print("| suite | octets | wsec backend | batch vs ipsec-mb same class | batch vs ipsec-mb fastest | 1 frame vs OpenSSL | batch vs OpenSSL 1 frame |")
print("|---|---|---|---|---|---|---|")
for suite in ("ccmp-128", "gcmp-128"):
    for s in sizes:
        base = lambda r, s=s: r["suite"] == suite and r["frame_bytes"] == s and r["lanes"] == 1
        os_ = pick(lambda r: base(r) and r["impl"] == "openssl")
        ipb = pick(lambda r: base(r) and r["impl"] == "ipsec-mb")
        for b in rep["backends"]:
            if b == "portable":
                continue
            w1 = pick(lambda r: base(r) and r["impl"] == "wsec" and r["backend"] == b and r["frames_in_flight"] == 1)
            mb = pick(lambda r: base(r) and r["impl"] == "wsec-mb" and r["backend"] == b)
            ip = pick(lambda r: base(r) and r["impl"] == "ipsec-mb" and r["backend"] == MATCH.get(b))

            def two(a, c):
                x, y = ratio(a, c, "encap"), ratio(a, c, "decap")
                return f"{x:.2f} / {y:.2f}" if x and y else "-"

            print(f"| {suite} | {s} | {b} | {two(mb, ip)} | {two(mb, ipb)} | {two(w1, os_)} | {two(mb, os_)} |")
