"""Calibrate a target platform profile from benchmark measurements
(``vsizer bench calibrate TARGET``).

The VM / physical ratio of each headline metric (:func:`vsizer.bench.report.ratio_frame`:
CPU events/s, disk IOPS, network Mbit/s, latest run of each side) measured on
the target's host replaces the profile's ``performance.cpu``, ``.disk`` and
``.network`` factors: the median ratio over the measured cases of that
resource, with ``measured`` saying what was run and when. Ratios from emulated
guests (QEMU TCG, no hardware virtualization) measure emulation, not the
platform, and are never used. The result is the profile's own text with those
tables replaced, to be passed with ``--targets-file`` (same name: it replaces
the shipped profile), and the comparison then reports those overheads as
``measured``.
"""

from __future__ import annotations

import datetime as dt
import re
import statistics
from pathlib import Path

from vsizer.bench.report import ratio_frame, summary_frame
from vsizer.bench.samples import read_samples
from vsizer.catalogs.targets import Target
from vsizer.errors import InputError

__all__ = ["calibrated_profile", "measured_ratios"]

_RESOURCES = ("cpu", "disk", "network")


def measured_ratios(store: str | Path) -> dict[str, tuple[float, int, str]]:
    """Resource -> (median VM / physical ratio, cases, date of the latest sample).

    Raises
    ------
    vsizer.errors.InputError
        The store has no ratio measured under hardware virtualization.
    """
    samples = read_samples(store)
    ratios = ratio_frame(summary_frame(samples))
    when = max((s.timestamp for s in samples), default=0.0)
    date = dt.datetime.fromtimestamp(when, dt.UTC).strftime("%Y-%m")
    out: dict[str, tuple[float, int, str]] = {}
    for res in _RESOURCES:
        if ratios.empty:
            break
        rows = ratios[(ratios["workload"] == res) & ~ratios["emulated"].astype(bool)]
        if not rows.empty:
            out[res] = (round(float(statistics.median(rows["ratio"])), 6), len(rows), date)
    if not out:
        raise InputError(
            f"{store}: no VM / physical ratio measured with hardware virtualization "
            "(cpu, disk or network, both environments; emulated runs are not used): "
            "run 'vsizer bench run quick --env both' on the target's host."
        )
    return out


def _block(res: str, ratio: float, cases: int, date: str, store: str) -> str:
    return (
        f"\n[performance.{res}]\nvalue = {ratio!r}\n"
        f'measured = "vsizer bench: median VM / physical ratio of the {res} headline '
        f'metric over {cases} case(s), store {Path(store).name}"\ndate = "{date}"\n'
    )


def calibrated_profile(target: Target, store: str | Path) -> str:
    """The text of ``target``'s profile with its measured performance factors."""
    measured = measured_ratios(store)
    text = Path(target.path).read_text(encoding="utf-8")
    for res, (ratio, cases, date) in measured.items():
        block = re.compile(rf"^\[performance\.{res}\]\n(?:(?!\[).*\n?)*", re.MULTILINE)
        text = block.sub("", text).rstrip("\n") + "\n"
        text += _block(res, ratio, cases, date, str(store))
    return text
