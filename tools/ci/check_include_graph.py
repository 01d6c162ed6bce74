#!/usr/bin/python3
"""Fails on include loops between the project's components, on product code including tests, on a
library including one of a later layer, on vkattn::base including Vulkan, and on a viewer folder
including a later one.

A component is a header with its source (runtime/include/vkattn/core/device.hpp with
runtime/src/core/device.cpp): a source belongs to the header of its own stem that it includes,
any other file stands alone (a source that defines another header's functions, such as
softmax.cpp for row_ops.hpp, is then a leaf: a loop through it is not seen). Component A depends on B when a file of A includes a file of B; a
cycle among those dependencies is an include loop (house style, rule 16), even when no single
header includes itself. The files and how each #include resolved come from the compiler: Ninja's
record of every object's dependencies (`ninja -C BUILD -t deps`), so only what a build compiled
is checked, and system and build-generated headers (outside the source tree, or inside the build
folder) are left out.

  check_include_graph.py SOURCE_DIR BUILD_DIR [--ninja NINJA] [--deps FILE]

The libraries are layers (LAYERS, lowest first): a library's files include only its own layer's
and those below it. base, the lowest, includes no Vulkan header. The viewer's folders are floors,
each including only itself and those before it (VIEWER_FLOORS). Test folders (tests/ and each
library's tests/) may include anything.

--deps reads a saved `ninja -t deps` output instead of running Ninja. Exit status 1 with each
loop printed as a chain of files, 0 when there is none.
"""
import argparse
import os
import re
import subprocess
import sys

SOURCE_SUFFIXES = (".cpp", ".cc", ".c")
CODE_SUFFIXES = SOURCE_SUFFIXES + (".hpp", ".h", ".inl")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')

def read_deps(text, build_dir):
    """{object: [absolute dependency paths in the compiler's order]} from `ninja -t deps`."""
    objects, current = {}, None
    for line in text.splitlines():
        if not line.strip():
            current = None
        elif not line[0].isspace():
            current = line.split(": #deps", 1)[0]
            objects[current] = []
        elif current is not None:
            objects[current].append(os.path.normpath(os.path.join(build_dir, line.strip())))
    return objects


def in_project(path, source_dir, build_dir):
    inside = lambda root: os.path.commonpath([path, root]) == root
    return inside(source_dir) and not inside(build_dir) and path.endswith(CODE_SUFFIXES)


# The libraries, lowest first; folders in one entry are one layer (neither uses the other). The
# programs above them (cli, viewer, python, bench, fuzz, tools) are not layered here.
LAYERS = [("base",), ("shaders", "runtime"), ("io", "reference"), ("tokenizers",), ("models",),
          ("measure", "conformance")]


def layer(rel):
    """The layer index of a file of a library (not of its tests), or None."""
    parts = rel.split(os.sep)
    for index, folders in enumerate(LAYERS):
        if parts[0] in folders:
            return index
    return None


def includes_vulkan(path):
    """Whether the file names a Vulkan header in an #include (system headers are not in the graph)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return any((m := INCLUDE.match(line)) and m.group(2).startswith("vulkan/") for line in f)


# viewer/src's folders, lowest first.
VIEWER_FLOORS = ["spirv", "sources", "render", "platform", "app"]


def viewer_floor(rel):
    """The floor index of a file under viewer/src/<floor>/, or None."""
    parts = rel.split(os.sep)
    if len(parts) > 3 and parts[:2] == ["viewer", "src"] and parts[2] in VIEWER_FLOORS:
        return VIEWER_FLOORS.index(parts[2])
    return None


def is_test_file(rel):
    return "tests" in rel.split(os.sep)[:-1]


def direct_includes(path, candidates):
    """The files `path` includes, resolved among `candidates` (what the compiler read for the same
    object): a quoted name next to the includer first, then wherever the compiler found it."""
    found = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
    except OSError:
        return found
    here = os.path.dirname(path)
    for line in lines:
        m = INCLUDE.match(line)
        if not m:
            continue
        name = os.path.normpath(m.group(2))
        beside = os.path.normpath(os.path.join(here, name))
        if m.group(1) == '"' and beside in candidates:
            found.append(beside)
            continue
        for c in candidates:  # the compiler's order: the first match is the one it opened
            if c.endswith(os.sep + name):
                found.append(c)
                break
    return found


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def build_graph(objects, source_dir, build_dir):
    """{file: [project files it includes, in order]} over the project's files of every object."""
    edges = {}
    for deps in objects.values():
        candidates = [d for d in deps if os.path.isfile(d)]
        for f in deps:
            if f in edges or not in_project(f, source_dir, build_dir):
                continue
            edges[f] = [g for g in direct_includes(f, candidates)
                        if g != f and in_project(g, source_dir, build_dir)]
    return edges


def components(edges):
    """{file: component name}: a source joins the first header of its own stem that it includes."""
    owner = {f: f for f in edges}
    for f, included in edges.items():
        if f.endswith(SOURCE_SUFFIXES):
            owner[f] = next((g for g in included if stem(g) == stem(f)), f)
    return owner


def strongly_connected(nodes, succ):
    """Tarjan's algorithm, iterative: the components with more than one node."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(succ.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(succ.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                scc = []
                while True:
                    n = stack.pop()
                    on_stack.discard(n)
                    scc.append(n)
                    if n == node:
                        break
                if len(scc) > 1:
                    out.append(sorted(scc))
    return out


def shortest_cycle(start, members, succ):
    """The shortest component path from `start` back to itself inside one strongly connected set."""
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt_frontier = []
        for node in frontier:
            for nxt in sorted(succ.get(node, ())):
                if nxt == start:
                    path = [node]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if nxt in members and nxt not in prev:
                    prev[nxt] = node
                    nxt_frontier.append(nxt)
        frontier = nxt_frontier
    return [start]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source_dir")
    parser.add_argument("build_dir")
    parser.add_argument("--ninja", default="ninja")
    parser.add_argument("--deps", help="a saved `ninja -t deps` output")
    args = parser.parse_args()
    source_dir = os.path.realpath(args.source_dir)
    build_dir = os.path.realpath(args.build_dir)

    if args.deps:
        with open(args.deps, encoding="utf-8") as f:
            text = f.read()
    else:
        text = subprocess.run([args.ninja, "-C", build_dir, "-t", "deps"], check=True,
                              capture_output=True, text=True).stdout
    objects = read_deps(text, build_dir)
    edges = build_graph(objects, source_dir, build_dir)
    if not edges:
        print(f"check_include_graph: no dependencies recorded in {build_dir}; build it first")
        return 1
    rel = lambda p: os.path.relpath(p, source_dir)
    owner = components(edges)

    # Component edges, each with one pair of files that makes it (the includer, the included).
    succ, witness = {}, {}
    for f, targets in edges.items():
        for g in targets:
            a, b = owner[f], owner[g]
            if a != b:
                succ.setdefault(a, set()).add(b)
                witness.setdefault((a, b), (f, g))

    failures = 0
    for scc in strongly_connected(set(owner.values()), succ):
        # One shortest loop through each component of the tangle that no loop printed so far shows.
        print(f"include loop among {len(scc)} components: {', '.join(rel(c) for c in scc)}")
        shown = set()
        for start in scc:
            if start in shown:
                continue
            cycle = shortest_cycle(start, set(scc), succ)
            shown.update(cycle)
            print("  loop:")
            for a, b in zip(cycle, cycle[1:]):
                f, g = witness[(a, b)]
                print(f"    {rel(f)} includes {rel(g)}")
        failures += 1

    for f in sorted(edges):
        if is_test_file(rel(f)):
            continue
        for g in sorted(edges[f]):
            if is_test_file(rel(g)):
                print(f"product code includes a test file: {rel(f)} includes {rel(g)}")
                failures += 1
            low, high = layer(rel(f)), layer(rel(g))
            if low is not None and high is not None and high > low:
                print(f"a library reaches up: {rel(f)} includes {rel(g)} "
                      f"(layers, lowest first: {', '.join('/'.join(l) for l in LAYERS)})")
                failures += 1
            below, above = viewer_floor(rel(f)), viewer_floor(rel(g))
            if below is not None and above is not None and above > below:
                print(f"a viewer floor reaches up: {rel(f)} includes {rel(g)} "
                      f"(floors, lowest first: {', '.join(VIEWER_FLOORS)})")
                failures += 1

    for f in sorted(edges):
        if layer(rel(f)) == 0 and not is_test_file(rel(f)) and includes_vulkan(f):
            print(f"vkattn::base includes Vulkan: {rel(f)}")
            failures += 1

    files = len(edges)
    if failures:
        print(f"check_include_graph: {failures} problem(s) in {files} files")
        return 1
    print(f"check_include_graph: no include loops among {len(set(owner.values()))} components "
          f"({files} files, {len(objects)} objects)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
