"""The target platform of a ``plan --target`` document in the plan's Excel
workbook (a sheet) and HTML report (a section): the side-by-side figures of
:mod:`vsizer.reporting._targets_rows` for the one target, the reserve per
service and the licences. Hooked in with a few lines in
:mod:`vsizer.reporting.excel` and :mod:`vsizer.reporting.html`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from vsizer.reporting._html_page import Page, table
from vsizer.reporting._targets_rows import ROWS
from vsizer.reporting._xlsx import DEC2, INT, PCT, Fmt, SheetWriter

__all__ = ["has_target", "target_html", "target_sheet"]

_FORMATS = {"int": INT, "dec": DEC2, "pct": PCT, "money": INT}


def has_target(plan: Mapping[str, Any]) -> bool:
    return isinstance(plan.get("target"), Mapping)


def _service_rows(e: Mapping[str, Any]) -> list[list[Any]]:
    return [[s["name"], s["per"], s.get("memory_gib"), s.get("cpu_cores"), s.get("hosts")]
            for s in e["reserve"]["lines"]]


def _licence_rows(e: Mapping[str, Any]) -> list[list[Any]]:
    return [[x["name"], x["unit"], x["term"], x["count"], x["price"], x["cost_per_year"]]
            for x in e["licences"]]


_SERVICE_HEAD = ["Service", "Per", "Memory per host [GiB]", "Cores per host", "Hosts"]
_LICENCE_HEAD = ["Licence", "Unit", "Term", "Count", "Price", "Cost per year"]


def target_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """The target sheet of the plan workbook."""
    e = plan["target"]
    w.table(["Figure", str(e["name"])], [
        [label, "yes" if kind == "yes" and get(e) else "no" if kind == "yes"
         else Fmt(get(e), _FORMATS.get(kind))] for label, get, kind in ROWS])
    w.table(_SERVICE_HEAD, _service_rows(e))
    w.table(_LICENCE_HEAD, _licence_rows(e))
    w.table(["Assumed profile value (a counted warning)"], [[a] for a in e["assumed"]])
    w.finish()


def target_html(page: Page, plan: Mapping[str, Any], t: Callable[..., str]) -> str:
    """The target section of the plan report ("" without a target)."""
    if not has_target(plan):
        return ""
    e = plan["target"]
    figures = [[label, "—" if get(e) is None else str(get(e))] for label, get, _ in ROWS]
    return "".join((
        table(["Figure", str(e["name"])], figures),
        table(_SERVICE_HEAD, _service_rows(e), numeric=(2, 3, 4)),
        table(_LICENCE_HEAD, _licence_rows(e), numeric=(3, 4, 5)),
        table(["Assumed profile value (a counted warning)"], [[a] for a in e["assumed"]]),
    ))
