"""The summary at the end of a batch: counts by verdict, failed records and why, LLM use, time."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Summary", "merge_stats"]

#: At most this many failed records are kept, with their reasons, in the summary.
MAX_FAILURES = 100
_LLM_KEYS = ("calls", "cache_hits", "requests", "failures", "unusable", "usage_rejected",
             "prompt_tokens", "completion_tokens")  # fmt: skip


def merge_stats(parts: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Counters of several processes added up (numbers summed, mappings merged key by key).

    >>> merge_stats([{"llm": {"calls": 2}, "n": 1}, {"llm": {"calls": 3}}])
    {'llm': {'calls': 5}, 'n': 1}
    """
    out: dict[str, Any] = {}
    for part in parts:
        for key, value in part.items():
            if isinstance(value, Mapping):
                out[key] = merge_stats([out.get(key, {}), value])
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                out[key] = out.get(key, 0) + value
            else:
                out[key] = value
    return out


@dataclass
class Summary:
    """What a batch did; :meth:`as_json` is the ``--json`` summary, :meth:`text` the lines."""

    command: str
    source: str
    output: str | None = None
    workers: int = 1
    ray: str | None = None
    records: int = 0
    skipped: int = 0
    failed: int = 0
    by_verdict: Counter[str] = field(default_factory=Counter)
    failures: list[dict[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict)

    def add(self, rid: str, verdict: str, error: str | None) -> None:
        self.records += 1
        self.by_verdict[verdict] += 1
        if error is not None:
            self.failed += 1
            if len(self.failures) < MAX_FAILURES:
                self.failures.append({"id": rid, "error": error})

    @property
    def llm(self) -> dict[str, int]:
        got = self.stats.get("llm", {})
        return {k: int(got.get(k, 0)) for k in _LLM_KEYS}

    def as_json(self) -> dict[str, Any]:
        rate = self.records / self.seconds if self.seconds > 0 else 0.0
        extra = {k: v for k, v in self.stats.items() if k != "llm"}
        return {
            "command": self.command,
            "input": self.source,
            "output": self.output,
            "workers": self.workers,
            "ray": self.ray,
            "records": self.records,
            "skipped": self.skipped,
            "ok": self.records - self.failed,
            "failed": self.failed,
            "by_verdict": dict(sorted(self.by_verdict.items())),
            "failures": self.failures,
            "failures_shown": len(self.failures),
            "llm": self.llm,
            "seconds": round(self.seconds, 3),
            "records_per_second": round(rate, 2),
            **extra,
        }

    def text(self) -> list[str]:
        data = self.as_json()
        verdicts = ", ".join(f"{k} {v}" for k, v in data["by_verdict"].items()) or "none"
        where = f" -> {self.output}" if self.output else ""
        lines = [
            f"{self.command}: {self.records} record(s) from {self.source}{where} in "
            f"{data['seconds']:.1f} s ({data['records_per_second']:.1f}/s, "
            f"{self.workers} worker(s){', ray' if self.ray else ''})",
            f"  by verdict: {verdicts}",
        ]
        if self.skipped:
            lines.append(f"  skipped (already in the output): {self.skipped}")
        llm = data["llm"]
        if any(llm.values()):
            lines.append(
                f"  LLM: {llm['calls']} call(s), {llm['cache_hits']} cache hit(s), "
                f"{llm['prompt_tokens'] + llm['completion_tokens']} token(s), "
                f"{llm['failures']} failure(s)"
                + (f", {llm['unusable']} answered with nothing usable" if llm["unusable"] else "")
                + (
                    f", {llm['usage_rejected']} token count(s) not believed"
                    if llm["usage_rejected"]
                    else ""
                )
            )
        if self.failed:
            lines.append(f"  failed: {self.failed}")
            for f in self.failures[:20]:
                first = f["error"].splitlines()[0] if f["error"] else ""
                lines.append(f"    {f['id']}: {first}")
            if self.failed > 20:
                lines.append(f"    ... and {self.failed - 20} more (--json lists {MAX_FAILURES})")
        return lines

    def dumps(self) -> str:
        return json.dumps(self.as_json(), ensure_ascii=False)
