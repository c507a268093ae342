"""Known vulnerabilities of the installed dependency set (``make audit``).

Runs pip-audit and sums up its JSON report in one line. When pip-audit could
audit none of the dependencies (its vulnerability service is out of reach, as
on a machine that only reaches package indexes), the audit is *skipped*, said
in one line, exit 0: "no known vulnerabilities" would be a claim nobody checked.
Exit 1 when a dependency has a known vulnerability.
"""

from __future__ import annotations

import json
import subprocess
import sys


def main() -> int:
    cmd = [sys.executable, "-m", "pip_audit", "--skip-editable",
           "--progress-spinner", "off", "-f", "json"]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"audit: skipped: pip-audit did not run ({exc})")
        return 0
    try:
        deps = json.loads(res.stdout)["dependencies"]
    except (ValueError, KeyError, TypeError):
        line = (res.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"audit: skipped: pip-audit gave no report ({line[:200]})")
        return 0
    audited = [d for d in deps if "skip_reason" not in d]
    vulnerable = [d for d in audited if d.get("vulns")]
    if not audited:
        print(f"audit: skipped: the vulnerability service could not be reached "
              f"({len(deps)} dependencies not audited)")
        return 0
    for d in vulnerable:
        ids = ", ".join(v.get("id", "?") for v in d["vulns"])
        print(f"audit: {d['name']} {d.get('version', '')}: {ids}")
    print(f"audit: {len(audited)} of {len(deps)} dependencies audited, "
          f"{len(vulnerable)} with known vulnerabilities")
    return 1 if vulnerable else 0


if __name__ == "__main__":
    sys.exit(main())
