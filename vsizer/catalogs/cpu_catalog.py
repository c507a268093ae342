"""The CPU catalog: per-core benchmark scores by CPU model, with their sources.

The shipped catalog (``vsizer/catalogs/data/cpus.csv``, built by
``scripts/build_catalogs.py``) holds

* SPECint2000 chip scores of five older Xeons (basis ``SPECint2000``; SPEC
  CPU2000 results, https://www.spec.org/cpu2000/results/);
* SPEC CPU2017 integer-rate medians per CPU (basis ``SPECrate2017_int_base``,
  see :func:`vsizer.catalogs.import_spec.import_spec_cpu2017`);
* SPEC CPU2006 integer-rate medians per CPU (basis ``SPECint_rate2006``, see
  :func:`vsizer.catalogs.import_spec2006.import_cint2006rate`);
* CPUs of the design method without a published score (cores and clock only).

A user catalog with the same columns can replace it or be merged over it
(``merge=True``): a user row replaces the shipped row of the same CPU name and
basis. Names are matched as they appear in the wild (``Intel(R) Xeon(R) Gold
5218 CPU @ 2.30GHz`` finds ``Intel Xeon Gold 5218``), see :mod:`._keys`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from vsizer.catalogs._csv import Column, by_row, read_rows, shipped_path
from vsizer.catalogs._keys import cpu_key, cpu_keys
from vsizer.catalogs.model import CpuEntry
from vsizer.errors import CatalogError

__all__ = ["CPU_COLUMNS", "CpuCatalog", "read_cpu_catalog", "SHIPPED_CPU_CATALOG"]

#: File name of the shipped CPU catalog in ``vsizer/catalogs/data``.
SHIPPED_CPU_CATALOG = "cpus.csv"

#: Accepted columns of a CPU catalog CSV, in file order.
CPU_COLUMNS: dict[str, Column] = {
    c.name: c
    for c in (
        Column("cpu_name", required=True, nullable=False, description="CPU model name"),
        Column("aliases", description="other spellings, ';'-separated"),
        Column(
            "cores", "int", required=True, nullable=False, description="cores per chip"
        ),
        Column(
            "cpu_mhz",
            "float",
            required=True,
            nullable=False,
            description="nominal clock [MHz]",
        ),
        Column(
            "score_per_core",
            "float",
            required=True,
            description="per-core benchmark score; empty if none is published",
        ),
        Column("basis", required=True, description="benchmark of the score"),
        Column("source", description="where the numbers come from"),
    )
}


@dataclass
class CpuCatalog:
    """CPU entries indexed by normalized name.

    Attributes
    ----------
    entries : list of CpuEntry
        In file order (user rows after the shipped rows they did not replace).
    path : str
        Where the entries were read from; ``user.csv (merged over
        shipped.csv)`` when merged.
    """

    entries: list[CpuEntry]
    path: str = ""
    _index: dict[str, list[CpuEntry]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._index = {}
        for entry in self.entries:
            for name in (entry.cpu_name, *entry.aliases):
                for key in cpu_keys(name):
                    bucket = self._index.setdefault(key, [])
                    if entry not in bucket:
                        bucket.append(entry)

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[CpuEntry]:
        return iter(self.entries)

    @property
    def names(self) -> list[str]:
        """CPU names in catalog order (a name with scores in two bases appears once)."""
        return list(dict.fromkeys(e.cpu_name for e in self.entries))

    @property
    def bases(self) -> list[str]:
        """Score bases present, in catalog order."""
        return list(dict.fromkeys(e.basis for e in self.entries if e.basis))

    def candidates(self, cpu_name: str) -> list[CpuEntry]:
        """Every entry whose name or alias matches ``cpu_name``, in catalog order."""
        if cpu_name is None or str(cpu_name).strip() == "":
            return []
        for key in cpu_keys(str(cpu_name)):
            if key in self._index:
                return list(self._index[key])
        return []

    def lookup(self, cpu_name: str, basis: str | None = None) -> CpuEntry | None:
        """The entry for ``cpu_name``, or None.

        Parameters
        ----------
        cpu_name : str
            CPU name as written anywhere: ``Intel(R) Xeon(R) Gold 5218 CPU @
            2.30GHz``, ``Xeon Gold 5218``, ``intel xeon gold 5218``.
        basis : str, optional
            Only an entry with a score in this basis (e.g.
            ``'SPECrate2017_int_base'``). None: the first entry with a score,
            else the first without (cores and clock only).

        Returns
        -------
        CpuEntry or None
        """
        found = self.candidates(cpu_name)
        if basis is not None:
            return next(
                (e for e in found if e.basis == basis and e.score_per_core is not None),
                None,
            )
        scored = [e for e in found if e.score_per_core is not None]
        if scored:
            return scored[0]
        return found[0] if found else None

    def to_frame(self) -> pd.DataFrame:
        """The catalog as a frame with the :data:`CPU_COLUMNS` columns."""
        return pd.DataFrame(
            [
                {
                    "cpu_name": e.cpu_name,
                    "aliases": ";".join(e.aliases),
                    "cores": e.cores,
                    "cpu_mhz": e.cpu_mhz,
                    "score_per_core": e.score_per_core,
                    "basis": e.basis,
                    "source": e.source,
                }
                for e in self.entries
            ],
            columns=list(CPU_COLUMNS),
        )


def _read_entries(path: Path) -> list[CpuEntry]:
    rows, problems, name = read_rows(path, CPU_COLUMNS)
    seen: dict[tuple[str, str], int] = {}
    entries: list[CpuEntry] = []
    for row in rows:
        r = row["_row"]
        basis = row["basis"] or ""
        if row["score_per_core"] is not None and not basis:
            problems.append(
                f"{name} row {r}, column 'basis': expected the benchmark of the "
                "score (e.g. 'SPECrate2017_int_base', or 'unstated'), got ''."
            )
        if row["cpu_name"] is None:
            continue
        key = (cpu_key(row["cpu_name"]), basis)
        if key in seen:
            problems.append(
                f"{name} row {r}, column 'cpu_name': expected a CPU not listed "
                f"before in basis '{basis}', got '{row['cpu_name']}' "
                f"(also row {seen[key]})."
            )
        seen[key] = r
        if problems:
            continue
        aliases = tuple(
            a.strip() for a in (row["aliases"] or "").split(";") if a.strip()
        )
        entries.append(
            CpuEntry(
                cpu_name=row["cpu_name"],
                cores=row["cores"],
                cpu_mhz=float(row["cpu_mhz"]),
                score_per_core=(
                    None
                    if row["score_per_core"] is None
                    else float(row["score_per_core"])
                ),
                basis=basis,
                source=row["source"] or f"{name} row {r}",
                aliases=aliases,
            )
        )
    if problems:
        raise CatalogError(by_row(problems))
    return entries


def read_cpu_catalog(
    path: str | os.PathLike[str] | None = None, *, merge: bool = False
) -> CpuCatalog:
    """Read a CPU catalog CSV.

    Parameters
    ----------
    path : path-like, optional
        A CPU catalog with the :data:`CPU_COLUMNS` columns. None: the shipped
        catalog.
    merge : bool, default False
        With ``path``: read the shipped catalog too and let ``path``'s rows
        replace shipped rows of the same CPU name and basis (others are added).

    Returns
    -------
    CpuCatalog

    Raises
    ------
    CatalogError
        Listing every invalid value of the file at once, e.g.
        ``cpus.csv row 5, column 'cores': expected a positive integer, got '0'.``
    """
    shipped = shipped_path(SHIPPED_CPU_CATALOG)
    if path is None:
        return CpuCatalog(_read_entries(shipped), str(shipped))
    user = _read_entries(Path(path))
    if not merge:
        return CpuCatalog(user, str(path))
    replaced = {(cpu_key(e.cpu_name), e.basis) for e in user}
    base = [
        e
        for e in _read_entries(shipped)
        if (cpu_key(e.cpu_name), e.basis) not in replaced
    ]
    return CpuCatalog(base + user, f"{path} (merged over {shipped})")
