"""Open a pbf run in ParaView itself, check what it loaded, and render frames to PNG.

Usage: pvbatch tests/paraview_render.py OUT_DIR/scene.pvd|OUT_DIR/scene.vtk.series PNG_DIR [TIME ...]
(under a display, or `xvfb-run -a pvbatch ...` on a headless machine).

Goes through the reader ParaView picks for the file (its .pvd reader, or its file-series reader
with the legacy VTK reader), as for a user who opens the file in the GUI:
- the time series must hold as many time steps as the file lists frames, with the same times;
- every frame must have the same point count, one cell per point, and the point arrays
  density, id, neighbors, velocity (3 components) and vorticity (3);
- at each TIME (default 0, 0.5, 1, 1.5, 2, 3, 4 s, those within the run) it renders the particles
  as Points colored by velocity magnitude, camera looking along -z at the tank, into
  PNG_DIR/t_<time>.png, and prints the water's front (largest x), its height (largest y) and its
  height within 0.2 m of the front (once the front is at the +x wall, how far it has run up the
  wall), so what the pictures show is also in numbers.
Exits non-zero on the first failure.
"""
import os
import sys

from paraview import servermanager
from paraview.simple import (
    Box,
    ColorBy,
    GetActiveViewOrCreate,
    GetDisplayProperties,
    OpenDataFile,
    Render,
    SaveScreenshot,
    Show,
)
from paraview.vtk.util.numpy_support import vtk_to_numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vtk_readback  # noqa: E402  (the series parser; imports only VTK, which ParaView has)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    pvd, png_dir = sys.argv[1], sys.argv[2]
    wanted = [float(t) for t in sys.argv[3:]] or [0, 0.5, 1, 1.5, 2, 3, 4]
    listed = [t for t, _ in vtk_readback.listed(pvd)]
    src = OpenDataFile(pvd)
    if src is None:
        sys.exit(f"{pvd}: ParaView found no reader for it")
    times = list(src.TimestepValues)
    assert len(times) == len(listed), f"{pvd}: ParaView sees {len(times)} time steps, the file lists {len(listed)}"
    assert all(abs(a - b) < 1e-9 for a, b in zip(times, listed)), f"{pvd}: times differ from the file's"
    os.makedirs(png_dir, exist_ok=True)

    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = [1280, 720]
    view.OrientationAxesVisibility = 0
    disp = GetDisplayProperties(src, view)
    disp.SetRepresentationType("Points")
    disp.PointSize = 2
    ColorBy(disp, ("POINTS", "velocity", "Magnitude"))
    lut = disp.LookupTable
    lut.RescaleTransferFunction(0.0, 5.0)
    disp.SetScalarBarVisibility(view, True)

    n0 = None
    lo, hi = [float("inf")] * 3, [float("-inf")] * 3
    for t in times:
        src.UpdatePipeline(t)
        g = servermanager.Fetch(src)
        n = g.GetNumberOfPoints()
        n0 = n if n0 is None else n0
        assert n == n0 > 0, f"{pvd} t={t}: {n} points, first frame had {n0}"
        assert g.GetNumberOfCells() == n, f"{pvd} t={t}: {g.GetNumberOfCells()} cells for {n} points"
        pd = g.GetPointData()
        names = sorted(pd.GetArrayName(i) for i in range(pd.GetNumberOfArrays()))
        assert names == ["density", "id", "neighbors", "velocity", "vorticity"], f"{pvd} t={t}: {names}"
        for k in ("velocity", "vorticity"):
            assert pd.GetArray(k).GetNumberOfComponents() == 3, f"{pvd} t={t}: {k} not 3 components"
        b = g.GetBounds()
        lo = [min(lo[a], b[2 * a]) for a in range(3)]
        hi = [max(hi[a], b[2 * a + 1]) for a in range(3)]

    # The box the water ever filled (the tank, once it has spread), as a wireframe; the camera
    # looks at it from the front, a little from above and from the right.
    box = Box(XLength=hi[0] - lo[0], YLength=hi[1] - lo[1], ZLength=hi[2] - lo[2],
              Center=[(lo[a] + hi[a]) / 2 for a in range(3)])
    Show(box, view).SetRepresentationType("Outline")
    c = [(lo[a] + hi[a]) / 2 for a in range(3)]
    Render(view)  # the first render resets the camera; place it after that
    cam = view.GetActiveCamera()
    cam.SetFocalPoint(*c)
    cam.SetPosition(c[0] + 0.25 * (hi[0] - lo[0]), c[1] + 0.4 * (hi[1] - lo[1]), c[2] + 3 * (hi[0] - lo[0]))
    cam.SetViewUp(0, 1, 0)
    view.ResetCamera(lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])
    cam.Dolly(1.3)

    for want in wanted:
        if want > times[-1] + 1e-9:
            continue
        t = min(times, key=lambda x: abs(x - want))
        view.ViewTime = t
        src.UpdatePipeline(t)
        Render(view)
        out = os.path.join(png_dir, f"t_{t:.2f}.png")
        SaveScreenshot(out, view, ImageResolution=[1280, 720])
        p = vtk_to_numpy(servermanager.Fetch(src).GetPoints().GetData())
        xmax = p[:, 0].max()
        wall = p[p[:, 0] > xmax - 0.2]
        print(f"t = {t:.2f} s: front x = {xmax:.3f} m, top y = {p[:, 1].max():.3f} m, "
              f"height within 0.2 m of the front y = {wall[:, 1].max():.3f} m -> {out}")
    print(f"{pvd}: {servermanager.vtkSMProxyManager.GetParaViewSourceVersion()} "
          f"opened {len(times)} time steps of {n0} points")


main()
