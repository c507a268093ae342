"""Column layouts of SPECpower_ssj2008 result listings as found in the wild.

SPEC publishes its results as an HTML table (https://www.spec.org/power_ssj2008/
results/) and as a CSV dump of its result search ("Dump All Records As CSV",
https://www.spec.org/cgi-bin/osgresults?conf=power_ssj2008). Copies of both
circulate with different header spellings:

- the table copied into a spreadsheet: ``Hardware Vendor Test Sponsor``,
  ``System Enclosure (if applicable)``, ``Date Submitted``, ``Nodes``, ``CPU
  Description``, ``MHz``, ``Chips``, ``Cores``, ``Total Threads``, ``Total
  Memory (GB)``, ``avg. watts @ 100%``, ``avg. watts @ active idle``;
- the same table scraped with its line breaks removed (``Hardware
  VendorTest Sponsor``, ``TotalThreads``, ``avg. watts@ 100%``) and the
  submission date inside the system cell (``RS720-E9/RS8\\n\\n Dec  6 2018 |
  HTML | Text``);
- SPEC's CSV dump: ``Hardware Vendor``, ``System``, ``# Cores``, ``# Chips``,
  ``# Cores Per Chip``, ``# Threads Per Core``, ``Processor``, ``Processor
  MHz``, ``Memory (GB)``, ``Average watts @ active idle``, ``Average watts @
  10% of target load`` ... ``@ 100% of target load``, ``Published``
  (``Oct-2020``), ``Result`` (0 for a non-compliant result); it has no node
  count unless asked for.

Headers are matched with all white space removed and case folded, so
``avg. watts @ 100%``, ``avg. watts@ 100%`` and ``avg. watts\\n@ 100%`` are
one name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import pandas as pd

__all__ = [
    "header_key",
    "listing_notes",
    "parse_dates",
    "resolve",
    "split_system_cell",
    "why_skipped",
]

#: Internal name -> accepted header spellings (any one).
ALIASES: dict[str, tuple[str, ...]] = {
    "vendor": ("Hardware Vendor Test Sponsor", "Hardware Vendor"),
    "system": ("System Enclosure (if applicable)", "System"),
    "date": ("Date Submitted", "Published"),
    "nodes": ("Nodes", "# Nodes", "# of Nodes"),
    "cpu_desc": ("CPU Description", "Processor"),
    "cpu_mhz": ("MHz", "Processor MHz"),
    "chips": ("Chips", "# Chips"),
    "cores": ("Cores", "# Cores"),
    "cores_per_chip": ("# Cores Per Chip",),
    "threads": ("Total Threads",),
    "threads_per_core": ("# Threads Per Core",),
    "mem_gib": ("Total Memory (GB)", "Memory (GB)"),
    "power_max_w": ("avg. watts @ 100%", "Average watts @ 100% of target load"),
    "power_idle_w": ("avg. watts @ active idle", "Average watts @ active idle"),
    "overall": ("Result", "Result (Overall ssj_ops/watt)"),
    **{f"w{p}": (f"Average watts @ {p}% of target load",) for p in range(10, 100, 10)},
}

#: Internal names a results listing must have (cores: or cores per chip).
REQUIRED = (
    "vendor",
    "system",
    "cpu_desc",
    "cpu_mhz",
    "chips",
    "mem_gib",
    "power_max_w",
    "power_idle_w",
)

_WS = re.compile(r"\s+")
_LISTING_TAIL = re.compile(
    r"([A-Z][a-z]{2})\s+(\d{1,2}),?\s+(\d{4})\s*\|\s*HTML\s*\|\s*Text\s*$"
)
_DATE_FORMATS = ("%b %d, %Y", "%b %d %Y", "%b-%Y", "%Y-%m-%d")


def header_key(name: str) -> str:
    """Header without any white space, case folded: ``avg.watts@100%``."""
    return _WS.sub("", str(name)).casefold()


def resolve(columns: Iterable[str]) -> dict[str, str] | None:
    """Internal name -> the file's column, or None when not a results listing.

    A listing needs :data:`REQUIRED` and either total cores or cores per chip.
    """
    by_key: dict[str, str] = {}
    for col in columns:
        by_key.setdefault(header_key(col), col)
    found: dict[str, str] = {}
    for internal, spellings in ALIASES.items():
        for spelling in spellings:
            if header_key(spelling) in by_key:
                found[internal] = by_key[header_key(spelling)]
                break
    if any(r not in found for r in REQUIRED):
        return None
    if "cores" not in found and "cores_per_chip" not in found:
        return None
    return found


def split_system_cell(cell: str) -> tuple[str, str]:
    """System name and listing date of a scraped results-table cell.

    ``'RS720-E9/RS8\\n\\n Dec  6 2018 | \\n    HTML | \\n    Text'`` ->
    ``('RS720-E9/RS8', 'Dec 6 2018')``; a plain cell comes back as it is
    with an empty date. An enclosure line (``None`` or a chassis name)
    between the two is dropped.
    """
    text = str(cell)
    found = _LISTING_TAIL.search(text)
    if found is None:
        return " ".join(text.split()), ""
    first = text[: found.start()].strip().splitlines()
    name = " ".join(first[0].split()) if first else ""
    return name, f"{found.group(1)} {int(found.group(2))} {found.group(3)}"


def parse_dates(values: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Dates as written by the listings (``Dec 11, 2007``, ``Oct-2020``).

    Returns the dates and their text for a source line: ``Dec 11, 2007``, or
    ``Oct 2020`` when the listing states the month only. A date before
    SPECpower_ssj2008 existed (one listing has ``Jan 28, 201``) is left
    empty rather than read as the year 201.
    """
    text = values.fillna("").astype(str).map(lambda s: " ".join(s.split()))
    out = pd.Series(pd.NaT, index=values.index, dtype="datetime64[us]")
    shown = pd.Series("", index=values.index, dtype=object)
    for fmt in _DATE_FORMATS:
        parsed = pd.to_datetime(text, format=fmt, errors="coerce").astype(
            "datetime64[us]"
        )
        new = out.isna() & parsed.notna() & (parsed.dt.year >= _FIRST_YEAR)
        out[new] = parsed[new]
        style = "%b %d, %Y" if "%d" in fmt else "%b %Y"
        shown[new] = parsed[new].dt.strftime(style)
    return out, shown


#: Year SPECpower_ssj2008 was released (Dec 2007).
_FIRST_YEAR = 2007


def why_skipped(data: pd.DataFrame) -> pd.Series:
    """Why each result is left out ('' = kept)."""
    why = pd.Series("", index=data.index)
    bad_power = ~(
        (data["power_idle_w"] >= 0)
        & (data["power_max_w"] > 0)
        & (data["power_idle_w"] <= data["power_max_w"])
    )
    why[bad_power] = "idle or 100 % watts missing (NC), zero or idle above 100 %"
    if "overall" in data:
        why[(data["overall"] == 0) & (why == "")] = "non-compliant (Result 0)"
    why[(data["nodes"] > 1) & (why == "")] = "multi-node (watts of a whole enclosure)"
    return why


def listing_notes(full: pd.DataFrame) -> list[str]:
    """One line per reason results were left out or read on an assumption.

    ``'ccf.csv: 148 result(s) left out: multi-node (watts of a whole
    enclosure)'``; for results with no node count: ``'x.csv: 830 result(s)
    state no node count ... and were read as one server each; ...'``.
    """
    notes = []
    for (name, why), group in full[~full["ok"]].groupby(
        ["listing", "why_skipped"], sort=True
    ):
        notes.append(f"{name!s}: {len(group)} result(s) left out: {why!s}")
    for name, group in full[full["ok"] & full["bad_date"]].groupby("listing"):
        notes.append(
            f"{name!s}: {len(group)} result(s) have an unreadable date "
            f"(e.g. '{' '.join(str(group['date_raw'].iloc[0]).split())}' for "
            f"{group['model'].iloc[0]}): left out of the source text"
        )
    unstated = full[full["ok"] & ~full["nodes_stated"]]
    for name, group in unstated.groupby("listing", sort=True):
        many = group[group["chips"] > 2]
        notes.append(
            f"{name!s}: {len(group)} result(s) state no node count (no Nodes column "
            "or an empty cell) and were read as one server each; a multi-node "
            "result (blades, twins) would count its whole enclosure's watts as "
            "one server's"
            + (
                f"; {len(many)} of them state more than 2 chips (e.g. "
                f"{many['model'].iloc[0]}): check them on spec.org"
                if len(many)
                else ""
            )
        )
    return notes
