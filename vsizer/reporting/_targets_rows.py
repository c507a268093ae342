"""The figures of a target-platform comparison, one row each, shared by the
Excel sheet and the HTML report (:mod:`vsizer.study.target_compare`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from vsizer.errors import InputError

__all__ = ["ROWS", "check_targets_doc", "no_price"]

Entry = Mapping[str, Any]

#: Shown where a cost needs a price the user did not give.
NO_PRICE = "price not given"


def no_price(value: Any) -> Any:
    return NO_PRICE if value is None else value


def _st(key: str) -> Callable[[Entry], Any]:
    return lambda e: (e.get("storage") or {}).get(key)


def _pred(e: Entry) -> Any:
    p = (e.get("performance") or {}).get("predicted")
    return None if p is None else p.get("mean")


def _bases(e: Entry) -> str:
    by = (e.get("performance") or {}).get("by_resource") or {}
    return ", ".join(f"{r} {v.get('basis')}" for r, v in by.items())


#: (label, getter, kind) per row; kinds: int, dec, pct, money, text, yes.
ROWS: tuple[tuple[str, Callable[[Entry], Any], str], ...] = (
    ("Title", lambda e: e["title"], "text"),
    ("Host model", lambda e: e["host_model"], "text"),
    ("Cores per host", lambda e: e["host_cores"], "int"),
    ("Hosts (workload)", lambda e: e["hosts"], "int"),
    ("Platform hosts (dedicated)", lambda e: e["dedicated_hosts"], "int"),
    ("Hosts in total", lambda e: e["hosts_total"], "int"),
    ("Clusters (max nodes each)", lambda e: e["clusters"], "int"),
    ("Cores licensed", lambda e: e["cores_licensed"], "int"),
    ("Socket licences", lambda e: e["socket_licences"], "int"),
    ("Licence cost per year", lambda e: no_price(e["licence_cost_per_year"]), "money"),
    ("Storage raw [GiB]", _st("raw_gib"), "int"),
    ("Storage usable [GiB]", _st("usable_gib"), "int"),
    ("Storage protection", _st("protection"), "text"),
    ("Reserve per host: memory [GiB]", lambda e: e["reserve"]["per_host_memory_gib"], "dec"),
    ("Reserve per host: CPU [cores]", lambda e: e["reserve"]["per_host_cpu_cores"], "dec"),
    ("Reserve: share of host memory", lambda e: e["reserve"]["memory_share"], "pct"),
    ("Reserve: share of host cores", lambda e: e["reserve"]["cpu_share"], "pct"),
    ("Reserve in total: memory [GiB]", lambda e: e["reserve"]["total_memory_gib"], "int"),
    ("Reserve in total: CPU [cores]", lambda e: e["reserve"]["total_cpu_cores"], "dec"),
    ("Predicted performance (mean, relative)", _pred, "dec"),
    ("Performance overheads: basis", _bases, "text"),
    ("vCPU : core", lambda e: e["vcpu_per_core"], "dec"),
    ("TCO over years", lambda e: no_price(e["tco_total"]), "money"),
    ("Power after [W]", lambda e: e["power_after_w"], "int"),
    ("Survives failover", lambda e: e["survives_failover"], "yes"),
    ("Worst survivor utilization", lambda e: e["worst_survivor_util"], "pct"),
    ("Assumed profile values", lambda e: len(e["assumed"]), "int"),
    ("Warnings", lambda e: e["warnings"], "int"),
)


def check_targets_doc(doc: Any) -> None:
    """``doc`` is a target comparison document (else one line)."""
    if not isinstance(doc, Mapping) or not isinstance(doc.get("targets"), list):
        raise InputError(
            "target comparison: expected the dict of "
            "vsizer.study.target_compare.compare_targets with a 'targets' list "
            "(see docs/targets.md)."
        )
