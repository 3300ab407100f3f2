"""Score each derived claim of a chain with ARES: stability τ, flag, deciding backend, certificate.

FILE holds JSON (one object or a list) or JSONL records, each with ``base`` (the base claims, a list
of strings) and ``derived`` (the derived claims, in order); optional ``priors`` (one per base claim)
and ``id``. ``base_claims`` / ``derived_claims`` are accepted too. A record that cannot be read is
reported with its place and the others are still scored. Exit status: 0 when every record was
scored, 1 otherwise; 2 when FILE cannot be read; 3 when the LLM was asked and failed every call.

The entailment model is the cascade by default: the symbolic prover first, and the LLM judge
(``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``PEIRCE_MODEL``) only where the prover cannot decide;
without an LLM configured it runs offline.

Examples:
  peirce ares examples/claims.json
  peirce ares claims.jsonl --judge symbolic --output scores.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from peirce import serde
from peirce.batch.job import Job, Outcome
from peirce.batch.runner import add_batch_arguments, run_batch
from peirce.batch.summary import Summary
from peirce.cli import watch_llm
from peirce.errors import InputError

if TYPE_CHECKING:
    from peirce.llm import LLMClient
    from peirce.protocols import EntailmentModel

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="JSON or JSONL chains with 'base' and 'derived' ('-': stdin)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per chain")
    parser.add_argument(
        "--judge",
        choices=("cascade", "symbolic", "llm"),
        default="cascade",
        help="entailment model (default: cascade = symbolic, then the LLM where undecided)",
    )
    parser.add_argument(
        "--mode", choices=("likert", "binary"), default="likert", help="the LLM judge's output mode"
    )
    parser.add_argument("--epsilon", type=float, default=0.1, help="tolerance ε (default 0.1)")
    parser.add_argument("--delta", type=float, default=0.1, help="failure probability δ (0.1)")
    parser.add_argument("--prior", type=float, default=1.0, help="prior of each base claim (1.0)")
    parser.add_argument("--threshold", type=float, default=0.5, help="flag τ below this (0.5)")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed")
    parser.add_argument("--cache", default=None, help="LLM reply cache (SQLite file)")
    add_batch_arguments(parser)


def _strings(value: Any, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise InputError(f"{key!r} must be a list of strings", expected="a list of claims")
    return value


def _chain(value: Any) -> tuple[list[str], list[str], list[float] | None]:
    if not isinstance(value, dict):
        raise InputError("a record must be a JSON object with 'base' and 'derived'")
    base = _strings(value.get("base", value.get("base_claims")), "base")
    derived = _strings(value.get("derived", value.get("derived_claims")), "derived")
    if not derived:
        raise InputError("'derived' must hold at least one claim")
    priors = value.get("priors")
    if priors is not None and (
        not isinstance(priors, list)
        or len(priors) != len(base)
        or not all(isinstance(p, (int, float)) and 0 <= p <= 1 for p in priors)
    ):
        raise InputError("'priors' must hold one probability per base claim")
    return base, derived, priors


def _model(args: argparse.Namespace) -> tuple[EntailmentModel, LLMClient | None]:
    """The entailment model and the LLM client it uses (``None`` offline)."""
    from peirce.config import llm_settings
    from peirce.engine.entailment import Cascade
    from peirce.llm import ClientOptions, LLMClient
    from peirce.llm.judge import LLMJudge
    from peirce.pipelines.entailment import symbolic as symbolic_entailment

    options: ClientOptions = {} if args.cache is None else {"cache": args.cache}
    if args.judge == "symbolic":
        return symbolic_entailment(), None
    if args.judge == "llm":
        llm = watch_llm(LLMClient.from_env(**options))
        return LLMJudge(llm, mode=args.mode), llm
    client = watch_llm(LLMClient.from_env(**options)) if llm_settings().configured else None
    backends: list[EntailmentModel] = [symbolic_entailment()]
    if client is not None:
        backends.append(LLMJudge(client, mode=args.mode))
    return Cascade(backends), client


def render(result: Any) -> str:
    lines = []
    for c in result.claims:
        tau = "  -  " if c.tau is None else f"{c.tau:.3f}"
        flag = "???" if c.flagged is None else "ERR" if c.flagged else "ok "
        cert = c.certificate
        how = "exact" if cert.method == "exact" else f"±{cert.epsilon:.3f} (δ={cert.delta:g})"
        lines.append(f"  {c.index:>3} {flag} τ={tau} {how:<18} [{c.backend}] {c.text}")
        if c.flagged is not False and c.reason:
            lines.append(f"      {c.reason}")
    lines.append(
        f"  N={result.n}  calls={result.entailment_calls}  distinct={result.distinct_calls}"
        f"  theoretical={result.theoretical_calls}  {result.seconds * 1000:.1f} ms"
    )
    return "\n".join(lines)


class _Scorer:
    """``ares``'s work on one chain (one per process: its own engine, model and LLM client)."""

    def __init__(self, options: dict[str, Any]) -> None:
        from peirce.engine.stability import Ares

        args = argparse.Namespace(**options)
        self.model, self.client = _model(args)
        self.ares = Ares(
            self.model,
            epsilon=args.epsilon,
            delta=args.delta,
            prior=args.prior,
            threshold=args.threshold,
            seed=args.seed,
        )

    def __call__(self, value: Any, index: int, rid: str, *, text: bool) -> Outcome:
        base, derived, priors = _chain(value)
        result = self.ares.score(base, derived, priors=priors)
        flags = [c.flagged for c in result.claims]
        verdict = "flagged" if any(flags) else "unknown" if None in flags else "stable"
        fields = {"verdict": verdict, "ares": serde.to_json_obj(result)}
        return Outcome(fields, f"chain {rid}:\n{render(result)}" if text else None)

    def stats(self) -> dict[str, Any]:
        llm = self.client.stats.as_dict() if self.client is not None else {}
        return {"llm": llm, "decided_by": dict(getattr(self.model, "decided", {}))}

    def close(self) -> None:
        if self.client is not None:
            self.client.close()


def processor(options: dict[str, Any]) -> _Scorer:
    return _Scorer(options)


_OPTIONS = ("judge", "mode", "epsilon", "delta", "prior", "threshold", "seed", "cache")


def _legacy(as_json: bool) -> Callable[[Summary], str]:
    """The summary line ``ares`` printed before the batch runner (kept on standard output)."""

    def line(summary: Summary) -> str:
        stats = summary.stats
        llm = stats.get("llm", {})
        data = {
            "llm": llm,
            "decided_by": stats.get("decided_by", {}),
            "failed_records": summary.failed,
        }
        return json.dumps({"summary": data}) if as_json else f"summary: {json.dumps(data)}"

    return line


def run(args: argparse.Namespace) -> int:
    job = Job(
        command="ares",
        factory="peirce.commands.ares:processor",
        options={k: getattr(args, k) for k in _OPTIONS},
        source="<stdin>" if args.file == "-" else args.file,
        error_text="{error}",
        text=not args.json and not args.output,
    )
    status, _summary = run_batch(job, args, json_lines=args.json, legacy_summary=_legacy(args.json))
    return status
