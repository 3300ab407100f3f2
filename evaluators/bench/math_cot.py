"""Free-text chains of thought on math word problems, checked offline and against a program.

Data: Faithful-CoT's recorded outputs as JSONL (one file per dataset, or a folder of them): per
item ``question``, ``gold``, ``dataset`` and, per model, a free-text chain (``cot``:
``completion`` and the ``answer`` recorded for it) and the translator's NL+SL program
(``nl_sl``). Each chain is checked:

- offline (:func:`peirce.pipelines.math_chain.check_chain_offline`): arithmetic and grounding;
- against the program (:func:`peirce.pipelines.math_translate.verify_chain`): the program comes
  from the LLM translator, which here is the project's loopback OpenAI-compatible server
  answering the ``math_program`` prompt with the program the translator model recorded for the
  same question, so the whole path (prompt, HTTP, reply, safe run, vote) runs on what the models
  really wrote. ``--translators`` names the translator models in order (default ``self``: the
  model that wrote the chain); the first's program checks the chain, the others' corroborate it
  (a chain is verified only when every translator's program that ran gives its answer), as a
  gate configured with a translator model distinct from the answering model, or with a second
  translator, does;
- by the gate (:func:`peirce.pipelines.gate.math_decision`): shown when verified.

A chain is right when its recorded answer equals the gold answer
(:func:`peirce.pipelines.math_program.answers_equal`: numbers as numbers, AQuA by option letter,
dates as MM/DD/YYYY); every chain of the file is counted. Figures per dataset and model:
``wrong_chain_recall`` (wrong chains flagged), ``right_chain_pass_rate`` (right chains not
flagged), ``wrong_chain_step_located_rate`` (of the wrong chains flagged, those whose first flag
is at a reasoning step, not only at the answer), ``offline_wrong_chain_recall``, ``shown_rate``
and ``wrong_shown_rate`` (what the gate displays, and the share of it that is wrong), and
``llm_calls``.

References:
    Lyu et al., "Faithful Chain-of-Thought Reasoning", IJCNLP-AACL 2023.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from peirce.errors import InputError
from peirce.evaluators.bench.common import load_items, text_field
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.jsontypes import JSONObject
from peirce.llm import LLMClient, LoopbackServer
from peirce.pipelines.gate import math_decision
from peirce.pipelines.math_chain import chain_answer, check_chain_offline
from peirce.pipelines.math_program import answers_equal
from peirce.pipelines.math_translate import verify_chain

__all__ = ["BENCHMARK", "MathCot"]

MODELS = ("gpt-4", "gpt-3.5-turbo", "code-davinci-002")
#: the datasets whose chains are math or dates
DATASETS = ("GSM8K", "SVAMP", "MultiArith", "ASDiv", "AQUA", "date")
#: the sets the targets pool (all but MultiArith)
_POOLED = frozenset(d.lower() for d in DATASETS if d != "MultiArith")
#: the translator that is the model which wrote the chain
SELF = "self"
_EXPECTED = "an object with 'question', 'gold', 'dataset' and 'outputs' per model (cot, nl_sl)"


@dataclass(frozen=True, slots=True)
class Item:
    id: str
    dataset: str
    question: str
    gold: str
    outputs: JSONObject

    @classmethod
    def from_record(cls, rec: JSONObject) -> Item:
        outputs = rec.get("outputs")
        if not isinstance(outputs, dict):
            raise InputError("'outputs' must be an object (model -> cot, nl_sl)")
        dataset = text_field(rec, "dataset")
        if dataset.lower() not in {d.lower() for d in DATASETS}:
            raise InputError(f"dataset: got {dataset!r}, expected one of {list(DATASETS)}")
        gold = rec.get("gold")
        if gold is None:
            raise InputError("'gold' is missing")
        return cls(
            str(rec.get("id", "?")), dataset, text_field(rec, "question"), str(gold), outputs
        )

    def output(self, model: str, kind: str) -> tuple[str, str | None] | None:
        """The model's ``cot`` or ``nl_sl``: its completion and recorded answer."""
        out = self.outputs.get(model)
        part = out.get(kind) if isinstance(out, dict) else None
        if not isinstance(part, dict) or not isinstance(part.get("completion"), str):
            return None
        answer = part.get("answer")
        return str(part["completion"]), None if answer is None else str(answer)


@dataclass(frozen=True, slots=True)
class Outcome:
    dataset: str
    model: str
    right: bool
    flagged: bool
    located: bool
    offline_flagged: bool
    shown: bool
    calls: int


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.glob("*.jsonl") if p.stem.split("_")[0] in DATASETS)
    return [path]


class _Programs:
    """The loopback translator's oracle: the recorded program of the model asked, for the
    question in the prompt."""

    def __init__(self) -> None:
        self.by_question: dict[tuple[str, str], str] = {}

    def __call__(self, messages: list[JSONObject], params: JSONObject) -> str:
        prompt = str(messages[-1].get("content", ""))
        question = prompt.split("PROBLEM:\n", 1)[-1].strip()
        return self.by_question.get((str(params.get("model")), question), "")


class MathCot(Benchmark[list[Item], list[Outcome]]):
    """Free-text math chains checked offline and against the replayed program."""

    name = "math-cot"
    options = (
        Option("--data", Path, required=True, help="Faithful-CoT JSONL file, or a folder"),
        Option("--model", choices=MODELS, help="only this model's chains"),
        Option("--limit", int, minimum=1, help="only the first N items of each file"),
        Option(
            "--translators", default=SELF, metavar="MODEL[,MODEL]",
            help="the translator models whose recorded programs the loopback serves, in order "
            f"(the first checks the chain, the others corroborate it); {SELF!r}: the model "
            "that wrote the chain",
        ),
    )  # fmt: skip

    def load(self, settings: Settings) -> list[Item]:
        items: list[Item] = []
        path = Path(str(settings["data"]))
        files = _files(path)
        if not files:
            raise InputError(f"{path}: no Faithful-CoT JSONL of {list(DATASETS)}")
        for file in files:
            items += load_items(
                file, Item.from_record, expected=_EXPECTED, limit=settings.maybe_integer("limit")
            )
        return items

    def run(self, items: list[Item], settings: Settings) -> list[Outcome]:
        only = settings.maybe_text("model")
        models = (only,) if only else MODELS
        translators = _translators(settings.text("translators"))
        programs = _Programs()
        for item in items:
            for model in MODELS:
                program = item.output(model, "nl_sl")
                if program is not None:
                    programs.by_question[(model, item.question.strip())] = program[0]
        out: list[Outcome] = []
        with LoopbackServer(oracle=programs) as srv, ExitStack() as stack:
            clients = {
                m: stack.enter_context(
                    LLMClient(
                        base_url=srv.base_url, api_key="loopback", model=m, cache=False,
                        json_mode=False, max_retries=0,
                    )
                )
                for m in MODELS
            }  # fmt: skip
            for model in models:
                asked = [clients[model if t == SELF else t] for t in translators]
                out += [o for item in items if (o := self._one(item, model, asked))]
        return out

    def _one(self, item: Item, model: str, translators: list[LLMClient]) -> Outcome | None:
        cot = item.output(model, "cot")
        if cot is None:
            return None
        chain, recorded = cot
        read = chain_answer(recorded)
        right = read is not None and answers_equal(read, item.gold, dataset=item.dataset)
        offline = check_chain_offline(item.question, chain, recorded)
        first, *others = translators
        check, vote = verify_chain(
            first, item.question, chain, recorded, dataset=item.dataset, samples=1, others=others
        )
        calls = vote.calls if vote is not None else 0
        shown = math_decision(check, chain).shown
        return Outcome(
            item.dataset, model, right, check.flagged, check.located_at_step, offline.flagged,
            shown, calls,
        )  # fmt: skip

    def summarise(self, results: list[Outcome], settings: Settings) -> Summary:
        groups: dict[tuple[str, str], list[Outcome]] = {}
        for r in results:
            groups.setdefault((r.dataset, r.model), []).append(r)
        rows = [_row(d, m, rs) for (d, m), rs in sorted(groups.items())]
        translators = _translators(settings.text("translators"))
        by = ", then ".join("the chain's own model" if t == SELF else t for t in translators)
        lines = [f"Math chains checked against programs written by {by}, from {settings['data']}"]
        for row in rows:
            lines.append(
                f"  {row['dataset']:<10} {row['model']:<16} {row['chains']:>5} chains, "
                f"{row['wrong_chains']:>4} wrong: recall {row['wrong_chain_recall']:.3f} "
                f"(offline {row['offline_wrong_chain_recall']:.3f}), right pass "
                f"{row['right_chain_pass_rate']:.3f}, "
                f"located {row['wrong_chain_step_located_rate']:.3f}, "
                f"shown {row['shown_rate']:.3f} of which wrong {row['wrong_shown_rate']:.3f}"
            )
        pooled = []
        for model in sorted({r.model for r in results}):
            five = [r for r in results if r.model == model and r.dataset.lower() in _POOLED]
            if five:
                row = _row("+".join(d for d in DATASETS if d.lower() in _POOLED), model, five)
                pooled.append(row)
                lines.append(
                    f"  {model}, pooled over {row['dataset']}: {row['wrong_chains']} wrong, "
                    f"recall {row['wrong_chain_recall']:.3f}, "
                    f"right pass {row['right_chain_pass_rate']:.3f}, "
                    f"located {row['wrong_chain_step_located_rate']:.3f}, "
                    f"shown wrong {row['wrong_shown_rate']:.3f}"
                )
        calls = sum(r.calls for r in results)
        lines.append(f"  LLM calls (loopback translator): {calls}")
        summary = {"results": rows, "pooled": pooled, "llm_calls": calls}
        return Summary(tuple(lines), {**summary, "translators": translators})


def _translators(text: str) -> list[str]:
    """The translators named by ``--translators``: models, or ``self``."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    wrong = [t for t in names if t != SELF and t not in MODELS]
    if not names or wrong:
        raise InputError(
            f"--translators: got {text!r}", expected=f"a comma-separated list of {SELF!r} or "
            + ", ".join(MODELS)
        )  # fmt: skip
    return names


def _rate(n: int, d: int) -> float:
    return n / d if d else 0.0


def _row(dataset: str, model: str, rs: list[Outcome]) -> dict[str, object]:
    wrong = [r for r in rs if not r.right]
    right = [r for r in rs if r.right]
    flagged = [r for r in wrong if r.flagged]
    shown = [r for r in rs if r.shown]
    return {
        "dataset": dataset,
        "model": model,
        "chains": len(rs),
        "wrong_chains": len(wrong),
        "wrong_chain_recall": _rate(len(flagged), len(wrong)),
        "right_chain_pass_rate": _rate(sum(not r.flagged for r in right), len(right)),
        "wrong_chain_step_located_rate": _rate(sum(r.located for r in flagged), len(flagged)),
        "offline_wrong_chain_recall": _rate(sum(r.offline_flagged for r in wrong), len(wrong)),
        "shown_rate": _rate(len(shown), len(rs)),
        "wrong_shown_rate": _rate(sum(not r.right for r in shown), len(shown)),
        "llm_calls": sum(r.calls for r in rs),
    }


BENCHMARK = MathCot()
