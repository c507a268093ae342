"""Benchmark: how fast an over-long server list is refused by the row limit.

A sheet of N rows (default 300,000; 7 columns: name, sockets, cores, clock,
peak %, memory, a note) is read with ``vsizer.read_inventory`` under a row
limit of 100,000 (``--max-rows 100000``; the default, 1,100,000, admits a
million servers), as an .xlsx and as a CSV. Reading
streams rows and stops at the first row past the limit, so the refusal costs
the rows up to the limit, not the whole sheet. The baseline in the same
process is a 1,000-row sheet read in full (a plan). The script prints the
times, the error line, and their ratio; it fails if the long sheet is not
refused.

The .xlsx is written as raw sheet XML (inline strings), so building a
300,000-row workbook takes a second, not the minutes openpyxl would.

Run: ``.venv/bin/python benchmarks/bench_limits.py [--rows N] [--smoke]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from vsizer.errors import InventoryError
from vsizer.inventory import read_inventory
from vsizer.limits import DEFAULT_LIMITS, using

HEADER = ("name", "sockets", "cores_per_socket", "cpu_mhz", "cpu_peak_pct", "mem_gib",
          "notes")

_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" '
    'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    "</Types>"
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
    '2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>'
)
_WORKBOOK = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    '<sheets><sheet name="servers" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
_WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
    '2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'
)


def _rows(n: int) -> list[tuple[object, ...]]:
    return [HEADER] + [
        (f"s{i:06d}", 2, 4, 2400, 40, 16, "web") for i in range(1, n)
    ]


def _xml_row(number: int, values: tuple[object, ...]) -> str:
    cells = "".join(
        f'<c t="inlineStr"><is><t>{v}</t></is></c>' if isinstance(v, str)
        else f"<c><v>{v}</v></c>"
        for v in values
    )
    return f'<row r="{number}">{cells}</row>'


def write_xlsx(path: Path, n: int, dimension: bool = True) -> Path:
    """A one-sheet workbook of ``n`` rows (header included), from raw XML.

    ``dimension=False`` leaves out the optional ``<dimension>`` element.
    """
    body = "".join(_xml_row(i, r) for i, r in enumerate(_rows(n), 1))
    dim = f'<dimension ref="A1:{chr(64 + len(HEADER))}{n}"/>' if dimension else ""
    sheet = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        f"{dim}"
        f"<sheetData>{body}</sheetData></worksheet>"
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _CONTENT_TYPES)
        z.writestr("_rels/.rels", _RELS)
        z.writestr("xl/workbook.xml", _WORKBOOK)
        z.writestr("xl/_rels/workbook.xml.rels", _WORKBOOK_RELS)
        z.writestr("xl/worksheets/sheet1.xml", sheet)
    return path


def write_csv(path: Path, n: int) -> Path:
    """The same ``n`` rows as a CSV."""
    path.write_text(
        "\n".join(",".join(str(v) for v in r) for r in _rows(n)) + "\n",
        encoding="utf-8",
    )
    return path


def timed_read(path: Path) -> tuple[float, str]:
    """Seconds to read (or refuse) *path* and the outcome: servers or the error."""
    start = time.perf_counter()
    try:
        inv = read_inventory(path)
        outcome = f"{len(inv)} servers"
    except InventoryError as exc:
        outcome = f"error: {exc}"
    return time.perf_counter() - start, outcome


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=300_000, help="long sheet (300000)")
    ap.add_argument("--smoke", action="store_true", help="3,000 rows, limit 1,000 (CI)")
    args = ap.parse_args(argv)
    rows, base_rows = (3_000, 200) if args.smoke else (args.rows, 1_000)
    limits = DEFAULT_LIMITS.replace(max_rows=1_000 if args.smoke else 100_000)
    print(f"row limit (--max-rows): {limits.max_rows:,}; long sheet: {rows:,} rows; "
          f"baseline: {base_rows:,} rows read in full")
    with tempfile.TemporaryDirectory(prefix="vsizer-bench-limits-") as tmp, using(
        limits
    ):
        d = Path(tmp)
        for kind, write in (
            ("xlsx", write_xlsx),
            ("xlsx without <dimension>", lambda p, n: write_xlsx(p, n, False)),
            ("csv", write_csv),
        ):
            ext = kind.split()[0]
            long_s, outcome = timed_read(write(d / f"long.{ext}", rows))
            base_s, base_outcome = timed_read(write(d / f"base.{ext}", base_rows))
            if not outcome.startswith("error:") or "--max-rows" not in outcome:
                print(f"error: the long {kind} sheet was not refused: {outcome}",
                      file=sys.stderr)
                return 1
            print(f"{kind}: {rows:,}-row sheet refused in {long_s:6.2f} s; "
                  f"{base_rows:,}-row sheet read in {base_s:6.2f} s ({base_outcome}); "
                  f"ratio {long_s / base_s:.1f}x")
            print(f"  {outcome}")
    print("long sheets refused by the row limit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
