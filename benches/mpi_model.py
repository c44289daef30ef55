#!/usr/bin/env python3
"""The step of `mpirun -np P pbf run` at 16-64 processes, modelled from this machine's
measurements (weak scaling, 250k particles per process; docs/results.md, "Beyond one machine").

Usage: python3 benches/mpi_model.py [OUT.svg]   (prints the table; draws the chart if asked)

Model, per process and step (the exchanges are not overlapped with computing):
    T = c (n + g) + B g / bandwidth + m(P) latency
  c   seconds per particle-step on one core (measured: 1 process, 1 thread, 250k particles);
  n   250,000 owned particles; g ghosts (copies of the neighbours' boundary cell planes);
  B   bytes sent per ghost and step (measured: 48 for the particle, 136 for the refreshes:
      3 x lambda and 3 x position (16 B each), density (4), velocity+volume (16),
      vorticity (16) and its |w| (4));
  m   messages per step: 24 neighbour exchanges (2 ghost shifts x count+data, 10 refreshes x 2
      directions) and 8 collectives (3 density-error sums, finite check, plane histogram, step
      time, migration counts and data), each collective log2(P) latencies (alltoall: P).
Two ways to grow the problem with P:
  channel: the domain grows along the slab axis: the cross-section stays 63 x 63 lattice
           sites, g = 2 sides x 2 lattice layers (one cell of h = 4r) x 63^2 = 15,876;
  cube:    the domain grows in all three directions: side s = (250,000 P)^(1/3) sites, slabs
           s / (2P) cells thick (at least one), g = 4 s^2: slabs get thin, ghosts grow as P^(2/3).
"""
import math
import sys

# Measured on this machine (AMD EPYC Zen 5, 2 vCPUs), 40 steps of the dam break, medians of 3.
C = 0.11064 / 250_047          # s per particle-step, 1 thread
B_GHOST = 48 + 136              # bytes per ghost per step
MEASURED = {1: (0.11064, 0.0), 2: (0.12864, 0.01396), 4: (0.30103, 0.05409)}  # s/step, exchange
N = 250_000
NETWORKS = {
    "InfiniBand EDR (100 Gb/s, 1.5 us)": (12.5e9, 1.5e-6),
    "10 GbE (1.25 GB/s, 30 us)": (1.25e9, 30e-6),
}


def ghosts(p, geometry):
    if p == 1:
        return 0.0
    if geometry == "channel":
        return 2 * 2 * 63 ** 2
    s = (N * p) ** (1 / 3)
    return 4 * s * s


def step(p, geometry, net):
    bw, lat = NETWORKS[net]
    g = ghosts(p, geometry)
    messages = 0 if p == 1 else 24 + 7 * math.log2(p) + p
    compute = C * (N + g)
    comm = B_GHOST * g / bw + messages * lat
    return compute, comm


def main():
    ps = [1, 2, 4, 8, 16, 32, 64]
    print("| P | geometry | ghosts per process | MB sent per process per step | "
          + " | ".join(f"step at {n.split(' (')[0]} (ms)" for n in NETWORKS) + " | efficiency |")
    print("|---|---|---|---|" + "---|" * len(NETWORKS) + "---|")
    for geometry in ("channel", "cube"):
        for p in ps:
            g = ghosts(p, geometry)
            cells = (N * p) ** (1 / 3) / (2 * p)
            times = [sum(step(p, geometry, n)) for n in NETWORKS]
            eff = step(1, geometry, next(iter(NETWORKS)))[0] / times[0]
            thin = " (slabs %.1f cells)" % cells if geometry == "cube" else ""
            print(f"| {p} | {geometry}{thin} | {g:,.0f} | {B_GHOST * g / 1e6:.2f} | "
                  + " | ".join(f"{t * 1e3:.0f}" for t in times) + f" | {eff:.2f} |")
    if len(sys.argv) > 1:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7.5, 4.5))
        for geometry, style in (("channel", "-"), ("cube", "--")):
            for (net, color) in zip(NETWORKS, ("tab:blue", "tab:orange")):
                ax.plot(ps, [sum(step(p, geometry, net)) * 1e3 for p in ps], style, color=color,
                        marker="o", ms=3, label=f"model, {geometry}, {net}")
        ax.plot([1, 2], [MEASURED[p][0] * 1e3 for p in (1, 2)], "ks",
                label="measured here (1 and 2 processes on 2 cores)")
        ax.plot([4], [MEASURED[4][0] * 1e3], "k^",
                label="measured, 4 processes on 2 cores (two per core)")
        ax.plot([4], [MEASURED[4][0] * 1e3 / 2], "k^", mfc="none",
                label="the same, halved (one core each)")
        ax.set_xscale("log", base=2)
        ax.set_xticks(ps, [str(p) for p in ps])
        ax.set_xlabel("processes P (250k particles each, 1 core each)")
        ax.set_ylabel("ms per step")
        ax.set_ylim(0, 340)
        ax.set_title("Weak scaling of the PBF step over MPI slabs: measured and modelled")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
        fig.tight_layout()
        fig.savefig(sys.argv[1])
        print(f"chart: {sys.argv[1]}")


if __name__ == "__main__":
    main()
