#!/usr/bin/env python3
"""Mechanical energy against time, as a fraction of the start, from `energy.csv` files; or any
other column of them as it is.

usage: plot_energy.py [--column NAME] [--log] OUT.png TITLE LABEL=DIR/energy.csv ...
       [LABEL=t:v,t:v,...]

A series is either a run's `energy.csv` (`mechanical_J` over its first row, or the column
`--column` names, e.g. `speed_mean_m_s`) or a list of `time:value` pairs (figures measured
elsewhere, e.g. SPlisHSPlasH's from its frames). `--log`: a logarithmic value axis.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def series(spec, column):
    if spec.endswith(".csv"):
        rows = list(csv.DictReader(open(spec)))
        t = [float(r["time_s"]) for r in rows]
        if column:
            return t, [float(r[column]) for r in rows]
        e0 = float(rows[0]["mechanical_J"])
        return t, [float(r["mechanical_J"]) / e0 for r in rows]
    pairs = [p.split(":") for p in spec.split(",")]
    return [float(t) for t, _ in pairs], [float(v) for _, v in pairs]


def main():
    args, column, log = sys.argv[1:], None, False
    while args and args[0].startswith("--"):
        flag = args.pop(0)
        if flag == "--column":
            column = args.pop(0)
        elif flag == "--log":
            log = True
        else:
            sys.exit(f"plot_energy.py: unknown option {flag}")
    out, title, specs = args[0], args[1], args[2:]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for spec in specs:
        label, path = spec.split("=", 1)
        t, e = series(path, column)
        style = "o--" if not path.endswith(".csv") else "-"
        ax.plot(t, e, style, label=f"{label} ({e[-1]:.3g} at {t[-1]:.1f} s)", ms=4)
    ax.set_xlabel("t [s]")
    ax.set_ylabel(column or "mechanical energy / start")
    if log:
        ax.set_yscale("log")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
