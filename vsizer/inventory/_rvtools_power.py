"""Power state of a VM in an RVTools-layout export, from every producer.

RVTools writes vSphere's ``VirtualMachinePowerState`` values (``poweredOn``,
``poweredOff``, ``suspended``) [1]; other tools that write the RVTools layout
write their hypervisor's words, e.g. a Hyper-V exporter writes the
``VMState`` names ``Running``/``Off``/``Saved``/``Paused`` [2] or ``On``. Each
spelling is mapped, case-insensitively, to one of three states:

==========  ===========================================================
state       spellings
==========  ===========================================================
on          ``poweredOn``, ``On``, ``Running``
off         ``poweredOff``, ``Off``, ``Stopped``, ``Saved``
suspended   ``suspended``, ``Paused``
==========  ===========================================================

(Hyper-V's ``Saved`` keeps the memory on disk and runs nothing: off for
sizing, as a vSphere VM suspended to disk is not running either; it is listed
with the powered-off VMs.) A spelling not in the table, a blank cell or no
``Powerstate`` column at all is *unknown*: the VM is **kept** (planned as
running, the conservative choice: it may need capacity) and counted in the
warning ``rvtools_power_state_unknown``.
A non-VMware spelling mapped is stated in the warning
``rvtools_power_state_mapped`` (one per spelling, with its VMs).

References
----------
.. [1] Broadcom (VMware), *vSphere Web Services API*, enum
   ``VirtualMachinePowerState`` (poweredOff, poweredOn, suspended).
.. [2] Microsoft, *Get-VM* (Hyper-V PowerShell module): ``State`` of type
   ``VMState`` (Off, Running, Paused, Saved, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

from vsizer.quality import QualityReport

#: Spelling (case-folded) -> state.
POWER_STATES: dict[str, str] = {
    "poweredon": "on", "on": "on", "running": "on",
    "poweredoff": "off", "off": "off", "stopped": "off", "saved": "off",
    "suspended": "suspended", "paused": "suspended",
}

#: The vSphere spellings: mapping them needs no word.
_VMWARE = frozenset({"poweredon", "poweredoff", "suspended"})


@dataclass(frozen=True)
class PowerState:
    """A VM's power state: ``state`` is 'on', 'off', 'suspended' or 'unknown';
    ``spelled`` is the cell as written ('' when blank)."""

    state: str
    spelled: str

    @property
    def running(self) -> bool:
        """Planned as running: on, or unknown (kept, warned)."""
        return self.state in ("on", "unknown")

    def reason(self) -> str | None:
        """Why the VM is not planned (None when it is)."""
        if self.running:
            return None
        if self.state == "off":
            return "powered off" + (
                "" if self.spelled.casefold() in _VMWARE else f" ('{self.spelled}')"
            )
        shown = "" if self.spelled.casefold() in _VMWARE else f" ('{self.spelled}')"
        return f"power state {self.state}{shown}"


def power_state(text: str | None) -> PowerState:
    """The :class:`PowerState` of a ``Powerstate`` cell (blank: unknown)."""
    spelled = (text or "").strip()
    return PowerState(POWER_STATES.get(spelled.casefold(), "unknown"), spelled)


def warn_power_states(
    states: dict[str, PowerState], quality: QualityReport, column: str
) -> None:
    """State each non-VMware spelling mapped and each unknown one, with the VMs."""
    mapped: dict[tuple[str, str], list[str]] = {}
    unknown: dict[str, list[str]] = {}
    for vm, ps in states.items():
        key = ps.spelled.casefold()
        if ps.state == "unknown":
            unknown.setdefault(ps.spelled, []).append(vm)
        elif key and key not in _VMWARE:
            mapped.setdefault((ps.spelled, ps.state), []).append(vm)
    for (spelled, state), who in mapped.items():
        quality.warn(
            "rvtools_power_state_mapped",
            f"'{column}' value '{spelled}' (not a vSphere power state) read as "
            f"{_WORD[state]} for {len(who)} VM(s) (Hyper-V and other exporters' "
            "spelling).",
            who,
        )
    for spelled, who in unknown.items():
        what = (f"'{column}' value '{spelled}' is not a known power state"
                if spelled else f"no '{column}' value (blank, or no such column)")
        quality.warn(
            "rvtools_power_state_unknown",
            f"{what} for {len(who)} VM(s) (expected poweredOn/On/Running, "
            "poweredOff/Off/Stopped/Saved or suspended/Paused): kept and planned "
            "as running.",
            who,
        )


_WORD = {"on": "powered on", "off": "powered off", "suspended": "suspended"}
