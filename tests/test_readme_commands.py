"""Every command of README.md runs, in order, from a fresh clone's point of view.

The files git tracks are copied to a temporary folder (nothing else: no
generated or untracked file can make a command pass), and each ``vsizer ...``
line of the README's ``sh`` blocks runs there as ``python -m vsizer ...``
(the copy's own package), then the ``python`` block. Each must exit 0.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def readme_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block, in order."""
    return [(m.group(1), m.group(2))
            for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)]


def readme_commands(text: str) -> list[list[str]]:
    """The ``vsizer`` commands of the ``sh`` blocks: continuation lines joined,
    comments dropped, split as a POSIX shell would (no globs are used)."""
    out = []
    for lang, body in readme_blocks(text):
        if lang != "sh":
            continue
        for line in body.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0] == "vsizer":
                out.append(words[1:])
    return out


def test_commands_are_found():
    cmds = readme_commands((REPO / "README.md").read_text(encoding="utf-8"))
    assert len(cmds) >= 15
    assert cmds[0][:2] == ["plan", "vsizer/data/samples/servers.csv"]
    assert cmds[[c[0] for c in cmds].index("import") + 2][2:4] == ["--format", "perfmon"]


def _tracked_copy(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        src = REPO / rel
        if src.is_file():  # a tracked file deleted in the work tree is not copied
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


@pytest.mark.skipif(shutil.which("git") is None or not (REPO / ".git").exists(),
                    reason="needs a git checkout")
@pytest.mark.slow  # every README command in a subprocess: about 100 CPU s
def test_every_readme_command_runs_in_a_fresh_clone(tmp_path):
    clone = tmp_path / "clone"
    _tracked_copy(clone)
    text = (clone / "README.md").read_text(encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(clone), "COLUMNS": "100"}
    for args in readme_commands(text):
        run = subprocess.run([sys.executable, "-m", "vsizer", *args], cwd=clone, env=env,
                             capture_output=True, text=True, timeout=900)
        assert run.returncode == 0, (
            f"vsizer {shlex.join(args)} -> exit {run.returncode}\n{run.stderr[-3000:]}")
    code = [body for lang, body in readme_blocks(text) if lang == "python"]
    assert len(code) == 1
    run = subprocess.run([sys.executable, "-c", code[0]], cwd=clone, env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    assert (clone / "out" / "series.html").stat().st_size > 0
    # the sar, sadf, perfmon, Prometheus and long-CSV series all attach to servers.csv
    series = json.loads((clone / "out" / "series.json").read_text(encoding="utf-8"))["series"]
    assert (series["matched"], series["series_only"], series["inventory_only"]) == (12, 0, 3)
