"""The licence catalog: counting rules pinned to the published minimums, the
shipped rows' sources, and every error path of a user's file."""

from __future__ import annotations

from pathlib import Path

import pytest

from vsizer.catalogs.licences import (
    Licence,
    core_licences,
    licence_count,
    licences_per_host,
    read_licences,
    socket_licences,
)
from vsizer.catalogs.model import HostModel
from vsizer.errors import CatalogError, ConfigError

HEADER = "name,unit,min_per_cpu,min_per_host,term,price,currency,source,date\n"


def _host(sockets: int, cores: int) -> HostModel:
    return HostModel("h", sockets, cores, 2, 2000.0, None, 256.0, 100.0, 400.0)


def _shipped(name: str) -> Licence:
    return next(lic for lic in read_licences() if lic.name == name)


@pytest.mark.parametrize(
    ("sockets", "cores", "windows", "vmware"),
    [(2, 12, 24, 32), (1, 8, 16, 16), (2, 32, 64, 64), (2, 4, 16, 32)],
)
def test_core_minimums_of_windows_datacenter_and_vmware(
    sockets: int, cores: int, windows: int, vmware: int
) -> None:
    # Windows Server Datacenter: every core, >= 8 per CPU, >= 16 per server.
    # VMware vSphere/Cloud Foundation: every core, >= 16 per CPU (Broadcom KB 313548).
    host = _host(sockets, cores)
    for name in ("Windows Server 2022 Datacenter", "Windows Server 2025 Datacenter"):
        assert licences_per_host(_shipped(name), host) == windows
    for name in ("VMware vSphere Foundation", "VMware Cloud Foundation"):
        assert licences_per_host(_shipped(name), host) == vmware
    assert core_licences(sockets, cores, 8, 16) == windows
    assert core_licences(sockets, cores, 16) == vmware


def test_socket_host_and_vm_units() -> None:
    rhel = _shipped("Red Hat Enterprise Linux for Virtual Datacenters")
    assert licences_per_host(rhel, _host(1, 16)) == 2  # sold per 2-socket pair
    assert licences_per_host(rhel, _host(4, 16)) == 4
    assert socket_licences(2) == 2
    per_host = Licence("support contract", "host", "year", price=10.0)
    per_vm = _shipped("Veeam Data Platform (Universal License)")
    assert licence_count(per_host, _host(2, 8), hosts=5, vms=40) == 5
    assert licence_count(per_vm, _host(2, 8), hosts=5, vms=40) == 40
    assert licences_per_host(per_vm, _host(2, 8)) == 0
    assert licence_count(rhel, _host(1, 8), hosts=3, vms=40) == 6


def test_shipped_rows_carry_source_date_and_no_price() -> None:
    rows = read_licences()
    assert len(rows) >= 6
    for lic in rows:
        # a cited vendor document, or a plain statement that the rule was not verified
        assert lic.source.startswith(("Microsoft", "Broadcom", "Red Hat", "Veeam", "Not verified"))
        assert len(lic.date) == 7 and lic.date[4] == "-"
        assert lic.price is None  # prices are the user's


def test_declared_parameters_reject_bad_counts() -> None:
    with pytest.raises(ConfigError) as exc:
        core_licences(0, 12)
    assert str(exc.value) == (
        "The 'sockets' parameter of core_licences must be an int in the range "
        "[1, inf). Got 0 instead."
    )


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("A,cpu,,,once,,,,", "lic.csv row 2, column 'unit': expected one of core, "
         "socket, host, vm, got 'cpu'."),
        ("A,core,8,16,monthly,,,,", "lic.csv row 2, column 'term': expected one of "
         "once, year, got 'monthly'."),
        ("A,vm,2,,year,,,,", "lic.csv row 2, column 'min_per_cpu': expected empty "
         "for unit 'vm', got '2'."),
        ("A,socket,2,,year,,,,", "lic.csv row 2, column 'min_per_cpu': expected "
         "empty for unit 'socket', got '2'."),
        ("A,core,8,16,once,-5,,,", "lic.csv row 2, column 'price': expected a "
         "non-negative number, got '-5'."),
        ("A,core,eight,16,once,,,,", "lic.csv row 2, column 'min_per_cpu': "
         "expected a positive integer, got 'eight'."),
        ("A,core,8,16,once,,,,\na,core,8,16,once,,,,", "lic.csv row 3, column "
         "'name': expected a licence not listed before, got 'a' (also row 2)."),
    ],
)
def test_bad_rows_are_one_clear_line(tmp_path: Path, row: str, message: str) -> None:
    path = tmp_path / "lic.csv"
    path.write_text(HEADER + row + "\n", encoding="utf-8")
    with pytest.raises(CatalogError) as exc:
        read_licences(path)
    assert str(exc.value) == message


def test_empty_file_and_missing_column(tmp_path: Path) -> None:
    path = tmp_path / "lic.csv"
    path.write_text(HEADER, encoding="utf-8")
    with pytest.raises(CatalogError, match=r"^lic.csv: expected at least one licence"):
        read_licences(path)
    path.write_text("name,unit\nA,core\n", encoding="utf-8")
    with pytest.raises(CatalogError, match=r"lic.csv: missing required column 'term'"):
        read_licences(path)
