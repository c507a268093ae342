"""Classify one fuzz run and check the invariants of a successful plan.

Outcomes
--------
success          exit 0 and every invariant holds
clean_error      exit 2 with ``error:`` lines (including an ``OSError`` or
                 ``UnicodeDecodeError`` turned into one line by the top-level
                 guard, ``vsizer.cli.main``)
traceback        an exception other than those escapes a command (exit 1,
                 "internal error" for a user), or an exit code that is not 0/2
hang             the run exceeded its time limit
silently_wrong   exit 0 but an invariant on plan.json fails; or (any exit) an
                 input's bytes changed, or an attack of :mod:`tests.fuzz.attacks`
                 did not end as it must
over_budget      finished, but over its family's wall-time or RSS budget
                 (:data:`tests.fuzz.attacks.BUDGETS`)

Invariants on a successful plan.json ("silently wrong" checks)
--------------------------------------------------------------
given_number     every number the input gives for a planned server, in a
                 column that maps to a field of the plan's server record, is
                 non-null there (no overflow-to-null, no dropped value)
given_value      a number the input gives for a planned server, in a column
                 whose unit is the plan field's own (counts, GiB, W, IOPS),
                 is the plan's number, unless a warning names the server or
                 the field, or the plan's quality record does not call the
                 field given (derived, estimated, assumed: a value clipped,
                 replaced or read another way is a choice, and is said)
placed           every planned server has a host; every excluded one a reason;
                 every named row of the input is planned or excluded
empty_plan       a plan with no server at all carries a warning
deterministic    a second run on the same input writes the same bytes
                 (sampled)

Invariants on every run (issue 24)
----------------------------------
no_traceback     no exception escapes, exit 0 or 2 with ``error:`` lines
inputs_kept      no output replaces an input: every input file keeps its bytes
budget           wall time and RSS added over the forked parent stay under the
                 family's budget
one_set          two plans on one output set leave the files of one run
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Numeric fields of a server record in plan.json (docs/plan-schema.md).
PLAN_FIELDS = frozenset({
    "sockets", "cores_per_socket", "vcpus", "cpu_mhz", "cpu_score_per_core",
    "cpu_capacity", "cpu_avg_util", "cpu_peak_util", "mem_gib", "disk_iops",
    "disk_mb_s", "net_mbps", "power_w", "rack_u",
})
_PLAIN_NUMBER = re.compile(
    r"^[-+]?(?:\d+(?:,\d{3})*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*%?$|^[-+]?inf(?:inity)?$",
    re.IGNORECASE,
)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\x9b]")

STATUSES = ("success", "clean_error", "traceback", "hang", "silently_wrong",
            "over_budget")


@dataclass
class Outcome:
    """What one run did."""

    status: str
    exit_code: int | None
    detail: str = ""
    violations: list[str] = field(default_factory=list)
    raw_control: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"status": self.status, "exit_code": self.exit_code,
                "detail": self.detail, "violations": self.violations,
                "raw_control": self.raw_control}


def exc_name(exc: BaseException) -> str:
    """``ValueError``, ``zlib.error``, ``_csv.Error``: the module unless builtin."""
    mod = type(exc).__module__
    return type(exc).__name__ if mod == "builtins" else f"{mod}.{type(exc).__name__}"


def classify(exit_code: int | None, stderr: str, exc: BaseException | None,
             exc_text: str = "") -> Outcome:
    """Outcome of a finished run, before the plan invariants.

    ``exc`` is the exception that escaped ``vsizer.cli.app`` (None when it
    exited through ``typer.Exit``/``SystemExit``); ``exc_text`` its
    ``Type: message`` when it was raised in another process.
    """
    raw = bool(_CONTROL.search(stderr))
    if exc is not None and not isinstance(exc, SystemExit):
        text = f"{exc_name(exc)}: {str(exc)[:200]}"
        if isinstance(exc, OSError | UnicodeDecodeError):
            return Outcome("clean_error", 2, "guard " + text, raw_control=raw)
        return Outcome("traceback", 1, text, raw_control=raw)
    if exc_text:
        return Outcome("traceback", exit_code, exc_text, raw_control=raw)
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("error:")]
    if exit_code == 0:
        return Outcome("success", 0, raw_control=raw)
    if exit_code == 2 and errors:
        return Outcome("clean_error", 2, errors[0][:200], raw_control=raw)
    if exit_code == 1 and any("internal error" in ln for ln in errors):
        return Outcome("traceback", 1, errors[0][:300], raw_control=raw)
    tail = lines[-1][:200] if lines else ""
    return Outcome("traceback", exit_code, f"exit {exit_code} without error line: {tail}",
                   raw_control=raw)


# ------------------------------------------------------------ numbers given
def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return not math.isnan(value)
    if isinstance(value, str):
        return bool(_PLAIN_NUMBER.match(value.strip()))
    return False


def _rows_table(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    from vsizer.inventory._build import clean_text
    from vsizer.inventory._io import read_csv_grid
    from vsizer.inventory.headers import header_cells, match_header
    from vsizer.inventory.tabular import _TOTAL_LABELS, _xlsx_grid, find_header

    if path.suffix.lower() == ".xlsx":
        grid, _meta, _sheet = _xlsx_grid(path, None)
    else:
        grid, _meta = read_csv_grid(path)
    at, _score = find_header(grid)
    if at is None:
        return
    cells, _ = header_cells(grid, at)
    matches = [match_header(c) for c in cells]
    fields = [m.field for m in matches]
    # given_value compares only columns in the field's own unit (a bare header)
    other_unit = {m.field for m in matches
                  if m.field is not None and m.unit != match_header(m.field).unit}
    if "name" not in fields:
        return
    name_col = fields.index("name")
    for _row, values in grid[at + 1:]:
        if name_col >= len(values):
            continue
        name = clean_text(values[name_col])
        if name is None or name.casefold() in _TOTAL_LABELS:
            continue
        row = {f: values[j] for j, f in enumerate(fields)
               if f in PLAN_FIELDS and j < len(values)}
        yield name, row | {SAME_UNIT: sorted(set(row) - other_unit)}


def _rows_azure(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    from vsizer.inventory._build import clean_text
    from vsizer.inventory._io import read_csv_grid
    from vsizer.inventory.azure_migrate import column_role

    grid, _meta = read_csv_grid(path)
    rows = [cells for _r, cells in grid if any(str(c).strip() for c in cells)]
    if not rows:
        return
    roles = [(column_role(c) or (None, None))[0] for c in rows[0]]
    if "name" not in roles:
        return
    name_col = roles.index("name")
    for values in rows[1:]:
        if name_col >= len(values):
            continue
        name = clean_text(values[name_col])
        if name is None:
            continue
        row = {r: values[j] for j, r in enumerate(roles)
               if r in PLAN_FIELDS and j < len(values)}
        yield name, row | {SAME_UNIT: ["vcpus"]}  # memory in the template's MB


def _rows_rvtools(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    from vsizer.inventory._build import clean_text
    from vsizer.inventory._io import iter_sheet, open_workbook

    wb = open_workbook(path)
    try:
        sheet = next((n for n in wb.sheetnames if n.casefold() == "vinfo"), None)
        if sheet is None:
            return
        grid = list(iter_sheet(wb[sheet]))
    finally:
        wb.close()
    if not grid:
        return
    header = [str(c).strip() if c is not None else "" for c in grid[0][1]]
    want = {"CPUs": "vcpus", "Memory": "mem_gib"}
    if "VM" not in header:
        return
    name_col = header.index("VM")
    for _r, values in grid[1:]:
        if name_col >= len(values):
            continue
        name = clean_text(values[name_col])
        if name is None:
            continue
        row = {want[h]: values[j] for j, h in enumerate(header)
               if h in want and j < len(values)}
        yield name, row | {SAME_UNIT: ["vcpus"]}  # Memory is in MiB


def input_rows(fmt: str, path: Path) -> list[tuple[str, dict[str, Any]]] | None:
    """(server name, {plan field: raw cell}) of an inventory, or None if unreadable here."""
    reader = {"table-csv": _rows_table, "table-xlsx": _rows_table,
              "azure_migrate": _rows_azure, "rvtools": _rows_rvtools}.get(fmt)
    if reader is None:
        return None
    try:
        return list(reader(path))
    except Exception:  # what vsizer could read but this checker cannot: unchecked
        return None


# ------------------------------------------------------------ plan invariants
def check_plan(plan_path: Path, fmt: str | None = None,
               input_path: Path | None = None) -> list[str]:
    """Violations of the plan invariants (empty list when all hold)."""
    try:
        plan = json.loads(plan_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [f"plan.json unreadable after exit 0: {type(exc).__name__}: {exc}"]
    out: list[str] = []
    servers = plan.get("servers") or []
    excluded = plan.get("excluded") or []
    for s in servers:
        if not s.get("host"):
            out.append(f"placed: server {s.get('name')!r} has no host and is not excluded")
    for e in excluded:
        if not str(e.get("reason") or "").strip():
            out.append(f"placed: excluded server {e.get('name')!r} has no reason")
    if not servers and not excluded and not plan.get("warnings"):
        out.append("empty_plan: 0 servers, 0 excluded and no warning")
    if fmt is None or input_path is None:
        return out
    rows = input_rows(fmt, input_path)
    if rows is None:
        return out
    by_name = {str(s.get("name")): s for s in servers}
    known = set(by_name) | {str(e.get("name")) for e in excluded}
    for name, cells in rows:
        same_unit = set(cells.pop(SAME_UNIT, ()))
        if name not in known:
            out.append(f"placed: input server {name!r} neither planned nor excluded")
            continue
        record = by_name.get(name)
        if record is None:
            continue
        for fld, value in cells.items():
            if _is_number(value) and record.get(fld) is None:
                out.append(f"given_number: {name!r} {fld} = {str(value)[:40]!r} "
                           "in the input, null in the plan")
        out += _changed_silently(plan, name, record,
                                 {f: v for f, v in cells.items() if f in same_unit})
    return out


#: Key of an input row listing the fields in their own unit (``given_value``).
SAME_UNIT = "_same_unit"
#: Fields compared by ``given_value``: their canonical unit is the one a bare
#: header means, so the input's number is the plan's.
SAME_UNIT_FIELDS = frozenset({
    "sockets", "cores_per_socket", "vcpus", "disk_iops", "power_w", "rack_u", "mem_gib",
})


def _plain_float(value: Any) -> float | None:
    if isinstance(value, bool) or not _is_number(value):
        return None
    if isinstance(value, int | float):
        return float(value)
    text = str(value).strip()
    if "," in text or "%" in text or "inf" in text.casefold():
        return None  # thousands separators, decimal commas, percent: read by rules
    try:
        return float(text)
    except ValueError:
        return None


def _changed_silently(plan: dict[str, Any], name: str, record: dict[str, Any],
                      cells: dict[str, Any]) -> list[str]:
    """``given_value`` violations of one server (see the module docstring)."""
    warned = {str(s) for w in plan.get("warnings") or [] for s in w.get("servers") or []}
    if name in warned:
        return []
    # a warning naming no server speaks for the field everywhere; one naming
    # servers speaks only for them (checked above)
    texts = " ".join(str(w.get("message", "")) for w in plan.get("warnings") or []
                     if not w.get("servers"))
    quality = next((q for q in (plan.get("quality") or {}).get("servers") or []
                    if q.get("name") == name), {})
    given_fields = set(quality.get("given") or ())
    out = []
    for fld, value in cells.items():
        given = _plain_float(value)
        planned = record.get(fld)
        if (fld not in SAME_UNIT_FIELDS or given is None or not math.isfinite(given)
                or not isinstance(planned, int | float) or fld not in given_fields
                or fld in texts):
            continue
        if not math.isclose(given, planned, rel_tol=1e-6, abs_tol=1e-6):
            out.append(f"given_value: {name!r} {fld} = {str(value)[:40]!r} in the input, "
                       f"{planned!r} in the plan, and no warning or note says why")
    return out
