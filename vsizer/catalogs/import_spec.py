"""Import SPEC CPU2017 integer-rate results into CPU-catalog rows.

Three inputs are accepted:

1. the results dump as users download it from SPEC ("Dump All Records As
   CSV" at https://www.spec.org/cgi-bin/osgresults?conf=cpu2017), plain or
   gzipped. Its header has 35 names but every row 34 fields, and some names
   carry stray tabs or spaces (``"Processor "``); the ``Benchmark`` column is
   ``CINT2017rate`` for integer *rate* results (``CINT2017`` is speed);
2. the derived ``cint2017rate_by_system.csv`` (one CINT2017rate result per
   row, columns ``cpu_model, chips, cores_total, cpu_mhz_nominal,
   specrate2017_int_base, result_url, ...``);
3. one result's own report, ``.csv`` or ``.txt`` as SPEC publishes it and
   ``runcpu`` writes it (:mod:`vsizer.catalogs._spec_cpu2017_result`).

The two listings give the same medians: per-core score = ``Base Result /
# Cores`` (recomputed from the base result, not the derived file's rounded
``base_per_core``), median per CPU name; a single report gives its own
``SPECrate2017_int_base`` / enabled cores.
"""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from vsizer._textio import read_bytes
from vsizer.catalogs._keys import cpu_key
from vsizer.catalogs._spec_cpu2017_result import is_single_result, read_single_result
from vsizer.catalogs.cpu_catalog import CPU_COLUMNS
from vsizer.errors import CatalogError

__all__ = ["SPEC_CPU2017_BASIS", "brand_string_aliases", "import_spec_cpu2017"]

#: Basis label of the scores this importer produces.
SPEC_CPU2017_BASIS = "SPECrate2017_int_base"

#: Benchmark column value of integer-rate results in the SPEC dump.
CINT_RATE = "CINT2017rate"

#: Dump header -> internal name (after stripping stray whitespace).
VARIABLE_MAP: dict[str, str] = {
    "Benchmark": "benchmark",
    "Processor": "cpu",
    "Processor MHz": "mhz",
    "# Cores": "cores_total",
    "# Chips": "chips",
    "Base Result": "base",
}

#: Dump columns holding the result's links (either may be left out of an export).
DISCLOSURE_COLUMNS = ("Disclosure", "Disclosures")

#: Derived-file header -> internal name.
DERIVED_VARIABLE_MAP: dict[str, str] = {
    "cpu_model": "cpu",
    "cpu_mhz_nominal": "mhz",
    "cores_total": "cores_total",
    "chips": "chips",
    "specrate2017_int_base": "base",
    "result_url": "url",
}

_HREF = re.compile(r'href="([^"]+\.html)"', re.IGNORECASE)
_SPEC_SITE = "https://www.spec.org"
_SCALABLE = ("Bronze", "Silver", "Gold", "Platinum")


def _read_text(path: Path) -> str:
    """The file's text, decompressed when compressed (the shared reader: the
    unpacked-size limit, one line per failure)."""
    return read_bytes(path, error=CatalogError).decode("utf-8-sig", errors="replace")


def _single(text: str, path: Path) -> pd.DataFrame:
    """The one row of a result's own report, notes in ``attrs['notes']``."""
    try:
        row, notes = read_single_result(text, path.name)
    except ValueError as exc:
        raise CatalogError(
            f"{path.name}: one SPEC CPU2017 result's report, but {exc}."
        ) from exc
    frame = pd.DataFrame(
        [row], columns=["cpu", "mhz", "cores_total", "chips", "base", "url"]
    )
    frame.attrs["notes"] = notes
    return frame


def _records(text: str, path: Path) -> tuple[list[str], list[list[str]]]:
    """Header (stripped names) and rows, padded or cut to the widest row.

    Read with :mod:`csv`, which takes rows of any width: the dump's header has
    one name more than its rows, and a file that is not a listing (one
    result's report, a text file) must end in a clear error, not a parser's.
    """
    try:
        rows = [
            r
            for r in csv.reader(io.StringIO(text, newline=None))
            if any(c.strip() for c in r)
        ]
    except csv.Error as exc:
        raise CatalogError(f"{path.name}: not a readable CSV file ({exc}).") from exc
    if not rows:
        raise CatalogError(
            f"{path.name}: the file is empty; expected SPEC's 'Dump All Records "
            "As CSV' export of CPU2017 results or cint2017rate_by_system.csv."
        )
    width = max(len(r) for r in rows[1:]) if len(rows) > 1 else len(rows[0])
    header = [h.strip() for h in rows[0]][:width]
    header += [""] * (width - len(header))
    body = [(r + [""] * (width - len(r)))[:width] for r in rows[1:]]
    return header, body


def _load(path: Path) -> pd.DataFrame:
    """Rows of either input as columns cpu, mhz, cores_total, chips, base, url."""
    text = _read_text(path)
    if is_single_result(text):
        return _single(text, path)
    header, body = _records(text, path)
    frame = pd.DataFrame(body, columns=pd.Index(_unique(header)), dtype=str)
    if "Benchmark" in header:
        missing = [h for h in VARIABLE_MAP if h not in header]
        mapping = VARIABLE_MAP
    else:
        missing = [h for h in DERIVED_VARIABLE_MAP if h not in header]
        mapping = DERIVED_VARIABLE_MAP
    if missing and "Benchmark" not in header and "cpu_model" not in header:
        first = ",".join(" ".join(c.split()) for c in header if c.strip())
        first = "".join(ch if ch.isprintable() else "?" for ch in first)
        raise CatalogError(
            f"{path.name}: not a SPEC CPU2017 results listing: its first line is "
            f"'{first[:80]}'; expected SPEC's 'Dump All Records As CSV' export "
            "(columns " + ", ".join(f"'{m}'" for m in VARIABLE_MAP) + ") or "
            "cint2017rate_by_system.csv, or one Integer Rate result's .csv/.txt report."
        )
    if missing:
        raise CatalogError(
            f"{path.name}: not a SPEC CPU2017 results CSV: missing column(s) "
            + ", ".join(f"'{m}'" for m in missing)
            + "; expected the 'Dump All Records As CSV' export or "
            "cint2017rate_by_system.csv."
        )
    data = frame[list(mapping)].rename(columns=mapping)
    if "benchmark" in data:
        links = [c for c in DISCLOSURE_COLUMNS if c in frame.columns]
        data = data.assign(
            disclosure=frame[links[0]] if links else "",
        )
        kinds = data["benchmark"].str.strip()
        if not (kinds == CINT_RATE).any():
            held = ", ".join(
                f"{n} {k or '(empty)'}" for k, n in kinds.value_counts().items()
            )
            raise CatalogError(
                f"{path.name}: no {CINT_RATE} result"
                + (f" (the file holds {held})" if held else " (no result row)")
                + f"; CPU scores come from the {CINT_RATE} (SPECrate2017_int_base) rows."
            )
        data = data[kinds == CINT_RATE]
        hrefs = data["disclosure"].str.extract(_HREF, expand=False)
        data = data.assign(url=(_SPEC_SITE + hrefs).fillna(""))
    data = data.assign(cpu=data["cpu"].str.strip())
    for col in ("mhz", "cores_total", "chips", "base"):
        data[col] = pd.to_numeric(data[col], errors="coerce")
    return data[["cpu", "mhz", "cores_total", "chips", "base", "url"]]


def _unique(names: list[str]) -> list[str]:
    """Column names made unique (empty or repeated names get a suffix)."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


def _mode(values: pd.Series) -> float:
    """Most frequent value; the smallest one on ties."""
    counts = values.dropna().value_counts()
    if counts.empty:
        return float("nan")
    top = counts[counts == counts.max()]
    return float(min(top.index))


def brand_string_aliases(cpu_name: str, cores: int, cpu_mhz: float) -> list[str]:
    """How a CPU's brand string usually reads (CPUID, RVTools, /proc/cpuinfo).

    Parameters
    ----------
    cpu_name : str
        SPEC's spelling, e.g. ``Intel Xeon Gold 5218``.
    cores : int
        Cores per chip.
    cpu_mhz : float
        Nominal clock [MHz].

    Returns
    -------
    list of str
        ``['Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz']``;
        ``['Intel(R) Xeon(R) CPU E5-2620 v4 @ 2.10GHz']`` for E5/E7 parts
        (with Intel's ``0`` for v1 parts: ``E5-2620 0 @ 2.00GHz``);
        ``['AMD EPYC 7302 16-Core Processor']``; ``[]`` for other vendors.
    """
    words = cpu_name.split()
    if len(words) >= 3 and words[:2] == ["Intel", "Xeon"]:
        clock = f"{cpu_mhz / 1000:.2f}GHz"
        rest = " ".join(words[2:])
        if words[2] in _SCALABLE:
            return [f"Intel(R) Xeon(R) {rest} CPU @ {clock}"]
        if re.fullmatch(r"E[357]-\d{4}[A-Z]?", rest):
            rest += " 0"
        return [f"Intel(R) Xeon(R) CPU {rest} @ {clock}"]
    if len(words) >= 3 and words[:2] == ["AMD", "EPYC"]:
        return [f"AMD EPYC {' '.join(words[2:])} {cores}-Core Processor"]
    return []


def import_spec_cpu2017(
    path: str | os.PathLike[str], *, min_results: int = 1
) -> pd.DataFrame:
    """CPU-catalog rows from SPEC CPU2017 integer-rate results.

    Parameters
    ----------
    path : path-like
        The SPEC "Dump All Records As CSV" export (plain or gzipped) or the
        derived ``cint2017rate_by_system.csv``.
    min_results : int, default 1
        CPUs with fewer usable results are left out.

    Returns
    -------
    DataFrame
        Columns of ``cpus.csv`` (:data:`~vsizer.catalogs.cpu_catalog.CPU_COLUMNS`),
        one row per CPU sorted by name: ``score_per_core`` = median over the
        CPU's CINT2017rate results of ``Base Result / # Cores``; ``cores`` =
        the most frequent ``# Cores / # Chips``; ``cpu_mhz`` = the most
        frequent ``Processor MHz``; ``basis`` = ``SPECrate2017_int_base``;
        ``source`` = ``SPEC CPU2017 CINT2017rate, median of N results, e.g.
        <url>`` where the URL is the result nearest the median.
        ``attrs['rows_used']`` and ``attrs['rows_skipped']`` count results.

    Notes
    -----
    Results with no usable base (``Base Result`` <= 0, or ``# Cores`` <= 0;
    21 rows in the 2025 dump) are skipped. CPU names are grouped
    case-insensitively (``POWER10``/``Power10``), keeping the most frequent
    spelling. One result is one *system*: the same CPU appears with different
    memory, compilers and chip counts, hence the median.
    """
    data = _load(Path(path))
    read_notes = list(data.attrs.get("notes", []))
    usable = (data["base"] > 0) & (data["cores_total"] > 0) & (data["cpu"] != "")
    skipped = int((~usable).sum())
    notes = _skip_notes(Path(path).name, data[~usable])
    data = data[usable].copy()
    data["per_core"] = data["base"] / data["cores_total"]
    data["cores_chip"] = data["cores_total"] / data["chips"].where(data["chips"] > 0)
    data["key"] = data["cpu"].map(cpu_key)
    rows = []
    unsized: list[str] = []
    for _, group in data.groupby("key", sort=False):
        if len(group) < min_results:
            continue
        name = str(group["cpu"].value_counts().index[0])
        median = float(np.median(group["per_core"].to_numpy()))
        nearest = (group["per_core"] - median).abs().to_numpy().argmin()
        url = str(group["url"].iloc[nearest])
        cores_chip = _mode(group["cores_chip"].round())
        mhz = _mode(group["mhz"].where(group["mhz"] > 0))
        if not (cores_chip > 0 and np.isfinite(cores_chip) and np.isfinite(mhz)):
            unsized.append(name)  # a catalog row needs both
            continue
        cores = int(cores_chip)
        rows.append(
            {
                "cpu_name": name,
                "aliases": ";".join(brand_string_aliases(name, cores, mhz)),
                "cores": cores,
                "cpu_mhz": mhz,
                "score_per_core": median,
                "basis": SPEC_CPU2017_BASIS,
                "source": f"SPEC CPU2017 {CINT_RATE}, median of {len(group)} "
                + ("result" if len(group) == 1 else "results")
                + (f", e.g. {url}" if url else ""),
            }
        )
    out = pd.DataFrame(rows, columns=list(CPU_COLUMNS))
    out = out.sort_values("cpu_name", key=lambda s: s.str.casefold(), kind="stable")
    out = out.reset_index(drop=True)
    out.attrs["rows_used"] = int(len(data))
    out.attrs["rows_skipped"] = skipped
    if unsized:
        notes.append(
            f"{Path(path).name}: {len(unsized)} CPU(s) left out: no usable '# Chips' "
            f"or 'Processor MHz' to size them ({', '.join(sorted(unsized))})"
        )
    out.attrs["notes"] = read_notes + notes
    return out


def _skip_notes(name: str, left_out: pd.DataFrame) -> list[str]:
    """One line per reason CINT2017rate results were left out."""
    no_base = left_out[~(left_out["base"] > 0)]
    no_cores = left_out[(left_out["base"] > 0) & ~(left_out["cores_total"] > 0)]
    no_cpu = left_out[(left_out["base"] > 0) & (left_out["cores_total"] > 0)]
    notes = []
    for rows, why in (
        (no_base, "no Base Result (0 or empty)"),
        (no_cores, "no '# Cores'"),
        (no_cpu, "no 'Processor' name"),
    ):
        if len(rows):
            example = str(rows["cpu"].iloc[0]) or "?"
            notes.append(
                f"{name}: {len(rows)} {CINT_RATE} result(s) left out: {why} "
                f"(e.g. {example})"
            )
    return notes
