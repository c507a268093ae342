"""Atomic outputs and output path errors: one line, exit 2, before any work."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

import vsizer
from vsizer._atomic import atomic_write, check_output_dir, check_output_path
from vsizer.cli import app
from vsizer.errors import OutputError

SAMPLES = Path(vsizer.__file__).parent / "data" / "samples"
SCENARIOS = Path(vsizer.__file__).parent / "data" / "scenarios"
DATA = Path(__file__).parent / "data"
INVENTORY = str(SAMPLES / "inventory_ja.csv")
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "250"})


# -- atomic_write -------------------------------------------------------------------


def test_atomic_write_replaces_the_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "plan.json"
    target.write_text("old", encoding="utf-8")
    os.chmod(target, 0o640)
    with atomic_write(target, "w", encoding="utf-8") as fh:
        fh.write("new")
        assert target.read_text(encoding="utf-8") == "old"  # not yet replaced
    assert target.read_text(encoding="utf-8") == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # keeps the old mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.json"]


def test_atomic_write_new_file_gets_the_umask_mode_and_its_parents(tmp_path):
    target = tmp_path / "a" / "b" / "x.bin"
    old = os.umask(0o027)
    try:
        with atomic_write(target) as fh:
            fh.write(b"\x00\x01")
    finally:
        os.umask(old)
    assert target.read_bytes() == b"\x00\x01"
    import vsizer._atomic as atomic

    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~atomic._UMASK


def test_atomic_write_error_keeps_the_previous_version(tmp_path):
    target = tmp_path / "plan.json"
    target.write_text("complete", encoding="utf-8")
    with pytest.raises(RuntimeError, match="boom"), atomic_write(target, "w") as fh:
        fh.write("half")
        raise RuntimeError("boom")
    assert target.read_text(encoding="utf-8") == "complete"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.json"]


def test_atomic_write_os_error_becomes_one_output_error(tmp_path):
    (tmp_path / "d").mkdir()
    expected = r"^.*/d: cannot write \(Is a directory\)\.$"
    with pytest.raises(OutputError, match=expected), atomic_write(tmp_path / "d") as fh:
        fh.write(b"x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]
    with (
        pytest.raises(ValueError, match="mode must be 'w' or 'wb', got 'a'"),
        atomic_write(tmp_path / "x", "a"),
    ):
        pass


# -- path checks --------------------------------------------------------------------


@pytest.fixture
def readonly_dir(tmp_path):
    """A directory this process cannot write: a read-only tmpfs as root, else 0555."""
    d = tmp_path / "ro"
    d.mkdir()
    mounted = False
    if os.geteuid() == 0:
        r = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(d)],
            capture_output=True,
        )
        mounted = r.returncode == 0
    if not mounted:
        d.chmod(0o555)
    if os.access(d, os.W_OK):
        pytest.skip("cannot make a read-only directory here")
    yield d
    if mounted:
        subprocess.run(["umount", str(d)], check=False)
    else:
        d.chmod(0o755)


def test_check_output_path_messages(tmp_path, readonly_dir):
    (tmp_path / "d.json").mkdir()
    (tmp_path / "afile").write_text("x")
    cases = [
        (tmp_path / "d.json", f"-o {tmp_path}/d.json: is a directory; give a file name."),
        (
            tmp_path / "afile" / "plan.json",
            f"-o {tmp_path}/afile/plan.json: {tmp_path}/afile is a file, not a directory.",
        ),
        (
            readonly_dir / "plan.json",
            f"-o {readonly_dir}/plan.json: cannot write in {readonly_dir} (permission "
            "denied or read-only file system).",
        ),
    ]
    for path, message in cases:
        with pytest.raises(OutputError) as info:
            check_output_path(path)
        assert str(info.value) == message
    check_output_path(tmp_path / "new" / "deeper" / "plan.json")  # created later
    assert not (tmp_path / "new").exists()  # the check creates nothing


def test_check_output_dir_messages(tmp_path, readonly_dir):
    (tmp_path / "afile").write_text("x")
    with pytest.raises(OutputError) as info:
        check_output_dir(tmp_path / "afile", "--store")
    assert str(info.value) == f"--store {tmp_path}/afile: is a file, expected a directory."
    with pytest.raises(OutputError) as info:
        check_output_dir(tmp_path / "afile" / "st", "--out")
    assert str(info.value) == (
        f"--out {tmp_path}/afile/st: {tmp_path}/afile is a file, not a directory."
    )
    with pytest.raises(OutputError) as info:
        check_output_dir(readonly_dir / "st", "--out")
    assert str(info.value) == (
        f"--out {readonly_dir}/st: cannot write in {readonly_dir} (permission denied "
        "or read-only file system)."
    )
    check_output_dir(tmp_path / "fresh" / "st", "--out")


# -- every command: one line, exit 2, before reading the inputs ----------------------


@pytest.fixture
def bad(tmp_path, readonly_dir):
    for suffix in (".json", ".csv", ".html"):
        (tmp_path / "d").with_suffix(suffix).mkdir()
    (tmp_path / "afile").write_text("x")
    return {
        "dir": (tmp_path / "d.json", "is a directory; give a file name."),
        "under_file": (
            tmp_path / "afile" / "out.json",
            f"{tmp_path}/afile is a file, not a directory.",
        ),
        "readonly": (
            readonly_dir / "out.json",
            f"cannot write in {readonly_dir} (permission denied or read-only file "
            "system).",
        ),
    }


@pytest.mark.parametrize("case", ["dir", "under_file", "readonly"])
@pytest.mark.parametrize(
    "command",
    [
        # the inputs do not exist: the output is checked first
        ["plan", "missing.csv"],
        ["compare", "missing-a.toml", "missing-b.toml"],
        ["fit", "missing.csv", "--model", "cpu"],
        ["catalog", "import-spec", "missing.csv"],
        ["catalog", "import-specpower", "missing.csv"],
        ["bench", "export", "--for-fit", "--store", "missing.jsonl"],
        ["bench", "report", "--store", "missing.jsonl"],
    ],
)
def test_output_path_errors_are_one_line_exit_2(bad, case, command):
    path, reason = bad[case]
    if command[0] == "catalog":
        path = path.with_suffix(".csv")
        reason = reason.replace("out.json", "out.csv")
    if command[:2] == ["bench", "report"]:
        path = path.with_suffix(".html")
    r = run(*command, "-o", str(path))
    assert r.exit_code == 2, r.output
    assert r.output == f"error: -o {path}: {reason}\n"


def test_bench_run_report_path_error(bad):
    path, reason = bad["under_file"]
    path = path.with_suffix(".html")
    r = run("bench", "run", "missing-suite", "--report", str(path))
    assert r.exit_code == 2
    assert r.output == f"error: --report {path}: {reason}\n"


def test_predict_output_path_error(bad, tmp_path):
    path, reason = bad["under_file"]
    r = run("predict", "missing-plan.json", "-o", str(path))
    assert r.exit_code == 2
    assert r.output == f"error: -o {path}: {reason}\n"


@pytest.mark.parametrize("case", ["under_file", "readonly"])
def test_import_store_and_collect_out_path_errors(bad, case, tmp_path):
    store = bad[case][0].with_name("st")
    reason = bad[case][1]
    src = tmp_path / "w.csv"
    src.write_text("timestamp,web01\n2024-05-01T00:00:00Z,10\n")
    r = run("import", str(src), "--format", "wide", "--metric", "cpu_util", "--store", str(store))
    assert (r.exit_code, r.output) == (2, f"error: --store {store}: {reason}\n")
    r = run("collect", "--out", str(store), "--count", "1")
    assert (r.exit_code, r.output) == (2, f"error: --out {store}: {reason}\n")


def test_store_given_as_a_file_is_one_line(tmp_path):
    (tmp_path / "afile").write_text("x")
    r = run("collect", "--out", str(tmp_path / "afile"), "--count", "1")
    assert r.exit_code == 2
    assert r.output == f"error: --out {tmp_path}/afile: is a file, expected a directory.\n"


def test_plan_creates_a_missing_output_directory(tmp_path):
    out = tmp_path / "new" / "deeper" / "plan.json"
    r = run("plan", INVENTORY, "-q", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert out.read_text(encoding="utf-8").startswith("{")
    assert sorted(p.name for p in out.parent.iterdir()) == ["plan.json"]
