#!/usr/bin/env python3
"""cli.diff_property: `ccb diff` cannot miss (issue 44, part 2).

From real result trees (the push gate's tables and runs, a clutter run whose trajectory has 531
columns) and two synthetic files of 10,000 columns (a trajectory and a table), each trial applies
one random change to a copy B of the tree A: one cell moved far above the default threshold
(1e-3 of its column's scale) or far below it (1e-9 relative, under the 1e-6 rule), a column
removed, a row added or removed, a file removed, a cell deleted from a row; and texts of any
length (a path of 400 characters, a column name and row labels of 300). Then `ccb diff A B`
and `ccb diff B A` must both report every change above the threshold (a significant row naming
the file) and nothing significant for a change below it. The trials are drawn from a fixed seed:
the test is the same every run.

Usage: diff_property.py CCB [TRIALS]
"""
import csv
import os
import random
import shutil
import subprocess
import sys
import tempfile

ccb = sys.argv[1]
trials = int(sys.argv[2]) if len(sys.argv) > 2 else 14
rng = random.Random(44)
tmp = tempfile.mkdtemp(prefix="ccb-diffprop.")
checks = 0


def fail(msg):
    print("FAIL: " + msg)
    print(f"diff_property: stopped at the first failure ({checks} checks passed before it)")
    shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1)


def sh(*args, want=None):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if want is not None and r.returncode not in want:
        fail(f"exit {r.returncode} of {' '.join(args)}: {r.stdout[-800:]}")
    return r


def read(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def write(path, rows):
    if os.path.exists(path):
        os.remove(path)  # B's files are hard links to A's: a new file, never A's changed
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def num(x):
    try:
        v = float(x)
    except ValueError:
        return None
    return v if v == v and abs(v) != float("inf") else None


# --- the tree A -----------------------------------------------------------------------------------
A = os.path.join(tmp, "A")
sh(ccb, "gate", "push", "--out", A, want=(0,))
sh(ccb, "run", "clutter", "--t-final", "0.004", "--out", os.path.join(A, "clutter", "run"), want=(0,))
wide_cols = 10000
os.makedirs(os.path.join(A, "wide"))
hdr = ["t [s]"] + [f"x{k} [m]" for k in range(1, wide_cols)]
write(os.path.join(A, "wide", "trajectory.csv"),
      [hdr] + [[f"{0.01 * r:.17g}"] + [f"{rng.uniform(-1, 1):.17g}" for _ in range(wide_cols - 1)]
               for r in range(12)])
write(os.path.join(A, "wide", "table.csv"),
      [["variant"] + [f"m{k}" for k in range(1, wide_cols)]] +
      [[v] + [f"{rng.uniform(1, 2):.17g}" for _ in range(wide_cols - 1)] for v in ("sap", "lagged")])
files = []
for root, _, names in os.walk(A):
    for n in names:
        rel = os.path.relpath(os.path.join(root, n), A)
        if n.endswith(".csv") and n != "times.csv" and not rel.startswith("diff/"):
            files.append(rel)
files.sort()
wide = [f for f in files if f.startswith("wide/") or f.startswith("clutter/")]
if len(wide) < 3 or len(read(os.path.join(A, "clutter/run/trajectory.csv"))[0]) < 500:
    fail(f"the trees are not what the test needs: {wide}")


def numeric_cells(rows):
    return [(r, c) for r in range(1, len(rows)) for c in range(len(rows[r]))
            if c < len(rows[0]) and "wall" not in rows[0][c].lower()
            and not rows[0][c].startswith("time_") and num(rows[r][c]) not in (None, 0.0)
            and abs(num(rows[r][c])) > 1e-6]


def significant_rows(out):
    rows = read(os.path.join(out, "diff.csv"))
    h = rows[0]
    return [dict(zip(h, r)) for r in rows[1:]]


def run_diff(x, y, out):
    shutil.rmtree(out, ignore_errors=True)
    sh(ccb, "diff", x, y, "--no-figures", "--out", out, want=(0, 1))
    return significant_rows(out)


kinds = ["above", "below", "column", "row+", "row-", "file", "cell-"]
B = os.path.join(tmp, "B")
counts = {k: 0 for k in kinds}
# the first two trials: a far column of the clutter's trajectory and of the 10,000-column one
forced = [("clutter/run/trajectory.csv", 400), ("wide/trajectory.csv", 9000)]
for t in range(trials + len(forced)):
    kind = "above" if t < len(forced) else kinds[t % len(kinds)]
    # a wide file in every third trial: the columns beyond any fixed width are compared too
    pool = wide if t % 3 == 0 else files
    rel = forced[t][0] if t < len(forced) else rng.choice(pool)
    shutil.rmtree(B, ignore_errors=True)
    shutil.copytree(A, B, copy_function=os.link)
    path = os.path.join(B, rel)
    rows = read(path)
    what = ""
    if kind in ("above", "below"):
        cells = numeric_cells(rows)
        if not cells:
            continue
        # the far columns of a wide file when there are
        far = [rc for rc in cells if rc[1] >= (forced[t][1] if t < len(forced) else 256)]
        r, c = rng.choice(far if far and (t < len(forced) or rng.random() < 0.7) else cells)
        x = num(rows[r][c])
        col = [num(rows[q][c]) for q in range(1, len(rows)) if c < len(rows[q])]
        scale = max(abs(v) for v in col if v is not None)
        y = x + 1e-3 * scale if kind == "above" else x * (1 + 1e-9)
        if repr(y) == repr(x):
            continue
        rows[r][c] = f"{y:.17g}"
        what = f"cell ({r}, {rows[0][c]})"
    elif kind == "column":
        if len(rows[0]) < 3:
            continue
        c = rng.randrange(1, len(rows[0]))
        for row in rows:
            if c < len(row):
                del row[c]
        what = f"column {read(os.path.join(A, rel))[0][c]}"
    elif kind == "row+":
        rows.append(list(rows[-1]))
        what = "a row added"
    elif kind == "row-":
        if len(rows) < 3:
            continue
        del rows[rng.randrange(1, len(rows))]
        what = "a row removed"
    elif kind == "cell-":
        cells = numeric_cells(rows)
        if not cells:
            continue
        r, c = rng.choice(cells)
        del rows[r][c]
        what = f"a cell deleted from row {r}"
    if kind == "file":
        os.remove(path)
        what = "the file removed"
    else:
        write(path, rows)
    counts[kind] += 1
    for x, y, tag in ((A, B, "A B"), (B, A, "B A")):
        got = run_diff(x, y, os.path.join(tmp, "d"))
        mine = [g for g in got if g["file"] == rel and g["significant"] == "1"]
        if kind == "below":
            if mine:
                fail(f"diff {tag}: {rel}: {what} moved by 1e-9 relative is reported significant: {mine[0]}")
        elif not mine:
            fail(f"diff {tag}: {rel}: {what} ({kind}) is not reported: {got[:3]}")
        checks += 1

# Texts of any length: a file 400 characters down the tree, a column name of 300 characters, rows
# whose labels (300 characters) differ only at their ends. A moved cell is reported with the whole
# path and column name; the rows swapped are no change (rows are paired by their whole labels).
long_rel = os.path.join("long", "d" * 200, "e" * 200, "table.csv")
long_col = "c" * 299 + "!"
prefix = "r" * 298
long_rows = [["label", long_col, "x"], [prefix + "_1", "1.5", "2.5"], [prefix + "_2", "3.5", "4.5"]]
os.makedirs(os.path.dirname(os.path.join(A, long_rel)))
write(os.path.join(A, long_rel), long_rows)
for kind in ("above", "swap"):
    shutil.rmtree(B, ignore_errors=True)
    shutil.copytree(A, B, copy_function=os.link)
    rows = [list(r) for r in long_rows]
    if kind == "above":
        rows[2][1] = "3.75"
    else:
        rows[1], rows[2] = rows[2], rows[1]
    write(os.path.join(B, long_rel), rows)
    for x, y, tag in ((A, B, "A B"), (B, A, "B A")):
        got = [g for g in run_diff(x, y, os.path.join(tmp, "d")) if g["significant"] == "1"]
        if kind == "swap" and got:
            fail(f"diff {tag}: rows of 300-character labels swapped are reported: {got[0]}")
        if kind == "above" and not [g for g in got if g["file"] == long_rel and
                                    g["column"] == long_col and g["item"].endswith(prefix + "_2")]:
            fail(f"diff {tag}: a moved cell under a 300-character column of a file 400 characters "
                 f"down is not reported whole: {got[:2]}")
        checks += 1
    counts["long " + kind] = 1

shutil.rmtree(tmp, ignore_errors=True)
print(f"diff_property: {checks} checks passed ({trials + len(forced)} trials, both argument orders; "
      + ", ".join(f"{k} {n}" for k, n in counts.items()) + ")")
