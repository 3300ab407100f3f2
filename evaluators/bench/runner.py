"""What a benchmark is: declared options, then load -> run -> summarise.

A benchmark declares its options (:class:`Option`: a flag, a type, a default, a help text) and
three steps:

- :meth:`Benchmark.load` reads the items named by the settings (the ``--data`` path) or generates
  them (the synthetic benchmarks);
- :meth:`Benchmark.run` processes them, in batches where the pipeline answers in batches, and times
  what it measures;
- :meth:`Benchmark.summarise` turns the results into a :class:`Summary`: lines for a person and one
  object of figures, written as the last line of standard output (:meth:`Summary.json_line`).

Nothing here reads a command line or prints: ``peirce bench`` builds its options from
:attr:`Benchmark.options`, runs the three steps with :func:`execute` and prints the summary.

>>> opts = (Option("--limit", int, help="only the first N items"),
...         Option("--verbose", action="store_true"))
>>> s = Settings.of(opts, limit=3)
>>> s.maybe_integer("limit"), s.flag("verbose")
(3, False)
>>> Summary(("1 item",), {"n": 1, "name": "é"}).json_line()
'{"n": 1, "name": "\\\\u00e9"}'
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Generic, Literal, TypeVar

from peirce.errors import ConfigError

__all__ = ["Benchmark", "Option", "Settings", "Summary", "Value", "execute"]

ItemsT = TypeVar("ItemsT")
ResultsT = TypeVar("ResultsT")

#: A value an option may hold.
Value = str | int | float | bool | Path | None


@dataclass(frozen=True, slots=True)
class Option:
    """One option of a benchmark.

    Attributes:
        flag: the option as written on the command line (``--per-recipe``); its setting is named
            after it (:attr:`name`: ``per_recipe``).
        type: how the text given is read (``str``, ``int``, ``float``, ``Path``).
        default: the value when the option is not given.
        help: one line for ``--help``.
        required: the option must be given.
        choices: the values allowed (empty: any).
        action: ``"store"`` (the option takes a value) or ``"store_true"`` (it takes none and
            is True when given).
        metavar: the value's name in ``--help``.
        minimum: the smallest value allowed, for a number (``None``: any); ``peirce bench``
            refuses a smaller one with a clear error, as :meth:`Settings.of` does.
    """

    flag: str
    type: Callable[[str], Value] = str
    default: Value = field(default=None, kw_only=True)
    help: str = field(default="", kw_only=True)
    required: bool = field(default=False, kw_only=True)
    choices: tuple[str, ...] = field(default=(), kw_only=True)
    action: Literal["store", "store_true"] = field(default="store", kw_only=True)
    metavar: str | None = field(default=None, kw_only=True)
    minimum: int | float | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        if not self.flag.startswith("--") or len(self.flag) < 3:
            raise ConfigError(f"an option is written --name, got {self.flag!r}")
        if self.action not in ("store", "store_true"):
            raise ConfigError(f"action: got {self.action!r}, expected 'store' or 'store_true'")

    @property
    def name(self) -> str:
        """The setting's name: the flag without its dashes, ``-`` read as ``_``."""
        return self.flag[2:].replace("-", "_")

    def check(self, value: Value) -> Value:
        """``value``, or :class:`~peirce.errors.ConfigError` when it is below :attr:`minimum`.

        >>> Option("--limit", int, minimum=1).check(0)
        Traceback (most recent call last):
          ...
        peirce.errors.ConfigError: --limit: expected at least 1, got 0
        """
        low = self.minimum
        if (
            low is not None
            and isinstance(value, (int, float))
            and not isinstance(value, bool)
            and value < low
        ):
            raise ConfigError(f"{self.flag}: expected at least {low}, got {value!r}")
        return value

    @property
    def initial(self) -> Value:
        """The value when the option is not given (False for a ``store_true`` option)."""
        return False if self.action == "store_true" else self.default


class Settings(Mapping[str, Value]):
    """The values of a benchmark's options, read with typed accessors.

    An accessor raises :class:`~peirce.errors.ConfigError` for an unknown name or a value of
    another type, so a benchmark never guesses what it was given.
    """

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Value]) -> None:
        self._values = dict(values)

    @classmethod
    def of(cls, options: tuple[Option, ...], **values: Value) -> Settings:
        """The options' defaults, with ``values`` instead where given (for callers in code)."""
        names = {o.name for o in options}
        unknown = sorted(set(values) - names)
        if unknown:
            raise ConfigError(f"unknown setting(s) {unknown}, expected some of {sorted(names)}")
        return cls({o.name: o.check(values.get(o.name, o.initial)) for o in options})

    def __getitem__(self, name: str) -> Value:
        try:
            return self._values[name]
        except KeyError:
            raise ConfigError(f"no setting {name!r}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Settings({self._values!r})"

    def _wrong(self, name: str, expected: str) -> ConfigError:
        return ConfigError(f"setting {name!r} must be {expected}, got {self[name]!r}")

    def text(self, name: str) -> str:
        value = self[name]
        if not isinstance(value, str):
            raise self._wrong(name, "a string")
        return value

    def maybe_text(self, name: str) -> str | None:
        return None if self[name] is None else self.text(name)

    def integer(self, name: str) -> int:
        value = self[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong(name, "an integer")
        return value

    def maybe_integer(self, name: str) -> int | None:
        return None if self[name] is None else self.integer(name)

    def number(self, name: str) -> float:
        value = self[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self._wrong(name, "a number")
        return value

    def flag(self, name: str) -> bool:
        value = self[name]
        if not isinstance(value, bool):
            raise self._wrong(name, "True or False")
        return value

    def path(self, name: str) -> Path:
        value = self[name]
        if isinstance(value, str):
            return Path(value)
        if not isinstance(value, Path):
            raise self._wrong(name, "a path")
        return value

    def maybe_path(self, name: str) -> Path | None:
        return None if self[name] is None else self.path(name)


@dataclass(frozen=True, slots=True)
class Summary:
    """What a benchmark reports: lines for a person, then one object of figures.

    Attributes:
        lines: the human summary, one line each.
        figures: the figures (JSON-serialisable: numbers, strings, lists, objects, None).
        ensure_ascii: escape non-ASCII characters in :meth:`json_line` (as :func:`json.dumps`).
    """

    lines: tuple[str, ...]
    figures: Mapping[str, object]
    ensure_ascii: bool = True

    def json_line(self) -> str:
        """The figures as one line of JSON, keys sorted."""
        return json.dumps(self.figures, sort_keys=True, ensure_ascii=self.ensure_ascii)


class Benchmark(ABC, Generic[ItemsT, ResultsT]):
    """A benchmark: its name, its options and the three steps (see the module docstring)."""

    #: the name ``peirce bench`` knows it by
    name: ClassVar[str]
    #: its options, in the order ``--help`` lists them
    options: ClassVar[tuple[Option, ...]]

    @abstractmethod
    def load(self, settings: Settings) -> ItemsT:
        """The items to run on, read from the data the settings name (or generated)."""

    @abstractmethod
    def run(self, items: ItemsT, settings: Settings) -> ResultsT:
        """Process the items (timing what the benchmark measures)."""

    @abstractmethod
    def summarise(self, results: ResultsT, settings: Settings) -> Summary:
        """The human lines and the figures of the results."""

    def settings(self, **values: Value) -> Settings:
        """This benchmark's defaults, with ``values`` instead where given."""
        return Settings.of(self.options, **values)


def execute(benchmark: Benchmark[ItemsT, ResultsT], settings: Settings) -> Summary:
    """Load, run and summarise ``benchmark`` with ``settings``."""
    items = benchmark.load(settings)
    results = benchmark.run(items, settings)
    return benchmark.summarise(results, settings)
