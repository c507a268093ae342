"""Reader of the measurement CSV that ``vsizer fit`` calibrates models on.

Long format, one measured sample per row; the benchmark harness writes it. The
columns are documented in ``docs/models.md`` ("Measurement CSV"). Every bad cell
is reported on its own line (file, row, column, expected, found) and all are
raised at once as one :class:`~vsizer.errors.InputError`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from vsizer._small_file import read_small_text
from vsizer.errors import InputError
from vsizer.limits import csv_records

MODELS = ("cpu", "disk", "network")

#: column -> (type, meaning). Types: 'text', 'int', 'float', 'bool'.
COLUMNS: dict[str, tuple[str, str]] = {
    "model": ("text", "cpu, disk or network: the model the row calibrates"),
    "experiment": ("text", "run identifier (bench run ID or table name)"),
    "vms": ("int", "running VMs [count]"),
    "physical_cpus": ("float", "physical CPUs (cores) of the host [count]"),
    "total_util_pct": ("float", "summed CPU utilization of the VMs [% of one vCPU]; see util_basis"),
    "util_basis": ("text", "what total_util_pct is: guest (guest-reported, inflated by waiting "
                   "for a CPU, as in the published VMware ESX 2.5.2 measurement; the default) or demand (CPU the VMs ask for, "
                   "e.g. N saturated 1-vCPU guests = N x 100)"),
    "queue_depth": ("float", "outstanding I/Os [count]"),
    "access_spec": ("text", "sequential_read, sequential_write, database or file_server"),
    "backing": ("text", "pass-through or file"),
    "block_size_kb": ("float", "I/O or network block size [KiB]"),
    "nic_gbps": ("float", "NIC line rate [Gbit/s]"),
    "direction": ("text", "send, receive or vm_to_vm"),
    "vmq": ("bool", "VM queues enabled (true/false)"),
    "senders": ("int", "sending VMs [count]"),
    "receivers": ("int", "receiving VMs [count]"),
    "hypervisor": ("text", "hypervisor name, e.g. esx, hyper-v, xen, kvm"),
    "throughput": ("float", "measured throughput (req/s, MB/s or Mbit/s; see unit)"),
    "native_throughput": ("float", "same measurement on bare metal, same unit"),
    "unit": ("text", "unit of throughput, e.g. req/s, MB/s, Mbit/s"),
    "relative": ("float", "measured ratio (CPU: per-VM performance; disk, network: VM / native)"),
    "mu": ("float", "CPU processing performance mu = lambda / rho as published [req/s at 100 % CPU]; "
           "used by 'vsizer fit --normalize mu350'"),
}

_TRUE = {"true", "yes", "1", "y", "on"}
_FALSE = {"false", "no", "0", "n", "off", ""}
_ENUMS = {
    "access_spec": ("sequential_read", "sequential_write", "database", "file_server"),
    "backing": ("pass-through", "file"),
    "direction": ("send", "receive", "vm_to_vm"),
    "util_basis": ("guest", "demand"),
}


def _need_cpu(r: dict[str, Any]) -> list[tuple[str, str]]:
    need = [("vms", "an integer >= 1", 1), ("physical_cpus", "a number > 0", 1e-12),
            ("total_util_pct", "a number > 0", 1e-12)]
    missing = [(c, w) for c, w, lo in need if r.get(c) is None or r[c] < lo]
    if r.get("relative") is None and r.get("throughput") is None:
        missing.append(("relative", "a number (or give 'throughput')"))
    return missing


def _need_disk(r: dict[str, Any]) -> list[tuple[str, str]]:
    need = [("access_spec", "one of " + ", ".join(_ENUMS["access_spec"])),
            ("backing", "one of " + ", ".join(_ENUMS["backing"]))]
    missing = [(c, w) for c, w in need if r.get(c) is None]
    if r.get("queue_depth") is None or r["queue_depth"] < 1:
        missing.insert(0, ("queue_depth", "a number >= 1"))
    if r.get("relative") is None and (
        r.get("throughput") is None or r.get("native_throughput") is None
    ):
        missing.append(("relative", "a ratio (or give 'throughput' and 'native_throughput')"))
    return missing


def _need_network(r: dict[str, Any]) -> list[tuple[str, str]]:
    if (r.get("hypervisor") or "").lower() == "xen" and r.get("direction") is None:
        missing = [] if (r.get("vms") or 0) >= 1 else [("vms", "an integer >= 1")]
        if r.get("relative") is None and (
            r.get("throughput") is None or r.get("native_throughput") is None
        ):
            missing.append(("relative", "a ratio VM / physical"))
        return missing
    missing = [] if r.get("direction") else [("direction", "one of send, receive, vm_to_vm")]
    if r.get("throughput") is None:
        missing.append(("throughput", "a number [Mbit/s]"))
    if r.get("direction") in ("send", "receive") and not r.get("nic_gbps"):
        missing.append(("nic_gbps", "a number > 0"))
    return missing


_NEEDS: dict[str, Callable[[dict[str, Any]], list[tuple[str, str]]]] = {
    "cpu": _need_cpu, "disk": _need_disk, "network": _need_network,
}


def _parse(kind: str, text: str, column: str) -> tuple[Any, str | None]:
    """Value and None, or None and the expectation the text failed."""
    t = text.strip()
    if t == "":
        return None, None
    if kind == "text":
        if column in _ENUMS and t not in _ENUMS[column]:
            return None, "one of " + ", ".join(_ENUMS[column])
        return t, None
    if kind == "bool":
        if t.lower() in _TRUE:
            return True, None
        if t.lower() in _FALSE:
            return False, None
        return None, "true or false"
    try:
        v = float(t)
    except ValueError:
        return None, "an integer" if kind == "int" else "a number"
    if not math.isfinite(v) or v < 0:
        return None, "a finite number >= 0"
    if kind == "int":
        if v != int(v):
            return None, "an integer"
        return int(v), None
    return v, None


def read_measurements(path: str | Path, model: str | None = None) -> pd.DataFrame:
    """Read a measurement CSV; keep the rows of ``model`` (all when None).

    Parameters
    ----------
    path : str or Path
        UTF-8 CSV with a header row; columns in :data:`COLUMNS` (others are
        kept as metadata and ignored by the fits). Lines starting with ``#``
        before the header are comments.
    model : {'cpu', 'disk', 'network'}, optional
        Keep only rows of this model.

    Returns
    -------
    DataFrame
        One row per sample, typed columns of :data:`COLUMNS` (missing = NaN/None)
        plus ``row`` (the CSV line number, header = 1).

    Raises
    ------
    InputError
        Unreadable file, missing ``model`` column, or bad cells: one line per
        problem, ``{file} row {r}, column '{c}': expected {what}, got '{value}'.``
    """
    p = Path(path)
    header, rows, first = _header_and_rows(p)
    problems: list[str] = []
    records: list[dict[str, Any]] = []
    for line_no, cells in enumerate(rows, start=first):
        if not any(c.strip() for c in cells):
            continue
        if len(cells) > len(header):
            problems.append(
                f"{p.name} row {line_no}: expected {len(header)} cells, got {len(cells)}."
            )
            continue
        raw = dict(zip(header, cells + [""] * (len(header) - len(cells)), strict=True))
        rec = _sample(raw, f"{p.name} row {line_no}", model, problems)
        if rec is not None:
            records.append({"row": line_no, **rec})
    if problems:
        raise InputError(problems)
    if not records:
        which = f"'{model}' " if model else ""
        raise InputError(f"{p.name}: no {which}samples; expected rows with model = "
                         f"{model or ' / '.join(MODELS)}.")
    frame = pd.DataFrame.from_records(records)
    for col in COLUMNS:
        if col not in frame.columns:
            frame[col] = None
    return frame


def _header_and_rows(p: Path) -> tuple[list[str], list[list[str]], int]:
    """The stripped header (with 'model' and 'experiment'), the data rows and the
    line number of the first data row. Lines starting with ``#`` before the header
    are comments (a shipped table's source)."""
    try:
        text = read_small_text(p, what="a measurement file", error=InputError,
                               encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(f"{p}: cannot read the measurement file ({exc.strerror}).") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{p}: expected a UTF-8 CSV file ({exc.reason}).") from None
    rows = [cells for _, cells in csv_records(text, p.name, error=InputError)]
    skip = 0
    while skip < len(rows) and rows[skip] and rows[skip][0].lstrip().startswith("#"):
        skip += 1
    rows = rows[skip:]
    if not rows or not any(h.strip() for h in rows[0]):
        raise InputError(f"{p.name}: empty file; expected a header row with 'model'.")
    header = [h.strip() for h in rows[0]]
    for required in ("model", "experiment"):
        if required not in header:
            raise InputError(
                f"{p.name}: missing required column '{required}'; columns are "
                "documented in docs/models.md (Measurement CSV)."
            )
    return header, rows[1:], skip + 2


def _sample(
    raw: dict[str, str], where: str, model: str | None, problems: list[str]
) -> dict[str, Any] | None:
    """The typed sample of one row, or None (a bad row, or another model's).

    Appends one line per bad cell to ``problems``; ``where`` = "{file} row {n}".
    """
    rec: dict[str, Any] = {}
    bad = False
    for col, text_value in raw.items():
        if col not in COLUMNS:
            rec[col] = text_value
            continue
        value, expected = _parse(COLUMNS[col][0], text_value, col)
        if expected is not None:
            problems.append(
                f"{where}, column '{col}': expected {expected}, got '{text_value.strip()}'."
            )
            bad = True
        rec[col] = value
    m = rec.get("model")
    if m not in MODELS:
        problems.append(
            f"{where}, column 'model': expected one of "
            f"{', '.join(MODELS)}, got '{raw.get('model', '').strip()}'."
        )
        return None
    if bad or (model is not None and m != model):
        return None
    missing = [
        f"{where}, column '{col}': expected {what} "
        f"for a {m} sample, got '{raw.get(col, '').strip()}'."
        for col, what in _NEEDS[m](rec)
    ]
    problems += missing
    return None if missing else rec
