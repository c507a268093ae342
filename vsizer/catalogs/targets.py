"""Target platform profiles: what each virtualization platform costs the hosts.

A profile is a TOML file (the shipped ones: ``vsizer/catalogs/data/targets``;
a user's: ``--targets-file`` naming a file or a folder of them, whose targets
are added to the shipped ones or replace those of the same name). Every value
is a table stating where it comes from::

    [target]
    name = "proxmox-ceph"
    title = "Proxmox VE 8 with Ceph (hyperconverged)"
    hypervisor = "kvm"

    [reserve]
    host_memory_gib = { value = 2, source = "Proxmox VE Administration Guide, System Requirements, https://pve.proxmox.com/pve-docs/", date = "2024-11" }
    host_cpu_cores = { value = 1, assumed = "no vendor figure; one core for the host OS" }

    [[services]]          # platform services: per host, per cluster or per disk
    name = "Ceph OSD"
    per = "disk"
    memory_gib = { value = 4, source = "Ceph docs, osd_memory_target", date = "2024-07" }

    [[licences]]          # the columns of vsizer/catalogs/data/licences.csv
    name = "Proxmox VE subscription"
    unit = "socket"
    term = "year"
    source = "..."
    date = "2025-01"

A value has ``value`` and either ``source`` (vendor document title and URL)
with ``date``, ``measured`` (how, e.g. by ``vsizer bench calibrate``) with
``date``, or ``assumed`` (the reason no published figure is used); an
assumed value is a counted warning of every plan that uses it. The keys and
their meaning are :data:`VALUE_KEYS`; ``docs/targets.md`` lists every shipped
value.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vsizer._toml import read_toml
from vsizer.catalogs.licences import LICENCE_TERMS, LICENCE_UNITS, Licence
from vsizer.errors import ConfigError
from vsizer.models.storage import is_protection

__all__ = [
    "SHIPPED_TARGETS_DIR",
    "VALUE_KEYS",
    "Cited",
    "Service",
    "Target",
    "get_target",
    "read_target",
    "read_targets",
]

#: Folder of the shipped profiles.
SHIPPED_TARGETS_DIR = Path(__file__).parent / "data" / "targets"

_NUM = (int, float)

#: Section.key -> (kind, required, meaning). Kinds: ``count`` (int >= 1),
#: ``amount`` (number >= 0), ``ratio`` (0 < x <= 1), ``factor`` (> 0),
#: ``text``, ``overhead`` (number >= 0 or "esxi-table").
VALUE_KEYS: dict[str, tuple[str, bool, str]] = {
    "cluster.min_nodes": ("count", True, "fewest hosts per cluster"),
    "cluster.max_nodes": ("count", True, "most hosts per cluster"),
    "overcommit.vcpu_per_core": ("factor", True, "vCPU : physical core default"),
    "overcommit.memory": ("factor", True, "memory overcommit supported (1 = none; reported)"),
    "reserve.host_memory_gib": ("amount", True, "hypervisor memory kept per host [GiB]"),
    "reserve.host_cpu_cores": ("amount", True, "hypervisor CPU kept per host [cores]"),
    "reserve.vm_memory_overhead_mib": (
        "overhead", True, "memory per VM beyond its size [MiB], or esxi-table"),
    "storage.mode": ("text", True, "hyperconverged (disks in the hosts) or external"),
    "storage.protection": ("text", False, "data protection (vsizer --protection)"),
    "storage.ftt": ("amount", False, "failures to tolerate of mirror (copies - 1)"),
    "storage.full_ratio": ("ratio", False, "share of raw capacity usable before full"),
    "storage.disks_per_host": ("count", False, "capacity disks per host (per-disk services)"),
    "performance.cpu": ("factor", True, "CPU throughput relative to the models' baseline"),
    "performance.disk": ("factor", True, "disk throughput relative to the models' baseline"),
    "performance.network": ("factor", True, "network throughput relative to the models' baseline"),
}

_TARGET_KEYS = ("name", "title", "hypervisor", "description")
_SERVICE_KEYS = ("name", "per", "cpu_cores", "memory_gib", "dedicated_hosts")
_SERVICE_PER = ("host", "cluster", "disk")
_LICENCE_KEYS = (
    "name", "unit", "term", "min_per_cpu", "min_per_host", "min_per_order", "pack",
    "sockets_per_licence", "vms_per_licence", "price", "currency", "source", "date",
)


@dataclass(frozen=True)
class Cited:
    """One profile value: the value, its source and date, or why it is assumed."""

    value: Any
    source: str = ""
    date: str = ""
    assumed: str = ""
    #: How it was measured (``vsizer bench calibrate``), when it was.
    measured: str = ""

    @property
    def basis(self) -> str:
        """``measured``, ``assumed`` or ``published``."""
        return "measured" if self.measured else "assumed" if self.assumed else "published"

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "basis": self.basis, "source": self.source,
                "measured": self.measured or None, "date": self.date,
                "assumed": self.assumed or None}


@dataclass(frozen=True)
class Service:
    """A platform service: per host, per cluster (spread, or on dedicated
    hosts) or per capacity disk."""

    name: str
    per: str
    cpu_cores: Cited
    memory_gib: Cited
    dedicated_hosts: Cited | None = None


@dataclass(frozen=True)
class Target:
    """One target platform profile."""

    name: str
    title: str
    hypervisor: str
    values: dict[str, Cited]
    services: tuple[Service, ...] = ()
    licences: tuple[Licence, ...] = ()
    description: str = ""
    path: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def v(self, key: str, default: Any = None) -> Any:
        """The value of ``section.key`` (``default`` when not given)."""
        c = self.values.get(key)
        return default if c is None else c.value

    def assumed(self) -> list[tuple[str, Cited]]:
        """Every assumed value (values, services, licences), named."""
        out = [(k, c) for k, c in self.values.items() if c.assumed]
        for s in self.services:
            for part in ("cpu_cores", "memory_gib", "dedicated_hosts"):
                c = getattr(s, part)
                if c is not None and c.assumed:
                    out.append((f"services '{s.name}' {part}", c))
        return out


def _kind_problem(kind: str, value: Any) -> str | None:
    if kind == "text":
        return None if isinstance(value, str) and value.strip() else "a text"
    if kind == "overhead" and value == "esxi-table":
        return None
    if isinstance(value, bool) or not isinstance(value, _NUM) or not math.isfinite(value):
        return {"count": "a whole number >= 1", "ratio": "a number in (0, 1]",
                "factor": "a number > 0"}.get(kind, "a number >= 0")
    if kind == "count" and (int(value) != value or value < 1):
        return "a whole number >= 1"
    if kind == "ratio" and not 0 < value <= 1:
        return "a number in (0, 1]"
    if kind == "factor" and value <= 0:
        return "a number > 0"
    if value < 0:
        return "a number >= 0"
    return None


def _cited(where: str, key: str, raw: Any, kind: str, problems: list[str]) -> Cited | None:
    """One cited value, or None with its problems appended."""
    if not isinstance(raw, Mapping) or "value" not in raw:
        problems.append(
            f"{where}: key '{key}': expected a table {{ value = ..., source = ..., "
            f"date = ... }} or {{ value = ..., assumed = ... }}, got {raw!r}."
        )
        return None
    unknown = sorted(set(raw) - {"value", "source", "date", "assumed", "measured"})
    if unknown:
        problems.append(f"{where}: key '{key}': unknown field(s) {', '.join(unknown)}; "
                        "accepted: value, source, date, assumed, measured.")
    bad = _kind_problem(kind, raw["value"])
    if bad:
        problems.append(f"{where}: key '{key}.value': expected {bad}, got {raw['value']!r}.")
    texts = {k: raw.get(k, "") for k in ("source", "date", "assumed", "measured")}
    for k, t in texts.items():
        if not isinstance(t, str):
            problems.append(f"{where}: key '{key}.{k}': expected a text, got {t!r}.")
    if not (texts["source"] or texts["assumed"] or texts["measured"]):
        problems.append(f"{where}: key '{key}': expected a source (with a date), "
                        "measured (how, with a date) or assumed (the reason), got none.")
    elif (texts["source"] or texts["measured"]) and not texts["date"]:
        problems.append(f"{where}: key '{key}.date': expected the date of the source "
                        "(YYYY-MM), got none.")
    if bad or unknown or not all(isinstance(t, str) for t in texts.values()):
        return None
    value = int(raw["value"]) if kind == "count" else raw["value"]
    return Cited(value, str(texts["source"]), str(texts["date"]), str(texts["assumed"]),
                 str(texts["measured"]))


def _values(where: str, data: Mapping[str, Any], problems: list[str]) -> dict[str, Cited]:
    values: dict[str, Cited] = {}
    sections = {k.split(".")[0] for k in VALUE_KEYS}
    for section in sections:
        body = data.get(section, {})
        if not isinstance(body, Mapping):
            problems.append(f"{where}: [{section}] must be a table, got {body!r}.")
            continue
        for key in body:
            if f"{section}.{key}" not in VALUE_KEYS:
                accepted = ", ".join(k for k in VALUE_KEYS if k.startswith(section + "."))
                problems.append(f"{where}: unknown key '{section}.{key}'; accepted: {accepted}.")
    for key, (kind, required, _) in VALUE_KEYS.items():
        section, name = key.split(".")
        body = data.get(section, {})
        if not isinstance(body, Mapping) or name not in body:
            if required:
                problems.append(f"{where}: missing key '{key}' ({VALUE_KEYS[key][2]}).")
            continue
        c = _cited(where, key, body[name], kind, problems)
        if c is not None:
            values[key] = c
    prot = values.get("storage.protection")
    if prot is not None and not is_protection(prot.value):
        problems.append(f"{where}: key 'storage.protection.value': expected a protection "
                        f"such as mirror, raid5-4+1 or ec-4+2, got {prot.value!r}.")
    mode = values.get("storage.mode")
    if mode is not None and mode.value not in ("hyperconverged", "external"):
        problems.append(f"{where}: key 'storage.mode.value': expected hyperconverged or "
                        f"external, got {mode.value!r}.")
    return values


def _services(where: str, raw: Any, problems: list[str]) -> tuple[Service, ...]:
    if not isinstance(raw, list):
        problems.append(f"{where}: 'services' must be an array of tables ([[services]]).")
        return ()
    out = []
    for i, s in enumerate(raw, 1):
        at = f"services[{i}]"
        if not isinstance(s, Mapping):
            problems.append(f"{where}: {at}: expected a table, got {s!r}.")
            continue
        for k in sorted(set(s) - set(_SERVICE_KEYS)):
            problems.append(f"{where}: unknown key '{at}.{k}'; accepted: "
                            f"{', '.join(_SERVICE_KEYS)}.")
        if s.get("per") not in _SERVICE_PER:
            problems.append(f"{where}: key '{at}.per': expected one of "
                            f"{', '.join(_SERVICE_PER)}, got {s.get('per')!r}.")
        if not isinstance(s.get("name"), str) or not s["name"].strip():
            problems.append(f"{where}: key '{at}.name': expected a text, got {s.get('name')!r}.")
        parts = {p: _cited(where, f"{at}.{p}", s.get(p, {"value": 0, "assumed": "none"}),
                           "amount", problems) for p in ("cpu_cores", "memory_gib")}
        dedicated = (_cited(where, f"{at}.dedicated_hosts", s["dedicated_hosts"], "count",
                            problems) if "dedicated_hosts" in s else None)
        if dedicated is not None and s.get("per") != "cluster":
            problems.append(f"{where}: key '{at}.dedicated_hosts': expected only for "
                            f"per = 'cluster', got per = {s.get('per')!r}.")
        if all(parts.values()) and isinstance(s.get("name"), str):
            out.append(Service(str(s["name"]), str(s.get("per")), parts["cpu_cores"],  # type: ignore[arg-type]
                               parts["memory_gib"], dedicated))  # type: ignore[arg-type]
    return tuple(out)


def _licence(where: str, at: str, raw: Mapping[str, Any], problems: list[str]) -> Licence | None:
    n = len(problems)
    for k in sorted(set(raw) - set(_LICENCE_KEYS)):
        problems.append(f"{where}: unknown key '{at}.{k}'; accepted: {', '.join(_LICENCE_KEYS)}.")
    for k, allowed in (("unit", LICENCE_UNITS), ("term", LICENCE_TERMS)):
        if raw.get(k) not in allowed:
            problems.append(f"{where}: key '{at}.{k}': expected one of "
                            f"{', '.join(allowed)}, got {raw.get(k)!r}.")
    for k in ("min_per_cpu", "min_per_host", "min_per_order", "sockets_per_licence",
              "vms_per_licence", "pack"):
        if k in raw and _kind_problem("count", raw[k]):
            problems.append(f"{where}: key '{at}.{k}': expected a whole number >= 1, "
                            f"got {raw[k]!r}.")
    if "price" in raw and _kind_problem("amount", raw["price"]):
        problems.append(f"{where}: key '{at}.price': expected a number >= 0, got {raw['price']!r}.")
    for k in ("name", "source", "date"):
        if not isinstance(raw.get(k), str) or not raw[k].strip():
            problems.append(f"{where}: key '{at}.{k}': expected a text, got {raw.get(k)!r}.")
    if len(problems) > n:
        return None
    return Licence(
        name=raw["name"], unit=raw["unit"], term=raw["term"],
        min_per_cpu=raw.get("min_per_cpu"), min_per_host=raw.get("min_per_host"),
        vms_per_licence=raw.get("vms_per_licence"), min_per_order=raw.get("min_per_order"),
        pack=raw.get("pack"),
        sockets_per_licence=int(raw.get("sockets_per_licence", 1)),
        price=None if raw.get("price") is None else float(raw["price"]),
        currency=str(raw.get("currency", "")), source=raw["source"], date=raw["date"],
    )


def _licences(where: str, raw: Any, problems: list[str]) -> tuple[Licence, ...]:
    if not isinstance(raw, list):
        problems.append(f"{where}: 'licences' must be an array of tables ([[licences]]).")
        return ()
    out = []
    for i, lic in enumerate(raw, 1):
        if not isinstance(lic, Mapping):
            problems.append(f"{where}: licences[{i}]: expected a table, got {lic!r}.")
        elif (got := _licence(where, f"licences[{i}]", lic, problems)) is not None:
            out.append(got)
    return tuple(out)


def read_target(path: str | Path) -> Target:
    """Read one profile TOML file.

    Raises
    ------
    vsizer.errors.ConfigError
        Every problem at once, one line each naming the file and key, e.g.
        ``vcf.toml: key 'reserve.host_memory_gib.value': expected a number >= 0,
        got 'four'.``; a TOML syntax error names its line and column.
    """
    path = Path(path)
    where = path.name
    data = read_toml(path)
    problems: list[str] = []
    known = {"target", "services", "licences", *(k.split(".")[0] for k in VALUE_KEYS)}
    for k in sorted(set(data) - known):
        problems.append(f"{where}: unknown table '{k}'; accepted: {', '.join(sorted(known))}.")
    meta = data.get("target", {})
    if not isinstance(meta, Mapping):
        problems.append(f"{where}: [target] must be a table.")
        meta = {}
    for k in sorted(set(meta) - set(_TARGET_KEYS)):
        problems.append(f"{where}: unknown key 'target.{k}'; accepted: {', '.join(_TARGET_KEYS)}.")
    for k in ("name", "title", "hypervisor"):
        if not isinstance(meta.get(k), str) or not meta[k].strip():
            problems.append(f"{where}: key 'target.{k}': expected a text, got {meta.get(k)!r}.")
    name = meta.get("name")
    if isinstance(name, str) and not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", name.strip().lower()):
        problems.append(f"{where}: key 'target.name': expected letters, digits, '.', '_' "
                        f"or '-' (a name for --targets), got {name!r}.")
    values = _values(where, data, problems)
    services = _services(where, data.get("services", []), problems)
    licences = _licences(where, data.get("licences", []), problems)
    if problems:
        raise ConfigError(problems)
    return Target(
        name=meta["name"].strip().lower(), title=meta["title"], hypervisor=meta["hypervisor"],
        values=values, services=services, licences=licences,
        description=str(meta.get("description", "")), path=str(path),
    )


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(path.glob("*.toml"))
        if not files:
            raise ConfigError(f"--targets-file {path}: expected a folder with .toml "
                              "profiles, found none.")
        return files
    if not path.is_file():
        raise ConfigError(f"--targets-file {path}: no such file or folder.")
    return [path]


def read_targets(extra: Iterable[str | Path] = ()) -> dict[str, Target]:
    """The shipped profiles, then each ``extra`` file or folder's (a profile
    of the same name replaces the shipped one), by name in file order."""
    targets: dict[str, Target] = {}
    problems: list[str] = []
    for path in [*_files(SHIPPED_TARGETS_DIR), *(f for e in extra for f in _files(Path(e)))]:
        try:
            t = read_target(path)
        except ConfigError as exc:
            problems.extend(str(exc).splitlines())
            continue
        targets[t.name] = t
    if problems:
        raise ConfigError(problems)
    return targets


def get_target(name: str, targets: Mapping[str, Target]) -> Target:
    """The profile named ``name`` (case-insensitive).

    Raises
    ------
    vsizer.errors.ConfigError
        One line: ``unknown target 'vfc'; did you mean 'vcf'? Known: ...``.
    """
    key = name.strip().lower()
    if key in targets:
        return targets[key]
    close = difflib.get_close_matches(key, list(targets), n=1, cutoff=0.5)
    hint = f"; did you mean '{close[0]}'?" if close else "."
    raise ConfigError(
        f"unknown target {name!r}{hint} Known targets: {', '.join(targets)} "
        "(add one with --targets-file; see docs/targets.md)."
    )
