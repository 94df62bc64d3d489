#!/usr/bin/env python3
"""The table of test times and guards, from CTest's own properties (docs.testtable).

    python3 CI/test_table.py BUILD_DIR docs/testing.md            check: exit 1 if the table differs
    python3 CI/test_table.py BUILD_DIR docs/testing.md --update   rewrite the table in place

Each test's COST is the slowest time seen for it (ccb_test_budget: make test idle and make
test-loaded on a fresh clone) and its TIMEOUT the hang guard derived from it (10x, at least 120 s,
times CCB_TEST_TIMEOUT_SCALE). The table sits between the lines `<!-- test-table -->` and
`<!-- /test-table -->` of docs/testing.md §6, so that the numbers there are CTest's, never typed by hand.
"""
import json
import subprocess
import sys

BEGIN, END = "<!-- test-table -->", "<!-- /test-table -->"


def table(build):
    out = subprocess.run(["ctest", "-C", "Full", "--show-only=json-v1"], cwd=build,
                         capture_output=True, text=True, check=True).stdout
    rows = {}
    for t in json.loads(out).get("tests", []):
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        rows[t["name"]] = (float(props.get("COST", 0)), float(props.get("TIMEOUT", 1500)))
    quick = sorted((n for n in rows if not n.startswith("gate-full.")),
                   key=lambda n: (-rows[n][0], n))
    lines = ["| test | slowest time seen [s] | guard [s] | full tier (`gate-full.CASE`): "
             "slowest [s] | guard [s] |", "|---|---|---|---|---|"]
    for n in quick:
        cost, guard = rows[n]
        full = rows.get("gate-full." + n[len("gate."):]) if n.startswith("gate.") else None
        fcells = "%g | %g" % (round(full[0], 2), full[1]) if full else " | "
        lines.append("| `%s` | %g | %g | %s |" % (n, round(cost, 2), guard, fcells))
    return "\n".join(lines)


def main(argv):
    if len(argv) < 3 or (len(argv) == 4 and argv[3] != "--update") or len(argv) > 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    build, readme = argv[1], argv[2]
    text = open(readme, encoding="utf-8").read()
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        print("test_table: %s must hold one %s ... %s block" % (readme, BEGIN, END))
        return 1
    head, rest = text.split(BEGIN)
    old, tail = rest.split(END)
    new = "\n" + table(build) + "\n"
    if old == new:
        print("test_table: the table of docs/testing.md is CTest's (%d rows)" % (new.count("\n| `")))
        return 0
    if len(argv) == 4:
        with open(readme + ".new", "w", encoding="utf-8") as f:
            f.write(head + BEGIN + new + END + tail)
        import os
        os.replace(readme + ".new", readme)
        print("test_table: %s updated" % readme)
        return 0
    import difflib
    print("test_table: the table of docs/testing.md differs from CTest's (COST, TIMEOUT):")
    sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                               "docs/testing.md", "ctest", n=0))
    print("regenerate: python3 CI/test_table.py BUILD_DIR docs/testing.md --update")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
