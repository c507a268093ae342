"""The "lower bound set by" column of the HTML and Excel pool tables
(:func:`vsizer.reporting._explain.bound_kinds`): every part of
``lower_bound.detail`` that reaches the bound, named as the reports name it."""

from __future__ import annotations

from typing import Any

import pytest

from vsizer.reporting._explain import bound_kinds
from vsizer.reporting.labels import LABELS


def _t(lang: str):
    def t(key: str, **kw: Any) -> str:
        return LABELS[key][lang].format(**kw)
    return t


def _pool(hosts: int, **detail: int) -> dict[str, Any]:
    return {"lower_bound": {"hosts": hosts, "detail": detail}}


@pytest.mark.parametrize(
    ("pool", "lang", "expected"),
    [
        # the demo's production pool: 3 hosts from the rules, CPU needs 1
        (_pool(3, cpu=1, mem=2, vcpu=2, failover=3, anti_affinity=3, min_hosts=3,
               pinning=0), "en", "N+k failover, anti-affinity, minimum hosts"),
        (_pool(3, cpu=1, mem=2, vcpu=2, failover=3, anti_affinity=3, min_hosts=3,
               pinning=0), "ja", "N+k 冗長、アンチアフィニティ、最小ホスト数"),
        # dimensions first, in the plan's order
        (_pool(6, cpu=6, mem=4, vcpu=6, failover=5, min_hosts=3), "en", "cpu, vcpu"),
        # the configuration LP above the per-step bound
        (_pool(11, cpu=9, l2=9, configuration_lp=11, failover=0), "en",
         "configuration LP (Gilmore & Gomory 1961)"),
        (_pool(5, cpu=4, l2=5), "en", "L2 bound (Martello & Toth 1990)"),
        # nothing to name: an empty pool, a schema "1" plan, no detail
        (_pool(0, cpu=0, min_hosts=0), "en", ""),
        ({"lower_bound": 4}, "en", ""),
        ({"lower_bound": {"hosts": 4}}, "en", ""),
        ({}, "en", ""),
    ],
)
def test_bound_kinds_names_every_part_that_reaches_the_bound(
    pool: dict[str, Any], lang: str, expected: str
) -> None:
    assert bound_kinds(pool, _t(lang), str) == expected


def test_the_html_pool_table_shows_the_column() -> None:
    import json
    from pathlib import Path

    from vsizer.reporting.html import plan_html

    plan = json.loads(
        (Path(__file__).parent / "data" / "golden" / "demo.json").read_text("utf-8"))
    text = plan_html(plan, lang="en")
    assert "Lower bound set by" in text
    assert "N+k failover, anti-affinity, minimum hosts" in text
