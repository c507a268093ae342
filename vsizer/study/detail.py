"""The per-server detail of a large plan in a columnar side file (issue 25).

A plan's JSON document holds one record per server three times (``servers``,
``quality.servers``, ``rightsizing.vms``): about 1.7 KB a server, 1.7 GB for a
million servers, most of the time of writing it. With ``--json-detail summary``
(or ``auto`` above :data:`DETAIL_MAX_SERVERS` servers) the JSON keeps every
other section and leaves these three lists empty; the same values are written
one row per server, in the plan's server order, to a CSV (or, named
``.parquet``, an Apache Parquet file, which needs pyarrow: ``vsizer[series]``),
and the document's ``detail`` section names that file, its format, rows and
columns. The choice is a counted warning (``json_detail_summary``).

Columns: the fields of the ``servers`` records (floats rounded to 6 decimals,
as in the JSON), then the quality row (``quality_confidence``, the fields of
each status joined by ``;``, ``quality_notes`` as a JSON object), then the
right-sizing recommendation (empty where none).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from vsizer._jsonable import DECIMALS
from vsizer.errors import ConfigError
from vsizer.quality import PlanWarning
from vsizer.study.detail_csv import write_csv

if TYPE_CHECKING:
    from vsizer.study.plan_result import PlanResult

__all__ = [
    "DETAIL_CHOICES",
    "DETAIL_MAX_SERVERS",
    "detail_frame",
    "detail_path",
    "summarize",
    "summary_applies",
    "write_detail",
]

#: ``--json-detail``: ``auto`` (full up to :data:`DETAIL_MAX_SERVERS` servers,
#: summary above), ``full`` (every per-server list in the JSON), ``summary``.
DETAIL_CHOICES = ("auto", "full", "summary")

#: Above this many servers ``auto`` writes the summary JSON and the detail
#: file: 100,000 servers make a JSON of about 170 MB, past what a text editor
#: or a JSON viewer opens comfortably; the golden and every sample plan are far
#: below it.
DETAIL_MAX_SERVERS = 100_000

_RIGHTSIZING = ("vcpus_recommended", "mem_gib_recommended", "rightsizing_reason")


def summary_applies(choice: str, n_servers: int) -> bool:
    """Whether ``--json-detail choice`` writes the summary for ``n_servers``."""
    if choice not in DETAIL_CHOICES:
        raise ConfigError(
            f"--json-detail: expected one of {', '.join(DETAIL_CHOICES)}, got '{choice}'"
        )
    return choice == "summary" or (choice == "auto" and n_servers > DETAIL_MAX_SERVERS)


def detail_path(json_path: Path, given: Path | None) -> Path:
    """The detail file of the JSON plan ``json_path``: ``given`` (``--detail-file``)
    or ``<name>.servers.csv`` beside it."""
    path = given if given is not None else json_path.with_name(
        f"{json_path.stem}.servers.csv"
    )
    if path.suffix.lower() not in (".csv", ".parquet"):
        raise ConfigError(
            f"--detail-file {path}: expected a .csv or .parquet file name, "
            f"got {path.suffix or 'no suffix'!r}"
        )
    return path


def detail_frame(plan: PlanResult) -> pd.DataFrame:
    """One row per server of ``plan``: the columns of the module docstring."""
    from vsizer.study.serialize import SERVER_FIELDS

    servers = plan.servers
    n = len(servers)
    cols: dict[str, Any] = {}
    for f in SERVER_FIELDS:
        if f not in servers:
            cols[f] = pd.Series([None] * n, dtype=object)
            continue
        col = servers[f]
        if col.dtype.kind == "f":
            arr = np.round(col.to_numpy(dtype=np.float64, na_value=np.nan), DECIMALS)
            arr[~np.isfinite(arr)] = np.nan
            cols[f] = arr + 0.0  # -0.0 -> 0.0
        else:
            cols[f] = col.to_numpy()
    names = servers["name"].astype(str).tolist()
    cols.update(plan.quality.columns(names))
    cols.update(_rightsizing_columns(plan, names))
    return pd.DataFrame(cols)


def _rightsizing_columns(plan: PlanResult, names: list[str]) -> dict[str, Any]:
    rs = plan.rightsizing
    by_name = {v.name: v for v in rs.vms} if rs is not None else {}
    vcpus, mem, reason = [], [], []
    for name in names:
        v = by_name.get(name)
        vcpus.append(None if v is None else v.vcpus_recommended)
        mem.append(np.nan if v is None else round(float(v.mem_gib_recommended), DECIMALS))
        reason.append("" if v is None else v.reason)
    return dict(zip(_RIGHTSIZING, (pd.array(vcpus, dtype="Int64"), mem, reason),
                    strict=True))


def write_detail(frame: pd.DataFrame, fh: Any, parquet: bool) -> None:
    """Write the detail ``frame`` to the open binary file ``fh``: CSV (UTF-8,
    ``\\n`` line ends, empty cells for missing values) or Parquet."""
    if parquet:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise ConfigError(
                "--detail-file: a .parquet detail file needs the 'pyarrow' package "
                "(pip install 'vsizer[series]'); name a .csv file instead"
            ) from None
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), fh)
        return
    write_csv(frame, fh)  # what frame.to_csv writes, faster (detail_csv)


def summarize(
    doc: dict[str, Any], file: Path, n_servers: int, columns: list[str], choice: str
) -> dict[str, Any]:
    """The summary document: ``doc`` (made with ``detail=False``) with its
    ``detail`` section after ``servers`` and the counted warning."""
    why = (
        "--json-detail summary" if choice == "summary"
        else f"more than {DETAIL_MAX_SERVERS:,} servers (--json-detail auto)"
    )
    warning = PlanWarning(
        "json_detail_summary",
        f"The JSON plan holds the summary: {why}; the {n_servers:,} servers' "
        f"records, data quality and right-sizing are in {file.name}, one row per "
        "server (--json-detail full keeps them in the JSON).",
    )
    out: dict[str, Any] = {}
    for key, value in doc.items():
        out[key] = value
        if key == "servers":
            out["detail"] = {
                "file": file.name,
                "format": "parquet" if file.suffix.lower() == ".parquet" else "csv",
                "rows": n_servers,
                "columns": columns,
                "rule": why,
            }
    out["warnings"] = [*doc["warnings"], warning.to_dict()]
    out["summary"] = {**doc["summary"], "warnings": doc["summary"]["warnings"] + 1}
    return out
