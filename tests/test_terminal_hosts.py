"""The terminal summary lists at most MAX_HOSTS_PER_POOL hosts of each pool and
says how many it leaves out (a fleet plan had 12,828 host rows in the terminal)."""

from __future__ import annotations

import io

from rich.console import Console

from benchmarks.bench_fleet import HOST, fleet
from vsizer.reporting.terminal import MAX_HOSTS_PER_POOL, print_summary
from vsizer.study import ConsolidationStudy
from vsizer.study.config import Rules


def _summary(lang: str) -> tuple[dict, str]:
    inv = fleet(4000)
    inv.servers["pool"] = inv.servers["pool"].where(inv.servers["pool"] == "pool-a", "pool-b")
    doc = ConsolidationStudy(inv, HOST, Rules()).run().to_dict()
    out = io.StringIO()
    print_summary(doc, Console(file=out, width=200), lang=lang)
    return doc, out.getvalue()


def test_long_host_lists_are_cut_with_a_count() -> None:
    doc, text = _summary("en")
    counts = {p["name"]: len(p["hosts"]) for p in doc["pools"]}
    assert min(counts.values()) > MAX_HOSTS_PER_POOL == 40
    rows = [line for line in text.splitlines() if line.startswith("│ pool-")]
    host_rows = [r for r in rows if r.split("│")[1].strip().rsplit("-", 1)[-1].isdigit()]
    assert len(host_rows) == 2 * MAX_HOSTS_PER_POOL
    left = sum(counts.values()) - 2 * MAX_HOSTS_PER_POOL
    assert (
        f"{left:,} more hosts not shown here: every host is in the JSON, workbook and "
        "HTML reports (-o plan.json, -o plan.xlsx, -o plan.html)."
    ) in " ".join(text.split())


def test_the_count_is_said_in_japanese_too() -> None:
    doc, text = _summary("ja")
    left = sum(len(p["hosts"]) for p in doc["pools"]) - 2 * MAX_HOSTS_PER_POOL
    assert f"ほか {left:,} 台のホストはここに表示していません。" in "".join(text.split("\n"))
