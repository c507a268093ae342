"""Extract ``scripts/data/cint2006rate_2016.csv`` from a SPEC CINT2006rate listing.

Usage::

    python scripts/extract_cint2006rate_2016.py SPECint/js scripts/data/cint2006rate_2016.csv

The input directory holds the per-vendor data files ``SPECint/js/<vendor>.js``
of github.com/satoshi-s-suzuki/tools (commit b19eb2ad): SPEC's CINT2006rate
results (https://www.spec.org/cgi-bin/osgresults?conf=rint2006), one record per
result with ``test_sponsor, hw_model, base_copies, hw_ncores, hw_nchips,
hw_ncoresperchip, hw_nthreadspercore, basemean, peakmean, htmllink``. Only the
records with a result URL (``htmllink``) are read; ``app.js`` (the same
results without URLs, some fields shifted by commas in vendor names) is
skipped. A result listed under two vendor files is kept once (by URL).

That listing has no processor column: the CPU is taken from the system name
(``PowerEdge R630 (Intel Xeon E5-2630 v3, 2.40 GHz)``) when it names an Intel
Xeon or AMD Opteron model; other results (Core, Pentium, SPARC, POWER, or a
system name without the CPU) are left out. ``cpu_mhz`` is the clock the
system name states, if any. See ``scripts/data/README.md``.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

FIELDS = (
    "processor",
    "hardware_vendor",
    "system",
    "cores_total",
    "chips",
    "cpu_mhz",
    "base_copies",
    "base_result",
    "result_url",
)

_RECORD = re.compile(r"\{([^{}]*)\}")
_FIELD = re.compile(r'(\w+): "([^"]*)"')
_XEON = re.compile(
    r"Xeon(?:\(R\))?\s+(?:(?:CPU|[Pp]rocessor)\s+)?"
    r"(E[357]-\d{4}[A-Z]?(?:\s*[vV]\d)?|[EXLWT]\d{4}[A-Z]?|\d{4}[A-Z]?)\b"
)
_GHZ = re.compile(r"(\d\.\d{1,2})\s?GHz", re.IGNORECASE)
_OPTERON = re.compile(r"Opteron(?:\(tm\))?\s+(?:[Pp]rocessor\s+)?(\d{3,4})\s?(SE|HE|EE)?\b")


def processor(system: str) -> str:
    """The Xeon or Opteron named in a system name, in SPEC's spelling, or ''.

    >>> processor("PowerEdge R630 (Intel Xeon E5-2630v3, 2.40 GHz)")
    'Intel Xeon E5-2630 v3'
    >>> processor("ACTINA SOLAR 202 X2 (Intel Xeon processor 5110, 1.60GHz)")
    'Intel Xeon 5110'
    >>> processor("Acer Altos G5450 (AMD Opteron 2220 SE)")
    'AMD Opteron 2220SE'
    >>> processor("IBM Power 780 (4.14 GHz, 32 core, SLES)")
    ''
    """
    m = _XEON.search(system)
    if m:
        model = re.sub(r"\s*[vV](\d)$", r" v\1", m.group(1))
        return f"Intel Xeon {model}"
    m = _OPTERON.search(system)
    if m:
        return f"AMD Opteron {m.group(1)}{m.group(2) or ''}"
    return ""


def clock_mhz(system: str) -> str:
    """The clock a system name states (``2.40 GHz`` -> ``2400``), or ''.

    >>> clock_mhz("PRIMERGY RX220, AMD Opteron 280 processor, 2.40 GHz")
    '2400'
    >>> clock_mhz("Acer Altos G540 (Intel Xeon 5160)")
    ''
    """
    m = _GHZ.search(system)
    return f"{round(float(m.group(1)) * 1000)}" if m else ""


def extract(js_dir: Path) -> list[dict[str, str]]:
    rows: dict[str, dict[str, str]] = {}
    for path in sorted(js_dir.glob("*.js")):
        if path.name == "app.js":
            continue
        for block in _RECORD.findall(path.read_text(encoding="utf-8")):
            rec = dict(_FIELD.findall(block))
            url = rec.get("htmllink", "")
            cpu = processor(rec.get("hw_model", ""))
            if not url or not cpu or url in rows:
                continue
            rows[url] = {
                "processor": cpu,
                "hardware_vendor": rec["test_sponsor"].strip(),
                "system": rec["hw_model"].strip(),
                "cores_total": rec["hw_ncores"].strip(),
                "chips": rec["hw_nchips"].strip(),
                "cpu_mhz": clock_mhz(rec["hw_model"]),
                "base_copies": rec["base_copies"].strip(),
                "base_result": rec["basemean"].strip(),
                "result_url": url,
            }
    return [rows[u] for u in sorted(rows)]


def main() -> None:
    js_dir, out = Path(sys.argv[1]), Path(sys.argv[2])
    rows = extract(js_dir)
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"{out}: {len(rows)} results")


if __name__ == "__main__":
    main()
