"""--vm-mem-gib fills the memory an inventory lacks (vsizer.inventory.assume)."""

from __future__ import annotations

import pytest

import vsizer
from vsizer.errors import InventoryError
from vsizer.inventory import read_table


def _read(tmp_path, body):
    p = tmp_path / "p.csv"
    p.write_text("name,vcpus,mem_gib\n" + body, encoding="utf-8")
    return read_table(p)


def test_blank_memory_in_a_table_is_left_for_vm_mem_gib(tmp_path):
    inv = _read(tmp_path, "a,2,\nb,2,8\n")
    assert inv.quality.entries["a"]["mem_gib"] == (
        "missing", "p.csv row 2, column 'mem_gib' is empty")
    with pytest.raises(InventoryError, match=r"^p\.csv row 2, column 'mem_gib' is "
                       r"empty: no memory size for server 'a': fill the cell, or "
                       r"pass --vm-mem-gib F for servers without one\.$"):
        vsizer.plan(inv)
    p = vsizer.plan(inv, vm_mem_gib=2.0)
    assert list(p.servers["mem_gib"]) == [2.0, 8.0]
    assert p.quality.status("a", "mem_gib") == "assumed"


def test_vm_mem_gib_unused_is_a_warning(tmp_path):
    p = vsizer.plan(_read(tmp_path, "a,2,4\n"), vm_mem_gib=2.0)
    assert list(p.servers["mem_gib"]) == [4.0]
    assert [w.code for w in p.quality.warnings] == ["vm_mem_gib_unused"]
