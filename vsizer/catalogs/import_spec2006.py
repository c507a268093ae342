"""Import SPEC CPU2006 integer-rate results (CINT2006rate) into CPU-catalog rows.

The input is ``scripts/data/cint2006rate_2014.csv``: the columns ``processor,
hardware_vendor, system, cores_total, chips, cpu_mhz, base_result, test_date,
published`` of SPEC's CINT2006rate results dump ("Dump All Records As CSV",
https://www.spec.org/cgi-bin/osgresults?conf=rint2006) as of March 2014, in the
copy redistributed by github.com/karlarao/specint_cpu_explorer
(``SPECint_rate2006_price/specprice.txt``, commit 0cf1b84). That copy has the
spaces removed from every text field (``IntelXeonE5-2620v2``) and keeps only
the CPUs that had a list price in 2014; :func:`spaced_cpu_name` restores
SPEC's spelling.

Per-core score = ``base_result / cores_total`` (SPECint_rate_base2006 per
core), median per CPU, as :mod:`vsizer.catalogs.import_spec` does for CPU2017.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from vsizer.catalogs.cpu_catalog import CPU_COLUMNS
from vsizer.catalogs.import_spec import brand_string_aliases
from vsizer.errors import CatalogError

__all__ = [
    "SPEC_CPU2006_BASIS",
    "import_cint2006rate",
    "import_cint2006rate_2016",
    "spaced_cpu_name",
]

#: Basis label of the scores this importer produces (base, per core).
SPEC_CPU2006_BASIS = "SPECint_rate2006"

#: Where the results come from, as cited in every row's source.
CINT2006_SOURCE = (
    "SPEC CPU2006 CINT2006rate results dump, March 2014 "
    "(https://www.spec.org/cgi-bin/osgresults?conf=rint2006; copy in "
    "github.com/karlarao/specint_cpu_explorer, "
    "SPECint_rate2006_price/specprice.txt @0cf1b84)"
)

#: The later listing (results published up to 2016 Q1), see
#: :func:`import_cint2006rate_2016`.
CINT2006_2016_SOURCE = (
    "SPEC CPU2006 CINT2006rate results published up to 2016 Q1 "
    "(https://www.spec.org/cgi-bin/osgresults?conf=rint2006; listing in "
    "github.com/satoshi-s-suzuki/tools, SPECint/js/*.js @b19eb2a)"
)

_COLUMNS = ("processor", "hardware_vendor", "system", "cores_total", "chips")
_NAME = re.compile(r"^(Intel|AMD)(Xeon|Opteron)(\S+?)(v\d)?$")


def spaced_cpu_name(name: str) -> str:
    """SPEC's spelling of a CPU name whose spaces were removed.

    >>> spaced_cpu_name("IntelXeonE5-2650Lv2")
    'Intel Xeon E5-2650L v2'
    >>> spaced_cpu_name("AMDOpteron6176SE")
    'AMD Opteron 6176SE'
    """
    m = _NAME.match(name.strip())
    if m is None:
        return name.strip()
    vendor, family, model, version = m.groups()
    return f"{vendor} {family} {model}" + (f" {version}" if version else "")


def _mode(values: pd.Series) -> float:
    counts = values.dropna().value_counts()
    if counts.empty:
        return float("nan")
    return float(min(counts[counts == counts.max()].index))


def _read(path: str | os.PathLike[str], extra: tuple[str, ...]) -> pd.DataFrame:
    data = pd.read_csv(Path(path), dtype=str, keep_default_na=False)
    missing = [c for c in (*_COLUMNS, *extra, "base_result") if c not in data]
    if missing:
        raise CatalogError(
            f"{Path(path).name}: missing column(s) {', '.join(missing)}; expected "
            "a CINT2006rate extract of scripts/data (see its README.md)."
        )
    for col in ("cores_total", "chips", "cpu_mhz", "base_result"):
        data[col] = pd.to_numeric(data[col], errors="coerce")
    # 'NC' (non-compliant) and 'NA' results have no number and are dropped
    data = data[(data["base_result"] > 0) & (data["cores_total"] > 0)].copy()
    data["cpu"] = data["processor"].map(spaced_cpu_name)
    data["per_core"] = data["base_result"] / data["cores_total"]
    data["cores_chip"] = (data["cores_total"] / data["chips"]).round()
    return data


def _cpu_rows(
    data: pd.DataFrame, source: str, example: Callable[[pd.Series], str]
) -> pd.DataFrame:
    """One catalog row per CPU: median per-core score, modal cores and clock."""
    rows = []
    for name, group in data.groupby("cpu", sort=True):
        median = float(np.median(group["per_core"].to_numpy()))
        near = group.iloc[int((group["per_core"] - median).abs().to_numpy().argmin())]
        cores = int(_mode(group["cores_chip"]))
        mhz = _mode(group["cpu_mhz"])
        rows.append(
            {
                "cpu_name": name,
                "aliases": ";".join(brand_string_aliases(str(name), cores, mhz)),
                "cores": cores,
                "cpu_mhz": mhz,
                "score_per_core": median,
                "basis": SPEC_CPU2006_BASIS,
                "source": f"{source}: median of {len(group)} "
                + ("result" if len(group) == 1 else "results")
                + f", e.g. {example(near)}",
            }
        )
    return pd.DataFrame(rows, columns=list(CPU_COLUMNS))


def import_cint2006rate(path: str | os.PathLike[str]) -> pd.DataFrame:
    """CPU-catalog rows from CINT2006rate results.

    Parameters
    ----------
    path : path-like
        ``cint2006rate_2014.csv`` (columns listed in the module docstring).

    Returns
    -------
    DataFrame
        Columns of ``cpus.csv``, one row per CPU sorted by name:
        ``score_per_core`` = median of ``base_result / cores_total``;
        ``cores`` = most frequent cores per chip; ``cpu_mhz`` = most frequent
        clock; ``basis`` = ``SPECint_rate2006``; ``source`` names the dump,
        the number of results and the result nearest the median (vendor,
        system, publication month).

    Raises
    ------
    CatalogError
        If a column is missing.
    """
    data = _read(path, ("cpu_mhz",))
    return _cpu_rows(
        data,
        CINT2006_SOURCE,
        lambda r: f"{r['hardware_vendor']} {r['system']} (published {r['published']})",
    )


def import_cint2006rate_2016(path: str | os.PathLike[str]) -> pd.DataFrame:
    """CPU-catalog rows from the CINT2006rate listing of early 2016.

    Parameters
    ----------
    path : path-like
        ``scripts/data/cint2006rate_2016.csv``: ``processor, hardware_vendor,
        system, cores_total, chips, cpu_mhz, base_copies, base_result,
        result_url``,
        extracted by ``scripts/extract_cint2006rate_2016.py`` from
        github.com/satoshi-s-suzuki/tools (``SPECint/js``, commit b19eb2a), a
        listing of SPEC's CINT2006rate results published up to 2016 Q1. The
        processor is the Xeon/Opteron named in the system name (the listing
        has no processor column). Results with fewer ``base_copies`` than
        cores (3 one-copy runs) are left out: they do not load every core.

    Returns
    -------
    DataFrame
        As :func:`import_cint2006rate` (``cpu_mhz`` = most frequent clock
        stated in the system names), with the URL of the result nearest the
        median in ``source``. CPUs whose clock no system name states (42 of
        553, e.g. Xeon 7110N, W3520) are left out: a catalog row needs a clock.

    Raises
    ------
    CatalogError
        If a column is missing.
    """
    data = _read(path, ("cpu_mhz", "base_copies", "result_url"))
    # a run with fewer copies than cores leaves cores idle: not a per-core score
    copies = pd.to_numeric(data["base_copies"], errors="coerce")
    data = data[copies >= data["cores_total"]]
    rows = _cpu_rows(
        data,
        CINT2006_2016_SOURCE,
        lambda r: f"{r['hardware_vendor']} {r['system']}, {r['result_url']}",
    )
    # the CPU catalog needs a clock: CPUs no system name gives one for are left out
    return rows[rows["cpu_mhz"] > 0].reset_index(drop=True)
