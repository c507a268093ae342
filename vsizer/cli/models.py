"""CLI commands: performance models, fit and predict.

``vsizer model cpu|disk|network|queue|platform`` evaluates one model for what-if
inputs; ``vsizer fit`` calibrates a model on measured samples and saves a
profile; ``vsizer predict`` adds per-VM and per-host predictions to a plan.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from vsizer._atomic import check_output_path
from vsizer.cli.common import MaxCellCharsOpt, _fail, err, input_limits, out
from vsizer.errors import ConfigError, InputError, VsizerError
from vsizer.limits import using

model_app = typer.Typer(
    help="What-if evaluation of the overhead models (CPU, disk, network, queueing).",
    no_args_is_help=True,
)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
ProfileOpt = Annotated[
    Path | None,
    typer.Option("--profile", help="Profile (.json/.toml) from 'vsizer fit' or by hand."),
]


def _row(table: Table, *cells: str) -> None:
    """Add a row of plain text (user strings are never read as rich markup)."""
    table.add_row(*(escape(str(c)) for c in cells))


def _emit(result: dict[str, Any], as_json: bool, rows: list[tuple[str, Any]]) -> None:
    if as_json:
        out.print_json(json.dumps(result, ensure_ascii=False, sort_keys=False))
    else:
        table = Table(show_header=False, box=None)
        for label, value in rows:
            _row(table, label, "-" if value is None else str(value))
        out.print(table)
        out.print(f"source: {result.get('source', '')}", markup=False, highlight=False)
    for line in result.get("warnings", []):
        err.print(f"warning: {line}", markup=False, highlight=False, soft_wrap=True)


def _load_profile(path: Path | None) -> Any:
    from vsizer.models.profile import Profile, load_profile

    return load_profile(path) if path else Profile()


@model_app.command("cpu")
def model_cpu(
    vms: Annotated[int, typer.Option("--vms", help="Running VMs (or vCPUs).")],
    physical_cpus: Annotated[
        int, typer.Option("--physical-cpus", help="Physical CPU cores of the host.")
    ],
    total_util_pct: Annotated[
        float,
        typer.Option("--total-util-pct", help="Total VM CPU utilization [% of one CPU]."),
    ],
    basis: Annotated[
        str,
        typer.Option(help="'demand' (what the workloads need) or 'guest' (summed guest-reported, as in the published VMware ESX 2.5.2 measurement)."),
    ] = "demand",
    profile: ProfileOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Per-VM CPU performance relative to one VM alone (published VMware ESX 2.5.2 measurement).

    Example:

        vsizer model cpu --vms 12 --physical-cpus 4 --total-util-pct 900 --json
    """
    from vsizer.models.whatif import cpu_whatif

    try:
        coeff = _load_profile(profile).cpu_coefficients()
        res = cpu_whatif(vms, physical_cpus, total_util_pct, basis, coeff)
    except VsizerError as exc:
        raise _fail(exc) from None
    _emit(res, as_json, [
        ("relative to a single VM alone", res["relative_to_single_vm"]),
        ("relative performance (Pentium III = 1)", res["relative_performance"]),
        ("interval (out-of-sample RMS error)",
         "[{:g}, {:g}]".format(*res["relative_performance_interval"])),
        ("total demand [% of one CPU]", res["demand_pct"]),
        ("guest-reported total [%]", res["guest_reported_util_pct"]),
        ("overcommit (demand / CPUs)", res["overcommit"]),
    ])


@model_app.command("disk")
def model_disk(
    access_spec: Annotated[
        str,
        typer.Option("--access-spec", help="sequential_read, sequential_write, database or file_server."),
    ] = "database",
    queue_depth: Annotated[float, typer.Option("--queue-depth", help="Outstanding I/Os.")] = 1.0,
    backing: Annotated[str, typer.Option(help="pass-through or file.")] = "file",
    vms_on_volume: Annotated[
        int, typer.Option("--vms-on-volume", help="VMs doing I/O on the volume(s).")
    ] = 1,
    volumes: Annotated[int, typer.Option(help="Volumes the VMs are spread over.")] = 1,
    disk_format: Annotated[
        str, typer.Option("--format", help="volume, preallocated or sparse.")
    ] = "preallocated",
    write_cache: Annotated[
        bool, typer.Option("--write-cache/--no-write-cache", help="Controller write cache.")
    ] = True,
    write_fraction: Annotated[
        float, typer.Option("--write-fraction", help="Share of writes [fraction].")
    ] = 0.33,
    nfs: Annotated[
        str | None, typer.Option(help="VM disk on NFS: read-write or read-only.")
    ] = None,
    rsize_kb: Annotated[
        float | None, typer.Option("--rsize-kb", help="NFS rsize/wsize [KiB].")
    ] = None,
    nfs_cache_short: Annotated[
        bool, typer.Option("--nfs-cache-short", help="NFS server cache < working set.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Disk throughput VM / native, volume contention, format and NFS (published ESX, Hyper-V R2 and Xen disk measurements).

    Example:

        vsizer model disk --access-spec sequential_read --queue-depth 2 --backing pass-through --vms-on-volume 4
    """
    from vsizer.models.whatif import disk_whatif

    try:
        res = disk_whatif(access_spec, queue_depth, backing, vms_on_volume, volumes,
                          disk_format, write_cache, write_fraction, nfs, rsize_kb,
                          nfs_cache_short)
    except VsizerError as exc:
        raise _fail(exc) from None
    _emit(res, as_json, [
        ("throughput VM / native", res["throughput_ratio"]),
        ("share of a volume per VM", res["volume_share"]),
        ("guest-reported utilization x", res["guest_util_inflation"]),
        ("guest-reported utilization trustworthy", res["guest_util_trustworthy"]),
        ("format risk", f"{res['format_risk']}: {res['format_reason']}"),
        ("NFS / local", res["nfs_ratio"]),
    ])


@model_app.command("network")
def model_network(
    nic_gbps: Annotated[float, typer.Option("--nic-gbps", help="NIC speed [Gbit/s].")] = 1.0,
    direction: Annotated[str, typer.Option(help="send or receive.")] = "send",
    vmq: Annotated[bool, typer.Option("--vmq/--no-vmq", help="VM queues on the NIC.")] = False,
    senders: Annotated[int, typer.Option(help="VM-to-VM: sending VMs.")] = 1,
    receivers: Annotated[int, typer.Option(help="VM-to-VM: receiving VMs.")] = 1,
    xen_vms: Annotated[
        int | None, typer.Option("--xen-vms", help="Xen: VMs running at once.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Network throughput: wire limit, VM-to-VM, VMQ, Xen (published Xen and Hyper-V R2 network measurements).

    Example:

        vsizer model network --nic-gbps 10 --vmq --senders 4 --xen-vms 1
    """
    from vsizer.models.whatif import network_whatif

    try:
        res = network_whatif(nic_gbps, direction, vmq, senders, receivers, xen_vms)
    except VsizerError as exc:
        raise _fail(exc) from None
    _emit(res, as_json, [
        ("wire limit [Mbit/s]", res["wire_limit_mbps"]),
        ("VM-to-VM total [Mbit/s]", res["vm_to_vm_mbps"]),
        ("Xen VMs / physical", res["xen_relative_throughput"]),
    ])


@model_app.command("queue")
def model_queue(
    service_ms: Annotated[float, typer.Option("--service-ms", help="Service time per request [ms].")],
    arrival_rate: Annotated[
        float | None, typer.Option("--arrival-rate", help="Open model: requests per second.")
    ] = None,
    servers: Annotated[int, typer.Option(help="Servers (vCPUs) c.")] = 1,
    clients: Annotated[
        int | None, typer.Option(help="Closed model: client threads N.")
    ] = None,
    think_ms: Annotated[float, typer.Option("--think-ms", help="Closed model: think time [ms].")] = 0.0,
    as_json: JsonOpt = False,
) -> None:
    """Response time: open M/M/1, M/M/c (Erlang C) or closed loop (MVA with think time).

    Example:

        vsizer model queue --service-ms 10 --arrival-rate 150 --servers 2
        vsizer model queue --service-ms 10 --clients 100 --think-ms 100
    """
    from vsizer.models.whatif import queue_whatif

    try:
        if (arrival_rate is None) == (clients is None):
            raise ConfigError("model queue: give either --arrival-rate (open) or --clients (closed).")
        res = queue_whatif(service_ms, arrival_rate, servers, clients, think_ms)
    except VsizerError as exc:
        raise _fail(exc) from None
    _emit(res, as_json, [(k.replace("_", " "), v) for k, v in res.items()
                         if k not in ("inputs", "warnings", "source", "model")])


@model_app.command("platform")
def model_platform(as_json: JsonOpt = False) -> None:
    """List the named platform scenarios (published platform comparisons) with their factors.

    Example:

        vsizer model platform --json
    """
    from dataclasses import asdict

    from vsizer.models.platform import SCENARIOS

    if as_json:
        out.print_json(json.dumps([asdict(s) for s in SCENARIOS.values()], ensure_ascii=False))
        return
    table = Table("scenario", "factor", "power", "description")
    for s in SCENARIOS.values():
        power = (f"+{s.power_delta_w:g} W" if s.power_delta_w is not None
                 else f"x{s.power_ratio:g}" if s.power_ratio is not None else "")
        _row(table, s.name, (">= " if s.lower_bound else "") + f"{s.factor:g}", power, s.description)
    out.print(table)


def fit(
    measurements: Annotated[Path, typer.Argument(help="Measurement CSV (columns in docs/models.md).")],
    model: Annotated[str, typer.Option("--model", help="cpu, disk or network.")],
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Profile to write (.json or .toml).")
    ] = None,
    profile: Annotated[
        Path | None, typer.Option("--profile", help="Existing profile to update.")
    ] = None,
    confidence: Annotated[float, typer.Option(help="Confidence level of the intervals.")] = 0.95,
    max_util_pct: Annotated[
        float | None,
        typer.Option("--max-util-pct", help="cpu: keep samples with total_util_pct at most this [%], "
                     "e.g. 400 = the four physical CPUs of the published ESX 2.5.2 table."),
    ] = None,
    normalize: Annotated[
        str | None,
        typer.Option("--normalize", help="cpu: 'mu350' = per-VM performance mu / 350 with "
                     "mu = throughput / (total_util_pct / 100) (or the 'mu' column)."),
    ] = None,
    regress: Annotated[
        str, typer.Option("--regress", help="cpu: fit the line to the 'samples' or to the "
                          "'means' per VM count (as the published regression).")
    ] = "samples",
    as_json: JsonOpt = False,
    max_cell_chars: MaxCellCharsOpt = None,
) -> None:
    """Fit a model's parameters to measured samples; print estimates, predicted vs measured,
    and the in-sample and leave-one-group-out (one VM count or tile count left out) error.

    Example:

        vsizer fit bench-results.csv --model cpu -o site-profile.json

        vsizer fit vsizer/data/models/esx252_table61.csv --model cpu --max-util-pct 400 --normalize mu350 --regress means
    """
    from vsizer.models.fit import fit_measurements
    from vsizer.models.profile import save_profile

    try:
        if output is not None:
            check_output_path(output)
        with using(input_limits(max_cell_chars=max_cell_chars)):
            result = fit_measurements(measurements, model, confidence, max_util_pct,
                                      normalize, regress)
        base = _load_profile(profile)
        doc = result.to_dict()
        report = {"file": measurements.name, "confidence": confidence,
                  "samples": len(doc["samples"]), "parameters": doc["parameters"],
                  "notes": doc["notes"], **_validation_report(doc)}
        new = base.with_fit(model, result.profile_section, report)
        if base.source == "defaults":
            new = type(new)(**{**new.__dict__, "source": f"vsizer fit {measurements.name}"})
        if output:
            save_profile(new, output)
    except VsizerError as exc:
        raise _fail(exc) from None
    if as_json:
        out.print_json(json.dumps(doc, ensure_ascii=False))
    else:
        _print_fit(doc, model, measurements.name, confidence)
    if output:
        err.print(f"wrote {output}", markup=False, highlight=False)


def _print_fit(doc: dict[str, Any], model: str, name: str, confidence: float) -> None:
    """The fit as text: estimates, curve, predicted vs measured, errors, notes."""
    est = Table("parameter", "value", f"{confidence:.0%} CI", "std. error", "n",
                title=f"{model} fit: {name}")
    for pname, e in doc["parameters"].items():
        _row(est, pname, f"{e['value']:.4g}", f"[{e['ci_low']:.4g}, {e['ci_high']:.4g}]",
                    f"{e['stderr']:.3g}", str(e["n"]))
    out.print(est)
    if doc["curve"]:
        curve = Table("VMs", "CPUs", "basis", "n", "util %", "measured", "min", "max",
                      "fitted", title="measured (mean) vs fitted, by VM count")
        for c in doc["curve"]:
            _row(curve, str(c["vms"]), f"{c['physical_cpus']:g}", c["util_basis"],
                 str(c["samples"]), f"{c['total_util_pct']:.4g}", f"{c['measured_mean']:.3f}",
                 f"{c['measured_min']:.3f}", f"{c['measured_max']:.3f}", f"{c['fitted']:.3f}")
        out.print(curve)
    cmp = Table("row", "experiment", "sample", "measured", "predicted", "residual",
                "used for", title="predicted vs measured")
    for s in doc["samples"]:
        _row(cmp, str(s["row"]), s["experiment"], s["label"], f"{s['measured']:.4g}",
                    f"{s['predicted']:.4g}", f"{s['residual']:+.3g}", s["used_for"])
    out.print(cmp)
    _print_validation(doc.get("validation") or {})
    for note in doc["notes"]:
        out.print(f"note: {note}", markup=False, highlight=False)


def _validation_report(doc: dict[str, Any]) -> dict[str, Any]:
    """The profile's record of the fit's errors (kept short: no per-group rows)."""
    v = doc.get("validation") or {}
    if not v:
        return {}
    logo = {k: x for k, x in v["leave_one_group_out"].items() if k != "groups"}
    return {"in_sample": dict(v["in_sample"]), "leave_one_group_out": logo}


def _print_validation(v: dict[str, Any]) -> None:
    """In-sample vs leave-one-group-out error, and the per-group table."""
    if not v:
        return
    logo = v["leave_one_group_out"]
    errs = Table("error", "n", "RMSE", "mean |error| %", "RMS error %", "bias %",
                 title="in-sample vs out-of-sample (leave one " + " + ".join(logo["group_by"])
                 + " group out, refit, predict it)")
    for label, e in (("in-sample", v["in_sample"]), ("leave-one-group-out", logo)):
        _row(errs, label, str(e["n"]), _fmt(e["rmse"], ".4g"), _fmt(e["mape_pct"], ".3g"),
             _fmt(e["rms_pct"], ".3g"), _fmt(e["bias_pct"], "+.3g"))
    out.print(errs)
    groups = Table(*logo["group_by"], "n", "measured", "in-sample", "left out", "error %",
                   title="each group predicted by a fit without it")
    for g in logo["groups"]:
        _row(groups, *(f"{g[c]:g}" for c in logo["group_by"]), str(g["samples"]),
             f"{g['measured_mean']:.3f}", f"{g['in_sample_mean']:.3f}",
             _fmt(g["left_out_mean"], ".3f"), _fmt(g["error_pct"], "+.3g"))
    out.print(groups)
    for g in logo["groups"]:
        if g.get("note"):
            where = ", ".join(f"{c} {g[c]:g}" for c in logo["group_by"])
            out.print(f"note: {where} not predicted out of sample: {g['note']}",
                      markup=False, highlight=False)


def predict(
    plan: Annotated[Path, typer.Argument(help="Plan JSON written by 'vsizer plan -o plan.json'.")],
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write the plan with 'predictions' (.json).")
    ] = None,
    profile: ProfileOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Predict per-VM performance and per-host risks of a plan.

    Example:

        vsizer predict vsizer-demo/plan.json --profile site-profile.json -o plan-predicted.json
    """
    from vsizer.study.predict import predict_plan

    try:
        if output is not None and output.suffix.lower() != ".json":
            raise InputError(f"-o {output}: expected a .json file name, got '{output.suffix or 'no suffix'}'.")
        if output is not None:
            check_output_path(output)
        doc = _read_plan(plan)
        preds = predict_plan(doc, _load_profile(profile))
    except VsizerError as exc:
        raise _fail(exc) from None
    doc["predictions"] = preds
    if as_json:
        out.print_json(json.dumps(preds, ensure_ascii=False))
    else:
        _print_predictions(preds)
    if output:
        from vsizer._atomic import atomic_write

        try:
            with atomic_write(output, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
        except VsizerError as exc:
            raise _fail(exc) from None
        err.print(f"wrote {output}", markup=False, highlight=False)


def _read_plan(path: Path) -> dict[str, Any]:
    from vsizer._small_file import read_small_text
    from vsizer.limits import current

    try:  # a plan of a million servers is about 2 GB: the unpacked-size limit
        text = read_small_text(path, what="a plan document", error=InputError,
                               limit_mib=current().max_unpacked_mib)
    except OSError as exc:
        raise InputError(f"{path}: cannot read the plan ({exc.strerror}).") from None
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path.name}: expected a plan document in UTF-8 ({exc.reason} at byte "
            f"{exc.start})."
        ) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path.name} line {exc.lineno}, column {exc.colno}: invalid JSON ({exc.msg})."
        ) from None
    if not isinstance(doc, dict):
        raise InputError(f"{path.name}: expected a plan object, got {type(doc).__name__}.")
    return doc


def _cpu_cell(v: dict[str, Any]) -> str:
    """``0.935 [0.879-0.991]``: relative CPU with its interval when given."""
    band = v.get("relative_cpu_interval")
    if not band or v.get("relative_cpu") is None:
        return _fmt(v.get("relative_cpu"))
    return f"{_fmt(v['relative_cpu'])} [{_fmt(band[0])}-{_fmt(band[1])}]"


def _fmt(v: Any, spec: str = ".3g") -> str:
    return "-" if v is None else format(v, spec)


def _table(title: str, *columns: str, no_wrap: int = 1) -> Table:
    """A table whose first ``no_wrap`` columns (names) are never wrapped."""
    t = Table(title=title, box=box.SIMPLE_HEAD)
    for i, c in enumerate(columns):
        t.add_column(c, no_wrap=i < no_wrap)
    return t


def _print_predictions(preds: dict[str, Any]) -> None:
    from vsizer.reporting._term_fit import fit_table

    vms = _table("per-VM predictions (CPU = performance vs one VM alone, with its interval; "
                 "resp x = response time vs the source server)",
                 "VM", "host", "vCPU", "CPU", "util", "resp x", "disk", "disk risk",
                 "net", no_wrap=2)
    for v in preds["vms"]:
        _row(vms, v["name"], v["host"], str(v["vcpus"]), _cpu_cell(v),
             _fmt(v["cpu_util"], ".0%"), _fmt(v["response_time_inflation"]),
             _fmt(v["disk_ratio"]), v["disk_risk"], v["network_risk"])
    out.print(fit_table(vms, out.width, ("net", "disk risk", "disk")))
    hosts = _table("per-host (demand in physical cores, ratio = demand / cores; net in Mbit/s)",
                   "host", "VMs", "vCPU", "cores", "demand", "ratio", "VMs/vol",
                   "net", "net limit", "risks")
    for h in preds["hosts"]:
        _row(hosts, h["id"], str(h["vm_count"]), str(h["vcpus"]),
             str(h["physical_cores"]), _fmt(h["cpu_demand_cores"]),
             _fmt(h["overcommit"]), str(h["vms_on_volume"]),
             _fmt(h["net_mbps"], ".4g"), _fmt(h["net_limit_mbps"], ".4g"),
             str(len(h["risks"])))
    out.print(fit_table(hosts, out.width, ("net limit", "net", "VMs/vol")))
    if preds["warnings"]:
        warn = _table("warnings", "scope", "name", "model", "reason", no_wrap=3)
        for w in preds["warnings"]:
            _row(warn, w["scope"], w["name"], w["model"], w["reason"])
        out.print(fit_table(warn, out.width))
    else:
        out.print("no warnings")
    for a in preds["assumptions"]:
        out.print(f"assumption: {a}", markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    """Add the performance models, fit and predict commands to *app*."""
    from vsizer.cli.models_published import add_published_commands

    add_published_commands(model_app)
    app.add_typer(model_app, name="model")
    app.command("fit")(fit)
    app.command("predict")(predict)
