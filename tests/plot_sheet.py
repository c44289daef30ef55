"""Top views of the stretched sheet (crates/pbf/examples/stretched_sheet.rs) with and without
surface tension, particles colored by the size of their group (particles closer than 1.5
spacings linked), as one PNG.

Usage: python3 tests/plot_sheet.py OUT PNG   (OUT as given to the example; needs vtk, numpy
and matplotlib).
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy


def read(path):
    r = vtk.vtkXMLUnstructuredGridReader()
    r.SetFileName(path)
    r.Update()
    return vtk_to_numpy(r.GetOutput().GetPoints().GetData()).astype(float)


def group_sizes(x, link):
    """Size of each particle's group (union-find over pairs closer than `link`)."""
    n = len(x)
    parent = list(range(n))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    cells = {}
    for i, k in enumerate(map(tuple, np.floor(x / link).astype(int))):
        cells.setdefault(k, []).append(i)
    for (cx, cy, cz), members in cells.items():
        near = [
            j
            for dx in (-1, 0, 1)
            for dy in (-1, 0, 1)
            for dz in (-1, 0, 1)
            for j in cells.get((cx + dx, cy + dy, cz + dz), [])
        ]
        for i in members:
            for j in near:
                if j > i and np.sum((x[i] - x[j]) ** 2) < link * link:
                    parent[find(i)] = find(j)
    roots = [find(i) for i in range(n)]
    count = {}
    for r in roots:
        count[r] = count.get(r, 0) + 1
    return np.array([count[r] for r in roots])


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, png = sys.argv[1], sys.argv[2]
    frames = [(0, 0.0), (2, 0.5), (3, 1.0), (5, 2.0)]
    fig, axes = plt.subplots(2, len(frames), figsize=(3.2 * len(frames), 6.8))
    for row, (case, label) in enumerate(
        [("with", "with surface tension"), ("without", "without")]
    ):
        for col, (k, t) in enumerate(frames):
            x = read(f"{out}/{case}/frame_{k:05d}.vtu")
            size = group_sizes(x, 1.5 * 0.01)
            ax = axes[row][col]
            sc = ax.scatter(
                x[:, 0], x[:, 2], c=np.log10(size), s=1.5, cmap="viridis", vmin=0, vmax=3.3
            )
            ax.set_xlim(0.3, 1.3)
            ax.set_ylim(0.3, 1.3)
            ax.set_aspect("equal")
            ax.set_xticks([])
            ax.set_yticks([])
            alone = int(np.sum(size == 1))
            ax.set_title(f"{label}, t = {t} s\n{alone} particles alone", fontsize=9)
    cb = fig.colorbar(sc, ax=axes, shrink=0.6, label="log10 of the group's size")
    fig.suptitle(
        "A sheet 2 particles thick, 0.3 m square, stretched at 0.2 m/s at its rim, zero gravity "
        "(top view)",
        fontsize=10,
    )
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
