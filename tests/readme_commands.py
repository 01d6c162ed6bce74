"""Runs the commands the README shows, as a reader would type them in a copy of the repository (a
scratch folder whose assets/ is the repository's, so that what they write lands there): every
line of its sh blocks that calls the build's programs (build/ standing for the build folder;
viewer lines get --screenshot so that they run headless) and every python block (PNG paths
pointed into a scratch folder). Lines covered by other tests because they take long (the full
qualification, the conformance suite, the installers, ctest itself) are listed and skipped.

usage: python3 tests/readme_commands.py REPO_ROOT BUILD_DIR SCRATCH_DIR
"""
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

# Run elsewhere: qualify_gpu_runs_and_merges_parts, cli_conformance_quick, CI itself.
COVERED_ELSEWHERE = ("tools/gpu/qualify_gpu.sh", "tools/install_deps.sh", "ctest ", "build/vkattn conformance --quick")


def blocks(text, language):
    return re.findall(r"```%s\n(.*?)```" % language, text, flags=re.S)


def main():
    root, build, scratch = (Path(p).resolve() for p in sys.argv[1:4])
    scratch.mkdir(parents=True, exist_ok=True)
    if not (scratch / "assets").exists():
        (scratch / "assets").symlink_to(root / "assets")
    readme = (root / "README.md").read_text(encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(build / "python"))
    failures, ran = [], 0
    for block in blocks(readme, "sh"):
        for line in block.splitlines():
            command = line.split("  #")[0].strip()
            if not command or command.startswith(COVERED_ELSEWHERE) or not re.search(r"\bbuild/", command):
                continue
            words = [w.replace("build/", str(build) + "/", 1) if w.startswith("build/") else w
                     for w in shlex.split(command.replace("PYTHONPATH=build/python ", ""))]
            if words[0].endswith("vkattn-viewer"):
                words += ["--screenshot", str(scratch / f"viewer{ran}.png"), "--size", "640x400"]
            result = subprocess.run(words, cwd=scratch, env=env, capture_output=True, text=True, timeout=600)
            ran += 1
            print(f"{'ok  ' if result.returncode == 0 else 'FAIL'} {command}", flush=True)
            if result.returncode != 0:
                failures.append(f"{command}\n{result.stderr[-2000:]}")
    for n, block in enumerate(blocks(readme, "python")):
        code = re.sub(r'out="([^"]+\.png)"', lambda m: f'out={str(scratch / m.group(1))!r}', block)
        result = subprocess.run([sys.executable, "-c", code], cwd=scratch, env=env, capture_output=True, text=True,
                                timeout=600)
        ran += 1
        print(f"{'ok  ' if result.returncode == 0 else 'FAIL'} python block {n + 1}", flush=True)
        if result.returncode != 0:
            failures.append(f"python block {n + 1}\n{result.stderr[-2000:]}")
    for f in failures:
        print("FAILED " + f)
    if ran == 0:
        print("no command found in the README")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
