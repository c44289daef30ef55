#!/usr/bin/env bash
# Cross-check the small dam break against SPlisHSPlasH's own PBF on the same scene: both write a
# frame every 0.1 s to t = 1.5 s; a table of the highest particle overall, at the side walls
# (|z| > 0.6) and at the far wall (x > 1.8), the mean kinetic, potential (from y = 0) and
# mechanical energy per kg, and the height of the bottom layer (median height, in r, of the
# particles less than r above the lowest one), side by side; the same rows into CSV_OUT if set.
# The split shows where the two codes' energies part: which the water moves, and where it rides.
# Needs the peer's install (../shared/peers/splishsplash-pbf installs it once into
# ~/.cache/pbf-peers) and VTK for Python (pip install vtk). Not part of CI: it is a comparison to
# read, not a pass/fail test. RADIUS and DT (defaults 0.025 and 0.004, the config's) run both
# codes at another resolution (RADIUS=0.0125 DT=0.002: 59,319 particles each, 5-8 minutes on 2 cores),
# to see which part of the energy each loses is numerical (it shrinks as r does).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${PEERS_HOME:-$HOME/.cache/pbf-peers}/splishsplash
[[ -x $venv/bin/splash ]] || { echo "run ../shared/peers/splishsplash-pbf once to install the peer" >&2; exit 2; }
libs=$(ls -d "$venv"/lib/python3*/site-packages/pysplishsplash.libs | head -n 1)
r=${RADIUS:-0.025}  # particles.radius of configs/dam_break_small.toml
dt=${DT:-0.004}     # its time.dt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/scene.json" <<EOF
{
  "Configuration": {
    "particleRadius": $r, "simulationMethod": 2, "gravitation": [0, -9.81, 0],
    "timeStepSize": $dt, "cflMethod": 0, "stopAt": 1.5, "enableVTKExport": true,
    "dataExportFPS": 10, "particleAttributes": "velocity", "enablePartioExport": false,
    "boundaryHandlingMethod": 2,
    "PBF": { "minIterations": 3, "maxIterations": 3, "maxError": 0.0, "velocityUpdateMethod": 0 }
  },
  "Materials": [ { "id": "Fluid", "density0": 1000, "viscosityMethod": 0, "vorticityMethod": 2,
    "XSPH": { "xsph": 0.01, "xsphBoundary": 0.0 }, "Vorticity confinement": { "vorticity": 0.01 } } ],
  "RigidBodies": [ { "geometryFile": "$venv/bin/data/models/UnitBox.obj", "translation": [0, 1.5, 0],
    "scale": [4, 3, 1.5], "isDynamic": false, "isWall": true, "mapInvert": true,
    "mapThickness": 0.0, "mapResolution": [40, 30, 15] } ],
  "FluidBlocks": [ { "denseMode": 0, "start": [-1.95, 0.05, -0.5], "end": [-0.95, 1.05, 0.5] } ]
}
EOF
LD_PRELOAD="$(ls "$libs"/libGLdispatch-*.so* | head -n 1) $(ls "$libs"/libGLX-*.so* | head -n 1)" \
  OMP_NUM_THREADS=2 "$venv/bin/splash" --no-gui --no-cache --output-dir "$work/peer" "$work/scene.json" >"$work/log.txt" 2>&1
cargo run --release --quiet -- run configs/dam_break_small.toml --until 1.5 --set output.fps=10 \
  --set particles.radius="$r" --set time.dt="$dt" -o "$work/ours" --quiet
python3 - "$work" "$r" <<'EOF'
import os, sys, numpy as np, vtk
from vtk.util.numpy_support import vtk_to_numpy
work, R = sys.argv[1], float(sys.argv[2])
def read(path):
    r = vtk.vtkXMLUnstructuredGridReader() if path.endswith(".vtu") else vtk.vtkGenericDataObjectReader()
    r.SetFileName(path); r.Update(); g = r.GetOutput()
    return vtk_to_numpy(g.GetPoints().GetData()), vtk_to_numpy(g.GetPointData().GetArray("velocity"))
# What row() returns, in order (the CSV's columns for each code, the chart's curves).
COLS = ["top_m", "side_top_m", "far_top_m", "kinetic_J_kg", "potential_J_kg", "mechanical_J_kg", "floor_r"]
def row(p, v):
    side, far = p[np.abs(p[:, 2]) > 0.6], p[p[:, 0] > 1.8]
    ke, pe = (0.5 * (v ** 2).sum(1)).mean(), (9.81 * p[:, 1]).mean()
    y = p[:, 1]
    floor = np.median(y[y < y.min() + R]) / R
    top = lambda q: q[:, 1].max() if len(q) else 0.0
    return [top(p), top(side), top(far), ke, pe, ke + pe, floor]
fmt = lambda r: "{:6.2f} {:6.2f} {:6.2f} {:5.2f} {:5.2f} {:6.2f} {:5.2f}".format(*r)
print("  t s |  pbf: top   side    far    KE    PE  E J/kg floor r | SPlisHSPlasH: the same")
rows = []
for k in range(0, 16):
    o = row(*read(f"{work}/ours/frame_{k:05d}.vtu"))
    s = row(*read(f"{work}/peer/vtk/ParticleData_Fluid_{k + 1}.vtk"))
    rows.append([k / 10] + o + s)
    print(f"{k / 10:5.1f} | {fmt(o)} | {fmt(s)}")
if os.environ.get("CSV_OUT"):
    with open(os.environ["CSV_OUT"], "w") as f:
        f.write(",".join(["time_s"] + ["pbf_" + c for c in COLS] + ["peer_" + c for c in COLS]) + "\n")
        for r in rows:
            f.write(",".join(f"{x:.6g}" for x in r) + "\n")
if os.environ.get("CHART_OUT"):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    a = np.array(rows)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [2, 1]})
    for (name, first, style) in [("pbf", 1, "-"), ("SPlisHSPlasH", 1 + len(COLS), "--")]:
        col = lambda c: a[:, first + COLS.index(c)]
        ax.plot(a[:, 0], col("kinetic_J_kg"), "C0" + style, label=f"{name} kinetic")
        ax.plot(a[:, 0], col("potential_J_kg"), "C1" + style, label=f"{name} potential (from y = 0)")
        ax.plot(a[:, 0], col("mechanical_J_kg"), "C2" + style, label=f"{name} mechanical")
        bx.plot(a[:, 0], col("floor_r"), "k" + style, label=name)
    ax.set_xlabel("t (s)"); ax.set_ylabel("J per kg"); ax.grid(alpha=0.3); ax.legend(fontsize=8)
    ax.set_title(f"dam_break_small, r = {R:g} m: energy per kg, solid pbf, dashed SPlisHSPlasH")
    bx.set_xlabel("t (s)"); bx.set_ylabel("bottom layer's height (r)"); bx.set_ylim(0, 4.5)
    bx.grid(alpha=0.3); bx.legend(fontsize=8); bx.set_title("where the bottom layer rides")
    fig.tight_layout(); fig.savefig(os.environ["CHART_OUT"], dpi=110)
EOF
