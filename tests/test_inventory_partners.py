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



def _linear_match(wanted: str, names: list[str]) -> list[str]:
    """The reference: a scan of every name (the matcher before the index)."""
    key = wanted.casefold()
    same = [n for n in names if n.casefold() == key]
    return same or [n for n in names if n.casefold().split(".")[0] == key.split(".")[0]]


def test_the_name_index_matches_as_a_scan_of_every_name():
    """vsizer.inventory._build._Names answers every partner name as a scan of
    every name does, in the same order (exact names in any case first, else the
    same host part with or without a domain, ambiguities kept)."""
    from vsizer.inventory._build import _Names

    names = ["WEB01.contoso.local", "web01.fabrikam.local", "web02", "Web02.x",
             "db01", "DB01", "db02.contoso.local", "app", "app.a.b", "APP.c"]
    index = _Names(names)
    for wanted in names + ["web01", "WEB02", "db02", "DB02.other", "app", "nope",
                           "app.a", "", "."]:
        assert index.match(wanted) == _linear_match(wanted, names), wanted


def test_partners_of_a_large_list_are_matched_pair_by_pair(tmp_path):
    """2,000 pairs written both ways, then 2,000 more named by one side only: every
    pair is mutual (the index answers each name at once; the scan of every name
    made such a list quadratic)."""
    body = "".join(f"a{i},2,4,b{i}\nb{i},2,4,a{i}\n" for i in range(2000))
    body += "".join(f"c{i}.dom,2,4,D{i}\nd{i},2,4,\n" for i in range(2000))
    got = _partners(_read(tmp_path, body))
    assert got["a1999"] == "b1999" and got["b0"] == "a0"
    assert got["c7.dom"] == "d7" and got["d7"] == "c7.dom"
    assert len(got) == 8000


def test_partner_names_are_looked_up_as_by_a_scan_of_every_name():
    """The two look-ups (made at C speed, lists only for keys of several names)
    give what a list per key gave: the same name in any case first, else the
    host part before the first '.', every match in file order."""
    from vsizer.inventory._build import _Names

    names = ["web01", "WEB01", "db01.contoso.local", "db01.fabrikam.local", "app01",
             "App02.x", "app02", "solo.a.b"]
    wanted = ["web01", "Web01", "db01", "DB01.contoso.local", "db01.other", "app01",
              "app02", "APP02.y", "solo", "solo.a", "nobody", ""]

    def scan(w: str) -> list[str]:
        key = w.casefold()
        same = [n for n in names if n.casefold() == key]
        return same or [n for n in names if n.casefold().split(".")[0] == key.split(".")[0]]

    got = _Names(names)
    for w in wanted:
        assert got.match(w) == scan(w), w
    assert got.match("web01") == ["web01", "WEB01"]
    assert got.match("db01") == ["db01.contoso.local", "db01.fabrikam.local"]
    first = got.match("app01")
    first.append("x")  # a new list each time
    assert got.match("app01") == ["app01"]
