"""vsizer fit: measurement reader, fits with confidence intervals, profiles."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vsizer.errors import ConfigError, InputError
from vsizer.models import cpu
from vsizer.models.fit import fit_cpu, fit_disk, fit_network
from vsizer.models.measurements import read_measurements
from vsizer.models.profile import Profile, load_profile, profile_from_dict, save_profile

DATA = Path(__file__).parent / "data" / "models"
HEADER = "model,experiment,vms,physical_cpus,total_util_pct,relative\n"


def _write(tmp_path: Path, text: str, name: str = "m.csv") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_fit_reproduces_the_table61_regression():
    # DESIGN.md §6.1: slope about -0.071 from about 2.09 over rows within 400 %
    res = fit_cpu(read_measurements(DATA / "esx252_table61.csv", "cpu"))
    a, b = res.parameters["intercept"], res.parameters["slope"]
    assert b.value == pytest.approx(-0.071, abs=0.001)
    assert a.value == pytest.approx(2.09, abs=0.01)
    assert a.n == 15 and b.ci_low < -0.071 < b.ci_high
    k = res.parameters["contention_exponent"]
    assert k.n == 4 and k.ci_low < 1.0 < k.ci_high  # processor sharing (k = 1) inside
    over = res.samples[res.samples.used_for == "contention"]
    assert np.all(np.abs(over.residual / over.measured) < 0.15)


def test_fit_cpu_recovers_known_parameters_from_noisy_synthetic_samples():
    # 95 % intervals: over seeds 0-199 they covered the truth 190/196/188 times
    rng = np.random.default_rng(1)
    vms = np.repeat([1, 2, 4, 8, 12], 8).astype(float)
    util = np.tile([50, 100, 150, 200, 300, 380, 600, 900], 5).astype(float)
    truth = {"intercept": 3.0, "slope": -0.1, "contention_exponent": 1.0}
    y = cpu.relative_performance(vms, 4, util, basis="guest", reference_cpus=4, **truth)
    y = y * (1 + rng.normal(0, 0.01, y.size))
    frame = pd.DataFrame({"row": np.arange(2, y.size + 2), "experiment": "synthetic",
                          "vms": vms, "physical_cpus": 4.0, "total_util_pct": util,
                          "relative": y, "throughput": np.nan})
    res = fit_cpu(frame)
    for name, value in truth.items():
        e = res.parameters[name]
        assert e.ci_low <= value <= e.ci_high, (name, e)


def test_fit_cpu_from_throughput_uses_mu(tmp_path):
    text = ("model,experiment,vms,physical_cpus,total_util_pct,throughput\n"
            "cpu,a,1,4,50,100\ncpu,a,2,4,50,90\ncpu,a,3,4,50,80\n")
    res = fit_cpu(read_measurements(_write(tmp_path, text)))
    # mu = lambda / rho = 200, 180, 160 -> slope -20 per VM, intercept 220
    assert res.parameters["slope"].value == pytest.approx(-20)
    assert res.parameters["intercept"].value == pytest.approx(220)
    assert "contention_exponent not fitted" in res.notes[0]


def test_fit_cpu_needs_samples_within_the_cpus(tmp_path):
    text = HEADER + "cpu,a,1,4,500,1\ncpu,a,2,4,600,1\n"
    with pytest.raises(InputError, match="need at least 3 samples within the physical CPUs"):
        fit_cpu(read_measurements(_write(tmp_path, text)))


def test_fit_disk_recovers_floor():
    rng = np.random.default_rng(3)
    qd = np.tile([1, 2, 4, 8, 16, 32], 6).astype(float)
    y = np.where(qd < 4, 0.72, 1.0) + rng.normal(0, 0.01, qd.size)
    frame = pd.DataFrame({"row": np.arange(qd.size) + 2, "experiment": "syn",
                          "queue_depth": qd, "access_spec": "sequential_read",
                          "backing": "file", "relative": y, "throughput": np.nan,
                          "native_throughput": np.nan})
    res = fit_disk(frame)
    e = res.parameters["sequential_read.file.floor"]
    assert e.ci_low <= 0.72 <= e.ci_high and e.n == 12
    assert res.profile_section["queue_depth"]["sequential_read"]["floor"]["file"] == pytest.approx(0.72, abs=0.01)


def test_fit_network_group_means(tmp_path):
    text = ("model,experiment,direction,nic_gbps,vmq,senders,throughput,hypervisor,vms,relative\n"
            "network,a,send,1,false,,800,hyper-v,,\nnetwork,a,send,1,false,,940,hyper-v,,\n"
            "network,a,vm_to_vm,,,4,3937,hyper-v,,\nnetwork,a,vm_to_vm,,,4,3937,hyper-v,,\n"
            "network,a,,,,,,xen,1,0.8\nnetwork,a,,,,,,xen,1,0.8\n")
    res = fit_network(read_measurements(_write(tmp_path, text), "network"))
    assert res.parameters["wire.1g.send"].value == pytest.approx(870)
    assert res.parameters["vm_to_vm.4"].value == pytest.approx(3937)
    assert res.parameters["xen.vms1"].value == pytest.approx(0.8)
    assert res.profile_section["wire"]["1"]["send"] == pytest.approx(870)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "m.csv: empty file"),
        ("experiment\nx\n", "m.csv: missing required column 'model'"),
        (HEADER + "gpu,a,1,4,50,1\n", "m.csv row 2, column 'model': expected one of cpu, disk, network, got 'gpu'."),
        (HEADER + "cpu,a,x,4,50,1\n", "m.csv row 2, column 'vms': expected an integer, got 'x'."),
        (HEADER + "cpu,a,1.5,4,50,1\n", "m.csv row 2, column 'vms': expected an integer, got '1.5'."),
        (HEADER + "cpu,a,1,0,50,1\n", "m.csv row 2, column 'physical_cpus': expected a number > 0 for a cpu sample, got '0'."),
        (HEADER + "cpu,a,1,4,-5,1\n", "m.csv row 2, column 'total_util_pct': expected a finite number >= 0, got '-5'."),
        (HEADER + "cpu,a,1,4,50,\n", "m.csv row 2, column 'relative': expected a number (or give 'throughput') for a cpu sample, got ''."),
        (HEADER + "cpu,a,1,4,50,1,9\n", "m.csv row 2: expected 6 cells, got 7."),
        ("model,experiment,queue_depth,access_spec,backing,relative\ndisk,a,1,random,file,1\n",
         "m.csv row 2, column 'access_spec': expected one of sequential_read, sequential_write, database, file_server, got 'random'."),
        ("model,experiment,direction,throughput\nnetwork,a,send,900\n",
         "m.csv row 2, column 'nic_gbps': expected a number > 0 for a network sample, got ''."),
        ("model,experiment,vmq\nnetwork,a,maybe\n", "m.csv row 2, column 'vmq': expected true or false, got 'maybe'."),
        ("model,experiment,util_basis\ncpu,a,host\n", "m.csv row 2, column 'util_basis': expected one of guest, demand, got 'host'."),
    ],
)
def test_reader_errors_name_file_row_column(tmp_path, text, message):
    with pytest.raises(InputError) as info:
        read_measurements(_write(tmp_path, text))
    assert message in str(info.value)


def test_reader_collects_all_row_errors(tmp_path):
    text = HEADER + "cpu,a,x,4,50,1\ncpu,a,1,4,50,1\ncpu,a,1,4,zz,1\n"
    with pytest.raises(InputError) as info:
        read_measurements(_write(tmp_path, text))
    assert [p.split(",")[0] for p in info.value.problems] == ["m.csv row 2", "m.csv row 4"]


def test_reader_no_samples_of_the_model_and_unreadable(tmp_path):
    with pytest.raises(InputError, match="m.csv: no 'disk' samples"):
        read_measurements(_write(tmp_path, HEADER + "cpu,a,1,4,50,1\n"), "disk")
    with pytest.raises(InputError, match="cannot read the measurement file"):
        read_measurements(tmp_path / "missing.csv")


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_profile_round_trip(tmp_path, suffix):
    prof = Profile(cpu={"intercept": 2.0, "slope": -0.05},
                   disk={"nfs": {"read_write": 0.6}},
                   environment={"nfs": True, "nfs_server_cache_gib": 64.0},
                   fits={"cpu": {"file": "a \"b\".csv", "samples": 3}}, source="test")
    path = tmp_path / f"p{suffix}"
    save_profile(prof, path)
    back = load_profile(path)
    assert back == prof
    assert back.cpu_coefficients() == {"intercept": 2.0, "slope": -0.05,
                                       "reference_cpus": 4.0, "contention_exponent": 1.72}
    assert back.section("disk", "nfs")["read_write"] == 0.6
    assert back.section("disk", "nfs")["cache_short"] == 0.17


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"cpus": {}}, "p: unknown key 'cpus'"),
        ({"cpu": {"slop": 1}}, "p: unknown key 'cpu.slop'"),
        ({"cpu": {"slope": "steep"}}, "p: 'cpu.slope' must be a number, got 'steep'."),
        ({"disk": {"nfs": {"read_write": True}}}, "p: 'disk.nfs.read_write' must be a number"),
        ({"environment": {"nfs": "yes"}}, "p: 'environment.nfs' must be true or false"),
        ({"environment": {"disk_format": "qcow2"}}, "p: 'environment.disk_format' must be one of volume, preallocated, sparse"),
        ({"environment": {"nic": 10}}, "p: unknown key 'environment.nic'"),
        ({"profile_version": 2}, "p: profile_version must be 1, got 2."),
    ],
)
def test_profile_errors(doc, message):
    with pytest.raises(ConfigError) as info:
        profile_from_dict(doc, "p")
    assert message in str(info.value)


def test_profile_file_errors(tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text("{\n  oops\n}", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"p.json line 2, column 3: invalid JSON"):
        load_profile(bad)
    with pytest.raises(ConfigError, match="expected a .json or .toml profile"):
        load_profile(_write(tmp_path, "x", "p.yaml"))
    with pytest.raises(ConfigError, match="cannot read the profile"):
        load_profile(tmp_path / "none.json")
    assert json.loads(bad.read_text(encoding="utf-8").replace("oops", '"a": 1')) == {"a": 1}


DEMAND_HEADER = "model,experiment,vms,physical_cpus,total_util_pct,util_basis,relative\n"


def test_fit_cpu_demand_basis_recovers_an_exact_exponent(tmp_path):
    # within the 2 CPUs: relative 1 at 1 and 2 VMs -> intercept 1, slope 0; beyond:
    # r = (D / 200)^-k with k = 1.2 at 3 and 4 saturated guests -> k = 1.2 exactly
    rows = ["cpu,t,1,2,100,demand,1", "cpu,t,2,2,200,demand,1", "cpu,t,2,2,200,demand,1",
            f"cpu,t,3,2,300,demand,{1.5 ** -1.2!r}", f"cpu,t,4,2,400,demand,{2 ** -1.2!r}"]
    res = fit_cpu(read_measurements(_write(tmp_path, DEMAND_HEADER + "\n".join(rows) + "\n"), "cpu"))
    k = res.parameters["contention_exponent"]
    assert k.value == pytest.approx(1.2, abs=1e-9) and k.n == 2
    assert res.parameters["intercept"].value == pytest.approx(1.0)
    assert res.parameters["slope"].value == pytest.approx(0.0, abs=1e-12)
    assert res.profile_section["contention_exponent"] == pytest.approx(1.2)
    assert np.allclose(res.samples.residual, 0.0, atol=1e-9)
    assert [(c["vms"], c["samples"], c["fitted"]) for c in res.curve] == [
        (1, 1, 1.0), (2, 2, 1.0), (3, 1, pytest.approx(0.614739, abs=1e-6)),
        (4, 1, pytest.approx(0.435275, abs=1e-6))]


def test_fit_cpu_guest_basis_on_saturated_guests_explains_util_basis(tmp_path):
    # fair share (r = 200 / D) read as guest-reported utilization gives g = 1
    rows = ["cpu,t,1,2,100,,1", "cpu,t,2,2,200,,1", "cpu,t,2,2,200,,1", "cpu,t,3,2,300,,0.6", "cpu,t,4,2,400,,0.45"]
    with pytest.raises(InputError) as info:
        fit_cpu(read_measurements(_write(tmp_path, DEMAND_HEADER + "\n".join(rows) + "\n"), "cpu"))
    assert str(info.value) == (
        "cpu fit: the overcommitted samples give g = 1.18; expected 0 < g < 1 (performance "
        "falling with overcommit). Samples of saturated guests (each asking for a whole vCPU) "
        "measure demand, not guest-reported utilization: set util_basis = demand.")


def test_fit_cpu_errors_on_mixed_bases_and_rising_performance(tmp_path):
    rows = ["cpu,t,1,2,100,demand,1", "cpu,t,2,2,200,demand,1", "cpu,t,2,2,200,demand,1",
            "cpu,t,3,2,300,guest,0.7", "cpu,t,4,2,400,demand,0.5"]
    with pytest.raises(InputError, match=r"^cpu fit: the overcommitted samples mix util_basis "
                       r"guest \(rows 5\) and demand \(rows 6\); fit them separately\.$"):
        fit_cpu(read_measurements(_write(tmp_path, DEMAND_HEADER + "\n".join(rows) + "\n"), "cpu"))
    rows[3:] = ["cpu,t,3,2,300,demand,1.1", "cpu,t,4,2,400,demand,1.2"]
    with pytest.raises(InputError, match=r"^cpu fit: the overcommitted samples \(util_basis demand\) "
                       r"give k = -0\.25\d*; expected k > 0"):
        fit_cpu(read_measurements(_write(tmp_path, DEMAND_HEADER + "\n".join(rows) + "\n"), "cpu"))


def test_fit_cpu_on_the_measured_tcg_tiles_export():
    # measured here: 1..4 single-vCPU TCG guests on 2 cores (docs/bench.md, "Measured here")
    path = Path(__file__).parent / "data" / "bench" / "tiles_cpu_tcg_2cores.csv"
    res = fit_cpu(read_measurements(path, "cpu"))
    k = res.parameters["contention_exponent"]
    assert k.value == pytest.approx(1.090, abs=5e-4) and k.n == 21
    assert k.ci_low == pytest.approx(1.040, abs=5e-4) and k.ci_high == pytest.approx(1.141, abs=5e-4)
    assert k.ci_low > 1.0  # slower than the fair share: switching guests costs the emulator
    assert res.parameters["slope"].ci_low < 0 < res.parameters["slope"].ci_high
    measured = [round(c["measured_mean"], 3) for c in res.curve]
    fitted = [round(c["fitted"], 3) for c in res.curve]
    assert measured == [0.995, 0.989, 0.643, 0.465]
    assert fitted == [0.995, 0.989, 0.638, 0.466]
    assert any(n.startswith("30 of 30 samples were measured in emulated guests (QEMU TCG)")
               for n in res.notes)
