"""Every command-line flag that a message, warning or help text of the library
names is a real option of some ``vsizer`` command.

A plan warning told users to "pass it with --host-catalog" and the perfmon
reader to "give --encoding", neither of which existed: the flag is --hosts,
and --encoding had no command-line form. Messages are how users act on a plan,
so a misspelt flag is a bug this test catches.
"""

from __future__ import annotations

import re
from pathlib import Path

import typer

from vsizer.cli import app

ROOT = Path(__file__).resolve().parents[1] / "vsizer"
#: Texts that name something other than a vsizer flag: CSS custom properties of
#: the HTML report, curl's option in the Prometheus how-to, and the prefix of the
#: generated --target-* flags.
NOT_FLAGS = {"--accent", "--bad", "--bg", "--fg", "--good", "--line", "--muted",
             "--data-urlencode", "--target",
             "--human", "--pretty"}  # sar's own options (vsizer/series/sysstat.py)
#: Command lines of other tools (fio, sysbench, QEMU, apt, the load generator).
OTHER_TOOLS = ROOT / "bench"
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


def _options(command: typer.core.TyperCommand | typer.core.TyperGroup) -> set[str]:
    found = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
    for sub in getattr(command, "commands", {}).values():  # a group (typer's own click)
        if True:
            found |= _options(sub)
    return found


def test_every_flag_named_in_the_library_exists() -> None:
    options = _options(typer.main.get_command(app)) | {"--help", "--version", "--debug"}
    unknown = {}
    for path in sorted(ROOT.rglob("*.py")):
        if OTHER_TOOLS in path.parents:
            continue
        for match in FLAG.finditer(path.read_text(encoding="utf-8")):
            flag = match.group(0)
            if flag not in options and flag not in NOT_FLAGS:
                unknown.setdefault(flag, str(path.relative_to(ROOT.parent)))
    assert unknown == {}


def test_the_pattern_finds_flags_and_not_dashes() -> None:
    text = "raise it with --max-rows; a -- b; x--y; --tz, (--series-step)"
    assert FLAG.findall(text) == ["--max-rows", "--tz", "--series-step"]
