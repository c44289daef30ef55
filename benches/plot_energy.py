#!/usr/bin/env python3
"""Mechanical energy against time, as a fraction of the start, from `energy.csv` files.

usage: plot_energy.py OUT.png TITLE LABEL=DIR/energy.csv ... [LABEL=t:v,t:v,...]

A series is either a run's `energy.csv` (`mechanical_J` over its first row) or a list of
`time:fraction` pairs (figures measured elsewhere, e.g. SPlisHSPlasH's from its frames).
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def series(spec):
    if spec.endswith(".csv"):
        rows = list(csv.DictReader(open(spec)))
        e0 = float(rows[0]["mechanical_J"])
        return [float(r["time_s"]) for r in rows], [float(r["mechanical_J"]) / e0 for r in rows]
    pairs = [p.split(":") for p in spec.split(",")]
    return [float(t) for t, _ in pairs], [float(v) for _, v in pairs]


def main():
    out, title, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for spec in specs:
        label, path = spec.split("=", 1)
        t, e = series(path)
        style = "o--" if not path.endswith(".csv") else "-"
        ax.plot(t, e, style, label=f"{label} ({e[-1]:.3f} at {t[-1]:.1f} s)", ms=4)
    ax.set_xlabel("t [s]")
    ax.set_ylabel("mechanical energy / start")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
