"""Model profile: fitted coefficients and site facts that ``plan``/``predict`` use.

A profile overrides the default coefficients of :mod:`vsizer.models.parameters`
(``cpu``, ``disk``, ``network`` sections, same structure, deep-merged) and states
facts a plan lacks (``environment``: disk backing, NICs, NFS, ...). ``vsizer fit``
writes one; users may also write one by hand. Format: JSON or TOML, described in
``docs/models.md`` ("Profile"). Unknown keys are errors.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vsizer._small_file import read_small_text
from vsizer._toml import parse_toml
from vsizer.errors import ConfigError
from vsizer.models.parameters import OVERHEAD_MODEL_PARAMETERS

PROFILE_VERSION = 1

#: Facts a plan does not hold, with the default used and why.
ENVIRONMENT_DEFAULTS: dict[str, Any] = {
    "disk_backing": "file",
    "disk_format": "preallocated",
    "write_cache": True,
    "access_spec": "database",
    "queue_depth": 8.0,
    "write_fraction": 0.33,
    "volumes_per_host": 1,
    "nfs": False,
    "nfs_server_cache_gib": 0.0,
    "nfs_rsize_wsize_kb": 0.0,
    "nic_gbps": 10.0,
    "nics_per_host": 1,
    "vmq": True,
    "hypervisor": "esx",
    "cpu_count": "vcpus",
    "cpu_demand": "peak",
}

_ENV_CHOICES: dict[str, tuple[str, ...]] = {
    "disk_backing": ("file", "pass-through"),
    "disk_format": ("volume", "preallocated", "sparse"),
    "access_spec": ("sequential_read", "sequential_write", "database", "file_server"),
    "cpu_count": ("vcpus", "vms"),
    "cpu_demand": ("peak", "average"),
}

_CPU_KEYS = ("intercept", "slope", "reference_cpus", "contention_exponent")
_SECTIONS = ("profile_version", "source", "cpu", "disk", "network", "environment", "fits")


@dataclass(frozen=True)
class Profile:
    """Overrides of model coefficients and site facts.

    Attributes
    ----------
    cpu, disk, network : dict
        Overrides deep-merged over ``OVERHEAD_MODEL_PARAMETERS``: ``cpu`` holds
        ``intercept``, ``slope``, ``reference_cpus``, ``contention_exponent``;
        ``disk`` and ``network`` mirror ``OVERHEAD_MODEL_PARAMETERS['disk' |
        'network']``.
    environment : dict
        Site facts (keys of :data:`ENVIRONMENT_DEFAULTS`).
    fits : dict
        Fit reports (estimates and intervals) the overrides came from.
    source : str
        Where the profile comes from (file name or fit input).
    """

    cpu: dict[str, float] = field(default_factory=dict)
    disk: dict[str, Any] = field(default_factory=dict)
    network: dict[str, Any] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)
    fits: dict[str, Any] = field(default_factory=dict)
    source: str = "defaults"

    def cpu_coefficients(self) -> dict[str, float]:
        """Coefficients for :func:`vsizer.models.cpu.relative_performance`."""
        base = OVERHEAD_MODEL_PARAMETERS["cpu"]["esx252"]
        return {k: float(self.cpu.get(k, base[k])) for k in _CPU_KEYS}

    def section(self, model: str, configuration: str) -> dict[str, Any]:
        """``OVERHEAD_MODEL_PARAMETERS[model][configuration]`` with this profile's overrides."""
        base = copy.deepcopy(OVERHEAD_MODEL_PARAMETERS[model][configuration])
        over = getattr(self, model).get(configuration, {})
        return _merge(base, over)

    def env(self) -> dict[str, Any]:
        """Environment facts: defaults overridden by the profile."""
        return {**ENVIRONMENT_DEFAULTS, **self.environment}

    def to_dict(self) -> dict[str, Any]:
        return {
            "profile_version": PROFILE_VERSION,
            "source": self.source,
            "cpu": dict(self.cpu),
            "disk": copy.deepcopy(self.disk),
            "network": copy.deepcopy(self.network),
            "environment": dict(self.environment),
            "fits": copy.deepcopy(self.fits),
        }

    def with_fit(self, model: str, section: dict[str, Any], report: dict[str, Any]) -> Profile:
        """A copy with ``section`` merged into ``model`` and ``report`` stored in ``fits``."""
        merged = _merge(copy.deepcopy(getattr(self, model)), section)
        fits = {**copy.deepcopy(self.fits), model: report}
        kw = {"cpu": self.cpu, "disk": self.disk, "network": self.network, model: merged}
        return Profile(environment=dict(self.environment), fits=fits, source=self.source, **kw)


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            base[k] = _merge(base[k], v)
        else:
            base[k] = copy.deepcopy(v)
    return base


def _check_known(name: str, where: str, over: Any, base: Any, problems: list[str]) -> None:
    """Every key of ``over`` exists in ``base`` (recursively); numbers stay numbers."""
    if not isinstance(over, dict):
        problems.append(f"{name}: '{where}' must be a table, got {type(over).__name__}.")
        return
    for k, v in over.items():
        if not isinstance(base, dict) or k not in base:
            problems.append(f"{name}: unknown key '{where}.{k}'.")
        elif isinstance(base[k], dict):
            _check_known(name, f"{where}.{k}", v, base[k], problems)
        elif isinstance(base[k], (int, float)) and not isinstance(base[k], bool) and (
            not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v)
        ):
            problems.append(f"{name}: '{where}.{k}' must be a number, got {v!r}.")


def profile_from_dict(doc: dict[str, Any], name: str = "profile") -> Profile:
    """Validate a profile document; all problems raised at once as :class:`ConfigError`."""
    problems: list[str] = []
    for k in doc:
        if k not in _SECTIONS:
            problems.append(f"{name}: unknown key '{k}'; expected {', '.join(_SECTIONS)}.")
    version = doc.get("profile_version", PROFILE_VERSION)
    if version != PROFILE_VERSION:
        problems.append(f"{name}: profile_version must be {PROFILE_VERSION}, got {version!r}.")
    cpu = doc.get("cpu", {})
    _check_known(name, "cpu", cpu, {k: 0.0 for k in _CPU_KEYS}, problems)
    if isinstance(cpu, dict) and isinstance(cpu.get("reference_cpus"), (int, float)) and cpu["reference_cpus"] <= 0:
        problems.append(f"{name}: 'cpu.reference_cpus' must be > 0, got {cpu['reference_cpus']!r}.")
    for model in ("disk", "network"):
        _check_known(name, model, doc.get(model, {}), OVERHEAD_MODEL_PARAMETERS[model], problems)
    env = doc.get("environment", {})
    if not isinstance(env, dict):
        problems.append(f"{name}: 'environment' must be a table.")
        env = {}
    for k, v in env.items():
        if k not in ENVIRONMENT_DEFAULTS:
            problems.append(
                f"{name}: unknown key 'environment.{k}'; expected "
                + ", ".join(ENVIRONMENT_DEFAULTS) + "."
            )
            continue
        default = ENVIRONMENT_DEFAULTS[k]
        if k in _ENV_CHOICES and v not in _ENV_CHOICES[k]:
            problems.append(
                f"{name}: 'environment.{k}' must be one of "
                f"{', '.join(_ENV_CHOICES[k])}, got {v!r}."
            )
        elif isinstance(default, bool) and not isinstance(v, bool):
            problems.append(f"{name}: 'environment.{k}' must be true or false, got {v!r}.")
        elif isinstance(default, (int, float)) and not isinstance(default, bool) and (
            isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0
        ):
            problems.append(f"{name}: 'environment.{k}' must be a number >= 0, got {v!r}.")
        elif isinstance(default, str) and not isinstance(v, str):
            problems.append(f"{name}: 'environment.{k}' must be a string, got {v!r}.")
    if problems:
        raise ConfigError(problems)
    return Profile(
        cpu=dict(cpu),
        disk=copy.deepcopy(doc.get("disk", {})),
        network=copy.deepcopy(doc.get("network", {})),
        environment=dict(env),
        fits=copy.deepcopy(doc.get("fits", {})),
        source=str(doc.get("source", name)),
    )


def load_profile(path: str | Path) -> Profile:
    """Read a profile from ``.json`` or ``.toml``.

    Raises
    ------
    ConfigError
        Unreadable file, bad syntax (with line/column where the parser gives it),
        unknown keys or wrongly typed values: one line per problem.
    """
    p = Path(path)
    try:
        text = read_small_text(p, what="a profile", error=ConfigError)
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read the profile ({exc.strerror}).") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: expected a UTF-8 file ({exc.reason}).") from None
    suffix = p.suffix.lower()
    try:
        if suffix == ".toml":
            doc = parse_toml(text, p.name)
        elif suffix == ".json":
            doc = json.loads(text)
        else:
            raise ConfigError(f"{p}: expected a .json or .toml profile, got '{suffix or 'no suffix'}'.")
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{p.name} line {exc.lineno}, column {exc.colno}: invalid JSON ({exc.msg})."
        ) from None
    if not isinstance(doc, dict):
        raise ConfigError(f"{p.name}: expected a JSON object at the top level.")
    return profile_from_dict(doc, p.name)


def save_profile(profile: Profile, path: str | Path) -> None:
    """Write ``profile`` as JSON (``.json``) or TOML (``.toml``), deterministically."""
    p = Path(path)
    doc = profile.to_dict()
    suffix = p.suffix.lower()
    if suffix == ".json":
        text = json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    elif suffix == ".toml":
        text = _to_toml(doc)
    else:
        raise ConfigError(f"{p}: expected a .json or .toml profile name, got '{suffix or 'no suffix'}'.")
    from vsizer._atomic import atomic_write

    with atomic_write(p, "w", encoding="utf-8") as fh:
        fh.write(text)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        if isinstance(v, float) and not math.isfinite(v):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # JSON string escapes are valid TOML
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_toml_key(str(k))} = {_toml_value(x)}" for k, x in v.items() if x is not None) + "}"
    raise ConfigError(f"cannot write {type(v).__name__} to TOML")


def _toml_key(k: str) -> str:
    return k if k and all(c.isascii() and (c.isalnum() or c in "_-") for c in k) else json.dumps(k, ensure_ascii=False)


def _to_toml(doc: dict[str, Any], prefix: str = "") -> str:
    """TOML text of nested dicts of scalars and lists (None values are left out)."""
    lines: list[str] = []
    tables: list[tuple[str, dict[str, Any]]] = []
    for k in sorted(doc):
        v = doc[k]
        key = _toml_key(str(k))
        if v is None:
            continue
        if isinstance(v, dict):
            tables.append((f"{prefix}{key}", v))
        else:
            lines.append(f"{key} = {_toml_value(v)}")
    out = "\n".join(lines) + ("\n" if lines else "")
    for name, table in tables:
        out += f"\n[{name}]\n" + _to_toml(table, prefix=f"{name}.")
    return out
