#!/usr/bin/env python3
"""docs.tables: tables of the documents that are derived from the code must agree with it, so that
a document cannot go stale (issue 45, part 3).

  1. docs/cases.md §9 ("Figures and the data behind them"): every study that `ccb list` names with
     a paper figure (ICF, TAMSI or PFC ... Fig.) is listed in the row of its case.
  2. reference/sensitivity/quick.md (the round-off sensitivity of the quick tier): every gate that
     the quick tier evaluates (reference/CASE.json, tier "both" or "quick") has a row in its case's
     section, and no row names a gate that is gone; docs/guide.md §8 states the table's count, the gates
     that are not verdicts (margin below 3x the spread) and the smallest margin outside the
     clutter.
  3. docs/speed.md §4 (the seventh round): its tables are the rendering of the recording
     reference/speed/round7.txt (CI/speed_round.py), so that no timing there is typed by hand.

    python3 CI/doc_tables.py CCB SOURCE_DIR    exit 0 when all agree, 1 naming each disagreement
"""
import json
import os
import re
import subprocess
import sys


def figure_table(ccb, src):
    bad = 0
    text = open(os.path.join(src, "docs", "cases.md"), encoding="utf-8").read()
    sec = text.split("## 9. Figures and the data behind them", 1)
    if len(sec) != 2:
        print("doc_tables: docs/cases.md has no section 9")
        return 1
    rows = {}
    for line in sec[1].split("\n\n", 2)[1].strip().splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.setdefault(cells[1], []).append(cells[-1])
    out = subprocess.run([ccb, "list"], capture_output=True, text=True, check=True).stdout
    case, n = None, 0
    for line in out.splitlines():
        m = re.match(r"(\w+)\s{2,}", line)
        if m and not line.startswith(" "):
            case = m.group(1)
            continue
        m = re.match(r"\s+study (\S+)\s.*?\(((ICF|TAMSI|PFC) .*Fig.*)\)\s*$", line)
        if not m:
            continue
        n += 1
        name = m.group(1)
        if not any("`%s`" % name in r for r in rows.get(case, [])):
            print("doc_tables: docs/cases.md §9 has no row for %s/%s (%s)" % (case, name, m.group(2)))
            bad += 1
    if n < 20:
        print("doc_tables: only %d studies with a paper figure in `ccb list`" % n)
        bad += 1
    if bad == 0:
        print("doc_tables: docs/cases.md §9 lists the %d studies with a paper figure" % n)
    return bad


def sensitivity_table(src):
    bad = 0
    text = open(os.path.join(src, "reference", "sensitivity", "quick.md"), encoding="utf-8").read()
    sections = re.split(r"^## (\w+) \(quick tier\)\s*$", text, flags=re.M)
    table = {}
    for case, body in zip(sections[1::2], sections[2::2]):
        table[case] = [[c.strip() for c in line.strip().strip("|").split("|")]
                       for line in body.splitlines() if re.match(r"^\| [A-Za-z]", line)
                       and not line.startswith("| gate |")]
    total = 0
    for path in sorted(os.listdir(os.path.join(src, "reference"))):
        if not path.endswith(".json"):
            continue
        case = path[:-5]
        gates = json.load(open(os.path.join(src, "reference", path), encoding="utf-8"))["gates"]
        want = [g["id"] for g in gates if g.get("tier") in ("both", "quick")]
        have = [r[0] for r in table.get(case, [])]
        for g in sorted(set(want) - set(have)):
            print("doc_tables: reference/sensitivity/quick.md: %s: no row for %s" % (case, g))
            bad += 1
        for g in sorted(set(have) - set(want)):
            print("doc_tables: reference/sensitivity/quick.md: %s: a row for %s, not a quick-tier "
                  "gate" % (case, g))
            bad += 1
        total += len(have)
    readme = re.sub(r"\s+", " ", open(os.path.join(src, "docs", "guide.md"), encoding="utf-8").read())
    fragile = sorted(r[0] for rows in table.values() for r in rows
                     if r[-1] not in ("robust", "exact"))
    m = re.search(r"of its (\d+) gates, (\d+) are verdicts; \w+ of the clutter's (?:is|are) not "
                  r"\(([^:]+):", readme)
    said = sorted(x.strip() for x in m.group(3).split(",")) if m else None
    if not m or int(m.group(1)) != total or int(m.group(2)) != total - len(fragile) \
            or said != fragile:
        print("doc_tables: docs/guide.md says '%s'; reference/sensitivity/quick.md has %d rows, %d of "
              "them not verdicts (%s)" % (m.group(0) if m else "(no such sentence)", total,
                                          len(fragile), ", ".join(fragile)))
        bad += 1
    worst = min(((float(r[8]), r[0]) for case, rows in table.items() if case != "clutter"
                 for r in rows if r[8] not in ("inf", "")), default=(float("nan"), ""))
    m = re.search(r"Outside the clutter every margin is at least ([\d.]+)× its spread \(([^)]+)\)",
                  readme)
    if not m or float(m.group(1)) != float("%.2g" % worst[0]) or m.group(2) != worst[1]:
        print("doc_tables: docs/guide.md says '%s'; outside the clutter the smallest margin is %.2g x "
              "the spread (%s)" % (m.group(0) if m else "(no such sentence)", *worst))
        bad += 1
    if bad == 0:
        print("doc_tables: reference/sensitivity/quick.md covers the %d gates of the quick tier, "
              "and docs/guide.md states its counts" % total)
    return bad


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    bad = figure_table(argv[1], argv[2]) + sensitivity_table(argv[2]) + speed_tables(argv[2])
    return 1 if bad else 0


def speed_tables(src):
    """3. docs/speed.md §4's seventh-round tables are the rendering of their recording."""
    sys.path.insert(0, os.path.join(src, "CI"))
    import speed_round
    rc = speed_round.main(["speed_round", "check",
                           os.path.join(src, "reference", "speed", "round7.txt"),
                           os.path.join(src, "docs", "speed.md")])
    if rc == 0:
        print("doc_tables: docs/speed.md's seventh-round tables are reference/speed/round7.txt's")
    # the check can fail: one digit of the block changed in a copy must be reported
    import tempfile
    text = open(os.path.join(src, "docs", "speed.md"), encoding="utf-8").read()
    a = text.find(speed_round.BEGIN)
    m = re.compile(r"\d").search(text, a + len(speed_round.BEGIN)) if a >= 0 else None
    if m:
        planted = text[:m.start()] + str((int(m.group()) + 1) % 10) + text[m.end():]
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
            f.write(planted)
        try:
            import contextlib
            import io
            with contextlib.redirect_stdout(io.StringIO()):
                caught = speed_round.main(["speed_round", "check", os.path.join(
                    src, "reference", "speed", "round7.txt"), f.name])
        finally:
            os.unlink(f.name)
        if caught != 1:
            print("doc_tables: a changed digit in docs/speed.md's tables was not reported")
            rc = 1
    # a recording whose ratio is not a number is reported in one line (exit 2), not a traceback
    rec = open(os.path.join(src, "reference", "speed", "round7.txt"), encoding="utf-8").read()
    bad = re.sub(r"(ratio clutter \S+/mujoco-same-geometry )\S+", r"\1abc", rec, count=1)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(bad)
    try:
        import contextlib
        import io
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            caught = speed_round.main(["speed_round", "check", f.name,
                                       os.path.join(src, "docs", "speed.md")])
    finally:
        os.unlink(f.name)
    if bad == rec or caught != 2 or "not a number" not in err.getvalue():
        print("doc_tables: a recording with a ratio that is not a number was not reported "
              "(exit %d)" % caught)
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
