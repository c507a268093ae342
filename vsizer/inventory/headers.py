"""Header vocabulary of server-list tables: which column means which canonical field.

:data:`VARIABLE_MAP` lists, per canonical name (``docs/nomenclature.md``), the
headers accepted for it, English and Japanese. Matching is forgiving about
form, not about meaning: headers are NFKC-normalized (full-width letters and
brackets become ASCII), case-folded, and stripped of whitespace and
underscores, so ``CPU 平均使用率(%)``, ``CPU平均使用率（％）`` and
``cpu avg pct`` all find their field. A trailing unit in brackets, ``(MB)``,
``[GiB]``, ``(%)``, or as a last word (``Memory GB``), is split off and used to
convert the column (:mod:`vsizer.units`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from vsizer.catalogs.model import UNSTATED_BASIS
from vsizer.inventory._io import Grid
from vsizer.units import canonical_unit, is_blank, normalize_text, unit_kind

__all__ = [
    "DERIVED_HEADERS",
    "HEADER_SCAN_ROWS",
    "IMPLICIT_UNITS",
    "SCORE_BASIS",
    "VARIABLE_MAP",
    "HeaderMatch",
    "combine_header_rows",
    "comment_row",
    "find_header",
    "header_cells",
    "header_choice",
    "header_key",
    "header_score",
    "looks_like_size",
    "match_header",
]

#: Canonical name -> accepted headers (English and Japanese). Order matters
#: only for messages; the first entry is the canonical name itself.
VARIABLE_MAP: dict[str, list[str]] = {
    "name": [
        "name", "server name", "server", "hostname", "host name", "vm name",
        "サーバ名", "サーバー名", "ホスト名", "サーバ", "サーバー", "マシン名",
    ],
    "model": [
        "model", "server model", "機種名", "機種", "型名", "モデル", "製品名",
    ],
    "cpu_name": [
        "cpu_name", "cpu name", "cpu", "cpu model", "processor", "processors", "CPU名",
        "CPU型名", "CPU種類", "プロセッサ", "プロセッサ名",
    ],
    "sockets": [
        "sockets", "cpu sockets", "socket count", "CPU数", "ソケット数",
        "CPUソケット数", "物理CPU数", "CPU.NumberOfProcessors",
    ],
    "cores_per_socket": [
        "cores_per_socket", "cores per socket", "cores per cpu", "cores/cpu",
        "コア数/CPU", "CPUあたりコア数", "コア数/ソケット", "1CPUあたりのコア数",
        # vSphere's numCoresPerSocket; Ansible vmware_guest lists name it num_cpu_cores
        "num cores per socket", "num cpu cores", "num cpu cores per socket",
    ],
    "vcpus": [
        "vcpus", "vcpu", "vcpu count", "num vcpus", "vCPU数", "仮想CPU数",
        "割当vCPU数",
        # a VM's CPU count: RVTools vInfo "CPUs", vSphere's numCPU, Ansible's num_cpus
        "cpus", "num cpus", "numcpu", "number of cpus",
        # Hyper-V's ProcessorCount (Get-VM), its virtual processors
        "processorcount", "virtual processors",
    ],
    "cpu_score_per_core": [
        "cpu_score_per_core", "cpu score per core", "CPU性能/コア",
        "SPEC CPU2000", "SPECint2000", "SPECint2000/コア", "SPECrate2017",
        "SPECrate2017/コア", "SPECrate2017/core", "SPECrate2017_int_base/core",
        "SPEC CPU2017", "SPEC CPU2006", "SPECint_rate2006", "SPECint_rate_base2006",
        "SPECint_rate2006/コア",
    ],
    "cpu_score_basis": [
        "cpu_score_basis", "score basis", "benchmark", "スコア基準", "ベンチマーク",
    ],
    "cpu_mhz": [
        "cpu_mhz", "cpu mhz", "clock", "cpu clock", "cpu speed", "clock speed",
        "クロック", "CPUクロック", "クロック数", "CPUクロック数", "動作周波数",
        "周波数",
    ],
    "cpu_avg_util": [
        "cpu_avg_util", "cpu_avg_pct", "cpu avg", "avg cpu", "average cpu",
        "cpu average", "cpu avg util", "CPU 平均使用率", "平均CPU使用率",
        "CPU使用率(平均)", "CPU使用率平均", "CPU平均", "CPU.UsagePct.Avg",
    ],
    "cpu_peak_util": [
        "cpu_peak_util", "cpu_peak_pct", "cpu peak", "peak cpu", "cpu max",
        "max cpu", "CPU 最高使用率", "CPU最大使用率", "最大CPU使用率",
        "最高CPU使用率", "CPU使用率(最大)", "CPU使用率(最高)", "CPUピーク使用率",
        "CPU最高", "CPU最大", "CPU.UsagePct.Max",
    ],
    "mem_gib": [
        "mem_gib", "memory", "mem", "memory size", "ram", "メモリ", "メモリ容量",
        "搭載メモリ", "メモリサイズ", "実装メモリ", "メモリ搭載量", "メモリ量",
        "メモリー", "メモリー容量", "MEM容量", "RAM.TotalSizeInMB",
    ],
    "mem_used_gib": [
        "mem_used_gib", "memory used", "used memory", "mem used", "memory usage",
        "memory utilization", "メモリ使用量", "使用メモリ", "メモリ使用容量",
        "メモリ使用率",
    ],
    "disk_gib": [
        "disk_gib", "disk", "disk capacity", "disk size", "storage",
        "ディスク", "ディスク容量", "ディスクサイズ", "HDD容量", "ストレージ容量",
        # storage: provisioned space, as RVTools vInfo / vSphere name it
        "provisioned", "provisioned space", "provisioned storage", "disk provisioned",
        "プロビジョニング容量", "プロビジョニング済み容量", "ディスク割当容量",
    ],
    "disk_used_gib": [
        "disk_used_gib", "disk used", "used disk", "disk usage", "ディスク使用量",
        "ディスク使用容量", "使用ディスク容量", "ディスク使用率",
        # storage: used space, as vSphere names it
        "used space", "used storage", "storage used", "disk in use",
        "使用済み容量", "使用済みディスク容量", "ディスク使用済み容量",
    ],
    "disk_iops": [
        "disk_iops", "iops", "disk iops", "ディスクIOPS", "ディスクI/O",
        "ディスクIO",
    ],
    "disk_mb_s": [
        "disk_mb_s", "disk throughput", "disk mb/s", "ディスク転送量",
        "ディスクスループット", "ディスク転送速度",
    ],
    "net_mbps": [
        "net_mbps", "network", "network throughput", "net", "network mbps",
        "ネットワーク", "ネットワーク使用量", "ネットワーク転送量", "NW使用量",
        "ネットワーク帯域", "通信量",
    ],
    "power_w": [
        "power_w", "power", "power draw", "watts", "消費電力", "平均消費電力",
        "電力",
    ],
    "rack_u": [
        "rack_u", "rack units", "rack u", "ラックU", "占有U", "ラック占有U",
    ],
    "rank": [
        "rank", "importance", "importance rank", "priority", "重要度ランク",
        "重要度", "ランク", "優先度",
    ],
    "load_rank": ["load_rank", "load rank", "負荷ランク", "負荷"],
    "group": [
        "group", "system", "system name", "システム", "システム名", "グループ",
        "業務", "業務名", "業務システム",
    ],
    "pool": ["pool", "resource pool", "プール", "リソースプール"],
    "redundant_with": [
        "redundant_with", "redundant with", "redundancy", "redundant pair",
        "pair", "冗長相手", "冗長構成", "ペア", "冗長ペア",
    ],
    "migrate": [
        "migrate", "migration", "移行", "移行対象", "移行有無", "移行可否",
    ],
    "pin_host": ["pin_host", "pinned host", "固定ホスト", "配置ホスト"],
    "os": ["os", "operating system", "OS名", "オペレーティングシステム", "OS.Name"],
}

#: Benchmark a score header is in; score headers not listed are
#: :data:`~vsizer.catalogs.model.UNSTATED_BASIS`.
SCORE_BASIS: dict[str, str] = {
    "SPEC CPU2000": "SPECint2000",
    "SPECint2000": "SPECint2000",
    "SPECint2000/コア": "SPECint2000",
    "SPEC CPU2006": "SPECint_rate2006",
    "SPECint_rate2006": "SPECint_rate2006",
    "SPECint_rate_base2006": "SPECint_rate2006",
    "SPECint_rate2006/コア": "SPECint_rate2006",
    "SPECrate2017": "SPECrate2017_int_base",
    "SPECrate2017/コア": "SPECrate2017_int_base",
    "SPECrate2017/core": "SPECrate2017_int_base",
    "SPECrate2017_int_base/core": "SPECrate2017_int_base",
    "SPEC CPU2017": "SPECrate2017_int_base",
}

#: Unit implied by a header itself (``mem_gib`` is in GiB, ``cpu_avg_pct`` in %).
IMPLICIT_UNITS: dict[str, str] = {
    "mem_gib": "GiB",
    "mem_used_gib": "GiB",
    "disk_gib": "GiB",
    "disk_used_gib": "GiB",
    "cpu_avg_pct": "%",
    "cpu_peak_pct": "%",
    "cpu_avg_util": "fraction",
    "cpu_peak_util": "fraction",
    "memory utilization": "%",
    "memory usage": "%",
    "メモリ使用率": "%",
    "disk usage": "%",
    "ディスク使用率": "%",
    "cpu_mhz": "MHz",
    "cpu mhz": "MHz",
    # AWS Application Discovery Service import template (discovery-import.html)
    "ram.totalsizeinmb": "MB",
    "cpu.usagepct.avg": "%",
    "cpu.usagepct.max": "%",
    "net_mbps": "Mbit/s",
    "network mbps": "Mbit/s",
    "disk_mb_s": "MB/s",
    "disk mb/s": "MB/s",
    "power_w": "W",
    "iops": "count",
    "disk_iops": "count",
}

#: Columns that are computed from other columns in the sheet (ignored, or used
#: only to cross-check): header -> what it is.
DERIVED_HEADERS: dict[str, str] = {
    "CPU性能": "cpu_capacity",
    "cpu_capacity": "cpu_capacity",
    "cpu capacity": "cpu_capacity",
    "CPU性能×CPU平均": "cpu_avg_demand",
    "CPU性能×CPU最高": "cpu_peak_demand",
    "CPU性能×CPU最大": "cpu_peak_demand",
    "cpu_avg_demand": "cpu_avg_demand",
    "cpu_peak_demand": "cpu_peak_demand",
}

#: Unit kinds each field accepts (see :func:`vsizer.units.unit_kind`).
FIELD_UNIT_KINDS: dict[str, tuple[str, ...]] = {
    "mem_gib": ("size",),
    "mem_used_gib": ("size", "ratio"),
    "disk_gib": ("size",),
    "disk_used_gib": ("size", "ratio"),
    "cpu_avg_util": ("ratio",),
    "cpu_peak_util": ("ratio",),
    "cpu_mhz": ("clock",),
    "net_mbps": ("rate",),
    "disk_mb_s": ("rate",),
    "power_w": ("power",),
    "rack_u": ("count",),
    "disk_iops": ("count",),
    "sockets": ("count",),
    "cores_per_socket": ("count",),
    "vcpus": ("count",),
    "cpu_score_per_core": ("count",),
}

#: How many non-empty rows from the top are searched for the header row.
HEADER_SCAN_ROWS = 10

_TRAILING_BRACKET = re.compile(r"^(?P<base>.*?)\s*[(\[](?P<inner>[^()\[\]]*)[)\]]\s*$")


def header_key(header: object) -> str:
    """Matching key of a header: NFKC, casefold, no whitespace or underscores."""
    text = normalize_text(header).casefold()
    return re.sub(r"[\s_]+", "", text)


def _build_index() -> dict[str, tuple[str, str]]:
    index: dict[str, tuple[str, str]] = {}
    for canonical, headers in VARIABLE_MAP.items():
        for h in headers:
            key = header_key(h)
            if key in index and index[key][0] != canonical:
                raise RuntimeError(f"header {h!r} maps to two fields")
            index[key] = (canonical, h)
    return index


_INDEX = _build_index()
_DERIVED_INDEX = {header_key(h): v for h, v in DERIVED_HEADERS.items()}
_SCORE_INDEX = {header_key(h): b for h, b in SCORE_BASIS.items()}
_IMPLICIT_INDEX = {header_key(h): u for h, u in IMPLICIT_UNITS.items()}


@dataclass(frozen=True)
class HeaderMatch:
    """What a header in a file means.

    Attributes
    ----------
    header : str
        The header as written in the file.
    field : str or None
        Canonical name, or ``None`` when unmapped or derived.
    unit : str or None
        Canonical unit from the header (bracket, last word or implicit).
    unit_stated : bool
        True when the unit was written in the header (not implied by the name).
    basis : str or None
        Score basis, for ``cpu_score_per_core`` only.
    derived : str or None
        For a computed column (``CPU性能 (CPU数×コア数×SPEC CPU)``): what it is.
    """

    header: str
    field: str | None
    unit: str | None = None
    unit_stated: bool = False
    basis: str | None = None
    derived: str | None = None


def _unit_or_none(text: str) -> str | None:
    try:
        return canonical_unit(text)
    except ValueError:
        return None


def _fits(field: str, unit: str | None) -> bool:
    if unit is None:
        return True
    return unit_kind(unit) in FIELD_UNIT_KINDS.get(field, ())


def _resolve(
    key: str, header: str, unit: str | None, stated: bool
) -> HeaderMatch | None:
    if key in _DERIVED_INDEX:
        return HeaderMatch(header, None, derived=_DERIVED_INDEX[key])
    if key not in _INDEX:
        return None
    field, _ = _INDEX[key]
    if unit is None and key in _IMPLICIT_INDEX:
        unit, stated = _IMPLICIT_INDEX[key], False
    if not _fits(field, unit):
        return None
    basis = None
    if field == "cpu_score_per_core":
        basis = _SCORE_INDEX.get(key, UNSTATED_BASIS)
    return HeaderMatch(header, field, unit, stated and unit is not None, basis)


def match_header(header: object) -> HeaderMatch:
    """Interpret one header cell.

    Tries, in order: the whole header; the header without a trailing bracket
    (whose content, if a unit, becomes the column unit); the header without a
    trailing unit word or ``%``. Any header containing ``×`` is a derived
    column. Unknown headers come back with ``field=None, derived=None``.

    Examples
    --------
    >>> match_header("メモリ(MB)").field, match_header("メモリ(MB)").unit
    ('mem_gib', 'MB')
    >>> match_header("SPEC CPU2000").basis
    'SPECint2000'
    """
    raw = normalize_text(header)
    key = header_key(raw)
    found = _resolve(key, raw, None, False)
    if found is not None:
        return found
    m = _TRAILING_BRACKET.match(raw)
    if m:
        unit = _unit_or_none(m.group("inner"))
        found = _resolve(header_key(m.group("base")), raw, unit, unit is not None)
        if found is not None:
            return found
    # a trailing unit after a space, or after "_" / "-" as in memory_gib, ram-mb
    m2 = re.match(r"^(?P<base>.*?)\s*(?P<unit>%|[\s_-][^\s_-]+)$", raw)
    if m2 and m2.group("base"):
        unit = _unit_or_none(m2.group("unit").lstrip("_-"))
        if unit is not None:
            found = _resolve(header_key(m2.group("base")), raw, unit, True)
            if found is not None:
                return found
    found = _glued(raw)
    if found is not None:
        return found
    if "×" in raw or "*" in raw.strip("*"):
        return HeaderMatch(raw, None, derived="formula")
    return HeaderMatch(raw, None)


# A size unit written against the word, before or after it: memoryGB, mbmem, gbdisk.
_GLUED_UNIT = re.compile(
    r"^(?:(?P<pre>[kmgt]i?b)(?P<after>[^\W\d_].*)|(?P<before>.*[^\W\d_])(?P<post>[kmgt]i?b))$"
)


def _glued(raw: str) -> HeaderMatch | None:
    """A header whose size unit is glued to its word (``memoryGB``, ``mbmem``,
    ``gbdisk``), or a header commented out by a leading ``#`` (``# name``, as
    ``numpy.savetxt`` and shell-style CSV files write the header line)."""
    if raw.startswith("#") and raw.lstrip("#").strip():
        found = match_header(raw.lstrip("#").strip())
        if found.field is not None or found.derived is not None:
            return HeaderMatch(raw, found.field, found.unit, found.unit_stated,
                               found.basis, found.derived)
        return None
    m = _GLUED_UNIT.match(header_key(raw))
    if m is None:
        return None
    unit = _unit_or_none(m.group("pre") or m.group("post"))
    base = m.group("after") or m.group("before")
    glued = _resolve(base, raw, unit, True)
    if glued is None or glued.field not in ("mem_gib", "mem_used_gib", "disk_gib",
                                            "disk_used_gib"):
        return None
    return glued


def accepted_headers(field: str) -> str:
    """Comma-separated accepted headers of ``field``, for error messages."""
    return ", ".join(VARIABLE_MAP[field])


def header_score(cells: list[object]) -> int:
    """Number of distinct fields a header row's cells are recognized as."""
    fields = {match_header(c).field for c in cells if isinstance(c, str)}
    return len(fields - {None})


def _known(text: str) -> bool:
    m = match_header(text)
    return m.field is not None or m.derived is not None


def _joined(group: str, sub: str) -> str | None:
    """Group + sub-header as one known header, or None. Tried in order:
    ``'メモリ'`` + ``'容量(GB)'`` -> ``'メモリ 容量(GB)'``; a unit in brackets on
    the group moves to the end (``'CPU使用率(%)'`` over ``'平均'`` ->
    ``'CPU使用率 平均(%)'``); the sub-header in brackets (``'CPU使用率(最大)(%)'``)."""
    base, unit = group, ""
    m = _TRAILING_BRACKET.match(group)
    if m and _unit_or_none(m.group("inner")) and not _TRAILING_BRACKET.match(sub):
        base, unit = m.group("base"), f"({m.group('inner')})"
    for text in (f"{base} {sub}{unit}", f"{group} {sub}"):
        if _known(text):
            return text
    # The bracketed form only as a whole alias: 'name(web01)' is not 'name'.
    if header_key(f"{base}({sub})") in _INDEX:
        return f"{base}({sub}){unit}"
    return None


def combine_header_rows(group: list[object], sub: list[object]) -> list[object]:
    """One header row from a two-row header: a group row above the field row.

    A merged group cell (``CPU`` over ``CPU名 / CPU数 / ...``) holds its value
    in its first column and nothing in the others (XLSX) or blanks (CSV), so
    the group value is carried right to the next group cell. Per column:

    - the sub-header when it alone is a known header (``CPU名``);
    - else group + sub-header when that is known (``メモリ`` + ``容量(GB)`` ->
      ``メモリ 容量(GB)``, read as ``mem_gib`` in GB);
    - else the sub-header as written (unknown);
    - a blank sub-header takes its own group cell (a header merged over both
      rows, such as ``サーバ名``), never a carried one.
    """
    out: list[object] = []
    carried = ""
    for k in range(max(len(group), len(sub))):
        own = normalize_text(group[k]) if k < len(group) else ""
        if own:
            carried = own
        s = normalize_text(sub[k]) if k < len(sub) else ""
        if not s:
            out.append(own or None)
        elif _known(s) or not carried:
            out.append(s)
        else:
            out.append(_joined(carried, s) or s)
    return out


def header_cells(grid: Grid, at: int) -> tuple[list[Any], int | None]:
    """Header of ``grid[at]``, combined with the row above when that is a group row.

    The row just above (the previous spreadsheet row, not blank) is taken as a
    group row (``CPU`` merged over ``CPU名 / CPU数``, ``メモリ`` over
    ``容量(GB)``) when combining the two
    (:func:`~vsizer.inventory.headers.combine_header_rows`) recognizes more
    fields than ``grid[at]`` alone. Returns the header cells and the group
    row's spreadsheet number (``None`` for a one-row header).
    """
    row, cells = grid[at]
    if at == 0:
        return cells, None
    above_row, above = grid[at - 1]
    if above_row != row - 1 or all(is_blank(c) for c in above):
        return cells, None
    combined = combine_header_rows(above, cells)
    if header_score(combined) > header_score(cells):
        return combined, above_row
    return cells, None


def header_choice(
    row: int, group_row: int | None, cells: list[Any], scan_rows: int
) -> str:
    """Which row was taken as the header and what it holds, for the error."""
    shown = [f"'{normalize_text(c)}'" for c in cells if not is_blank(c)]
    more = f" and {len(shown) - 12} more" if len(shown) > 12 else ""
    which = (
        f"rows {group_row}-{row} were taken as a two-row header (group row above "
        "the field row)"
        if group_row is not None
        else f"row {row} was taken as the header"
    )
    n = header_score(cells)
    why = (
        f"it has the most recognized headers ({n}) among the first "
        f"{scan_rows} non-empty rows"
        if n
        else f"no row among the first {scan_rows} non-empty rows has a "
        "recognized header"
    )
    return f"{which} ({why}); found there: " + (
        ", ".join(shown[:12]) + more if shown else "nothing"
    ) + did_you_mean(cells)


def did_you_mean(cells: list[Any]) -> str:
    """'; did you mean: 'cpus' -> 'vcpus', ...' for unrecognized headers close
    to an accepted one (difflib ratio >= 0.75), or ``""``."""
    import difflib

    aliases = {header_key(a): a for names in VARIABLE_MAP.values() for a in names}
    pairs = []
    for c in cells:
        if is_blank(c) or not isinstance(c, str) or match_header(c).field is not None:
            continue
        close = difflib.get_close_matches(header_key(normalize_text(c)), list(aliases),
                                          n=1, cutoff=0.75)
        if close:
            pairs.append(f"'{normalize_text(c)}' -> '{aliases[close[0]]}'")
    return f"; did you mean: {', '.join(pairs[:5])}" if pairs else ""


def find_header(grid: Grid) -> tuple[int | None, int]:
    """Index in ``grid`` of the header row and its number of recognized fields.

    Looks at the first :data:`HEADER_SCAN_ROWS` non-empty rows and takes the
    one with the most distinct recognized fields (the first on a tie). A row
    read together with the row just above it as a two-row header
    (:func:`header_cells`) scores what the combined header recognizes; the
    index is then that of the lower (field) row. Comment lines (:func:`comment_row`)
    are not counted among those rows.
    """
    best, best_score, seen = None, -1, 0
    for i, (_, cells) in enumerate(grid):
        if all(is_blank(c) for c in cells) or comment_row(cells):
            continue
        seen += 1
        if seen > HEADER_SCAN_ROWS:
            break
        cells, group_row = header_cells(grid, i)
        score = header_score(cells)
        # On a tie, a two-row header beats its own group row read alone.
        if score > best_score or (
            score == best_score and group_row is not None and best == i - 1
        ):
            best, best_score = i, score
    return best, max(best_score, 0)


def comment_row(cells: list[Any]) -> bool:
    """Whether a row is a shell-style comment line: one cell, text starting with
    ``#`` (a block of them can head a CSV that a script reads, as libvirt and
    Ansible VM lists do). A commented header (``# name,cpus,...``) has more
    cells and is no comment line."""
    try:  # most rows hold no '#': said at C speed (a CSV row's cells are texts)
        if "#" not in "".join(cells):
            return False
    except TypeError:  # a sheet's row: numbers, empty cells; its texts at C speed
        if "#" not in "".join([c for c in cells if type(c) is str]):
            return False
    filled = [c for c in cells if not is_blank(c)]
    return (len(filled) == 1 and isinstance(filled[0], str)
            and filled[0].lstrip().startswith("#"))


# "size", "capacity" or a size unit standing alone (disk0.size_gb, Disk D (GB), 容量)
_SIZE_WORDS = re.compile(r"size|capacity|容量|サイズ|(?<![a-z])[kmgt]i?b(?![a-z])")


def looks_like_size(header: object) -> bool:
    """Whether an unknown header names a size (``DdrivesizeGB``,
    ``disk0.size_gb``, ``extra_disk1_size``, ``データ領域容量``): such a column
    not being read is said in a warning, not left silent."""
    text = normalize_text(header).casefold()
    if re.search(r"/s|per sec|throughput|転送", text):  # a rate, not a size
        return False
    return bool(_SIZE_WORDS.search(text))

