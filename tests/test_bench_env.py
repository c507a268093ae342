"""Accelerator detection, guest image pieces, suites, tiles arithmetic, export rows."""

from __future__ import annotations

import csv
import gzip

import pytest

from vsizer.bench import guestimage
from vsizer.bench.env import cpu_model, detect_accelerator
from vsizer.bench.export import export_for_fit, fit_rows
from vsizer.bench.qemu import DiskSpec
from vsizer.bench.samples import Sample, append_samples
from vsizer.bench.suite import bundled_suites, load_suite
from vsizer.bench.tiles import _check, score_tiles, split_threads
from vsizer.errors import BenchmarkRunError, ConfigError, InputError

INTEL = "processor\t: 0\nmodel name\t: Intel Xeon\nflags\t\t: fpu vme vmx sse2\n"
PLAIN = "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse2 hypervisor\n"


@pytest.mark.parametrize(
    ("cpuinfo", "kvm", "pvm", "expected", "why"),
    [
        (INTEL, True, False, "kvm", "/dev/kvm with vmx"),
        (INTEL.replace("vmx", "svm"), True, False, "kvm", "/dev/kvm with svm"),
        (INTEL, False, False, "tcg", "/dev/kvm is absent or not accessible"),
        (INTEL, True, True, "tcg", "/dev/kvm is PVM (kvm_pvm), which cannot run stock guest kernels"),
        (PLAIN, True, False, "tcg", "the CPU has no vmx/svm flag (no hardware virtualization)"),
    ],
)
def test_detect_accelerator(cpuinfo, kvm, pvm, expected, why):
    assert detect_accelerator(cpuinfo, kvm, pvm) == (expected, why)


def test_cpu_model():
    assert cpu_model(PLAIN) == "AMD EPYC"
    assert cpu_model("") == "unknown"


def test_cpio_newc_layout():
    data = guestimage.cpio_newc([("init", 0o100755, b"#!/bin/sh\n")])
    # header: magic + 13 fields of 8 hex digits; namesize of "init\0" = 5, filesize 10
    assert data[:6] == b"070701"
    assert int(data[6 + 6 * 8: 6 + 7 * 8], 16) == 10
    assert int(data[6 + 11 * 8: 6 + 12 * 8], 16) == 5
    assert data[110:115] == b"init\0"
    assert b"TRAILER!!!\0" in data
    assert len(data) % 4 == 0


def test_vmlinux_needs_lz4_payload():
    with pytest.raises(BenchmarkRunError, match=r"no LZ4 payload \(magic 02 21 4c 18\)"):
        guestimage.vmlinux_from_bzimage(b"MZ" + b"\0" * 100)


def test_initramfs_init_script_loads_modules_in_order():
    init = guestimage.INIT.replace("{modules}", " ".join(m.rsplit("/", 1)[1] for m in guestimage.MODULES))
    assert "for m in virtio_ring virtio virtio_pci_legacy_dev" in init
    assert init.index("virtiofs") > init.index("fuse")
    assert gzip.compress(b"", mtime=0) == gzip.compress(b"", mtime=0)


def test_disk_spec_checks():
    with pytest.raises(ConfigError, match=r"The 'backing' parameter of DiskSpec must be one of 'volume', 'prealloc', 'sparse', 'qcow2'\. Got 'lvm' instead\."):
        DiskSpec("d", backing="lvm")


def test_bundled_suites_load():
    assert {"quick", "standard"} <= set(bundled_suites())
    quick = load_suite("quick")
    assert list(quick.workloads) == ["cpu", "disk", "network", "database", "web"]
    assert quick.method.warmup == 1 and quick.method.repetitions == 3
    std = load_suite("standard")
    assert (std.method.warmup, std.method.repetitions, std.method.trim) == (5, 5, 1)
    assert std.workloads["disk"]["queue_depths"] == [1, 2, 4, 8, 16, 32]
    assert std.workloads["database"]["scale"] == 20 and std.workloads["database"]["clients"] == 20
    q = std.quick()
    assert all(c["time_s"] <= 5 for c in q.workloads.values())
    assert list(std.only(["cpu"]).workloads) == ["cpu"]


def test_suite_errors(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(
        "[suite]\nname='x'\ncolour='red'\n[extra]\n[method]\nwarmup=-1\n[vm]\nvcpus=0\n"
        "[workloads.cpu]\ntime_s='long'\nthreds=[1]\n[workloads.gpu]\n"
    )
    with pytest.raises(ConfigError) as info:
        load_suite(bad)
    w = str(bad)
    assert info.value.problems == [
        f"{w}: unknown table [extra]; expected method, suite, vm, workloads.",
        f"{w}, [suite]: unknown key 'colour'; expected name, description.",
        f"{w}, [vm] 'vcpus': expected a positive integer, got 0.",
        f"{w}, [workloads.cpu] 'time_s': expected a int, got 'long'.",
        f"{w}, [workloads.cpu]: unknown key 'threds'; expected threads, time_s, max_prime.",
        f"{w}: unknown workload [workloads.gpu]; expected one of cpu, disk, network, database, web.",
        f"{w}, [method]: The 'warmup' parameter of bench method must be an int in the range [0, inf). Got -1 instead.",
    ]
    with pytest.raises(ConfigError, match=r"nosuch: no such suite file, and not a bundled suite \(bundled: quick, runs-11-20, standard, steady"):
        load_suite("nosuch")
    (tmp_path / "broken.toml").write_text("[suite\n")
    with pytest.raises(ConfigError, match=r"broken.toml: not valid TOML"):
        load_suite(tmp_path / "broken.toml")
    with pytest.raises(ConfigError, match=r"suite quick: no workload 'gpu'; it has cpu, disk"):
        load_suite("quick").only(["gpu"])


def test_split_threads_design_example():
    # DESIGN §8: 200 threads on 12 VMs -> 8 VMs get 17, 4 get 16
    got = split_threads(200, 12)
    assert got.count(17) == 8 and got.count(16) == 4 and sum(got) == 200
    assert split_threads(3, 4) == [1, 1, 1, 0]
    with pytest.raises(ConfigError, match=r"'vms' parameter of split_threads"):
        split_threads(10, 0)


def test_score_tiles_geometric_mean():
    got = score_tiles([{"tile": 0, "relative": 0.5}, {"tile": 0, "relative": 2.0},
                       {"tile": 1, "relative": 0.81}])
    assert got["tiles"] == pytest.approx({0: 1.0, 1: 0.81})
    assert got["total"] == pytest.approx(1.81)


def test_tile_checks():
    with pytest.raises(ConfigError, match=r"unknown guest kind\(s\) 'java'; expected a comma-separated list of cpu, database, web, idle"):
        _check(2, ["cpu", "java"])
    with pytest.raises(ConfigError, match=r"a tile of only idle guests measures nothing"):
        _check(2, ["idle"])
    with pytest.raises(ConfigError, match=r"The 'max' parameter of bench tiles"):
        _check(0, ["cpu"])


def _tile_sample(vms, value, run, util, aggregate=False, tile=0):
    meta = {"workload": "tiles", "tile_kind": "cpu", "run_id": "R1", "tiles": vms, "tile": tile,
            "vms": vms, "environment": "vm", "accelerator": "tcg", "emulated": True,
            "hypervisor": "qemu-tcg", "host_cores": 2, "vcpus": 1, "total_util_pct": util,
            "run": run, "warmup": run == 0, "foreign_load_exceeded": False}
    if aggregate:
        meta = {k: v for k, v in meta.items() if k not in ("run", "warmup", "total_util_pct")}
        meta["aggregate"] = "trimmed_mean"
    return Sample("events_per_s_host", value, "events/s", meta, 0.0)


def test_fit_rows_and_csv_read_by_fit(tmp_path):
    from vsizer.models.measurements import read_measurements

    samples = [
        _tile_sample(1, 900.0, 0, 99.0), _tile_sample(1, 800.0, 1, 99.0),
        _tile_sample(1, 800.0, 0, 0, aggregate=True),
        _tile_sample(3, 560.0, 1, 297.0, tile=2),
    ]
    rows = fit_rows(samples)
    assert [(r["vms"], r["relative"], r["total_util_pct"]) for r in rows] == [(1, 1.0, 99.0), (3, 0.7, 297.0)]
    assert {r["util_basis"] for r in rows} == {"demand"}  # saturated guests: util = demand
    store = tmp_path / "s.jsonl"
    append_samples(store, samples)
    out = tmp_path / "m.csv"
    assert export_for_fit(store, out) == 2
    header = next(csv.reader(out.open()))
    assert header[:4] == ["model", "experiment", "env", "accelerator"]
    frame = read_measurements(out, "cpu")
    assert list(frame["relative"]) == [1.0, 0.7]
    assert list(frame["emulated"]) == ["true", "true"]


def test_export_without_tiles(tmp_path):
    store = tmp_path / "s.jsonl"
    append_samples(store, [Sample("iops", 1.0, "IO/s", {"workload": "disk"})])
    with pytest.raises(InputError, match=r"s.jsonl: no CPU tile samples and no disk or network case measured both physical and in a VM to export; run 'vsizer bench tiles --max 4 --tile cpu' or 'vsizer bench run quick --env both' first\."):
        export_for_fit(store, tmp_path / "m.csv")


def test_committed_tcg_contention_export_reads_and_follows_fair_share():
    # measured here: 1..4 single-vCPU TCG guests on 2 cores (docs/bench.md, "Measured here")
    from pathlib import Path

    from vsizer.models.measurements import read_measurements

    frame = read_measurements(Path(__file__).parent / "data" / "bench" / "tiles_cpu_tcg_2cores.csv", "cpu")
    assert sorted(set(frame["vms"])) == [1, 2, 3, 4]
    assert set(frame["emulated"]) == {"true"} and set(frame["accelerator"]) == {"tcg"}
    mean = frame.groupby("vms")["relative"].mean()
    for n, value in mean.items():
        assert value == pytest.approx(min(1.0, 2.0 / n), rel=0.08)


def test_boot_initrd_appends_init_and_agent_after_the_cached_image(tmp_path):
    # the guest mounts tmpfs over /tmp and /run: the agent must not come over virtiofs
    import gzip
    import zlib

    cached = tmp_path / "initramfs.cpio.gz"
    cached.write_bytes(gzip.compress(guestimage.cpio_newc([("bin", 0o40755, b"")]), mtime=0))
    agent = tmp_path / "agent.py"
    agent.write_text("print('agent')\n", encoding="utf-8")
    image = guestimage.GuestImage(tmp_path / "vmlinux", cached, "6.1.0-test")
    out = guestimage.boot_initrd(image, agent, tmp_path / "initrd.cpio.gz")
    data = out.read_bytes()
    assert data.startswith(cached.read_bytes())
    second = zlib.decompressobj(wbits=31).decompress(data[len(cached.read_bytes()):])
    assert b"vsizer-agent.py\0" in second and b"print('agent')\n" in second
    assert guestimage.render_init() in second
    init = guestimage.render_init().decode()
    assert "cp /vsizer-agent.py /mnt/tmp/vsizer-agent.py" in init
    assert "python3 -I /tmp/vsizer-agent.py /dev/ttyS1" in init
    # the whole file is what the kernel reads: both gzip members decompress in order
    assert gzip.decompress(data).endswith(second)


def test_web_wait_failure_names_the_last_answer_and_the_servers_last_words(tmp_path):
    from vsizer.bench.workloads.web import wait_failure

    (tmp_path / "error.log").write_text("2026/11/21 [emerg] bind() to 127.0.0.1:8080 failed (98: Address in use)\n")
    (tmp_path / "nginx.stderr").write_text("")
    (tmp_path / "fcgiwrap.stderr").write_text("fcgiwrap: socket busy\n")
    assert wait_failure("http://127.0.0.1:8080", 60, "HTTP 502", tmp_path) == (
        "nginx at http://127.0.0.1:8080 did not answer the CGI path within 60 s (last: HTTP 502); "
        "error.log: 2026/11/21 [emerg] bind() to 127.0.0.1:8080 failed (98: Address in use); "
        "fcgiwrap.stderr: fcgiwrap: socket busy.")
    assert wait_failure("http://x:1", 5, "ConnectionRefusedError: refused", tmp_path / "none") == (
        "nginx at http://x:1 did not answer the CGI path within 5 s (last: ConnectionRefusedError: "
        "refused); nginx and fcgiwrap wrote nothing.")
    assert wait_failure("http://x:1", 5, "HTTP 404", None) == (
        "nginx at http://x:1 did not answer the CGI path within 5 s (last: HTTP 404).")


def test_web_wait_stops_early_when_a_server_exits(tmp_path):
    # a server that died is reported at once with its exit code, not after the timeout
    import subprocess
    import time

    from vsizer.bench.procs import Reaper
    from vsizer.bench.workloads.network import free_port
    from vsizer.bench.workloads.web import _wait_http
    from vsizer.errors import BenchmarkRunError

    (tmp_path / "nginx.stderr").write_text("nginx: [emerg] unknown directive \"lisen\"\n")
    with Reaper() as reaper:
        dead = reaper.popen(["sh", "-c", "exit 3"], stdout=subprocess.DEVNULL)
        dead.wait(timeout=10)
        t0 = time.monotonic()
        url = f"http://127.0.0.1:{free_port()}"
        with pytest.raises(BenchmarkRunError) as info:
            _wait_http(url, reaper, timeout=30, log=tmp_path, procs={"nginx": dead})
    assert time.monotonic() - t0 < 5
    assert str(info.value) == (
        f"nginx at {url} did not answer the CGI path before a server exited (last: nginx exited with "
        "code 3); nginx.stderr: nginx: [emerg] unknown directive \"lisen\".")


def test_scratch_and_work_dirs_are_absolute_with_a_relative_store(tmp_path, monkeypatch):
    # `vsizer bench run quick` stores under ./bench-results: nginx -p D -c D/nginx.conf
    # read the config at D/D/nginx.conf when D was relative (fresh-machine run)
    from vsizer.bench import workloads
    from vsizer.bench.env import PhysicalEnv
    from vsizer.bench.harness import work_dir
    from vsizer.bench.procs import Reaper

    monkeypatch.chdir(tmp_path)
    root = tmp_path.resolve()
    assert work_dir("bench-results/samples.jsonl") == root / "bench-results" / "work"
    assert work_dir("s.jsonl", "scratch") == root / "scratch"
    web = workloads.load("web")
    seen = {}
    monkeypatch.setattr(web, "_start_physical", lambda d, kib, reaper: seen.setdefault("d", d))
    with Reaper() as reaper:
        env = PhysicalEnv(reaper, "bench-results/work/physical")
        assert env.scratch == str(root / "bench-results/work/physical")
        web.prepare(env, dict(web.DEFAULT_CONFIG), reaper)
    assert seen["d"] == str(root / "bench-results/work/physical/vsizer-web")
