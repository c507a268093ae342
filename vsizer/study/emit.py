"""Configuration text the design method prescribes for a plan: VMQ, power plan, NFS.

Read-only: each function turns a plan document (``plan.json``) into lines of
settings, every line ending with its source; nothing is applied. The values are
those the published measurements were taken with; the plan adds its hosts (which
machines), its host count (the power cost) and its VMs' memory (the NFS server
cache the working set needs).

References
----------
.. [1] Published Hyper-V R2 10 GbE VMQ measurement: more than 2x throughput (about
   7.8 Gbit/s) and over 60 % shorter file-copy times with VM queues.
.. [2] Microsoft, "Standardized INF Keywords for VMQ," Windows driver documentation,
   https://learn.microsoft.com/windows-hardware/drivers/network/standardized-inf-keywords-for-vmq
   (``*VMQ``: 0 disabled, 1 enabled).
.. [3] Published database-VM power-plan measurement: Balanced -> High performance
   +36 % throughput for +16 W; Balanced with minimum processor state 100 %: +26 %,
   +10 W.
.. [4] Microsoft, "Powercfg command-line options,"
   https://learn.microsoft.com/windows-hardware/design/device-experiences/powercfg-command-line-options
   (``/setactive``, ``/setacvalueindex``; scheme, subgroup and setting GUIDs).
.. [5] Published PostgreSQL pgbench measurement on NFS-backed VM disks: read-write
   about 65 % of local disk, 70 % with rsize/wsize = 8192, 17 % when the NFS
   server's cache cannot hold the working set.
.. [6] nfs(5) and exports(5), Linux man-pages project,
   https://man7.org/linux/man-pages/man5/nfs.5.html,
   https://man7.org/linux/man-pages/man5/exports.5.html.
"""

from __future__ import annotations

from typing import Any

from vsizer.errors import InputError

KINDS = ("vmq", "powercfg", "nfs")
SRC_VMQ = "published Hyper-V R2 10 GbE VMQ measurement (more than 2x throughput, about 7.8 Gbit/s; file copies over 60 % shorter)"
SRC_INF = ("Microsoft, 'Standardized INF Keywords for VMQ', https://learn.microsoft.com/"
           "windows-hardware/drivers/network/standardized-inf-keywords-for-vmq")
SRC_POWER = "published database-VM power-plan measurement (Balanced -> High performance +36 %, +16 W; Balanced, minimum processor state 100 %: +26 %, +10 W)"
SRC_POWERCFG = ("Microsoft, 'Powercfg command-line options', https://learn.microsoft.com/"
                "windows-hardware/design/device-experiences/powercfg-command-line-options")
SRC_NFS = "published pgbench-on-NFS measurement (read-write 65 % of local, 70 % with rsize/wsize 8192, 17 % when the server cache is short)"
SRC_NFS5 = "nfs(5), https://man7.org/linux/man-pages/man5/nfs.5.html"
SRC_EXPORTS5 = "exports(5), https://man7.org/linux/man-pages/man5/exports.5.html"
HIGH_PERFORMANCE = "8c5e7fda-e8bf-4a96-9a85-a6e23a8c635c"  # SCHEME_MIN
BALANCED = "381b4222-f694-41f0-9685-ff5bb260df2e"  # SCHEME_BALANCED
SUB_PROCESSOR = "54533251-82be-4824-96c1-47b60b740d00"
PROCTHROTTLEMIN = "893dee8e-2bef-41e0-89c6-b55d0929964c"
POWER_CHOICES = {"high-performance": (1.36, 16.0), "balanced-min100": (1.26, 10.0)}


def _hosts(doc: dict[str, Any]) -> list[str]:
    try:
        hosts = [str(h["id"]) for p in doc["pools"] for h in p["hosts"]]
    except (KeyError, TypeError):
        raise InputError("plan: expected 'pools' with 'hosts' (a document written by "
                         "'vsizer plan -o plan.json').") from None
    if not hosts:
        raise InputError("plan: no hosts; nothing to configure.")
    return hosts


def _line(setting: str, source: str) -> str:
    return f"{setting}    # {source}"


def _head(kind: str, doc: dict[str, Any], hosts: list[str]) -> list[str]:
    model = (doc.get("host_model") or {}).get("model", "?")
    return [f"# vsizer emit {kind}: settings the design method prescribes for this plan "
            "(read-only; review and apply by hand)",
            f"# hosts ({len(hosts)} x {model}): {', '.join(hosts)}"]


def emit_vmq(doc: dict[str, Any], nic_gbps: float = 10.0) -> str:
    """VM queues on the hosts' NICs (prescribed on 10 GbE and faster)."""
    hosts = _hosts(doc)
    lines = _head("vmq", doc, hosts)
    if nic_gbps < 10:
        lines.append(_line(f"# not prescribed: NIC {nic_gbps:g} Gbit/s; VMQ was measured on "
                           "10 GbE", SRC_VMQ))
        return "\n".join(lines) + "\n"
    lines += [
        _line('NIC advanced property "*VMQ" = 1 (Virtual Machine Queues: Enabled), on the '
              "adapter bound to the virtual switch of every host above", SRC_INF),
        _line(f"# expected per host NIC ({nic_gbps:g} GbE): about 7800 Mbit/s, against about "
              "3900 without VMQ; file copies at least 60 % shorter (2.5x)", SRC_VMQ),
    ]
    return "\n".join(lines) + "\n"


def emit_powercfg(doc: dict[str, Any], choice: str = "high-performance") -> str:
    """The host power plan: High performance, or Balanced with minimum processor state 100 %."""
    if choice not in POWER_CHOICES:
        raise InputError(f"emit powercfg: --choice expected one of {', '.join(POWER_CHOICES)}, "
                         f"got '{choice}'.")
    hosts = _hosts(doc)
    gain, watts = POWER_CHOICES[choice]
    lines = _head("powercfg", doc, hosts)
    if choice == "high-performance":
        lines.append(_line(f"powercfg /setactive {HIGH_PERFORMANCE}   (High performance, "
                           "alias SCHEME_MIN)", SRC_POWERCFG))
    else:
        lines += [
            _line(f"powercfg /setacvalueindex {BALANCED} {SUB_PROCESSOR} {PROCTHROTTLEMIN} 100"
                  "   (Balanced: minimum processor state 100 %, on AC)", SRC_POWERCFG),
            _line(f"powercfg /setactive {BALANCED}   (Balanced, alias SCHEME_BALANCED)",
                  SRC_POWERCFG),
        ]
    total = watts * len(hosts)
    lines.append(_line(f"# expected: database throughput x{gain:g} for +{watts:g} W per host; this "
                       f"plan: +{total:g} W, +{total * 8.76:g} kWh a year", SRC_POWER))
    return "\n".join(lines) + "\n"


def emit_nfs(doc: dict[str, Any], server: str = "nfs-server",
             export: str = "/export/vmstore", mount_point: str = "/mnt/vmstore") -> str:
    """NFS export (server side) and mount (each host) for VM disks on NFS."""
    hosts = _hosts(doc)
    mem = sum(float(s.get("vm_mem_gib") or s.get("mem_gib") or 0.0)
              for s in doc.get("servers") or [] if s.get("host"))
    lines = _head("nfs", doc, hosts)
    clients = " ".join(f"{h}(rw,sync,no_subtree_check)" for h in hosts)
    lines += [
        _line(f"/etc/exports on {server}: {export} {clients}", SRC_EXPORTS5 + "; sync: "
              "a write is on stable storage before the server replies"),
        _line(f"mount on each host: mount -t nfs -o rsize=8192,wsize=8192 {server}:{export} "
              f"{mount_point}", SRC_NFS5 + "; " + SRC_NFS),
        _line(f"# NFS server cache: at least {mem:g} GiB (the working set: the memory of the "
              f"plan's {sum(1 for s in doc.get('servers') or [] if s.get('host'))} VMs); "
              "below it read-write falls to about 17 % of local disk", SRC_NFS),
    ]
    return "\n".join(lines) + "\n"
