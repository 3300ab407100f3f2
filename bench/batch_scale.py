"""Batch evaluation at scale: ``peirce check`` through the batch runner on generated records.

    python bench/batch_scale.py [--records 100000] [--kill-trials 10] [--kill-records 3000]

- records/s with 1 and 2 worker processes, and through Ray (``--ray local``, 2 actors; its
  start counted, and also apart: the seconds to the first output line and the records/s from
  it on) when Ray is installed, on ``--records`` generated chains (each with names and
  a relation of its own, so no two are alike and Prolog meets new names all along);
- memory of the 1-worker runs on 1,000 records and on ``--records``: ``peak_rss_mib``, the
  largest peak RSS of any process of the run (the runner, the forkserver, every worker, each
  reaped by the measuring process, so RUSAGE_CHILDREN sees them all), and ``peak_total_mib``,
  the largest total PSS of all the run's processes at once (sampled every 0.5 s);
  ``--parts unbounded`` adds a 1-worker run with workers never replaced
  (``--max-records-per-worker 0``: the records processed in the runner's own process);
- ``--kill-trials`` runs (2 workers) killed with SIGKILL (the whole process group, workers too)
  once a random number of lines is written, then ``--resume``d: the records lost and written
  twice are counted. A run that ended before its kill came is run again (``kill_late`` counts
  them), so that every trial is killed midway.

A human summary, then one JSON object as the last line: ``records``, ``records_per_second``
(per run: ``1``, ``2``, ``1-unbounded``, ``ray``), ``peak_rss_mib`` and ``peak_total_mib``
(``1k`` and the full count), ``memory`` (every run's), ``kill_trials``, ``kill_late``,
``lost``, ``duplicated``, the seconds of each run, ``first_line_seconds`` and
``steady_records_per_second`` (each run's, from its first output line to its last),
``cpu_ms_per_record`` (each run's, all its processes together), and ``ray_peak_total_mib``
(the total PSS of all Ray's processes on 1,000 records and on the full count).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PEIRCE = [sys.executable, "-m", "peirce.cli"]


def generate(path: Path, n: int, seed: int = 0) -> None:
    """``n`` chains, each about names of its own and with a relation of its own (``{kind}{k}``):
    fact steps that follow or not, answered from the premises' least model, and a rule step,
    which Prolog proves; so Prolog meets a new relation in every record, as on real data with a
    large vocabulary (its atom, functor and predicate tables keep every name they have seen)."""
    rng = random.Random(seed)
    kinds = ["wumpus", "impus", "tumpus", "yumpus", "zumpus", "dumpus"]
    with path.open("w", encoding="utf-8") as f:
        for k in range(n):
            a, b, c = rng.sample(kinds, 3)
            name, own = f"Max{k}", f"{b}{k}"
            context = f"{name} is a {a}. Every {a} is a {own}. Every {own} is a {c}."
            steps = [
                f"{name} is a {own}.",
                f"{name} is a {c}.",
                f"Every {a} is a {c}.",
                f"{name} is not a {a}.",
            ]
            f.write(json.dumps({"id": f"c{k}", "context": context, "steps": steps}) + "\n")


#: Runs peirce as its child and measures the memory of every process of the run: it is the
#: subreaper of the run's processes (so a worker or forkserver left behind by its parent is
#: reaped here, and RUSAGE_CHILDREN's ru_maxrss is the largest peak RSS of any of them), and it
#: samples the proportional set size (PSS: shared pages split between their processes) of all
#: the run's processes together every 0.5 s, for the memory the run takes from the machine (a
#: scan of /proc: more often, it takes a noticeable share of a core from the run it measures),
#: and, in the same scan, the CPU time of each (their sum: the CPU the run took).
_WRAPPER = """
import ctypes, json, os, resource, subprocess, sys, threading, time
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     start_new_session=True)
out, err = [], []
for src, dst in ((p.stdout, out), (p.stderr, err)):
    threading.Thread(target=lambda s=src, d=dst: d.append(s.read()), daemon=True).start()
cpu = {}  # (pid, start) -> its CPU ticks when last seen
def tree():
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == p.pid:  # its session
                pids.append(entry)
                cpu[(entry, fields[19])] = int(fields[11]) + int(fields[12])
    return pids
def pss(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0
peak_total = processes = 0
seen = set()
while p.poll() is None:
    pids = tree()
    seen.update(pids)
    peak_total = max(peak_total, sum(pss(pid) for pid in pids))
    time.sleep(0.5)
while True:  # what the run left behind, reaped here
    try:
        os.wait()
    except ChildProcessError:
        break
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"rc": p.returncode, "out": out[0].decode() if out else "",
                  "cpu": sum(cpu.values()) / os.sysconf("SC_CLK_TCK"),
                  "err": (err[0].decode() if err else "")[-2000:], "rss_kib": rss,
                  "pss_kib": peak_total, "processes": len(seen)}))
"""


def _run(argv: list[str]) -> tuple[dict[str, object], float, dict[str, float]]:
    """Run peirce in a child process: its summary, its seconds, and its memory: the largest
    peak RSS of any of its processes (``peak_rss_mib``), the largest total PSS of them all at
    once (``peak_total_mib``), how many processes it ran (``processes``), and the CPU seconds
    of them all (``cpu_seconds``, as sampled: the last half second of each process is missed;
    a figure other loads on the machine change less than the records/s)."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *PEIRCE, *argv], capture_output=True, text=True, check=True
    )
    seconds = time.perf_counter() - started
    report = json.loads(done.stdout)
    if report["rc"] not in (0, 1):
        raise SystemExit(f"peirce {' '.join(argv)} failed: {report['err']}")
    memory = {
        "peak_rss_mib": round(report["rss_kib"] / 1024, 1),
        "peak_total_mib": round(report["pss_kib"] / 1024, 1),
        "processes": report["processes"],
        "cpu_seconds": round(report["cpu"], 1),
    }
    for line in reversed(report["out"].strip().splitlines()):  # Ray may print lines of its own
        if line.startswith("{") and '"records"' in line:
            return json.loads(line), seconds, memory
    raise SystemExit(f"peirce {' '.join(argv)} wrote no summary: {report['err']}")


def throughput(
    src: Path, work: Path, workers: int, ray: bool = False, extra: tuple[str, ...] = ()
) -> dict[str, float]:
    """One run's records/s (the summary's: start-up counted), its memory, and, watched from
    outside as the output grows (every 0.1 s), the seconds to its first output line from the
    launch (``first_line_seconds``: Python's, the pool's or Ray's start and the first records)
    and its records/s from its first line to its last (``steady_records_per_second``)."""
    out = work / f"out-{workers}{'-ray' if ray else ''}.jsonl"
    out.unlink(missing_ok=True)
    argv = ["check", str(src), "--output", str(out), "--json", "--workers", str(workers), *extra]
    if ray:
        argv += ["--ray", "local"]
    marks: dict[str, float] = {}
    stop = threading.Event()
    watcher = threading.Thread(target=_watch, args=(out, stop, marks), daemon=True)
    marks["launch"] = time.perf_counter()
    watcher.start()
    try:
        summary, seconds, memory = _run(argv)
    finally:
        stop.set()
        watcher.join()
    lines = sum(1 for _ in out.open("rb"))
    assert lines == summary["records"], (lines, summary["records"])
    steady = 0.0
    if marks.get("last", 0.0) > marks.get("first", 0.0):
        steady = (marks["lines"] - marks["first_lines"]) / (marks["last"] - marks["first"])
    return {
        "records_per_second": float(summary["records_per_second"]),  # type: ignore[arg-type]
        "wall_seconds": round(seconds, 2),
        "first_line_seconds": round(marks.get("first", marks["launch"]) - marks["launch"], 2),
        "steady_records_per_second": round(steady, 1),
        **memory,
    }


def _watch(path: Path, stop: threading.Event, marks: dict[str, float]) -> None:
    """Note when ``path`` gets its first lines and when it last grew, until ``stop``."""
    count = _LineCount(path)
    while not stop.wait(0.1):
        before, lines = count.lines, count()
        if lines > before:
            now = time.perf_counter()
            if "first" not in marks:
                marks["first"], marks["first_lines"] = now, lines
            marks["last"], marks["lines"] = now, lines


def _lines(path: Path) -> int:
    try:
        with path.open("rb") as f:
            return f.read().count(b"\n")
    except FileNotFoundError:
        return 0


class _LineCount:
    """Lines of a growing file, counted from where the last count stopped (a poll costs what
    was written since, not the whole file: a slow poll would kill late)."""

    def __init__(self, path: Path) -> None:
        self.path, self.at, self.lines = path, 0, 0

    def __call__(self) -> int:
        try:
            with self.path.open("rb") as f:
                f.seek(self.at)
                data = f.read()
        except FileNotFoundError:
            return 0
        self.at += len(data)
        self.lines += data.count(b"\n")
        return self.lines


def kill_trial(
    src: Path, work: Path, n: int, rng: random.Random
) -> tuple[int, int, float, int, bool]:
    """One run killed at a random point, then resumed: (lost, duplicated, when killed, lines
    written before the kill, whether the kill came while records were still to be written)."""
    out = work / "killed.jsonl"
    out.unlink(missing_ok=True)
    argv = [*PEIRCE, "check", str(src), "--output", str(out), "--workers", "2"]
    target = rng.randint(1, n - 1)  # kill once this many lines are written: midway
    proc = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    started = time.perf_counter()
    count = _LineCount(out)
    while proc.poll() is None and count() < target:
        time.sleep(0.002)
    when = time.perf_counter() - started
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)  # the runner and its workers, as kill -9 of the job
    proc.wait()
    before = len(out.read_bytes().splitlines()) if out.exists() else 0
    midway = proc.returncode == -signal.SIGKILL and before < n
    subprocess.run(
        [*argv, "--resume"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
    )
    ids = [json.loads(line)["id"] for line in out.read_text("utf-8").splitlines()]
    expected = {f"c{k}" for k in range(n)}
    lost = len(expected - set(ids))
    duplicated = len(ids) - len(set(ids))
    return lost, duplicated, when, before, midway


def kill_trials(
    src: Path, work: Path, n: int, trials: int, *, rng: random.Random
) -> tuple[int, int, int]:
    """``trials`` runs killed midway and resumed: records lost and duplicated in all, and the
    runs that ended before their kill came (each is run again, up to three times a trial; their
    losses count too)."""
    lost = duplicated = late = 0
    for trial in range(trials):
        for _attempt in range(4):
            lo, du, when, before, midway = kill_trial(src, work, n, rng)
            lost, duplicated = lost + lo, duplicated + du
            print(f"kill trial {trial + 1}: SIGKILL after {when:.1f} s ({before} of {n} written"
                  f"{'' if midway else ', too late: the run had ended'}), "
                  f"resumed: {lo} lost, {du} duplicated")  # fmt: skip
            if midway:
                break
            late += 1
    return lost, duplicated, late


def ray_runs(
    big: Path, small: Path, work: Path, n: int, runs: dict[str, dict[str, float]]
) -> dict[str, float]:
    """Ray (a local node, 2 actors) on 1,000 records, for its memory before the records count,
    then on ``big`` (``runs["ray"]``); the run on 1,000 records."""
    ray_small = throughput(small, work, 2, ray=True)
    r = runs["ray"] = throughput(big, work, 2, ray=True)
    print(f"{n:,} records, Ray (local node, 2 actors): {r['records_per_second']:.0f} records/s "
          f"({r['wall_seconds']:.0f} s wall), first line after {r['first_line_seconds']:.1f} s, "
          f"then {r['steady_records_per_second']:.0f} records/s; peak total PSS "
          f"{r['peak_total_mib']:.0f} MiB ({ray_small['peak_total_mib']:.0f} MiB on 1,000 "
          f"records; {r['processes']} processes)")  # fmt: skip
    two = runs.get("2")
    if two:
        whole = r["records_per_second"] / two["records_per_second"]
        steady = r["steady_records_per_second"] / max(1.0, two["steady_records_per_second"])
        cpu = two["cpu_seconds"] / max(0.1, r["cpu_seconds"])
        print(f"Ray / 2 workers: {whole:.2f}x, from the first line on: {steady:.2f}x "
              f"(2 workers: first line after {two['first_line_seconds']:.1f} s); CPU seconds "
              f"of all processes: Ray {r['cpu_seconds']:.0f}, 2 workers "
              f"{two['cpu_seconds']:.0f} ({cpu:.2f}x)")  # fmt: skip
    return ray_small


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--kill-trials", type=int, default=10)
    parser.add_argument("--kill-records", type=int, default=3000)
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--parts",
        default="local,ray,kill",
        help="which runs: local (1 and 2 workers), unbounded (1 worker, workers never replaced:"
        " --max-records-per-worker 0), ray, kill",
    )
    args = parser.parse_args()
    rng = random.Random(args.seed)
    figures: dict[str, object] = {"records": args.records}
    with tempfile.TemporaryDirectory(prefix="batch-scale-") as tmp:
        work = Path(tmp)
        big, small, kill = work / "big.jsonl", work / "1k.jsonl", work / "kill.jsonl"
        generate(big, args.records)
        generate(small, 1000)
        generate(kill, args.kill_records)
        parts = set(args.parts.split(","))
        rates: dict[str, float] = {}
        runs: dict[str, dict[str, float]] = {}
        one_k = {"records_per_second": 0.0, "peak_rss_mib": 0.0, "peak_total_mib": 0.0}
        if "local" in parts:
            one_k = throughput(small, work, 1)
            print(f"1,000 records, 1 worker: {one_k['records_per_second']:.0f} records/s, "
                  f"peak RSS {one_k['peak_rss_mib']:.0f} MiB, "
                  f"peak total PSS {one_k['peak_total_mib']:.0f} MiB")  # fmt: skip
        local = [("1", 1, ()), ("2", 2, ())] if "local" in parts else []
        if "unbounded" in parts:
            local.append(("1-unbounded", 1, ("--max-records-per-worker", "0")))
        for key, workers, extra in local:
            r = throughput(big, work, workers, extra=extra)
            runs[key] = r
            rates[key] = r["records_per_second"]
            print(f"{args.records:,} records, {workers} worker(s) {' '.join(extra)}: "
                  f"{r['records_per_second']:.0f} records/s ({r['wall_seconds']:.0f} s wall), "
                  f"peak RSS {r['peak_rss_mib']:.0f} MiB, "
                  f"peak total PSS {r['peak_total_mib']:.0f} MiB "
                  f"({r['processes']} processes)")  # fmt: skip
        has_ray = not args.no_ray and "ray" in parts
        try:
            import ray  # noqa: F401
        except ImportError:
            if has_ray:
                print("Ray: not installed (pip install 'peirce[distributed]'), not run")
            has_ray = False
        ray_small = ray_runs(big, small, work, args.records, runs) if has_ray else {}
        if "ray" in runs:
            rates["ray"] = runs["ray"]["records_per_second"]
        speedup = rates["2"] / rates["1"] if rates.get("1") else 0.0
        if speedup:
            print(f"2 workers / 1 worker: {speedup:.2f}x")
        trials = args.kill_trials if "kill" in parts else 0
        lost, duplicated, late = kill_trials(kill, work, args.kill_records, trials, rng=rng)
        figures.update(
            {
                "records_per_second": rates,
                "speedup_2_workers": round(speedup, 2),
                # the largest peak RSS of any process of the run (1 worker), and the largest
                # total PSS of all its processes at once
                "peak_rss_mib": {
                    "1k": one_k["peak_rss_mib"],
                    f"{args.records // 1000}k": runs.get("1", {}).get("peak_rss_mib"),
                },
                "peak_total_mib": {
                    "1k": one_k["peak_total_mib"],
                    f"{args.records // 1000}k": runs.get("1", {}).get("peak_total_mib"),
                },
                "memory": {
                    k: {m: v[m] for m in ("peak_rss_mib", "peak_total_mib", "processes")}
                    for k, v in runs.items()
                },
                "wall_seconds": {k: v["wall_seconds"] for k, v in runs.items()},
                # CPU milliseconds per record, all the run's processes together
                "cpu_ms_per_record": {
                    k: round(1000 * v["cpu_seconds"] / args.records, 2) for k, v in runs.items()
                },
                # seconds to the first output line, and records/s from it to the last
                "first_line_seconds": {k: v["first_line_seconds"] for k, v in runs.items()},
                "steady_records_per_second": {
                    k: v["steady_records_per_second"] for k, v in runs.items()
                },
                # the total PSS of all Ray's processes (the driver, Ray's daemons, the actors and
                # their engines) on 1,000 records and on the full count
                "ray_peak_total_mib": {
                    "1k": ray_small.get("peak_total_mib"),
                    f"{args.records // 1000}k": runs.get("ray", {}).get("peak_total_mib"),
                },
                "kill_trials": trials,
                "kill_late": late,
                "kill_records": args.kill_records,
                "lost": lost,
                "duplicated": duplicated,
            }
        )
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
