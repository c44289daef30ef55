#!/usr/bin/env python3
"""Read every frame of one or more pbf runs with VTK's own readers, the ones ParaView uses.

Usage: python3 tests/vtk_readback.py OUT_DIR/scene.pvd|OUT_DIR/scene.vtk.series [...]

A .pvd may list .pvtu files (an MPI run's frames in pieces, read by vtkXMLPUnstructuredGridReader):
their ids must then be each of 0..n-1 once rather than in order.

For each series (.pvd for .vtu frames, .vtk.series for legacy .vtk frames): every listed frame (.vtu through vtkXMLUnstructuredGridReader, legacy .vtk through
vtkUnstructuredGridReader) must hold one VERTEX cell per point, the point arrays density, id,
neighbors, velocity (3 components) and vorticity (3), ids 0..n-1 in order, finite values, and the
frame times must increase. .ci/run installs VTK (pip install vtk) and runs this on a short dam break.
Exits non-zero on the first failure.
"""
import json
import math
import os
import sys
import xml.etree.ElementTree as ET

import vtk
from vtk.util.numpy_support import vtk_to_numpy


def read(path):
    if path.endswith(".pvtu"):
        # A frame in pieces (an MPI run): the parallel reader joins them.
        r = vtk.vtkXMLPUnstructuredGridReader()
    elif path.endswith(".vtu"):
        r = vtk.vtkXMLUnstructuredGridReader()
    else:
        r = vtk.vtkUnstructuredGridReader()
        r.ReadAllScalarsOn()
        r.ReadAllVectorsOn()
        r.ReadAllFieldsOn()
    r.SetFileName(path)
    r.Update()
    return r.GetOutput()


def listed(series):
    """(time, file) of every frame a .pvd or .vtk.series lists."""
    if series.endswith(".series"):
        with open(series) as f:
            doc = json.load(f)
        assert doc["file-series-version"] == "1.0", f"{series}: version {doc['file-series-version']}"
        return [(float(e["time"]), e["name"]) for e in doc["files"]]
    return [(float(d.get("timestep")), d.get("file")) for d in ET.parse(series).getroot().findall(".//DataSet")]


def check(pvd):
    frames = listed(pvd)
    assert frames, f"{pvd}: no frames listed"
    times = [t for t, _ in frames]
    assert all(a < b for a, b in zip(times, times[1:])), f"{pvd}: times do not increase"
    for idx, (_, file) in enumerate(frames):
        path = os.path.join(os.path.dirname(pvd), file)
        g = read(path)
        n = g.GetNumberOfPoints()
        assert n > 0, f"{path}: no points"
        assert g.GetNumberOfCells() == n, f"{path}: {g.GetNumberOfCells()} cells for {n} points"
        types = {g.GetCellType(i) for i in range(n)}
        assert types == {vtk.VTK_VERTEX}, f"{path}: cell types {types}"
        pd = g.GetPointData()
        names = sorted(pd.GetArrayName(i) for i in range(pd.GetNumberOfArrays()))
        assert names == ["density", "id", "neighbors", "velocity", "vorticity"], f"{path}: {names}"
        a = {k: vtk_to_numpy(pd.GetArray(k)) for k in names}
        assert a["velocity"].shape == (n, 3) and a["vorticity"].shape == (n, 3), path
        if path.endswith(".pvtu"):
            # Pieces hold each process's particles: together, every id once.
            assert sorted(a["id"]) == list(range(n)), f"{path}: ids not each of 0..n-1 once"
        else:
            assert (a["id"] == range(n)).all(), f"{path}: ids not 0..n-1 in order"
        for k in ("density", "velocity", "vorticity"):
            assert all(math.isfinite(x) for x in a[k].ravel()), f"{path}: {k} not finite"
        # Frame 0 is the initial state, before any search (neighbors 0).
        if idx > 0:
            assert (a["neighbors"] >= 1).all(), f"{path}: a particle without itself as neighbor"
    rho = sorted(a["density"])
    print(f"{pvd}: {len(frames)} frames of {n} points read by VTK {vtk.vtkVersion.GetVTKVersion()}, "
          f"t = {times[0]}..{times[-1]} s, last frame median density {rho[n // 2]:.1f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        check(p)
