"""The management story (issue 27): decision, before -> after with the change,
savings, risks, top warnings -- hand-checked on a small plan document."""

from __future__ import annotations

import copy
from typing import Any

from vsizer.reporting._story import short_message, story, top_warnings
from vsizer.reporting.labels import label

PLAN: dict[str, Any] = {
    "inputs": {"host_model": "H"},
    "summary": {"servers": 40, "hosts": 5, "pools": 2, "hosts_before": None,
                "survives_failover": True, "worst_survivor_util": 0.5,
                "confidence": 0.9, "confidence_threshold": 0.7, "low_confidence": False,
                "excluded": 0},
    "power": {"before_w": 8000.0, "after_w": 1000.0, "annual_cost_before": 1000.0,
              "annual_cost_after": 125.0, "annual_saving": 875.0,
              "saving_over_years": 4375.0, "years": 5, "currency": "JPY",
              "price_kwh": 31.0, "pue": 1.5},
    "space": {"rack_u_before": 40.0, "rack_u_after": 10.0},
    "targets": [{"name": "host_ratio", "met": True}],
    "warnings": [
        {"code": "a", "message": "names one. More.", "servers": ["x"]},
        {"code": "b", "message": "plan-wide", "servers": []},
        {"code": "c", "message": "names two", "servers": ["x", "y"]},
        {"code": "d", "message": "names one too", "servers": ["z"]},
    ],
}


def en(key: str, **kw: Any) -> str:
    return label(key, "en", **kw)


def test_go_story() -> None:
    st = story(PLAN, en)
    assert st.go and st.decision == "Proceed: 5 × H replace 40 servers (2 pools)."
    # (5 - 40) / 40 = -87.5 % -> -88 %; (10 - 40) / 40 = -75 %; (1000 - 8000) / 8000 = -87.5 %
    assert st.before_after == [
        ("Machines (servers → hosts)", "40", "5", "-88 %"),
        ("Rack space [U]", "40", "10", "-75 %"),
        ("Power [W]", "8,000", "1,000", "-88 %"),
        ("Annual electricity cost [JPY]", "1,000", "125", "-88 %"),
    ]
    assert st.savings == ("4,375 JPY over 5 years (875 JPY a year), electricity only, "
                          "at 31 JPY/kWh and PUE 1.5")
    assert st.warnings_head == "4 warnings, top 3:"
    assert st.top == [("b", "plan-wide"), ("c", "names two"), ("a", "names one.")]


def test_review_story_names_why() -> None:
    bad = copy.deepcopy(PLAN)
    bad["summary"].update(survives_failover=False, low_confidence=True, confidence=0.5)
    bad["targets"] = [{"name": "host_ratio", "met": False}]
    st = story(bad, en)
    assert not st.go
    assert st.decision == (
        "Review before deciding: 5 × H for 40 servers (2 pools), but a host failure is "
        "not survived; 1 target(s) not met; the data confidence is low (50.0 %).")
    assert (False, "Does NOT survive the planned host failures.") in st.risks


def test_top_warnings_and_short_message() -> None:
    assert [w["code"] for w in top_warnings(PLAN, 4)] == ["b", "c", "a", "d"]
    assert short_message("x" * 200) == "x" * 109 + "…"
