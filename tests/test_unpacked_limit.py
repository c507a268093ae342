"""The unpacked-size limit: a compressed input is counted as it decompresses.

A gzip, bzip2 or xz stream declares no size, so a few kilobytes can unpack to
gigabytes (a "gzip bomb"). Every compressed text input goes through
:func:`vsizer._textio.open_binary`, which stops past ``--max-unpacked-mib``
with one line naming the file, the limit and the flag.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vsizer._textio import open_binary, read_bytes
from vsizer.cli import app
from vsizer.errors import InventoryError, SeriesError
from vsizer.limits import DEFAULT_LIMITS, Limits, using
from vsizer.series.traces import read_alibaba_machine_usage, read_bitbrains

MIB = 1 << 20
runner = CliRunner()


def line(name: str, mib: int) -> str:
    return (
        f"{name}: unpacks to more than {mib:,} MiB, the limit for one compressed "
        "file; raise it with --max-unpacked-mib."
    )


def packed(path: Path, data: bytes) -> Path:
    """``data`` compressed as the file name's suffix says."""
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(data, mtime=0))
    elif path.suffix == ".bz2":
        path.write_bytes(bz2.compress(data))
    elif path.suffix == ".xz":
        path.write_bytes(lzma.compress(data))
    else:
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(path.stem, data)
    return path


def test_default_is_4096_mib():
    assert DEFAULT_LIMITS.max_unpacked_mib == 4_096


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".zip"])
def test_a_bomb_stops_at_the_limit(tmp_path, suffix):
    p = packed(tmp_path / f"b.csv{suffix}", b"\0" * (2 * MIB + 1))
    assert p.stat().st_size < 20_000  # a bomb: tiny packed
    with using(Limits(max_unpacked_mib=2)), pytest.raises(SeriesError) as err:
        read_bytes(p)
    assert str(err.value) == line(p.name, 2)


def test_exactly_the_limit_passes_and_reads_whole(tmp_path):
    data = bytes(range(256)) * (2 * MIB // 256)
    p = packed(tmp_path / "ok.csv.gz", data)
    with using(Limits(max_unpacked_mib=2)):
        assert read_bytes(p) == data
        with open_binary(p) as fh:  # the streamed reads agree with the whole read
            parts = [fh.read(1000), fh.readline(), fh.read()]
    assert b"".join(parts) == data


def test_a_plain_file_is_not_counted(tmp_path):
    p = tmp_path / "plain.csv"
    p.write_bytes(b"x" * (2 * MIB + 5))
    with using(Limits(max_unpacked_mib=1)):
        assert len(read_bytes(p)) == 2 * MIB + 5


def test_the_error_class_is_the_callers(tmp_path):
    p = packed(tmp_path / "inv.csv.gz", b"a" * (MIB + 1))
    with using(Limits(max_unpacked_mib=1)), pytest.raises(InventoryError) as err:
        read_bytes(p, error=InventoryError)
    assert str(err.value) == line("inv.csv.gz", 1)


def test_plan_of_a_packed_server_list_names_the_flag(tmp_path):
    p = packed(tmp_path / "servers.csv.gz", b"a" * (3 * MIB))
    r = runner.invoke(app, ["plan", str(p), "-q", "--max-unpacked-mib", "2"])
    assert r.exit_code == 2
    assert r.output.strip().splitlines()[-1] == "error: " + line("servers.csv.gz", 2)


def test_import_of_a_packed_series_names_the_flag(tmp_path):
    p = packed(tmp_path / "sa01.gz", b"\n" * (3 * MIB))
    r = runner.invoke(
        app,
        ["import", str(p), "--format", "sar", "--store", str(tmp_path / "st"),
         "--max-unpacked-mib", "2"],
    )
    assert r.exit_code == 2
    assert "error: " + line("sa01.gz", 2) in r.output


BITBRAINS_HEAD = (
    "Timestamp [ms];\tCPU cores;\tCPU capacity provisioned [MHZ];\tCPU usage [MHZ];\t"
    "CPU usage [%];\tMemory capacity provisioned [KB];\tMemory usage [KB];\t"
    "Disk read throughput [KB/s];\tDisk write throughput [KB/s];\t"
    "Network received throughput [KB/s];\tNetwork transmitted throughput [KB/s]\n"
)


def test_streamed_trace_reader_reports_the_file_once(tmp_path):
    """Bitbrains reads through pandas, a stream: the line names the file once."""
    rows = "".join(
        f"{1376314846 + 300 * i};\t4;\t11703.99;\t10.4;\t0.08;\t67108864;\t6129274;\t"
        "0;\t2.13;\t0.33;\t0.06\n"
        for i in range(40_000)
    )
    data = (BITBRAINS_HEAD + rows).encode()
    folder = tmp_path / "bb"
    folder.mkdir()
    packed(folder / "1.csv.gz", data)
    packed(folder / "2.csv.gz", data)
    with using(Limits(max_unpacked_mib=1)), pytest.raises(SeriesError) as err:
        read_bitbrains(folder)
    lines = str(err.value).splitlines()
    assert line("1.csv.gz", 1) in lines
    assert line("2.csv.gz", 1) in lines  # every file's problem, together
    with using(Limits(max_unpacked_mib=8)):
        assert sorted(read_bitbrains(folder).data["server"].unique()) == ["1", "2"]


def test_block_reader_reports_the_file_once(tmp_path):
    """Alibaba reads blocks of lines (``_rows``): the same one line."""
    rows = "".join(f"m_1,{10 * i},50,60,,,40,30,5\n" for i in range(80_000))
    p = packed(tmp_path / "machine_usage.csv.gz", rows.encode())
    with using(Limits(max_unpacked_mib=1)), pytest.raises(SeriesError) as err:
        read_alibaba_machine_usage(p)
    assert line("machine_usage.csv.gz", 1) in str(err.value).splitlines()
