#!/usr/bin/env python3
"""bench/compare.py BEFORE.json AFTER.json — the issue-11 targets of two scripts/bench.sh runs side by side
(results.json files), as a Markdown table: what each target measured before and after, and whether it is met."""
import json
import sys


def targets(path):
    with open(path) as f:
        data = json.load(f)
    return data["meta"], {t["workload"] + " | " + t["target"]: t for t in data["targets"]}


def main():
    if len(sys.argv) != 3:
        print("usage: bench/compare.py BEFORE/results.json AFTER/results.json", file=sys.stderr)
        sys.exit(2)
    (mb, before), (ma, after) = targets(sys.argv[1]), targets(sys.argv[2])
    print(f"before: commit {mb.get('commit', '?')} ({mb.get('date', '?')}); after: commit {ma.get('commit', '?')} ({ma.get('date', '?')})\n")
    print("| workload | target | before | after | met after |")
    print("|---|---|---|---|---|")
    met = {None: "—", True: "yes", False: "**no**"}
    for key in list(before) + [k for k in after if k not in before]:
        b, a = before.get(key), after.get(key)
        w, t = key.split(" | ", 1)
        print(f"| {w} | {t} | {b['value'] if b else '—'} | {a['value'] if a else '—'} | {met[a['met']] if a else '—'} |")


if __name__ == "__main__":
    main()
