#!/usr/bin/env python3
"""Checks `vkattn devices --pipelines --json` reports against shaders/compiler_budgets.json and
prints every module's compiler statistics as a Markdown table.

Each report is given as CHIP=REPORT.json (the chip names the budgets' exceptions). Every rule
whose pattern matches a module's name applies to it; an exception for that chip and the module's
catalog entry replaces a rule's bound. A violation names the chip, the module, its entry, the
statistic, its figure and the bound; the exit status is 1 if there is one, or if a statistic a
rule names is missing from a report (a driver that stopped reporting it must not pass).

Besides the driver's statistics, a rule may bound the figures vkattn reads from AMD's ISA text
for a module's main loop (its "main_loop" object; ISA_STATISTICS names them).

With --no-budgets only the table is written (a GPU whose driver names its statistics otherwise,
as tools/gpu/qualify_gpu.sh uses it): the curated columns where the driver reports them, else every
statistic but identifiers.

usage: check_compiler_budgets.py [--budgets FILE | --no-budgets] [--markdown TABLE.md] CHIP=REPORT.json ...
"""
import argparse
import json
import os
import re
import sys

COLUMNS = [("VGPRs", "VGPRs"), ("SGPRs", "SGPRs"), ("Spilled VGPRs", "spilled VGPRs"), ("Scratch size", "scratch B"),
           ("LDS size", "LDS B"), ("Subgroups per SIMD", "waves / SIMD"), ("Instructions", "instructions"),
           ("Inverse Throughput", "inverse throughput")]
# Figures from the module's main loop in its ISA text (`vkattn devices --pipelines`, isa_main_loop.hpp):
# the name a rule uses, and the report's key.
ISA_STATISTICS = {"Main loop memory loads": "memory_loads", "Main loop full memory waits": "full_memory_waits"}


def statistic(module, name):
    """A driver statistic, or a main-loop figure from the ISA text; None where the report has neither."""
    if name in ISA_STATISTICS:
        return (module.get("main_loop") or {}).get(ISA_STATISTICS[name])
    return module["statistics"].get(name)


def bounds_for(budgets, chip, module):
    """[(statistic, 'max'|'min', bound, why)] and the instruction kinds required ('matrix', 'dot')."""
    out, required = [], set()
    for rule in budgets["rules"]:
        if not re.search(rule["modules"], module["module"]):
            continue
        for kind in ("max", "min"):
            for stat, bound in rule.get(kind, {}).items():
                out.append([stat, kind, bound, rule["why"]])
        required |= {kind for kind in ("matrix", "dot") if rule.get(kind + "_instructions", False)}
    for exc in budgets.get("exceptions", []):
        if exc["chip"] == chip and module["entry"] in exc["entries"]:
            for item in out:
                if item[0] in exc.get(item[1], {}):
                    item[2], item[3] = exc[item[1]][item[0]], exc["why"]
    return out, required


def check(budgets, chip, report):
    violations = []
    for m in report["modules"]:
        where = f"{chip}: {m['module']} ({m['entry']})"
        bounds, required = bounds_for(budgets, chip, m)
        for stat, kind, bound, why in bounds:
            value = statistic(m, stat)
            if value is None:
                violations.append(f"{where}: the driver reported no '{stat}'")
            elif (kind == "max" and value > bound) or (kind == "min" and value < bound):
                sign = "<=" if kind == "max" else ">="
                violations.append(f"{where}: {stat} = {value:g}, budget {sign} {bound:g} ({why})")
        for kind in sorted(required):
            got = m.get(kind + "_instructions")
            if not got:
                violations.append(f"{where}: {'no ISA text' if got is None else '0'} {kind} instructions, budget >= 1")
    return violations


def columns_for(report):
    """The curated columns the driver reports, else all its statistics but identifiers."""
    names = []
    for m in report["modules"]:
        names += [n for n in m["statistics"] if n not in names and "hash" not in n.lower()]
    curated = [(stat, label) for stat, label in COLUMNS if stat in names]
    return curated or [(n, n) for n in names]


def markdown(reports):
    lines = []
    for chip, report in reports:
        columns = columns_for(report)
        lines += [f"{report['device']}, {report['driver']}:", "",
                  "| module | entry | " + " | ".join(label for _, label in columns) +
                  " | matrix instructions | packed dot instructions | main loop: loads / full waits |",
                  "|---|---|" + "---|" * len(columns) + "---|---|---|"]
        for m in sorted(report["modules"], key=lambda m: (m["module"], m["entry"])):
            cells = [m["module"], m["entry"]]
            for stat, _ in columns:
                v = m["statistics"].get(stat)
                cells.append("–" if v is None else f"{v:g}")
            for kind in ("matrix", "dot"):
                count = m.get(kind + "_instructions")
                cells.append("–" if count is None else str(count))
            loop = m.get("main_loop")
            cells.append("–" if not loop else f"{loop['memory_loads']} / {loop['full_memory_waits']}")
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("reports", nargs="+", metavar="CHIP=REPORT.json")
    p.add_argument("--budgets", default=os.path.join(here, "..", "..", "shaders", "compiler_budgets.json"))
    p.add_argument("--markdown", help="write the statistics table here")
    p.add_argument("--no-budgets", action="store_true", help="write the table only")
    a = p.parse_args()
    with open(a.budgets) as f:
        budgets = json.load(f)
    reports, violations = [], []
    for item in a.reports:
        chip, sep, path = item.partition("=")
        if not sep:
            p.error(f"'{item}': expected CHIP=REPORT.json")
        with open(path) as f:
            report = json.load(f)
        if not report["modules"]:
            violations.append(f"{chip}: the report holds no module")
        reports.append((chip, report))
        if not a.no_budgets:
            violations += check(budgets, chip, report)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(markdown(reports))
    for chip, report in reports:
        print(f"{chip}: {len(report['modules'])} modules from {report['device']} ({report['driver']})")
    for v in violations:
        print("BUDGET " + v)
    if not a.no_budgets:
        print("compiler budgets: " + (f"{len(violations)} violation(s)" if violations else "all met"))
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
