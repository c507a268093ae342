"""The long fuzz run (``make fuzz``): mutated real inputs of every format.

Each run mutates one seed of :mod:`tests.fuzz.corpus` with one family of
:mod:`tests.fuzz.mutate` (sometimes two or three stacked), runs the vsizer
command in a child process forked from this one (vsizer already imported, so
a run costs no interpreter start), kills it after ``--timeout`` CPU seconds
(user + system, read from ``/proc``), or after ``WALL_FACTOR`` times that in
wall time for a run that waits without computing (a hang): on a shared
machine a run slowed by other jobs is not a hang, and judges it with :mod:`tests.fuzz.oracle`. Formats take turns, so
every format gets the same share of runs. A sample of successful plans is run
a second time and compared byte for byte (determinism).

Prints the figures (runs, successes, clean errors, tracebacks, hangs, silently
wrong; per format and per family; distinct causes) and writes them to
``--json``. Every input that gave a traceback, hang or silently wrong plan is
kept under ``--keep`` with its command line. Run ``k`` is reproduced exactly
by ``python -m tests.fuzz.run --seed S --replay k`` (same ``--seed``).

Usage::

    python -m tests.fuzz.run --runs 5000 --jobs 2 --json fuzz-figures.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from tests.fuzz.attacks import (
    ATTACKS,
    Attack,
    budget_of,
    digests,
    judge_attack,
    over_budget,
    write_attack,
)
from tests.fuzz.corpus import REPO, Seed, formats, seeds
from tests.fuzz.harness import (
    WALL_FACTOR,
    _child,
    cpu_reported,
    cpu_seconds,
    judge,
    judge_log,
    prepare,
    rss_added_mib,
)
from tests.fuzz.mutate import families_for, mutate
from tests.fuzz.oracle import STATUSES, Outcome

BAD = ("traceback", "hang", "silently_wrong", "over_budget")
#: Worst first: the outcome of a run of several processes is the worst of theirs.
_WORST = ("traceback", "hang", "silently_wrong", "clean_error", "success")
#: Formats of a campaign (``--formats``; default: every seed format and attack).
FORMATS: list[str] = []


@dataclass
class Job:
    k: int
    seed: Seed | None
    family: str
    stack: int
    data: bytes
    attack: Attack | None = None

    @property
    def fmt(self) -> str:
        return self.seed.fmt if self.seed is not None else self.family


def all_formats() -> list[str]:
    """The seed formats, then one per attack family (:mod:`tests.fuzz.attacks`)."""
    return FORMATS or [*formats(), *ATTACKS]


def make_job(master: int, k: int) -> Job:
    """Run ``k`` of a campaign: the same (master, k) always gives the same input."""
    rnd = random.Random(f"{master}:{k}")
    fmts = all_formats()
    fmt = fmts[k % len(fmts)]
    if fmt in ATTACKS:
        attack = ATTACKS[fmt](rnd)
        return Job(k, None, fmt, 1, b"", attack)
    seed = rnd.choice([s for s in seeds() if s.fmt == fmt])
    family = rnd.choice(seed.families or families_for(seed.kind))
    stack = 1 if rnd.random() < 0.8 else rnd.randint(2, 3)
    try:
        data = mutate(seed.data, seed.kind, family, rnd, stack)
    except Exception as exc:  # a mutation bug: run the seed unmutated, say so
        print(f"run {k}: mutation {family} failed ({exc!r}); seed unmutated",
              file=sys.stderr)
        data = seed.data
    return Job(k, seed, family, stack, data)


def cause(outcome: Outcome) -> str:
    """A traceback's or violation's cause, digits and names blurred for grouping."""
    text = outcome.violations[0] if outcome.violations else outcome.detail
    text = re.sub(r"'[^']*'", "'…'", text)
    text = re.sub(r"\d+(\.\d+)?", "N", text)
    return text[:120]


class Campaign:
    """Runs jobs ``jobs`` at a time in forked children and collects the figures."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.work = Path(tempfile.mkdtemp(prefix="vsizer-fuzz-"))
        self.keep = Path(args.keep)
        self.records: list[dict[str, Any]] = []
        self.det = Counter[str]()
        self.det_fail: list[dict[str, Any]] = []
        self.successes = 0

    def _start(self, job: Job, slot: int, rerun: bool = False) -> dict[str, Any]:
        import multiprocessing

        wd = self.work / f"run{job.k}"
        if rerun:
            argvs = job.argvs  # type: ignore[attr-defined]
        elif job.attack is not None:
            where = wd / "run"
            shutil.rmtree(where, ignore_errors=True)
            where.mkdir(parents=True)
            argvs, job.before = write_attack(job.attack, where)  # type: ignore[attr-defined]
            job.argvs, job.where = argvs, where  # type: ignore[attr-defined]
        else:
            assert job.seed is not None
            argv, inp, out = prepare(job.seed, job.data, wd / "run")
            job.argv, job.inp, job.out = argv, inp, out  # type: ignore[attr-defined]
            job.argvs, job.before = [argv], digests(inp.parent, (inp.name,))  # type: ignore[attr-defined]
            argvs = job.argvs  # type: ignore[attr-defined]
        logs = [wd / f"stderr{i}.log" for i in range(len(argvs))]
        for log in logs:
            for p in (log, Path(str(log) + ".exc"), Path(str(log) + ".rss")):
                p.unlink(missing_ok=True)
        procs = [multiprocessing.get_context("fork").Process(
            target=_child, args=(argv, str(log))) for argv, log in zip(argvs, logs, strict=True)]
        for proc in procs:  # two at once for concurrency
            proc.start()
        return {"job": job, "procs": procs, "proc": procs[0], "t0": time.monotonic(),
                "logs": logs, "log": logs[0], "slot": slot, "rerun": rerun}

    def _finish(self, run: dict[str, Any], hang: bool) -> dict[str, Any] | None:
        """Judge a finished child; maybe return a determinism rerun to start."""
        job, procs = run["job"], run["procs"]
        secs = time.monotonic() - run["t0"]
        for proc in procs:
            if hang:
                proc.kill()
            proc.join()
        reported = [c for c in map(cpu_reported, run["logs"]) if c is not None]
        run["cpu"] = max([run.get("cpu", 0.0), *reported])
        if run["rerun"]:
            first = job.out.with_suffix(".first")
            same = (job.out.exists() and first.exists()
                    and job.out.read_bytes() == first.read_bytes())
            self.det["runs"] += 1
            self.det["identical" if same else "different"] += 1
            if not same:
                self.det_fail.append(self._keep(job, "nondeterministic"))
            shutil.rmtree(self.work / f"run{job.k}", ignore_errors=True)
            return None
        outcome, rss = self._outcome(run, hang, secs)
        rec = {"k": job.k, "format": job.fmt,
               "seed": job.seed.name if job.seed else job.attack.variant,
               "family": job.family, "stack": job.stack, "seconds": round(secs, 3),
               "cpu_s": round(run.get("cpu", 0.0), 2),
               "rss_mib": rss, **outcome.as_dict()}
        if outcome.status in BAD:
            rec["kept"] = self._keep(job, outcome.status)["dir"]
            (Path(rec["kept"]) / "outcome.json").write_text(
                json.dumps(rec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        self.records.append(rec)
        if outcome.status == "success" and job.seed is not None and job.seed.plans:
            self.successes += 1
            if self.successes % self.args.determinism_every == 0 and job.out.exists():
                shutil.copyfile(job.out, job.out.with_suffix(".first"))
                return {"job": job}
        shutil.rmtree(self.work / f"run{job.k}", ignore_errors=True)
        return None

    def _outcome(self, run: dict[str, Any], hang: bool,
                 secs: float) -> tuple[Outcome, float | None]:
        """The oracle over every process of a run: the worst outcome, then the
        input bytes, the attack's own checks and the family's budget."""
        job = run["job"]
        rss = [r for r in map(rss_added_mib, run["logs"]) if r is not None]
        peak = round(max(rss), 1) if rss else None
        if hang:
            return Outcome("hang", None, f"over {self.args.timeout:g} CPU s "
                           f"({run.get('cpu', 0.0):.0f} CPU s in {secs:.0f} s)"), peak
        outs = [judge_log(p.exitcode, log) for p, log in zip(run["procs"], run["logs"], strict=True)]
        outcome = min(outs, key=lambda o: _WORST.index(o.status))
        if job.attack is not None:
            outcome = judge_attack(job.attack, job.where, outcome, job.before)
        else:
            outcome = judge(job.seed, outcome, job.inp, job.out)
            if digests(job.inp.parent, (job.inp.name,)) != job.before and (
                    outcome.status in ("success", "clean_error")):
                outcome = Outcome("silently_wrong", outcome.exit_code,
                                  "input_changed: the input was rewritten by the run",
                                  ["input_changed: the input was rewritten by the run"])
        late = over_budget(job.family, run.get("cpu", secs), peak)
        if outcome.status in ("success", "clean_error") and late:
            outcome = Outcome("over_budget", outcome.exit_code, late, [late])
        return outcome, peak

    def _keep(self, job: Job, status: str) -> dict[str, Any]:
        d = self.keep / f"{job.k:05d}-{status}-{job.fmt}-{job.family}"
        d.mkdir(parents=True, exist_ok=True)
        if job.attack is not None:  # the files as written, one command per process
            shutil.copytree(job.where, d / "run", symlinks=True, dirs_exist_ok=True)
            cmds = [shlex.join(["vsizer", *[a.replace(str(job.where), "run") for a in argv]])
                    for argv in job.argvs]
            (d / "command.txt").write_text(" &\n".join(cmds) + "\n", encoding="utf-8")
            return {"dir": str(d), "k": job.k}
        assert job.seed is not None
        (d / Path(job.seed.filename).name).write_bytes(job.data)
        cmd = ["vsizer", *[a.replace(str(job.inp), Path(job.seed.filename).name)
                           .replace(str(job.inp.parent), ".") for a in job.argv]]
        (d / "command.txt").write_text(shlex.join(cmd) + "\n", encoding="utf-8")
        return {"dir": str(d), "k": job.k}

    def run(self) -> None:
        a = self.args
        pending = list(range(a.start, a.start + a.runs))
        reruns: list[dict[str, Any]] = []
        running: dict[int, dict[str, Any]] = {}
        t0 = time.monotonic()
        shown = 0
        while pending or reruns or running:
            for slot in range(a.jobs):
                if slot in running:
                    continue
                if reruns:
                    running[slot] = self._start(reruns.pop()["job"], slot, rerun=True)
                elif pending:
                    running[slot] = self._start(make_job(a.seed, pending.pop(0)), slot)
            wait([p.sentinel for r in running.values() for p in r["procs"]], timeout=0.5)
            now = time.monotonic()
            for slot, r in list(running.items()):
                done = not any(p.is_alive() for p in r["procs"])
                r["cpu"] = max([r.get("cpu", 0.0)] + [cpu_seconds(p.pid) for p in r["procs"]
                                                      if p.pid is not None])
                if done or r["cpu"] > a.timeout or now - r["t0"] > a.timeout * WALL_FACTOR:
                    del running[slot]
                    more = self._finish(r, hang=not done)
                    if more:
                        reruns.append(more)
            n = len(self.records)
            if n >= shown + 250 and not a.quiet:
                shown = n - n % 250
                c = Counter(r["status"] for r in self.records)
                print(f"[{n}/{a.runs} {now - t0:.0f}s] " + ", ".join(
                    f"{s} {c[s]}" for s in STATUSES), file=sys.stderr, flush=True)
        self.elapsed = time.monotonic() - t0
        shutil.rmtree(self.work, ignore_errors=True)

    def figures(self) -> dict[str, Any]:
        recs = self.records
        total = Counter(r["status"] for r in recs)
        per_fmt: dict[str, Counter[str]] = defaultdict(Counter)
        per_fam: dict[str, Counter[str]] = defaultdict(Counter)
        causes: dict[str, dict[str, Any]] = {}
        for r in recs:
            per_fmt[r["format"]][r["status"]] += 1
            per_fam[r["family"]][r["status"]] += 1
            if r["status"] in BAD:
                o = Outcome(r["status"], r["exit_code"], r["detail"], r["violations"])
                key = f"{r['status']}: {cause(o)}"
                c = causes.setdefault(key, {"count": 0, "formats": [], "example": r})
                c["count"] += 1
                if r["format"] not in c["formats"]:
                    c["formats"].append(r["format"])
        try:
            commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"],
                                    capture_output=True, text=True, check=True
                                    ).stdout.strip()
            dirty = bool(subprocess.run(["git", "-C", str(REPO), "status", "--porcelain",
                                         "vsizer"], capture_output=True, text=True
                                        ).stdout.strip())
        except (OSError, subprocess.CalledProcessError):
            commit, dirty = "unknown", False

        def row(c: Counter[str]) -> dict[str, int]:
            return {"runs": sum(c.values()), **{s: c[s] for s in STATUSES}}

        return {
            "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "commit": commit, "vsizer_tree_dirty": dirty,
            "command": "python -m tests.fuzz.run " + " ".join(sys.argv[1:]),
            "master_seed": self.args.seed, "timeout_s": self.args.timeout,
            "elapsed_s": round(self.elapsed, 1),
            "total": row(total),
            "raw_control_in_stderr": sum(1 for r in recs if r["raw_control"]),
            "determinism": {"runs": self.det["runs"],
                            "identical": self.det["identical"],
                            "different": self.det["different"],
                            "examples": self.det_fail[:10]},
            "per_format": {k: row(v) for k, v in sorted(per_fmt.items())},
            "per_family": {k: row(v) for k, v in sorted(per_fam.items())},
            "causes": dict(sorted(causes.items(), key=lambda kv: -kv[1]["count"])),
            "seconds_max": max((r["seconds"] for r in recs), default=0.0),
            "budgets": _budgets(recs),
            "concurrency": _concurrency(recs),
        }


def _budgets(recs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per family: its budget, the longest run and the largest RSS added."""
    out: dict[str, dict[str, Any]] = {}
    for r in recs:
        b = budget_of(r["family"])
        row = out.setdefault(r["family"], {"budget_s": b.seconds, "budget_mib": b.rss_mib,
                                           "cpu_s_max": 0.0, "seconds_max": 0.0,
                                           "rss_mib_max": 0.0})
        row["cpu_s_max"] = max(row["cpu_s_max"], r.get("cpu_s", 0.0))
        row["seconds_max"] = max(row["seconds_max"], r["seconds"])
        row["rss_mib_max"] = max(row["rss_mib_max"], r.get("rss_mib") or 0.0)
    return dict(sorted(out.items()))


def _concurrency(recs: list[dict[str, Any]]) -> dict[str, int]:
    """Runs of two plans on one output set, and how many left a mixed set."""
    runs = [r for r in recs if r["family"] == "concurrency"]
    mixed = sum(1 for r in runs if any(v.startswith("mixed_set") for v in r["violations"]))
    return {"runs": len(runs), "mixed_sets": mixed,
            "both_succeeded": sum(1 for r in runs if r["status"] == "success")}


def print_figures(f: dict[str, Any]) -> None:
    cols = ("runs",) + STATUSES
    head = f"{'':18}" + "".join(f"{c:>15}" for c in cols)
    print(f"vsizer fuzz: commit {f['commit'][:12]}, {f['date']}, "
          f"{f['elapsed_s']} s, timeout {f['timeout_s']} s")
    print(head)
    for name, r in [("TOTAL", f["total"])] + list(f["per_format"].items()):
        print(f"{name:18}" + "".join(f"{r[c]:>15}" for c in cols))
    print("\nper mutation family")
    print(head)
    for name, r in f["per_family"].items():
        print(f"{name:18}" + "".join(f"{r[c]:>15}" for c in cols))
    d = f["determinism"]
    print(f"\ndeterminism: {d['identical']} of {d['runs']} reruns byte-identical")
    print(f"stderr with raw control characters: {f['raw_control_in_stderr']}")
    c = f["concurrency"]
    print(f"concurrency: {c['runs']} runs of two plans on one output set, "
          f"{c['mixed_sets']} mixed sets")
    for name, b in f["budgets"].items():
        print(f"budget {name:18} longest {b.get('cpu_s_max', 0.0):6.1f} CPU s of "
              f"{b['budget_s']:g} ({b['seconds_max']:.1f} s wall); "
              f"largest {b['rss_mib_max']:6.0f} MiB of {b['budget_mib']:g}")
    if f["causes"]:
        print("\ncauses (count, formats, example kept input)")
        for key, c in f["causes"].items():
            print(f"  {c['count']:5d}  {key}  [{', '.join(c['formats'])}]  "
                  f"{c['example'].get('kept', '')}")


def markdown(f: dict[str, Any]) -> str:
    """The figures as Markdown tables (for docs/reliability.md)."""
    cols = ("runs",) + STATUSES
    head = "| | " + " | ".join(c.replace("_", " ") for c in cols) + " |\n"
    head += "|---|" + "---:|" * len(cols) + "\n"

    def table(rows: list[tuple[str, dict[str, int]]]) -> str:
        return head + "".join(
            f"| {name} | " + " | ".join(str(r[c]) for c in cols) + " |\n"
            for name, r in rows)

    d = f["determinism"]
    text = (f"Commit `{f['commit'][:12]}`, {f['date']}, `{f['command']}`, "
            f"{f['elapsed_s']:.0f} s, hang limit {f['timeout_s']:g} CPU s "
            f"({f['timeout_s'] * WALL_FACTOR:g} s wall). "
            f"Determinism: {d['identical']} of {d['runs']} reruns byte-identical. "
            f"stderr with raw control characters: {f['raw_control_in_stderr']}.\n\n")
    text += table([("**total**", f["total"])] + list(f["per_format"].items()))
    text += "\nPer mutation family:\n\n" + table(list(f["per_family"].items()))
    if f.get("budgets"):
        text += ("\nBudgets per family (CPU seconds of the run, user + system; RSS a "
                 "run adds over the forked parent) and the largest seen, with the "
                 "longest wall time:\n\n| family | budget CPU s | most CPU s | longest "
                 "wall s | budget MiB | largest MiB |\n|---|---:|---:|---:|---:|---:|\n")
        for name, b in f["budgets"].items():
            text += (f"| {name} | {b['budget_s']:g} | {b.get('cpu_s_max', 0.0):.1f} | "
                     f"{b['seconds_max']:.1f} | {b['budget_mib']:g} | "
                     f"{b['rss_mib_max']:.0f} |\n")
    c = f.get("concurrency")
    if c:
        text += (f"\nConcurrency: {c['runs']} runs of two plans on one output set, "
                 f"{c['both_succeeded']} with both plans succeeding, "
                 f"{c['mixed_sets']} mixed sets.\n")
    if f["causes"]:
        text += "\nCauses:\n\n| count | cause | formats |\n|---:|---|---|\n"
        for key, c in f["causes"].items():
            text += f"| {c['count']} | {key.replace('|', '/')} | {', '.join(c['formats'])} |\n"
    return text


def variant_table(recs: list[dict[str, Any]]) -> str:
    """Markdown: per attack family and variant, runs by outcome and the most CPU
    seconds and RSS of a run (from the per-run records)."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for r in recs:
        if r["family"] not in ATTACKS:
            continue
        row = rows.setdefault((r["family"], r["seed"]), {
            **{s: 0 for s in STATUSES}, "runs": 0, "cpu": 0.0, "rss": 0.0})
        row["runs"] += 1
        row[r["status"]] += 1
        row["cpu"] = max(row["cpu"], r.get("cpu_s", 0.0))
        row["rss"] = max(row["rss"], r.get("rss_mib") or 0.0)
    text = ("\nPer attack variant:\n\n| family | variant | runs | success | clean error "
            "| bad | most CPU s | largest MiB |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
    for (fam, var), r in sorted(rows.items()):
        bad = sum(r[s] for s in BAD)
        text += (f"| {fam} | {var} | {r['runs']} | {r['success']} | {r['clean_error']} | "
                 f"{bad} | {r['cpu']:.1f} | {r['rss']:.0f} |\n")
    return text


def warm_up(where: Path) -> None:
    """Run every seed once unmutated in this process before forking.

    Imports every module the runs need (pandas, pyarrow, openpyxl...) once, so
    a forked run costs only its own work; and a seed that does not succeed
    unmutated is reported (its mutations would test little).
    """
    from tests.fuzz.harness import run_inprocess

    for i, seed in enumerate(seeds()):
        argv, inp, out = prepare(seed, seed.data, where / str(i))
        outcome = judge(seed, run_inprocess(argv), inp, out)
        if outcome.status != "success":
            print(f"warning: seed {seed.name} ({seed.fmt}) unmutated: "
                  f"{outcome.status} {outcome.detail}", file=sys.stderr)
    shutil.rmtree(where, ignore_errors=True)


def replay(master: int, k: int, where: Path) -> None:
    """Write run ``k``'s input under ``where`` and print its command line."""
    job = make_job(master, k)
    if job.attack is not None:
        where.mkdir(parents=True, exist_ok=True)
        argvs, _before = write_attack(job.attack, where)
        print(f"# run {k}: {job.family} ({job.attack.variant})")
        print(" &\n".join(shlex.join(["vsizer", *argv]) for argv in argvs))
        return
    assert job.seed is not None
    argv, inp, _out = prepare(job.seed, job.data, where)
    print(f"# run {k}: {job.seed.name} ({job.seed.fmt}), {job.family} x{job.stack}")
    print(shlex.join(["vsizer", *argv]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5000)
    p.add_argument("--start", type=int, default=0, help="first run number")
    p.add_argument("--jobs", type=int, default=2, help="runs at a time")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="hang limit [CPU s]; wall time limit: 5 times it")
    p.add_argument("--seed", type=int, default=0, help="master random seed")
    p.add_argument("--json", default="fuzz-figures.json", help="figures file")
    p.add_argument("--keep", default="fuzz-findings", help="kept bad inputs")
    p.add_argument("--determinism-every", type=int, default=25,
                   help="rerun every N-th successful plan and compare bytes")
    p.add_argument("--replay", type=int, default=None, metavar="K",
                   help="write run K's input to ./fuzz-replay and print its command")
    p.add_argument("--markdown", metavar="JSON", default=None,
                   help="print the figures of a finished campaign as Markdown")
    p.add_argument("--formats", default=None,
                   help="comma-separated formats or attack families to run (default: all)")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    if args.formats:
        FORMATS[:] = [f.strip() for f in args.formats.split(",") if f.strip()]
        unknown = set(FORMATS) - {*formats(), *ATTACKS}
        if unknown:
            p.error(f"unknown formats: {sorted(unknown)}")
    if args.markdown:
        print(markdown(json.loads(Path(args.markdown).read_text(encoding="utf-8"))))
        runs = Path(args.markdown).with_suffix(".runs.jsonl")
        if runs.exists():
            lines = runs.read_text(encoding="utf-8").splitlines()
            print(variant_table([json.loads(line) for line in lines if line]))
        return 0
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if args.replay is not None:
        replay(args.seed, args.replay, Path("fuzz-replay"))
        return 0
    warm_up(Path(tempfile.mkdtemp(prefix="vsizer-fuzz-warm-")))
    import gc

    gc.freeze()  # keep the warmed-up heap shared with the forked children

    camp = Campaign(args)
    camp.run()
    figs = camp.figures()
    Path(args.json).write_text(json.dumps(figs, indent=1, ensure_ascii=False) + "\n",
                               encoding="utf-8")
    with open(Path(args.json).with_suffix(".runs.jsonl"), "w", encoding="utf-8") as f:
        for r in camp.records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print_figures(figs)
    bad = sum(figs["total"][s] for s in BAD) + figs["determinism"]["different"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
