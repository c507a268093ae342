"""Storage capacity and I/O arithmetic: protection overhead, thin provisioning, slack,
RAID write penalty, hosts a hyperconverged cluster needs for its disks.

Pure functions of published definitions; no measurement is fitted here.

References
----------
.. [1] SNIA, "SNIA Dictionary," entries "RAID 1", "RAID 5", "RAID 6", "erasure
   coding", https://www.snia.org/education/dictionary (RAID 5: one parity
   strip per stripe, N data + 1 parity; RAID 6: two independent check strips,
   N data + 2; RAID 1: every block on two members).
.. [2] VMware, "Using RAID 5 or RAID 6 Erasure Coding," vSAN Administration,
   vSphere 8.0,
   https://docs.vmware.com/en/VMware-vSphere/8.0/vsan-administration/GUID-AD408FA8-5898-4541-9F82-FE72E6CD6227.html
   (table "Capacity required to store and protect data at different RAID
   levels": 100 GB needs 200 GB at FTT=1 RAID-1, 133 GB at FTT=1 RAID-5,
   300 GB at FTT=2 RAID-1, 150 GB at FTT=2 RAID-6).
.. [3] VMware, "Storage Policies: Availability attributes," VMware Cloud,
   vSAN VM Storage Policies,
   https://docs.vmware.com/en/VMware-Cloud-on-Public-Cloud/services/vsphere-vmc-on-public-cloud-managing-sddc/GUID-EDBB551B-51B0-421B-9C44-6ECB66ED660B.html
   (table "RAID Configurations, FTT, and Host Requirements": RAID-1 FTT=1 3
   hosts, RAID-5 FTT=1 4, RAID-1 FTT=2 5, RAID-6 FTT=2 6, RAID-1 FTT=3 7;
   "for every n failures to tolerate, n+1 copies and 2n+1 hosts").
.. [4] D. A. Patterson, G. Gibson and R. H. Katz, "A Case for Redundant Arrays
   of Inexpensive Disks (RAID)," Proc. ACM SIGMOD 1988, pp. 109-116,
   https://doi.org/10.1145/50202.50214 (a small write to a parity group reads
   the old data and old parity and writes both: 4 disk accesses for single
   parity; a mirrored write goes to both disks: 2).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from vsizer._validation import Interval, Satisfies, validate_params
from vsizer.errors import ConfigError

#: Protection names accepted (``N``, ``K``, ``M`` are positive integers).
PROTECTION_FORMS = (
    "none", "raid1", "raid10", "raid5", "raid5-N+1", "raid6", "raid6-N+2",
    "ec-K+M", "mirror",
)
#: Data strips of a parity group when the name gives no width: RAID-5 4+1 (a
#: common array group), RAID-6 4+2 (the vSAN RAID-6 layout [2]).
DEFAULT_DATA_STRIPS = {"raid5": 4, "raid6": 4}
_MAX_WIDTH = 64
_FORM = re.compile(r"^(raid5|raid6|ec)-(\d+)\+(\d+)$")


@dataclass(frozen=True)
class Protection:
    """How a pool's data is protected.

    Attributes
    ----------
    name : str
        As given, e.g. ``raid5-4+1``, ``mirror``.
    copies : int
        Full copies of each block (mirroring); 1 for parity schemes.
    data : int
        Data strips per parity group (k); 1 for mirroring.
    parity : int
        Check strips per group (m); 0 for mirroring.
    """

    name: str
    copies: int
    data: int
    parity: int

    @property
    def overhead_factor(self) -> float:
        """Raw capacity per unit of data: copies x (k + m) / k."""
        return self.copies * (self.data + self.parity) / self.data

    @property
    def write_penalty(self) -> int:
        """Back-end disk I/Os per small front-end write [4]: a mirror writes every
        copy; a parity group reads and writes the data strip and its m check
        strips, 2 (1 + m): RAID-5 4, RAID-6 6."""
        return self.copies if self.parity == 0 else 2 * (1 + self.parity)

    @property
    def min_fault_domains(self) -> int:
        """Hosts (fault domains) a hyperconverged cluster needs for it [3]: k + m
        for a parity group, 2 n + 1 for n + 1 copies (a witness breaks ties), 1
        without redundancy."""
        if self.parity:
            return self.data + self.parity
        return 2 * self.copies - 1


def _problem(name: object) -> str | None:
    """Why ``name`` is not a protection; None when it is."""
    if not isinstance(name, str):
        return f"expected a protection name, got {name!r}"
    text = name.strip().lower()
    if text in ("none", "raid1", "raid10", "mirror", "raid5", "raid6"):
        return None
    match = _FORM.match(text)
    if match is None:
        return (
            f"expected one of {', '.join(PROTECTION_FORMS)} (e.g. raid5-4+1, "
            f"ec-4+2), got '{name}'"
        )
    kind, k, m = match.group(1), int(match.group(2)), int(match.group(3))
    need_m = {"raid5": 1, "raid6": 2}.get(kind)
    if need_m is not None and m != need_m:
        return f"{kind} has {need_m} parity strip(s) ({kind}-N+{need_m}), got '{name}'"
    if not (1 <= k <= _MAX_WIDTH and 1 <= m <= _MAX_WIDTH):
        return f"data and parity strips must be 1 to {_MAX_WIDTH}, got '{name}'"
    return None


def is_protection(name: object) -> bool:
    """Whether ``name`` is a protection :func:`protection` accepts."""
    return _problem(name) is None


#: Constraint of a protection name (a :class:`~vsizer.study.config.Rules` field).
PROTECTION = Satisfies(
    is_protection,
    "a protection: " + ", ".join(PROTECTION_FORMS) + " (e.g. raid5-4+1, ec-4+2)",
    valid="raid5-4+1",
    invalid="raid7",
)


@validate_params({"ftt": Interval(int, 0, 3)}, where="storage.protection")
def protection(name: str, ftt: int = 1) -> Protection:
    """The :class:`Protection` a name stands for.

    Parameters
    ----------
    name : str
        ``none``; ``raid1`` / ``raid10`` (two copies [1]); ``raid5`` (4+1),
        ``raid5-N+1``; ``raid6`` (4+2), ``raid6-N+2``; ``ec-K+M`` (erasure
        coding, K data + M check strips); ``mirror``: ``ftt + 1`` copies, the
        vSAN RAID-1 policy [2]. vSAN FTT=1 RAID-5 is ``raid5-3+1``, FTT=2
        RAID-6 ``raid6-4+2``.
    ftt : int, default 1
        Failures to tolerate of ``mirror`` (0 to 3, the vSAN range [3]).

    Raises
    ------
    ConfigError
        One line: ``protection 'raid7': expected one of ...``.
    """
    problem = _problem(name)
    if problem is not None:
        raise ConfigError(f"protection {name!r}: {problem}.")
    text = name.strip().lower()
    if text == "none":
        return Protection(text, 1, 1, 0)
    if text in ("raid1", "raid10"):
        return Protection(text, 2, 1, 0)
    if text == "mirror":
        return Protection(f"mirror (FTT={ftt})", ftt + 1, 1, 0)
    if text in DEFAULT_DATA_STRIPS:
        m = 1 if text == "raid5" else 2
        return Protection(f"{text}-{DEFAULT_DATA_STRIPS[text]}+{m}",
                          1, DEFAULT_DATA_STRIPS[text], m)
    match = _FORM.match(text)
    assert match is not None
    return Protection(text, 1, int(match.group(2)), int(match.group(3)))


@validate_params({"slack": Interval(float, 0, 1, "left")}, where="storage.slack_factor")
def slack_factor(slack: float) -> float:
    r"""Raw capacity per unit kept in use when ``slack`` of it stays free.

    .. math:: f = \frac{1}{1 - s}

    25 % slack: 1 / 0.75 = 1.333.
    """
    return 1.0 / (1.0 - slack)


@validate_params(
    {"data_gib": Interval(float, 0, None), "overhead": Interval(float, 1, None),
     "slack": Interval(float, 0, 1, "left")},
    where="storage.required_raw_gib",
)
def required_raw_gib(data_gib: float, overhead: float, slack: float) -> float:
    r"""Raw capacity to install for ``data_gib`` of data [GiB].

    .. math:: R = D \times o \times \frac{1}{1 - s}

    ``D`` the data kept (used space when thin-provisioned, provisioned when
    thick), ``o`` the protection overhead (:attr:`Protection.overhead_factor`),
    ``s`` the share of raw capacity kept free (slack).
    """
    return data_gib * overhead * slack_factor(slack)


def thin_ratio(provisioned_gib: float, used_gib: float) -> float | None:
    """Provisioned / used capacity; None without use."""
    return provisioned_gib / used_gib if used_gib > 0 else None


@validate_params(
    {"iops": Interval(float, 0, None), "read_share": Interval(float, 0, 1),
     "write_penalty": Interval(int, 1, None)},
    where="storage.backend_iops",
)
def backend_iops(iops: float, read_share: float, write_penalty: int) -> tuple[float, float]:
    r"""Back-end (disk) I/Os per second for ``iops`` front-end I/Os.

    .. math::

        B_w = I (1 - r) P, \qquad B = I r + B_w

    with ``r`` the read share and ``P`` the write penalty [4]. Returns
    ``(B, B_w)``: all back-end I/Os and those caused by writes.
    """
    writes = iops * (1.0 - read_share) * write_penalty
    return iops * read_share + writes, writes


@validate_params(
    {"required_raw_gib": Interval(float, 0, None),
     "raw_per_host_gib": Interval(float, 0, None, "neither"),
     "failures": Interval(int, 0, None), "min_fault_domains": Interval(int, 1, None)},
    where="storage.hosts_for_storage",
)
def hosts_for_storage(
    required_raw_gib: float, raw_per_host_gib: float, failures: int, min_fault_domains: int
) -> int:
    r"""Hosts a hyperconverged pool needs for its disks.

    .. math:: H = \max\left(\left\lceil R / r \right\rceil + k,\; F\right)

    ``R`` raw capacity required, ``r`` raw disk per host, ``k`` host failures
    to tolerate (the survivors still hold ``R``), ``F`` the fault domains the
    protection needs (:attr:`Protection.min_fault_domains`).
    """
    need = math.ceil(required_raw_gib / raw_per_host_gib - 1e-9) if required_raw_gib else 0
    return max(need + failures, min_fault_domains)
