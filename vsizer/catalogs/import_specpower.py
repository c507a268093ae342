"""Import published SPECpower_ssj2008 results into host-catalog rows.

Two inputs are accepted, alone or together:

1. an 11-point curves CSV (``server_model, config_as_stated, watts_0pct, ...,
   watts_100pct, spec_result_url, source_repo, source_path, source_commit``):
   watts at active idle, 10 %, ..., 100 % target load;
2. the full SPECpower results CSV as published by SPEC and redistributed by
   cloud-carbon-coefficients (``Hardware Vendor Test Sponsor, System Enclosure
   (if applicable), Date Submitted, Nodes, CPU Description, MHz, Chips, Cores,
   Total Threads, Total Memory (GB), avg. watts @ 100%, avg. watts @ active
   idle, ...``): idle and full load only. The other spellings of such a
   listing (the table scraped with its line breaks removed, SPEC's own "Dump
   All Records As CSV" export, with or without the per-load watts columns,
   which then give the 11-point curve) are read too, see
   :mod:`vsizer.catalogs._specpower_layouts`.

Given together, each curve is joined to its full result (same idle and
full-load watts and the same model) to learn chips, cores, clock and memory;
the curve then replaces that result's two points.

**Multi-node results are skipped.** Their watts cover a whole enclosure
(blades, twins, microservers: shared fans and power supplies); dividing by the
node count would attribute the enclosure's overhead evenly, which SPEC does
not measure, and a host-catalog row is one server. Non-compliant results
(``NC`` instead of watts, or ``Result`` 0 in SPEC's dump) are skipped too.
``attrs['skipped']`` counts them; ``attrs['notes']`` says, one line per
reason, what was left out and which results state no node count (read as one
server each).

References
----------
.. [1] Standard Performance Evaluation Corporation, "SPECpower_ssj2008
   results," https://www.spec.org/power_ssj2008/results/.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer._textio import read_bytes
from vsizer.catalogs._keys import model_key
from vsizer.catalogs._specpower_layouts import (
    header_key,
    listing_notes,
    parse_dates,
    resolve,
    split_system_cell,
    why_skipped,
)
from vsizer.catalogs.host_catalog import HOST_COLUMNS
from vsizer.errors import CatalogError

__all__ = ["import_specpower", "read_specpower_results"]

#: Curves-file header -> internal name.
CURVES_VARIABLE_MAP: dict[str, str] = {
    "server_model": "system",
    "config_as_stated": "config",
    **{f"watts_{p}pct": f"w{p}" for p in range(0, 101, 10)},
    "spec_result_url": "url",
    "source_repo": "source_repo",
    "source_commit": "source_commit",
}

#: Full-results header (the spelling of SPEC's results table) -> internal name;
#: the other spellings read are in :mod:`vsizer.catalogs._specpower_layouts`.
RESULTS_VARIABLE_MAP: dict[str, str] = {
    "Hardware Vendor Test Sponsor": "vendor",
    "System Enclosure (if applicable)": "system",
    "Date Submitted": "date",
    "Nodes": "nodes",
    "CPU Description": "cpu_desc",
    "MHz": "cpu_mhz",
    "Chips": "chips",
    "Cores": "cores",
    "Total Threads": "threads",
    "Total Memory (GB)": "mem_gib",
    "avg. watts @ 100%": "power_max_w",
    "avg. watts @ active idle": "power_idle_w",
}

_CURVE_COLS = [f"w{p}" for p in range(0, 101, 10)]

#: Columns of :func:`read_specpower_results`.
RESULT_COLUMNS = [
    "vendor",
    "system",
    "model",
    "date",
    "nodes",
    "chips",
    "cores",
    "threads",
    "cpu_mhz",
    "cpu_name",
    "mem_gib",
    "power_idle_w",
    "power_max_w",
    "power_curve_w",
    "source",
]

#: Vendor field (sponsor names run together) -> short vendor name, first match.
_VENDORS = (
    ("hewlett packard enterprise", "HPE"),
    ("hewlett-packard", "HP"),
    ("hewlett packard", "HP"),
    ("dell", "Dell"),
    ("ibm", "IBM"),
    ("lenovo", "Lenovo"),
    ("fujitsu siemens", "Fujitsu Siemens"),
    ("fujitsu", "Fujitsu"),
    ("acer", "Acer"),
    ("huawei", "Huawei"),
    ("super micro", "Supermicro"),
    ("supermicro", "Supermicro"),
    ("nec", "NEC"),
    ("hitachi", "Hitachi"),
    ("inspur", "Inspur"),
    ("h3c", "H3C"),
    ("sugon", "Sugon"),
    ("asustek", "ASUS"),
    ("quanta", "Quanta"),
    ("sun micro", "Sun"),
    ("apple", "Apple"),
    ("cisco", "Cisco"),
    ("giga-byte", "Gigabyte"),
    ("tyan", "Tyan"),
)
_CPU_NOISE = re.compile(
    r"\((?:r|tm)\)|®|™|@|\b\d+(?:\.\d+)?\s*ghz\b|\bprocessor\b|\bcpu\b|,", re.IGNORECASE
)
_BRACKET_CONFIG = re.compile(
    r"(\d+)\s*x\s*\[(.+?)\s+(\d+)\s*MHz,\s*(\d+)\s*cores?\],\s*(\d+)\s*GB",
    re.IGNORECASE,
)


def vendor_short(vendor: str) -> str:
    """Short vendor name of a SPECpower vendor field: ``Dell Inc.`` -> ``Dell``."""
    text = str(vendor).casefold()
    for pattern, short in _VENDORS:
        if re.search(rf"\b{re.escape(pattern)}\b", text):
            return short
    return str(vendor).split(",")[0].split()[0] if str(vendor).strip() else ""


def clean_cpu_name(description: str) -> str:
    """CPU name without trademarks, clock and filler words, case kept.

    ``'2.6 GHz AMD Opteron 2435'`` -> ``'AMD Opteron 2435'``;
    ``'Intel Xeon processor 5160'`` -> ``'Intel Xeon 5160'``.
    """
    return " ".join(_CPU_NOISE.sub(" ", str(description)).split())


def _system_name(vendor: str, system: str) -> str:
    """``Dell Inc.``, ``PowerEdge R740 (Intel Xeon ...)`` -> ``Dell PowerEdge R740``."""
    base = " ".join(re.sub(r"\([^)]*\)", " ", str(system)).split())
    short = vendor_short(vendor)
    if not short or base.casefold().startswith(short.casefold()):
        return base
    return f"{short} {base}"


def _read_csv(path: Path) -> pd.DataFrame:
    """The file as text columns; every failure is one line naming the file."""
    raw = read_bytes(path, error=CatalogError)  # decompressed, within the unpacked limit
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CatalogError(
            f"{path.name}: cannot read the SPECpower file: not UTF-8 text "
            f"(byte {exc.start}: {exc.reason})."
        ) from exc
    if not text.strip():
        raise CatalogError(f"{path.name}: the SPECpower file is empty.")
    try:
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except pd.errors.ParserError as exc:
        reason = " ".join(str(exc).split())
        raise CatalogError(
            f"{path.name}: not a SPECpower results table ({reason}); expected one "
            "header line and one result per row (one result's own report is "
            "not read)."
        ) from exc
    frame.columns = pd.Index([str(c).strip() for c in frame.columns])
    return frame


_FIRST_NUMBER = r"^\s*(?:<[^>]*>\s*)*(\d+(?:\.\d+)?)"


def _numbers(frame: pd.DataFrame, cols: Sequence[str]) -> pd.DataFrame:
    """Columns as numbers: ``1,024`` -> 1024; ``<A HREF=...>768</A>`` -> 768
    (SPEC's dump links the memory size to its notes); ``NC`` -> NaN."""
    out = frame.copy()
    for c in cols:
        text = out[c].astype(str).str.replace(",", "", regex=False)
        out[c] = pd.to_numeric(
            text.str.extract(_FIRST_NUMBER, expand=False), errors="coerce"
        )
    return out


def _full_results(
    frame: pd.DataFrame, name: str, columns: dict[str, str]
) -> pd.DataFrame:
    """Rows of a results listing (any layout of :mod:`._specpower_layouts`)."""
    data = pd.DataFrame({k: frame[c] for k, c in columns.items()})
    split = [split_system_cell(s) for s in data["system"]]
    data["system"] = [s for s, _ in split]
    listed = pd.Series([d for _, d in split], index=data.index)
    written = data.get("date", listed)
    data["date"], data["date_text"] = parse_dates(written)
    data["bad_date"] = written.str.strip().ne("") & data["date"].isna()
    data["date_raw"] = written
    dated = (
        "published"
        if header_key(columns.get("date", "")) == "published"
        else "submitted"
    )
    data = _numbers(data, [c for c in _NUMERIC if c in data])
    if "cores" not in data:
        data["cores"] = data["chips"] * data["cores_per_chip"]
    if "threads" not in data:
        data["threads"] = data["cores"] * data.get("threads_per_core", np.nan)
    for col in ("chips", "cores", "threads", "cpu_mhz", "mem_gib"):
        # SPEC's dump writes 0 where a result states no value (0 chips)
        data[col] = data[col].where(data[col] > 0)
    data["listing"] = name
    if "nodes" not in data:
        data["nodes"] = np.nan
    data["nodes_stated"] = data["nodes"].notna()
    data["why_skipped"] = why_skipped(data)
    data["ok"] = data["why_skipped"] == ""
    data["cpu_name"] = data["cpu_desc"].map(clean_cpu_name)
    data["model"] = [
        _system_name(v, s) for v, s in zip(data["vendor"], data["system"], strict=True)
    ]
    data["power_curve_w"] = pd.Series(
        _listing_curves(data), index=data.index, dtype=object
    )
    data["result"] = [
        f"SPECpower_ssj2008 result {' '.join(str(v).split())} {s}"
        + (f", {dated} {d}" if d else "")
        for v, s, d in zip(
            data["vendor"], data["system"], data["date_text"], strict=True
        )
    ]
    data["source"] = [
        f"{r} ({'idle and 100 %' if c is None else '11-point curve'} from {name})"
        for r, c in zip(data["result"], data["power_curve_w"], strict=True)
    ]
    return data


def _listing_curves(data: pd.DataFrame) -> list[tuple[float, ...] | None]:
    """11-point curves of a listing with SPEC's per-load columns, else None."""
    cols = ["power_idle_w", *(f"w{p}" for p in range(10, 100, 10)), "power_max_w"]
    if not all(c in data for c in cols):
        return [None] * len(data)
    values = data[cols].to_numpy(dtype=float)
    return [
        tuple(float(v) for v in row) if bool(np.isfinite(row).all()) else None
        for row in values
    ]


#: Listing columns read as numbers (when the file has them).
_NUMERIC = (
    "nodes",
    "cpu_mhz",
    "chips",
    "cores",
    "cores_per_chip",
    "threads",
    "threads_per_core",
    "mem_gib",
    "power_max_w",
    "power_idle_w",
    "overall",
    *(f"w{p}" for p in range(10, 100, 10)),
)


def _curves(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    data = frame[list(CURVES_VARIABLE_MAP)].rename(columns=CURVES_VARIABLE_MAP)
    data = _numbers(data, _CURVE_COLS)
    bad = data[_CURVE_COLS].isna().any(axis=1) | (data[_CURVE_COLS] < 0).any(axis=1)
    if bad.any():
        rows = ", ".join(str(i + 2) for i in np.flatnonzero(bad.to_numpy()))
        raise CatalogError(
            f"{name} row(s) {rows}: expected 11 non-negative watt values "
            "(watts_0pct ... watts_100pct)."
        )
    data["power_curve_w"] = [
        tuple(float(v) for v in r) for r in data[_CURVE_COLS].to_numpy()
    ]
    data["power_idle_w"] = data["w0"]
    data["power_max_w"] = data["w100"]
    data["cited"] = [
        u if u else f"no SPEC result URL cited by {repo}@{commit[:12]}"
        for u, repo, commit in zip(
            data["url"], data["source_repo"], data["source_commit"], strict=True
        )
    ]
    data["source"] = (
        "SPECpower_ssj2008 11-point curve "
        + data["system"]
        + ", "
        + data["cited"]
        + f" ({name})"
    )
    parsed = data["config"].str.extract(_BRACKET_CONFIG)
    data["chips"] = pd.to_numeric(parsed[0], errors="coerce")
    data["cpu_name"] = parsed[1].fillna("").map(clean_cpu_name)
    data["cpu_mhz"] = pd.to_numeric(parsed[2], errors="coerce")
    data["cores"] = pd.to_numeric(parsed[3], errors="coerce") * data["chips"]
    data["mem_gib"] = pd.to_numeric(parsed[4], errors="coerce")
    data["model"] = data["system"]
    return data


def read_specpower_results(
    path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
) -> pd.DataFrame:
    """Single-node SPECpower results, one row each, curves joined in.

    Parameters
    ----------
    path : path-like or sequence of path-likes
        A curves CSV, a full-results CSV, or both (any order).

    Returns
    -------
    DataFrame
        Columns :data:`RESULT_COLUMNS`: ``model`` is vendor + system without
        parenthesised text (``Dell PowerEdge R740``); ``chips``, ``cores``,
        ``threads`` are totals; ``power_curve_w`` a tuple of 11 watts or None;
        ``nodes`` is 1, or NA for a curve with no full result to say.
        ``attrs['skipped']``: multi-node or non-compliant results left out.
    """
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    curves: list[pd.DataFrame] = []
    results: list[pd.DataFrame] = []
    for p in map(Path, paths):
        frame = _read_csv(p)
        listing = resolve(frame.columns)
        known = listing is not None or set(CURVES_VARIABLE_MAP) <= set(frame.columns)
        if known and frame.empty:
            raise CatalogError(
                f"{p.name}: a header line and no result row; expected one "
                "SPECpower result per row under the header."
            )
        if listing is not None:
            results.append(_full_results(frame, p.name, listing))
        elif known:
            curves.append(_curves(frame, p.name))
        else:
            raise CatalogError(
                f"{p.name}: not a SPECpower file: expected the columns of the 11-point "
                "curves CSV (" + ", ".join(CURVES_VARIABLE_MAP) + ") or of the full "
                "results CSV (" + ", ".join(RESULTS_VARIABLE_MAP) + "; or SPEC's "
                "'Dump All Records As CSV' names: Hardware Vendor, System, "
                "Processor, Processor MHz, # Chips, # Cores, Memory (GB), Average "
                "watts @ 100% of target load, Average watts @ active idle)."
            )
    full = pd.concat(results, ignore_index=True) if results else None
    rows: list[dict[str, object]] = []
    used: set[int] = set()
    curve_rows: list[dict[str, Any]] = (
        [
            {str(k): v for k, v in r.items()}
            for r in pd.concat(curves).to_dict("records")
        ]
        if curves
        else []
    )
    for curve in curve_rows:
        match = None if full is None else _match(curve, full)
        if full is None or match is None:  # curves file alone, or not in SPEC's file
            rows.append({c: curve.get(c) for c in RESULT_COLUMNS})
            continue
        used.add(match)
        if not full.loc[match, "ok"]:  # multi-node or non-compliant: skipped
            continue
        row = {str(k): v for k, v in full.loc[match].to_dict().items()}
        row.update(
            power_curve_w=curve["power_curve_w"],
            power_idle_w=curve["power_idle_w"],
            power_max_w=curve["power_max_w"],
            source=f"{row['result']}, {curve['cited']} (11-point curve; configuration "
            "from the full results)",
        )
        rows.append({c: row.get(c) for c in RESULT_COLUMNS})
    skipped = 0
    if full is not None:
        skipped = int((~full["ok"]).sum())
        rest = full[full["ok"] & ~full.index.isin(list(used))]
        rows.extend(
            {str(k): v for k, v in r.items()}
            for r in rest[RESULT_COLUMNS].to_dict("records")
        )
    out = pd.DataFrame(rows, columns=RESULT_COLUMNS)  # nodes: 1, or NA if unknown
    out.attrs["skipped"] = skipped
    out.attrs["notes"] = [] if full is None else listing_notes(full)
    return out


def _match(curve: dict[str, Any], full: pd.DataFrame) -> int | None:
    """Index of the full result with the curve's idle and 100 % watts, if any."""
    idle, top = float(curve["power_idle_w"]), float(curve["power_max_w"])
    hit = full[
        ((full["power_idle_w"] - idle).abs() < 0.05)
        & ((full["power_max_w"] - top).abs() < 0.5)
    ]
    if hit.empty:
        return None
    key = set(model_key(str(curve["system"])).split())
    same = [
        i for i in hit.index if key & set(model_key(str(hit.loc[i, "model"])).split())
    ]
    return int((same or list(hit.index))[0])


def import_specpower(
    path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    keep_incomplete: bool = True,
) -> pd.DataFrame:
    """Host-catalog rows from published SPECpower_ssj2008 results.

    Parameters
    ----------
    path : path-like or sequence of path-likes
        The 11-point curves CSV, the full-results CSV, or both. With both,
        curves get chips/cores/clock/memory from their full result.
    keep_incomplete : bool, default True
        Keep the results whose source states no sockets, cores, MHz or memory
        (their cells are empty); False leaves them out.

    Returns
    -------
    DataFrame
        Columns of ``hosts.csv`` (:data:`~vsizer.catalogs.host_catalog.HOST_COLUMNS`),
        one row per single-node result: ``model`` = vendor, system and CPU
        (``Dell PowerEdge R740 2x Platinum 8180``, with the submission month
        appended if that is not unique); ``sockets`` = chips;
        ``cores_per_socket`` = cores / chips; ``threads_per_core`` = threads /
        cores; ``mem_gib`` = the memory *tested*; ``cpu_score_per_core``,
        ``rack_u``, ``price`` empty. Rows from a curves file alone may lack
        sockets and cores (the file does not state them): complete them before
        use. ``attrs['skipped']`` counts the multi-node and non-compliant
        results left out; ``attrs['incomplete']`` names the results lacking
        sockets, cores, MHz or memory (kept or left out per ``keep_incomplete``).
    """
    res = read_specpower_results(path)
    chips = res["chips"].astype("Float64")
    cores = res["cores"].astype("Float64")
    out = pd.DataFrame(
        {
            "model": _unique_models(res),
            "sockets": chips.round().astype("Int64"),
            "cores_per_socket": (cores / chips).round().astype("Int64"),
            "threads_per_core": (res["threads"].astype("Float64") / cores)
            .round()
            .clip(lower=1)  # one 2011 result states fewer threads than cores
            .astype("Int64"),
            "cpu_mhz": res["cpu_mhz"].astype("Float64"),
            "cpu_score_per_core": pd.NA,
            "mem_gib": res["mem_gib"].astype("Float64"),
            "power_idle_w": res["power_idle_w"].astype(float),
            "power_max_w": res["power_max_w"].astype(float),
            "power_curve_w": res["power_curve_w"],
            "rack_u": pd.NA,
            "price": pd.NA,
            "cpu_name": res["cpu_name"],
            "cpu_score_basis": pd.NA,
            "disk_iops": pd.NA,
            "disk_mb_s": pd.NA,
            "net_mbps": pd.NA,
            "source": res["source"],
        },
        columns=list(HOST_COLUMNS),
    )
    incomplete = out[list(_CONFIGURATION)].isna().any(axis=1)
    names = out.loc[incomplete, "model"].astype(str).tolist()
    if not keep_incomplete:
        out = out[~incomplete]
    out.attrs["skipped"] = res.attrs.get("skipped", 0)
    out.attrs["notes"] = res.attrs.get("notes", [])
    out.attrs["incomplete"] = names
    return out


#: Columns a host catalog row needs to be planned with.
_CONFIGURATION = ("sockets", "cores_per_socket", "cpu_mhz", "mem_gib")


def short_cpu(cpu_name: str) -> str:
    """CPU name for a model label: ``Intel Xeon Platinum 8180`` -> ``Platinum 8180``."""
    words = str(cpu_name).split()
    if words[:1] in (["Intel"], ["AMD"]):
        words = words[1:]
    if (
        len(words) > 1
        and words[0] == "Xeon"
        and words[1]
        in (
            "Bronze",
            "Silver",
            "Gold",
            "Platinum",
        )
    ):
        words = words[1:]
    return " ".join(words)


def _unique_models(res: pd.DataFrame) -> list[str]:
    """Vendor system + 'Nx CPU', then + month, then + '#k', until unique."""
    names = []
    for model, chips, cpu in zip(
        res["model"], res["chips"], res["cpu_name"], strict=True
    ):
        label = (
            f"{model} {int(chips)}x {short_cpu(cpu)}"
            if pd.notna(chips) and cpu
            else model
        )
        names.append(label)
    counts = pd.Series(names).value_counts()
    dated = [
        f"{n} ({d:%b %Y})" if counts[n] > 1 and pd.notna(d) else n
        for n, d in zip(names, res["date"], strict=True)
    ]
    seen: dict[str, int] = {}
    final = []
    for n in dated:
        seen[n] = seen.get(n, 0) + 1
        final.append(n if seen[n] == 1 else f"{n} #{seen[n]}")
    return final
