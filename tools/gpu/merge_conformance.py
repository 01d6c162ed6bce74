#!/usr/bin/env python3
"""Merges the JSON reports of `vkattn conformance` runs over parts of the suite (GoogleTest shards:
GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX, as tools/gpu/qualify_gpu.sh runs them in parallel) into one
table of kernels, cases, passes, skips and failures; exit status 1 if any case failed or a part
is missing.

usage: merge_conformance.py PART.json ... [--json MERGED.json]
"""
import argparse
import json
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("parts", nargs="+", help="the parts' --json reports")
    p.add_argument("--json", help="write the merged report here")
    a = p.parse_args()
    rows, devices, missing = {}, set(), []
    for path in a.parts:
        try:
            with open(path) as f:
                part = json.load(f)
        except (OSError, ValueError) as e:
            missing.append(f"{path}: {e}")
            continue
        devices.add(part["device"])
        for k in part["kernels"]:
            r = rows.setdefault(k["kernel"], {"kernel": k["kernel"], "cases": 0, "passed": 0, "skipped": 0, "failed": 0,
                                              "max_abs_error": 0.0, "worst_error_over_tolerance": 0.0, "failures": [],
                                              "skips": []})
            for key in ("cases", "passed", "skipped", "failed"):
                r[key] += k[key]
            for key in ("max_abs_error", "worst_error_over_tolerance"):
                r[key] = max(r[key], k[key])
            r["failures"] += k["failures"]
            r["skips"] += k.get("skips", [])
    print(f"vkattn conformance on {', '.join(sorted(devices)) or 'no device'}, {len(a.parts) - len(missing)} of "
          f"{len(a.parts)} parts\n")
    print(f"{'kernel':<36} {'cases':>6} {'passed':>7} {'skipped':>8} {'failed':>7} {'worst err / tol':>16}")
    total = {"cases": 0, "passed": 0, "skipped": 0, "failed": 0}
    for name in sorted(rows):
        r = rows[name]
        print(f"{name:<36} {r['cases']:>6} {r['passed']:>7} {r['skipped']:>8} {r['failed']:>7} "
              f"{r['worst_error_over_tolerance']:>16.3f}")
        for key in total:
            total[key] += r[key]
    for name in sorted(rows):
        for f in rows[name]["failures"]:
            print(f"FAILED {name}: {f}")
    failed = total["failed"]
    print(f"\n{total['passed']} passed, {total['skipped']} skipped, {failed} failed")
    for m in missing:
        print(f"MISSING part (crashed or timed out): {m}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"devices": sorted(devices), "kernels": [rows[k] for k in sorted(rows)], "missing": missing},
                      f, indent=2)
    return 1 if failed or missing else 0


if __name__ == "__main__":
    sys.exit(main())
