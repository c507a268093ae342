"""The date of a ``sar`` banner (or of ``mpstat -o JSON``) in any locale's form.

Private to :mod:`vsizer.series.sysstat`. sysstat writes the banner date with
the locale's ``%x`` (``LC_TIME``), or ISO ``YYYY-MM-DD`` under
``S_TIME_FORMAT=ISO``. The forms of glibc's localedata (``d_fmt``):

* year first: ISO, sv_SE and hu_HU ``%Y-%m-%d``; ja_JP and zh_CN
  ``%Y年%m月%d日``; ko_KR ``%Y년 %m월 %d일`` (with spaces);
* day first with dots or dashes: de_DE, ru_RU, pl_PL, fi_FI ``%d.%m.%Y``, cs_CZ
  ``%-d.%-m.%Y`` (no leading zero), uk_UA ``%d.%m.%y``, nl_NL ``%d-%m-%y``, da_DK
  and tr_TR ``%d-%m-%Y``;
* slashes: C ``%m/%d/%y`` and en_US ``%m/%d/%Y`` month first, but en_GB, fr_FR,
  it_IT, es_ES and pt_BR ``%d/%m/%Y`` (``%y``) day first.

A slashed date that fits both orders is read month first (C locale) unless the
file shows a non-English locale (a decimal comma, or a translated ``Average:``
such as ``Média:``): every such locale with slashes writes the day first. Either
way the reading is a counted ``unit_guess``.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Protocol

__all__ = ["BANNER_DATE", "banner_date"]

#: The date in a banner: one token, or the Korean form with spaces.
BANNER_DATE = r"\d{4}\s*[年년]\s*\d{1,2}\s*[月월]\s*\d{1,2}\s*[日일]|\S+"

_PATTERNS = (
    (re.compile(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})"), "ymd"),
    (re.compile(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일]"), "ymd"),
    (re.compile(r"(\d{1,2})[.-](\d{1,2})[.-](\d{2}|\d{4})"), "dmy"),
    (re.compile(r"(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})"), "slash"),
)


class _Guesses(Protocol):
    guesses: list[tuple[str, str]]

    def bad(self, where: str, expected: str, got: object) -> None: ...


def banner_date(
    text: str, col: _Guesses, host: str, where: str, day_first: str = ""
) -> date:
    """The date of a sar banner; *day_first* names what shows a non-English
    locale (``"a decimal comma"``), empty when nothing does."""
    for pattern, order in _PATTERNS:
        m = pattern.fullmatch(text)
        if not m:
            continue
        a, b, c = (int(g) for g in m.groups())
        if order == "ymd":
            y, mo, d = a, b, c
        elif order == "dmy" or a > 12:
            d, mo, y = a, b, c
        elif day_first and b <= 12:
            d, mo, y = a, b, c
            if a != b:
                col.guesses.append(
                    (host, f"banner date '{text}' read as day/month/year ({day_first} "
                     "shows a non-English locale, which writes the day first)"),
                )  # fmt: skip
        else:
            mo, d, y = a, b, c
            if b <= 12 and a != b:
                col.guesses.append(
                    (host, f"banner date '{text}' read as month/day/year (C locale)")
                )
        if y < 100:
            y += 2000
        try:
            return date(y, mo, d)
        except ValueError:
            break
    col.bad(
        where,
        "a date such as 04/18/19, 2019-04-18, 18.04.2019 or 18-04-2019 in the banner",
        text,
    )
    return date(1970, 1, 1)  # reported; keeps the rows from reporting it again
