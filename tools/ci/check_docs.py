#!/usr/bin/env python3
"""Checks README.md and docs/*.md for what would send a reader nowhere: every relative link must
name a file that exists (and a heading in it, for a #fragment), and every repository path written
in backticks (`tools/gpu/qualify_gpu.sh`, `shaders/matmul_coopmat.comp`) must exist. Paths under
build/, with placeholders (upper-case words such as DIR or FILE) or wildcards are not files of the
repository and are left alone. Prints each problem with its file and line; exit status 1 if any.

usage: check_docs.py [REPO_ROOT]
"""
import re
import sys
from pathlib import Path

TOP = ("assets", "bench", "cli", "cmake", "conformance", "docs", "fuzz", "io", "measure", "models", "python",
       "reference", "runtime", "shaders", "tests", "tokenizers", "tools", "viewer", ".ci")
LINK = re.compile(r"\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
PATH = re.compile(r"^(?:\./)?((?:%s)/[A-Za-z0-9_./+-]*[A-Za-z0-9_+-])/?$" % "|".join(re.escape(t) for t in TOP))


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    found, fence = set(), False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence and line.startswith("#"):
            found.add(slug(line.lstrip("#")))
    return found


def check(root):
    problems = []
    pages = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    for page in pages:
        fence = False
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{page.relative_to(root)}:{number}"
            if line.startswith("```"):
                fence = not fence
                continue
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target):
                    continue  # http:, https:, mailto:
                file, _, fragment = target.partition("#")
                dest = (page.parent / file).resolve() if file else page
                if not dest.exists():
                    problems.append(f"{where}: link to {target}: no such file")
                elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
                    problems.append(f"{where}: link to {target}: no heading '#{fragment}' there")
            if fence:
                continue
            for code in CODE.findall(line):
                for word in code.split():
                    m = PATH.match(word.strip("(),;:"))
                    if not m or re.search(r"[A-Z]{2,}|\*|<|>", m.group(1)):
                        continue
                    if not (root / m.group(1)).exists():
                        problems.append(f"{where}: `{m.group(1)}` does not exist in the repository")
    return problems


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]).resolve()
    problems = check(root)
    for p in problems:
        print(p)
    print(f"check_docs: {len(problems)} problem(s) in README.md and docs/")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
