"""The long fuzz run (``make fuzz``): mutated real inputs of every format.

Each run mutates one seed of :mod:`tests.fuzz.corpus` with one family of
:mod:`tests.fuzz.mutate` (sometimes two or three stacked), runs the vsizer
command in a child process forked from this one (vsizer already imported, so
a run costs no interpreter start), kills it after ``--timeout`` seconds (a
hang), and judges it with :mod:`tests.fuzz.oracle`. Formats take turns, so
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

from tests.fuzz.corpus import REPO, Seed, formats, seeds
from tests.fuzz.harness import _child, judge, judge_log, prepare
from tests.fuzz.mutate import families_for, mutate
from tests.fuzz.oracle import STATUSES, Outcome

BAD = ("traceback", "hang", "silently_wrong")


@dataclass
class Job:
    k: int
    seed: Seed
    family: str
    stack: int
    data: bytes


def make_job(master: int, k: int) -> Job:
    """Run ``k`` of a campaign: the same (master, k) always gives the same input."""
    rnd = random.Random(f"{master}:{k}")
    fmts = formats()
    fmt = fmts[k % len(fmts)]
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
            argv = job.argv  # type: ignore[attr-defined]
        else:
            argv, inp, out = prepare(job.seed, job.data, wd / "run")
            job.argv, job.inp, job.out = argv, inp, out  # type: ignore[attr-defined]
        log = wd / "stderr.log"
        for p in (log, Path(str(log) + ".exc")):
            p.unlink(missing_ok=True)
        proc = multiprocessing.get_context("fork").Process(
            target=_child, args=(argv, str(log)))
        proc.start()
        return {"job": job, "proc": proc, "t0": time.monotonic(), "log": log,
                "slot": slot, "rerun": rerun}

    def _finish(self, run: dict[str, Any], hang: bool) -> dict[str, Any] | None:
        """Judge a finished child; maybe return a determinism rerun to start."""
        job, proc = run["job"], run["proc"]
        secs = time.monotonic() - run["t0"]
        if hang:
            proc.kill()
        proc.join()
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
        if hang:
            outcome = Outcome("hang", None, f"over {self.args.timeout:g} s")
        else:
            outcome = judge(job.seed, judge_log(proc.exitcode, run["log"]), job.inp,
                            job.out)
        rec = {"k": job.k, "format": job.seed.fmt, "seed": job.seed.name,
               "family": job.family, "stack": job.stack, "seconds": round(secs, 3),
               **outcome.as_dict()}
        if outcome.status in BAD:
            rec["kept"] = self._keep(job, outcome.status)["dir"]
            (Path(rec["kept"]) / "outcome.json").write_text(
                json.dumps(rec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        self.records.append(rec)
        if outcome.status == "success" and job.seed.plans:
            self.successes += 1
            if self.successes % self.args.determinism_every == 0 and job.out.exists():
                shutil.copyfile(job.out, job.out.with_suffix(".first"))
                return {"job": job}
        shutil.rmtree(self.work / f"run{job.k}", ignore_errors=True)
        return None

    def _keep(self, job: Job, status: str) -> dict[str, Any]:
        d = self.keep / f"{job.k:05d}-{status}-{job.seed.fmt}-{job.family}"
        d.mkdir(parents=True, exist_ok=True)
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
            wait([r["proc"].sentinel for r in running.values()], timeout=0.5)
            now = time.monotonic()
            for slot, r in list(running.items()):
                done = not r["proc"].is_alive()
                if done or now - r["t0"] > a.timeout:
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
        }


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
            f"{f['elapsed_s']:.0f} s, hang limit {f['timeout_s']:g} s. "
            f"Determinism: {d['identical']} of {d['runs']} reruns byte-identical. "
            f"stderr with raw control characters: {f['raw_control_in_stderr']}.\n\n")
    text += table([("**total**", f["total"])] + list(f["per_format"].items()))
    text += "\nPer mutation family:\n\n" + table(list(f["per_family"].items()))
    if f["causes"]:
        text += "\nCauses:\n\n| count | cause | formats |\n|---:|---|---|\n"
        for key, c in f["causes"].items():
            text += f"| {c['count']} | {key.replace('|', '/')} | {', '.join(c['formats'])} |\n"
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
    argv, inp, _out = prepare(job.seed, job.data, where)
    print(f"# run {k}: {job.seed.name} ({job.seed.fmt}), {job.family} x{job.stack}")
    print(shlex.join(["vsizer", *argv]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5000)
    p.add_argument("--start", type=int, default=0, help="first run number")
    p.add_argument("--jobs", type=int, default=2, help="runs at a time")
    p.add_argument("--timeout", type=float, default=60.0, help="hang limit [s]")
    p.add_argument("--seed", type=int, default=0, help="master random seed")
    p.add_argument("--json", default="fuzz-figures.json", help="figures file")
    p.add_argument("--keep", default="fuzz-findings", help="kept bad inputs")
    p.add_argument("--determinism-every", type=int, default=25,
                   help="rerun every N-th successful plan and compare bytes")
    p.add_argument("--replay", type=int, default=None, metavar="K",
                   help="write run K's input to ./fuzz-replay and print its command")
    p.add_argument("--markdown", metavar="JSON", default=None,
                   help="print the figures of a finished campaign as Markdown")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    if args.markdown:
        print(markdown(json.loads(Path(args.markdown).read_text(encoding="utf-8"))))
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
