"""Prerequisites: install missing Debian packages with apt, report tool versions.

Nothing is downloaded except through apt. ``apt-get update`` runs once per process,
before the first install, and only when a package is actually missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence

from vsizer.errors import BenchmarkRunError

__all__ = ["ensure_packages", "missing_packages", "tool_version"]

_updated = False


def missing_packages(packages: Iterable[str]) -> list[str]:
    """The packages of ``packages`` that dpkg does not list as installed."""
    missing = []
    for pkg in packages:
        done = subprocess.run(
            ["dpkg-query", "-W", "-f=${Status}", pkg],
            capture_output=True, text=True, check=False,
        )
        if done.returncode != 0 or "install ok installed" not in done.stdout:
            missing.append(pkg)
    return missing


def ensure_packages(packages: Sequence[str], timeout: float = 900) -> list[str]:
    """Install the missing ones of ``packages`` (apt-get, as root); return what was installed.

    Raises
    ------
    BenchmarkRunError
        Not root, no apt-get, or apt failed: the message gives the command to run.
    """
    global _updated
    if shutil.which("dpkg-query") is None:
        raise BenchmarkRunError(
            "the bench harness installs its tools with apt (Debian/Ubuntu); dpkg-query not found."
        )
    missing = missing_packages(packages)
    if not missing:
        return []
    command = "apt-get install -y --no-install-recommends " + " ".join(missing)
    if os.geteuid() != 0:
        raise BenchmarkRunError(f"missing Debian packages; run as root: {command}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    lock = ["-o", "DPkg::Lock::Timeout=600"]
    if not _updated:
        _apt(["apt-get", *lock, "update", "-qq"], env, timeout)
        _updated = True
    _apt(["apt-get", *lock, "install", "-y", "-qq", "--no-install-recommends", *missing],
         env, timeout)
    return missing


def _apt(argv: list[str], env: dict[str, str], timeout: float) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, env=env,
                          timeout=timeout, check=False)
    if done.returncode != 0:
        tail = " | ".join(done.stderr.strip().splitlines()[-3:])
        raise BenchmarkRunError(f"'{' '.join(argv)}' failed (exit {done.returncode}): {tail}")


_VERSION = re.compile(r"\d+(?:\.\d+)+[\w.+~-]*")


def tool_version(argv: Sequence[str]) -> str:
    """First version number printed by ``argv`` (e.g. ``["fio", "--version"]``), or 'unknown'."""
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    match = _VERSION.search(done.stdout + "\n" + done.stderr)
    return match.group(0) if match else "unknown"
