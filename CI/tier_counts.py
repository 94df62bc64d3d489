#!/usr/bin/env python3
"""docs.tiercounts: the table of docs/guide.md §8, "What the quick tier changes" states, per case, how many gates
are evaluated in both tiers, in the full tier only, and as quick counterparts. Those counts must be
the gate files' own (reference/CASE.json, the field "tier"), so that the guide cannot drift from
what `ccb gate` evaluates.

    python3 CI/tier_counts.py SOURCE_DIR     exit 0 when every row agrees, 1 naming each that does not
"""
import json
import os
import re
import sys


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    src = argv[1]
    text = open(os.path.join(src, "docs", "guide.md"), encoding="utf-8").read()
    head = "| case | quick tier | gates: both / full only / quick counterparts |"
    if head not in text:
        print("tier_counts: docs/guide.md has no table headed %s" % head)
        return 1
    rows = text.split(head, 1)[1].split("\n\n", 1)[0].strip().splitlines()[1:]
    bad, seen = 0, 0
    for row in rows:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        cases = [c.strip() for c in cells[0].split(",")]
        m = re.match(r"([\d, ]+) / ([\d, ]+) / ([\d, ]+)", cells[-1])
        if not m:
            print("tier_counts: row '%s': no 'both / full / quick' counts" % cells[0])
            bad += 1
            continue
        stated = [[int(x) for x in g.split(",")] for g in m.groups()]
        for k, case in enumerate(cases):
            path = os.path.join(src, "reference", case + ".json")
            gates = json.load(open(path, encoding="utf-8"))["gates"]
            have = [sum(g.get("tier") == t for g in gates) for t in ("both", "full", "quick")]
            says = [s[k] if len(s) == len(cases) else (s[0] if len(s) == 1 else -1) for s in stated]
            seen += 1
            if have != says:
                print("tier_counts: %s: docs/guide.md says %d / %d / %d, %s has %d / %d / %d"
                      % (case, *says, path, *have))
                bad += 1
    if seen < 10:
        print("tier_counts: only %d cases in the table" % seen)
        bad += 1
    if bad == 0:
        print("tier_counts: the counts of %d cases are their gate files'" % seen)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
