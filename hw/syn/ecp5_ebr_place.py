#!/usr/bin/env python3
"""Spread the block RAMs of a synthesized ECP5 design over the LFE5U-85F's EBR rows.

Usage: ecp5_ebr_place.py NETLIST.json   (edits the Yosys JSON in place)

Why: nextpnr-ecp5 0.11 packs the DP16KDs of the ROM-S-box ECCMP engines into one
contiguous strip of a single EBR row (25 of ECCMP-2's 32 on row 22, every site from
X42 to X100). Each S-box pair has 8 + 8 address and 2 x 18 data pins, and the switch
boxes beside such a strip cannot carry them all: router1 and router2 stop improving at
about 500-1500 overused wires. Placing each AES unit's RAMs on every other site, one
unit per row in turn, leaves the fabric between them for routing (a floorplan
constraint, as one would write in a vendor flow's .lpf; the RTL is unchanged).

The DP16KD sites were read off nextpnr-ecp5 0.11's LFE5U-85F database by probing BEL
names ('No Bel named ...' for the others): four rows (Y = 22, 46, 70, 82), each with
13 groups of 4 EBRs, EBRk at X = base + 2k.
"""
import json
import re
import sys

ROWS = [22, 46, 70, 82]
BASES = [4, 13, 22, 31, 40, 49, 58, 69, 78, 87, 96, 105, 114]
SITES = [(b + 2 * k, k) for b in BASES for k in range(4)]  # (x, EBR index), by x


def unit_of(name):
    # The RAMs of one AES unit (or of the key schedule / key table) share the instance
    # path up to their generate block of S-box pairs.
    m = re.match(r"(.*?)\.(g_rom|g_pair|sb\d|u_rom|rom)\b", name)
    return m.group(1) if m else name.rsplit(".", 2)[0]


def spread(n, total=len(SITES)):
    """n site indices of 0..total-1: every other site when they fit, centred on the row;
    otherwise evenly over the whole row."""
    if n == 0:
        return []
    step = min(2.0, total / n)
    first = (total - 1 - (n - 1) * step) / 2
    idx = [int(round(first + j * step)) for j in range(n)]
    assert len(set(idx)) == n and 0 <= idx[0] and idx[-1] < total
    return idx


def main(path):
    d = json.load(open(path))
    placed = 0
    for mod in d["modules"].values():
        rams = sorted(n for n, c in mod.get("cells", {}).items() if c["type"] == "DP16KD")
        if not rams:
            continue
        units = {}
        for n in rams:
            units.setdefault(unit_of(n), []).append(n)
        if len(rams) > len(ROWS) * len(SITES):
            sys.exit("%s: %d DP16KD, more than the device's %d" % (path, len(rams), len(ROWS) * len(SITES)))
        # Whole units to the row with the fewest RAMs so far, biggest units first.
        rows = {y: [] for y in ROWS}
        for u in sorted(units, key=lambda u: (-len(units[u]), u)):
            y = min(ROWS, key=lambda y: (len(rows[y]), ROWS.index(y)))
            rows[y].extend(units[u])
        for y, names in rows.items():
            if len(names) > len(SITES):
                sys.exit("%s: %d DP16KD for row %d of %d sites" % (path, len(names), y, len(SITES)))
            for n, i in zip(names, spread(len(names))):
                x, k = SITES[i]
                mod["cells"][n].setdefault("attributes", {})["BEL"] = "X%d/Y%d/EBR%d" % (x, y, k)
                placed += 1
    json.dump(d, open(path, "w"))
    print("%s: %d DP16KD placed over EBR rows %s" % (path, placed, ROWS))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
