"""vsizer emit vmq|powercfg|nfs: the method's settings for a plan, pinned to its values."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from vsizer.cli import app
from vsizer.errors import InputError
from vsizer.study.emit import emit_nfs, emit_powercfg, emit_vmq

PLAN = Path(__file__).parent / "data" / "plan_small.json"


def _doc(hosts=("h1", "h2", "h3"), mem=(16.0, 32.0)) -> dict:
    servers = [{"name": f"v{i}", "host": "h1", "vm_mem_gib": m} for i, m in enumerate(mem)]
    servers.append({"name": "excluded", "vm_mem_gib": 999.0})  # not placed: no host
    return {"host_model": {"model": "X"}, "servers": servers,
            "pools": [{"name": "p", "hosts": [{"id": h, "vms": []} for h in hosts]}]}


def _settings(text: str) -> list[str]:
    """Lines that are settings (not comments), without their source."""
    return [ln.split("    # ", 1)[0] for ln in text.splitlines() if not ln.startswith("#")]


def test_vmq_on_10_gbe_enables_the_inf_keyword_and_states_the_published_gain():
    text = emit_vmq(_doc())
    assert _settings(text) == ['NIC advanced property "*VMQ" = 1 (Virtual Machine Queues: '
                               'Enabled), on the adapter bound to the virtual switch of every host above']
    assert "# hosts (3 x X): h1, h2, h3" in text
    assert "about 7800 Mbit/s, against about 3900 without VMQ; file copies at least 60 % shorter (2.5x)" in text
    assert "standardized-inf-keywords-for-vmq" in text
    # every line carries its source
    assert all("    # " in ln for ln in text.splitlines()[2:])


def test_vmq_below_10_gbe_is_not_prescribed():
    assert _settings(emit_vmq(_doc(), nic_gbps=1)) == []


def test_powercfg_high_performance_and_balanced_min100():
    hp = emit_powercfg(_doc())
    assert _settings(hp) == ["powercfg /setactive 8c5e7fda-e8bf-4a96-9a85-a6e23a8c635c   "
                             "(High performance, alias SCHEME_MIN)"]
    # 3 hosts x 16 W = 48 W; 48 W x 8760 h / 1000 = 420.48 kWh
    assert "throughput x1.36 for +16 W per host; this plan: +48 W, +420.48 kWh a year" in hp
    bal = emit_powercfg(_doc(), "balanced-min100")
    assert _settings(bal) == [
        "powercfg /setacvalueindex 381b4222-f694-41f0-9685-ff5bb260df2e "
        "54533251-82be-4824-96c1-47b60b740d00 893dee8e-2bef-41e0-89c6-b55d0929964c 100   "
        "(Balanced: minimum processor state 100 %, on AC)",
        "powercfg /setactive 381b4222-f694-41f0-9685-ff5bb260df2e   (Balanced, alias SCHEME_BALANCED)"]
    assert "x1.26 for +10 W per host; this plan: +30 W, +262.8 kWh a year" in bal
    with pytest.raises(InputError, match=r"--choice expected one of high-performance, balanced-min100, got 'eco'\."):
        emit_powercfg(_doc(), "eco")


def test_nfs_export_mount_and_server_cache():
    text = emit_nfs(_doc(), server="filer", export="/vm")
    assert _settings(text) == [
        "/etc/exports on filer: /vm h1(rw,sync,no_subtree_check) h2(rw,sync,no_subtree_check) "
        "h3(rw,sync,no_subtree_check)",
        "mount on each host: mount -t nfs -o rsize=8192,wsize=8192 filer:/vm /mnt/vmstore"]
    # working set = memory of the 2 placed VMs: 16 + 32 = 48 GiB
    assert "at least 48 GiB (the working set: the memory of the plan's 2 VMs)" in text
    assert "70 % with rsize/wsize 8192" in text


def test_cli_emit_and_its_errors(tmp_path):
    runner = CliRunner()
    r = runner.invoke(app, ["emit", "vmq", str(PLAN)], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("# vsizer emit vmq: settings the design method prescribes")
    r = runner.invoke(app, ["emit", "dns", str(PLAN)])
    assert r.exit_code != 0
    assert r.stderr.strip() == "error: emit: expected one of vmq, powercfg, nfs, got 'dns'."
    bad = tmp_path / "p.json"
    bad.write_text("{}", encoding="utf-8")
    r = runner.invoke(app, ["emit", "nfs", str(bad)])
    assert "error: plan: expected 'pools' with 'hosts'" in r.stderr and "Traceback" not in r.output
    r = runner.invoke(app, ["emit", "--help"], env={"COLUMNS": "250"})
    assert r.exit_code == 0 and "Example:" in r.output
