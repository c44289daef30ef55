#!/usr/bin/env bash
# Cross-check the small dam break against SPlisHSPlasH's own PBF on the same scene: both write a
# frame every 0.1 s to t = 1.5 s; a table of the highest particle overall, at the side walls
# (|z| > 0.6) and at the far wall (x > 1.8), and the mean mechanical energy per kg, side by side.
# Needs the peer's install (../shared/peers/splishsplash-pbf installs it once into
# ~/.cache/pbf-peers) and VTK for Python (pip install vtk). Not part of CI: it is a comparison to
# read, not a pass/fail test.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${PEERS_HOME:-$HOME/.cache/pbf-peers}/splishsplash
[[ -x $venv/bin/splash ]] || { echo "run ../shared/peers/splishsplash-pbf once to install the peer" >&2; exit 2; }
libs=$(ls -d "$venv"/lib/python3*/site-packages/pysplishsplash.libs | head -n 1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/scene.json" <<EOF
{
  "Configuration": {
    "particleRadius": 0.025, "simulationMethod": 2, "gravitation": [0, -9.81, 0],
    "timeStepSize": 0.004, "cflMethod": 0, "stopAt": 1.5, "enableVTKExport": true,
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
cargo run --release --quiet -- run configs/dam_break_small.toml --until 1.5 --set output.fps=10 -o "$work/ours" --quiet
python3 - "$work" <<'EOF'
import sys, numpy as np, vtk
from vtk.util.numpy_support import vtk_to_numpy
work = sys.argv[1]
def read(path):
    r = vtk.vtkXMLUnstructuredGridReader() if path.endswith(".vtu") else vtk.vtkGenericDataObjectReader()
    r.SetFileName(path); r.Update(); g = r.GetOutput()
    return vtk_to_numpy(g.GetPoints().GetData()), vtk_to_numpy(g.GetPointData().GetArray("velocity"))
def row(p, v):
    side, far = p[np.abs(p[:, 2]) > 0.6], p[p[:, 0] > 1.8]
    e = (0.5 * (v ** 2).sum(1) + 9.81 * p[:, 1]).mean()
    top = lambda q: q[:, 1].max() if len(q) else 0.0
    return f"{top(p):6.2f} {top(side):6.2f} {top(far):6.2f} {e:6.2f}"
print("  t s |  pbf: top   side    far  E J/kg | SPlisHSPlasH: top side far E")
for k in range(1, 16):
    o = read(f"{work}/ours/frame_{k:05d}.vtu")
    s = read(f"{work}/peer/vtk/ParticleData_Fluid_{k + 1}.vtk")
    print(f"{k / 10:5.1f} | {row(*o)} | {row(*s)}")
EOF
