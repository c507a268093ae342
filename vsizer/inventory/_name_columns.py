"""Columns whose header is a generic word that also names a thing.

``network``, ``storage``, ``disk`` and ``power`` are accepted headers of a
rate, a size and a power draw (:data:`~vsizer.inventory.headers.VARIABLE_MAP`),
but in VM-build lists they as often name the thing itself: the port group
(``VM Network``), the datastore, the disk type (``thin``), the power state
(``poweredOn``). A column under such a header, with no unit in it, whose every
non-blank cell has no digit is such a name: it is not read, and a warning
(``text_column_not_read``) says so, instead of one error per row. Found with a
real Ansible vSphere list (tests/data/real/tables/README.md, third round).
"""

from __future__ import annotations

from typing import Any

from vsizer.inventory._io import Grid
from vsizer.inventory.headers import HeaderMatch, header_key
from vsizer.units import is_blank, normalize_text

__all__ = ["GENERIC_HEADERS", "name_columns"]

#: Header keys that name a thing as often as its size or rate.
GENERIC_HEADERS = frozenset(header_key(h) for h in (
    "network", "net", "ネットワーク", "storage", "disk", "ディスク", "power", "電力",
))


def name_columns(
    grid: Grid,
    header_at: int,
    cols: dict[str, int],
    matches: dict[str, HeaderMatch],
    metadata: dict[str, Any],
    where: str,
) -> None:
    """Take out of ``cols``/``matches`` each generic-word column that holds
    names (no digit in any non-blank cell), list it in ``metadata['unmapped']``
    and add a ``text_column_not_read`` warning to ``metadata['warnings']``
    (``where`` names the file in it)."""
    for field, m in list(matches.items()):
        if m.unit is not None or header_key(m.header) not in GENERIC_HEADERS:
            continue
        i = cols[field]
        texts = [normalize_text(c[i]) for _, c in grid[header_at + 1:]
                 if i < len(c) and not is_blank(c[i])]
        if not texts or any(ch.isdigit() for t in texts for ch in t):
            continue
        del cols[field], matches[field]
        metadata["columns"].pop(m.header, None)
        metadata["unmapped"].append(m.header)
        metadata.setdefault("warnings", []).append((
            "text_column_not_read",
            f"{where}: column '{m.header}' holds names ('{texts[0]}'), not numbers: "
            f"not read as {field}",
        ))
