"""The host catalog: candidate virtualization host models.

The shipped catalog (``vsizer/catalogs/data/hosts.csv``, built by
``scripts/build_catalogs.py``) holds the worked-example host of the design method (MHz only), two published
blades (low-voltage Xeon L5520 vs E5405), 2017-2021 2-socket servers whose power comes from
published SPECpower_ssj2008 results and whose per-core score is the SPEC
CPU2017 integer-rate median of their CPU, and ten 2023-2025 2-socket servers
(Xeon 4th/5th gen Scalable and Xeon 6, EPYC 9004/97x4/9005) scored by one cited
2-socket CINT2017rate result each, with power assumed from the newest published
generation (no SPECpower result of theirs in the shipped data; see
``scripts/current_hosts.py`` and ``docs/inputs.md``). :data:`DEFAULT_HOST_MODEL` is the
one the demo plans on.

Contract columns: ``model, sockets, cores_per_socket, threads_per_core,
cpu_mhz, cpu_score_per_core, mem_gib, power_idle_w, power_max_w,
power_curve_w, rack_u, price``; optional: ``price_date, price_currency,
support_per_year, cpu_name, cpu_score_basis, disk_iops, disk_mb_s, net_mbps,
power_basis, source``. ``power_basis`` says where the watts come from:
``measured`` (a SPECpower_ssj2008 result of the model), ``published`` (another
published measurement of it) or ``estimated`` (from other systems' results; a
plan on such a host carries a counted warning); empty or ``given`` means the figures are the
user's own. Prices are per host and the user's: the shipped catalog leaves
``price``, ``price_date``, ``price_currency`` and ``support_per_year`` empty
because list prices are not published consistently and vary by configuration
and discount (``docs/inputs.md``, "Host prices"). ``price_date`` is
``YYYY-MM-DD`` or ``YYYY-MM``; ``price_currency`` an ISO 4217 code (``USD``),
empty meaning the plan's ``--currency``. ``power_curve_w`` is 11 watt values at 0, 10,
..., 100 % load separated by ``;``; when it is given, an empty
``power_idle_w``/``power_max_w`` is taken from its first/last point.
"""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from vsizer.catalogs._csv import Column, by_row, format_curve, read_rows, shipped_path
from vsizer.catalogs.cpu_catalog import CpuCatalog, read_cpu_catalog
from vsizer.catalogs.import_spec import SPEC_CPU2017_BASIS
from vsizer.catalogs.model import (
    GIVEN_POWER,
    POWER_BASES,
    UNSTATED_BASIS,
    CpuEntry,
    HostModel,
)
from vsizer.catalogs.score_bridge import bridge
from vsizer.errors import CatalogError, CatalogLookupError

__all__ = [
    "CURRENT_HOST_MODELS",
    "DEFAULT_HOST_MODEL",
    "HOST_COLUMNS",
    "HostCatalog",
    "SHIPPED_HOST_CATALOG",
    "read_host_catalog",
    "resolve_cpu_scores",
]

#: File name of the shipped host catalog in ``vsizer/catalogs/data``.
SHIPPED_HOST_CATALOG = "hosts.csv"

#: The shipped model the demo plans on: 2 x 28-core Xeon Platinum 8180,
#: 768 GiB, with the published 11-point SPECpower curve.
DEFAULT_HOST_MODEL = "Dell PowerEdge R740 2x Platinum 8180"

#: The shipped 2023-2025 two-socket models (``scripts/current_hosts.py``), in
#: catalog order: the natural default candidates of a host-model choice.
CURRENT_HOST_MODELS: tuple[str, ...] = (
    "Dell PowerEdge R760 2x Xeon Gold 6430",
    "Dell PowerEdge R760 2x Xeon Gold 6548Y+",
    "Dell PowerEdge R760 2x Xeon Platinum 8592+",
    "Dell PowerEdge R770 2x Xeon 6760P",
    "Dell PowerEdge R770 2x Xeon 6787P",
    "Dell PowerEdge R7625 2x EPYC 9554",
    "Dell PowerEdge R7625 2x EPYC 9654",
    "Dell PowerEdge R7625 2x EPYC 9754",
    "Dell PowerEdge R7725 2x EPYC 9555",
    "Dell PowerEdge R6725 2x EPYC 9655",
)

#: Relative tolerance between power_idle_w/power_max_w and the curve's ends.
_CURVE_END_RTOL = 0.01

#: Accepted columns of a host catalog CSV, in file order.
HOST_COLUMNS: dict[str, Column] = {
    c.name: c
    for c in (
        Column("model", required=True, nullable=False),
        Column("sockets", "int", required=True, nullable=False, limits="sockets"),
        Column("cores_per_socket", "int", required=True, nullable=False,
               limits="cores_per_socket"),
        Column("threads_per_core", "int"),
        Column("cpu_mhz", "float", required=True, nullable=False, limits="cpu_mhz"),
        Column("cpu_score_per_core", "float"),
        Column("mem_gib", "float", required=True, nullable=False, limits="mem_gib"),
        Column("power_idle_w", "float", required=True, low_open=False,
               limits="power_w"),
        Column("power_max_w", "float", required=True, limits="power_w"),
        Column("power_curve_w", "curve"),
        Column("rack_u", "float", limits="rack_u"),
        Column("price", "float", low_open=False),
        Column("price_date"),
        Column("price_currency"),
        Column("support_per_year", "float", low_open=False),
        Column("cpu_name"),
        Column("cpu_score_basis"),
        Column("disk_iops", "float", limits="disk_iops"),
        Column("disk_mb_s", "float", limits="disk_mb_s"),
        Column("net_mbps", "float", limits="net_mbps"),
        Column("power_basis"),
        Column("source"),
        Column("support_per_year", "float", low_open=False),
    )
}


#: ``price_date``: an ISO date or year-month.
_PRICE_DATE = re.compile(r"(\d{4})-(\d{2})(?:-(\d{2}))?")
#: ``price_currency``: three letters (ISO 4217).
_CURRENCY = re.compile(r"[A-Za-z]{3}")


def _power_basis(row: dict[str, Any], name: str, problems: list[str]) -> None:
    """Check and normalize ``power_basis`` of ``row`` (lower case; empty: given)."""
    basis = row["power_basis"]
    if basis is None:
        return
    row["power_basis"] = basis.strip().lower()
    if row["power_basis"] not in (*POWER_BASES, GIVEN_POWER):
        problems.append(
            f"{name} row {row['_row']}, column 'power_basis': expected one of "
            f"{', '.join(POWER_BASES)}, {GIVEN_POWER} (or empty), got '{basis}'."
        )


def _price_terms(row: dict[str, Any], name: str, problems: list[str]) -> None:
    """Check and normalize ``price_date`` and ``price_currency`` of ``row``."""
    cell = f"{name} row {row['_row']}, column"
    date = row["price_date"]
    if date is not None:
        found = _PRICE_DATE.fullmatch(date)
        try:
            ok = found is not None and bool(
                datetime.date(
                    int(found.group(1)), int(found.group(2)), int(found.group(3) or 1)
                )
            )
        except ValueError:
            ok = False
        if not ok:
            problems.append(
                f"{cell} 'price_date': expected a date YYYY-MM-DD or YYYY-MM "
                f"(when the price was quoted), got '{date}'."
            )
    currency = row["price_currency"]
    if currency is not None:
        if _CURRENCY.fullmatch(currency):
            row["price_currency"] = currency.upper()
        else:
            problems.append(
                f"{cell} 'price_currency': expected a 3-letter ISO 4217 currency "
                f"code (e.g. USD, EUR, JPY), got '{currency}'."
            )


def _norm(model: str) -> str:
    return " ".join(str(model).casefold().split())


@dataclass
class HostCatalog:
    """Host models by name (names match case- and space-insensitively).

    Attributes
    ----------
    hosts : list of HostModel
        In file order.
    path : str
        Where they were read from (``user.csv (merged over shipped.csv)`` when merged).
    default_model : str or None
        Name of :attr:`default`.
    """

    hosts: list[HostModel]
    path: str = ""
    default_model: str | None = None

    def __post_init__(self) -> None:
        self._by_name = {_norm(h.model): h for h in self.hosts}

    def __len__(self) -> int:
        return len(self.hosts)

    def __iter__(self) -> Iterator[HostModel]:
        return iter(self.hosts)

    def __contains__(self, model: object) -> bool:
        return isinstance(model, str) and _norm(model) in self._by_name

    @property
    def models(self) -> list[str]:
        """Model names in catalog order."""
        return [h.model for h in self.hosts]

    @property
    def default(self) -> HostModel:
        """:data:`DEFAULT_HOST_MODEL` when present, else the catalog's first model."""
        if self.default_model is not None and self.default_model in self:
            return self.get(self.default_model)
        return self.hosts[0]

    def get(self, model: str) -> HostModel:
        """The host model named ``model``.

        Raises
        ------
        CatalogLookupError
            Naming the valid models and where they are listed.
        """
        try:
            return self._by_name[_norm(model)]
        except KeyError:
            raise CatalogLookupError(
                f"Host model '{model}' is not in the host catalog."
                + _did_you_mean(model, self.models)
                + " Valid models: "
                + "; ".join(self.models)
                + f". They are listed by `vsizer catalog list` and in {self.path}."
            ) from None

    def to_frame(self) -> pd.DataFrame:
        """The catalog as a frame with the :data:`HOST_COLUMNS` columns."""
        records = []
        for h in self.hosts:
            record = asdict(h)
            record["power_curve_w"] = format_curve(h.power_curve_w)
            records.append(record)
        return pd.DataFrame(records, columns=list(HOST_COLUMNS))


def _read_hosts(path: Path) -> list[HostModel]:
    rows, problems, name = read_rows(path, HOST_COLUMNS)
    seen: dict[str, int] = {}
    hosts: list[HostModel] = []
    for row in rows:
        r = row["_row"]
        model, curve = row["model"], row["power_curve_w"]
        if model is not None:
            if _norm(model) in seen:
                problems.append(
                    f"{name} row {r}, column 'model': expected a model not listed "
                    f"before, got '{model}' (also row {seen[_norm(model)]})."
                )
            seen[_norm(model)] = r
        idle, top = row["power_idle_w"], row["power_max_w"]
        if curve is not None:
            if curve[-1] < curve[0]:
                problems.append(
                    f"{name} row {r}, column 'power_curve_w': expected watts rising "
                    f"from idle to full load, got '{format_curve(curve)}'."
                )
            for col, given, end in (
                ("power_idle_w", idle, curve[0]),
                ("power_max_w", top, curve[-1]),
            ):
                if given is not None and abs(given - end) > _CURVE_END_RTOL * end:
                    problems.append(
                        f"{name} row {r}, column '{col}': expected the curve's "
                        f"{'first' if col == 'power_idle_w' else 'last'} point "
                        f"({end:g}) or empty, got '{given:g}'."
                    )
            idle = curve[0] if idle is None else idle
            top = curve[-1] if top is None else top
        for col, value in (("power_idle_w", idle), ("power_max_w", top)):
            cell = f"{name} row {r}, column '{col}'"
            if value is None and not any(p.startswith(cell) for p in problems):
                problems.append(
                    f"{name} row {r}, column '{col}': expected a "
                    f"{'non-negative' if col == 'power_idle_w' else 'positive'} "
                    "number (or a power_curve_w), got ''."
                )
        if idle is not None and top is not None and idle > top:
            problems.append(
                f"{name} row {r}, column 'power_idle_w': expected at most "
                f"power_max_w ({top:g}), got '{idle:g}'."
            )
        score, basis = row["cpu_score_per_core"], row["cpu_score_basis"]
        _price_terms(row, name, problems)
        _power_basis(row, name, problems)
        if problems:
            continue
        hosts.append(
            HostModel(
                model=model,
                sockets=row["sockets"],
                cores_per_socket=row["cores_per_socket"],
                threads_per_core=row["threads_per_core"] or 1,
                cpu_mhz=float(row["cpu_mhz"]),
                cpu_score_per_core=None if score is None else float(score),
                mem_gib=float(row["mem_gib"]),
                power_idle_w=float(idle),
                power_max_w=float(top),
                power_curve_w=curve,
                rack_u=1.0 if row["rack_u"] is None else float(row["rack_u"]),
                price=row["price"],
                cpu_score_basis=basis or UNSTATED_BASIS,
                cpu_name=row["cpu_name"] or "",
                disk_iops=row["disk_iops"],
                disk_mb_s=row["disk_mb_s"],
                net_mbps=row["net_mbps"],
                source=row["source"] or f"{name} row {r}",
                price_date=row["price_date"],
                price_currency=row["price_currency"],
                support_per_year=row["support_per_year"],
                power_basis=row["power_basis"] or GIVEN_POWER,
            )
        )
    if problems:
        raise CatalogError(by_row(problems))
    return hosts


def _host_score(catalog: CpuCatalog, cpu_name: str) -> tuple[float, str, str] | None:
    """(per-core score, basis, how) for ``cpu_name``: SPECrate2017_int_base
    first, else a score bridged to it, else the first score in any basis."""
    entry = catalog.lookup(cpu_name, SPEC_CPU2017_BASIS)
    if entry is not None and entry.score_per_core is not None:
        return entry.score_per_core, entry.basis, _entry_text(entry)
    scored = [e for e in catalog.candidates(cpu_name) if e.score_per_core]
    for e in scored:
        found = bridge(e.basis, SPEC_CPU2017_BASIS)
        if found is not None and e.score_per_core is not None:
            how = f"{_entry_text(e)}, converted {found.note()}"
            return e.score_per_core * found.factor, SPEC_CPU2017_BASIS, how
    if scored and scored[0].score_per_core is not None:
        return scored[0].score_per_core, scored[0].basis, _entry_text(scored[0])
    return None


def _entry_text(entry: CpuEntry) -> str:
    return f"CPU catalog entry '{entry.cpu_name}' ({entry.basis}): {entry.source}"


def resolve_cpu_scores(
    hosts: list[HostModel], cpu_catalog: CpuCatalog | None = None
) -> list[HostModel]:
    """Fill the per-core score of hosts that name a CPU but give no score.

    Parameters
    ----------
    hosts : list of HostModel
    cpu_catalog : CpuCatalog, optional
        None: the shipped CPU catalog (read only if a host needs it).

    Returns
    -------
    list of HostModel
        Hosts with ``cpu_name`` and no ``cpu_score_per_core`` get the CPU
        catalog's score: SPECrate2017_int_base when listed, else a score
        converted to it by :func:`vsizer.catalogs.score_bridge.bridge`, else
        the first score in any basis. The host's ``source`` says which entry
        (and conversion) was used. A CPU not in the catalog leaves the host
        without a score (capacity in MHz, which the plan notes).
    """
    out: list[HostModel] = []
    for h in hosts:
        if h.cpu_score_per_core is not None or not h.cpu_name:
            out.append(h)
            continue
        cpu_catalog = cpu_catalog or read_cpu_catalog()
        found = _host_score(cpu_catalog, h.cpu_name)
        if found is None:  # no score: the plan notes that capacity is in MHz
            out.append(h)
            continue
        score, basis, how = found
        note = f"; cpu_score_per_core {score:.4g} {basis}/core from {how}"
        out.append(
            replace(
                h,
                cpu_score_per_core=score,
                cpu_score_basis=basis,
                source=h.source + note,
            )
        )
    return out


def read_host_catalog(
    path: str | os.PathLike[str] | None = None,
    *,
    merge: bool = False,
    cpu_catalog: CpuCatalog | None = None,
) -> HostCatalog:
    """Read a host catalog CSV.

    Parameters
    ----------
    path : path-like, optional
        A host catalog with the :data:`HOST_COLUMNS` columns. None: the shipped
        catalog.
    merge : bool, default False
        With ``path``: read the shipped catalog too; ``path``'s rows replace
        shipped rows of the same model name, others are added after them.
    cpu_catalog : CpuCatalog, optional
        Where rows of ``path`` with a ``cpu_name`` but no ``cpu_score_per_core``
        find their per-core score (:func:`resolve_cpu_scores`). None: the
        shipped CPU catalog, read only when such a row exists.

    Returns
    -------
    HostCatalog
        Its ``default`` is :data:`DEFAULT_HOST_MODEL` when that model is in
        it, else its first model.

    Raises
    ------
    CatalogError
        Listing every invalid value of the file at once, e.g.
        ``hosts.csv row 3, column 'power_idle_w': expected at most power_max_w
        (300), got '320'.``
    """
    shipped = shipped_path(SHIPPED_HOST_CATALOG)
    if path is None:
        return HostCatalog(_read_hosts(shipped), str(shipped), DEFAULT_HOST_MODEL)
    user = _read_hosts(Path(path))
    if not user:
        raise CatalogError(
            f"{Path(path).name}: expected at least one host model, got none."
        )
    user = resolve_cpu_scores(user, cpu_catalog)
    if not merge:
        return HostCatalog(user, str(path), DEFAULT_HOST_MODEL)
    replaced = {_norm(h.model) for h in user}
    base = [h for h in _read_hosts(shipped) if _norm(h.model) not in replaced]
    return HostCatalog(
        base + user, f"{path} (merged over {shipped})", DEFAULT_HOST_MODEL
    )


def _did_you_mean(model: str, models: list[str]) -> str:
    """`` Did you mean 'M'?`` for the closest models (every word of ``model`` in
    the name, else :func:`difflib.get_close_matches`), or ``""``."""
    import difflib

    words = _norm(model).split()
    close = [m for m in models if words and all(w in _norm(m).split() for w in words)]
    if not close:
        by_norm = {_norm(m): m for m in models}
        close = [by_norm[n] for n in difflib.get_close_matches(_norm(model), list(by_norm),
                                                              n=3, cutoff=0.6)]
    if not close:
        return ""
    return " Did you mean " + " or ".join(f"'{m}'" for m in close[:3]) + "?"
