"""The storage section of the reports (terminal, Excel, HTML), from the plan
document's ``storage`` key (:mod:`vsizer.study.storage`); nothing when the plan
has none (no disk capacity in the inventory)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from vsizer.reporting._html_page import Page, esc, fmt_num, table
from vsizer.reporting.labels import LABELS, with_unit

if TYPE_CHECKING:  # openpyxl is loaded only when a workbook is written
    from vsizer.reporting._xlsx import SheetWriter

Label = Callable[..., str]

#: Per-pool columns: (plan key, unit, decimals shown, Excel format name in _xlsx).
POOL_COLUMNS: tuple[tuple[str, str | None, int, str], ...] = (
    ("vms", None, 0, "INT"),
    ("provisioned_gib", "GiB", 0, "INT"),
    ("used_gib", "GiB", 0, "INT"),
    ("thin_ratio", None, 2, "RATIO"),
    ("required_raw_gib", "GiB", 0, "INT"),
    ("iops_peak", None, 0, "INT"),
    ("iops_backend", None, 0, "INT"),
    ("write_iops_backend", None, 0, "INT"),
    ("mb_s_peak", "MB/s", 1, "DEC1"),
    ("mb_s_array", "MB/s", 1, "DEC1"),
    ("hosts_planned", None, 0, "INT"),
    ("hosts_for_storage", None, 0, "INT"),
)

#: Row positions (after the pool name) of the rates an export may not give:
#: shown as "—" in the workbook when unknown, never as 0 or an empty cell.
_RATE_COLS = frozenset(
    i for i, (k, *_) in enumerate(POOL_COLUMNS, start=1) if "iops" in k or "mb_s" in k
)
_UNKNOWN = "—"

#: Assumptions shown: (plan key, unit, Excel format); percentages as such.
PARAMETERS: tuple[tuple[str, str | None, str | None], ...] = (
    ("storage_mode", None, None),
    ("protection", None, None),
    ("overhead_factor", None, "DEC2"),
    ("write_penalty", None, "INT"),
    ("min_fault_domains", None, "INT"),
    ("provisioning", None, None),
    ("slack", None, "PCT"),
    ("read_share", None, "PCT"),
    ("read_share_source", None, None),
    ("host_raw_gib", "GiB", "INT"),
    ("mb_s_virtual_ratio", None, "PCT"),
)


def _value(storage: Mapping[str, Any], key: str) -> Any:
    return storage.get("mode") if key == "storage_mode" else storage.get(key)


def _shown(t: Label, value: Any) -> Any:
    """Enumerated values translated (``external``, ``thin``)."""
    if isinstance(value, str) and f"value_{value}" in LABELS:
        return t(f"value_{value}")
    return value


def _headers(t: Label) -> list[str]:
    return [t("pool"), *(with_unit(t(k), u) for k, u, _, _ in POOL_COLUMNS)]


def _rows(storage: Mapping[str, Any], t: Label) -> list[list[Any]]:
    """Pool rows, then the total (host counts are per pool: left empty)."""
    rows = [[p["name"], *(p.get(k) for k, _, _, _ in POOL_COLUMNS)]
            for p in storage["pools"]]
    total = storage["totals"]
    rows.append([t("storage_total"), sum(p["vms"] for p in storage["pools"]),
                 *(total.get(k) for k, _, _, _ in POOL_COLUMNS[1:-2]), None, None])
    return rows


def print_storage(plan: Mapping[str, Any], console: Console, L: Label) -> None:
    """The storage table of the terminal summary (nothing without a section)."""
    storage = plan.get("storage")
    if not storage:
        return
    tbl = Table(title=f"{L('section_storage')}: {_shown(L, storage['mode'])}, "
                f"{storage['protection']} (x{storage['overhead_factor']:.2f}), "
                f"{L('slack')} {storage['slack']:.0%}", title_justify="left")
    rows = _rows(storage, L)
    tbl.add_column("")
    for row in rows:  # one column per pool, then the total: fits a terminal
        tbl.add_column(Text(str(row[0])), justify="right")
    for i, (key, unit, digits, _) in enumerate(POOL_COLUMNS, start=1):
        tbl.add_row(with_unit(L(key), unit), *(fmt_num(r[i], digits) for r in rows))
    console.print(tbl)
    for note in storage.get("notes") or ():
        console.print(Text(f"{L('storage_notes')}: {note}", style="yellow"))


def storage_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """The Storage sheet: one row per pool and the total, then the assumptions."""
    from vsizer.reporting import _xlsx

    storage = plan["storage"]
    rows = [[_UNKNOWN if v is None and i in _RATE_COLS else v for i, v in enumerate(r)]
            for r in _rows(storage, w.t)]
    w.table(_headers(w.t), rows,
            [None, *(getattr(_xlsx, f) for _, _, _, f in POOL_COLUMNS)], autofilter=True)
    w.title(w.t("section_storage_parameters"))
    items = [
        (with_unit(w.t(k), u), _shown(w.t, _value(storage, k)),
         None if f is None else getattr(_xlsx, f),
         "storage." + ("mode" if k == "storage_mode" else k))
        for k, u, f in PARAMETERS
    ]
    items += [(w.t("storage_notes"), n, None, "storage.notes")
              for n in storage.get("notes") or ()]
    w.items(items)
    w.finish()


def storage_section(page: Page, plan: Mapping[str, Any], t: Label) -> str:
    """HTML of the storage section (empty without a section)."""
    storage = plan.get("storage")
    if not storage:
        return ""
    digits = [d for _, _, d, _ in POOL_COLUMNS]
    body = table(
        _headers(t),
        [[r[0], *(fmt_num(v, d) for v, d in zip(r[1:], digits, strict=True))]
         for r in _rows(storage, t)],
        numeric=range(1, len(POOL_COLUMNS) + 1),
    )
    params = table(
        [t("item"), t("value")],
        [[with_unit(t(k), u), _html_value(_shown(t, _value(storage, k)), f)]
         for k, u, f in PARAMETERS],
        numeric=(1,),
    )
    notes = "".join(f"<p>{esc(n)}</p>" for n in storage.get("notes") or ())
    return (body + f"<h3>{esc(t('section_storage_parameters'))}</h3>" + params + notes)


def _html_value(value: Any, fmt: str | None) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:.0%}" if fmt == "PCT" else fmt_num(value, 2 if fmt == "DEC2" else 0)
    return "—" if value is None else str(value)
