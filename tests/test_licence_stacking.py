"""Licences that cover a few VMs per licensing of a host's cores (Windows Server
Standard): counted per host from the most VMs it runs, failover included.

Microsoft Product Terms, Windows Server Standard: all physical cores licensed
(at least 8 per processor, 16 per server) cover 2 operating system
environments; for every 2 more, all cores are licensed again. Microsoft's
licensing guide example: a 2-processor, 16-core server (8 cores each) running
4 Windows Server VMs needs 2 x 16 = 32 Standard core licences.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import vsizer
import vsizer.study.config
from vsizer.catalogs.licences import (
    Licence,
    licence_count,
    read_licences,
    stacked_licences,
)
from vsizer.catalogs.model import HostModel
from vsizer.errors import CatalogError
from vsizer.placement.failover_report import FailoverReport, Scenario
from vsizer.placement.problem import PlacementProblem
from vsizer.placement.result import Placement
from vsizer.study.tco import vms_on_hosts

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "vsizer" / "data" / "samples" / "inventory_ja.csv"
SCENARIO = ROOT / "vsizer" / "data" / "samples" / "scenario.toml"
STANDARD = Licence("Windows Server 2025 Standard", "core", "once", 8, 16, 2, price=1.0)


def _host(sockets: int, cores: int) -> HostModel:
    return HostModel("h", sockets, cores, 2, 2000.0, None, 512.0, 100.0, 400.0)


def test_microsofts_example_and_hand_counts() -> None:
    # 2 x 8 cores, 4 VMs: all 16 cores twice (the licensing guide's example).
    assert stacked_licences(16, 4, 2) == 32
    # 2 x 16 cores, 7 VMs: ceil(7 / 2) = 4 licensings of 32 cores.
    assert stacked_licences(32, 7, 2) == 128
    # No VM or up to 2: one licensing (the host is licensed anyway).
    assert stacked_licences(16, 0, 2) == stacked_licences(16, 2, 2) == 16
    # 1 x 4 cores: the 16-core server minimum, 3 VMs -> 2 x 16.
    assert licence_count(STANDARD, _host(1, 4), 2, 5, [3, 2]) == 32 + 16


def test_the_shipped_standard_row_stacks_and_datacenter_does_not() -> None:
    rows = {lic.name: lic for lic in read_licences()}
    assert rows["Windows Server 2025 Standard"].vms_per_licence == 2
    assert rows["Windows Server 2025 Datacenter"].vms_per_licence is None
    dc = rows["Windows Server 2025 Datacenter"]
    assert licence_count(dc, _host(2, 16), 3, 40, [20, 10, 10]) == 3 * 32


def test_a_stacked_licence_needs_the_vms_of_every_host() -> None:
    with pytest.raises(ValueError) as exc:
        licence_count(STANDARD, _host(2, 8), 3, 9)
    assert str(exc.value) == (
        "licence 'Windows Server 2025 Standard' covers 2 VMs per licensing: it needs "
        "the VMs of each of the 3 hosts, got none."
    )
    with pytest.raises(ValueError, match=r"of each of the 3 hosts, got 2\.$"):
        licence_count(STANDARD, _host(2, 8), 3, 9, [4, 5])


HEADER = "name,unit,min_per_cpu,min_per_host,vms_per_licence,term,price,currency,source,date\n"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("A,socket,,2,2,year,,,,", "lic.csv row 2, column 'vms_per_licence': expected "
         "empty for unit 'socket', got '2'."),
        ("A,vm,,,1,year,,,,", "lic.csv row 2, column 'vms_per_licence': expected "
         "empty for unit 'vm', got '1'."),
        ("A,core,8,16,0,once,,,,", "lic.csv row 2, column 'vms_per_licence': "
         "expected a positive integer, got '0'."),
        ("A,core,8,16,two,once,,,,", "lic.csv row 2, column 'vms_per_licence': "
         "expected a positive integer, got 'two'."),
    ],
)
def test_bad_vms_per_licence_is_one_clear_line(tmp_path: Path, row: str, message: str) -> None:
    path = tmp_path / "lic.csv"
    path.write_text(HEADER + row + "\n", encoding="utf-8")
    with pytest.raises(CatalogError) as exc:
        read_licences(path)
    assert str(exc.value) == message


def test_a_file_without_the_column_reads_as_unlimited(tmp_path: Path) -> None:
    path = tmp_path / "lic.csv"
    path.write_text(
        "name,unit,min_per_cpu,min_per_host,term,price,currency,source,date\n"
        "W,core,8,16,once,,,,\n", encoding="utf-8",
    )
    assert read_licences(path)[0].vms_per_licence is None


def test_vms_on_hosts_counts_what_a_survivor_takes_over() -> None:
    prob = PlacementProblem(
        "p", tuple(f"vm{i}" for i in range(5)), ("cpu",), np.ones((5, 1)),
        np.array([4.0]), np.zeros(1), np.ones(1), np.ones(1),
    )
    pl = Placement(prob, 3, np.array([0, 0, 1, 1, 2]), "feasible", "x")
    # Host 2 fails: its VM goes to host 1. Host 1 fails: both its VMs to host 3.
    s1 = Scenario(["p-03"], [{"vm": "vm4", "to": "p-02"}], [], None, 0.0, "cpu", {})
    s2 = Scenario(
        ["p-02"], [{"vm": "vm2", "to": "p-03"}, {"vm": "vm3", "to": "p-03"}],
        [], None, 0.0, "cpu", {},
    )
    report = FailoverReport(1, True, 3, 0.75, "cpu", None, [s1, s2])
    assert vms_on_hosts([(pl, report)]) == [2, 3, 3]
    assert vms_on_hosts([(pl, report), (pl, FailoverReport(0, True, 0, 0.5, "cpu", None))]) == [
        2, 3, 3, 2, 2, 1,
    ]


def test_plan_counts_standard_per_host_with_failover(tmp_path: Path) -> None:
    lic = tmp_path / "lic.csv"
    lic.write_text(
        HEADER
        + "Windows Server 2025 Standard,core,8,16,2,once,100,,quote,2025-01\n"
        + "Windows Server 2025 Datacenter,core,8,16,,once,700,,quote,2025-01\n",
        encoding="utf-8",
    )
    rules = vsizer.study.config.load_rules(SCENARIO).replace(licences=str(lic))
    doc = json.loads(vsizer.plan(SAMPLE, rules=rules).to_json())
    # Independent count from the document: VMs per host, then per failover scenario.
    base: dict[str, int] = {}
    for s in doc["servers"]:
        if s.get("host"):
            base[s["host"]] = base.get(s["host"], 0) + 1
    most = dict(base)
    for pool in doc["pools"]:
        for sc in pool["failover"]["scenarios"]:
            taken: dict[str, int] = {}
            for m in sc["moves"]:
                taken[m["to"]] = taken.get(m["to"], 0) + 1
            for h, n in taken.items():
                most[h] = max(most[h], base[h] + n)
    cores = 2 * 28  # Dell R740 2 x Platinum 8180
    want = sum(cores * max(1, -(-n // 2)) for n in most.values())
    hosts = doc["summary"]["hosts"]
    std, dc = doc["tco"]["licences"]
    assert std["count"] == want and std["cost"] == want * 100
    assert std["vms_per_licence"] == 2 and std["most_vms_on_a_host"] == max(most.values())
    assert dc["count"] == hosts * cores and dc["vms_per_licence"] is None
    assert dc["most_vms_on_a_host"] is None
    assert want > hosts * cores  # stacking costs more than one licensing per host
