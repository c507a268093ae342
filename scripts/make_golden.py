"""Write the golden plan documents of tests/data/golden/ (tests/test_golden.py).

Golden outputs pin behaviour across refactors: the plan JSON of the demo, of
every bundled scenario (vsizer/data/scenarios/*.toml) and of a series plan,
compared byte for byte. Rerun this script only when a change of the plan is
intended, and say so in the commit message.

Run from the repository root: ``.venv/bin/python scripts/make_golden.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "data" / "golden"


def golden_documents() -> dict[str, str]:
    """File name -> plan JSON text, computed now (paths relative to the repo)."""
    import os

    import vsizer
    from vsizer.series.sources import load_series
    from vsizer.study.compare import load_scenario
    from vsizer.study.config import load_rules

    os.chdir(REPO)
    samples = Path("vsizer/data/samples")
    docs = {
        # the demo (`make demo`) chooses the host model among the shipped ones
        "demo.json": vsizer.plan(
            samples / "inventory_ja.xlsx",
            rules=load_rules(samples / "scenario.toml").replace(host_model="auto"),
        ).to_json()
    }
    for path in sorted(Path("vsizer/data/scenarios").glob("*.toml")):
        sc = load_scenario(path)
        docs[f"scenario-{path.stem}.json"] = vsizer.plan(
            sc.inventory, rules=sc.rules
        ).to_json()
    series = load_series([Path("tests/data/series/tabular/wide_percent.csv")], "wide")
    docs["series-wide.json"] = vsizer.plan(
        None, series=series, vm_cpu_mhz=2000.0, vm_mem_gib=4.0
    ).to_json()
    return docs


def main() -> int:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, text in golden_documents().items():
        (GOLDEN / name).write_text(text, encoding="utf-8")
        print(f"wrote {GOLDEN.relative_to(REPO) / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
