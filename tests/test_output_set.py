"""Outputs never replace inputs; the outputs of a run are one set (issue 24).

The reproducers of the findings: ``plan inv.xlsx -o inv.xlsx`` replaced the
inventory; two plans on one output set left files from both; a missing extra
made every output fail; a symbolic link was replaced by a file, a read-only
file silently replaced, and setuid bits carried over.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import vsizer
from vsizer._atomic import atomic_write, check_not_input, output_set
from vsizer.cli import app
from vsizer.errors import OutputError

SAMPLES = Path(vsizer.__file__).parent / "data" / "samples"
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "250"})


# -- outputs never replace inputs ------------------------------------------------


def test_plan_refuses_an_output_that_is_the_inventory(tmp_path):
    inv = tmp_path / "inv.xlsx"
    shutil.copyfile(SAMPLES / "inventory_ja.xlsx", inv)
    before = inv.read_bytes()
    res = run("plan", str(inv), "-q", "-o", str(tmp_path / "plan.json"), "-o", str(inv))
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        f"error: -o {inv}: is the inventory of this run ({inv}); vsizer never writes "
        "over an input: give another file name."
    ]
    assert inv.read_bytes() == before
    assert not (tmp_path / "plan.json").exists()  # refused before any work


def test_plan_refuses_a_link_to_the_inventory_and_a_file_inside_a_series_input(tmp_path):
    inv = tmp_path / "inv.xlsx"
    shutil.copyfile(SAMPLES / "inventory_ja.xlsx", inv)
    (tmp_path / "link.xlsx").symlink_to(inv)
    store = tmp_path / "store"
    store.mkdir()
    (store / "cpu.csv").write_text("time,server,cpu\n", encoding="utf-8")
    res = run(
        "plan", str(inv), "--series", str(store), "-q",
        "-o", str(tmp_path / "link.xlsx"), "-o", str(store / "plan.json"),
    )
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        f"error: -o {tmp_path / 'link.xlsx'}: is the inventory of this run ({inv}); "
        "vsizer never writes over an input: give another file name.",
        f"error: -o {store / 'plan.json'}: lies inside a --series input of this run "
        f"({store}); write outputs outside the inputs.",
    ]


def test_check_not_input_names_the_flag_of_a_catalog(tmp_path):
    hosts = tmp_path / "hosts.xlsx"
    hosts.write_bytes(b"x")
    with pytest.raises(OutputError) as exc:
        check_not_input([hosts], {"the inventory": [None], "the --hosts file": [hosts]})
    assert str(exc.value) == (
        f"-o {hosts}: is the --hosts file of this run ({hosts}); vsizer never "
        "writes over an input: give another file name."
    )
    check_not_input([tmp_path / "plan.xlsx"], {"the --hosts file": [hosts]})  # fine


# -- links, read-only files, mode bits ----------------------------------------------


def test_a_symbolic_link_is_followed_and_kept(tmp_path):
    real = tmp_path / "reports" / "plan.json"
    real.parent.mkdir()
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "plan.json"
    link.symlink_to(real)
    with atomic_write(link, "w", encoding="utf-8") as fh:
        fh.write("new")
    assert link.is_symlink()
    assert real.read_text(encoding="utf-8") == "new"


def test_a_read_only_output_is_refused_one_line(tmp_path):
    target = tmp_path / "plan.json"
    target.write_text("keep", encoding="utf-8")
    target.chmod(0o444)
    res = run("plan", str(SAMPLES / "inventory_ja.csv"), "-q", "-o", str(target))
    assert res.exit_code == 2
    assert res.output.strip() == (
        f"error: -o {target}: the file is read-only (mode 0444); vsizer does not "
        "replace read-only files: remove it or give another name."
    )
    with (
        pytest.raises(OutputError, match="the file is read-only"),
        atomic_write(target, "w", encoding="utf-8") as fh,
    ):
        fh.write("new")
    assert target.read_text(encoding="utf-8") == "keep"


def test_setuid_and_setgid_bits_are_never_carried_over(tmp_path):
    target = tmp_path / "plan.json"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o6755)
    with atomic_write(target, "w", encoding="utf-8") as fh:
        fh.write("new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o755


# -- one output set ----------------------------------------------------------------


def test_output_set_commits_at_the_end_and_an_error_keeps_every_old_file(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text("a0", encoding="utf-8")
    b.write_text("b0", encoding="utf-8")
    with pytest.raises(RuntimeError), output_set():
        with atomic_write(a, "w", encoding="utf-8") as fh:
            fh.write("a1")
        assert a.read_text(encoding="utf-8") == "a0"  # not before the end
        raise RuntimeError("stop")
    assert (a.read_text(encoding="utf-8"), b.read_text(encoding="utf-8")) == ("a0", "b0")
    with output_set():
        for p, text in ((a, "a1"), (b, "b1")):
            with atomic_write(p, "w", encoding="utf-8") as fh:
                fh.write(text)
        assert a.read_text(encoding="utf-8") == "a0"
    assert (a.read_text(encoding="utf-8"), b.read_text(encoding="utf-8")) == ("a1", "b1")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json"]


_WRITER = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from vsizer._atomic import atomic_write, output_set

    tag, folder, pause = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])
    real_replace = os.replace

    def slow_replace(src, dst):
        real_replace(src, dst)
        (folder / f"started-{tag}").touch()
        time.sleep(pause)

    os.replace = slow_replace
    if tag == "B":  # B commits while A is in the middle of its renames
        while not (folder / "started-A").exists():
            time.sleep(0.005)
    with output_set():
        for name in ("plan.json", "plan.xlsx", "report.html"):
            with atomic_write(folder / name, "w", encoding="utf-8") as fh:
                fh.write(tag)
    """
)


def test_a_temporary_left_by_a_killed_run_is_removed_by_the_next_write(tmp_path):
    """kill -9 between writing and renaming leaves ``.p.json.HOST-PID.*.tmp``;
    the next write of p.json removes it once that PID no longer runs, and
    leaves a live process's temporary and other names alone."""
    from vsizer._atomic import _HOST

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    stale = tmp_path / f".p.json.{_HOST}-{dead}.abc123.tmp"
    live = tmp_path / f".p.json.{_HOST}-{os.getppid()}.def456.tmp"
    other_host = tmp_path / f".p.json.0000beef-{dead}.ghi789.tmp"
    other_name = tmp_path / f".q.json.{_HOST}-{dead}.jkl012.tmp"
    for f in (stale, live, other_host, other_name):
        f.write_text("partial")
    with output_set(), atomic_write(tmp_path / "p.json", "w") as fh:
        fh.write("{}")
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([live.name, other_host.name, other_name.name, "p.json"])
    with atomic_write(tmp_path / "q.json", "w") as fh:  # outside a set too
        fh.write("{}")
    assert not other_name.exists()


def test_two_runs_on_one_output_set_never_leave_a_mix(tmp_path):
    """A renames slowly; B commits after A's first rename: B must wait for A's set."""
    env = {**os.environ, "PYTHONPATH": str(Path(vsizer.__file__).parent.parent)}
    a = subprocess.Popen(
        [sys.executable, "-c", _WRITER, "A", str(tmp_path), "0.3"], env=env
    )
    b = subprocess.Popen(
        [sys.executable, "-c", _WRITER, "B", str(tmp_path), "0"], env=env
    )
    assert a.wait(timeout=60) == 0 and b.wait(timeout=60) == 0
    texts = {
        (tmp_path / n).read_text(encoding="utf-8")
        for n in ("plan.json", "plan.xlsx", "report.html")
    }
    assert texts == {"B"}  # B committed last, as a whole


def test_a_missing_extra_is_found_before_planning_and_the_others_are_written(
    tmp_path, monkeypatch
):
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "plotly" else real_find_spec(name, *a),
    )
    html, xlsx, js = tmp_path / "report.html", tmp_path / "plan.xlsx", tmp_path / "plan.json"
    res = run(
        "plan", str(SAMPLES / "inventory_ja.csv"), "-q",
        "-o", str(html), "-o", str(xlsx), "-o", str(js),
    )
    assert res.exit_code == 2
    line = (
        f"-o {html}: not written: the HTML report needs the 'plotly' package for its "
        "charts: pip install 'vsizer[report]'."
    )
    lines = res.output.strip().splitlines()
    assert lines[0] == f"warning: {line} The other outputs are still written."
    assert lines[-1] == f"error: {line}"
    assert not html.exists()
    assert json.loads(js.read_text(encoding="utf-8"))["summary"]["hosts"] >= 1
    assert xlsx.read_bytes()[:2] == b"PK"


def test_compare_refuses_an_output_that_is_the_inventory_a_scenario_names(tmp_path):
    """The inventory of compare may come from the scenarios' [scenario] table."""
    inv = tmp_path / "inv.xlsx"
    shutil.copyfile(SAMPLES / "inventory_ja.xlsx", inv)
    before = inv.read_bytes()
    paths = []
    for name in ("a", "b"):
        paths.append(tmp_path / f"{name}.toml")
        paths[-1].write_text(
            f'[scenario]\nname = "{name}"\ninventory = "inv.xlsx"\n', encoding="utf-8"
        )
    res = run("compare", *map(str, paths), "-q", "-o", str(inv))
    assert res.exit_code == 2
    assert res.output.strip() == (
        f"error: -o {inv}: is the inventory of a scenario of this run ({inv}); vsizer "
        "never writes over an input: give another file name."
    )
    assert inv.read_bytes() == before
