#!/usr/bin/env python3
"""Tables and chart for docs/BENCHMARKS.md from the benches' output.

Reads criterion's estimates (TARGET/criterion/GROUP/VARIANT/new/estimates.json) and the
TSV files the `memory` and `instructions` benches write (TARGET/bench-results/*.tsv),
prints the Markdown tables of docs/BENCHMARKS.md, and draws the chart (matplotlib).

usage: tools/bench_chart.py [TARGET_DIR] [PNG]
       (defaults: $CARGO_TARGET_DIR or ./target, docs/benchmarks.png)
"""

import json
import math
import os
import sys
from pathlib import Path

GROUPS = [
    "add3",
    "cross",
    "ba_project",
    "ba_reproj",
    "gmm_d2_K5",
    "gmm_d10_K5",
    "matchain_16",
    "matchain_64",
    "blur_256",
    "layer_softmax",
    "kalman",
]
# Tuples, several results, scans and views (issue 17): fsmooth, hand-written and the same
# block with `#![fsmooth(views = false)]`; tables only, not in the chart.
V2_GROUPS = [
    "kalman2",
    "mean_var_1e4",
    "mean_var_1e6",
    "biquad_1e4",
    "biquad_1e6",
    "biquad_proj_1e4",
    "biquad_proj_1e6",
    "ema_1e4",
    "ema_1e6",
    "concat_1e3",
    "concat_1e6",
    "smooth3_1e4",
    "smooth3_1e6",
    "filter3x3_256",
]
V2_VARIANTS = ["fsmooth", "hand", "fsmooth-noviews"]
VARIANTS = [
    "fsmooth",
    "hand",
    "hand-ijk",
    "nalgebra",
    "ndarray",
    "naive",
    "fsmooth-D",
    "fsmooth-DF",
    "fsmooth-DFB",
]
NALGEBRA_KIND = {
    "cross": "static",
    "ba_project": "static",
    "ba_reproj": "static",
    "kalman": "static",
}
COLOURS = {
    "fsmooth": "#1f77b4",
    "hand": "#2ca02c",
    "hand-ijk": "#98df8a",
    "nalgebra": "#ff7f0e",
    "ndarray": "#9467bd",
    "naive": "#d62728",
    "fsmooth-D": "#c5b0d5",
    "fsmooth-DF": "#aec7e8",
    "fsmooth-DFB": "#17becf",
}


def criterion_dirs(target):
    """Criterion output directories: TARGET/criterion-runs/run* (one per run of the
    `kernels` bench, as tools/bench_all.sh keeps them), else TARGET/criterion."""
    runs = sorted((target / "criterion-runs").glob("run*"))
    return runs if runs else [target / "criterion"]


def run_medians(dirs, group, variant):
    """The median time per call of each run (ns)."""
    out = []
    for d in dirs:
        path = d / group / variant / "new" / "estimates.json"
        if path.is_file():
            with open(path) as f:
                out.append(json.load(f)["median"]["point_estimate"])
    return out


def middle(xs):
    xs = sorted(xs)
    if not xs:
        return None
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2


def read_tsv(path):
    if not path.is_file():
        return []
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def fmt_time(ns):
    if ns is None:
        return ""
    if ns < 1e3:
        return f"{ns:.1f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns / 1e6:.2f} ms"


def fmt_ratio(a, b):
    if a is None or b is None or b == 0:
        return ""
    return f"{a / b:.2f}"


def table(header, rows, right_from=1):
    out = ["| " + " | ".join(header) + " |"]
    out.append(
        "|" + "|".join("---" if i < right_from else "---:" for i in range(len(header))) + "|"
    )
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def v2_tables(dirs, instr, heap):
    """The tables of the tuples, scans and views workloads."""
    print("### Tuples, scans and views: instructions per call (callgrind)\n")
    rows = []
    for g in V2_GROUPS:
        i = instr.get(g, {})
        rows.append(
            [g]
            + [f"{i[v]:,.0f}" if v in i else "" for v in V2_VARIANTS]
            + [fmt_ratio(i.get("fsmooth"), i.get("hand")), fmt_ratio(i.get("fsmooth-noviews"), i.get("hand"))]
        )
    print(table(["workload"] + V2_VARIANTS + ["fsmooth / hand", "noviews / hand"], rows))
    print()
    print(f"### Tuples, scans and views: median time per call (median over {len(dirs)} criterion runs)\n")
    rows = []
    for g in V2_GROUPS:
        per_run = {v: run_medians(dirs, g, v) for v in V2_VARIANTS}
        t = {v: middle(per_run[v]) for v in V2_VARIANTS}
        f, h = per_run["fsmooth"], per_run["hand"]
        spread = sorted(a / b for a, b in zip(f, h)) if len(f) == len(h) and len(f) > 1 else []
        rows.append(
            [g]
            + [fmt_time(t[v]) for v in V2_VARIANTS]
            + [
                fmt_ratio(t["fsmooth"], t["hand"]),
                f"{spread[0]:.2f} – {spread[-1]:.2f}" if spread else "",
                fmt_ratio(t["fsmooth-noviews"], t["hand"]),
            ]
        )
    header = ["workload"] + V2_VARIANTS + ["fsmooth / hand", "per run", "noviews / hand"]
    print(table(header, rows))
    print()
    if heap:
        print("### Tuples, scans and views: heap allocations per call in steady state\n")
        rows = []
        for g in V2_GROUPS:
            h = heap.get(g, {})
            rows.append([g] + [f"{h[v][0]:,g}" if v in h else "" for v in V2_VARIANTS])
        print(table(["workload"] + V2_VARIANTS, rows))
        print()


def main():
    target = Path(
        sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CARGO_TARGET_DIR", "target")
    )
    png = Path(sys.argv[2] if len(sys.argv) > 2 else "docs/benchmarks.png")
    results = target / "bench-results"

    dirs = criterion_dirs(target)
    per_run = {g: {v: run_medians(dirs, g, v) for v in VARIANTS} for g in GROUPS}
    times = {g: {v: middle(per_run[g][v]) for v in VARIANTS} for g in GROUPS}
    instr = {}
    for g, v, ir in read_tsv(results / "instructions.tsv"):
        instr.setdefault(g, {})[v] = float(ir)
    heap = {}
    for g, v, allocs, nbytes, peak in read_tsv(results / "heap.tsv"):
        heap.setdefault(g, {})[v] = (float(allocs), float(nbytes), int(peak))
    rss = {}
    for g, v, n, kib in read_tsv(results / "rss.tsv"):
        rss.setdefault(g, {}).setdefault(v, []).append((int(n), int(kib)))

    def nalgebra_label(g):
        return f"nalgebra ({NALGEBRA_KIND.get(g, 'dynamic')})"

    print(f"### Median time per call (median over {len(dirs)} criterion runs)\n")
    rows = []
    for g in GROUPS:
        t = times[g]
        rows.append([g] + [fmt_time(t[v]) for v in VARIANTS])
    print(table(["workload"] + VARIANTS, rows))
    print()

    print("### Ratios of median times\n")
    rows = []
    for g in GROUPS:
        t = times[g]
        f, h = per_run[g]["fsmooth"], per_run[g]["hand"]
        spread = sorted(a / b for a, b in zip(f, h)) if len(f) == len(h) and len(f) > 1 else []
        rows.append(
            [
                g,
                fmt_ratio(t["fsmooth"], t["hand"]),
                f"{spread[0]:.2f} – {spread[-1]:.2f}" if spread else "",
                fmt_ratio(t["fsmooth"], t["nalgebra"]) + f" ({NALGEBRA_KIND.get(g, 'dynamic')})",
                fmt_ratio(t["fsmooth"], t["ndarray"]),
                fmt_ratio(t["naive"], t["fsmooth"]),
            ]
        )
    print(
        table(
            [
                "workload",
                "fsmooth / hand",
                "fsmooth / hand, per run",
                "fsmooth / nalgebra",
                "fsmooth / ndarray",
                "naive / fsmooth",
            ],
            rows,
        )
    )
    print()

    if instr:
        print("### Instructions per call (callgrind)\n")
        rows = []
        for g in GROUPS:
            i = instr.get(g, {})
            cells = [f"{i[v]:,.0f}" if v in i else "" for v in VARIANTS]
            rows.append([g] + cells + [fmt_ratio(i.get("fsmooth"), i.get("hand"))])
        print(table(["workload"] + VARIANTS + ["fsmooth / hand"], rows))
        print()
        print("### Ratios of instruction counts\n")
        rows = []
        for g in GROUPS:
            i = instr.get(g, {})
            rows.append(
                [
                    g,
                    fmt_ratio(i.get("fsmooth"), i.get("hand")),
                    fmt_ratio(i.get("fsmooth"), i.get("nalgebra"))
                    + f" ({NALGEBRA_KIND.get(g, 'dynamic')})",
                    fmt_ratio(i.get("fsmooth"), i.get("ndarray")),
                    fmt_ratio(i.get("naive"), i.get("fsmooth")),
                ]
            )
        print(
            table(
                [
                    "workload",
                    "fsmooth / hand",
                    "fsmooth / nalgebra",
                    "fsmooth / ndarray",
                    "naive / fsmooth",
                ],
                rows,
            )
        )
        print()
    v2_tables(dirs, instr, heap)
    probes = read_tsv(results / "probes.tsv")
    if probes:
        print("### Code-generation probes: instructions per run (callgrind)\n")
        print(table(["probe", "instructions"], [[p, f"{float(n):,.0f}"] for p, n in probes]))
        print()

    if heap:
        print("### Heap per call in steady state: allocations / peak extra bytes\n")
        rows = []
        for g in GROUPS:
            h = heap.get(g, {})
            cells = []
            for v in VARIANTS:
                if v in h:
                    allocs, _, peak = h[v]
                    cells.append(f"{allocs:,g} / {peak:,}")
                else:
                    cells.append("")
            rows.append([g] + cells)
        print(table(["workload"] + VARIANTS, rows))
        print()

    if rss:
        counts = sorted({n for g in rss.values() for pts in g.values() for n, _ in pts})
        print("### Peak RSS (KiB) against calls\n")
        rows = []
        for g in rss:
            for v in VARIANTS:
                if v in rss[g]:
                    by_n = dict(rss[g][v])
                    rows.append([g, v] + [str(by_n.get(n, "")) for n in counts])
        print(table(["workload", "variant"] + [f"10^{round(math.log10(n))}" for n in counts], rows, 2))
        print()

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is missing (pip install matplotlib): no chart", file=sys.stderr)
        return

    panels = 3 if rss else 2
    fig, axes = plt.subplots(panels, 1, figsize=(12, 4.2 * panels))
    width = 0.9 / len(VARIANTS)

    def bars(ax, data, title, ylabel):
        for k, v in enumerate(VARIANTS):
            xs, ys = [], []
            for gi, g in enumerate(GROUPS):
                d = data.get(g, {})
                if d.get(v) is not None and d.get("hand"):
                    xs.append(gi + (k - (len(VARIANTS) - 1) / 2) * width)
                    ys.append(d[v] / d["hand"])
            if xs:
                label = v if v != "nalgebra" else "nalgebra (static where sizes are)"
                ax.bar(xs, ys, width, label=label, color=COLOURS[v])
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(GROUPS)))
        ax.set_xticklabels(GROUPS, rotation=20, ha="right")
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", which="both", alpha=0.3)

    bars(axes[0], times, "Median wall time per call, relative to hand-written (log scale; noisy shared machine)", "time / hand")
    axes[0].legend(ncol=6, fontsize=8, loc="upper left")
    bars(axes[1], instr, "Instructions per call (callgrind), relative to hand-written (log scale)", "instructions / hand")
    if rss:
        ax = axes[2]
        for g, style in (("add3", "-"), ("cross", "--")):
            for v in VARIANTS:
                pts = sorted(rss.get(g, {}).get(v, []))
                if pts:
                    ax.plot(
                        [n for n, _ in pts],
                        [kib / 1024 for _, kib in pts],
                        style,
                        marker="o",
                        color=COLOURS[v],
                        label=f"{g} {v}",
                    )
        ax.set_xscale("log")
        ax.set_ylim(0, 1.25 * max(kib for g in rss.values() for p in g.values() for _, kib in p) / 1024)
        ax.set_xlabel("calls")
        ax.set_ylabel("peak RSS (MiB)")
        ax.set_title("Peak RSS against the number of calls (paper Fig. 11b/d)")
        ax.legend(ncol=5, fontsize=7)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=110)
    print(f"chart: {png}", file=sys.stderr)


if __name__ == "__main__":
    main()
