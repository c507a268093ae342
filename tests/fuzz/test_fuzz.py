"""Bounded fuzz suite (CI): mutated real inputs of every format through the CLI.

One test per mutation family (:mod:`tests.fuzz.mutate`). Hypothesis draws a
seed file of any format (:mod:`tests.fuzz.corpus`, small files only), the
mutation's random choices (``st.randoms``, shrinkable) and runs the command
in-process (typer's ``CliRunner`` on ``vsizer.cli.app``). Every example must
end in success with every plan invariant holding, or in a clean error (exit 2,
``error:`` lines); :mod:`tests.fuzz.oracle` says what each outcome means.

A failure whose cause is a known open defect (:data:`KNOWN`, being fixed on
other branches) does not fail the test: the test is marked xfail with the
reproducer, so the suite passes on main as it is and starts passing, with no
change here, once the defect is fixed. Any other failure fails the test with
the seed, family and the Random's choices that reproduce it.

Budget: about ``EXAMPLES`` examples per family, ~60 s for the module on 2
cores. The long campaign with figures is ``make fuzz`` (:mod:`tests.fuzz.run`).
"""

from __future__ import annotations

import random
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.fuzz.corpus import seeds
from tests.fuzz.harness import judge, prepare, run_inprocess
from tests.fuzz.mutate import FAMILIES, families_for, mutate

pytestmark = [pytest.mark.slow, pytest.mark.fuzz]

EXAMPLES = 24

#: Seeds small enough for in-process CI runs (the big shared workbook is for make fuzz).
SMALL = tuple(s for s in seeds() if len(s.data) < 150_000 and s.families is None)

#: Known open defects: (regex on the outcome detail, reproducer). Found by this
#: suite, routed to the branches fixing them (issue 12 items 1, 2 and 6).
KNOWN: tuple[tuple[str, str], ...] = ()
# Every defect this suite found in its first 5,000-run campaign is fixed and has
# a reproducer in REPRODUCERS below (docs/reliability.md, Fuzzing).


@pytest.fixture(scope="module", autouse=True)
def _compiled_search_warm() -> None:
    """Compile the placement kernels (numba) before the timed runs: on a fresh checkout
    the compiles (the breakout search some 17 CPU s, the greedy kernel some 7 s on the
    2-core machine) would count against a run's ``INPROCESS_SECONDS`` wall-clock limit
    and make it a hang."""
    from pathlib import Path

    import numpy as np

    import vsizer
    from vsizer.placement.breakout_reduce import reduce_hosts

    samples = Path(vsizer.__file__).parent / "data" / "samples"
    vsizer.plan(vsizer.read_inventory(samples / "inventory_ja.csv"))

    curves = np.array([[[0.6], [0.6]], [[0.5], [0.5]], [[0.3], [0.3]]])
    none = np.full(3, -1, dtype=np.int64)
    reduce_hosts(curves, np.ones(1), np.arange(3), 3, groups=none, pins=none,
                 base_load=np.zeros(1))


def _known(detail: str) -> str | None:
    for pattern, reproducer in KNOWN:
        if re.search(pattern, detail):
            return reproducer
    return None


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
          print_blob=True, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(data=st.data())
def _fuzz_family(family: str, found: list[str], data: st.DataObject) -> None:
    pool = [s for s in SMALL if family in families_for(s.kind)]
    seed = data.draw(st.sampled_from(pool), label="seed")
    rnd = data.draw(st.randoms(use_true_random=False), label="random")
    stack = data.draw(st.sampled_from([1, 1, 1, 2]), label="stack")
    mutated = mutate(seed.data, seed.kind, family, rnd, stack)
    with tempfile.TemporaryDirectory(prefix="vsizer-fuzz-") as tmp:
        argv, inp, out = prepare(seed, mutated, Path(tmp) / "run")
        outcome = judge(seed, run_inprocess(argv), inp, out)
    if outcome.status in ("success", "clean_error"):
        return
    detail = outcome.detail
    known = _known(detail)
    if known is not None:
        found.append(f"{seed.fmt} {seed.name}: {outcome.status}: {detail[:160]} "
                     f"(known; reproducer: {known})")
        return
    raise AssertionError(
        f"{outcome.status} for {seed.name} ({seed.fmt}) mutated by {family} "
        f"x{stack}: {detail}\nviolations: {outcome.violations[:5]}\n"
        f"command: vsizer {' '.join(argv)}"
    )


@pytest.mark.parametrize("family", list(FAMILIES))
def test_mutated_inputs_end_in_success_or_a_clean_error(family: str) -> None:
    found: list[str] = []
    _fuzz_family(family, found)
    if found:
        pytest.xfail(f"{len(found)} example(s) hit known open defects: "
                     + " | ".join(dict.fromkeys(found)))


def test_every_format_has_a_seed_that_plans_or_imports_unmutated(tmp_path: Path) -> None:
    """The seeds themselves succeed (else their mutations would test little)."""
    for i, seed in enumerate(SMALL):
        argv, inp, out = prepare(seed, seed.data, tmp_path / str(i))
        outcome = judge(seed, run_inprocess(argv), inp, out)
        assert outcome.status == "success", (seed.name, outcome)


@pytest.mark.parametrize("fmt", ["table-csv", "table-xlsx", "rvtools", "bitbrains"])
def test_plan_is_byte_identical_on_a_second_run(tmp_path: Path, fmt: str) -> None:
    seed = next(s for s in SMALL if s.fmt == fmt and s.plans)
    rnd = random.Random(fmt)
    mutated = mutate(seed.data, seed.kind, "column_duplicate", rnd)
    argv, inp, out = prepare(seed, mutated, tmp_path / "run")
    first = run_inprocess(argv)
    if first.status != "success":
        pytest.skip(f"mutated seed did not plan: {first.detail}")
    before = out.read_bytes()
    out.unlink()
    assert run_inprocess(argv).status == "success"
    assert out.read_bytes() == before


def test_the_oracle_catches_an_overflow_to_null(tmp_path: Path) -> None:
    """The given_number invariant on the issue's reproducer (mem_gib = 1e400)."""
    from tests.fuzz.oracle import check_plan

    csv = tmp_path / "m.csv"
    csv.write_text("name,sockets,cores_per_socket,cpu_mhz,cpu_peak_pct,mem_gib\n"
                   "s1,2,4,2400,40,64\n")
    out = tmp_path / "m.json"
    assert run_inprocess(["plan", str(csv), "-o", str(out), "-q"]).status == "success"
    assert check_plan(out, "table-csv", csv) == []
    import json

    plan = json.loads(out.read_text())
    plan["servers"][0]["mem_gib"] = None
    plan["servers"][0]["host"] = None
    out.write_text(json.dumps(plan))
    violations = check_plan(out, "table-csv", csv)
    assert any(v.startswith("given_number: 's1' mem_gib") for v in violations)
    assert any(v.startswith("placed: server 's1' has no host") for v in violations)


def test_the_oracle_catches_a_value_changed_without_a_word(tmp_path: Path) -> None:
    """given_value: a number read in the field's own unit that the plan shows
    otherwise is silently wrong, unless a warning names the server; a column
    in another unit (MB) is not compared."""
    import json

    from tests.fuzz.oracle import check_plan

    csv = tmp_path / "m.csv"
    csv.write_text("name,sockets,cores_per_socket,cpu_mhz,cpu_peak_pct,mem_gib,power_w\n"
                   "s1,2,4,2400,40,64,350\n")
    out = tmp_path / "m.json"
    assert run_inprocess(["plan", str(csv), "-o", str(out), "-q"]).status == "success"
    assert check_plan(out, "table-csv", csv) == []
    plan = json.loads(out.read_text())
    plan["servers"][0]["power_w"] = 500.0
    plan["warnings"] = [w for w in plan["warnings"] if "s1" not in w.get("servers", [])]
    plan["warnings"] = [w for w in plan["warnings"] if "power_w" not in w["message"]]
    out.write_text(json.dumps(plan))
    assert check_plan(out, "table-csv", csv) == [
        "given_value: 's1' power_w = '350' in the input, 500.0 in the plan, and no "
        "warning or note says why"
    ]
    plan["warnings"].append({"code": "clipped", "message": "...", "servers": ["s1"]})
    out.write_text(json.dumps(plan))
    assert check_plan(out, "table-csv", csv) == []
    mb = tmp_path / "mb.csv"
    mb.write_text("name,sockets,cores_per_socket,cpu_mhz,cpu_peak_pct,mem (MB)\n"
                  "s1,2,4,2400,40,65536\n")
    assert run_inprocess(["plan", str(mb), "-o", str(out), "-q"]).status == "success"
    assert json.loads(out.read_text())["servers"][0]["mem_gib"] == 64.0
    assert check_plan(out, "table-csv", mb) == []


def test_the_oracle_classifies_exits() -> None:
    from tests.fuzz.oracle import classify

    assert classify(0, "", None).status == "success"
    assert classify(2, "error: a.csv: bad\n", None).status == "clean_error"
    assert classify(2, "Usage: ...\n", None).status == "traceback"
    assert classify(1, "error: internal error (X: y); rerun", None).status == "traceback"
    assert classify(1, "", ValueError("x")).status == "traceback"
    assert classify(1, "", IsADirectoryError(21, "Is a directory")).status == "clean_error"
    assert classify(2, "error: a\x1b[2J\n", None).raw_control


_INV = "name,sockets,cores_per_socket,cpu_mhz,cpu_peak_pct,mem_gib\n"
_SAMPLE = str(Path(__file__).resolve().parents[2] / "vsizer" / "data" / "samples"
              / "inventory_ja.csv")


def _open(reason: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=False, reason=f"open defect (issue 12): {reason}")


#: Reproducers of issue 12 and of this suite's findings, as files and commands.
#: Each must end in success with the plan invariants, or a clean error (an open
#: defect may be marked with :func:`_open` while it is being fixed).
REPRODUCERS = [
    pytest.param({"a.csv": 'm_1,0,21,88,,,43.19,35.81,5\nm_1,10,"23,8,12.5,3,43.2\n'},
                 ["import", "a.csv", "--format", "alibaba", "--store", "st"],
                 id="alibaba-quote"),
    pytest.param({"c.csv": "name,sockets,cores_per_socket,cpu_name,cpu_peak_pct,"
                  "mem_gib\ns1,2,4," + "9" * 9000 + ",40,16\n"},
                 ["plan", "c.csv", "-o", "c.json", "-q"], id="cpu-name-9000-digits"),
    pytest.param({"m.csv": _INV + "s1,2,4,2400,40,1e400\n"},
                 ["plan", "m.csv", "-o", "m.json", "-q"], id="mem_gib-1e400"),
    pytest.param({"m.csv": _INV + "s1,2,4,2400,40,1e308\n"},
                 ["plan", "m.csv", "-o", "m.json", "-q"], id="mem_gib-1e308"),
    pytest.param({"s.csv": _INV + "s1,1e20,4,2400,40,16\n"},
                 ["plan", "s.csv", "-o", "s.json", "-q"], id="sockets-1e20"),
    pytest.param({"h.csv": _INV}, ["plan", "h.csv", "-o", "h.json", "-q"],
                 id="header-only"),
    pytest.param({"h.csv": _INV + "s1,2,4,2400,40," + "x" * 131_073 + "\n"},
                 ["plan", "h.csv", "-o", "h.json", "-q"],
                 id="cell-131073"),
    pytest.param({"b.csv": "epoch,web01\ninf,10\n"},
                 ["import", "b.csv", "--format", "wide", "--metric", "cpu_util",
                  "--store", "st"], id="wide-inf-epoch"),
    pytest.param({"a.csv": "m_1,0,21,88,,,43.19,35.81,5\nm_1,10,23,8\r8,12.5,3,43.2,35.9,5\n"},
                 ["import", "a.csv", "--format", "alibaba", "--store", "st"],
                 id="alibaba-bare-cr"),
    pytest.param({"bad.toml": b'ceiling = "\xff"\n'},
                 ["plan", _SAMPLE, "--config", "bad.toml", "-o", "p.json", "-q"],
                 id="toml-not-utf8"),
    pytest.param({"u.csv": "time,web01\n".encode("utf-16")[:15]},
                 ["import", "u.csv", "--format", "wide", "--metric", "cpu_util",
                  "--store", "st"], id="utf16-truncated"),
]


@pytest.mark.parametrize(("files", "argv"), REPRODUCERS)
def test_reproducers_end_in_success_or_a_clean_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str | bytes],
    argv: list[str],
) -> None:
    for name, body in files.items():
        data = body.encode() if isinstance(body, str) else body
        (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    outcome = run_inprocess(argv)
    if outcome.status == "success" and argv[0] == "plan":
        from tests.fuzz.oracle import check_plan

        src = tmp_path / argv[1]
        fmt = "table-csv" if src.suffix == ".csv" and src.parent == tmp_path else None
        violations = check_plan(tmp_path / argv[argv.index("-o") + 1], fmt, src)
        assert violations == []
    assert outcome.status in ("success", "clean_error"), outcome
