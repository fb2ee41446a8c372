#!/usr/bin/env python3
"""The bench's report: Strata beside bitECS, and the bar chart.

    python3 bench/report.py STRATA.json BITECS.json CHART.svg

Reads the results strata-bench wrote (--json) and, if present, those of
`ninja bench-js`; prints the five noctjs cases side by side; writes an SVG
bar chart of every ns-per-op row (plain C, Strata, bitECS: median with a
min-max whisker, log scale). Either JSON file may be missing: what is there
is reported, what is not is named.
"""
import json
import math
import os
import sys

COLORS = {"plain C": "#9a9a9a", "Strata": "#2b6cb0", "bitECS": "#dd7a1f"}


class BadResults(Exception):
    """A results file that is not what strata-bench (or bench-js) writes."""


def load(path):
    """The results in path, None if there is no such file; BadResults if they do not read."""
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        data = f.read()
    try:
        results = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise BadResults(f"{path}: not UTF-8 (byte {e.start}: {data[e.start:e.start + 1]!r}, "
                         f"after {data[max(0, e.start - 40):e.start]!r})") from None
    except json.JSONDecodeError as e:
        raise BadResults(f"{path}:{e.lineno}:{e.colno}: not JSON: {e.msg}") from None
    rows = results.get("rows") if isinstance(results, dict) else None
    if not isinstance(rows, list) or not all(isinstance(r, dict) and {"case", "size"} <= r.keys() for r in rows):
        raise BadResults(f"{path}: no list of rows, each with a case and a size")
    return results


def key(row):
    """What a row of bitECS is matched on: its case and size (the five
    noctjs cases have one row a size in strata-bench's table)."""
    return (row["case"], row["size"])


def side_by_side(strata, bitecs):
    """Print the cases both ran: ns per op and how many times slower bitECS is."""
    ours = {key(r): r for r in strata["rows"]}
    print(f"\nStrata beside bitECS {bitecs['version']} (Node.js {bitecs['node']}), ns per entity-op, "
          f"median [min-max] of {bitecs['runs']} runs:\n")
    print(f"{'case':<13} {'entities':>9}  {'Strata':>22}  {'bitECS':>24}  {'bitECS / Strata':>15}")
    for js in bitecs["rows"]:
        c = ours.get(key(js))
        if c is None:
            continue
        s, b = c["strata"], js["bitecs"]
        print(f"{js['case']:<13} {js['size']:>9}  {s['median']:>9.3f} [{s['min']:.3f}-{s['max']:.3f}]"
              f"  {b['median']:>9.3f} [{b['min']:.3f}-{b['max']:.3f}]  {b['median'] / s['median']:>14.1f}x")


def label(row):
    size = row["size"]
    count = f"{size // 1000000}M" if size >= 1000000 and size % 1000000 == 0 else \
        f"{size // 1000}k" if size % 1000 == 0 else f"{size:,}"
    return f"{row['case']} {count}: {row['op'].strip()}"


def chart(strata, bitecs, path):
    """A horizontal grouped bar chart on a log axis, written by hand."""
    js = {key(r): r["bitecs"] for r in bitecs["rows"]} if bitecs else {}
    groups = []
    for row in strata["rows"]:
        if row["unit"] != "ns/op":
            continue
        bars = []
        if "plain" in row:
            bars.append(("plain C", row["plain"]))
        bars.append(("Strata", row["strata"]))
        if key(row) in js:
            bars.append(("bitECS", js[key(row)]))
        target = row.get("target", {})
        limits = [target["limit"]] if target.get("kind") == "max" else []
        # A ratio target is drawn in ns, at this run's baseline.
        ratio = target.get("limit") if target.get("kind") == "ratio" else target.get("ratio")
        if ratio and "plain" in row:
            limits.append(ratio * row["plain"]["median"])
        groups.append((label(row), bars, limits))
    values = [v for _, bars, _ in groups for _, s in bars for v in (s["min"], s["max"])]
    lo = 10 ** math.floor(math.log10(min(values)))
    hi = 10 ** math.ceil(math.log10(max(values)))

    left, right, top, bar_h, gap = 330, 70, 70, 11, 9
    plot_w = 960 - left - right
    height = top + sum(len(b) * bar_h + gap for _, b, _ in groups) + 40

    def x(v):
        return left + plot_w * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="960" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="10" y="20" font-size="14" font-weight="bold">Strata bench: ns per entity-op '
           f'(median, whisker min-max, log scale; lower is better)</text>']
    lx = left
    for name in [n for n in COLORS if any(n == b for _, bars, _ in groups for b, _ in bars)]:
        out.append(f'<rect x="{lx}" y="32" width="12" height="10" fill="{COLORS[name]}"/>')
        out.append(f'<text x="{lx + 16}" y="41">{name}</text>')
        lx += 90
    out.append(f'<line x1="{lx}" y1="37" x2="{lx + 12}" y2="37" stroke="#c53030" stroke-width="2"/>')
    out.append(f'<text x="{lx + 16}" y="41">target</text>')
    bottom = height - 40
    decade = lo
    while decade <= hi:
        for m in (1, 2, 5):
            v = decade * m
            if lo <= v <= hi:
                out.append(f'<line x1="{x(v):.1f}" y1="{top - 8}" x2="{x(v):.1f}" y2="{bottom}" '
                           f'stroke="#e2e2e2"/>')
                out.append(f'<text x="{x(v):.1f}" y="{bottom + 14}" text-anchor="middle">{v:g}</text>')
        decade *= 10
    out.append(f'<text x="{left + plot_w / 2}" y="{bottom + 30}" text-anchor="middle">ns per entity-op</text>')
    y = top
    for name, bars, limits in groups:
        group_h = len(bars) * bar_h
        out.append(f'<text x="{left - 6}" y="{y + group_h / 2 + 4:.1f}" text-anchor="end">{escape(name)}</text>')
        for who, s in bars:
            w = x(s["median"]) - left
            out.append(f'<rect x="{left}" y="{y}" width="{max(w, 1):.1f}" height="{bar_h - 1}" '
                       f'fill="{COLORS[who]}"><title>{who}: {s["median"]:.3f} ns</title></rect>')
            mid = y + (bar_h - 1) / 2
            out.append(f'<line x1="{x(s["min"]):.1f}" y1="{mid}" x2="{x(s["max"]):.1f}" y2="{mid}" '
                       f'stroke="black" stroke-width="1"/>')
            out.append(f'<text x="{max(x(s["median"]), x(s["max"])) + 4:.1f}" y="{y + bar_h - 2}" '
                       f'font-size="9">{s["median"]:.3g}</text>')
            for limit in limits if who == "Strata" else []:
                out.append(f'<line x1="{x(limit):.1f}" y1="{y - 1}" x2="{x(limit):.1f}" y2="{y + bar_h}" '
                           f'stroke="#c53030" stroke-width="2"/>')
            y += bar_h
        y += gap
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    strata_path, bitecs_path, svg_path = argv
    try:
        strata, bitecs = load(strata_path), load(bitecs_path)
    except BadResults as e:
        print(f"report: {e}", file=sys.stderr)
        return 1
    if strata is None:
        print(f"report: no {strata_path} yet: `ninja bench` writes it")
    if bitecs is None:
        print(f"\nreport: no {bitecs_path}: `ninja bench-js` (network: npm) adds bitECS beside Strata")
    elif strata is not None:
        side_by_side(strata, bitecs)
    if strata is not None:
        os.makedirs(os.path.dirname(svg_path) or ".", exist_ok=True)
        chart(strata, bitecs, svg_path)
        print(f"\nreport: {strata_path} (every sample), {svg_path} (the chart)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
