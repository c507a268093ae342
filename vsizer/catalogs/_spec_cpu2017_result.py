"""One SPEC CPU2017 result's own report (``.csv`` or ``.txt``) as a listing row.

SPEC publishes every result as HTML, PDF, text and CSV
(``https://www.spec.org/cpu2017/results/res2021q2/cpu2017-20210315-25384.csv``);
``runcpu`` writes the same reports for a local run. Both formats carry what a
CPU-catalog row needs:

- the title, ``SPEC CPU2017 Integer Rate Result`` (CSV) or ``SPEC CPU(R)2017
  Integer Rate Result`` (text); only integer *rate* results give scores;
- the metric, ``SPECrate2017_int_base,770.361774,,770.361774`` (CSV) or
  `` SPECrate(R)2017_int_base   777`` (text; ``Est.`` before it for a run
  that is not reportable);
- the hardware: ``CPU Name``, ``Nominal`` (MHz) and ``Enabled`` (``128 cores,
  2 chips, 2 threads/core``), as ``"CPU Name","AMD EPYC 7713"`` (CSV) or
  ``CPU Name: AMD EPYC 7713`` (text).

The CSV starts with ``valid,1`` (``valid,0`` for an invalid run); a text
report of an invalid run starts with a box of ``INVALID RUN`` lines.
"""

from __future__ import annotations

import re

__all__ = ["is_single_result", "read_single_result"]

_TITLE = re.compile(
    r"SPEC\s*CPU(?:\(R\)|®)?\s*2017\s+(Integer|Floating Point)\s+(Rate|Speed)\s+Result"
)
_BASE = re.compile(
    r"^[\s\"]*(Est\.\s+)?SPECrate(?:\(R\))?2017_int_base[ \t\",]+([^\s\",]*)", re.M
)
_FIELD = r"^[ \t\"]*{key}[ \t\"]*[:,][ \t\"]*([^\"\r\n]*?)[ \t\"\r]*$"
_CPU_NAME = re.compile(_FIELD.format(key="CPU Name"), re.M)
_NOMINAL = re.compile(_FIELD.format(key="Nominal"), re.M)
_ENABLED = re.compile(_FIELD.format(key="Enabled"), re.M)
_MODEL = re.compile(_FIELD.format(key="Hardware Model:?"), re.M)
#: Characters searched for the title (an invalid run's box comes first).
_HEAD = 20000
_CORES_CHIPS = re.compile(r"(\d+)\s+cores?\s*,\s*(\d+)\s+chips?")


def is_single_result(text: str) -> bool:
    """Whether *text* is one result's report rather than a results listing."""
    head = text[:_HEAD]
    first = head.lstrip("\ufeff \t\r\n").split("\n", 1)[0]
    return first.startswith("valid,") or _TITLE.search(head) is not None


def read_single_result(text: str, name: str) -> tuple[dict[str, object], list[str]]:
    """The listing row of one integer-rate result, and notes about it.

    Returns
    -------
    row : dict
        ``cpu``, ``mhz``, ``cores_total``, ``chips``, ``base`` and ``url``
        (here: the file name and hardware model, there being no URL).
    notes : list of str
        ``'x.csv: not a valid (reportable) run ...'`` when it is not.

    Raises
    ------
    ValueError
        One line saying what is missing or why the result gives no score.
    """
    title = _TITLE.search(text[:_HEAD])
    if title is None:
        raise ValueError("no 'SPEC CPU2017 ... Result' title line")
    kind = f"{title.group(1)} {title.group(2)}"
    if kind != "Integer Rate":
        raise ValueError(
            f"a SPEC CPU2017 {kind} result; CPU scores are read from Integer Rate "
            "results (SPECrate2017_int_base)"
        )
    base = _BASE.search(text)
    cpu = _CPU_NAME.search(text)
    enabled = _ENABLED.search(text)
    nominal = _NOMINAL.search(text)
    values = _values(base, cpu, enabled, nominal)
    model = _MODEL.search(text)
    notes = []
    estimated = (base is not None and base.group(1) is not None) or (
        "INVALID RUN" in text[:_HEAD]
    )
    if estimated or text.lstrip("\ufeff").startswith("valid,0"):
        notes.append(
            f"{name}: not a valid (reportable) SPEC run: its "
            "SPECrate2017_int_base is an estimate, not a published result"
        )
    return values | {
        "url": name + (f" ({model.group(1).strip()})" if model else "")
    }, notes


def _values(
    base: re.Match[str] | None,
    cpu: re.Match[str] | None,
    enabled: re.Match[str] | None,
    nominal: re.Match[str] | None,
) -> dict[str, object]:
    """cpu, mhz, cores_total, chips, base; ValueError naming every bad field."""
    problems = []
    score = _number(base.group(2)) if base else float("nan")
    if base is None:
        problems.append("no SPECrate2017_int_base line")
    elif not score > 0:
        problems.append(f"SPECrate2017_int_base is '{base.group(2)}', not a score")
    name = cpu.group(1).strip() if cpu else ""
    if cpu is None or not name or "could not determine" in name:
        problems.append(f"CPU Name is '{name}'" if cpu else "no CPU Name line")
    counts = _CORES_CHIPS.search(enabled.group(1)) if enabled else None
    if counts is None:
        found = enabled.group(1).strip() if enabled else ""
        problems.append(
            f"Enabled is '{found}', expected 'N cores, N chips'"
            if enabled
            else "no Enabled line"
        )
    mhz = _number(nominal.group(1)) if nominal else float("nan")
    if not mhz > 0:
        problems.append(
            f"Nominal is '{nominal.group(1).strip()}', expected MHz"
            if nominal
            else "no Nominal (MHz) line"
        )
    if problems:
        raise ValueError("; ".join(problems))
    assert counts is not None  # for the type checker
    return {
        "cpu": name,
        "mhz": mhz,
        "cores_total": float(counts.group(1)),
        "chips": float(counts.group(2)),
        "base": score,
    }


def _number(text: str) -> float:
    found = re.match(r"\s*([0-9]+(?:\.[0-9]+)?)", text)
    return float(found.group(1)) if found else float("nan")
