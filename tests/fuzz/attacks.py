"""Semantic attack families of the fuzz suite (issue 24): outputs, concurrency,
scenario files and parameters.

The byte families of :mod:`tests.fuzz.mutate` change an input file. These
change what a run is asked to do: an ``-o`` that resolves to an input, two
plans writing one output set at once, a scenario TOML shaped as an attack, a
parameter that asks for unbounded work. Each family is a function
``(rnd) -> Attack``: the files of the run, one command line per process (two
for ``concurrency``), which files are inputs (their bytes must not change)
and what the run must end in. :func:`judge_attack` applies the oracle.

Families (each is also a "format" of the figures, so each gets its turn)
-----------------------------------------------------------------------
output_is_input  ``-o`` is the inventory, the scenario file, a symbolic or
                 hard link to the inventory, or the inventory by another
                 path (``sub/../inv.csv``); expected: one error line, exit 2
concurrency      two plans at once on one output set (``-o plan.json -o
                 plan.xlsx``), told apart by ``--currency``; expected: both
                 succeed and the set is one run's (JSON and XLSX agree)
toml_attack      a scenario with a UTF-8 BOM, arrays or tables nested up to
                 5,000 deep, a pool key in another case or naming no pool, a
                 memory reserve or VM overhead of 1e300; expected per variant
parameters       ``--min-hosts`` up to 100,000, ``--failures`` up to 8 on
                 pools held at 20-60 hosts, a failover budget of 1; expected:
                 a plan (or one error line) within the family's budget
series_time      a utilization series whose timing attacks the grid or the
                 coverage: a clock-reset sample (1970), a far-future one (2262),
                 both, samples a year apart, a lone short series at 5 % for a
                 server whose inventory peak is 80 %, a series that is only
                 that sample, samples shuffled or repeated, local times in a
                 daylight-saving overlap or gap (``--tz Europe/Berlin``);
                 expected per variant: a plan carrying the warning that names
                 the choice (and a short series never below the inventory
                 peak), or one error line naming the gap
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.fuzz.corpus import SAMPLES, TESTDATA
from tests.fuzz.oracle import Outcome, check_plan

INVENTORY = TESTDATA / "inventory" / "table_en.csv"  # pools 'prod' and 'dev'
XLSX = SAMPLES / "inventory_ja.xlsx"


@dataclass(frozen=True)
class Budget:
    """CPU time [s, user + system] and memory [MiB of RSS the run adds to the
    forked parent]; wall time is bounded at ``WALL_FACTOR`` times the CPU time
    (:mod:`tests.fuzz.run`), so a run slowed by other jobs is not over budget."""

    seconds: float
    rss_mib: float


#: Budget of every run of a family (the byte families share the default).
DEFAULT_BUDGET = Budget(60.0, 1024.0)
BUDGETS: dict[str, Budget] = {
    "output_is_input": Budget(30.0, 512.0),
    "concurrency": Budget(60.0, 1024.0),  # two plans, each within it
    "toml_attack": Budget(30.0, 512.0),
    "parameters": Budget(60.0, 1536.0),
    "series_time": Budget(60.0, 1024.0),  # five yearly samples: a 420,481-step grid
}


def budget_of(family: str) -> Budget:
    return BUDGETS.get(family, DEFAULT_BUDGET)


def over_budget(family: str, seconds: float, rss_mib: float | None) -> str | None:
    """The budget violation of a finished run of ``family``, or None."""
    b = budget_of(family)
    if seconds <= b.seconds and (rss_mib or 0.0) <= b.rss_mib:
        return None
    return (f"over_budget: {seconds:.1f} s, {rss_mib:.0f} MiB over the budget of "
            f"{b.seconds:g} s, {b.rss_mib:g} MiB of {family}")


@dataclass
class Attack:
    """One run of an attack family.

    ``argv`` holds ``{dir}`` for the run directory; ``inputs`` and ``outputs``
    are paths relative to it; ``links`` maps a link name to (target, 'sym' or
    'hard'). ``expect`` is 'success', 'clean_error' or 'either';
    ``warning`` a warning code the plan must carry when it succeeds.
    """

    family: str
    variant: str
    files: dict[str, bytes]
    argv: list[list[str]]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...] = ()
    links: dict[str, tuple[str, str]] = field(default_factory=dict)
    expect: str = "either"
    warning: str | None = None
    #: server -> the least CPU peak (fraction) the plan may give it
    peak_at_least: dict[str, float] = field(default_factory=dict)


def _plan(*extra: str, inv: str = "inv.csv") -> list[str]:
    return ["plan", "{dir}/" + inv, "-q", *extra]


# ------------------------------------------------------------------ families
def output_is_input(rnd: random.Random) -> Attack:
    inv, toml = INVENTORY.read_bytes(), b"[sizing]\nceiling = 0.55\n"
    files = {"inv.csv": inv, "s.toml": toml, "sub/.keep": b""}
    variant = rnd.choice(["same", "dotdot", "symlink", "hardlink", "xlsx", "config",
                          "absolute"])
    links: dict[str, tuple[str, str]] = {}
    cfg = ["--config", "{dir}/s.toml"]
    if variant == "xlsx":  # the data loss: plan inv.xlsx -o inv.xlsx
        files = {"inv.xlsx": XLSX.read_bytes()}
        return Attack("output_is_input", variant, files,
                      [_plan("-o", "{dir}/inv.xlsx", inv="inv.xlsx")], ("inv.xlsx",),
                      expect="clean_error")
    target = {"same": "{dir}/inv.csv", "dotdot": "{dir}/sub/../inv.csv",
              "absolute": "{dir}/./inv.csv", "symlink": "{dir}/plan.json",
              "hardlink": "{dir}/plan.json", "config": "{dir}/s.json"}[variant]
    if variant in ("symlink", "hardlink"):
        links["plan.json"] = ("inv.csv", variant[:-4])
    if variant == "config":  # a scenario file named .json, given as -o
        files["s.json"] = files.pop("s.toml")
        cfg = ["--config", "{dir}/s.json"]
    argv = _plan(*cfg, "-o", "{dir}/out.json", "-o", target)
    return Attack("output_is_input", variant, files, [argv],
                  tuple(n for n in files if not n.endswith(".keep")), links=links,
                  expect="clean_error")


def concurrency(rnd: random.Random) -> Attack:
    outs = ["-o", "{dir}/out/plan.json", "-o", "{dir}/out/plan.xlsx"]
    extra = rnd.choice([[], ["--ceiling", "0.5"], ["--failures", "2"]])
    argv = [_plan(*outs, "--currency", c, *extra) for c in ("XAA", "XBB")]
    return Attack("concurrency", "two-plans", {"inv.csv": INVENTORY.read_bytes(),
                                              "out/.keep": b""},
                  argv, ("inv.csv",), ("out/plan.json", "out/plan.xlsx"),
                  expect="success")


_BASE_TOML = "[sizing]\nceiling = 0.55\nfailures = 1\n"


def _toml_variant(rnd: random.Random) -> tuple[str, bytes, str, str | None]:
    """(variant, TOML bytes, expected outcome, warning code required)."""
    depth = rnd.choice([33, 100, 1000, 3000, 5000])
    choices: dict[str, tuple[bytes, str, str | None]] = {
        "bom": (b"\xef\xbb\xbf" + _BASE_TOML.encode(), "success", None),
        "deep_array": (("a = " + "[" * depth + "]" * depth + "\n").encode(),
                       "clean_error", None),
        "deep_inline": (("a = " + "{b = " * depth + "1" + "}" * depth + "\n").encode(),
                        "clean_error", None),
        "deep_table": (("[" + ".".join(["t"] * depth) + "]\n").encode(),
                       "clean_error", None),
        "pool_case": ((_BASE_TOML + '[pools."PROD"]\nceiling = 0.8\n').encode(),
                      "success", "pool_override_case"),
        "pool_unknown": ((_BASE_TOML + '[pools."nosuch"]\nceiling = 0.8\n').encode(),
                         "clean_error", None),
        "reserve_1e300": (b"[overhead]\nhost_memory_reserve_gib = 1e300\n",
                          "clean_error", None),
        "overhead_1e300": (b"[overhead]\nvm_memory_overhead_mib = 1e300\n",
                           "clean_error", None),
    }
    name = rnd.choice(sorted(choices))
    data, expect, warning = choices[name]
    return name, data, expect, warning


def toml_attack(rnd: random.Random) -> Attack:
    variant, data, expect, warning = _toml_variant(rnd)
    files = {"inv.csv": INVENTORY.read_bytes(), "s.toml": data}
    argv = _plan("--config", "{dir}/s.toml", "-o", "{dir}/out/plan.json")
    return Attack("toml_attack", variant, files, [argv], ("inv.csv", "s.toml"),
                  ("out/plan.json",), expect=expect, warning=warning)


def parameters(rnd: random.Random) -> Attack:
    variant = rnd.choice(["min_hosts", "failures", "budget_one"])
    if variant == "min_hosts":
        extra = ["--min-hosts", str(rnd.choice([1000, 10_000, 30_000, 100_000]))]
    elif variant == "failures":
        extra = ["--failures", str(rnd.randint(2, 8)),
                 "--min-hosts", str(rnd.choice([20, 30, 40, 60]))]
    else:
        extra = ["--failures", "3", "--min-hosts", "30", "--failover-budget", "1"]
    argv = _plan(*extra, "-o", "{dir}/out/plan.json")
    return Attack("parameters", variant, {"inv.csv": INVENTORY.read_bytes()}, [argv],
                  ("inv.csv",), ("out/plan.json",), expect="either")


_T0 = 1_709_251_200  # 2024-03-01T00:00:00Z
_SERIES_HEAD = "server,timestamp,metric,value,unit"


def _iso(epoch_s: int) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(epoch_s, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _bulk(rnd: random.Random, server: str = "web01", n: int = 864) -> list[str]:
    """``n`` 5-minute CPU samples of ``server`` from 2024-03-01 (3 days at 864)."""
    return [f"{server},{_iso(_T0 + 300 * i)},cpu_util,{rnd.randint(5, 60)},%"
            for i in range(n)]


def _local_rows(day: str, hours: list[str]) -> list[str]:
    return [f"web01,{day}T{h},cpu_util,{20 + i},%" for i, h in enumerate(hours)]


def _series_variant(rnd: random.Random) -> tuple[str, list[str], list[str], str, str | None]:
    """(variant, rows, extra flags, expected outcome, warning code required)."""
    name = rnd.choice(["clock_reset", "far_future", "reset_and_future", "yearly",
                       "lone_short", "lone_only", "shuffled", "repeated",
                       "dst_overlap", "dst_gap"])
    reset = "web01,1970-01-01T00:00:00Z,cpu_util,50,%"
    future = "web01,2262-01-01T00:00:00Z,cpu_util,50,%"
    short = "db01,2024-03-01T12:00:00Z,cpu_util,5,%"
    hours = [f"{h:02d}:{m:02d}:00" for h in range(24) for m in range(0, 60, 30)]
    table: dict[str, tuple[list[str], list[str], str, str | None]] = {
        "clock_reset": ([*_bulk(rnd), reset], [], "success", "series_outlying_time"),
        "far_future": ([*_bulk(rnd), future], [], "success", "series_outlying_time"),
        "reset_and_future": ([*_bulk(rnd), reset, future], [], "success",
                             "series_outlying_time"),
        "yearly": ([f"db01,{2019 + y}-03-01T00:00:00Z,cpu_util,40,%" for y in range(5)],
                   [], "either", "short_series"),
        "lone_short": ([*_bulk(rnd), short], [], "success", "short_series"),
        "lone_only": ([short], [], "success", "short_series"),
        "shuffled": (rnd.sample(_bulk(rnd), 864), [], "success", None),
        "repeated": ([*(b := _bulk(rnd, n=300)), *b[:50]], [], "success",
                     "series_duplicate"),
        # Europe/Berlin: 2024-10-27 02:00-02:59 twice; 2024-03-31 02:00-02:59 never
        "dst_overlap": (_local_rows("2024-10-27", hours[:6] + hours[4:]),
                        ["--tz", "Europe/Berlin"], "success", None),
        "dst_gap": (_local_rows("2024-03-31", hours), ["--tz", "Europe/Berlin"],
                    "clean_error", None),
    }
    rows, extra, expect, warning = table[name]
    return name, rows, extra, expect, warning


def series_time(rnd: random.Random) -> Attack:
    variant, rows, extra, expect, warning = _series_variant(rnd)
    data = "\n".join([_SERIES_HEAD, *rows]).encode() + b"\n"
    argv = _plan("--series", "{dir}/s.csv", "--series-format", "long", *extra,
                 "-o", "{dir}/out/plan.json")
    floor = {"db01": 0.8} if variant.startswith("lone") else {}  # table_en.csv: 80 %
    return Attack("series_time", variant, {"inv.csv": INVENTORY.read_bytes(), "s.csv": data},
                  [argv], ("inv.csv", "s.csv"), ("out/plan.json",), expect=expect,
                  warning=warning, peak_at_least=floor)


ATTACKS: dict[str, Callable[[random.Random], Attack]] = {
    "output_is_input": output_is_input,
    "concurrency": concurrency,
    "toml_attack": toml_attack,
    "parameters": parameters,
    "series_time": series_time,
}


# ------------------------------------------------------------------ running
def write_attack(attack: Attack, where: Path) -> tuple[list[list[str]], dict[str, str]]:
    """Write the files and links under ``where``; the argvs and the inputs' digests."""
    for name, data in attack.files.items():
        p = where / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    for name, (target, how) in attack.links.items():
        (os.symlink if how == "sym" else os.link)(where / target, where / name)
    argv = [[a.replace("{dir}", str(where)) for a in one] for one in attack.argv]
    return argv, digests(where, attack.inputs)


def digests(where: Path, names: tuple[str, ...]) -> dict[str, str]:
    """SHA-256 of each input file (missing: '')."""
    out = {}
    for name in names:
        p = where / name
        out[name] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else ""
    return out


def _xlsx_currencies(path: Path) -> set[str]:
    import openpyxl

    wb = openpyxl.load_workbook(path, read_only=True)
    try:
        return {c for ws in wb.worksheets for row in ws.iter_rows(values_only=True)
                for v in row for c in ("XAA", "XBB") if isinstance(v, str) and c in v}
    finally:
        wb.close()


def mixed_set(where: Path) -> str | None:
    """The concurrency invariant: JSON and XLSX of the set come from one run."""
    js, xl = where / "out" / "plan.json", where / "out" / "plan.xlsx"
    if not (js.exists() and xl.exists()):
        return f"mixed_set: the set is incomplete (json {js.exists()}, xlsx {xl.exists()})"
    currency = json.loads(js.read_text(encoding="utf-8"))["parameters"]["currency"]
    found = _xlsx_currencies(xl)
    if found != {currency}:
        return f"mixed_set: plan.json is the {currency} run, plan.xlsx shows {sorted(found)}"
    return None


def _violations(attack: Attack, where: Path, outcome: Outcome,
                before: dict[str, str]) -> list[str]:
    out = []
    after = digests(where, attack.inputs)
    for name in attack.inputs:
        if after[name] != before[name]:
            out.append(f"input_changed: {name} was {'removed' if not after[name] else 'rewritten'}"
                       f" by the run ({attack.variant})")
    if attack.expect != "either" and outcome.status != attack.expect:
        out.append(f"expected: {attack.variant} should end in {attack.expect}, "
                   f"got {outcome.status} ({outcome.detail[:80]})")
    if outcome.status == "success":
        for name in attack.outputs:
            if name.endswith(".json") and (where / name).exists():
                out += check_plan(where / name)
        if attack.warning is not None:
            doc = json.loads((where / attack.outputs[0]).read_text(encoding="utf-8"))
            if attack.warning not in {w.get("code") for w in doc.get("warnings", [])}:
                out.append(f"unwarned: {attack.variant} succeeded without warning "
                           f"'{attack.warning}'")
        out += _peaks_kept(attack, where)
        if attack.family == "concurrency":
            mixed = mixed_set(where)
            out += [mixed] if mixed else []
    return out


def _peaks_kept(attack: Attack, where: Path) -> list[str]:
    """A short series never takes a server below its inventory peak."""
    if not attack.peak_at_least:
        return []
    doc = json.loads((where / attack.outputs[0]).read_text(encoding="utf-8"))
    peaks = {s.get("name"): s.get("cpu_peak_util") for s in doc.get("servers", [])}
    return [f"undersized: {attack.variant}: {name} planned at a CPU peak of "
            f"{peaks.get(name)}, below its inventory's {least}"
            for name, least in attack.peak_at_least.items()
            if not isinstance(peaks.get(name), int | float) or peaks[name] < least - 1e-9]


def judge_attack(attack: Attack, where: Path, outcome: Outcome,
                 before: dict[str, str]) -> Outcome:
    """The attack oracle over a run's outcome: inputs unchanged, the expected
    outcome, the plan invariants and, for two plans, one consistent set."""
    if outcome.status in ("traceback", "hang"):
        return outcome
    violations = _violations(attack, where, outcome, before)
    if violations:
        outcome.status = "silently_wrong"
        outcome.violations = violations
        outcome.detail = violations[0][:200]
    return outcome
