"""Rebuild the shipped catalogs in ``vsizer/catalogs/data`` from public data.

Usage::

    .venv/bin/python scripts/build_catalogs.py [--data ../shared/data] [--out DIR]

Inputs (see their READMEs for provenance and quirks):

* ``cpu_perf_spec_cpu2017/cpu2017-results.csv.gz`` — SPEC CPU2017 results dump;
* ``power_specpower/specpower_curves_11pt.csv`` — 11-point SPECpower curves;
* ``power_specpower/ccf_SPECpower-full-results.csv`` — all SPECpower results
  (idle and 100 % only);
* the same SPEC CPU2017 dump for the current (2023-2025) two-socket hosts:
  one cited 2-socket result per host (``scripts/current_hosts.py``);
* ``scripts/data/cint2006rate_2014.csv`` — SPEC CINT2006rate results (March
  2014 dump, see ``scripts/data/README.md``);
* ``scripts/data/cint2006rate_2016.csv`` — SPEC CINT2006rate results published
  up to 2016 Q1 (used for the CPUs the 2014 dump lacks, see its README).

Outputs: ``cpus.csv``, ``hosts.csv``, ``server_power.csv``,
``server_power_by_chips.csv``, ``score_bridge.csv`` (CPUs measured in two SPEC
suites) and ``score_ranges.csv`` (plausible per-core range of each basis). Hand-entered rows (the design method's tables, host
configurations) are constants below, each with its source; everything else
comes from the importers in :mod:`vsizer.catalogs`, so the files are
reproducible byte for byte.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from current_hosts import current_host_rows

from vsizer.catalogs._csv import format_curve, write_catalog_csv
from vsizer.catalogs._keys import cpu_key, cpu_keys, model_key
from vsizer.catalogs.cpu_catalog import CPU_COLUMNS
from vsizer.catalogs.host_catalog import DEFAULT_HOST_MODEL, HOST_COLUMNS
from vsizer.catalogs.import_spec import SPEC_CPU2017_BASIS, import_spec_cpu2017
from vsizer.catalogs.import_spec2006 import (
    SPEC_CPU2006_BASIS,
    import_cint2006rate,
    import_cint2006rate_2016,
)
from vsizer.catalogs.import_specpower import (
    import_specpower,
    read_specpower_results,
    short_cpu,
)
from vsizer.catalogs.server_power import CHIP_DEFAULT_COLUMNS, SERVER_POWER_COLUMNS

REPO = Path(__file__).resolve().parents[1]
DESIGN_4 = (
    "SPECint2000 (SPEC CPU2000 CINT2000 results, https://www.spec.org/cpu2000/results/"
    ") as tabulated in the vsizer design method's MHz/SPECint2000 table"
)

#: (a) The design method's MHz/SPECint2000 table: name, aliases, cores, MHz, SPECint2000 of the chip.
#: Per-core score = chip score / cores (effective MHz = cores x MHz).
DESIGN_TABLE = [
    ("Xeon 3.0 GHz", "Xeon 3.0 GHz (estimated)", 1, 3000, 1429, " (estimated)"),
    ("Xeon 3.4 GHz", "", 1, 3400, 1617, ""),
    ("Xeon 3.6 GHz", "", 1, 3600, 1718, ""),
    (
        "Xeon 5110",
        "Xeon 5110 (1.6 GHz);Intel(R) Xeon(R) CPU 5110 @ 1.60GHz",
        2,
        1600,
        1712,
        "",
    ),
    (
        "Xeon 5160",
        "Xeon 5160 (3.0 GHz);Intel(R) Xeon(R) CPU 5160 @ 3.00GHz",
        2,
        3000,
        3025,
        "",
    ),
]

#: (c) CPUs named in the design method: cores, MHz, source, unscored. All but the
#: "Xeon 2.8 GHz dual-core" also have a scored row from the CINT2006rate 2016 listing,
#: which the catalog's lookup prefers.
UNSCORED_CPUS = [
    (
        "Intel Xeon E5540",
        "Intel(R) Xeon(R) CPU E5540 @ 2.53GHz",
        4,
        2533,
        "4 cores/chip and 2533 MHz from the SPECpower_ssj2008 "
        "result IBM System x3400 M2 (Jun 3, 2009: 2 chips, 8 cores)",
    ),
    (
        "Intel Xeon E5520",
        "Intel(R) Xeon(R) CPU E5520 @ 2.27GHz",
        4,
        2260,
        "CPU of the design method's worked-example host (8 cores at 2260 MHz = 2 x 4-core "
        "Xeon E5520, 2.26 GHz per Intel's specification)",
    ),
    (
        "Intel Xeon L5520",
        "Intel(R) Xeon(R) CPU L5520 @ 2.27GHz",
        4,
        2266,
        "4 cores/chip and 2266 MHz from the SPECpower_ssj2008 "
        "result Acer Gateway GR160 F1 (Nov 18, 2009: 2 chips, 8 cores)",
    ),
    (
        "Intel Xeon E5405",
        "Intel(R) Xeon(R) CPU E5405 @ 2.00GHz",
        4,
        2000,
        "4 cores, 2.00 GHz per Intel's product specification "
        "(no SPECpower or SPEC CPU2017 result in the shipped data)",
    ),
    (
        "Intel Xeon X5570",
        "Intel(R) Xeon(R) CPU X5570 @ 2.93GHz",
        4,
        2933,
        "4 cores/chip and 2933 MHz from the SPECpower_ssj2008 "
        "result Dell PowerEdge R710 (Mar 30, 2009: 2 chips, 8 cores)",
    ),
    (
        "AMD Opteron 2435",
        "Six-Core AMD Opteron(tm) Processor 2435",
        6,
        2600,
        "12 cores in 2 chips and 2600 MHz from the "
        "SPECpower_ssj2008 result HP ProLiant DL385 G6 "
        "(Jul 2, 2009: 2 chips, 12 cores)",
    ),
    (
        "Xeon 2.8 GHz dual-core",
        "Intel Xeon 2.8 GHz dual-core;Dual-Core Xeon 2.8 GHz",
        2,
        2800,
        "host of the published VMware ESX 2.5.2 consolidation measurement (2 x "
        "dual-core Xeon 2.8 GHz with Hyper-Threading)",
    ),
]

#: Current 2-socket hosts: (SPECpower model label, catalog name, rack U, GiB
#: configured). Memory is a configuration choice, one DIMM per channel.
SPECPOWER_HOSTS = [
    (
        "Dell PowerEdge R640 2x Platinum 8180",
        None,
        1,
        384,
        "12 x 32 GiB, one DIMM per channel",
    ),
    (
        "Dell PowerEdge R740 2x Platinum 8180",
        None,
        2,
        768,
        "12 x 64 GiB, one DIMM per channel",
    ),
    (
        "Dell PowerEdge R740 2x Platinum 8280",
        None,
        2,
        768,
        "12 x 64 GiB, one DIMM per channel",
    ),
    (
        "FUJITSU Server PRIMERGY RX2530 M5 2x Platinum 8276L",
        "Fujitsu PRIMERGY RX2530 M5 2x Platinum 8276L",
        1,
        384,
        "12 x 32 GiB, one DIMM per channel",
    ),
    (
        "Fujitsu PRIMERGY RX2530 M6 2x Platinum 8380",
        None,
        1,
        1024,
        "16 x 64 GiB, one DIMM per channel",
    ),
    (
        "Dell PowerEdge R7525 2x EPYC 7702",
        None,
        2,
        1024,
        "16 x 64 GiB, one DIMM per channel",
    ),
]


def design_cpu_rows() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for name, aliases, cores, mhz, specint, note in DESIGN_TABLE:
        rows.append(
            dict(
                cpu_name=name,
                aliases=aliases,
                cores=cores,
                cpu_mhz=mhz,
                score_per_core=specint / cores,
                basis="SPECint2000",
                source=f"{DESIGN_4}: {specint} per chip{note}",
            )
        )
    return rows


def unscored_cpu_rows() -> list[dict[str, object]]:
    return [
        dict(
            cpu_name=n,
            aliases=a,
            cores=c,
            cpu_mhz=m,
            score_per_core=None,
            basis="",
            source=s,
        )
        for n, a, c, m, s in UNSCORED_CPUS
    ]


def cint2006_rows(spec06: pd.DataFrame, spec06_2016: pd.DataFrame) -> pd.DataFrame:
    """The 2014 dump's CPUs, then the 2016 listing's CPUs the 2014 dump lacks."""
    have = {cpu_key(str(n)) for n in spec06["cpu_name"]}
    extra = spec06_2016[~spec06_2016["cpu_name"].map(lambda n: cpu_key(str(n)) in have)]
    return pd.concat([spec06, extra], ignore_index=True)


def build_cpus(spec: pd.DataFrame, spec06: pd.DataFrame) -> pd.DataFrame:
    rows = (
        design_cpu_rows()
        + spec.to_dict("records")
        + spec06.to_dict("records")
        + unscored_cpu_rows()
    )
    return pd.DataFrame(rows, columns=list(CPU_COLUMNS))


BRIDGE_COLUMNS = [
    "from_basis",
    "to_basis",
    "cpu_name",
    "from_score_per_core",
    "to_score_per_core",
    "ratio",
    "from_source",
    "to_source",
]


def build_bridge(spec: pd.DataFrame, spec06: pd.DataFrame) -> pd.DataFrame:
    """CPUs measured in two suites: the design table's SPECint2000 CPUs with a
    CINT2006rate median (matched by any cpu_keys), then CPUs with a
    CINT2006rate and a CINT2017rate median (matched by cpu_key)."""
    rows = []
    for old in design_cpu_rows():
        keys = set(cpu_keys(str(old["cpu_name"])))
        for new in spec06.to_dict("records"):
            if keys & set(cpu_keys(str(new["cpu_name"]))):
                rows.append(
                    dict(
                        from_basis="SPECint2000",
                        to_basis=SPEC_CPU2006_BASIS,
                        cpu_name=new["cpu_name"],
                        from_score_per_core=old["score_per_core"],
                        to_score_per_core=new["score_per_core"],
                        ratio=float(new["score_per_core"])
                        / float(old["score_per_core"]),  # type: ignore[arg-type]
                        from_source=old["source"],
                        to_source=new["source"],
                    )
                )
    by_key = {
        cpu_key(str(n)): r
        for n, r in zip(spec["cpu_name"], spec.to_dict("records"), strict=True)
    }
    for old in spec06.to_dict("records"):
        new = by_key.get(cpu_key(str(old["cpu_name"])))
        if new is None:
            continue
        rows.append(
            dict(
                from_basis=SPEC_CPU2006_BASIS,
                to_basis=SPEC_CPU2017_BASIS,
                cpu_name=new["cpu_name"],
                from_score_per_core=old["score_per_core"],
                to_score_per_core=new["score_per_core"],
                ratio=float(new["score_per_core"]) / float(old["score_per_core"]),
                from_source=old["source"],
                to_source=new["source"],
            )
        )
    return pd.DataFrame(rows, columns=BRIDGE_COLUMNS)


RANGE_SOURCES = {
    "SPECint2000": "SPECint2000 chip scores of the Xeon 3.0-3.6 GHz and Xeon "
    "5110/5160 per core (SPEC CPU2000 results, https://www.spec.org/cpu2000/results/)",
    SPEC_CPU2006_BASIS: "per-CPU medians of SPEC CINT2006rate base results per core "
    "(https://www.spec.org/cpu2006/results/, March 2014 dump and results "
    "published up to 2016 Q1)",
    SPEC_CPU2017_BASIS: "per-CPU medians of SPEC CINT2017rate base results per core "
    "(https://www.spec.org/cpu2017/results/)",
}


def build_ranges(cpus: pd.DataFrame) -> pd.DataFrame:
    """Lowest and highest per-core median of each basis in the CPU catalog."""
    rows = []
    for basis, source in RANGE_SOURCES.items():
        scores = cpus.loc[cpus["basis"] == basis, "score_per_core"].astype(float)
        rows.append(
            dict(
                basis=basis,
                low=float(scores.min()),
                high=float(scores.max()),
                cpus=int(scores.notna().sum()),
                source=source,
            )
        )
    return pd.DataFrame(rows, columns=["basis", "low", "high", "cpus", "source"])


def _cpu_row(spec: pd.DataFrame, cpu_name: str) -> pd.Series:
    wanted = set(cpu_keys(cpu_name))
    hit = spec[spec["cpu_name"].map(lambda n: bool(wanted & set(cpu_keys(n))))]
    if hit.empty:
        raise SystemExit(f"no SPEC CPU2017 result for {cpu_name}")
    return hit.iloc[0]


def build_hosts(
    spec: pd.DataFrame,
    power: pd.DataFrame,
    ccf: pd.DataFrame,
    current: list[dict[str, object]] | None = None,
) -> pd.DataFrame:
    """Hand-configured old hosts, SPECpower-measured hosts, then ``current``
    (2023-2025 generations, :mod:`current_hosts`)."""
    rows: list[dict[str, object]] = []
    nehalem = ccf[
        (ccf["chips"] == 2) & ccf["cpu_name"].str.contains(r"Xeon [ELX]55\d\d")
    ]
    idle, top = (
        float(nehalem["power_idle_w"].median()),
        float(nehalem["power_max_w"].median()),
    )
    rows.append(
        dict(
            model="Example host 2x Xeon E5520",
            sockets=2,
            cores_per_socket=4,
            threads_per_core=2,
            cpu_mhz=2260,
            mem_gib=48,
            power_idle_w=idle,
            power_max_w=top,
            rack_u=2,
            cpu_name="Intel Xeon E5520",
            power_basis="estimated",
            source=(
                "the design method's worked example: 8 cores at 2260 MHz, 48 GB, no "
                "score (MHz normalization); power assumed = median of "
                f"{len(nehalem)} single-node 2-chip SPECpower_ssj2008 results "
                "with Xeon E/L/X55xx CPUs (ccf file); 2U assumed"
            ),
        )
    )
    for cpu, mhz, idle, top in (
        ("Intel Xeon L5520", 2266, 79, 135),
        ("Intel Xeon E5405", 2000, 162, 224),
    ):
        rows.append(
            dict(
                model=f"Blade 2x {cpu.removeprefix('Intel ')}",
                sockets=2,
                cores_per_socket=4,
                threads_per_core=2 if cpu.endswith("L5520") else 1,
                cpu_mhz=mhz,
                mem_gib=32,
                power_idle_w=idle,
                power_max_w=top,
                rack_u=0.625,
                cpu_name=cpu,
                power_basis="published",
                source=(
                    f"published blade measurement: {top} W max / {idle} W min; 2 sockets, "
                    "32 GiB and "
                    "0.625 U (16 half-height blades per 10U enclosure) assumed"
                ),
            )
        )
    for label, name, rack_u, mem, dimms in SPECPOWER_HOSTS:
        base = re.sub(r" \((?:[A-Z][a-z]{2} \d{4})\)( #\d+)?$", "", label)
        hits = power[
            power["model"].str.replace(
                r" \((?:[A-Z][a-z]{2} \d{4})\)( #\d+)?$", "", regex=True
            )
            == base
        ]
        if hits.empty:
            raise SystemExit(f"no SPECpower result for {label}")
        r: dict[str, Any] = {str(k): v for k, v in hits.iloc[0].to_dict().items()}
        if len(hits) > 1:  # several results: medians of idle and full load
            r["power_idle_w"] = float(hits["power_idle_w"].median())
            r["power_max_w"] = float(hits["power_max_w"].median())
            r["source"] = f"median of {len(hits)} results: " + " | ".join(
                hits["source"]
            )
        cpu_row = _cpu_row(spec, str(r["cpu_name"]))
        rows.append(
            dict(
                model=name or base,
                sockets=r["sockets"],
                cores_per_socket=r["cores_per_socket"],
                threads_per_core=r["threads_per_core"],
                cpu_mhz=r["cpu_mhz"],
                cpu_score_per_core=cpu_row["score_per_core"],
                mem_gib=mem,
                power_idle_w=r["power_idle_w"],
                power_max_w=r["power_max_w"],
                power_curve_w=format_curve(r["power_curve_w"])
                if isinstance(r["power_curve_w"], tuple)
                else "",
                rack_u=rack_u,
                cpu_name=cpu_row["cpu_name"],
                cpu_score_basis=cpu_row["basis"],
                power_basis="measured",
                source=(
                    f"power: {r['source']} (measured with {r['mem_gib']:g} GB); "
                    f"CPU score: {cpu_row['source']} ({cpu_row['cpu_name']}); memory: "
                    f"{mem} GiB configured ({dimms}; a configuration choice); "
                    f"{rack_u}U"
                ),
            )
        )
    rows += current or []
    out = pd.DataFrame(rows, columns=list(HOST_COLUMNS))
    if DEFAULT_HOST_MODEL not in set(out["model"]):
        raise SystemExit(f"DEFAULT_HOST_MODEL {DEFAULT_HOST_MODEL!r} not built")
    return out


def build_server_power(results: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, chips): median curve if any, else median idle/max."""
    data = results.assign(key=results["model"].map(model_key))
    rows = []
    for (_, chips), g in data.groupby(["key", "chips"], sort=False):
        spellings = g["model"].value_counts()
        model = str(spellings.index[0])
        curves = g[g["power_curve_w"].notna()]
        cpus = "; ".join(dict.fromkeys(short_cpu(c) for c in g["cpu_name"]))
        if not curves.empty:
            curve = np.median(
                np.array(list(curves["power_curve_w"]), dtype=float), axis=0
            )
            idle, top, used = float(curve[0]), float(curve[-1]), curves
            text = f"pointwise median of {len(used)} curves"
            curve_text = format_curve(tuple(float(v) for v in curve))
        else:
            idle = float(g["power_idle_w"].median())
            top = float(g["power_max_w"].median())
            used, curve_text = g, ""
            text = f"median idle and 100 % of {len(g)} results"
        rows.append(
            dict(
                model=model,
                aliases=";".join(spellings.index[1:]),
                sockets=int(float(str(chips))),
                cpu_name=cpus,
                power_idle_w=idle,
                power_max_w=top,
                power_curve_w=curve_text,
                source=(
                    used["source"].iloc[0]
                    if len(used) == 1
                    else f"{text}: " + " | ".join(used["source"])
                ),
            )
        )
    return pd.DataFrame(rows, columns=list(SERVER_POWER_COLUMNS))


def build_chip_defaults(ccf: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for key, g in ccf.groupby("chips"):
        chips = int(float(str(key)))
        rows.append(
            dict(
                chips=chips,
                power_idle_w=float(g["power_idle_w"].median()),
                power_max_w=float(g["power_max_w"].median()),
                results=len(g),
                source=(
                    f"median of {len(g)} SPECpower_ssj2008 results with "
                    f"{chips} chips "
                    "(single-node, compliant), ccf-coefficients file "
                    "(cloud-carbon-coefficients data/SPECpower-full-results.csv, "
                    "Dec 2007 - Jul 2021)"
                ),
            )
        )
    return pd.DataFrame(rows, columns=list(CHIP_DEFAULT_COLUMNS))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument(
        "--out", type=Path, default=REPO / "vsizer" / "catalogs" / "data"
    )
    parser.add_argument(
        "--cpu2006",
        type=Path,
        default=REPO / "scripts" / "data" / "cint2006rate_2014.csv",
    )
    parser.add_argument(
        "--cpu2006-2016",
        type=Path,
        default=REPO / "scripts" / "data" / "cint2006rate_2016.csv",
    )
    args = parser.parse_args()
    spec_file = args.data / "cpu_perf_spec_cpu2017" / "cpu2017-results.csv.gz"
    curves = args.data / "power_specpower" / "specpower_curves_11pt.csv"
    ccf_file = args.data / "power_specpower" / "ccf_SPECpower-full-results.csv"

    spec = import_spec_cpu2017(spec_file)
    spec06 = cint2006_rows(
        import_cint2006rate(args.cpu2006), import_cint2006rate_2016(args.cpu2006_2016)
    )
    cpus = build_cpus(spec, spec06)
    power = import_specpower([curves, ccf_file])
    results = read_specpower_results([curves, ccf_file])
    ccf = read_specpower_results(ccf_file)
    outputs = {
        "cpus.csv": cpus,
        "hosts.csv": build_hosts(spec, power, ccf, current_host_rows(spec_file, ccf)),
        "server_power.csv": build_server_power(results),
        "server_power_by_chips.csv": build_chip_defaults(ccf),
        "score_bridge.csv": build_bridge(spec, spec06),
        "score_ranges.csv": build_ranges(cpus),
    }
    for name, frame in outputs.items():
        path = write_catalog_csv(frame, args.out / name)
        print(f"{path}: {len(frame)} rows")


if __name__ == "__main__":
    main()
