"""Current two-socket hosts (2023-2025 generations) for ``hosts.csv``.

Used by ``scripts/build_catalogs.py``. Every figure comes from the shared data:

* per-core score = the ``Base Result`` of ONE published SPEC CPU2017
  CINT2017rate result of a 2-socket system with that CPU, divided by its
  ``# Cores`` (the result is named by its file, ``cpu2017-YYYYMMDD-NNNNN``, and
  cited by its URL);
* power: the shared SPECpower_ssj2008 data end in July 2021, so no result of
  these generations is published there. Power is therefore *assumed* the way
  the catalog's worked-example host is: the median idle and 100 % watts of the
  single-node 2-chip SPECpower_ssj2008 results of the nearest generation
  published there, same CPU vendor (Intel: 3rd gen Xeon Scalable "Ice Lake",
  Platinum/Gold/Silver x3xx; AMD: EPYC 7xx3 "Milan"), linear between them
  (no 11-point curve). The newer CPUs have higher TDPs, so full-load power is
  probably understated; a user with measured figures replaces the row
  (``--hosts``, merged over the shipped catalog).
* memory is a configuration choice stated per row: one 64 GiB DIMM per
  channel (8 channels per socket on Intel, 12 on AMD SP5);
* rack units: the PowerEdge Rx6xx models are 1U, Rx7xx models 2U.
* prices stay empty (see ``docs/inputs.md``, "Host prices").
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pandas as pd

SPEC_SITE = "https://www.spec.org/cpu2017/results"

#: (catalog model, SPEC CPU2017 result file, generation, rack U, GiB, DIMMs)
CURRENT_HOSTS: list[tuple[str, str, str, float, int, str]] = [
    (
        "Dell PowerEdge R760 2x Xeon Gold 6430",
        "cpu2017-20221223-33223",
        "4th gen Xeon Scalable (Sapphire Rapids)",
        2,
        1024,
        "16 x 64 GiB",
    ),
    (
        "Dell PowerEdge R760 2x Xeon Gold 6548Y+",
        "cpu2017-20240112-40590",
        "5th gen Xeon Scalable (Emerald Rapids)",
        2,
        1024,
        "16 x 64 GiB",
    ),
    (
        "Dell PowerEdge R760 2x Xeon Platinum 8592+",
        "cpu2017-20231128-40086",
        "5th gen Xeon Scalable (Emerald Rapids)",
        2,
        1024,
        "16 x 64 GiB",
    ),
    (
        "Dell PowerEdge R770 2x Xeon 6760P",
        "cpu2017-20250310-46878",
        "Xeon 6 (Granite Rapids)",
        2,
        1024,
        "16 x 64 GiB",
    ),
    (
        "Dell PowerEdge R770 2x Xeon 6787P",
        "cpu2017-20250310-46882",
        "Xeon 6 (Granite Rapids)",
        2,
        1024,
        "16 x 64 GiB",
    ),
    (
        "Dell PowerEdge R7625 2x EPYC 9554",
        "cpu2017-20230113-33343",
        "EPYC 9004 (Genoa)",
        2,
        1536,
        "24 x 64 GiB",
    ),
    (
        "Dell PowerEdge R7625 2x EPYC 9654",
        "cpu2017-20221024-32623",
        "EPYC 9004 (Genoa)",
        2,
        1536,
        "24 x 64 GiB",
    ),
    (
        "Dell PowerEdge R7625 2x EPYC 9754",
        "cpu2017-20230522-36768",
        "EPYC 97x4 (Bergamo)",
        2,
        1536,
        "24 x 64 GiB",
    ),
    (
        "Dell PowerEdge R7725 2x EPYC 9555",
        "cpu2017-20250422-47822",
        "EPYC 9005 (Turin)",
        2,
        1536,
        "24 x 64 GiB",
    ),
    (
        "Dell PowerEdge R6725 2x EPYC 9655",
        "cpu2017-20241104-45170",
        "EPYC 9005 (Turin)",
        1,
        1536,
        "24 x 64 GiB",
    ),
]

#: Nearest published SPECpower generation per CPU vendor: (regex, label).
POWER_PROXY: dict[str, tuple[str, str]] = {
    "Intel": (
        r"Xeon (?:Platinum|Gold|Silver) [4-8]3\d\d",
        "3rd gen Xeon Scalable (Ice Lake, Platinum/Gold/Silver x3xx)",
    ),
    "AMD": (r"EPYC 7\d\d3\b", "EPYC 7003 (Milan, 7xx3)"),
}

#: Dump header -> name used here.
_DUMP_COLUMNS = {
    "Benchmark": "benchmark",
    "Hardware Vendor": "vendor",
    "System": "system",
    "Processor": "cpu",
    "Processor MHz": "mhz",
    "# Chips": "chips",
    "# Cores": "cores",
    "# Enabled Threads Per Core": "threads_per_core",
    "Base Result": "base",
    "Memory": "memory",
    "Published": "published",
    "Disclosure": "disclosure",
}


def read_cint_rate_results(path: Path) -> pd.DataFrame:
    """CINT2017rate rows of the SPEC CPU2017 dump, indexed by result file.

    The dump's header has one name more than its rows have fields and some
    names carry stray tabs/spaces (see the data README): both are handled.
    """
    text = gzip.decompress(path.read_bytes()).decode("utf-8-sig", errors="replace")
    frame = pd.read_csv(
        io.StringIO(text), dtype=str, keep_default_na=False, header=None
    )
    header = [str(h).strip() for h in frame.iloc[0]]
    frame = frame.iloc[1:].reset_index(drop=True)
    frame.columns = pd.Index(header[: frame.shape[1]])
    data = frame[list(_DUMP_COLUMNS)].rename(columns=_DUMP_COLUMNS)
    data = data[data["benchmark"].str.strip() == "CINT2017rate"]
    data = data.assign(
        result=data["disclosure"].str.extract(
            r"/(cpu2017-\d{8}-\d{5})\.html", expand=False
        ),
        quarter=data["disclosure"].str.extract(r"/(res\d{4}q\d)/", expand=False),
    )
    for col in ("mhz", "chips", "cores", "threads_per_core", "base"):
        data[col] = pd.to_numeric(data[col], errors="coerce")
    return data.dropna(subset=["result"]).set_index("result", verify_integrity=True)


def power_proxy(ccf: pd.DataFrame, vendor: str) -> tuple[float, float, str]:
    """(idle W, 100 % W, source text) assumed for a current ``vendor`` host."""
    pattern, label = POWER_PROXY[vendor]
    hits = ccf[(ccf["chips"] == 2) & ccf["cpu_name"].str.contains(pattern)]
    if hits.empty:
        raise SystemExit(f"no SPECpower result for the {vendor} power proxy")
    idle = float(hits["power_idle_w"].median())
    top = float(hits["power_max_w"].median())
    first, last = hits["date"].min(), hits["date"].max()
    text = (
        "power assumed: no SPECpower_ssj2008 result of this generation in the shipped "
        "data (ccf file ends Jul 2021); median idle and 100 % of the "
        f"{len(hits)} single-node 2-chip results with {label} CPUs "
        f"({first:%b %Y} - {last:%b %Y}, ccf file), linear in between; "
        "newer CPUs have higher TDPs, so full-load power is probably understated"
    )
    return idle, top, text


def current_host_row(
    results: pd.DataFrame,
    ccf: pd.DataFrame,
    entry: tuple[str, str, str, float, int, str],
) -> dict[str, object]:
    """One ``hosts.csv`` row from its SPEC CPU2017 result and the power proxy."""
    model, result_id, generation, rack_u, mem, dimms = entry
    if result_id not in results.index:
        raise SystemExit(f"{model}: SPEC CPU2017 result {result_id} not in the dump")
    r = results.loc[result_id]
    cpu = str(r["cpu"]).strip()
    short = cpu.removeprefix("Intel ").removeprefix("AMD ")
    if int(r["chips"]) != 2 or not model.endswith(f"2x {short}"):
        raise SystemExit(f"{model}: {result_id} is {r['chips']} x {cpu}")
    cores, base = int(r["cores"]), float(r["base"])
    vendor = "AMD" if cpu.startswith("AMD") else "Intel"
    idle, top, power_text = power_proxy(ccf, vendor)
    url = f"{SPEC_SITE}/{r['quarter']}/{result_id}.html"
    return dict(
        model=model,
        sockets=2,
        cores_per_socket=cores // 2,
        threads_per_core=int(r["threads_per_core"]),
        cpu_mhz=float(r["mhz"]),
        cpu_score_per_core=base / cores,
        mem_gib=mem,
        power_idle_w=idle,
        power_basis="estimated",
        power_max_w=top,
        rack_u=rack_u,
        cpu_name=cpu,
        cpu_score_basis="SPECrate2017_int_base",
        source=(
            f"{generation}; CPU score: SPEC CPU2017 CINT2017rate base {base:g} / "
            f"{cores} cores, result {str(r['vendor']).strip()} {str(r['system']).strip()}, "
            f"published {r['published']}, {url} (tested with {r['memory']}); "
            f"{power_text}; memory: {mem} GiB configured ({dimms}, one DIMM per "
            f"channel; a configuration choice); {rack_u:g}U; price: yours (list "
            "prices are not published consistently)"
        ),
    )


def current_host_rows(spec_dump: Path, ccf: pd.DataFrame) -> list[dict[str, object]]:
    """The rows of :data:`CURRENT_HOSTS`, in that order."""
    results = read_cint_rate_results(spec_dump)
    return [current_host_row(results, ccf, entry) for entry in CURRENT_HOSTS]
