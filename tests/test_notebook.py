"""Issue 27: the plan in a notebook -- DataFrames, a short repr, an HTML view,
and write() for every format."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import vsizer
from vsizer.errors import ConfigError

SAMPLE = Path(vsizer.__file__).parent / "data" / "samples" / "inventory_ja.xlsx"


@pytest.fixture(scope="module")
def plan() -> vsizer.ConsolidationPlan:
    return vsizer.plan(SAMPLE)


def test_frames_hold_what_the_document_holds(plan: vsizer.ConsolidationPlan) -> None:
    doc = plan.to_dict()
    hosts, placement = plan.hosts, plan.placement
    assert isinstance(hosts, pd.DataFrame) and isinstance(placement, pd.DataFrame)
    assert len(hosts) == doc["summary"]["hosts"]
    assert list(hosts.columns[:3]) == ["pool", "host", "vms"]
    assert hosts["vms"].sum() == len(placement) == doc["summary"]["servers"]
    first = doc["pools"][0]["hosts"][0]
    assert placement[placement["host"] == first["id"]]["vm"].tolist() == first["vms"]
    pools = plan.pools_frame
    assert pools["pool"].tolist() == [p["name"] for p in doc["pools"]]
    assert pools["hosts"].sum() == doc["summary"]["hosts"]
    warnings = plan.warnings_frame
    assert warnings["code"].tolist() == [w["code"] for w in doc["warnings"]]


def test_repr_is_one_short_line(plan: vsizer.ConsolidationPlan) -> None:
    s = plan.to_dict()["summary"]
    text = repr(plan)
    assert text == (
        f"<ConsolidationPlan {s['servers']} servers -> {s['hosts']} hosts of "
        f"'{plan.host.model}', {s['pools']} pools, survives failover: "
        f"{s['survives_failover']}, {s['warnings']} warnings>")
    html = plan._repr_html_()
    assert len(html) < 10_000 and 'id="management"' in html
    assert "Decision:" in html


def test_write_every_format(plan: vsizer.ConsolidationPlan, tmp_path: Path) -> None:
    js = plan.write(tmp_path / "p.json")
    assert json.loads(js.read_text(encoding="utf-8")) == json.loads(plan.to_json())
    assert js.read_text(encoding="utf-8") == plan.to_json()
    from openpyxl import load_workbook

    assert "サマリー" in load_workbook(plan.write(tmp_path / "p.xlsx", lang="ja")).sheetnames
    assert "<html" in plan.write(tmp_path / "p.html").read_text(encoding="utf-8")
    with pytest.raises(ConfigError, match=r"p.pdf: unsupported output format '.pdf'"):
        plan.write(tmp_path / "p.pdf")
