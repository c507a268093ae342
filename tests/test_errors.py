"""Problem lines: the flood cap shared by every reader, and hints that name CLI flags."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import vsizer
from vsizer.errors import (
    MAX_LINES_PER_KIND,
    InputError,
    InventoryError,
    cap_problems,
    problem_kind,
)
from vsizer.inventory import read_table


def test_problem_kind_ignores_file_and_row():
    a = "a.csv row 3, column 'cpu_mhz': expected a positive number, got 'x'."
    b = "b.csv line 9, column 'cpu_mhz': expected a positive number, got ''."
    assert problem_kind(a) == ((("cpu_mhz", "expected a positive number")), "a.csv")
    assert problem_kind(a)[0] == problem_kind(b)[0]
    assert problem_kind("vm2: expected 288 lines, got an empty file.") == (
        (None, "expected 288 lines, got an empty file."),
        "vm2",
    )
    assert problem_kind("f.log line 4: expected a number for '%idle', got 'x'.") == (
        (None, "expected a number for '%idle'"),
        "f.log",
    )


def test_cap_keeps_20_of_each_kind_in_order():
    cpu = [
        f"inv.csv row {r}, column 'cpu_mhz': expected a positive number, got 'x'."
        for r in range(2, 32)
    ]
    mem = ["inv.csv row 5, column 'mem_gib': expected a memory size, got '-1'."]
    lines = cap_problems(cpu[:3] + mem + cpu[3:])
    assert MAX_LINES_PER_KIND == 20
    assert len(lines) == 22
    assert lines[3] == mem[0]
    assert lines[20] == cpu[19]
    assert lines[21] == (
        "inv.csv, column 'cpu_mhz': … and 10 more like it (expected a positive number)."
    )
    # Capping again changes nothing.
    assert cap_problems(lines) == lines


def test_input_error_caps_its_message_and_problems():
    err = InputError([f"x.csv row {r}: expected a name, got ''." for r in range(45)])
    assert len(err.problems) == 21
    assert err.problems[-1] == "x.csv: … and 25 more like it (expected a name)."
    assert str(err).count("\n") == 20


def test_inventory_flood_is_capped(tmp_path):
    head = "サーバ名,CPU数,コア数/CPU,CPU 平均使用率(%),CPU 最高使用率(%),メモリ(GB)\n"
    rows = "".join(f"s{i},two,4,10,20,16\n" for i in range(50))
    path = tmp_path / "many.csv"
    path.write_text(head + rows, encoding="utf-8")
    with pytest.raises(InventoryError) as err:
        read_table(path)
    assert len(err.value.problems) == 21
    assert err.value.problems[0] == (
        "many.csv row 2, column 'CPU数': expected a positive whole number, got 'two'."
    )
    assert err.value.problems[-1] == (
        "many.csv, column 'CPU数': … and 30 more like it (expected a positive "
        "whole number)."
    )


# ------------------------------------------------ hints name CLI flags

#: Python-argument wording a CLI user cannot act on (issue 11: "pass encoding=",
#: "Pass metrics=(...)"). Messages say --encoding, --metric, --tz, ... instead.
_PYTHON_ARGUMENT = re.compile(
    r"\b[Pp]ass [a-z_]+ ?=|\b[a-z_]+=\(|\([a-z_]+=\)"
    r"|(?<![\w,.-])(?:encoding|tz|server|metrics?|start|unit|vm_cpu_mhz|vm_mem_gib"
    r"|mem_capacity_gib)=(?!\w)"
)


def _message_strings(path: Path) -> list[tuple[int, str]]:
    """String constants of a module outside docstrings, f-string parts joined."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(
            node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        ):
            body = node.body
            if body and isinstance(body[0], ast.Expr):
                docstrings.add(id(body[0].value))
    out = []
    for node in ast.walk(tree):
        if id(node) in docstrings:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.startswith("<?xml"):
                continue  # XML written into a file (a mended styles part), not a message
            out.append((node.lineno, node.value))
        elif isinstance(node, ast.JoinedStr):
            text = "".join(
                v.value if isinstance(v, ast.Constant) else "{}" for v in node.values
            )
            out.append((node.lineno, text))
    return out


@pytest.mark.slow
def test_no_message_names_a_python_argument():
    package = Path(vsizer.__file__).parent
    found = []
    for path in sorted(package.rglob("*.py")):
        for line, text in _message_strings(path):
            if _PYTHON_ARGUMENT.search(text):
                found.append(f"{path.relative_to(package)}:{line}: {text!r}")
    assert found == []


@pytest.mark.parametrize(
    "text",
    [
        "cannot decode the file as utf-8, cp932; pass encoding=.",
        "got 1 scrape. Pass metrics=('mem_used_gib',) to read gauges only.",
        "times read as UTC (pass tz= with the host's zone)",
        "Asia/Tokyo (tz=)",
    ],
)
def test_the_scan_catches_issue_11_wording(text):
    assert _PYTHON_ARGUMENT.search(text)


def test_places_inside_a_file_are_one_kind():
    lines = [
        f"v.json sysstat.hosts[0].statistics[{i}].cpu-load[0]: expected a number "
        f"for 'idle', got 'n/a{i}'."
        for i in range(23)
    ]
    capped = cap_problems(lines)
    assert len(capped) == 21
    assert capped[-1] == "v.json: … and 3 more like it (expected a number for 'idle')."
