#!/usr/bin/python3
"""Runs one tier of the tests and prints its time table in Markdown, from ctest's own timing.

  tools/ci/test_times.py BUILD_DIR [--tier quick|exhaustive|all] [--cold] [--jobs N] [--top N]
                      [--budgets [--warn-only]] [--from-log CTEST_OUTPUT]

--tier picks the tests (quick: every test without the `exhaustive` label, as the README's test
command runs them; exhaustive: only those; all: both). --cold empties vkattn's test pipeline cache
and Mesa's shader cache first, as on a fresh machine. The table gives the wall time of the whole
run, the number of tests, and the slowest tests with their own times (ctest's progress lines).
--budgets compares each quick test's time with its budget and the tier's wall time with the
tier's (BUILD_DIR/test_budgets.tsv, written by cmake/VkattnTestLimits.cmake) and names every one
over. --from-log reads a saved ctest output instead of running the tests (CI reports its own run).
Exit status: ctest's, else 1 when --budgets found one over (0 with --warn-only).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path


def cache_variable(build: Path, name: str) -> str:
    for line in (build / "CMakeCache.txt").read_text().splitlines():
        if line.startswith(name + ":"):
            return line.split("=", 1)[1]
    return ""


def empty_caches(build: Path) -> None:
    pipeline_cache = cache_variable(build, "VKATTN_TEST_PIPELINE_CACHE")
    if pipeline_cache and os.path.exists(pipeline_cache):
        os.remove(pipeline_cache)
    if os.environ.get("MESA_SHADER_CACHE_DIR"):
        shutil.rmtree(os.environ["MESA_SHADER_CACHE_DIR"], ignore_errors=True)
        return
    cache_home = Path(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")))
    for folder in cache_home.glob("mesa_shader_cache*"):
        shutil.rmtree(folder, ignore_errors=True)


def test_times(ctest_output: str) -> list[tuple[str, float, bool]]:
    """(name, seconds, passed) from ctest's progress lines: ' 3/63 Test  #3: name ....   Passed    0.18 sec'."""
    tests = []
    for line in ctest_output.splitlines():
        m = re.match(r"\s*\d+/\d+ Test +#\d+: (\S+) \.*\**\s*(\S.*?)\s+([0-9.]+) sec$", line)
        if m:
            tests.append((m.group(1), float(m.group(3)), m.group(2) == "Passed"))
    return tests


def read_budgets(build: Path) -> tuple[float, dict[str, float]]:
    """The quick tier's budget and each test's, from the file the build's configuration wrote."""
    tier, tests = 0.0, {}
    for line in (build / "test_budgets.tsv").read_text().splitlines():
        name, seconds = line.split("\t")
        if name == "tier":
            tier = float(seconds)
        else:
            tests[name] = float(seconds)
    return tier, tests


def over_budget(tests: list[tuple[str, float, bool]], wall: float, build: Path) -> list[str]:
    """One line per test over its budget, and one for the tier if its wall time is over."""
    tier, budgets = read_budgets(build)
    lines = []
    for name, seconds, _ in sorted(tests, key=lambda t: -t[1]):
        if name in budgets and seconds > budgets[name]:
            lines.append(f"{name}: {seconds:.1f} s, budget {budgets[name]:.0f} s")
    if wall > tier:
        lines.append(f"the quick tier: {wall:.0f} s of wall time, budget {tier:.0f} s")
    return lines


def run_ctest(build: Path, tier: str, jobs: int) -> tuple[int, str, float]:
    labels = {"quick": ["-LE", "exhaustive"], "exhaustive": ["-L", "exhaustive"], "all": []}[tier]
    command = ["ctest", "--test-dir", str(build), "-j", str(jobs), "--output-on-failure", *labels]
    start = time.monotonic()
    output = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as ctest:
        for line in ctest.stdout:
            sys.stdout.write(line)
            output.append(line)
    return ctest.returncode, "".join(output), time.monotonic() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build", type=Path)
    parser.add_argument("--tier", choices=("quick", "exhaustive", "all"), default="quick")
    parser.add_argument("--cold", action="store_true")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--budgets", action="store_true")
    parser.add_argument("--warn-only", action="store_true")
    parser.add_argument("--from-log", type=Path)
    args = parser.parse_args()
    if not (args.build / "CMakeCache.txt").exists():
        parser.error(f"{args.build} is not a configured build folder")
    if args.budgets and args.tier != "quick":
        parser.error("--budgets: budgets are the quick tier's")
    if args.from_log:
        output = args.from_log.read_text(errors="replace")
        total = re.search(r"Total Test time \(real\) = +([0-9.]+) sec", output)
        if not total:
            parser.error(f"{args.from_log} holds no finished ctest run")
        status, wall = 0, float(total.group(1))
    else:
        if args.cold:
            empty_caches(args.build)
        status, output, wall = run_ctest(args.build, args.tier, args.jobs)
    tests = test_times(output)
    passed = sum(1 for t in tests if t[2])
    cache = "cold (empty caches)" if args.cold else "as found"
    print(f"\n| tier | caches | ctest -j | tests | passed | wall |\n|---|---|---|---|---|---|")
    print(f"| {args.tier} | {cache} | {args.jobs} | {len(tests)} | {passed} | {wall / 60:.1f} min ({wall:.0f} s) |")
    print(f"\nSlowest tests ({args.tier}, {cache}; each test's own time, ctest -j {args.jobs}):\n")
    print("| test | time |\n|---|---|")
    for name, seconds, _ in sorted(tests, key=lambda t: -t[1])[: args.top]:
        print(f"| `{name}` | {seconds:.1f} s |")
    if args.budgets:
        over = over_budget(tests, wall, args.build)
        print(f"\nOver budget ({len(over)}):" if over else "\nEvery test and the tier within budget.")
        for line in over:
            print(f"  {line}")
        if over and status == 0 and not args.warn_only:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
