"""Render a still of a pbf run in ParaView: the particles colored by speed, and the obstacles'
surfaces when the run has them (the `<scene>_obstacles.pvd` series beside the fluid's).

Usage: pvbatch tests/render_still.py OUT_DIR/scene.pvd TIME PNG [--view x|z]
(`xvfb-run -a pvbatch ...` on a headless machine). The camera looks along -z (default) or -x at
the whole scene; the PNG is 1200 x 700.
"""
import os
import sys

from paraview.simple import (
    ColorBy,
    GetActiveViewOrCreate,
    GetDisplayProperties,
    OpenDataFile,
    Render,
    ResetCamera,
    SaveScreenshot,
    Show,
)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    pvd, time, png = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    along_x = "--view" in sys.argv and sys.argv[sys.argv.index("--view") + 1] == "x"
    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = [1200, 700]
    view.Background = [1.0, 1.0, 1.0]
    try:
        view.UseColorPaletteForBackground = 0
    except AttributeError:
        pass
    view.OrientationAxesVisibility = 0
    view.ViewTime = time
    fluid = OpenDataFile(pvd)
    shown = Show(fluid, view)
    shown.SetRepresentationType("Points")
    shown.PointSize = 2.0
    ColorBy(shown, ("POINTS", "velocity", "Magnitude"))
    shown.RescaleTransferFunctionToDataRange(True, False)
    obstacles = pvd[: -len(".pvd")] + "_obstacles.pvd"
    if os.path.exists(obstacles):
        solid = Show(OpenDataFile(obstacles), view)
        solid.SetRepresentationType("Surface")
        solid.ColorArrayName = ["POINTS", ""]
        solid.AmbientColor = solid.DiffuseColor = [0.55, 0.55, 0.6]
        solid.Opacity = 0.85
    cam = view.GetActiveCamera()
    if along_x:
        cam.SetPosition(10, 1, 0)
    else:
        cam.SetPosition(0, 1, 10)
    cam.SetFocalPoint(0, 1, 0)
    cam.SetViewUp(0, 1, 0)
    ResetCamera()
    cam.Dolly(1.3)
    Render(view)
    SaveScreenshot(png, view, ImageResolution=[1200, 700])
    print(f"{png}: t = {time} s")


if __name__ == "__main__":
    main()
