"""Benchmark: reading a large server list saved as XLSX, calamine against openpyxl.

The fleet of ``bench_fleet.py`` (seeded, realistic size mix, five pools) is saved
as an XLSX workbook by openpyxl: names and pools as text, sizes as numbers, the
average CPU in percent as a number and the peak as a fraction in a percent
format (``0.0%``, as spreadsheets often keep it). Then
:func:`vsizer.inventory.read_inventory` reads it twice in this process: as it
does by default, the sheet's values read by python-calamine
(:mod:`vsizer.inventory._xlsx_values`), and with that path switched off, every
cell read by openpyxl (the baseline). Printed per size: CPU seconds of each
(user + system of this process), the ratio, and whether both gave the same
servers (the inventory's table, every column). A ten-row workbook is read
first, untimed (imports).

Run: ``.venv/bin/python benchmarks/bench_xlsx_read.py [--sizes 50000,200000]``;
``--smoke``: 2,000 servers.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fleet import write_xlsx  # noqa: E402


def read_both(path: Path) -> tuple[float, float, bool]:
    """CPU seconds of the default read and of openpyxl's, and whether the two
    inventories hold the same table."""
    from vsizer.inventory import read_inventory

    t0 = time.process_time()
    fast = read_inventory(path)
    t1 = time.process_time()
    with mock.patch("vsizer.inventory._io.sheet_values", lambda ws, percent: None):
        slow = read_inventory(path)
    t2 = time.process_time()
    same = fast.servers.equals(slow.servers)
    return t1 - t0, t2 - t1, same


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="50000,200000",
                    help="server counts, comma-separated (default 50000,200000)")
    ap.add_argument("--smoke", action="store_true", help="2,000 servers")
    args = ap.parse_args(argv)
    sizes = [2000] if args.smoke else [int(s) for s in args.sizes.split(",")]
    print("| servers | xlsx MiB | calamine CPU s | openpyxl CPU s | ratio | same servers |")
    print("|---|---|---|---|---|---|")
    all_same = True
    with tempfile.TemporaryDirectory() as tmp:
        warm, _ = write_xlsx(Path(tmp) / "warm", 10)  # imports, first calls: untimed
        read_both(warm)
        for n in sizes:
            path, _ = write_xlsx(Path(tmp), n)
            fast, slow, same = read_both(path)
            all_same &= same
            mib = path.stat().st_size / 2**20
            print(f"| {n:,} | {mib:.1f} | {fast:.2f} | {slow:.2f} | "
                  f"{slow / fast:.1f} | {same} |", flush=True)
    print(f"xlsx read: same servers by both readers: {all_same}")
    return 0 if all_same else 1


if __name__ == "__main__":
    raise SystemExit(main())
