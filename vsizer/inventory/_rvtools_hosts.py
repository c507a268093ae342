"""RVTools hosts: the vHost rows (:func:`read_hosts`), which vHost row a VM runs on, its CPU, and its share of the
host's measured CPU and memory usage. The rules are stated in the docstring of
:mod:`vsizer.inventory.rvtools`; this module implements them.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from vsizer._validation import quoted_list
from vsizer.inventory._build import ProblemLog, clean_text
from vsizer.inventory._rvtools_sheets import Sheet
from vsizer.inventory._rvtools_sheets import key as _key
from vsizer.quality import QualityReport, Status
from vsizer.units import parse_number

#: Shortest name part a suffix match may rest on [characters].
MIN_SUFFIX = 4

#: Host pairs a suffix-match warning names before "and N more".
_PAIRS_SHOWN = 5

_IPV4 = re.compile(r"\d{1,3}(\.\d{1,3}){3}")


def full_name(name: str) -> str:
    """Host name compared case-insensitively, without a trailing dot."""
    return name.strip().rstrip(".").casefold()


def short_name(name: str) -> str:
    """The name before its first dot (an IPv4 address is kept whole)."""
    full = full_name(name)
    return full if _IPV4.fullmatch(full) else full.split(".", 1)[0]


@dataclass
class HostMatch:
    """Where a vInfo ``Host`` name was found in vHost: ``how`` is 'exact',
    'short name', 'suffix' or '' (not found; ``candidates`` > 1 = ambiguous)."""

    host: dict[str, Any] | None
    how: str
    candidates: list[str] = field(default_factory=list)


class HostIndex:
    """vHost rows indexed for :meth:`match` (exact, short name, unique suffix)."""

    def __init__(self, hosts: list[dict[str, Any]]):
        self.hosts = hosts
        self._full: dict[str, list[dict[str, Any]]] = {}
        self._short: dict[str, list[dict[str, Any]]] = {}
        for h in hosts:
            self._full.setdefault(full_name(h["host"]), []).append(h)
            self._short.setdefault(short_name(h["host"]), []).append(h)

    def match(self, name: str | None, cluster: str | None) -> HostMatch:
        """The vHost row of vInfo host ``name`` (first rule with one candidate;
        several candidates are narrowed to the VM's ``cluster``)."""
        if name is None:
            return HostMatch(None, "")
        short = short_name(name)
        rules = (
            ("exact", self._full.get(full_name(name), [])),
            ("short name", self._short.get(short, [])),
            ("suffix", self._suffix(short)),
        )
        for how, found in rules:
            if len(found) > 1 and cluster is not None:
                same = [h for h in found if h["cluster"] == cluster]
                found = same or found
            if len(found) == 1:
                return HostMatch(found[0], how)
            if found:
                return HostMatch(None, "", sorted(h["host"] for h in found))
        return HostMatch(None, "")

    def _suffix(self, short: str) -> list[dict[str, Any]]:
        if _IPV4.fullmatch(short) or not re.search(r"[a-z]", short):
            return []
        out = []
        for key, rows in self._short.items():
            if key == short or _IPV4.fullmatch(key):
                continue
            shorter = min(key, short, key=len)
            if len(shorter) >= MIN_SUFFIX and (
                short.endswith(key) or key.endswith(short)
            ):
                out.extend(rows)
        return out


def match_hosts(
    vms: list[tuple[str, str | None, str | None]],
    index: HostIndex,
    quality: QualityReport,
) -> dict[str, HostMatch]:
    """Match every VM ``(name, vInfo host, cluster)``; warn about suffix
    matches, ambiguous names and names not in vHost, naming the VMs."""
    out: dict[str, HostMatch] = {}
    suffix: dict[tuple[str, str], list[str]] = {}
    ambiguous: dict[tuple[str, str], list[str]] = {}
    missing: dict[str, list[str]] = {}
    for vm, host, cluster in vms:
        m = index.match(host, cluster)
        out[vm] = m
        if m.how == "suffix" and m.host is not None and host is not None:
            suffix.setdefault((host, m.host["host"]), []).append(vm)
        elif m.candidates and host is not None:
            ambiguous.setdefault((host, quoted_list(m.candidates)), []).append(vm)
        elif m.host is None and index.hosts:
            missing.setdefault(host or "(blank)", []).append(vm)
    if suffix:  # one warning for all pairs: an export can have dozens
        pairs = [f"'{host}' as '{found}'" for host, found in suffix]
        shown = ", ".join(pairs[:_PAIRS_SHOWN]) + (
            f" and {len(pairs) - _PAIRS_SHOWN} more" if len(pairs) > _PAIRS_SHOWN
            else "")
        quality.warn(
            "rvtools_host_matched_by_suffix",
            f"{len(pairs)} vInfo host name(s) taken as the vHost host whose name ends "
            f"with it or is its end ({shown}); check that they are the same machines.",
            [vm for who in suffix.values() for vm in who],
        )
    for (host, listed), who in ambiguous.items():
        quality.warn(
            "rvtools_host_ambiguous",
            f"vInfo host '{host}' matches several vHost hosts ({listed}); none is "
            "used: CPU from the cluster, utilization not estimated from a host.",
            who,
        )
    if missing:
        names = sorted(missing)
        unmatched = {vm for who in missing.values() for vm in who}
        quality.warn(
            "rvtools_host_not_in_vhost",
            f"{len(names)} vInfo host name(s) not found in vHost ({quoted_list(names)})"
            ": CPU taken from the cluster's hosts, utilization not estimated from a "
            "host.",
            [vm for vm, _, _ in vms if out[vm].host is None and vm in unmatched],
        )
    return out


def fallback_cpu(
    cluster: str | None, hosts: list[dict[str, Any]],
    why: str = "VM's host not in vHost",
) -> tuple[str, float | None, Status, Status, str] | None:
    """The cluster's majority CPU model and its median clock (all vHost hosts
    when the cluster has none): ``(model, MHz, model status, MHz status, note)``.

    Ties go to the faster clock, then the name (deterministic, and the faster
    CPU gives the larger demand: conservative).
    """
    pool = [h for h in hosts if h["cpu_model"] and cluster and h["cluster"] == cluster]
    where = f"cluster '{cluster}'"
    if not pool:
        pool = [h for h in hosts if h["cpu_model"]]
        where = "all vHost hosts" + (f" (cluster '{cluster}' has none)" if cluster
                                     else " (VM has no cluster)")
    if not pool:
        return None
    counts: dict[str, list[float]] = {}
    for h in pool:
        counts.setdefault(h["cpu_model"], []).append(h["cpu_mhz"] or 0.0)
    model = max(sorted(counts), key=lambda m: (len(counts[m]), max(counts[m])))
    clocks = [c for c in counts[model] if c > 0]
    mhz = float(statistics.median(clocks)) if clocks else None
    same_clock = len(set(clocks)) <= 1
    note = (f"{why}; {where}: {len(counts[model])} of {len(pool)} "
            f"hosts have this CPU")
    if not same_clock:
        note += f", median clock {mhz:g} MHz of {min(clocks):g}-{max(clocks):g}"
    return model, mhz, "estimated", "estimated", note


def host_cores(h: dict[str, Any]) -> float | None:
    """Physical cores of a vHost row: ``# Cores``, else ``# CPU`` x ``Cores per CPU``."""
    if h.get("cores"):
        return float(h["cores"])
    if h.get("sockets") and h.get("cores_per_socket"):
        return float(h["sockets"] * h["cores_per_socket"])
    return None


def estimate_usage(
    on_host: dict[str, list[tuple[str, dict[str, Any]]]],
    hosts: dict[str, dict[str, Any]],
    quality: QualityReport,
) -> None:
    """Fill ``cpu_avg_util``/``cpu_peak_util`` (and ``mem_used_gib``) of the
    powered-on VMs without a vCPU sample from their host's usage %.

    ``on_host[host] = [(vm name, values), ...]`` lists every powered-on VM
    matched to the host (all share its capacity); only VMs whose values lack
    ``cpu_avg_util`` are filled. ``values`` are updated in place.
    """
    for name, vms in on_host.items():
        h = hosts[name]
        _estimate_cpu(name, h, vms, quality)
        _estimate_mem(name, h, vms, quality)


def _estimate_cpu(
    name: str, h: dict[str, Any], vms: list[tuple[str, dict[str, Any]]],
    quality: QualityReport,
) -> None:
    usage, cores = h.get("cpu_usage_pct"), host_cores(h)
    total = sum(v.get("vcpus") or 0 for _, v in vms)
    todo = [(vm, v) for vm, v in vms if v.get("cpu_avg_util") is None and v.get("vcpus")]
    if usage is None or not cores or not total or not todo:
        return
    raw = usage / 100.0 * cores / total
    util = min(raw, 1.0)
    note = (f"estimated from host {name} CPU usage: {usage:g} % x {cores:g} cores / "
            f"{total:g} vCPUs of its powered-on VMs")
    if raw > 1:
        quality.warn(
            "rvtools_host_usage_capped",
            f"host {name}: CPU usage {usage:g} % of {cores:g} cores shared by "
            f"{total:g} vCPUs gives {raw:.3g} per vCPU; capped at 1 (each vCPU is "
            "taken as fully busy).",
            [vm for vm, _ in todo],
        )
        note += f" = {raw:.3g}, capped at 1"
    for vm, v in todo:
        v["cpu_avg_util"] = util
        quality.record(vm, "cpu_avg_util", "estimated", note)
        v["cpu_peak_util"] = util
        quality.record(vm, "cpu_peak_util", "assumed",
                       "RVTools vHost has one sample (CPU usage %); peak taken "
                       "equal to the estimated average")


def _estimate_mem(
    name: str, h: dict[str, Any], vms: list[tuple[str, dict[str, Any]]],
    quality: QualityReport,
) -> None:
    usage, mem_mib = h.get("mem_usage_pct"), h.get("mem_mib")
    total = sum(v.get("mem_gib") or 0.0 for _, v in vms)
    if usage is None or not mem_mib or not total:
        return
    used_gib = usage / 100.0 * mem_mib / 1024.0
    note = (f"estimated from host {name} memory usage: {usage:g} % x "
            f"{mem_mib / 1024:g} GiB x the VM's share of {total:g} GiB configured")
    for vm, v in vms:
        if v.get("mem_used_gib") is None and v.get("mem_gib"):
            v["mem_used_gib"] = min(used_gib * v["mem_gib"] / total, v["mem_gib"])
            quality.record(vm, "mem_used_gib", "estimated", note)


def hosts_frame(hosts: list[dict[str, Any]], vms_on: dict[str, int]) -> pd.DataFrame:
    """The source hosts ("before"): one row per vHost row, in file order."""
    rows = []
    for h in hosts:
        vendor, model = h.get("vendor") or "", h.get("model") or ""
        if vendor and model.casefold().startswith(vendor.casefold()):
            vendor = ""
        rows.append({
            "name": h["host"],
            "cluster": h["cluster"],
            "model": " ".join(p for p in (vendor, model) if p) or None,
            "cpu_name": h["cpu_model"],
            "sockets": h.get("sockets"),
            "cores": host_cores(h),
            "cpu_mhz": h.get("cpu_mhz"),
            "mem_gib": h["mem_mib"] / 1024.0 if h.get("mem_mib") else None,
            "cpu_util": (h["cpu_usage_pct"] / 100.0
                         if h.get("cpu_usage_pct") is not None else None),
            "mem_util": (h["mem_usage_pct"] / 100.0
                         if h.get("mem_usage_pct") is not None else None),
            "vms": vms_on.get(h["host"], 0),
        })
    types = {"name": "string", "cluster": "string", "model": "string",
             "cpu_name": "string", "sockets": "Int64", "cores": "Int64",
             "cpu_mhz": "Float64", "mem_gib": "Float64", "cpu_util": "Float64",
             "mem_util": "Float64", "vms": "Int64"}
    return pd.DataFrame(
        {c: pd.array([r[c] for r in rows], dtype=t) for c, t in types.items()}  # type: ignore[call-overload]
    )


#: vHost counts: whole numbers of at least 0.
_HOST_COUNTS = frozenset({"sockets", "cores_per_socket", "n_vms", "cores"})


def read_hosts(sheet: Sheet | None, problems: ProblemLog) -> list[dict[str, Any]]:
    """vHost rows as dicts; a cell that is not a number (or a count that is not
    a whole number) is a problem line of the vHost sheet, never dropped."""
    if sheet is None:
        return []
    fields = {
        "host": "Host", "cluster": "Cluster", "cpu_model": "CPU Model",
        "cpu_mhz": "Speed", "sockets": "# CPU", "cores_per_socket": "Cores per CPU",
        "cpu_usage_pct": "CPU usage %", "mem_mib": "# Memory",
        "mem_usage_pct": "Memory usage %", "vendor": "Vendor", "model": "Model",
        "n_vms": "# VMs", "cores": "# Cores",
    }
    hosts = []
    for row, cells in sheet.rows:
        h: dict[str, Any] = {}
        for k, header in fields.items():
            v = cells.get(_key(header))
            if k in ("host", "cluster", "cpu_model", "vendor", "model"):
                h[k] = clean_text(v)
            else:
                h[k] = _host_number(k, v, header, row, problems)
        if h["host"] is not None:
            hosts.append(h)
    return hosts


def _host_number(
    field: str, raw: Any, header: str, row: int, problems: ProblemLog
) -> float | None:
    count = field in _HOST_COUNTS
    expected = "a whole number of at least 0" if count else "a non-negative number"
    try:
        x = parse_number(raw)
    except ValueError:
        x, bad = None, True
    else:
        bad = x is not None and (x < 0 or (count and not float(x).is_integer()))
    if bad:
        problems.cell(row, header, expected, clean_text(raw) or "", sheet="vHost")
        return None
    return x
