"""Write docs/inventory-headers.md from the readers' VARIABLE_MAPs.

Run: ``.venv/bin/python scripts/make_header_docs.py``. A test checks the file is current.
"""

from __future__ import annotations

from pathlib import Path

from vsizer.inventory import (
    AZURE_MIGRATE_VARIABLE_MAP,
    RVTOOLS_VARIABLE_MAP,
    VARIABLE_MAP,
)
from vsizer.inventory.azure_migrate import (
    IGNORED_COLUMNS as AZURE_MIGRATE_IGNORED_COLUMNS,
)
from vsizer.inventory.azure_migrate import (
    METADATA_COLUMNS as AZURE_MIGRATE_METADATA_COLUMNS,
)
from vsizer.inventory.model import COLUMNS

OUT = Path(__file__).resolve().parents[1] / "docs" / "inventory-headers.md"


def render() -> str:
    lines = [
        "# Inventory headers",
        "",
        "Generated from the readers' `VARIABLE_MAP`s by `scripts/make_header_docs.py`; do not edit.",
        "",
        "Header matching ignores case, full-width/half-width differences, spaces and",
        "underscores. A unit in parentheses or brackets after a header (`メモリ(MB)`,",
        "`Memory [GiB]`, `CPU 平均使用率(%)`) or after a last space, `_` or `-` (`Memory GiB`,",
        "`memory_gib`, `ram_mb`, `cpu_clock_mhz`) is used for conversion; cells may carry their",
        "own unit (`16GB`, `45%`). Memory MB/GB are binary (MiB/GiB, as RAM is sold); disk",
        "GB/TB are decimal. Columns not listed are kept in the metadata as unmapped.",
        "",
        "Two columns meaning one field (`memory` and `RAM (MB)`) are compared row by row:",
        "equal is a note, different is an error naming both (the first differing row);",
        "`name`, `model`, `cpu_name`, `os` and `group` keep the first column with a warning. A",
        "percentage column whose values are all at most 1 is read as fractions, and a",
        "`;`-separated file's decimal commas are read as decimal marks, each with a",
        "warning (docs/inputs.md, \"Server lists: every ingestion choice stated\").",
        "",
        "## Server list (CSV / XLSX, English or Japanese)",
        "",
        "| column | meaning | accepted headers |",
        "|---|---|---|",
    ]
    for name, headers in VARIABLE_MAP.items():
        meaning = COLUMNS.get(name, ("", ""))[1]
        lines.append(f"| `{name}` | {meaning} | {', '.join(headers)} |")
    for title, mapping in (
        ("RVTools export (sheet:column)", RVTOOLS_VARIABLE_MAP),
        ("Azure Migrate import CSV", AZURE_MIGRATE_VARIABLE_MAP),
    ):
        lines += ["", f"## {title}", "", "| column | source columns |", "|---|---|"]
        for name, headers in mapping.items():
            lines.append(f"| `{name}` | {', '.join(headers)} |")
    lines += ["", "Azure Migrate template columns read into the metadata:", ""]
    lines += [f"- `{h}`: {what}" for h, what in AZURE_MIGRATE_METADATA_COLUMNS.items()]
    lines += [
        "",
        "Template columns not used (they do not change host sizing; one warning lists",
        "them): " + ", ".join(f"`{h}`" for h in AZURE_MIGRATE_IGNORED_COLUMNS) + ".",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUT}")
