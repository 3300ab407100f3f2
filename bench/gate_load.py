"""A bounded load test of ``peirce serve`` on loopback: latency of ``/v1/verify`` for a 20-step
chain at increasing request rates, and the same through the OpenAI-compatible proxy with a
loopback upstream.

Usage::

    python bench/gate_load.py [--workers 2] [--rates 25,50,100,200] [--seconds 5]
    python bench/gate_load.py --replicas 2 [--database postgresql://...] [--workers 1]

It starts ``peirce serve`` (a child process, 127.0.0.1, a free port), registers a knowledge base,
and for each rate sends requests on an open-loop schedule (one every 1/rate s, whether or not the
previous answered) for ``--seconds``; it stops by itself. Every response is checked (HTTP 200 and
the expected action). Printed: p50 / p99 / max latency and achieved throughput per rate, the
first rate whose p99 passes 50 ms, and the same through the proxy; the baseline beside it is
``/healthz`` at the same rates (the HTTP stack alone). The last line is one JSON object.

With ``--replicas N`` it starts one replica, then N, on one database (``--database``; by default a
PostgreSQL server of the system's packages started for the run in a temporary folder), the
client sending requests to the replicas in turn (as a load balancer would). For each: ``/v1/verify``
at the fixed rates (p50 / p99), the most it serves with 16 requests in flight (``saturated``),
decisions logged per second (rows the database gained over the run's time), and the audit write's
own time per request (``timings.audit`` of each decision: what recording adds to a response).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

from peirce.llm import LoopbackServer
from peirce.server.db.ephemeral import free_port

PREMISES = [f"If something is c{i} then it is c{i + 1}." for i in range(20)] + ["Bob is c0."]
CHAIN = (
    "Let's think step by step. We want to evaluate if Bob is c20. "
    + " ".join(f"Bob is c{i}, so Bob is c{i + 1}." for i in range(20))
    + "\nANSWER: True"
)
TARGET_P99_MS = 50.0


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


async def _run_rate(
    client: httpx.AsyncClient, method: str, url: str, body: object, *, rate: float,
    seconds: float, check: str | None,
) -> dict[str, object]:  # fmt: skip
    """``method url`` on an open-loop schedule (see :func:`_fixed_rate`); a request succeeds
    with a 200 whose JSON holds ``check``."""

    async def one() -> bool:
        try:
            if method == "GET":
                r = await client.get(url)
            else:
                r = await client.post(url, json=body)
        except httpx.HTTPError:
            return False
        return r.status_code == 200 and (check is None or check in json.dumps(r.json()))

    return await _fixed_rate(one, rate, seconds)


async def _sweep(
    base: str, rates: list[float], seconds: float, kb_id: str, upstream: str | None
) -> dict[str, list[dict[str, object]]]:
    limits = httpx.Limits(max_connections=512, max_keepalive_connections=512)
    out: dict[str, list[dict[str, object]]] = {
        "healthz": [], "verify": [], "proxy": [], "stream": [],
    }  # fmt: skip
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        verify = {"kb": kb_id, "reasoning": CHAIN, "question": "Bob is c20."}
        chat = {
            "model": "m",
            "messages": [{"role": "user", "content": "Is Bob c20?"}],
            "peirce": {"kb": kb_id, "question": "Bob is c20."},
        }
        # warm every worker
        await asyncio.gather(*(client.post(f"{base}/v1/verify", json=verify) for _ in range(8)))
        for rate in rates:
            out["healthz"].append(
                await _run_rate(
                    client, "GET", f"{base}/healthz", None, rate=rate, seconds=seconds, check=None
                )
            )
            out["verify"].append(
                await _run_rate(
                    client,
                    "POST",
                    f"{base}/v1/verify",
                    verify,
                    rate=rate,
                    seconds=seconds,
                    check='"action": "pass"',
                )
            )
            if upstream:
                out["proxy"].append(
                    await _run_rate(
                        client, "POST", f"{base}/v1/chat/completions", chat,
                        rate=rate, seconds=seconds, check='"action": "pass"',
                    )
                )  # fmt: skip
        if upstream:
            out["stream"] = [await _stream_cost(client, base, upstream, kb_id)]
    return out


async def _stream_time(client: httpx.AsyncClient, url: str, body: object) -> tuple[float, str]:
    """Seconds to read a whole streamed reply, and the text released."""
    text = []
    t0 = time.perf_counter()
    async with client.stream("POST", url, json=body) as r:
        async for line in r.aiter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                delta = json.loads(line[6:])["choices"][0]["delta"].get("content")
                text.append(delta or "")
    return time.perf_counter() - t0, "".join(text)


async def _stream_cost(
    client: httpx.AsyncClient, base: str, upstream: str, kb_id: str, runs: int = 20
) -> dict[str, object]:
    """What verified streaming adds per released sentence: the same reply streamed straight
    from the upstream and through the proxy (one request at a time, best of ``runs``)."""
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "Is Bob c20?"}]}
    gated = {**body, "peirce": {"kb": kb_id, "question": "Bob is c20."}}
    direct = min([(await _stream_time(client, f"{upstream}/chat/completions", body))[0]
                  for _ in range(runs)])  # fmt: skip
    through = []
    for _ in range(runs):
        seconds, text = await _stream_time(client, f"{base}/v1/chat/completions", gated)
        through.append(seconds)
    sentences = CHAIN.count(". ") + 2
    extra_ms = (min(through) - direct) * 1000
    return {
        "direct_ms": direct * 1000,
        "gated_ms": min(through) * 1000,
        "released_whole": text == CHAIN,
        "sentences": sentences,
        "ms_per_sentence": extra_ms / sentences,
    }


def _knee(rows: list[dict[str, object]]) -> float | None:
    for row in rows:
        if float(row["p99_ms"]) > TARGET_P99_MS or int(row["errors"]):  # type: ignore[arg-type]
            return float(row["rate"])  # type: ignore[arg-type]
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rates", default="25,50,100,200")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--replicas", type=int, default=0, help="compare 1 and N replicas")
    ap.add_argument("--database", help="the replicas' database URL (default: a temporary one)")
    ap.add_argument("--conflicts", type=int, default=1000,
                    help="concurrent conflicting updates sent through the replicas")  # fmt: skip
    args = ap.parse_args()
    rates = [float(r) for r in args.rates.split(",")]
    if args.replicas or args.database:
        return replicas_main(args, rates)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp, LoopbackServer(oracle=lambda m, p: CHAIN) as up:
        env = dict(os.environ)
        env.pop("OPENAI_API_KEY", None)
        cmd = [
            sys.executable, "-m", "peirce", "serve", "--port", str(port),
            "--workers", str(args.workers), "--data-dir", str(Path(tmp) / "kbs"),
            "--upstream", up.base_url,
        ]  # fmt: skip
        log = open(Path(tmp) / "serve.log", "wb")  # noqa: SIM115 - closed below
        proc = subprocess.Popen(cmd, stdout=log, stderr=log, env=env)
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or proc.poll() is not None:
                    print("peirce serve did not start", file=sys.stderr)
                    return 1
                time.sleep(0.2)
            r = httpx.post(f"{base}/v1/kbs", json={"premises": PREMISES}, timeout=60)
            kb_id = r.json()["id"]
            results = asyncio.run(_sweep(base, rates, args.seconds, kb_id, up.base_url))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
            log.close()
    print(
        f"peirce serve on loopback, {args.workers} workers, a 20-step chain, "
        f"{args.seconds:g} s per rate"
    )
    for kind in ("healthz", "verify", "proxy"):
        for row in results[kind]:
            print(
                f"  {kind:<8} {row['rate']:>6.0f}/s  p50 {row['p50_ms']:7.2f} ms  "
                f"p99 {row['p99_ms']:7.2f} ms  max {row['max_ms']:7.1f} ms  "
                f"throughput {row['throughput']:6.1f}/s  errors {row['errors']}"
            )
    for row in results["stream"]:
        print(
            f"  stream   one request at a time: {row['direct_ms']:.1f} ms straight from the "
            f"upstream, {row['gated_ms']:.1f} ms through the gate: "
            f"{row['ms_per_sentence']:.2f} ms per released sentence ({row['sentences']} "
            f"sentences; released whole: {row['released_whole']})"
        )
    knee_v, knee_p = _knee(results["verify"]), _knee(results["proxy"])

    def said(knee: float | None) -> str:
        return f"{knee:g}/s" if knee is not None else "no rate tried passes it"

    print(
        f"  target: /v1/verify p99 < {TARGET_P99_MS:g} ms at 200/s; p99 first passes it at "
        f"{said(knee_v)} (proxy: {said(knee_p)})"
    )
    figures = {
        "workers": args.workers,
        "seconds_per_rate": args.seconds,
        "verify": results["verify"],
        "proxy": results["proxy"],
        "healthz_baseline": results["healthz"],
        "stream": results["stream"][0] if results["stream"] else None,
        "verify_p99_exceeds_50ms_at_rate": knee_v,
        "proxy_p99_exceeds_50ms_at_rate": knee_p,
    }
    print(json.dumps(figures, sort_keys=True))
    return 0


# ------------------------------------------------------------------------------------ replicas
def _start_serve(args: argparse.Namespace, database: str, tmp: Path) -> tuple[object, str]:
    port = free_port()
    env = dict(os.environ)
    env.pop("OPENAI_API_KEY", None)
    cmd = [sys.executable, "-m", "peirce", "serve", "--port", str(port),
           "--workers", str(args.workers), "--database", database,
           "--data-dir", str(tmp / "kbs")]  # fmt: skip
    log = open(tmp / f"serve-{port}.log", "wb")  # noqa: SIM115 - the child keeps it
    proc = subprocess.Popen(cmd, stdout=log, stderr=log, env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            raise RuntimeError("peirce serve did not start: " + log.name)
        time.sleep(0.2)


async def _fixed_rate(
    one: Callable[[], Awaitable[bool]], rate: float, seconds: float
) -> dict[str, object]:
    """``one()`` on an open-loop schedule of ``rate`` a second for ``seconds``."""
    latencies: list[float] = []
    errors = 0
    n = max(1, int(rate * seconds))
    start = time.perf_counter()

    async def timed(i: int) -> None:
        nonlocal errors
        delay = start + i / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        t0 = time.perf_counter()
        ok = await one()
        latencies.append((time.perf_counter() - t0) * 1000)
        errors += not ok

    await asyncio.gather(*(timed(i) for i in range(n)))
    wall = time.perf_counter() - start
    return {
        "rate": rate,
        "requests": n,
        "errors": errors,
        "throughput": n / wall,
        "p50_ms": statistics.median(latencies),
        "p99_ms": _percentile(latencies, 0.99),
        "max_ms": max(latencies),
    }


async def _balanced(
    bases: list[str], kb_id: str, rates: list[float], seconds: float, count: Callable[[], int]
) -> dict[str, object]:
    """``/v1/verify`` through the replicas in turn: at each fixed rate, then saturated (16 in
    flight, with the decisions the database gained meanwhile, by ``count``); and each decision's
    audit write time."""
    limits = httpx.Limits(max_connections=512, max_keepalive_connections=512)
    body = {"kb": kb_id, "reasoning": CHAIN, "question": "Bob is c20."}
    audit_ms: list[float] = []
    turn = [0]

    def url() -> str:
        turn[0] += 1
        return f"{bases[turn[0] % len(bases)]}/v1/verify"

    async with httpx.AsyncClient(timeout=60, limits=limits) as client:

        async def one() -> bool:
            try:
                r = await client.post(url(), json=body)
            except httpx.HTTPError:
                return False
            if r.status_code != 200:
                return False
            d = r.json()
            audit_ms.append(float(d["timings"]["audit"]))
            return d["action"] == "pass"

        await asyncio.gather(*(one() for _ in range(8 * len(bases))))  # warm every worker
        audit_ms.clear()
        fixed = [await _fixed_rate(one, rate, seconds) for rate in rates]
        done = 0
        stop = time.perf_counter() + seconds

        async def worker() -> None:
            nonlocal done
            while time.perf_counter() < stop:
                ok = await one()  # (done += await one() would read done before the wait)
                done += ok

        before = await asyncio.to_thread(count)
        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(16)))
        wall = time.perf_counter() - start
        logged = await asyncio.to_thread(count) - before
    return {
        "verify": fixed,
        "saturated_per_s": done / wall,
        "decisions_per_s": logged / wall,
        "audit_ms_p50": statistics.median(audit_ms) if audit_ms else None,
        "audit_ms_p99": _percentile(audit_ms, 0.99),
    }


async def _conflicts(bases: list[str], writes: int) -> dict[str, object]:
    """``writes`` updates of one knowledge base, 32 at a time through the replicas in turn, each
    from the version its writer read (``If-Match``): each must be applied or refused (412), and
    the versions written must be exactly the ones applied (no lost update)."""
    async with httpx.AsyncClient(timeout=120) as client:
        r = await client.post(f"{bases[0]}/v1/kbs", json={"premises": ["Start is red."]})
        kb_id = r.json()["id"]
        gate = asyncio.Semaphore(32)
        applied: dict[int, str] = {}
        statuses: dict[int, int] = {}

        async def write(i: int) -> None:
            base = bases[i % len(bases)]
            async with gate:
                etag = (await client.get(f"{base}/v1/kbs/{kb_id}")).headers["etag"]
                text = f"Writer{i} is red."
                r = await client.put(f"{base}/v1/kbs/{kb_id}", json={"premises": [text]},
                                     headers={"If-Match": etag})  # fmt: skip
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
            if r.status_code == 200:
                applied[int(r.json()["version"])] = text

        await asyncio.gather(*(write(i) for i in range(writes)))
        versions = (await client.get(f"{bases[-1]}/v1/kbs/{kb_id}/versions")).json()["versions"]
        lost = 0
        for version, text in applied.items():
            got = (await client.get(f"{bases[0]}/v1/kbs/{kb_id}/versions/{version}")).json()
            lost += got["premises"] != [text]
    written = len(versions) - 1
    return {"writes": writes, "statuses": {str(k): v for k, v in sorted(statuses.items())},
            "applied": len(applied), "versions_written": written,
            "lost_updates": lost + abs(written - len(applied))}  # fmt: skip


def _decision_count(database: str) -> int:
    import sqlalchemy as sa

    from peirce.server.db.store import database_url

    engine = sa.create_engine(database_url(database))
    try:
        with engine.connect() as conn:
            return int(conn.scalar(sa.text("SELECT count(*) FROM decisions")) or 0)
    finally:
        engine.dispose()


def _replica_runs(
    args: argparse.Namespace, rates: list[float], database: str, tmp: Path
) -> list[dict[str, object]]:
    from peirce.server.db.store import database_url, upgrade

    upgrade(database_url(database))
    runs = []
    for n in sorted({1, max(1, args.replicas)}):
        procs, bases = [], []
        try:
            for _ in range(n):
                proc, base = _start_serve(args, database, tmp)
                procs.append(proc)
                bases.append(base)
            r = httpx.post(f"{bases[0]}/v1/kbs", json={"premises": PREMISES}, timeout=60)
            kb_id = r.json()["id"]
            run = asyncio.run(
                _balanced(bases, kb_id, rates, args.seconds, lambda: _decision_count(database))
            )
            run["replicas"] = n
            if n == args.replicas and args.conflicts:
                run["conflicts"] = asyncio.run(_conflicts(bases, args.conflicts))
            runs.append(run)
        finally:
            for proc in procs:
                proc.terminate()  # type: ignore[attr-defined]
                proc.wait(timeout=30)  # type: ignore[attr-defined]
    return runs


def replicas_main(args: argparse.Namespace, rates: list[float]) -> int:
    import contextlib

    from peirce.server.db.ephemeral import temporary_postgres

    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        database = args.database or stack.enter_context(temporary_postgres(durable=True))
        runs = _replica_runs(args, rates, database, Path(tmp))
    kind = database.split(":", 1)[0]
    print(f"peirce serve replicas on one {kind} database, {args.workers} workers each, a 20-step "
          f"chain, {args.seconds:g} s per rate, on {os.cpu_count()} cores")  # fmt: skip
    for run in runs:
        for row in run["verify"]:  # type: ignore[attr-defined]
            print(f"  {run['replicas']} replica(s) {row['rate']:>6.0f}/s  p50 {row['p50_ms']:7.2f}"
                  f" ms  p99 {row['p99_ms']:7.2f} ms  throughput {row['throughput']:6.1f}/s  "
                  f"errors {row['errors']}")  # fmt: skip
        print(
            f"  {run['replicas']} replica(s) saturated (16 in flight): "
            f"{run['saturated_per_s']:.1f}/s, decisions logged {run['decisions_per_s']:.1f}/s; "
            f"audit write p50 {run['audit_ms_p50']:.3f} ms, p99 {run['audit_ms_p99']:.3f} ms"
        )
    for run in runs:
        c = run.get("conflicts")
        if isinstance(c, dict):
            print(
                f"  {c['writes']} concurrent conflicting updates through {run['replicas']} "
                f"replica(s): {c['applied']} applied, statuses {c['statuses']}, "
                f"{c['versions_written']} versions written, {c['lost_updates']} lost"
            )
    ratio = None
    if len(runs) > 1:
        ratio = float(runs[-1]["saturated_per_s"]) / float(runs[0]["saturated_per_s"])  # type: ignore[arg-type]
        print(f"  {runs[-1]['replicas']} replicas serve {ratio:.2f}x one replica's throughput")
    figures = {"database": kind, "workers": args.workers, "seconds_per_rate": args.seconds,
               "cores": os.cpu_count(), "runs": runs, "throughput_ratio": ratio}  # fmt: skip
    print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
