"""Lab protocols: score a Sketch-and-Fill reply with SCORE, check a sequence against a procedure.

``peirce protocol score PRED GOLD`` prints every SCORE component (gates, step scale, the order
modes, action anchors, Semantic-A, Step-M, SCORE). PRED and GOLD are files holding a reply, or
JSON / JSONL records with the reply under ``response`` (or ``prediction``, ``reply``) and the
gold under ``response`` (or ``gold``, ``ground_truth``); one gold record serves every prediction.
A record that cannot be read is reported with its place and the others are still scored. Exit
status 0 when every record was scored (a failed gate is a score, not an error), 1 otherwise, 2
when a file cannot be read.

``peirce protocol check SEQUENCE --graph GRAPH`` checks executed steps against a precedence
graph (a CaptainCook4D or ARES task graph, or peirce's procedure JSON) and prints each Order,
Missing Step and unavailable-object violation with its evidence. SEQUENCE is a JSON list (or
``{"sequence": [...]}``) or one step a line, by id or by the step's text. Exit status 0 when the
sequence keeps the procedure, 1 when it does not.

Examples:
  peirce protocol check examples/pancake_late_heat.json --graph examples/pancakes.json
  peirce protocol score predictions.jsonl gold.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from peirce.batch.job import Job, Outcome
from peirce.batch.runner import add_batch_arguments, batch_requested, run_batch
from peirce.errors import ConfigError, InputError, PeirceError
from peirce.records import decode_text, read_bytes, read_records, read_text

if TYPE_CHECKING:
    from peirce.evaluators.score import ScoreResult

_PRED_KEYS = ("response", "prediction", "reply")
_GOLD_KEYS = ("response", "gold", "ground_truth")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    score = sub.add_parser("score", help="SCORE of a Sketch-and-Fill reply against a gold one")
    score.add_argument("pred", help="the reply (text), or JSON/JSONL records of replies")
    score.add_argument("gold", help="the gold protocol (text), or JSON/JSONL records")
    score.add_argument("--json", action="store_true", help="one JSON object per record")
    score.add_argument("--order-mode", choices=("strict", "lcs"), default="strict")
    score.add_argument("--tau", type=float, default=0.95, help="consistency-gate coverage τ")
    score.add_argument("--length-limit", type=float, default=30.0, help="words per step, L")
    score.add_argument("--verbosity", choices=("ratio", "paper"), default="ratio")
    add_batch_arguments(score)
    check = sub.add_parser("check", help="check a sequence of steps against a procedure")
    check.add_argument("sequence", help="JSON list or one step a line (ids or texts)")
    check.add_argument("--graph", required=True, help="task graph or procedure JSON")
    check.add_argument("--json", action="store_true", help="print the check as JSON")
    check.add_argument(
        "--partial", action="store_true", help="the sequence need not complete the procedure"
    )
    check.add_argument(
        "--without", action="append", default=[], metavar="OBJECT", help="an object not at hand"
    )
    check.add_argument("--facts", action="store_true", help="also print the procedure's facts")


def run(args: argparse.Namespace) -> int:
    if args.action == "score":
        return _score(args)
    return _check(args)


# ---------------------------------------------------------------------------------------------
# score


def _texts(path: str, keys: tuple[str, ...]) -> list[tuple[str, str | None, str | None]]:
    """(id, text, error) per record; a file that is not JSON is one record, its whole text."""
    data = read_bytes(path)
    if not data.lstrip().removeprefix(b"\xef\xbb\xbf").lstrip().startswith((b"{", b"[")):
        return [(Path(path).name, decode_text(data, path), None)]
    out: list[tuple[str, str | None, str | None]] = []
    for r in read_records(data, source=path):
        value = r.value
        rid = str(value.get("id", r.index)) if isinstance(value, dict) else str(r.index)
        found = next((value[k] for k in keys if isinstance(value, dict) and k in value), None)
        error = r.error
        if error is None and not isinstance(found, str):
            error = f"{path}: record {r.index}: no string under {' / '.join(keys)}"
        out.append((rid, found if isinstance(found, str) else None, error))
    return out


def _is_records(path: str) -> bool:
    """Whether ``path`` holds JSON (records), not a reply's plain text."""
    if path == "-":
        buffer = getattr(sys.stdin, "buffer", None)
        head = buffer.peek(4096) if buffer is not None and hasattr(buffer, "peek") else b"{"
    else:
        with Path(path).open("rb") as f:
            head = f.read(4096)
    return head.lstrip().removeprefix(b"\xef\xbb\xbf").lstrip().startswith((b"{", b"["))


class _Scorer:
    """``protocol score``'s work on one predicted reply against its gold (one per process)."""

    def __init__(self, options: dict[str, Any]) -> None:
        from peirce.evaluators.score import ScoreConfig

        self.config = ScoreConfig(**options["config"])
        self.golds: list[tuple[str, str | None, str | None]] = options["golds"]
        self.many = bool(options.get("many", True))

    def __call__(self, value: Any, index: int, rid: str, *, text: bool) -> Outcome:
        from peirce import serde
        from peirce.evaluators.score import score

        found = next((value[k] for k in _PRED_KEYS if isinstance(value, dict) and k in value), None)
        if not isinstance(found, str):
            raise InputError(f"no string under {' / '.join(_PRED_KEYS)}")
        if len(self.golds) == 1:
            _gid, gold, gold_error = self.golds[0]
        elif index <= len(self.golds):
            _gid, gold, gold_error = self.golds[index - 1]
        else:
            raise InputError(f"no gold record {index}: the gold file holds {len(self.golds)}")
        if gold_error is not None or gold is None:
            raise InputError(f"its gold cannot be used: {gold_error}")
        result = score(found, gold, self.config)
        fields: dict[str, Any] = {**result.to_dict()}
        fields["diagnostics"] = [serde.to_json_obj(d) for d in result.diagnostics]
        passed = result.format_gate.passed, result.consistency_gate.passed
        fields["verdict"] = (
            "passed" if all(passed) else "format_gate_failed" if not passed[0] else "gate_failed"
        )
        shown = None
        if text:
            shown = (f"== {rid}\n" if self.many else "") + render_score(result, found)
        return Outcome(fields, shown)

    def stats(self) -> dict[str, Any]:
        return {}

    def close(self) -> None:
        return None


def processor(options: dict[str, Any]) -> _Scorer:
    return _Scorer(options)


def _score(args: argparse.Namespace) -> int:
    config = {
        "tau": args.tau,
        "length_limit": args.length_limit,
        "verbosity": args.verbosity,
        "order_mode": args.order_mode,
    }
    if _is_records(args.pred):  # a batch of replies: the batch runner
        golds = _texts(args.gold, _GOLD_KEYS)
        args.file = args.pred
        job = Job(
            command="protocol score",
            factory="peirce.commands.protocol:processor",
            options={"config": config, "golds": golds},
            source="<stdin>" if args.pred == "-" else args.pred,
            error_text="{id}: cannot score: {error}",
            text=not args.json and not args.output,
        )
        status, _summary = run_batch(job, args, json_lines=args.json)
        return status
    if batch_requested(args):
        raise ConfigError("the batch options need JSON or JSONL records of replies")
    return _score_one(args, config)


def _score_one(args: argparse.Namespace, options: dict[str, Any]) -> int:
    """One reply in a text file, scored against the gold (the command's first form)."""
    from peirce.evaluators.score import ScoreConfig, score

    config = ScoreConfig(**options)
    preds = _texts(args.pred, _PRED_KEYS)
    golds = _texts(args.gold, _GOLD_KEYS)
    if len(golds) not in (1, len(preds)):
        raise InputError(f"{len(preds)} predictions but {len(golds)} gold records")
    failures = 0
    for k, (rid, pred, pred_error) in enumerate(preds):
        _gid, gold, gold_error = golds[0] if len(golds) == 1 else golds[k]
        error = pred_error or gold_error
        if error is None and pred is not None and gold is not None:
            try:
                result = score(pred, gold, config)
            except PeirceError as exc:
                error = f"{rid}: {exc}"
            else:
                _emit(rid, result, pred, as_json=args.json, many=len(preds) > 1)
                continue
        failures += 1
        if args.json:
            print(json.dumps({"id": rid, "error": error}, ensure_ascii=False))
        else:
            print(f"{rid}: cannot score: {error}", file=sys.stderr)
    return 1 if failures else 0


def _emit(rid: str, result: ScoreResult, text: str, *, as_json: bool, many: bool) -> None:
    from peirce import serde

    if as_json:
        out = {"id": rid, **result.to_dict()}
        out["diagnostics"] = [serde.to_json_obj(d) for d in result.diagnostics]
        print(json.dumps(out, ensure_ascii=False))
        return
    if many:
        print(f"== {rid}")
    print(render_score(result, text))


def render_score(result: ScoreResult, text: str | None = None) -> str:
    """Every component of a :class:`~peirce.evaluators.score.ScoreResult`, one per line."""
    c = result.components
    gate = result.consistency_gate
    lines = [
        f"SCORE {result.score:.4f}   (paper scale {result.score_raw:.4f} of 2.5)",
        f"  format gate        {'passed' if result.format_gate.passed else 'FAILED'}",
        f"  consistency gate   {'passed' if gate.passed else 'FAILED'}"
        + (f"   coverage {' '.join(f'{x:.2f}' for x in gate.coverage)}" if gate.coverage else ""),
    ]
    if result.reason:
        lines.append(f"  why 0              {result.reason}")
    lines += [
        f"  step scale         r_scale {c.r_scale:.4f}   N_pred {c.n_pred}, N_gold {c.n_gold}, "
        f"f(d) {c.f_count:.4f}, g(L) {c.g_length:.4f}, words per step {c.mean_words:.1f}",
        f"  Step-M             {c.step_m:.0f}",
        f"  order strict       {c.order_strict:.0f}",
        f"  Order-S            {c.order_s:.0f}",
        f"  Order-LCS          {c.order_lcs:.4f} (L/m)   {c.order_lcs_sym:.4f} (2L/(n+m))",
        f"  Order-Tau          {c.order_tau:.4f}",
        f"  action anchors     {' '.join(f'({i},{j})' for i, j in c.anchors) or 'none'}",
        f"  Semantic-A         {c.semantic_a:.4f}   (raw {c.semantic_a_raw:.4f} of 1.5)",
        f"  r_semantics        {c.r_semantics:.4f}   (raw {c.r_semantics_raw:.4f} of 2.5)",
    ]
    for d in result.diagnostics:
        lines.append("  " + d.render(text).replace("\n", "\n  "))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# check


def _sequence(path: str) -> list[str]:
    text = read_text(path)
    if text.lstrip().startswith(("[", "{")):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            msg = f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
            raise InputError(msg, source=path) from None
        if isinstance(value, dict):
            value = value.get("sequence")
        if not isinstance(value, list) or not all(isinstance(v, (str, int)) for v in value):
            raise InputError("expected a list of step ids or texts", source=path)
        return [str(v) for v in value]
    return [line.strip() for line in text.splitlines() if line.strip()]


def _check(args: argparse.Namespace) -> int:
    from peirce.engine.procedure import check_sequence
    from peirce.translators.procedure_graph import load_graph, resolve_steps

    procedure = load_graph(args.graph)
    if args.without:
        procedure = procedure.without_objects(*args.without)
    steps = resolve_steps(procedure, _sequence(args.sequence))
    result = check_sequence(procedure, steps, complete=not args.partial)
    if args.json:
        from peirce import serde

        out = serde.to_json_obj(result)
        if args.facts:
            out["facts"] = procedure.facts()
        print(json.dumps(out, ensure_ascii=False))
        return 0 if result.ok else 1
    if args.facts:
        print("\n".join(procedure.facts()))
    print(f"{procedure.name}: {len(steps)} steps checked, {len(result.violations)} violations")
    for v in result.violations:
        print(f"  {v.kind.value:<12} {v.message}")
    return 0 if result.ok else 1
