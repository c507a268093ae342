"""Parsers of sysstat's CSV and text forms (``sadf -d``, ``sadf -dh``, ``sar``; ``sadf
-j`` is in :mod:`vsizer.series._sysstat_json`), feeding a :class:`~vsizer.series._sysstat_collect.Collector`.

Private to :mod:`vsizer.series.sysstat`, which documents the forms. Each parser
walks the text once, reads times, recognizes activities through
``col.activity`` and hands every row of a recognized activity to ``col.feed``;
problems go to ``col.bad`` with the line (or JSON path) they were found at.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from vsizer.series._native import plural, zone_offset
from vsizer.series._sysstat_collect import Collector
from vsizer.series._sysstat_dates import BANNER_DATE, banner_date
from vsizer.series._sysstat_fields import is_numeric

__all__ = [
    "BANNER_RE",
    "banner_date",
    "parse_sadf_csv",
    "parse_sar_text",
    "roll",
    "StampCache",
    "sadf_stamp",
    "sadf_time",
]

#: The first line of ``sar`` text: ``Linux <release> (<host>) <date> _<arch>_ (<n> CPU)``.
BANNER_RE = re.compile(
    r"^(?P<os>Linux)\s+(?P<release>\S+)\s+\((?P<host>[^)]*)\)\s+"
    rf"(?P<date>{BANNER_DATE})(?:\s+_(?P<arch>\S+)_)?(?:\s+\((?P<ncpu>\d+)\s+CPU\))?"
)
_TIME_RE = re.compile(r"^(\d{1,2}):(\d{2}):(\d{2})$")
_SADF_TIME_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\s*(\S+))?$"
)
_DECIMAL_RE = re.compile(r"^-?\d+[.,]\d+$")
# Key columns of sysstat activities: a sadf -dh repeating group starts at one.
_GROUP_KEYS = frozenset(
    {
        "CPU",
        "DEV",
        "IFACE",
        "INTR",
        "TTY",
        "FCHOST",
        "FILESYSTEM",
        "BAT",
        "BUS",
        "manufact",
    }
)
_ACTIVITY_NAMES = {
    "cpu": "CPU",
    "mem": "memory",
    "io": "I/O totals",
    "dev": "block devices",
    "net": "network interfaces",
}


# ------------------------------------------------------------------ sadf -d


def parse_sadf_csv(lines: list[str], col: Collector) -> None:
    names: list[str] | None = None
    segments: list[_Segment] | None = None
    activity: str | None = None
    key: str | None = None
    header_line = 0
    stops_noted: set[str] = set()
    time_cache: StampCache = {}
    end = _trailer_start(lines, lambda t: t.count(";") >= 3)
    for n, raw in enumerate(lines, 1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        where = f"{col.label} line {n}"
        if ";" not in line and (n > end or line.startswith("#")):
            col.skip(n, line)  # a comment, or a footer a collection tool appended
            continue
        if line.startswith("#"):
            fields = [f.strip() for f in line.lstrip("#").split(";")]
            if fields[:3] != ["hostname", "interval", "timestamp"] or len(fields) < 4:
                col.bad(where, "a header '# hostname;interval;timestamp;...'", line)
                names = segments = None
                continue
            names, header_line = fields[3:], n
            segments = (
                _dh_segments(names, col) if any("[...]" in f for f in names) else None
            )
            activity, key = col.activity(names)
            continue
        parts = line.split(";")
        if len(parts) < 4:
            col.bad(where, "'hostname;interval;timestamp;...' fields", line)
            continue
        host, interval, stamp, rest = parts[0], parts[1].strip(), parts[2], parts[3:]
        if (
            names is not None
            and segments is None
            and activity is None
            and interval != "-1"
        ):
            col.ignored[_record_label(names)] += 1
            continue
        ts = sadf_stamp(col, where, host, stamp, time_cache)
        if ts is None:
            continue
        if interval == "-1":
            if "RESTART" in rest[0]:
                col.restart(host, ts, rest[0])
            continue  # LINUX-RESTART or a COM comment
        if names is None:
            col.bad(where, "a '# hostname;interval;timestamp;...' header first", line)
            continue
        try:
            col.intervals.add(int(interval))
        except ValueError:
            col.bad(where, "the interval in seconds (an integer)", interval)
            continue
        if segments is not None:
            _dh_row(col, segments, host, ts, rest, where, stops_noted)
            continue
        if activity is None:
            continue  # counted above
        if len(rest) != len(names):
            col.bad(
                where,
                f"{len(names) + 3} fields as in the header on line {header_line} "
                f"(the line has {len(parts)})",
                line,
            )
            continue
        if activity == "cpu" and names[0] == "CPU" and rest[0] not in ("-1", "all"):
            col.cpu_seen(host, ts, rest[0], rest[1:], _idle(names, rest))  # fast path
            continue
        row = dict(zip(names, rest, strict=True))
        col.feed(activity, host, ts, row.get(key) if key else None, row, where)


def _idle(names: list[str], values: list[str]) -> str | None:
    """The %idle field of a per-CPU ``sadf -d`` row, None without one."""
    return values[names.index("%idle")] if "%idle" in names else None


def _trailer_start(lines: list[str], is_data: Callable[[str], bool]) -> int:
    """Number of the last line that *is_data* accepts (1-based; 0 if none): the
    non-blank lines after it are a trailer a collection tool appended."""
    for n in range(len(lines), 0, -1):
        text = lines[n - 1].strip()
        if text and is_data(text):
            return n
    return 0


def _record_label(names: Iterable[str]) -> str:
    shown = list(names)[:3]
    return ";".join(shown)


class _Segment:
    """A run of ``sadf -dh`` header fields: fixed, or a repeating ``[...]`` group."""

    def __init__(self, names: list[str], repeat: bool, col: Collector) -> None:
        self.names = names
        self.repeat = repeat
        self.variable = any(n.endswith("*") for n in names)
        self.activity, self.key = col.activity(names) if repeat else (None, None)


def _dh_segments(names: list[str], col: Collector) -> list[_Segment]:
    segments: list[_Segment] = []
    pending: list[str] = []
    for name in names:
        if not name.endswith("[...]"):
            pending.append(name)
            continue
        pending.append(name[: -len("[...]")])
        start = max(
            (i for i, f in enumerate(pending) if f in _GROUP_KEYS),
            default=0,
        )
        if start:
            segments.append(_Segment(pending[:start], False, col))
        segments.append(_Segment(pending[start:], True, col))
        pending = []
    if pending:
        segments.append(_Segment(pending, False, col))
    return segments


def _dh_row(
    col: Collector,
    segments: list[_Segment],
    host: str,
    ts: datetime,
    values: list[str],
    where: str,
    stops_noted: set[str],
) -> None:
    pos = 0
    for i, seg in enumerate(segments):
        width = len(seg.names)
        if not seg.repeat:
            chunk = values[pos : pos + width]
            if len(chunk) < width:
                col.bad(
                    where,
                    f"at least {pos + width + 3} fields for the header "
                    f"(the line has {len(values) + 3})",
                    ";".join(values),
                )
                return
            row = dict(zip(seg.names, chunk, strict=True))
            for activity in _fixed_activities(seg.names):
                col.feed(activity, host, ts, None, row, where)
            pos += width
            continue
        count = _dh_repeats(seg, segments[i + 1 :], values, pos)
        if count is None:
            later = {s.activity for s in segments[i:] if s.activity} | {
                a
                for s in segments[i:]
                if not s.repeat
                for a in _fixed_activities(s.names)
            }
            if later and seg.names[0] not in stops_noted:
                stops_noted.add(seg.names[0])
                col.notes.append(
                    f"{col.label}: sadf -dh does not write how often the group "
                    f"'{seg.names[0]}' repeats, so the "
                    f"{', '.join(_ACTIVITY_NAMES[a] for a in sorted(later))} behind it "
                    "could not be read; use sadf -d for those."
                )
            return
        for _ in range(count):
            row = dict(zip(seg.names, values[pos : pos + width], strict=True))
            if seg.activity is not None and seg.key is not None:
                col.feed(seg.activity, host, ts, row[seg.key], row, where)
            pos += width


def _fixed_activities(names: list[str]) -> list[str]:
    present = set(names)
    out = []
    if present & {"kbmemused", "%memused"}:
        out.append("mem")
    if "tps" in present and "bread/s" in present:
        out.append("io")
    return out


def _dh_repeats(
    seg: _Segment, after: list[_Segment], values: list[str], pos: int
) -> int | None:
    """How often a repeating group occurs at ``pos``, or None if it cannot be told."""
    width = len(seg.names)
    if seg.variable:
        return None
    if seg.key == "CPU":
        # CPU numbers ascend from -1 (all) and sysstat prints percentages as
        # decimals, so a rep ends where either stops being true.
        count, last = 0, -2
        while pos + (count + 1) * width <= len(values):
            rep = values[pos + count * width : pos + (count + 1) * width]
            key = rep[0].strip()
            number = -1 if key == "all" else _as_int(key)
            if number is None or number <= last:
                break
            if not all(_DECIMAL_RE.match(v.strip()) for v in rep[1:]):
                break
            last, count = number, count + 1
        return count
    if any(s.repeat for s in after):
        return None
    fixed_after = sum(len(s.names) for s in after)
    room = len(values) - pos - fixed_after
    if room < 0 or room % width:
        return None
    return room // width


def _as_int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def sadf_time(stamp: str) -> tuple[datetime, timedelta | None] | None:
    """(naive time, UTC offset or None) of a sadf timestamp, None if unreadable."""
    text = stamp.strip()
    if text.isdigit():  # sadf -U: seconds since the epoch
        if len(text) > 12:  # past year 33658: no sar timestamp (and int() limits)
            return None
        try:
            return datetime(1970, 1, 1) + timedelta(seconds=int(text)), timedelta(0)
        except OverflowError:
            return None
    m = _SADF_TIME_RE.match(text)
    if not m:
        return None
    try:
        y, mo, d, h, mi, sec = (int(g) for g in m.groups()[:6])
        local = datetime(y, mo, d, h, mi, sec)
    except ValueError:
        return None
    zone = m.group(7)
    return local, (None if zone is None else zone_offset(zone))


_sadf_time = sadf_time  # the name tests/test_fuzz_findings.py imports

#: sadf timestamps parsed, by their text (a file repeats each one per device).
StampCache = dict[str, tuple[datetime, timedelta | None] | None]


def sadf_stamp(
    col: Collector, where: str, host: str, stamp: str, cache: StampCache
) -> datetime | None:
    """The UTC time of a sadf record of ``host`` (each distinct ``stamp`` parsed
    once, kept in ``cache``), the host noted; None, the cell reported as bad at
    ``where``, when the stamp cannot be read."""
    if stamp not in cache:
        cache[stamp] = sadf_time(stamp)
    parsed = cache[stamp]
    if parsed is None:
        col.bad(where, "a time such as '2019-04-18 13:20:19 UTC'", stamp)
        return None
    col.host(host)
    return col.utc(parsed[0], parsed[1], host)


# ----------------------------------------------------------------- sar text

_CUT_TIME_RE = re.compile(r"^\d{1,2}:\d")  # a row cut short after the last one
_SUMMARY_RE = re.compile(r"^[^\d\s][^:]*:$")  # Average: Summary: Média: ...
# A translated label of more words or another colon (sysstat nls/*.po): fr
# 'Moyenne :', vi 'Trung bình:', zh_TW '平均時間：'.
_LABEL_RE = re.compile(r"^([^\d\s:：][^\d:：]{0,30}?)\s?[:：](?=\s|$)")
# The first line of sar on other Unix systems: SunOS host 5.10 Generic_... sun4v
# 11/05/15; AIX host 1 7 00F84C0C4C00 11/05/15; HP-UX host B.11.31 U ia64 11/05/15
_UNIX_SAR_RE = re.compile(r"^(SunOS|AIX|HP-UX)\s+\S+\s+\S+.*\d{2}/\d{2}/\d{2}")


@dataclass
class _SarState:
    """Where the walk through ``sar`` text is: banner, table and boot segment."""

    host: str | None = None
    day: date | None = None
    names: list[str] | None = None  # the current table's header
    activity: str | None = None
    key: str | None = None
    prev: datetime | None = None  # last time of the current table
    segment: datetime | None = None  # start of the current boot segment
    header_line: int = 0
    # rows without a header since the last header or blank line: where and text
    # of the first, and how many (reported once per run, not once per row)
    headless: list[tuple[str, str]] = field(default_factory=list)
    day_first: str = ""  # what shows a non-English locale (dates day first)

    def midnight(self) -> datetime:
        assert self.day is not None
        return datetime.combine(self.day, datetime.min.time())


#: A time of day as sar prints it under a CJK locale (the locale's ``%X``, glibc
#: localedata t_fmt): ja_JP ``18時25分47秒``, zh_CN ``22时27分50秒``, ko_KR
#: ``21시 47분 24초``; read as ``HH:MM:SS``.
_LOCAL_CLOCK_RE = re.compile(
    r"^(\s*)(\d{1,2})\s*[時时시]\s*(\d{2})\s*[分분]\s*(\d{2})\s*[秒초](?=\s|$)"
)


def _local_clock(line: str) -> str:
    return _LOCAL_CLOCK_RE.sub(r"\1\2:\3:\4", line, count=1)


def parse_sar_text(lines: list[str], col: Collector) -> None:
    """Feed the tables of ``sar`` text to *col*, line by line."""
    lines = [_local_clock(line) for line in lines]
    st = _SarState(day_first=_locale_hint(lines))
    end = _trailer_start(lines, _sar_line)
    for n, raw in enumerate(lines, 1):
        text = raw.strip()
        where = f"{col.label} line {n}"
        if not text:
            _headless(st, col)
            st.names, st.prev = None, None
            continue
        if text.startswith("#") or (n > end and not _CUT_TIME_RE.match(text)):
            col.skip(n, text)  # a comment, or a footer after the last table
            continue
        banner = BANNER_RE.match(text)
        if banner and not _TIME_RE.match(text.split()[0]):
            _headless(st, col)
            _sar_banner(banner, st, col, where)
            continue
        tokens = text.split()
        if _summary(text, st.names):
            continue  # Average:, Summary: (and their translations)
        if _UNIX_SAR_RE.match(text):
            col.bad(where, "a Linux banner (sar of SunOS, AIX, HP-UX is not read)", text)
            continue
        if not (text[0].isdigit() or tokens[0] == "Linux") and not any(
            _numeric(t) for t in tokens
        ):
            # every line of sar but its banner and summaries starts with a time;
            # text without a number is a wrapper script's title or message
            col.skip(n, text, foreign=True)
            continue
        timed = _sar_clock(tokens, text, st, col, where)
        if timed is None:
            continue
        clock, rest = timed
        if "RESTART" in rest and "LINUX" in rest:
            local = roll(st.prev or st.segment or st.midnight(), clock)
            col.restart(st.host or "", col.utc(local, None, st.host or ""), " ".join(rest))
            st.segment, st.names, st.prev = local, None, None
        elif rest and rest[0] == "COM":
            continue
        elif not rest or not any(is_numeric(t) for t in rest):  # sar -h: 1.4G
            _headless(st, col)
            st.names, st.header_line = rest, n
            st.activity, st.key = col.activity(rest)
            if st.segment is None:
                st.segment = st.midnight() + clock
            st.prev = roll(st.segment, clock)
        else:
            _sar_row(rest, clock, text, st, col, where)
    _headless(st, col)


_DECIMAL_COMMA_RE = re.compile(r"\s-?\d+,\d\d(?:\s|$)")
#: sar's 'Average:' in the translations of sysstat (nls/*.po, 12.7): a file
#: with one of them was printed in a non-English locale.
_TRANSLATED_AVERAGES = frozenset(
    {
        "Batezbestekoa:", "Durchschn.:", "Gemiddeld:", "Gemideld:", "Genomsnitt:",
        "Gj.snitt:", "Keskiarvo:", "Media:", "Medie:", "Medja:", "Meznombro:",
        "Middel:", "Moyenne :", "Média:", "Ortalama:", "Priemer:", "Prosjek:",
        "Průměr:", "Rata-rata:", "Trung bình:", "Vidēji:", "Átlag:", "Średnia:",
        "Орточо:", "Просек:", "Середнє:", "Среднее:", "Сярэдняе:", "საშუალო:",
        "平均値:", "平均时间:", "平均時間：", "평균:",
    }
)  # fmt: skip


def _summary(text: str, names: list[str] | None) -> str:
    """The label of a summary line, or '': one word ending in ':' (Average:,
    Média:), or a label of up to three words before ':' or '：' on a line with
    as many fields as the current table's header."""
    first = text.split(maxsplit=1)[0]
    if _SUMMARY_RE.match(first):
        return first
    m = _LABEL_RE.match(text)
    if m is None or names is None or len(m.group(1).split()) > 3:
        return ""
    return m.group(0) if len(text[m.end() :].split()) == len(names) else ""


def _locale_hint(lines: list[str]) -> str:
    """What shows the file was printed in a non-English locale, or ''."""
    for line in lines:
        first = line.split(maxsplit=1)[0] if line.strip() else ""
        label = _SUMMARY_RE.match(first) or _LABEL_RE.match(line.strip())
        if label and label.group(0) in _TRANSLATED_AVERAGES:
            return f"the summary '{label.group(0)}'"
        if first[:1].isdigit() and _DECIMAL_COMMA_RE.search(line):
            return "a decimal comma"
    return ""


def _headless(st: _SarState, col: Collector) -> None:
    """Report a run of rows without a table header once, with its length."""
    if st.headless:
        where, text = st.headless[0]
        col.bad(
            where,
            "a table header before the rows (a time, then column names such as "
            f"'CPU %user ... %idle'); {plural(len(st.headless), 'row')} from here "
            "on without one, not read (give sar's whole output)",
            text,
        )
        st.headless = []


def _sar_line(text: str) -> bool:
    """Whether a line is sar's own: a banner, a timed line or a summary line."""
    first = text.split()[0]
    return bool(
        BANNER_RE.match(text) or _TIME_RE.match(first) or _SUMMARY_RE.match(first)
        or _LABEL_RE.match(text)
    )


def _sar_banner(banner: re.Match[str], st: _SarState, col: Collector, where: str) -> None:
    """A ``Linux <release> (<host>) <date> ...`` line: a new host and day."""
    host = banner.group("host")
    col.host(host)
    col.release[host] = banner.group("release")
    if banner.group("ncpu"):
        col.cpu_count[host] = int(banner.group("ncpu"))
    st.host = host
    st.day = banner_date(banner.group("date"), col, host, where, st.day_first)
    st.names, st.prev, st.segment = None, None, None


def _sar_clock(
    tokens: list[str], text: str, st: _SarState, col: Collector, where: str
) -> tuple[timedelta, list[str]] | None:
    """The time of day a line starts with and the tokens after it (None: reported)."""
    m = _TIME_RE.match(tokens[0])
    if not m:
        col.bad(
            where,
            "a time (HH:MM:SS) at the start of the line, 'Average:' or a "
            "'Linux ...' banner",
            tokens[0],
        )
        return None
    if st.host is None or st.day is None:
        col.bad(where, "the banner 'Linux <release> (<host>) <date> ...' first", text)
        st.host, st.day = "", date(1970, 1, 1)  # reported once; keep checking rows
    hour, minute, second = (int(g) for g in m.groups())
    rest = tokens[1:]
    if rest and rest[0].upper() in ("AM", "PM"):
        hour = hour % 12 + (12 if rest[0].upper() == "PM" else 0)
        rest = rest[1:]
    if hour > 23 or minute > 59 or second > 60:
        col.bad(where, "a time of day", tokens[0])
        return None
    return timedelta(hours=hour, minutes=minute, seconds=min(second, 59)), rest


def _sar_row(
    rest: list[str],
    clock: timedelta,
    text: str,
    st: _SarState,
    col: Collector,
    where: str,
) -> None:
    """A data row of the current table, fed to *col* when its activity is read."""
    if st.names is None:
        st.headless.append((where, text))  # reported once per run (_headless)
        return
    local = roll(st.prev or st.segment or st.midnight(), clock)
    st.prev = local
    if st.activity is None:
        col.ignored[_record_label(st.names)] += 1
        return
    if len(rest) != len(st.names):
        col.bad(
            where,
            f"{len(st.names) + 1} columns as in the header on line {st.header_line} "
            f"(the line has {len(rest) + 1})",
            text,
        )
        return
    row = dict(zip(st.names, rest, strict=True))
    host = st.host or ""
    col.feed(
        st.activity,
        host,
        col.utc(local, None, host),
        row.get(st.key) if st.key else None,
        row,
        where,
    )


def _numeric(token: str) -> bool:
    try:
        float(token.replace(",", "."))
    except ValueError:
        return False
    return True


def roll(ref: datetime, clock: timedelta) -> datetime:
    """The first time of day ``clock`` not more than 12 h before ``ref``."""
    candidate = datetime.combine(ref.date(), datetime.min.time()) + clock
    if candidate < ref - timedelta(hours=12):
        candidate += timedelta(days=1)
    return candidate
