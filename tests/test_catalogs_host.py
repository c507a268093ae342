"""Host catalog: shipped models, default host, user catalogs and their validation."""

from __future__ import annotations

from pathlib import Path

import pytest
from numpy.testing import assert_allclose

from vsizer.catalogs import (
    DEFAULT_HOST_MODEL,
    host_cpu_capacity,
    read_host_catalog,
    write_catalog_csv,
)
from vsizer.errors import CatalogError, CatalogLookupError

HEADER = (
    "model,sockets,cores_per_socket,threads_per_core,cpu_mhz,cpu_score_per_core,"
    "mem_gib,power_idle_w,power_max_w,power_curve_w,rack_u,price\n"
)
R640_CURVE = (55, 125, 151, 176, 202, 232, 261, 301, 357, 421, 469)


@pytest.fixture(scope="module")
def shipped():
    return read_host_catalog()


def write(tmp_path: Path, text: str, name: str = "hosts.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_design4_example_host(shipped):
    # DESIGN.md §4: "a host with 8 cores at 2260 MHz and 48 GB memory"
    host = shipped.get("Example host 2x Xeon E5520")
    assert (host.cores, host.cpu_mhz, host.mem_gib) == (8, 2260, 48)
    assert host.cpu_score_per_core is None
    assert host_cpu_capacity(host, "MHz") == 18080
    assert host.mem_gib * 1024 == 49152


def test_design7_blades(shipped):
    # DESIGN.md §7: L5520 blade 135 W max / 79 W min; E5405 blade 224 W / 162 W
    l5520 = shipped.get("Blade 2x Xeon L5520")
    e5405 = shipped.get("Blade 2x Xeon E5405")
    assert (l5520.power_idle_w, l5520.power_max_w) == (79, 135)
    assert (e5405.power_idle_w, e5405.power_max_w) == (162, 224)


def test_default_host(shipped):
    host = shipped.default
    assert host.model == DEFAULT_HOST_MODEL == "Dell PowerEdge R740 2x Platinum 8180"
    assert host.sockets == 2 and host.cores_per_socket >= 16
    assert 384 <= host.mem_gib <= 768
    assert host.cpu_score_basis == "SPECrate2017_int_base"
    assert host.power_curve_w is not None and len(host.power_curve_w) == 11
    assert "configuration choice" in host.source
    # 56 cores x median SPECrate2017_int_base/core of the Platinum 8180 (286 / 56)
    assert_allclose(host_cpu_capacity(host, "SPECrate2017_int_base"), 286.0)


def test_r640_curve_from_specpower(shipped):
    host = shipped.get("Dell PowerEdge R640 2x Platinum 8180")
    assert host.power_curve_w == R640_CURVE
    assert (host.power_idle_w, host.power_max_w) == (55, 469)
    assert host.rack_u == 1


def test_modern_hosts_have_scores_and_sources(shipped):
    modern = [h for h in shipped if h.cpu_score_per_core is not None]
    assert len(modern) >= 4
    for host in modern:
        assert host.sockets == 2
        assert host.cpu_score_basis == "SPECrate2017_int_base"
        assert "SPECpower_ssj2008" in host.source and "SPEC CPU2017" in host.source
        assert host.rack_u in (1, 2) and host.price is None
    assert all(h.source for h in shipped)


def test_get_is_case_and_space_insensitive(shipped):
    assert (
        shipped.get("  dell poweredge r740 2x platinum 8180 ").model
        == DEFAULT_HOST_MODEL
    )
    assert "DELL PowerEdge R740 2x Platinum 8180" in shipped


@pytest.mark.parametrize("typed,suggested", [
    ("r7625 9654", " Did you mean 'Dell PowerEdge R7625 2x EPYC 9654'?"),  # words of one
    ("PowerEdge R740 2x Platinum 8108",  # a typo: the closest names
     " Did you mean 'Dell PowerEdge R740 2x Platinum 8180' or 'Dell PowerEdge R740 2x "
     "Platinum 8280' or 'Dell PowerEdge R640 2x Platinum 8180'?"),
    ("PowerEdge R9999", ""),
])
def test_get_unknown_suggests_the_closest_models(shipped, typed, suggested):
    """Issue 27: an unknown host model gave no "did you mean"."""
    with pytest.raises(CatalogLookupError) as info:
        shipped.get(typed)
    assert str(info.value).startswith(
        f"Host model '{typed}' is not in the host catalog.{suggested} Valid models: ")


def test_get_unknown_lists_models_and_where(shipped):
    with pytest.raises(CatalogLookupError) as info:
        shipped.get("PowerEdge R9999")
    message = str(info.value)
    assert message.startswith(
        "Host model 'PowerEdge R9999' is not in the host catalog. Valid models: "
        "Example host 2x Xeon E5520; Blade 2x Xeon L5520; "
    )
    assert message.endswith(
        "They are listed by `vsizer catalog list` and in " + shipped.path + "."
    )
    assert isinstance(info.value, KeyError)


def test_host_cpu_capacity_wrong_unit(shipped):
    with pytest.raises(
        CatalogError,
        match=r"Host model 'Example host 2x Xeon E5520' has no CPU score in "
        r"'SPECint2000' \(its score basis: none\); expected 'MHz' or the host's "
        r"basis\.",
    ):
        host_cpu_capacity(shipped.get("Example host 2x Xeon E5520"), "SPECint2000")


def test_round_trip(shipped, tmp_path):
    path = write_catalog_csv(shipped.to_frame(), tmp_path / "hosts.csv")
    back = {h.model: h for h in read_host_catalog(path).hosts}
    assert list(back) == [h.model for h in shipped.hosts]
    scored = [h for h in shipped.hosts if h.cpu_score_per_core is not None]
    assert [back[h.model] for h in scored] == scored
    # read as a user file, the unscored old hosts name CPUs that now have a
    # CINT2006rate score (2016 listing: E5520 and L5520 23.375, E5405 10.73125
    # per core): they get it bridged to SPECrate2017 (x 0.1086, test_score_bridge)
    factor = (5.325 / 49.5 + 3.783333333 / 34.5) / 2
    expected = {
        "Example host 2x Xeon E5520": 23.375,
        "Blade 2x Xeon L5520": 23.375,
        "Blade 2x Xeon E5405": 10.73125,
    }
    assert {h.model for h in shipped.hosts if h.cpu_score_per_core is None} == set(
        expected
    )
    for model, per_core in expected.items():
        assert back[model].cpu_score_basis == "SPECrate2017_int_base"
        assert_allclose(back[model].cpu_score_per_core, per_core * factor)
        assert "converted SPECint_rate2006 x 0.1086" in back[model].source


def test_user_catalog_alone_and_merged(tmp_path):
    curve = ";".join(str(v) for v in R640_CURVE)
    path = write(
        tmp_path,
        HEADER
        + f"Lab R640,2,16,2,2100,,384,,,{curve},1,12000\n"
        + "dell poweredge r740 2x platinum 8180,2,28,2,2500,6,768,52,457,,2,\n",
    )
    alone = read_host_catalog(path)
    assert alone.models == ["Lab R640", "dell poweredge r740 2x platinum 8180"]
    lab = alone.get("Lab R640")
    assert (lab.power_idle_w, lab.power_max_w, lab.price) == (55, 469, 12000)
    assert lab.cpu_score_per_core is None and lab.cpu_score_basis == "unstated"
    assert lab.source == "hosts.csv row 2"
    assert alone.default.model == "dell poweredge r740 2x platinum 8180"
    merged = read_host_catalog(path, merge=True)
    assert (
        merged.get(DEFAULT_HOST_MODEL).cpu_score_per_core == 6
    )  # user row replaced it
    assert merged.models[-2:] == ["Lab R640", "dell poweredge r740 2x platinum 8180"]
    assert "Blade 2x Xeon L5520" in merged
    assert len(merged) == len(read_host_catalog()) + 1


def test_default_falls_back_to_first_model(tmp_path):
    path = write(tmp_path, HEADER + "Only,1,4,1,2000,,16,50,100,,,\n")
    assert read_host_catalog(path).default.model == "Only"


def test_missing_required_column_names_it_and_accepted(tmp_path):
    path = write(tmp_path, "model,sockets,cpu_mhz,mem_gib,power_idle_w,power_max_w\n")
    with pytest.raises(CatalogError) as info:
        read_host_catalog(path)
    assert str(info.value) == (
        "hosts.csv: missing required column 'cores_per_socket'; accepted columns: "
        "model, sockets, cores_per_socket, threads_per_core, cpu_mhz, "
        "cpu_score_per_core, mem_gib, power_idle_w, power_max_w, power_curve_w, "
        "rack_u, price, price_date, price_currency, support_per_year, cpu_name, "
        "cpu_score_basis, disk_iops, disk_mb_s, net_mbps, power_basis, source."
    )


def test_every_value_problem_at_once(tmp_path):
    path = write(
        tmp_path,
        HEADER
        + "A,two,8,1,2000,,64,50,300,,1,\n"
        + "B,2,8,1,2000,,64,320,300,,1,\n"
        + "C,2,8,1,2000,,64,,,1;2;3,1,\n"
        + "D,2,8,1,2000,,64,,,100;90;80;70;60;50;40;30;20;10;5,1,\n"
        + "E,2,8,1,2000,,64,,,-5;10;20;30;40;50;60;70;80;90;100,1,\n"
        + "F,2,8,1,2000,,64,,,,1,\n"
        + "G,2,8,1,2000,,64,60,300,50;60;70;80;90;100;110;120;130;140;150,1,\n"
        + "A,2,8,1,2000,-3,64,50,300,,0,-1\n",
    )
    with pytest.raises(CatalogError) as info:
        read_host_catalog(path)
    assert info.value.problems == [
        "hosts.csv row 2, column 'sockets': expected a positive integer, got 'two'.",
        "hosts.csv row 3, column 'power_idle_w': expected at most power_max_w (300), "
        "got '320'.",
        "hosts.csv row 4, column 'power_curve_w': expected 11 non-negative numbers [W] "
        "separated by ';' (0 %, 10 %, ..., 100 % load), got '1;2;3'.",
        "hosts.csv row 4, column 'power_idle_w': expected a non-negative number (or a "
        "power_curve_w), got ''.",
        "hosts.csv row 4, column 'power_max_w': expected a positive number (or a "
        "power_curve_w), got ''.",
        "hosts.csv row 5, column 'power_curve_w': expected watts rising from idle to "
        "full load, got '100;90;80;70;60;50;40;30;20;10;5'.",
        "hosts.csv row 5, column 'power_idle_w': expected at most power_max_w (5), "
        "got '100'.",
        "hosts.csv row 6, column 'power_curve_w': expected 11 non-negative numbers [W] "
        "separated by ';' (0 %, 10 %, ..., 100 % load), "
        "got '-5;10;20;30;40;50;60;70;80;90;100'.",
        "hosts.csv row 6, column 'power_idle_w': expected a non-negative number (or a "
        "power_curve_w), got ''.",
        "hosts.csv row 6, column 'power_max_w': expected a positive number (or a "
        "power_curve_w), got ''.",
        "hosts.csv row 7, column 'power_idle_w': expected a non-negative number (or a "
        "power_curve_w), got ''.",
        "hosts.csv row 7, column 'power_max_w': expected a positive number (or a "
        "power_curve_w), got ''.",
        "hosts.csv row 8, column 'power_idle_w': expected the curve's first point (50) "
        "or empty, got '60'.",
        "hosts.csv row 8, column 'power_max_w': expected the curve's last point (150) "
        "or empty, got '300'.",
        "hosts.csv row 9, column 'cpu_score_per_core': expected a positive number, "
        "got '-3'.",
        "hosts.csv row 9, column 'rack_u': expected a positive number, got '0'.",
        "hosts.csv row 9, column 'price': expected a non-negative number, got '-1'.",
        "hosts.csv row 9, column 'model': expected a model not listed before, got 'A' "
        "(also row 2).",
    ]


def test_empty_user_catalog(tmp_path):
    path = write(tmp_path, HEADER)
    with pytest.raises(
        CatalogError, match=r"^hosts.csv: expected at least one host model, got none\.$"
    ):
        read_host_catalog(path)


# --- cpu_name without a score: looked up in the CPU catalog ------------------

NAMED = (
    "model,sockets,cores_per_socket,cpu_mhz,mem_gib,power_idle_w,power_max_w,"
    "cpu_name\n"
)


def test_cpu_name_only_takes_the_catalog_score(tmp_path):
    path = write(
        tmp_path,
        NAMED
        + "Lab 6248,2,20,2500,768,60,400,Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\n",
    )
    host = read_host_catalog(path).get("Lab 6248")
    # Gold 6248: median of 77 CINT2017rate results = 6.05 per core
    assert host.cpu_score_per_core == 6.05
    assert host.cpu_score_basis == "SPECrate2017_int_base"
    assert "cpu_score_per_core 6.05 SPECrate2017_int_base/core from CPU catalog " in (
        host.source
    )
    assert "median of 77 results" in host.source


def test_cpu_name_only_in_cpu2006_is_converted(tmp_path):
    path = write(tmp_path, NAMED + "Old,2,8,2600,256,80,300,Intel Xeon E5-2650 v2\n")
    host = read_host_catalog(path).get("Old")
    factor = (5.325 / 49.5 + 3.783333333 / 34.5) / 2  # see tests/test_score_bridge.py
    assert_allclose(host.cpu_score_per_core, 41.125 * factor)  # 4.467
    assert host.cpu_score_basis == "SPECrate2017_int_base"
    assert "converted SPECint_rate2006 x 0.1086" in host.source


def test_cpu_name_unknown_or_score_given_is_kept(tmp_path):
    path = write(
        tmp_path,
        NAMED.replace("cpu_name", "cpu_name,cpu_score_per_core")
        + "A,2,8,2600,256,80,300,Unknown CPU 9,\n"
        + "B,2,8,2600,256,80,300,Intel Xeon Gold 6248,7.5\n",
    )
    cat = read_host_catalog(path)
    assert cat.get("A").cpu_score_per_core is None
    assert cat.get("B").cpu_score_per_core == 7.5
