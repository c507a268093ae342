"""Scenario TOML and parameter validation."""

from __future__ import annotations

import pytest

from vsizer.errors import ConfigError
from vsizer.study.config import Rules, load_rules, rules_from_dict


def test_defaults_follow_the_design_rules():
    r = Rules()
    assert (r.ceiling, r.failures, r.vcpu_per_core, r.years) == (0.6, 1, 2.0, 5)
    assert r.for_pool("any") == (0.6, 1, 3)
    assert Rules(failures=0).for_pool("any") == (0.6, 0, 1)


def test_toml_sections_mirror_flags(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(
        "[sizing]\nceiling = 0.7\nfailures = 2\nmin_hosts = 4\nvcpu_per_core = 3\n"
        "[overhead]\nhost_memory_reserve_gib = 0\nvm_memory_overhead_mib = 0\n"
        '[power]\nprice_kwh = 31\ncurrency = "JPY"\npue = 1.4\nyears = 7\n'
        "[targets]\nhost_ratio = 0.5\n"
        '[pools."開発"]\nfailures = 0\nceiling = 0.8\n',
        encoding="utf-8",
    )
    r = load_rules(f)
    assert (r.ceiling, r.failures, r.min_hosts, r.vcpu_per_core) == (0.7, 2, 4, 3.0)
    assert (r.host_memory_reserve_gib, r.vm_memory_overhead_mib) == (0.0, 0.0)
    assert (r.price_kwh, r.currency, r.pue, r.years) == (31.0, "JPY", 1.4, 7)
    assert r.targets == {"host_ratio": 0.5}
    assert r.for_pool("開発") == (0.8, 0, 1)
    assert r.for_pool("本番") == (0.7, 2, 4)
    # flags override the file
    assert r.replace(ceiling=0.5, failures=None).ceiling == 0.5


def test_unknown_keys_are_errors_all_reported(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text("[sizing]\nceil = 0.6\n[foo]\nx = 1\n[targets]\nspeed = 2\n")
    with pytest.raises(ConfigError) as exc:
        load_rules(f)
    assert exc.value.problems == [
        f"{f}: unknown key 'sizing.ceil'; accepted: ceiling, failures, min_hosts, "
        "vcpu_per_core, failover_limit, failover_budget, cpu_basis, assume_util, min_confidence, rightsize.",
        f"{f}: unknown section [foo]; accepted: [hosts], [sizing], [overhead], [power], "
        "[space], [inventory], [platform], [series], [storage], [growth], [targets], [pools].",
        f"{f}: unknown key 'targets.speed'; accepted: host_ratio, rack_ratio, "
        "power_ratio, consolidation_ratio.",
    ]


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (
            {"ceiling": 1.2},
            "The 'ceiling' parameter of plan (--ceiling, [sizing] ceiling) must be a float in the range (0, 1]. Got 1.2 instead.",
        ),
        (
            {"failures": -1},
            "The 'failures' parameter of plan (--failures, [sizing] failures) must be an int in the range [0, 1000]. Got -1 instead.",
        ),
        (
            {"cpu_basis": "p95"},
            "The 'cpu_basis' parameter of plan (--cpu-basis, [sizing] cpu_basis) must be one of 'peak', 'average'. Got 'p95' instead.",
        ),
        (
            {"pue": 0.9},
            "The 'pue' parameter of plan (--pue, [power] pue) must be a float in the range [1, inf). Got 0.9 instead.",
        ),
        (
            {"ceiling": 0.9, "failover_limit": 0.8},
            "The 'ceiling' parameter of plan (0.9) must not exceed 'failover_limit' (0.8).",
        ),
    ],
)
def test_parameter_errors(kwargs, message):
    with pytest.raises(ConfigError) as exc:
        Rules(**kwargs)
    assert str(exc.value) == message


def test_bad_toml_and_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="file not found"):
        load_rules(tmp_path / "none.toml")
    bad = tmp_path / "b.toml"
    bad.write_text("[sizing\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_rules(bad)


def test_unknown_pool_key():
    with pytest.raises(ConfigError, match=r"unknown key 'pools\.dev\.ram'"):
        rules_from_dict({"pools": {"dev": {"ram": 1}}})


def test_series_section_and_percentile():
    r = rules_from_dict(
        {"series": {"step": "10min", "percentile": "p95", "solver": "cp-sat",
                    "time_limit": 5, "vm_cpu_mhz": 1000, "vm_mem_gib": 1}}
    )
    assert (r.step, r.percentile, r.solver, r.time_limit) == ("10min", "p95", "cp-sat", 5.0)
    assert r.quantile == 0.95
    assert Rules(percentile="p99.9").quantile == pytest.approx(0.999)
    assert Rules().quantile is None
    assert (r.vm_cpu_mhz, r.vm_mem_gib) == (1000.0, 1.0)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"percentile": "p100"}, "The 'percentile' parameter of plan (--percentile, [series] percentile) must be 'max' or 'pNN' with 0 < NN < 100 (e.g. 'p95', 'p99.9'). Got 'p100' instead."),
        ({"percentile": "95"}, "The 'percentile' parameter of plan (--percentile, [series] percentile) must be 'max' or 'pNN' with 0 < NN < 100 (e.g. 'p95', 'p99.9'). Got '95' instead."),
        ({"step": "soon"}, "The 'step' parameter of plan (--step, [series] step) must be a positive duration like '5min' or '30s'. Got 'soon' instead."),
        ({"step": "-5min"}, "The 'step' parameter of plan (--step, [series] step) must be a positive duration like '5min' or '30s'. Got '-5min' instead."),
        ({"solver": "gurobi"}, "The 'solver' parameter of plan (--solver, [series] solver) must be one of 'heuristic', 'cp-sat'. Got 'gurobi' instead."),
        ({"gap_fill": "interpolate"}, "The 'gap_fill' parameter of plan (--gap-fill, [series] gap_fill) must be one of 'peak', 'zero'. Got 'interpolate' instead."),
    ],
)
def test_series_parameter_errors(kwargs, message):
    with pytest.raises(ConfigError) as exc:
        Rules(**kwargs)
    assert str(exc.value) == message


def test_platform_section_and_errors():
    r = rules_from_dict(
        {"platform": {"scenarios": "hyperv-r2-java", "hyperthreading": "off"}}
    )
    assert (r.platform, r.hyperthreading) == (("hyperv-r2-java",), "off")
    with pytest.raises(ConfigError) as exc:
        Rules(platform=("warp-drive",))
    assert str(exc.value).startswith(
        "The 'platform' parameter of plan (--platform, [platform] scenarios) must be one of 'hyperv-r2-java', "
    )
    assert str(exc.value).endswith("Got 'warp-drive' instead.")
    with pytest.raises(ConfigError, match="'hyperthreading' parameter of plan"):
        Rules(hyperthreading="maybe")


@pytest.mark.parametrize("bad", ["-1", "", "US D", "JPY1", "=1+1", "x" * 9])
def test_currency_must_be_a_code_or_a_sign(bad):
    with pytest.raises(ConfigError) as exc:
        Rules(currency=bad)
    assert str(exc.value) == (
        "The 'currency' parameter of plan (--currency, [power] currency) must be a currency code such as 'JPY' or "
        "'USD' (1 to 8 letters, or a currency sign such as '¥'). "
        f"Got {bad!r} instead."
    )


@pytest.mark.parametrize("good", ["JPY", "USD", "円", "¥", "$", "EUR"])
def test_currency_codes_and_signs_are_accepted(good):
    assert Rules(currency=good).currency == good


def test_flags_over_rules():
    from pathlib import Path

    r = Rules(targets={"host_ratio": 0.5, "rack_ratio": 0.7}, include_powered_off=True)
    f = r.with_flags(
        {
            "ceiling": 0.5,
            "failures": None,
            "include_powered_off": False,  # a switch left off: not given
            "host_catalog": Path("hosts.csv"),
            "platform": ["hyperv-r2-java"],
            "cpu_catalog": None,
        },
        {"host_ratio": 0.4, "power_ratio": None},
    )
    assert (f.ceiling, f.failures, f.include_powered_off) == (0.5, 1, True)
    assert (f.host_catalog, f.platform) == ("hosts.csv", ("hyperv-r2-java",))
    assert f.targets == {"host_ratio": 0.4, "rack_ratio": 0.7}
    assert r.with_flags({"platform": []}).platform == ()


def test_toml_layout_comes_from_the_declared_table():
    from vsizer.study.config import _SECTIONS, rule_fields

    fields = rule_fields()
    assert {name for keys in _SECTIONS.values() for name in keys.values()} == set(fields)
    assert _SECTIONS["hosts"] == {
        "model": "host_model",
        "catalog": "host_catalog",
        "cpu_catalog": "cpu_catalog",
        # issue 16 (tco): the host-model choice and the licences
        "candidates": "candidates",
        "candidates_file": "candidates_file",
        "licences": "licences",
    }
    assert _SECTIONS["platform"] == {"scenarios": "platform", "hyperthreading": "hyperthreading"}


def test_bad_utf8_scenario(tmp_path):
    bad = tmp_path / "b.toml"
    bad.write_bytes(b"[power]\ncurrency = '\xff'\n")
    message = f"{bad}: not UTF-8 text (invalid start byte at byte 20); save the file as UTF-8."
    with pytest.raises(ConfigError) as exc:
        load_rules(bad)
    assert str(exc.value) == message
    # compare's scenarios are read by the same loader
    from vsizer.study.compare import load_scenario

    with pytest.raises(ConfigError) as exc:
        load_scenario(bad)
    assert str(exc.value) == message
