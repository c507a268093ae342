"""Load rank A/B/C derived from peak CPU utilization when the inventory gives none
(issue 28): A >= 60 %, B >= 30 %, C below; a given rank is kept; the plan counts
the derived servers in the warning ``derived_load_rank``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

import vsizer
from vsizer.quality import QualityReport
from vsizer.study.load_rank import derive_load_rank, load_rank_of


def test_thresholds_by_hand() -> None:
    assert [load_rank_of(u) for u in (1.0, 0.60, 0.5999, 0.30, 0.2999, 0.0)] == [
        "A", "A", "B", "B", "C", "C"]
    assert load_rank_of(float("nan")) is None


def test_derive_fills_only_empty_ranks_and_counts_them() -> None:
    servers = pd.DataFrame({
        "name": ["w1", "w2", "db", "idle", "given", "blank"],
        # peak 75 % -> A; peak missing, average 40 % -> B; peak 30 % -> B;
        # peak 5 % -> C; given 'C' kept although peak 90 %; no utilization -> none
        "cpu_peak_util": [0.75, np.nan, 0.30, 0.05, 0.90, np.nan],
        "cpu_avg_util": [0.20, 0.40, 0.10, 0.01, 0.50, np.nan],
        "load_rank": pd.array([None, "", None, None, "C", None], dtype="string"),
    })
    q = QualityReport()
    out = derive_load_rank(servers, q)
    assert out["load_rank"].tolist()[:5] == ["A", "B", "B", "C", "C"]
    assert out["load_rank"].isna().tolist()[5]
    (w,) = q.warnings
    assert w.code == "derived_load_rank"
    assert w.message.startswith("load_rank derived for 4 servers: A/B/C from peak CPU")
    assert w.servers == ("w1", "w2", "db", "idle")
    assert q.entries["w1"]["load_rank"][0] == "derived"
    assert "load_rank" not in q.entries.get("given", {})


def test_nothing_to_derive_returns_the_frame_and_no_warning() -> None:
    servers = pd.DataFrame({"name": ["a"], "cpu_peak_util": [0.9],
                            "load_rank": pd.array(["B"], dtype="string")})
    q = QualityReport()
    assert derive_load_rank(servers, q) is servers
    assert q.warnings == []


def test_plan_json_carries_the_derived_rank_and_the_warning(tmp_path: Path) -> None:
    path = tmp_path / "inv.csv"
    path.write_text(
        "name,sockets,cores_per_socket,cpu_mhz,cpu_avg_pct,cpu_peak_pct,mem_gib,"
        "power_w,load_rank\n"
        "a,2,4,2400,10,70,16,300,\n"
        "b,2,4,2400,10,20,16,300,\n"
        "c,2,4,2400,10,20,16,300,A\n",
        encoding="utf-8",
    )
    doc = vsizer.plan(path).to_dict()
    ranks = {s["name"]: s["load_rank"] for s in doc["servers"]}
    assert ranks == {"a": "A", "b": "C", "c": "A"}
    (w,) = [w for w in doc["warnings"] if w["code"] == "derived_load_rank"]
    assert w["servers"] == ["a", "b"]
    assert "for 2 servers" in w["message"]


def test_no_rank_from_an_assumed_utilization() -> None:
    servers = pd.DataFrame({"name": ["a", "b"], "cpu_peak_util": [0.9, 0.9],
                            "cpu_avg_util": [0.5, 0.5]})
    q = QualityReport()
    q.record("a", "cpu_peak_util", "assumed", "--assume-util")
    q.record("a", "cpu_avg_util", "assumed", "--assume-util")
    q.record("b", "cpu_peak_util", "assumed", "peak factor")  # avg given: 50 % -> B
    out = derive_load_rank(servers, q)
    assert out["load_rank"].isna().tolist()[0]
    assert out["load_rank"].tolist()[1] == "B"
    assert q.warnings[0].servers == ("b",)
