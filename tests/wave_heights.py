#!/usr/bin/env python3
"""Wave height per period at several distances along a flume (configs/piston_flume.toml).

Usage: python3 tests/wave_heights.py OUT_DIR [--fps 50] [--x 0.3,0.6,1.0,1.5] [--from 1.5]
                                            [--chart PNG]

Reads the frames (`frame_*.vtu`, VTK Python bindings), takes the free surface at each x as the
mean height of the three highest particles within 2 r of it, and prints the crest-to-trough
height in each whole period (1 s) from `--from` on, in mm, beside Biesel's 40.5 mm. With
`--chart`, also draws the surface elevation against time at each x (matplotlib), with the
theory's crest and trough.
"""
import argparse
import glob

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--fps", type=float, default=50.0)
ap.add_argument("--x", default="0.3,0.6,1.0,1.5")
ap.add_argument("--from", dest="start", type=float, default=1.5)
ap.add_argument("--period", type=float, default=1.0)
ap.add_argument("--window", type=float, default=0.016, help="half width in x [m] (2r)")
ap.add_argument("--chart", help="write a chart of the surface elevation to this PNG")
ap.add_argument("--theory", type=float, default=40.5, help="wave height H from theory [mm]")
a = ap.parse_args()
xs = [float(x) for x in a.x.split(",")]
files = sorted(glob.glob(a.out + "/frame_*.vtu"))
ts, eta = [], {x: [] for x in xs}
for k, f in enumerate(files):
    t = k / a.fps
    if t < a.start and not a.chart:
        continue
    r = vtk.vtkXMLUnstructuredGridReader()
    r.SetFileName(f)
    r.Update()
    p = vtk_to_numpy(r.GetOutput().GetPoints().GetData())
    ts.append(t)
    for x in xs:
        ys = np.sort(p[np.abs(p[:, 0] - x) < a.window, 1])
        eta[x].append(ys[-3:].mean())
ts = np.array(ts)
print(f"wave height per period [mm] (theory: {a.theory})")
for x in xs:
    e = np.array(eta[x])
    hs = []
    t0 = a.start
    while ((ts >= t0) & (ts < t0 + a.period)).sum() >= 0.9 * a.period * a.fps:
        m = (ts >= t0) & (ts < t0 + a.period)
        hs.append(np.ptp(e[m]) * 1000)
        t0 += a.period
    print(f"x = {x:.2f} m: " + ", ".join(f"{h:.1f}" for h in hs))

if a.chart:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(xs), 1, figsize=(8, 1.8 * len(xs)), sharex=True)
    for ax, x in zip(np.atleast_1d(axes), xs):
        e = np.array(eta[x])
        rest = e[0]
        ax.plot(ts, (e - rest) * 1000, lw=1.2, label="simulated surface")
        mean = np.mean((e[ts >= a.start] - rest) * 1000) if (ts >= a.start).any() else 0.0
        for sgn in (1, -1):
            ax.axhline(mean + sgn * a.theory / 2, color="k", ls="--", lw=0.8)
        ax.set_ylabel(f"x = {x:.1f} m\n[mm]")
        ax.grid(alpha=0.3)
    np.atleast_1d(axes)[0].set_title(
        f"surface elevation; dashed: crest and trough of the theory's {a.theory} mm wave"
    )
    np.atleast_1d(axes)[-1].set_xlabel("t [s]")
    fig.tight_layout()
    fig.savefig(a.chart, dpi=110)
    print(f"wrote {a.chart}")
