"""A full disk: no truncated output, no printed-but-lost sample, one error line.

Each test mounts its own small tmpfs (root only; skipped elsewhere or when the
mount is refused, e.g. in an unprivileged container) and fills it, leaving a
few KiB free, so a write fails part-way, as on a real full disk.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

import vsizer

pytestmark = pytest.mark.slow

INVENTORY = str(Path(vsizer.__file__).parent / "data" / "samples" / "inventory_ja.csv")
REPO = Path(__file__).resolve().parents[1]
PAGE = 4096


@pytest.fixture
def small_fs(tmp_path):
    """A 16 MiB tmpfs at tmp_path/full, unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mnt = tmp_path / "full"
    mnt.mkdir()
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m,mode=755", "tmpfs", str(mnt)],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {r.stderr.strip()}")
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)], check=False)


def fill(fs: Path, leave: int) -> Path:
    """Fill ``fs`` with one file, then free ``leave`` bytes (whole pages)."""
    filler = fs / "filler"
    chunk = b"\0" * (64 * PAGE)
    with open(filler, "wb", buffering=0) as fh:
        while True:
            try:
                fh.write(chunk)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
                break
        size = os.fstat(fh.fileno()).st_size
        os.ftruncate(fh.fileno(), max(0, size - size % PAGE - leave))
    return filler


def vsizer_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "vsizer", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def _one_error_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ") and "Traceback" not in stderr
    return lines[0]


def test_plan_on_a_full_disk_leaves_no_truncated_output(small_fs):
    outs = [small_fs / "plan.json", small_fs / "plan.xlsx", small_fs / "report.html"]
    args = [a for p in outs for a in ("-o", str(p))]
    # a previous, complete version of plan.json
    assert vsizer_cli("plan", INVENTORY, "-q", "--ceiling", "0.5", "-o", str(outs[0])).returncode == 0
    previous = outs[0].read_bytes()
    fill(small_fs, 4 * PAGE)
    r = vsizer_cli("plan", INVENTORY, "-q", *args)
    assert r.returncode == 2
    # one line per output: a failed writer does not stop the others (one output set)
    assert r.stderr.strip().splitlines() == [
        f"error: {p}: cannot write (No space left on device)." for p in outs
    ]
    assert outs[0].read_bytes() == previous
    assert not outs[1].exists() and not outs[2].exists()
    assert sorted(p.name for p in small_fs.iterdir()) == ["filler", "plan.json"]


@pytest.mark.parametrize("name", ["plan.json", "plan.xlsx", "report.html"])
def test_each_format_keeps_its_previous_version(small_fs, name):
    out = small_fs / name
    assert vsizer_cli("plan", INVENTORY, "-q", "--ceiling", "0.5", "-o", str(out)).returncode == 0
    previous = out.read_bytes()
    fill(small_fs, 4 * PAGE)
    r = vsizer_cli("plan", INVENTORY, "-q", "-o", str(out))
    assert r.returncode == 2
    assert _one_error_line(r.stderr) == f"error: {out}: cannot write (No space left on device)."
    assert out.read_bytes() == previous
    assert sorted(p.name for p in small_fs.iterdir()) == ["filler", name]


def test_collect_on_a_full_disk_loses_no_printed_sample_and_resumes(small_fs):
    from vsizer.series.store import SeriesStore

    store = small_fs / "st"
    SeriesStore.create(store)  # marker and folders, while there is room
    filler = fill(small_fs, 1 * PAGE)  # one page: the journal's first page
    r = vsizer_cli(
        "collect", "--out", str(store), "--interval", "10ms", "--count", "100000",
        "--server", "full01", timeout=300,
    )
    assert r.returncode == 2, r.stderr
    printed = [int(line.split()[0]) for line in r.stdout.splitlines()]
    assert printed == list(range(1, len(printed) + 1)) and len(printed) > 3
    error = [line for line in r.stderr.splitlines() if line.startswith("error: ")]
    assert len(error) == 1 and "Traceback" not in r.stderr
    n = len(printed)
    assert error[0].endswith(
        f"cannot write sample {n + 1} (short write: " + error[0].split("(short write: ")[1]
    )
    assert "disk full?)); the journal keeps its" in error[0]
    assert error[0].endswith(
        f"complete sample(s); stopped after {n} stored sample(s): free space and "
        "rerun to resume"
    )
    # every printed sample is stored: the journal could not be sealed and is kept
    st = SeriesStore.open(store)
    assert len(st.journal_paths()) == 1
    journal = st.journal_paths()[0].read_bytes()
    assert journal.endswith(b"\n") and journal.count(b"\n") == n + 1  # header + n
    # (cpu_util is left out of a sample when no CPU time was counted in 10 ms;
    # memory is in every sample, so count sample times)
    assert st.read().data.timestamp.nunique() == n
    # free the space: a rerun seals the journal and goes on
    filler.unlink()
    r2 = vsizer_cli("collect", "--out", str(store), "--interval", "10ms", "--count", "2",
                    "--server", "full01")
    assert r2.returncode == 0, r2.stderr
    assert "resumed: sealed 1 journal(s) left by an earlier run" in r2.stderr
    st = SeriesStore.open(store)
    assert st.journal_paths() == []
    after = st.read(metrics=["mem_used_gib"]).data
    assert len(after) == n + 2 and after.timestamp.is_unique


def test_import_on_a_full_disk_is_one_line(small_fs, tmp_path):
    src = tmp_path / "w.csv"
    src.write_text(
        "timestamp,web01\n"
        + "".join(f"2024-05-01T00:{m:02d}:00Z,{m}\n" for m in range(60)),
        encoding="utf-8",
    )
    args = ["--format", "wide", "--metric", "cpu_util", "--unit", "percent"]
    filler = fill(small_fs, 0)
    store = small_fs / "st"
    r = vsizer_cli("import", str(src), *args, "--store", str(store))
    assert r.returncode == 2
    assert _one_error_line(r.stderr) == (
        f"error: --store {store}: cannot create the store (No space left on device)."
    )
    filler.unlink()
    from vsizer.series.store import SeriesStore

    SeriesStore.create(store)
    fill(small_fs, 0)
    r = vsizer_cli("import", str(src), *args, "--store", str(store))
    assert r.returncode == 2
    assert _one_error_line(r.stderr) == (
        f"error: {src}: cannot store it in {store} (No space left on device)."
    )
    assert SeriesStore.open(store).part_paths() == []
    assert [p.name for p in (store / "parts").iterdir()] == []  # no temporary left
