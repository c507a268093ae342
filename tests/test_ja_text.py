"""Issue 27: --lang ja translates the count reasons, target descriptions and
right-sizing reasons; a Japanese inventory gets Japanese reports by default."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from vsizer.cli.app import app
from vsizer.reporting._ja_text import count_reason_ja, rightsize_reason, target_text
from vsizer.reporting.labels import label

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "vsizer" / "data" / "samples"


def ja(key: str, **kw: object) -> str:
    return label(key, "ja", **kw)


def en(key: str, **kw: object) -> str:
    return label(key, "en", **kw)


def test_count_reason_is_rebuilt_in_japanese() -> None:
    pool = {"host_count": 3, "failures": 1, "min_hosts": 1, "count_reason": {
        "binding": "failover", "by_constraint": {"demand": 2, "failover": 3},
        "by_dimension": {"cpu": 1, "mem": 2}, "relaxed": {"min_hosts": 3, "failover": 3,
                                                         "anti_affinity": None},
        "text": "3 hosts because failures = 1 (N+1); ..."}}
    assert count_reason_ja(pool) == (
        "3 台: 障害想定 1 台 (N+1) のため、需要だけなら 2 台、最小ホスト数 1 なら 3 台、"
        "障害想定 0 台なら 3 台、アンチアフィニティがなければ 配置不可")
    pool["count_reason"]["binding"] = "demand"
    assert count_reason_ja(pool).startswith("3 台: 需要 (メモリ) のため")


def test_targets_and_rightsizing_reasons() -> None:
    tg = {"name": "host_ratio", "target": 0.5, "description": "hosts / servers at most 0.5"}
    assert target_text(tg, ja) == "ホスト数 / サーバー数 が 0.5 以下"
    assert target_text(tg, en) == "hosts / servers at most 0.5"  # the plan's own text
    reason = ("CPU peak 52% of 12 vCPUs = 6.24 cores; x 1.2 -> 8 vCPUs; "
              "memory in use 14 GiB of 32; x 1.2 -> 17 GiB")
    assert rightsize_reason(reason, ja) == (
        "CPU ピーク 52% (12 vCPU 中) = 6.24 コア、×1.2 → 8 vCPU; "
        "使用メモリ 14 GiB (32 GiB 中)、×1.2 → 17 GiB")
    assert rightsize_reason(reason, en) == reason


def test_japanese_headers_choose_japanese_and_say_so(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    args = ["plan", str(SAMPLES / "inventory_ja.csv"), "--config",
            str(SAMPLES / "scenario.toml"), "-o", str(out)]
    res = CliRunner().invoke(app, args, env={"COLUMNS": "100"})
    assert res.exit_code == 0, res.output
    assert ("note: the inventory's headers are Japanese: reports in Japanese "
            "(--lang en for English).") in res.stderr
    assert res.stdout.splitlines()[1].startswith("判断: ")
    res = CliRunner().invoke(app, [*args, "--lang", "en"], env={"COLUMNS": "100"})
    assert "note:" not in res.stderr
    assert res.stdout.splitlines()[1].startswith("Decision: ")
    assert json.loads(out.read_text(encoding="utf-8"))["summary"]["servers"] == 37
