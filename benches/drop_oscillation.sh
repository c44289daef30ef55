#!/usr/bin/env bash
# What surface tension the coefficient gives, in N/m: a drop in zero gravity, started as a box
# 1.25 : 1 : 1 (anisotropy (Ixx - (Iyy + Izz) / 2) / mean = 0.47), rounds and oscillates in its
# l = 2 mode. A damped cosine fitted to the anisotropy from 0.4 s gives the damped frequency w and
# the decay b; the undamped w0 = sqrt(w^2 + b^2) with Rayleigh's w0^2 = 8 sigma / (rho R^3) (R of
# the sphere holding the particles' volume, N (2r)^3) gives the effective sigma.
# CASES lists runs as kernel_ratio:drop_size:radii (h = ratio x r; size 1 is a box 0.12 x 0.096 x
# 0.096 m, R = 64 mm; size 2 twice that, for a large h; radii comma-separated), default
# "4:1:0.004,0.003,0.002"; each radius runs with each coefficient in GAMMAS (default 0.05 0.1).
# `surface_tension.method = "akinci2013"`, XSPH and vorticity off (less damping to fit through),
# dt 2 ms, 5 s x size^1.5. Writes the rows to CSV_OUT (default out/drop_oscillation.csv) and, with
# CHART_OUT, sigma against h with sigma = c gamma h^2 fitted per kernel ratio. About 8 minutes on
# 2 cores for the default; docs/results.md (stop 48) adds "5.4:1:0.003 5.4:2:0.005,0.004"
# (another 15). EXTRA adds options to every run (EXTRA="--set pbf.scorr_k=0": without the
# artificial pressure, stop 49). Not part of CI; needs numpy (and matplotlib for the chart).
source "$(dirname "$0")/prologue.sh"
cases=${CASES:-"4:1:0.004,0.003,0.002"}
gammas=${GAMMAS:-"0.05 0.1"}
rho=1000.0

# Box sides multiples of 0.024 m: whole spacings at every default radius (2r = 8, 6, 4 mm).
drop() { # size: the box and the tank scaled by it
  local t a b
  t=$(awk "BEGIN{print 0.2 * $1}")
  a=$(awk "BEGIN{print 0.06 * $1}")
  b=$(awk "BEGIN{print 0.048 * $1}")
  cat <<EOF
name = "drop"
[tank]
min = [-$t, -$t, -$t]
max = [$t, $t, $t]
[[fluid]]
min = [-$a, -$b, -$b]
max = [$a, $b, $b]
[particles]
radius = 0.004
rest_density = $rho
[physics]
gravity = [0.0, 0.0, 0.0]
[time]
dt = 0.002
end = $(awk "BEGIN{print 5.0 * $1 ^ 1.5}")
[pbf]
xsph = 0.0
vorticity = 0.0
[surface_tension]
method = "akinci2013"
[output]
format = "vtk"
fps = 50.0
EOF
}

echo "kernel_ratio,drop_size,radius_m,kernel_radius_m,gamma,particles,drop_radius_m,omega_rad_s,decay_1_s,omega0_rad_s,sigma_N_m,fit_rms" >"$csv"
for case in $cases; do
  IFS=: read -r ratio size radii <<<"$case"
  drop "$size" >"$work/drop.toml"
  for r in ${radii//,/ }; do
    for g in $gammas; do
      out="$work/k${ratio}_s${size}_r${r}_g$g"
      # shellcheck disable=SC2086 # EXTRA is a list of options
      "$pbf" run "$work/drop.toml" -o "$out" --quiet ${EXTRA:-} --set "particles.radius=$r" \
        --set "particles.kernel_radius=$(awk "BEGIN{print $ratio * $r}")" \
        --set "surface_tension.coefficient=$g" >/dev/null
      python3 - "$out" "$r" "$g" "$rho" "$ratio" "$size" >>"$csv" <<'EOF'
import glob, json, re, sys
import numpy as np
out, r, g, rho, ratio, size = sys.argv[1], float(sys.argv[2]), sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
rows = []
for f in sorted(glob.glob(f"{out}/frame_*.vtk")):
    d = open(f, "rb").read()
    t = float(re.search(rb"t=([0-9.eE+-]+)", d).group(1))
    m = re.search(rb"POINTS (\d+) float\n", d)
    n = int(m.group(1))
    x = np.frombuffer(d[m.end():m.end() + 12 * n], dtype=">f4").reshape(n, 3).astype(float)
    x -= x.mean(0)
    i = (x * x).mean(0)
    rows.append((t, (i[0] - 0.5 * (i[1] + i[2])) / i.mean()))
t, e = np.array(rows).T
k = t >= 0.4
tt, y = t[k] - 0.4, e[k]
best = None
for b in np.linspace(0.0, 8.0, 161):
    for w in np.linspace(0.2, 60.0, 1197):
        basis = np.stack([np.exp(-b * tt) * np.cos(w * tt), np.exp(-b * tt) * np.sin(w * tt), np.ones_like(tt)], 1)
        c = np.linalg.lstsq(basis, y, rcond=None)[0]
        res = ((basis @ c - y) ** 2).sum()
        if best is None or res < best[0]:
            best = (res, b, w)
res, b, w = best
n = json.load(open(f"{out}/summary.json"))["particles"]
big_r = (3.0 * n * (2.0 * r) ** 3 / (4.0 * np.pi)) ** (1.0 / 3.0)
w0 = np.hypot(w, b)
sigma = w0 * w0 * rho * big_r ** 3 / 8.0
print(f"{ratio:g},{size},{r},{ratio * r:.4g},{g},{n},{big_r:.4f},{w:.3f},{b:.3f},{w0:.3f},{sigma:.4f},{np.sqrt(res / len(y)):.4f}")
EOF
      tail -1 "$csv"
    done
  done
done

if [[ -n "${CHART_OUT:-}" ]]; then
  python3 - "$csv" "$CHART_OUT" <<'EOF'
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
rows = list(csv.DictReader(open(sys.argv[1])))
fig, ax = plt.subplots(figsize=(6.5, 4.2))
fits = []
k = 0
for ratio in sorted({r["kernel_ratio"] for r in rows}, key=float):
    mine = [r for r in rows if r["kernel_ratio"] == ratio]
    # sigma = c gamma h^2, c by least squares through the origin over this ratio's points.
    gh2 = np.array([float(r["gamma"]) * float(r["kernel_radius_m"]) ** 2 for r in mine])
    c = (gh2 * np.array([float(r["sigma_N_m"]) for r in mine])).sum() / (gh2 * gh2).sum()
    fits.append(f"h = {ratio}r: σ ≈ {c:,.0f} γ h²")
    for g in sorted({r["gamma"] for r in mine}, key=float):
        pts = sorted((float(r["kernel_radius_m"]), float(r["sigma_N_m"])) for r in mine if r["gamma"] == g)
        h, s = np.array(pts).T
        ax.plot(h * 1000, s * 1000, "o-" if k % 2 == 0 else "s-", color=f"C{k}", label=f"h = {ratio}r, γ = {g}")
        hh = np.linspace(h.min(), h.max(), 50)
        ax.plot(hh * 1000, c * float(g) * hh ** 2 * 1000, ":", color=f"C{k}", lw=1)
        k += 1
ax.axhline(72.8, color="grey", lw=1, ls="--", label="water at 20 °C, 72.8 mN/m")
ax.set_xlabel("kernel radius h [mm]")
ax.set_ylabel("effective surface tension σ [mN/m]")
ax.set_title("Akinci 2013's γ is not σ: a drop's l = 2 oscillation\n(dotted: " + "; ".join(fits) + ", σ in N/m, h in m)", fontsize=9)
ax.legend(fontsize=8)
ax.grid(alpha=0.3)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
EOF
fi
