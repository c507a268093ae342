"""Seed corpus of the fuzz suite: real sample files of every input format.

Each :class:`Seed` is one real file (a shipped sample, a test fixture, or a
file of ``../shared/data/formats`` when present) and the vsizer command that
reads it. Mutations (:mod:`tests.fuzz.mutate`) are applied to the seed's bytes;
the mutated file is written under ``filename`` and the command run with
``{input}``, ``{out}`` (a plan.json path) and ``{store}`` (a series store) filled.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "vsizer" / "data" / "samples"
TESTDATA = REPO / "tests" / "data"
SERIES = TESTDATA / "series"
SHARED = REPO.parent / "shared" / "data" / "formats"
SAMPLE_CSV = SAMPLES / "inventory_ja.csv"

PLAN = ("plan", "{input}", "-o", "{out}", "-q")
BYTE_FAMILIES = ("byte_flip", "truncate", "empty", "xlsx_member")


@dataclass(frozen=True)
class Seed:
    """One real input file and the command that reads it.

    Attributes
    ----------
    name : str
        Where it comes from, e.g. ``samples/inventory_ja.csv``.
    fmt : str
        Input format (the per-format figures are grouped by it).
    kind : str
        ``text`` (CSV, TSV, JSON, TOML, sar text...) or ``xlsx``.
    filename : str
        Name the mutated copy is written under (suffix and prefix matter to
        format detection, e.g. GCD ``vm_*``).
    argv : tuple of str
        Command line, with ``{input}``, ``{out}`` and ``{store}`` placeholders.
    data : bytes
        The seed's bytes.
    """

    name: str
    fmt: str
    kind: str
    filename: str
    argv: tuple[str, ...]
    data: bytes
    #: Mutation families allowed (None = all); a big workbook skips the
    #: openpyxl-level edits, which take seconds on it.
    families: tuple[str, ...] | None = None

    @property
    def plans(self) -> bool:
        """True when a successful run writes a plan.json to check."""
        return "{out}" in self.argv

    @property
    def inventory(self) -> bool:
        """True when the mutated file is the plan's inventory (number invariant)."""
        return self.argv[:2] == ("plan", "{input}")


def _head(path: Path, lines: int) -> bytes:
    """First ``lines`` lines of a big real file (keeps each run small)."""
    with path.open("rb") as f:
        return b"".join(f.readline() for _ in range(lines))


def _rvtools_bytes() -> bytes:
    import sys
    import tempfile

    sys.path.insert(0, str(REPO))
    try:
        from tests.rvtools_fixture import write_old_layout
    finally:
        sys.path.pop(0)
    with tempfile.TemporaryDirectory() as tmp:
        path = write_old_layout(Path(tmp) / "rvtools_old.xlsx")
        return path.read_bytes()


#: A workbook another tool wrote in RVTools' layout (tests/data/real/rvtools).
_GENERATED = TESTDATA / "real" / "rvtools" / "rvtools-layout-generated_ibm-small-complete.xlsx"


def _vinfo_csv(path: Path) -> bytes:
    """The vInfo tab of an RVTools workbook as RVTools' per-tab CSV export writes it."""
    import csv
    import io

    import openpyxl

    wb = openpyxl.load_workbook(path, read_only=True)
    buf = io.StringIO()
    w = csv.writer(buf)
    for row in wb["vInfo"].iter_rows(values_only=True):
        w.writerow(["" if v is None else v for v in row])
    return buf.getvalue().encode("utf-8-sig")


_GCD = b"58.713 10.1152\n58.283 10.1457\n58.169 10.1326\n7.0 101.5\n6.5 215.3\n"


def _text(fmt: str, path: Path, argv: tuple[str, ...], *, lines: int = 0,
          filename: str | None = None, data: bytes | None = None) -> Seed:
    raw = data if data is not None else (_head(path, lines) if lines else path.read_bytes())
    try:
        name = str(path.relative_to(REPO))
    except ValueError:
        name = "shared/" + str(path.relative_to(SHARED))
    return Seed(name, fmt, "text", filename or path.name, argv, raw)


def _import(fmt: str, *extra: str) -> tuple[str, ...]:
    return ("import", "{input}", "--format", fmt, "--store", "{store}", *extra)


def _series_plan(fmt: str, *extra: str) -> tuple[str, ...]:
    return ("plan", "--series", "{input}", "--series-format", fmt, *extra,
            "-o", "{out}", "-q")


@cache
def seeds() -> tuple[Seed, ...]:
    """Every seed, in a fixed order (shared files only when present)."""
    out: list[Seed] = [
        # -- inventories ---------------------------------------------------
        _text("table-csv", SAMPLE_CSV, PLAN),
        _text("table-csv", TESTDATA / "inventory" / "table_en.csv", PLAN),
        _text("table-csv", TESTDATA / "inventory" / "table_ja.csv", PLAN),
        Seed("samples/inventory_ja.xlsx", "table-xlsx", "xlsx", "inventory_ja.xlsx",
             PLAN, (SAMPLES / "inventory_ja.xlsx").read_bytes()),
        Seed("tests/rvtools_fixture.py", "rvtools", "xlsx", "rvtools_old.xlsx", PLAN,
             _rvtools_bytes()),
        Seed("tests/data/real/rvtools/" + _GENERATED.name, "rvtools", "xlsx",
             _GENERATED.name, PLAN, _GENERATED.read_bytes()),
        Seed("tests/data/real/rvtools/" + _GENERATED.name + " vInfo", "rvtools-csv",
             "text", "RVTools_tabvInfo.csv", PLAN, _vinfo_csv(_GENERATED)),
        _text("azure_migrate", TESTDATA / "inventory" / "azure_migrate_docs_fields.csv",
              PLAN),
        _text("azure_migrate",
              TESTDATA / "inventory" / "azure_migrate_rvtools2azmigrate.csv", PLAN),
        _text("azure_migrate", TESTDATA / "inventory" / "azure_migrate_with_clock.csv",
              PLAN),
        # real third-party files (issue 23): the Azure Migrate template as filled
        # in by its user, a server list whose CPU column is a core count
        _text("azure_migrate",
              TESTDATA / "real" / "azure_migrate" / "AzureMigrateimport-01.csv", PLAN),
        _text("table-csv", TESTDATA / "real" / "tables" / "racktrack_servers.csv", PLAN),
        # -- catalogs and scenario ------------------------------------------
        _text("host_catalog", REPO / "vsizer" / "catalogs" / "data" / "hosts.csv",
              ("plan", str(SAMPLE_CSV), "--hosts", "{input}", "--host-model",
               "Dell PowerEdge R640 2x Platinum 8180", "-o", "{out}", "-q"),
              lines=12),
        _text("cpu_catalog", REPO / "vsizer" / "catalogs" / "data" / "cpus.csv",
              ("plan", str(SAMPLE_CSV), "--cpus", "{input}", "-o", "{out}", "-q"),
              lines=40),
        _text("scenario", SAMPLES / "scenario.toml",
              ("plan", str(SAMPLE_CSV), "--config", "{input}", "-o", "{out}", "-q")),
        # -- series ----------------------------------------------------------
        _text("sar", SERIES / "sysstat" / "sadf_d_quirks.csv", _import("sar")),
        _text("sar", SERIES / "sysstat" / "sadf_dh_cpu_mem_dev.csv", _import("sar")),
        _text("sar", SERIES / "sysstat" / "sar_u_r_ampm_restart.txt", _import("sar")),
        _text("sar", SERIES / "sysstat" / "sadf_j_jst.json", _import("sar")),
        _text("perfmon", SERIES / "perfmon" / "en_tokyo_bias.csv", _import("perfmon")),
        _text("perfmon", SERIES / "perfmon" / "ja_cp932.csv", _import("perfmon")),
        _text("perfmon", SERIES / "perfmon" / "en_tokyo_bias_utf16.csv",
              _import("perfmon")),
        _text("perfmon", SERIES / "perfmon" / "quirks_gmt.csv", _import("perfmon")),
        _text("prometheus", SERIES / "prometheus" / "web01_a.prom",
              _import("prometheus", str(SERIES / "prometheus" / "web01_b.prom"))),
        _text("prometheus", SERIES / "prometheus" / "query_range_cpu.json",
              _import("prometheus", "--metric", "cpu_util")),
        _text("long", SERIES / "tabular" / "long_units.csv", _import("long")),
        _text("long", SERIES / "tabular" / "long_unix_ms.csv", _import("long")),
        _text("wide", SERIES / "tabular" / "wide_epoch.csv",
              _import("wide", "--metric", "cpu_util")),
        _text("wide", SERIES / "tabular" / "wide_percent.csv", _import("wide")),
        _text("wide", SERIES / "tabular" / "wide_index.csv",
              _import("wide", "--start", "2024-01-01T00:00Z")),
        _text("planetlab", SERIES / "traces" / "planetlab" / "20110101" / "vm_a",
              _import("planetlab"), filename="20110101/vm_a"),
        _text("planetlab", SERIES / "traces" / "planetlab" / "20110101" / "vm_a",
              _series_plan("planetlab", "--vm-cpu-mhz", "1000", "--vm-mem-gib", "1"),
              filename="20110101/vm_a"),
        _text("bitbrains", SERIES / "traces" / "bitbrains" / "quirks.csv",
              _import("bitbrains")),
        _text("bitbrains", SERIES / "traces" / "bitbrains" / "quirks.csv",
              _series_plan("bitbrains")),
        _text("alibaba", SERIES / "traces" / "alibaba" / "machine_usage_sample.csv",
              _import("alibaba")),
        _text("gcd", SERIES / "traces" / "gcd" / "vm_5544436380_8",
              _import("gcd"), data=_GCD),
        _text("gcd", SERIES / "traces" / "gcd" / "vm_5544436380_8",
              _series_plan("gcd", "--vm-cpu-mhz", "2000", "--vm-mem-gib", "4"),
              data=_GCD),
    ]
    if SHARED.is_dir():
        shared = [
            ("sar", SHARED / "sysstat_sar_sadf" / "expected.sadf-dh.txt", _import("sar"), 0),
            ("prometheus", SHARED / "prometheus_node_exporter"
             / "node_exporter_e2e-output_linux.txt",
             _import("prometheus", "--server", "node1", "--metric", "mem_used_gib"), 0),
        ]
        for fmt, path, argv, lines in shared:
            if path.is_file():
                out.append(_text(fmt, path, argv, lines=lines))
        rv = SHARED / "rvtools" / "kubev2v_migration-planner_example1.xlsx"
        if rv.is_file():
            out.append(Seed("shared/rvtools/" + rv.name, "rvtools", "xlsx", rv.name, PLAN,
                            rv.read_bytes(), families=BYTE_FAMILIES))
    return tuple(out)


def formats() -> list[str]:
    """Distinct formats of the corpus, in corpus order."""
    return list(dict.fromkeys(s.fmt for s in seeds()))


__all__ = ["Seed", "formats", "seeds"]
