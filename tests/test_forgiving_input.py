"""Issue 27, forgiving input: memory in MB under a GiB header is one error line
with the way out (--mem-unit MB); unknown headers and flags get 'did you mean'."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from vsizer.cli.app import app
from vsizer.errors import InventoryError
from vsizer.inventory import read_inventory
from vsizer.inventory.headers import did_you_mean
from vsizer.inventory.mem_unit import looks_like_mb

HEAD = "name,sockets,cores_per_socket,mhz,memory_gib,mem_used_gib,cpu_peak_util\n"


def _csv(tmp_path: Path, mems: list[int], head: str = HEAD) -> Path:
    rows = "".join(f"s{i},1,4,2400,{m},{m // 2},0.5\n" for i, m in enumerate(mems))
    path = tmp_path / "inv.csv"
    path.write_text(head + rows, encoding="utf-8")
    return path


def test_rule() -> None:
    assert looks_like_mb([4096, 8192, 16384])
    assert not looks_like_mb([512, 768, 1024])  # large GiB hosts: median below 4,096
    assert not looks_like_mb([4096, 8192, 16000])  # 16,000 is no multiple of 256
    assert not looks_like_mb([256, 8192, 16384])  # a value under 512
    assert not looks_like_mb([])


def test_mb_under_a_gib_header_is_one_line_with_the_hint(tmp_path: Path) -> None:
    path = _csv(tmp_path, [4096, 8192, 16384, 8192])
    with pytest.raises(InventoryError) as info:
        read_inventory(path)
    assert str(info.value) == (
        "inv.csv, column 'memory_gib': memory looks like MB, not GiB: all 4 values are "
        "multiples of 256 and at least 512 (4,096, 8,192, 16,384 ...); divide by 1,024 "
        "or say --mem-unit MB (--mem-unit GiB if they are GiB).")
    inv = read_inventory(path, mem_unit="MB")
    assert inv.servers["mem_gib"].tolist() == [4.0, 8.0, 16.0, 8.0]
    assert inv.servers["mem_used_gib"].tolist() == [2.0, 4.0, 8.0, 4.0]
    assert read_inventory(path, mem_unit="GiB").servers["mem_gib"].tolist()[0] == 4096


def test_cli_mem_unit(tmp_path: Path) -> None:
    path = _csv(tmp_path, [4096, 8192, 16384, 8192])
    res = CliRunner().invoke(app, ["plan", str(path), "-q", "-o", str(tmp_path / "p.json")])
    assert res.exit_code == 2
    assert [ln for ln in res.output.splitlines() if ln.startswith("error:")] == [
        "error: inv.csv, column 'memory_gib': memory looks like MB, not GiB: all 4 "
        "values are multiples of 256 and at least 512 (4,096, 8,192, 16,384 ...); "
        "divide by 1,024 or say --mem-unit MB (--mem-unit GiB if they are GiB)."]
    res = CliRunner().invoke(app, ["plan", str(path), "-q", "--mem-unit", "MB",
                                   "-o", str(tmp_path / "p.json")])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["plan", str(path), "--mem-unit", "KB"])
    assert "error: --mem-unit: expected one of GiB, GB, MiB, MB, got 'KB'." in res.output


def test_headers_did_you_mean() -> None:
    assert did_you_mean(["name", "cpu sockts", "memroy", "備考"]) == (
        "; did you mean: 'cpu sockts' -> 'cpu sockets', 'memroy' -> 'memory'")
    assert did_you_mean(["name", "sockets"]) == ""


def test_flags_did_you_mean() -> None:
    res = CliRunner().invoke(app, ["plan", "x.csv", "--ceilng", "0.5"])
    assert res.exit_code == 2
    assert "No such option: --ceilng (Possible options: --ceiling," in res.output
