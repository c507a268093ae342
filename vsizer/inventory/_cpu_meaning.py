"""A bare CPU count beside a cores-per-socket column: sockets or vCPUs?

``CPUs``, ``Processors``, ``Number of CPUs`` (and a ``CPU`` column of counts)
are read as the vCPU count (:data:`~vsizer.inventory.headers.VARIABLE_MAP`), as
VM lists mean them. A physical server ledger means the sockets by them when it
also gives the cores of each (``CPUs`` 2, ``Cores per CPU`` 8 is 16 cores).
So, when a list has such a column, a cores-per-socket column and no sockets
column, the count is the total (vCPUs) only if every row's count is a whole
multiple of its cores per socket (vSphere: 4 vCPUs at 2 cores per socket);
otherwise it is the sockets. Either reading is a counted warning
(``cpu_count_meaning``). ``num_cpus``/``numCPU`` are vSphere's totals and are
left alone.
"""

from __future__ import annotations

from typing import Any

from vsizer.inventory._io import Grid
from vsizer.inventory.headers import HeaderMatch, header_key
from vsizer.units import is_blank, parse_number

__all__ = ["cpu_count_meaning"]

#: Header keys of a CPU count that a ledger uses for sockets.
_AMBIGUOUS = frozenset(header_key(h) for h in (
    "cpus", "cpu", "processors", "number of cpus", "cpu count",
))


def _whole(value: Any) -> int | None:
    try:
        x = parse_number(value)
    except ValueError:
        return None
    return int(x) if x is not None and x == int(x) and x > 0 else None


def cpu_count_meaning(
    grid: Grid,
    header_at: int,
    cols: dict[str, int],
    matches: dict[str, HeaderMatch],
    metadata: dict[str, Any],
    where: str,
) -> None:
    """Read an ambiguous CPU-count column as sockets or vCPUs (module doc);
    the choice goes to ``metadata['warnings']``."""
    m = matches.get("vcpus")
    if (m is None or header_key(m.header) not in _AMBIGUOUS
            or "cores_per_socket" not in cols or "sockets" in cols):
        return
    i, j = cols["vcpus"], cols["cores_per_socket"]
    pairs = [(_whole(c[i]), _whole(c[j])) for _, c in grid[header_at + 1:]
             if i < len(c) and j < len(c) and not is_blank(c[i]) and not is_blank(c[j])]
    if not pairs or any(n is None or k is None for n, k in pairs):
        return  # the cells are checked, one error each, as the columns they are
    cps = matches["cores_per_socket"].header
    warnings = metadata.setdefault("warnings", [])
    if all(n % k == 0 for n, k in pairs if n and k):
        warnings.append(("cpu_count_meaning",
                         f"{where}: column '{m.header}' read as vCPUs (the total): every "
                         f"value is a whole multiple of '{cps}'"))
        return
    warnings[:] = [w for w in warnings
                   if not (w[0] == "cpu_column_counts" and f"'{m.header}'" in w[1])]
    del cols["vcpus"], matches["vcpus"]
    cols["sockets"], matches["sockets"] = i, HeaderMatch(m.header, "sockets")
    metadata["columns"][m.header] = "sockets"
    first = next((n, k) for n, k in pairs if n and k and n % k)
    warnings.append(("cpu_count_meaning",
                     f"{where}: column '{m.header}' read as sockets, beside '{cps}': "
                     f"{first[0]} is no whole multiple of {first[1]}, so it is no total"))
