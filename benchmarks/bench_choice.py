"""Benchmark: ``--host-model auto`` over 10 candidate host models, 5,000 servers.

Inventory: the 500 VMs of the Bitbrains GWA-T-12 "Rnd" trace (month 2013-8,
../shared/data/bitbrains_rnd) summarized to inventory rows and repeated 10
times, two pools -- the builder of ``benchmarks/bench_placement.py``
(``summarize_bitbrains``, ``inventory``), reused as is (exact copies, no
jitter: the same fleet as the placement benchmark).

Candidates: the last 9 models of the shipped host catalog (all 9 before issue 16's
catalog update; the newest after it) and the placement
benchmark's MHz-only host, 10 in all. Prices are ILLUSTRATIVE (1,000 USD per
physical core plus 5,000 USD per host, support 10 % of it a year; a per-core
licence of 50 USD with the 16-core minimum per CPU; 0.30 USD/kWh, PUE 1.5,
rack unit 300 USD a year): not quotes, only so the ranking runs on TCO. Models
some VM does not fit rank last as "not plannable": the 2008-era blades (CPU,
memory), and every host with less than ~860 GiB of memory (one Bitbrains VM has
512 GiB provisioned, above 60 % of 768 GiB).

Every candidate is planned through the whole chain (N+1 failover) in a process
pool (``--workers``, default: the CPUs). Prints the time of the choice and
whether it meets the target (< 30 s), the winner and the ranking.

Run: ``.venv/bin/python benchmarks/bench_choice.py [--copies N] [--workers N]``;
``--smoke``: the first 100 VMs, 2 copies. Skips (exit 0) when ../shared/data
is absent.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_placement import DATA, HOST, inventory, summarize_bitbrains  # noqa: E402

from vsizer.catalogs.host_catalog import HostCatalog, read_host_catalog  # noqa: E402
from vsizer.catalogs.model import HostModel  # noqa: E402
from vsizer.study.choice import choose  # noqa: E402
from vsizer.study.config import Rules  # noqa: E402

#: Target of the issue: the choice over 10 candidates on 5,000 servers.
TARGET_S = 30.0


def priced(host: HostModel) -> HostModel:
    """``host`` with the illustrative price and support of the module docstring."""
    price = 1000.0 * host.cores + 5000.0
    return dataclasses.replace(host, price=price, support_per_year=0.1 * price)


def candidates() -> HostCatalog:
    hosts = [priced(h) for h in list(read_host_catalog())[-9:]] + [priced(HOST)]
    return HostCatalog(hosts, "shipped catalog + bench-host")


def rules(licences: Path) -> Rules:
    return Rules(
        assume_util=1.0, host_model="auto", price_kwh=0.30, currency="USD", pue=1.5,
        years=5, rack_cost_per_u_year=300.0, licences=str(licences),
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=10, help="repeat the 500 VMs this often")
    ap.add_argument("--workers", type=int, default=None, help="processes (default: CPUs)")
    ap.add_argument("--smoke", action="store_true", help="CI size: 100 VMs, 2 copies")
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"skip: {DATA} is absent")
        return 0
    summary = summarize_bitbrains()
    if args.smoke:
        summary, args.copies = summary.head(100), 2
    inv = inventory(summary, args.copies)
    catalog = candidates()
    with tempfile.TemporaryDirectory() as tmp:
        lic = Path(tmp) / "lic.csv"
        lic.write_text(
            "name,unit,min_per_cpu,min_per_host,term,price,currency,source,date\n"
            "per-core hypervisor (illustrative),core,16,,year,50,USD,benchmark,2025-01\n",
            encoding="utf-8",
        )
        t0 = time.perf_counter()
        plan = choose(inv, rules(lic), hosts=catalog, workers=args.workers)
        elapsed = time.perf_counter() - t0
    ch = plan.choice
    assert ch is not None
    print(
        f"auto over {len(catalog)} candidates, {len(inv.servers)} servers: "
        f"{elapsed:.1f} s (target < {TARGET_S:.0f} s: "
        f"{'met' if elapsed < TARGET_S else 'NOT met'})"
    )
    print(f"winner: {ch.winner} ({ch.ranked_by}); {ch.why}")
    for i, c in enumerate(ch.candidates, 1):
        total = c.tco.total if c.tco is not None else None
        shown = "not plannable" if c.error else f"{c.hosts} hosts, TCO {total:,.0f} USD"
        print(f"  {i:2d}. {c.model}: {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
