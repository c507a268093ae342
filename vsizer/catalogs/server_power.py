"""Power drawn by the servers to be migrated ("before" power).

Order of preference, per server:

1. ``inventory`` — the inventory's ``power_w`` (given);
2. ``catalog`` — the server's model found in ``server_power.csv`` (published
   single-node SPECpower_ssj2008 results, the 11-point curve where known, else
   idle and full load) evaluated at the server's average CPU utilization with
   :func:`vsizer.models.power.specpower_curve` or
   :func:`vsizer.models.power.linear` (derived);
3. ``assumed`` — idle and full-load watts = the medians of all published
   single-node SPECpower_ssj2008 results with the same number of chips
   (``server_power_by_chips.csv``), linear in utilization (assumed).

``server_power.csv`` has one row per model and socket count: the pointwise
median of its curves, else the medians of its idle and full-load watts. Model
names match without vendor or product-family words (``DL360 G6`` finds ``HP
ProLiant DL360 G6``), see :func:`vsizer.catalogs._keys.model_key`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from vsizer.catalogs._csv import Column, by_row, read_rows, shipped_path
from vsizer.catalogs._keys import model_key
from vsizer.errors import CatalogError
from vsizer.models import power as power_model
from vsizer.quality import QualityReport, Status

__all__ = [
    "CHIP_DEFAULT_COLUMNS",
    "SERVER_POWER_COLUMNS",
    "ServerPowerCatalog",
    "ServerPowerEntry",
    "chip_count_defaults",
    "estimate_server_power",
    "read_server_power_catalog",
]

#: File names of the shipped tables in ``vsizer/catalogs/data``.
SHIPPED_SERVER_POWER = "server_power.csv"
SHIPPED_CHIP_DEFAULTS = "server_power_by_chips.csv"

#: Accepted columns of a server-power catalog CSV.
SERVER_POWER_COLUMNS: dict[str, Column] = {
    c.name: c
    for c in (
        Column("model", required=True, nullable=False),
        Column("aliases"),
        Column("sockets", "int"),
        Column("cpu_name"),
        Column("power_idle_w", "float", required=True, nullable=False, low_open=False),
        Column("power_max_w", "float", required=True, nullable=False),
        Column("power_curve_w", "curve"),
        Column("source"),
    )
}

#: Columns of the per-chip-count defaults.
CHIP_DEFAULT_COLUMNS: dict[str, Column] = {
    c.name: c
    for c in (
        Column("chips", "int", required=True, nullable=False),
        Column("power_idle_w", "float", required=True, nullable=False, low_open=False),
        Column("power_max_w", "float", required=True, nullable=False),
        Column("results", "int", required=True, nullable=False),
        Column("source", required=True, nullable=False),
    )
}


@dataclass(frozen=True)
class ServerPowerEntry:
    """Published power of one server model with a given socket count."""

    model: str
    power_idle_w: float
    power_max_w: float
    power_curve_w: tuple[float, ...] | None = None
    sockets: int | None = None
    cpu_name: str = ""
    source: str = ""
    aliases: tuple[str, ...] = ()

    def power_at(self, util: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Power [W] at CPU utilization ``util`` [fraction]: curve, else linear."""
        if self.power_curve_w is not None:
            return power_model.specpower_curve(util, self.power_curve_w)
        return power_model.linear(util, self.power_idle_w, self.power_max_w)


@dataclass
class ServerPowerCatalog:
    """Server-power entries indexed by model key."""

    entries: list[ServerPowerEntry]
    path: str = ""
    _index: dict[str, list[ServerPowerEntry]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._index = {}
        for e in self.entries:
            for name in (e.model, *e.aliases):
                bucket = self._index.setdefault(model_key(name), [])
                if e not in bucket:
                    bucket.append(e)

    def __len__(self) -> int:
        return len(self.entries)

    def lookup(self, model: str, sockets: int | None = None) -> ServerPowerEntry | None:
        """The entry for ``model``: same socket count, else the nearest one.

        Parameters
        ----------
        model : str
            Server model as written (``PowerEdge R640``, ``Dell PowerEdge R640``).
        sockets : int, optional
            CPU sockets of the server. None prefers a 2-socket entry.

        Returns
        -------
        ServerPowerEntry or None
        """
        if model is None or str(model).strip() == "":
            return None
        found = self._index.get(model_key(str(model)), [])
        if not found:
            return None
        want = 2 if sockets is None else int(sockets)
        return min(
            found,
            key=lambda e: (
                abs((e.sockets if e.sockets is not None else want) - want),
                e.sockets or 0,
            ),
        )


def read_server_power_catalog(
    path: str | os.PathLike[str] | None = None,
) -> ServerPowerCatalog:
    """Read a server-power CSV (None: the shipped ``server_power.csv``).

    Raises
    ------
    CatalogError
        Listing every invalid value, e.g. ``server_power.csv row 3, column
        'power_max_w': expected a positive number, got 'n/a'.``
    """
    p = shipped_path(SHIPPED_SERVER_POWER) if path is None else Path(path)
    rows, problems, name = read_rows(p, SERVER_POWER_COLUMNS)
    entries = []
    for row in rows:
        idle, top, curve = row["power_idle_w"], row["power_max_w"], row["power_curve_w"]
        if idle is not None and top is not None and idle > top:
            problems.append(
                f"{name} row {row['_row']}, column 'power_idle_w': expected at most "
                f"power_max_w ({top:g}), got '{idle:g}'."
            )
        if problems:
            continue
        entries.append(
            ServerPowerEntry(
                model=row["model"],
                power_idle_w=float(idle),
                power_max_w=float(top),
                power_curve_w=curve,
                sockets=row["sockets"],
                cpu_name=row["cpu_name"] or "",
                source=row["source"] or f"{name} row {row['_row']}",
                aliases=tuple(
                    a.strip() for a in (row["aliases"] or "").split(";") if a.strip()
                ),
            )
        )
    if problems:
        raise CatalogError(by_row(problems))
    return ServerPowerCatalog(entries, str(p))


@lru_cache(maxsize=4)
def chip_count_defaults(path: str | None = None) -> dict[int, ServerPowerEntry]:
    """Assumed idle/full-load watts per chip count (median of published results).

    Parameters
    ----------
    path : str, optional
        A CSV with :data:`CHIP_DEFAULT_COLUMNS`; None: the shipped
        ``server_power_by_chips.csv``.

    Returns
    -------
    dict of int to ServerPowerEntry
    """
    p = shipped_path(SHIPPED_CHIP_DEFAULTS) if path is None else Path(path)
    rows, problems, _ = read_rows(p, CHIP_DEFAULT_COLUMNS)
    if problems:
        raise CatalogError(by_row(problems))
    return {
        r["chips"]: ServerPowerEntry(
            model=f"typical {r['chips']}-chip server",
            power_idle_w=float(r["power_idle_w"]),
            power_max_w=float(r["power_max_w"]),
            sockets=r["chips"],
            source=r["source"],
        )
        for r in rows
    }


def _column(servers: pd.DataFrame, name: str) -> pd.Series:
    if name in servers:
        return servers[name]
    return pd.Series([pd.NA] * len(servers), index=servers.index, dtype="object")


def _nearest_chips(defaults: dict[int, ServerPowerEntry], sockets: int) -> int:
    return min(defaults, key=lambda k: (abs(k - sockets), k))


def estimate_server_power(
    servers: pd.DataFrame,
    catalog: ServerPowerCatalog | None = None,
    quality: QualityReport | None = None,
    *,
    assume_util: float = 1.0,
) -> pd.DataFrame:
    """Average power of each source server.

    Parameters
    ----------
    servers : DataFrame
        Canonical inventory columns; uses ``name``, ``model``, ``sockets``,
        ``power_w`` and ``cpu_avg_util`` [fraction] (as filled by
        :func:`vsizer.catalogs.normalize.normalize_cpu`).
    catalog : ServerPowerCatalog, optional
        None: the shipped ``server_power.csv``.
    quality : QualityReport, optional
        Receives a ``power_w`` record per server: given, derived or assumed.
    assume_util : float, default 1.0
        Utilization [fraction] for servers without ``cpu_avg_util`` (normally
        already filled by ``normalize_cpu``). 1.0 gives full-load power, which
        overstates the "before" power and hence savings: say so in reports.

    Returns
    -------
    DataFrame
        Same index as ``servers``; ``power_w`` [W], ``power_source``
        (``inventory`` | ``catalog`` | ``assumed``), ``power_note``.

    Notes
    -----
    Power at utilization u: the 11-point SPECpower curve interpolated linearly,
    else ``P_idle + (P_max - P_idle) u`` [1]_ [2]_. SPECpower measures a
    server-side Java workload on a freshly configured system, so the figures
    are for that configuration, not for the server as deployed (more disks or
    memory draw more).

    References
    ----------
    .. [1] SPEC, "SPECpower_ssj2008," https://www.spec.org/power_ssj2008/.
    .. [2] L. A. Barroso and U. Hölzle, "The Case for Energy-Proportional
       Computing," IEEE Computer 40(12), 2007, :doi:`10.1109/MC.2007.443`.
    """
    cat = read_server_power_catalog() if catalog is None else catalog
    util = pd.to_numeric(_column(servers, "cpu_avg_util"), errors="coerce").astype(
        float
    )
    util_missing = util.isna().to_numpy()
    u = util.fillna(assume_util).to_numpy(dtype=float)
    given = pd.to_numeric(_column(servers, "power_w"), errors="coerce").astype(float)
    power = given.to_numpy(dtype=float).copy()
    source = np.where(np.isnan(power), "", "inventory").astype(object)
    note = np.where(np.isnan(power), "", "from the inventory").astype(object)
    for (model, sock_int), members in _missing_power_groups(servers, power).items():
        rows = np.asarray(members, dtype=int)
        power[rows], source[rows], note[rows] = _group_power(cat, model, sock_int, u[rows])
    for j in np.flatnonzero(util_missing & (source != "inventory")):
        note[j] += f"; average CPU utilization unknown, {assume_util:g} assumed"
    if quality is not None:
        _record_power(quality, servers, source, note)
    return pd.DataFrame(
        {"power_w": power, "power_source": source, "power_note": note},
        index=servers.index,
    )


def _missing_power_groups(
    servers: pd.DataFrame, power: np.ndarray
) -> dict[tuple[str, int | None], list[int]]:
    """Rows without power, grouped by (model text, sockets or None)."""
    sockets = pd.to_numeric(_column(servers, "sockets"), errors="coerce").astype(float)
    models = _column(servers, "model").astype("object")
    model_text = models.where(models.notna(), "").map(str).to_numpy()
    sockets_arr = sockets.to_numpy()
    groups: dict[tuple[str, int | None], list[int]] = {}
    for j in np.flatnonzero(np.isnan(power)):
        sock = None if np.isnan(sockets_arr[j]) else int(sockets_arr[j])
        groups.setdefault((str(model_text[j]).strip(), sock), []).append(int(j))
    return groups


def _group_power(
    cat: ServerPowerCatalog, model: str, sock_int: int | None, util: np.ndarray
) -> tuple[np.ndarray, str, str]:
    """Power of servers of one model and socket count: the catalog's published
    figures, else the typical server of the nearest chip count (assumed).
    Returns (watts per server, source, note)."""
    entry = cat.lookup(str(model), sock_int) if model else None
    if entry is not None:
        how = "11-point curve" if entry.power_curve_w is not None else "linear idle-max"
        text = f"{entry.model} ({how}), {entry.source}"
        if sock_int is not None and entry.sockets not in (None, sock_int):
            text += f"; published for {entry.sockets} sockets, server has {sock_int}"
        return entry.power_at(util), "catalog", text
    defaults = chip_count_defaults()
    chips = 2 if sock_int is None else _nearest_chips(defaults, sock_int)
    typical = defaults[chips]
    text = f"{typical.model} (linear idle-max), {typical.source}"
    if sock_int is None:
        text += "; sockets unknown, 2 assumed"
    elif chips != sock_int:
        text += f"; no {sock_int}-chip results, nearest chip count used"
    return typical.power_at(util), "assumed", text


_POWER_STATUS: dict[str, Status] = {
    "inventory": "given",
    "catalog": "derived",
    "assumed": "assumed",
}


def _record_power(
    quality: QualityReport, servers: pd.DataFrame, source: np.ndarray, note: np.ndarray
) -> None:
    """A ``power_w`` record per server (named by ``name``, else its index label)."""
    names = _column(servers, "name").tolist()
    labels = [str(i) for i in servers.index]
    present = pd.notna(np.asarray(names, dtype=object)).tolist()  # one call, not one a row
    entries = quality.entries
    made: dict[tuple[Any, Any], Any] = {}  # a fleet repeats a few notes: one pair each
    for name, known, label, src, text in zip(
        names, present, labels, source.tolist(), note.tolist(), strict=True
    ):
        server = str(name) if known and str(name) else label
        pair = made.get((src, text))
        if pair is None:
            quality.record(server, "power_w", _POWER_STATUS[src], text)
            made[src, text] = entries[server]["power_w"]
        else:
            entries.setdefault(server, {})["power_w"] = pair
