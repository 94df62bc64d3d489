#!/usr/bin/env python3
"""The measured tables of docs/speed.md §4 (the seventh round: where the iterations go), generated
from one recording so that no number there is typed by hand.

    python3 CI/speed_round.py record CCB [FILE]   run the benches, write FILE
                                                  (default reference/speed/round7.txt)
    python3 CI/speed_round.py check  [FILE] [DOC] exit 1 if DOC's block is not FILE's rendering
    python3 CI/speed_round.py update [FILE] [DOC] rewrite the block in place

`record` runs `ccb bench clutter --peers --repeat 5` at the defaults and with each lever and
physics parameter of CONFIGS (about 2 minutes on the 2-core machine; it needs a build with the
MuJoCo peer) and keeps each command line with its whole output. The block of DOC (default
docs/speed.md) sits between `<!-- speed-round7 -->` and `<!-- /speed-round7 -->`; `check` is part
of docs.tables (CI/doc_tables.py). Timings are this machine's: a new recording replaces them all.
"""
import datetime
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

BEGIN, END = "<!-- speed-round7 -->", "<!-- /speed-round7 -->"
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FILE = os.path.join(SRC, "reference", "speed", "round7.txt")
DOC = os.path.join(SRC, "docs", "speed.md")

class Bad(Exception):
    """A recording or document that cannot be read: its message says which and why."""


# (name, options, what it is): the defaults, the levers of issue 47 (section 2; each changes only
# how the same problem is solved), then the physics parameters the breakdown points at (they change the
# problem: attribution, never a default)
CONFIGS = [
    ("default", "", "ccb's defaults (islands, lazy pairs)"),
    # the same defaults on other piles: the pile is chaotic, so one trajectory's ratio is one
    # sample (the objects' orientations are the only difference)
    ("pile-spin-0.1", "--set spin=0.1", "the defaults on another pile (spin 0.1 rad)"),
    ("pile-spin-0.4", "--set spin=0.4", "the defaults on another pile (spin 0.4 rad)"),
    ("pile-spin-1.0", "--set spin=1.0", "the defaults on another pile (spin 1.0 rad)"),
    ("old-default", "--islands off --lazy-pairs off", "one solve, every contact listed (the default "
     "before the sixth round)"),
    ("ls-tol-1e-4", "--ls-tol 1e-4", "lever: line search tolerance 1e-4 (default 1e-8)"),
    ("ls-tol-1e-2", "--ls-tol 1e-2", "lever: line search tolerance 1e-2"),
    ("rtol-1e-4", "--rtol 1e-4", "lever: stopping test eps_r 1e-4 (the paper's 1e-5)"),
    ("rtol-1e-3", "--rtol 1e-3", "lever: stopping test eps_r 1e-3"),
    ("stop-momentum", "--stop-scale momentum", "lever: the spec's scale p = A v"),
    ("margin-1mm", "--set margin=0.001", "geometry: 1 mm contact margin (ICF's 10 cm)"),
    ("vs-1e-3", "--set vs=1e-3", "physics: v_s = 1e-3 m/s (the paper's 1e-4)"),
    ("vs-1e-5", "--set vs=1e-5", "physics: v_s = 1e-5 m/s"),
    ("d-0", "--set d=0", "physics: no Hunt-Crossley dissipation (the paper's d = 10 s/m)"),
    ("mu-0", "--set mu=0", "physics: no friction (the paper's mu = 1)"),
]


def bench(cmd):
    """Runs cmd; its output, or Bad naming the command and why it failed."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise Bad("cannot run %s: %s" % (cmd[0], e.strerror))
    if r.returncode != 0:
        raise Bad("'%s' exited %d: %s" % (" ".join(cmd), r.returncode,
                                          (r.stdout[-500:] + r.stderr[-500:]).strip()))
    return r


def record(ccb, path):
    rev = subprocess.run(["git", "-C", SRC, "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True).stdout.strip() or "unknown"
    cpu = ""
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    out = ["# CI/speed_round.py record: ccb bench clutter --peers --repeat 5 per configuration",
           "# revision %s, %s, %s, %d CPUs (%s)" % (rev, datetime.date.today().isoformat(),
                                                    platform.machine(), os.cpu_count() or 0, cpu)]
    for name, opts, what in CONFIGS:
        cmd = [ccb, "bench", "clutter", "--peers", "--repeat", "5"] + opts.split()
        r = bench(cmd)
        out.append("=== %s | %s | %s" % (name, opts, what))
        out.append("$ ccb bench clutter --peers --repeat 5 %s" % opts)
        out.extend(r.stdout.rstrip("\n").splitlines())
    # the scale study (40 ... 2,560 objects, three solver modes; its fits as the study prints them)
    tmpd = tempfile.mkdtemp(prefix="speed_round.")
    try:
        r = bench([ccb, "study", "clutter", "scale", "--out", tmpd])
    finally:
        shutil.rmtree(tmpd, ignore_errors=True)
    out.append("=== scale | | ccb study clutter scale")
    out.append("$ ccb study clutter scale")
    out.extend(l for l in r.stdout.splitlines() if l.startswith("scaling exponent") or
               re.match(r"\s+scale\.", l))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    os.replace(tmp, path)


def parse(path):
    """[(name, opts, what, {field: value}, breakdown rows)] from a recording."""
    runs, cur = [], None
    for line in open(path, encoding="utf-8").read().splitlines():
        if line.startswith("=== "):
            name, opts, what = [x.strip() for x in line[4:].split("|", 2)]
            cur = (name, opts, what, {}, [])
            runs.append(cur)
            continue
        if cur is None:
            continue
        f, cells = cur[3], line.split()
        m = re.match(r"\s+(scale\.\S+)\s+(\S+)$", line)
        if m:
            f[m.group(1)] = m.group(2)
            continue
        if len(cells) >= 8 and cells[-1] in ("ok", "FAILED") and cells[1].isdigit():
            key = "mj" if cells[0] == "mujoco-same-geometry" else \
                  "mjn" if cells[0] == "mujoco-native-boxes" else "ccb"
            f[key + "_wall"], f[key + "_spread"] = cells[2], cells[3] + " " + cells[4]
            f[key + "_us"], f[key + "_it"], f[key + "_nc"] = cells[5], cells[6], cells[7]
        m = re.match(r"ratio clutter \S+/mujoco-(same-geometry|native-boxes) (\S+)", line)
        if m:
            f["ratio_" + m.group(1)] = m.group(2)
        m = re.match(r"# the same split in phases: (.*)", line)
        if m:
            f["phases"] = m.group(1)
        if re.match(r"(\S+-\S+|all)\s+(ccb|mujoco)\s", line):
            cur[4].append(cells)
            if cells[0] == "all" and cells[1] == "ccb":
                f["damped"], f["ls"] = cells[4], cells[5]
            if cells[0] == "all" and cells[1] == "mujoco":
                f["mj_ls"] = cells[5]
    return runs


def render(path):
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        raise Bad("cannot read the recording %s: %s" % (path, e.strerror))
    lines0 = text.splitlines()
    if len(lines0) < 2 or not lines0[0].startswith("# CI/speed_round.py record"):
        raise Bad("%s is not a recording of CI/speed_round.py (its first line must be "
                  "'# CI/speed_round.py record ...')" % path)
    runs = parse(path)
    if not runs or runs[0][0] != "default":
        raise Bad("%s holds no bench of the defaults ('=== default | ...')" % path)
    head = lines0[0]
    rev = lines0[1].lstrip("# ")
    lines = ["Recorded by `python3 CI/speed_round.py record build/ccb` (%s; the whole output of "
             "every bench is `reference/speed/round7.txt`): `ccb bench clutter --peers --repeat 5` "
             "with the options of each row, medians of 5 alternating runs with [min, max]; MuJoCo "
             "runs the same geometry each time, so its column shows the machine's drift between "
             "rows." % rev, "",
             "| configuration | options | ccb wall [s] | µs/step | it./step | damped it./step | "
             "evaluations per line search | MuJoCo wall [s] | ratio (same geometry) | "
             "ratio (native boxes) |", "|---|---|---|---|---|---|---|---|---|---|"]
    scale = [r for r in runs if r[0] == "scale"]
    runs = [r for r in runs if r[0] != "scale"]
    for name, opts, what, f, _ in runs:
        lines.append("| %s | %s | %s %s | %s | %s | %s | %s | %s | **%s** | %s |" % (
            what, "`%s`" % opts if opts else "—", f.get("ccb_wall", "?"),
            f.get("ccb_spread", ""), f.get("ccb_us", "?"), f.get("ccb_it", "?"),
            f.get("damped", "?"), f.get("ls", "?"), f.get("mj_wall", "?"),
            f.get("ratio_same-geometry", "?"), f.get("ratio_native-boxes", "?")))
    piles = []
    for r in runs:
        if (r[0] == "default" or r[0].startswith("pile-")) and "ratio_same-geometry" in r[3]:
            try:
                piles.append(float(r[3]["ratio_same-geometry"]))
            except ValueError:
                raise Bad("%s: the ratio of '%s' is not a number: '%s'" % (
                    path, r[0], r[3]["ratio_same-geometry"]))
    if len(piles) > 1:
        piles.sort()
        mid = len(piles) // 2
        med = piles[mid] if len(piles) % 2 else 0.5 * (piles[mid - 1] + piles[mid])
        lines += ["", "Over the %d piles at the defaults (the first row and the rows 'another "
                  "pile'), the ratio on the same geometry has the median %.3f and the range "
                  "[%.3f, %.3f]." % (len(piles), med, piles[0], piles[-1])]
    default = runs[0]
    lines += ["", "The defaults' iterations per window of the 3 s (the bench's breakdown; MuJoCo "
              "%s per line search over the run; %s):" % (default[3].get("mj_ls", "?"),
                                                         default[3].get("phases", "")), "",
              "| window [s] | engine | it./step | largest | damped | evaluations per line search "
              "| stopped by residual \\| cost | state changes, all iterations | in the last | "
              "steps with any in the last | \\|D r\\|/bound one iteration before the end | "
              "bound set by \\|D j\\| |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in default[4]:
        c = [x.replace("|", " \\| ") for x in c]
        lines.append("| " + " | ".join(c) + " |")
    del head
    if scale:
        f = scale[0][3]

        def g(key, fmt="%.3g"):
            v = f.get(key)
            return fmt % float(v) if v is not None else "?"
        lines += ["", "The scale study (`ccb study clutter scale`, the same recording: Lagged, dt = "
                  "2 ms, the first 0.4 s; exponents of a least-squares fit in log-log "
                  "over 40, 160, 640 and 2,560 objects, ± its 95 % interval):", "",
                  "| solver | cost per step ∝ objects^E | iterations per step ∝ objects^ | cost "
                  "per iteration ∝ objects^ | ms per step at 2,560 | steps solved again at "
                  "2,560 | 10 cm over 1 mm margin, 40 objects |", "|---|---|---|---|---|---|---|"]
        for sfx, what in (("", "one solve, every contact listed"),
                          ("_islands", "islands, every contact listed"),
                          ("_default", "defaults (islands, lazy pairs)")):
            lines.append("| %s | %s ± %s | %s | %s | %s | %s of %s | %s |" % (
                what, g("scale.exponent" + sfx, "%.2f"), g("scale.exponent_ci95" + sfx, "%.2f"),
                g("scale.exponent_iterations" + sfx, "%.3f"),
                g("scale.exponent_per_iteration" + sfx, "%.2f"),
                "%.1f" % (1e3 * float(f["scale.objects2560%s.wall_per_step" % sfx]))
                if "scale.objects2560%s.wall_per_step" % sfx in f else "?",
                g("scale.objects2560%s.retried_steps" % sfx, "%.0f"),
                g("scale.objects2560%s.steps" % sfx, "%.0f"),
                g("scale.margin_ratio" + sfx, "%.2f")))
    return "\n".join(lines)


def block(doc):
    try:
        text = open(doc, encoding="utf-8").read()
    except OSError as e:
        raise Bad("cannot read %s: %s" % (doc, e.strerror))
    if BEGIN not in text or END not in text:
        return text, None
    a = text.index(BEGIN) + len(BEGIN)
    return text, text[a:text.index(END)].strip("\n")


def main(argv):
    try:
        return run(argv)
    except Bad as e:
        print("speed_round: %s" % e, file=sys.stderr)
        return 2


def run(argv):
    if len(argv) >= 3 and argv[1] == "record":
        record(argv[2], argv[3] if len(argv) > 3 else FILE)
        return 0
    if len(argv) < 2 or argv[1] not in ("check", "update"):
        print(__doc__, file=sys.stderr)
        return 2
    path = argv[2] if len(argv) > 2 else FILE
    doc = argv[3] if len(argv) > 3 else DOC
    want = render(path)
    text, have = block(doc)
    if have is None:
        print("speed_round: %s has no block %s ... %s" % (doc, BEGIN, END))
        return 1
    if argv[1] == "update":
        a = text.index(BEGIN) + len(BEGIN)
        text = text[:a] + "\n" + want + "\n" + text[text.index(END):]
        with open(doc + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(doc + ".tmp", doc)
        return 0
    if have != want:
        print("speed_round: the tables of %s are not the rendering of %s "
              "(python3 CI/speed_round.py update)" % (doc, path))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
