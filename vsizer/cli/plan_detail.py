"""``plan --json-detail`` / ``--detail-file``: the documents each ``-o`` file gets.

Up to :data:`~vsizer.study.detail.DETAIL_MAX_SERVERS` servers (``auto``), or
with ``full``, every output gets the whole plan document, as before. Otherwise
each JSON output gets the summary document and its per-server detail file
(:mod:`vsizer.study.detail`); the terminal summary shows the summary document
(its warning counted), and an ``.xlsx``/``.html`` output the whole document
with the same warning.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from vsizer.errors import ConfigError

JsonDetailOpt = Annotated[
    str,
    typer.Option(
        "--json-detail",
        help="Per-server records in the JSON plan: auto (full up to 100,000 "
        "servers, else summary), full, or summary (the records, data quality and "
        "right-sizing in a CSV beside the JSON, one row per server; a warning says so).",
    ),
]
DetailFileOpt = Annotated[
    Path | None,
    typer.Option(
        "--detail-file",
        help="The per-server file of a summary JSON (.csv, or .parquet with "
        "pyarrow); default PLAN.servers.csv beside PLAN.json. Implies "
        "--json-detail summary unless full is given.",
    ),
]


@dataclass
class Documents:
    """The document of the terminal, of each output, and the detail files."""

    terminal: dict[str, Any]
    by_path: dict[Path, dict[str, Any]] = field(default_factory=dict)
    #: detail file -> the frame written there (:func:`~vsizer.study.detail.write_detail`)
    side: dict[Path, Any] = field(default_factory=dict)


def documents(
    result: Any, output: list[Path], choice: str, given: Path | None
) -> Documents:
    """The documents of a plan ``result`` for the ``-o`` files ``output``."""
    from vsizer.study.detail import detail_path, summary_applies

    jsons = [p for p in output if p.suffix.lower() == ".json"]
    if given is not None and choice == "full":
        raise ConfigError("--detail-file: a detail file is written only with "
                          "--json-detail summary or auto, not full")
    summary = bool(jsons) and (
        summary_applies(choice, len(result.servers)) or given is not None
    )
    if not summary:
        return Documents(result.to_dict())
    choice = "summary" if given is not None else choice
    return _summary(result, output, jsons, choice,
                    {p: detail_path(p, given) for p in jsons})


def _summary(
    result: Any, output: list[Path], jsons: list[Path], choice: str,
    files: dict[Path, Path],
) -> Documents:
    from vsizer.study.detail import detail_frame, summarize

    frame = detail_frame(result)
    n, columns = len(frame), [str(c) for c in frame.columns]
    brief = result.to_dict(detail=False)
    docs = Documents(summarize(brief, files[jsons[0]], n, columns, choice))
    for p in jsons:
        docs.by_path[p] = summarize(brief, files[p], n, columns, choice)
        docs.side[files[p]] = frame
    others = [p for p in output if p not in files]
    if others:  # the reports need every record: the whole document, the warning
        full = summarize(result.to_dict(), files[jsons[0]], n, columns, choice)
        docs.by_path.update({p: full for p in others})
    return docs


def detail_outputs(output: list[Path], choice: str, given: Path | None) -> list[Path]:
    """The detail files that may be written (for the checks before planning)."""
    from vsizer.study.detail import detail_path

    if choice == "full":
        return []
    return [detail_path(p, given) for p in output if p.suffix.lower() == ".json"]
