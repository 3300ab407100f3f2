"""What the ARES benchmarks (ClaimTrees, CaptainCookRecipes) share: options, judges, evaluation."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from peirce.evaluators.ares_data import LabelledChain, Truth
from peirce.evaluators.bench.runner import Option, Settings
from peirce.logic import Clause

if TYPE_CHECKING:
    from peirce.evaluators.ares_detection import MethodRun
    from peirce.llm import LLMClient
    from peirce.protocols import EntailmentModel

__all__ = ["ARES_OPTIONS", "AresSettings", "judge_setup"]

#: Options shared by the ARES benchmarks.
ARES_OPTIONS: tuple[Option, ...] = (
    Option("--judge", choices=("cascade", "symbolic", "llm"), default="cascade"),
    Option("--method", choices=("ares", "entail-prev", "entail-base", "llm-judge"), default="ares"),
    Option("--mode", choices=("likert", "binary"), default="likert"),
    Option(
        "--endpoint",
        choices=("loopback", "env"),
        default="loopback",
        help="where --judge llm asks: a simulated judge, or OPENAI_BASE_URL",
    ),
    Option("--noise", float, default=0.0, help="simulated judge: unsure share"),
    Option("--epsilon", float, default=0.1),
    Option("--delta", float, default=0.1),
    Option("--prior", float, default=1.0, help="prior of each base claim"),
    Option("--folds", int, default=5),
    Option("--workers", int, default=8, help="concurrent LLM calls"),
    Option("--cache", help="LLM reply cache (SQLite file)"),
)


@dataclass(frozen=True, slots=True)
class AresSettings:
    """The ARES options of a benchmark's settings, read once."""

    judge: str
    method: str
    mode: str
    endpoint: str
    noise: float
    epsilon: float
    delta: float
    prior: float
    folds: int
    workers: int
    cache: str | None
    seed: int

    @classmethod
    def of(cls, settings: Settings) -> AresSettings:
        return cls(
            settings.text("judge"),
            settings.text("method"),
            settings.text("mode"),
            settings.text("endpoint"),
            settings.number("noise"),
            settings.number("epsilon"),
            settings.number("delta"),
            settings.number("prior"),
            settings.integer("folds"),
            settings.integer("workers"),
            settings.maybe_text("cache"),
            settings.integer("seed"),
        )

    @property
    def ares_workers(self) -> int:
        """Worker threads for ARES: several only for an LLM judge."""
        return self.workers if self.judge == "llm" else 1

    def run_method(
        self,
        chains: Sequence[LabelledChain],
        model: EntailmentModel | None,
        client: LLMClient | None,
    ) -> MethodRun:
        """:func:`~peirce.evaluators.ares_detection.run_method` with these options."""
        from peirce.evaluators.ares_detection import run_method

        return run_method(
            chains,
            self.method,
            model=model,
            client=client,
            epsilon=self.epsilon,
            delta=self.delta,
            prior=self.prior,
            seed=self.seed,
            workers=self.ares_workers,
        )


@contextlib.contextmanager
def judge_setup(
    ares: AresSettings, truth: Truth, formal: dict[str, tuple[Clause, ...]] | None = None
) -> Iterator[tuple[EntailmentModel, LLMClient | None]]:
    """The entailment model and LLM client for ``ares`` (a loopback server runs meanwhile)."""
    from peirce.engine.entailment import Cascade
    from peirce.evaluators.ares_data import simulated_judge
    from peirce.llm import LLMClient
    from peirce.llm.judge import LLMJudge
    from peirce.llm.loopback import LoopbackServer
    from peirce.pipelines.entailment import symbolic as symbolic_entailment

    symbolic = symbolic_entailment(formal=formal)
    if ares.judge != "llm":
        yield (symbolic if ares.judge == "symbolic" else Cascade([symbolic])), None
        return
    cache: str | bool = ares.cache if ares.cache else False
    with contextlib.ExitStack() as stack:
        if ares.endpoint == "env":
            client = stack.enter_context(LLMClient.from_env(cache=cache or True))
        else:
            oracle = simulated_judge(truth, mode=ares.mode, noise=ares.noise, seed=ares.seed)
            srv = stack.enter_context(LoopbackServer(oracle=oracle, model="simulated-judge"))
            client = stack.enter_context(
                LLMClient(
                    base_url=srv.base_url,
                    model="simulated-judge",
                    cache=cache,
                    concurrency=ares.workers,
                )
            )
        yield LLMJudge(client, mode=ares.mode), client
