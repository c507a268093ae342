"""Rules bounded by the host model (issue 24): declared combinations, one line each.

Reproducer: ``host_memory_reserve_gib = 1e300`` passed validation and failed
later, one line per VM, as "one host offers -1e+300".
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from vsizer.catalogs.host_catalog import read_host_catalog
from vsizer.cli import app
from vsizer.study.config import PoolRules, Rules
from vsizer.study.host_bounds import HOST_BOUNDS, host_bound_problems

INVENTORY = str(Path(__file__).parent / "data" / "inventory" / "table_en.csv")
HOST = "Dell PowerEdge R740 2x Platinum 8180"  # 768 GiB, the shipped default
runner = CliRunner()


def _plan(tmp_path: Path, toml: str) -> tuple[int, str]:
    cfg = tmp_path / "c.toml"
    cfg.write_text(toml, encoding="utf-8")
    res = runner.invoke(app, ["plan", INVENTORY, "-q", "--config", str(cfg)],
                        env={"COLUMNS": "400"})
    return res.exit_code, res.output


def test_a_reserve_beyond_the_host_memory_is_one_line_naming_key_value_and_memory(
    tmp_path: Path,
) -> None:
    code, output = _plan(tmp_path, "[overhead]\nhost_memory_reserve_gib = 1e300\n")
    assert code == 2
    assert output.strip() == (
        "error: The 'host_memory_reserve_gib' parameter of plan ([overhead] "
        f"host_memory_reserve_gib) must leave room for VMs on host model '{HOST}': "
        "its memory kept per host must be less than 460.8 GiB (the host's 768 GiB "
        "of memory at the 60% ceiling of --ceiling, [sizing] ceiling). Got 1e+300 "
        "instead."
    )
    assert "one host offers" not in output


def test_a_vm_overhead_beyond_the_host_memory_is_one_line(tmp_path: Path) -> None:
    code, output = _plan(tmp_path, "[overhead]\nvm_memory_overhead_mib = 1e300\n")
    assert code == 2
    assert output.strip() == (
        "error: The 'vm_memory_overhead_mib' parameter of plan ([overhead] "
        f"vm_memory_overhead_mib) must leave room for VMs on host model '{HOST}': its "
        "overhead of one VM must be less than 471859 MiB (the host's 768 GiB of "
        "memory at the 60% ceiling of --ceiling, [sizing] ceiling). Got 1e+300 "
        "instead."
    )


def test_two_overheads_that_only_together_leave_no_room_are_both_named() -> None:
    host = read_host_catalog().get(HOST)
    rules = Rules(host_memory_reserve_gib=300.0, vm_memory_overhead_mib=200_000.0)
    problems = host_bound_problems(rules, host)
    assert [p.split("'")[1] for p in problems] == [
        "host_memory_reserve_gib", "vm_memory_overhead_mib"]
    assert "less than 265.487 GiB" in problems[0]
    assert "less 195.312 GiB for the other overheads" in problems[0]
    assert "less than 164659 MiB" in problems[1]


def test_the_tightest_ceiling_counts_a_pools_own() -> None:
    host = read_host_catalog().get(HOST)
    rules = Rules(host_memory_reserve_gib=300.0, pools={"dev": PoolRules(ceiling=0.3)})
    (line,) = host_bound_problems(rules, host)
    assert "less than 230.4 GiB" in line
    assert "at the 30% ceiling of [pools.'dev'] ceiling" in line
    assert host_bound_problems(Rules(host_memory_reserve_gib=300.0), host) == []


def test_defaults_and_every_declared_bound_name_a_rule() -> None:
    host = read_host_catalog().get(HOST)
    assert host_bound_problems(Rules(), host) == []
    fields = set(Rules.__dataclass_fields__)
    assert {b.name for b in HOST_BOUNDS} <= fields


def test_the_bound_is_checked_before_the_inventory_is_read(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text("[overhead]\nhost_memory_reserve_gib = 1e300\n", encoding="utf-8")
    res = runner.invoke(app, ["plan", str(tmp_path / "missing.csv"), "-q", "--config",
                              str(cfg)], env={"COLUMNS": "400"})
    assert res.exit_code == 2
    assert "host_memory_reserve_gib" in res.output and "missing.csv" not in res.output
