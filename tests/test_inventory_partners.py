"""Redundancy partners (redundant_with) are matched by name in any case and with
or without the domain suffix; an ambiguous name is an error naming both."""

from __future__ import annotations

import pytest

from vsizer.errors import InventoryError
from vsizer.inventory import read_table

HEAD = "name,vcpus,mem_gib,redundant_with\n"


def _read(tmp_path, body):
    p = tmp_path / "p.csv"
    p.write_text(HEAD + body, encoding="utf-8")
    return read_table(p)


def _partners(inv):
    return dict(zip(inv.servers["name"], inv.servers["redundant_with"], strict=True))


def test_case_and_domain_suffix(tmp_path):
    inv = _read(tmp_path,
                "WEB01.contoso.local,2,4,web02\n"
                "web02.contoso.local,2,4,\n"
                "db01,2,4,DB02.CONTOSO.LOCAL\n"
                "db02,2,4,\n")
    assert _partners(inv) == {
        "WEB01.contoso.local": "web02.contoso.local",
        "web02.contoso.local": "WEB01.contoso.local",  # made mutual
        "db01": "db02",
        "db02": "db01",
    }


def test_ambiguous_partner_names_both(tmp_path):
    with pytest.raises(InventoryError) as exc:
        _read(tmp_path,
              "app01,2,4,db01\n"
              "db01.east.local,2,4,\n"
              "db01.west.local,2,4,\n")
    assert exc.value.problems == [
        "p.csv row 2, column 'redundant_with': expected one server per name ('db01' "
        "matches 'db01.east.local' and 'db01.west.local'; write the full name), got "
        "'db01'."
    ]


def test_exact_name_wins_over_host_part(tmp_path):
    inv = _read(tmp_path, "app01,2,4,DB01\ndb01,2,4,\ndb01.west.local,2,4,\n")
    assert _partners(inv)["app01"] == "db01"

