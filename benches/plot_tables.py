#!/usr/bin/env python3
"""Tables 1 and 2 of the AABB paper beside `pbf compare` runs, as one bar chart.

Usage: python3 benches/plot_tables.py OUT.svg LABEL=DIR_OR_GLOB [LABEL=...]

Each LABEL=... names one set of five `compare.json` files (one per paper scene), given as a
pattern with `{scene}` in it, e.g.
    avx512=benches/results/compare_{scene}_st_zen4.json
    portable=/tmp/port/{scene}/compare.json
where {scene} runs over dam_break_paper, paper_2_chunks, paper_3_plates, paper_4_wave and
paper_5_cylinders. The chart has two panels: the reduction in construction + search (Table 1)
and the candidates pruned (Table 2), per scene and averaged, with the paper's figures first.
It also prints the numbers as a markdown table.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SCENES = ["dam_break_paper", "paper_2_chunks", "paper_3_plates", "paper_4_wave",
          "paper_5_cylinders"]
NAMES = ["1 dam break", "2 chunks", "3 plates", "4 wave", "5 cylinders"]
# The paper's Table 1 (construction + search, s) and Table 2 (search target particles).
PAPER_CS = [(1.703, 1.367), (1.760, 1.432), (2.518, 1.927), (0.912, 0.741), (2.617, 2.016)]
PAPER_CAND = [(427299320.7, 282275071.5), (508952655.3, 339531792.0),
              (347312760.0, 234841325.1), (407398749.8, 266156459.9),
              (367846109.7, 242378598.4)]


def reduction(a, b):
    return 100.0 * (a - b) / a


def load(pattern):
    cs, cand = [], []
    for s in SCENES:
        with open(pattern.replace("{scene}", s)) as f:
            d = json.load(f)
        u, p = d["unpruned"], d["pruned"]
        cs.append(reduction(u["construction_and_search_s"], p["construction_and_search_s"]))
        cand.append(reduction(u["candidates"], p["candidates"]))
    return cs, cand


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out = sys.argv[1]
    series = [("paper", [reduction(*x) for x in PAPER_CS],
               [reduction(*x) for x in PAPER_CAND])]
    for arg in sys.argv[2:]:
        label, pattern = arg.split("=", 1)
        series.append((label, *load(pattern)))

    print("| scene | " + " | ".join(f"{lab}: c+s, candidates" for lab, _, _ in series) + " |")
    print("| --- |" + " ---: |" * len(series))
    for k, name in enumerate(NAMES + ["mean"]):
        cells = []
        for _, cs, cand in series:
            a = cs[k] if k < 5 else sum(cs) / 5
            b = cand[k] if k < 5 else sum(cand) / 5
            cells.append(f"{a:.1f}%, {b:.1f}%")
        print(f"| {name} | " + " | ".join(cells) + " |")

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    groups = NAMES + ["mean"]
    width = 0.8 / len(series)
    for panel, (ax, title) in enumerate(zip(axes, [
            "construction + search: reduction with pruning (Table 1)",
            "candidates pruned (Table 2)"])):
        for j, (label, cs, cand) in enumerate(series):
            vals = cs if panel == 0 else cand
            vals = vals + [sum(vals) / 5]
            xs = [g + (j - (len(series) - 1) / 2) * width for g in range(len(groups))]
            ax.bar(xs, vals, width, label=label)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(groups, rotation=20)
        ax.set_ylabel("%")
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_title(title, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out)


if __name__ == "__main__":
    main()
