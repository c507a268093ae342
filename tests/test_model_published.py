"""vsizer model mhz-specint / mhz-example / ceiling / blade-power / db-scaling-check /
hyperv-disks / vmq / threads: hand-computed values, design checks, one-line errors."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from vsizer.catalogs.host_catalog import read_host_catalog
from vsizer.cli import app
from vsizer.models import published


def _run(*args: str):
    return CliRunner().invoke(app, ["model", *args], env={"COLUMNS": "250"})


def test_hand_computed_figures():
    # 3000 / 1429 = 2.0994; 3200 / 1712 = 1.8692; 3400 / 1617 = 2.1027 (max)
    m = published.mhz_specint()
    assert [r["ratio"] for r in m["rows"]][:2] == pytest.approx([2.09937, 2.10266], abs=1e-5)
    assert m["spread_pct"] == pytest.approx(100 * (3400 / 1617) / (3200 / 1712) - 100, abs=1e-4)
    assert m["spread_pct_published"] == pytest.approx(100 * (2.10 / 1.87 - 1), abs=1e-4)
    # 2 GHz x 4 x 50 % = 4000 MHz; 16 x 2000 / 4000 = 8 by CPU, 65536 / 4096 = 16 by memory
    e = published.mhz_example(2000, 4, 0.5, 2000, 16, 65536, 4096)
    assert (e["vms_by_cpu"], e["vms_by_memory"], e["binding"], e["vms"]) == (8, 16, "cpu", 8)
    assert published.failover_load(4, 0.75, 1)["survivor_load"] == pytest.approx(1.0)
    assert published.failover_load(5, 0.6, 2)["survivor_load"] == pytest.approx(1.0)
    b = published.blade_power()
    assert (b["max_ratio_pct"], b["min_ratio_pct"]) == pytest.approx((100 * 135 / 224, 100 * 79 / 162))
    assert published.db_scaling_check()["difference_pct"] == pytest.approx((1.3125 / 1.32 - 1) * 100)


def test_blade_figures_match_the_host_catalog_rows():
    rows = {h.model: h for h in read_host_catalog().hosts}
    lo, hi = rows["Blade 2x Xeon L5520"], rows["Blade 2x Xeon E5405"]
    assert (lo.power_idle_w, lo.power_max_w) == published.BLADES["L5520"]
    assert (hi.power_idle_w, hi.power_max_w) == published.BLADES["E5405"]


def test_hyperv_disk_design_check():
    ok = published.hyperv_disks(1, 4, 256)
    assert ok["fits"] and ok["problems"] == []
    bad = published.hyperv_disks(5, 2, 129)
    assert bad["problems"] == ["5 IDE disks: at most 4.",
                               "129 SCSI disks on 2 controller(s): at most 128 (64 per controller)."]
    assert published.hyperv_disks(0, 1, 1)["problems"] == [
        "no IDE disk: the startup disk must be attached to an IDE device."]
    r = _run("hyperv-disks", "--ide-disks", "5", "--scsi-controllers", "5", "--scsi-disks", "10")
    assert r.exit_code == 1
    assert r.stderr.splitlines() == ["error: 5 IDE disks: at most 4.",
                                     "error: 5 SCSI controllers: at most 4."]
    assert "ee405267" in r.stdout


def test_vmq_measured_cut():
    v = published.vmq(100.0, 45.0)
    assert v["copy_time_cut_pct"] == pytest.approx(55.0) and v["meets_published"] is False
    assert published.vmq(100.0, 39.0)["meets_published"] is True
    assert "copy_time_cut_pct" not in published.vmq()


@pytest.mark.parametrize(("args", "message"), [
    (("ceiling", "--hosts", "1"),
     "error: The 'hosts' parameter of model ceiling must be an int in the range [2, inf). Got 1 instead."),
    (("ceiling", "--hosts", "3", "--failed", "3"),
     "error: model ceiling: --failed 3 leaves no survivor of 3 hosts."),
    (("mhz-example", "--util", "2"),
     "error: The 'util' parameter of model mhz-example must be a float in the range [0, 1]. Got 2.0 instead."),
    (("vmq", "--copy-before-s", "0", "--copy-after-s", "1"),
     "error: The 'copy_before_s' parameter of model vmq must be None or a float in the range (0, inf). Got 0.0 instead."),
    (("threads", "--vms", "0"),
     "error: The 'vms' parameter of split_threads must be an int in the range [1, inf). Got 0 instead."),
])
def test_bad_values_are_one_line_errors(args, message):
    r = _run(*args)
    assert r.exit_code == 2
    assert r.stderr.strip() == message


@pytest.mark.parametrize("cmd", ["mhz-specint", "mhz-example", "ceiling", "blade-power", "storage-choice",
                                 "db-scaling-check", "hyperv-disks", "vmq", "threads"])
def test_help_has_an_example(cmd):
    r = _run(cmd, "--help")
    assert r.exit_code == 0 and "Example:" in r.output


def test_storage_choice_ranks_on_the_method_criteria():
    pool = published.storage_choice(3)
    assert [r["type"] for r in pool["ranking"]] == ["FC SAN", "NAS", "iSCSI", "DAS"]
    assert pool["choice"] == "FC SAN" and pool["ranking"][-1]["eligible"] is False
    easy = published.storage_choice(3, "ease")
    assert [r["type"] for r in easy["ranking"]] == ["NAS", "iSCSI", "FC SAN", "DAS"]
    assert published.storage_choice(1, "ease")["choice"] == "DAS"
    assert published.storage_choice(1)["choice"] == "FC SAN"
    assert pool["not_ranked"] == ["cost", "scale"]
    r = _run("storage-choice", "--prefer", "cost")
    assert r.exit_code == 2 and r.stderr.strip() == (
        "error: The 'prefer' parameter of model storage-choice must be one of "
        "'performance', 'ease'. Got 'cost' instead.")
