"""The distributed engines (issue 15, item 3 a): on a tiny local cluster of
Ray (2 CPUs) and Dask (1 worker process), a what-if comparison and a
``--host-model auto`` plan with growth years give the same JSON byte for byte
as the local engine; every error is one line naming the flag.

Each engine's tests are skipped when its extra is not installed
(``pip install 'vsizer[ray]'``, ``'vsizer[dask]'``); one cluster per engine
for the whole module keeps the file under a minute.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import vsizer
from vsizer.cli.app import app
from vsizer.engines import ENGINES, Engine, LocalEngine, get_engine
from vsizer.errors import ConfigError, VsizerError
from vsizer.study.compare import compare, load_scenario
from vsizer.study.config import load_rules

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "vsizer" / "data" / "samples" / "inventory_ja.xlsx"
SCENARIO = REPO / "vsizer" / "data" / "samples" / "scenario.toml"
SCENARIOS = sorted((REPO / "vsizer" / "data" / "scenarios").glob("*.toml"))
R740 = "Dell PowerEdge R740 2x Platinum 8180"
EPYC = "Dell PowerEdge R7525 2x EPYC 7702"

HAVE = {
    "ray": importlib.util.find_spec("ray") is not None,
    "dask": importlib.util.find_spec("distributed") is not None,
}


def _skip_without(name: str) -> None:
    if not HAVE[name]:
        pytest.skip(f"skip: {name} not installed (pip install 'vsizer[{name}]')")


@pytest.fixture(scope="module", params=["ray", "dask"])
def cluster(request: pytest.FixtureRequest) -> Iterator[Engine]:
    """A tiny local cluster: Ray with 2 CPUs, Dask with 1 worker process."""
    _skip_without(request.param)
    if request.param == "dask":
        import dask
        import distributed  # noqa: F401 - loads the distributed.* config

        # One death is enough to report a worker died (the default retries 3).
        with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
            engine = get_engine("dask", workers=1)
    else:
        engine = get_engine("ray", workers=2)
    with engine:
        yield engine


def _auto_growth_rules():  # noqa: ANN202 - a Rules
    return load_rules(SCENARIO).replace(
        host_model="auto", candidates=(R740, EPYC), growth="15%", years=3
    )


@pytest.fixture(scope="module")
def local_compare() -> str:
    return json.dumps(compare(SCENARIOS, SAMPLE), ensure_ascii=False, indent=2)


@pytest.fixture(scope="module")
def local_auto() -> str:
    return vsizer.plan(SAMPLE, rules=_auto_growth_rules(), workers=1).to_json()


# --- the local engine and the checks before any cluster -----------------------


def test_local_engine_maps_in_order_and_reports_each_item() -> None:
    seen: list[int] = []
    with get_engine() as engine:
        assert isinstance(engine, LocalEngine) and engine.workers == 1
        assert engine.map(abs, [-3, 2, -1], done=seen.append) == [3, 2, 1]
        assert engine.map(abs, []) == []
    assert seen == [0, 1, 2]
    assert ENGINES == ("local", "ray", "dask")


@pytest.mark.parametrize(
    ("name", "kwargs", "message"),
    [
        ("spark", {}, "--engine must be one of local, ray, dask; got 'spark'."),
        ("local", {"workers": 2}, "--workers applies to --engine ray or dask; "
         "the local engine runs in this process."),
        ("local", {"address": "tcp://h:8786"}, "--engine-address applies to "
         "--engine ray or dask; the local engine runs in this process."),
        ("dask", {"address": "tcp://h:8786", "workers": 2}, "--workers starts a "
         "local cluster and --engine-address joins a running one: give one of them."),
        ("ray", {"workers": 0}, "--workers: expected a whole number >= 1, got 0."),
        ("dask", {"address": "h:8786"}, "--engine-address 'h:8786': expected "
         "'tcp://HOST:8786' (the Dask scheduler) for --engine dask."),
        ("ray", {"address": "http://h:8265"}, "--engine-address 'http://h:8265': "
         "expected 'auto', 'ray://HOST:10001' (Ray client) or 'HOST:6379' (the "
         "head node) for --engine ray."),
    ],
)
def test_bad_engine_flags_are_one_line(name: str, kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError) as exc:
        get_engine(name, **kwargs)
    assert str(exc.value) == message


@pytest.mark.parametrize(("name", "module"), [("ray", "ray"), ("dask", "distributed")])
def test_missing_extra_names_the_flag_and_the_extra(
    name: str, module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # import raises ImportError
    with pytest.raises(ConfigError) as exc:
        get_engine(name, workers=1)
    label = "Ray" if name == "ray" else "Dask (distributed)"
    assert str(exc.value) == (
        f"--engine {name}: {label} is not installed; install the extra: "
        f"pip install 'vsizer[{name}]'."
    )


def test_cli_engine_errors_are_one_line_without_traceback() -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["plan", str(SAMPLE), "--engine", "spark", "-q"])
    assert res.exit_code == 2
    assert res.output.strip() == (
        "error: --engine must be one of local, ray, dask; got 'spark'."
    )
    res = runner.invoke(
        app, ["compare", *map(str, SCENARIOS), "--inventory", str(SAMPLE),
              "--engine", "dask", "--engine-address", "127.0.0.1", "-q"],
    )
    assert res.exit_code == 2
    assert res.output.strip() == (
        "error: --engine-address '127.0.0.1': expected 'tcp://HOST:8786' (the Dask "
        "scheduler) for --engine dask."
    )
    assert "Traceback" not in res.output


@pytest.mark.parametrize(
    ("name", "address"), [("dask", "tcp://127.0.0.1:9"), ("ray", "ray://127.0.0.1:9")]
)
def test_unreachable_cluster_is_one_line(name: str, address: str) -> None:
    _skip_without(name)
    with pytest.raises(ConfigError) as exc:  # the discard port: nobody listens
        get_engine(name, address=address)
    assert str(exc.value) == (
        f"--engine-address {address}: cannot reach 127.0.0.1:9 (Connection "
        "refused); is the cluster running, and is its port open to this machine?"
    )


def test_no_running_ray_cluster_is_one_line() -> None:
    _skip_without("ray")
    import ray

    if ray.is_initialized():
        pytest.skip("a Ray cluster is already joined in this process")
    try:
        joined = get_engine("ray", address="auto")
    except ConfigError as exc:
        text = str(exc)
        assert text.startswith("--engine-address auto: cannot join the Ray cluster ("), text
        assert "\n" not in text
    else:  # another Ray cluster runs on this machine: nothing to check here
        joined.close()
        pytest.skip("a Ray cluster is running on this machine")


# --- on a tiny local cluster ---------------------------------------------------


def test_cluster_maps_in_item_order(cluster: Engine) -> None:
    seen: list[int] = []
    items = list(range(-40, 0))
    assert cluster.map(abs, items, done=seen.append) == [abs(i) for i in items]
    assert sorted(seen) == list(range(len(items)))
    assert cluster.map(abs, []) == []
    assert cluster.workers >= 1
    # An item is data, even a tuple that starts with a function.
    assert cluster.map(repr, [(abs, -1)]) == [repr((abs, -1))]


def test_compare_on_a_cluster_is_the_local_document(
    cluster: Engine, local_compare: str
) -> None:
    events: list[tuple[str, object]] = []
    doc = compare(SCENARIOS, SAMPLE, engine=cluster,
                  progress=lambda e, d: events.append((e, d)))
    assert json.dumps(doc, ensure_ascii=False, indent=2) == local_compare
    names = sorted(load_scenario(p).name for p in SCENARIOS)
    assert sorted(d for _, d in events) == names  # one event per scenario done


def test_auto_plan_with_growth_on_a_cluster_is_the_local_plan(
    cluster: Engine, local_auto: str
) -> None:
    doc = vsizer.plan(SAMPLE, rules=_auto_growth_rules(), engine=cluster)
    assert doc.to_json() == local_auto
    d = json.loads(local_auto)
    assert d["choice"]["winner"] in (R740, EPYC)
    assert [y["year"] for y in d["growth"]["years"]] == [0, 1, 2, 3]


def test_an_error_in_a_task_arrives_as_itself(cluster: Engine) -> None:
    # get_engine('spark') raises ConfigError on the worker: the same error here.
    with pytest.raises(ConfigError, match=r"^--engine must be one of .* got 'spark'\.$"):
        cluster.map(get_engine, ["local", "spark"])
    assert cluster.map(abs, [-1]) == [1]  # the cluster still works


def test_a_dead_worker_is_one_line(cluster: Engine) -> None:
    with pytest.raises(VsizerError) as exc:
        cluster.map(os._exit, [3])  # the worker process exits under the task
    text = str(exc.value)
    assert text.startswith(
        f"--engine {cluster.name}: a worker or node was lost while running ")
    assert text.endswith("; check the workers' memory and logs, and run again.")
    assert "\n" not in text


def test_cli_compare_joining_the_cluster_writes_the_local_json(
    cluster: Engine, local_compare: str, tmp_path: Path
) -> None:
    # Dask: join the module's cluster by its scheduler's address; Ray: 'auto'
    # finds the cluster this process already runs.
    address = (
        cluster._cluster.scheduler_address if cluster.name == "dask" else "auto"  # type: ignore[attr-defined]
    )
    runner = CliRunner()
    base = ["compare", *map(str, SCENARIOS), "--inventory", str(SAMPLE), "-q"]
    joined = tmp_path / "joined.json"
    res = runner.invoke(app, [*base, "--engine", cluster.name, "--engine-address",
                              address, "-o", str(joined)])
    assert res.exit_code == 0, res.output
    assert joined.read_text(encoding="utf-8") == local_compare + "\n"  # as -o writes
    assert cluster.map(abs, [-2]) == [2]  # joining and leaving kept the cluster up
