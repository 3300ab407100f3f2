"""Prompt templates and schema checks of the LLM client: the pieces that need no network.

- :class:`Prompt` / :func:`load_prompt`: versioned templates in ``peirce/llm/prompts/*.txt``. A
  file starts with ``# key: value`` header lines (``version`` is required), then a ``[system]``
  and a ``[user]`` section with ``$name`` placeholders.
- :func:`schema_errors`: a reply, read with :mod:`json` (never evaluated), checked against a small
  JSON-Schema subset.

>>> schema = {"type": "object", "required": ["answer"],
...           "properties": {"answer": {"enum": ["YES", "NO"]}}}
>>> schema_errors({"answer": "MAYBE"}, schema)
["$.answer: got 'MAYBE', expected one of 'YES', 'NO'"]
>>> load_prompt("entail_judge_binary").name
'entail_judge_binary'
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from peirce.errors import ConfigError
from peirce.jsontypes import JSON, JSONObject

__all__ = ["Prompt", "load_prompt", "schema_errors"]


# ------------------------------------------------------------------------------------ prompts
@dataclass(frozen=True, slots=True)
class Prompt:
    """A versioned prompt template: a system part and a user part with ``$name`` placeholders."""

    name: str
    version: str
    system: str
    user: str
    meta: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, name: str, text: str) -> Prompt:
        """Read a template file's text.

        >>> p = Prompt.parse("t", "# version: 3\\n[system]\\nBe brief.\\n[user]\\nIs $x true?\\n")
        >>> p.version, p.messages(x="it")[1]["content"]
        ('3', 'Is it true?')
        """
        meta: dict[str, str] = {}
        lines = text.splitlines()
        i = 0
        while i < len(lines) and (lines[i].startswith("#") or not lines[i].strip()):
            key, sep, value = lines[i].lstrip("#").partition(":")
            if sep:
                meta[key.strip().lower()] = value.strip()
            i += 1
        sections: dict[str, list[str]] = {"system": [], "user": []}
        current: list[str] | None = None
        for line in lines[i:]:
            tag = line.strip().lower()
            if tag in ("[system]", "[user]"):
                current = sections[tag[1:-1]]
            elif current is not None:
                current.append(line)
        if "version" not in meta:
            raise ConfigError(f"prompt template {name!r} has no '# version: ...' header")
        if not sections["user"]:
            raise ConfigError(f"prompt template {name!r} has no [user] section")
        return cls(
            name,
            meta["version"],
            "\n".join(sections["system"]).strip(),
            "\n".join(sections["user"]).strip(),
            meta,
        )

    def messages(self, **values: str) -> list[dict[str, str]]:
        """Chat messages with the placeholders filled in (values are plain text, never code)."""
        try:
            user = string.Template(self.user).substitute(values)
            system = string.Template(self.system).substitute(values)
        except KeyError as exc:
            raise ConfigError(f"prompt {self.name!r} needs a value for {exc.args[0]!r}") from None
        out = [{"role": "system", "content": system}] if system else []
        out.append({"role": "user", "content": user})
        return out


def load_prompt(name: str) -> Prompt:
    """The template ``peirce/llm/prompts/<name>.txt`` (package data)."""
    from importlib import resources

    path = resources.files("peirce.llm.prompts").joinpath(f"{name}.txt")
    if not path.is_file():
        raise ConfigError(f"no prompt template named {name!r}")
    return Prompt.parse(name, path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------- JSON outputs
def _is_number(v: JSON) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_TYPES: dict[str, Callable[[JSON], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _int(schema: Mapping[str, JSON], key: str, default: int) -> int:
    """An integer keyword (``minItems``, ``maxLength``, ...) of the schema."""
    value = schema.get(key, default)
    if not isinstance(value, int):
        raise ConfigError(f"the schema's {key!r} must be an integer, got {value!r}")
    return value


def _number(schema: Mapping[str, JSON], key: str) -> float:
    value = schema[key]
    if not isinstance(value, (int, float)):
        raise ConfigError(f"the schema's {key!r} must be a number, got {value!r}")
    return value


def _list(schema: Mapping[str, JSON], key: str) -> list[JSON]:
    value = schema[key]
    if not isinstance(value, list):
        raise ConfigError(f"the schema's {key!r} must be a list, got {value!r}")
    return value


def _schema(value: JSON, where: str) -> Mapping[str, JSON]:
    if not isinstance(value, dict):
        raise ConfigError(f"the schema's {where} must be an object, got {value!r}")
    return value


def schema_errors(value: JSON, schema: Mapping[str, JSON], path: str = "$") -> list[str]:
    """What is wrong with ``value`` under a JSON-Schema subset; ``[]`` when it fits.

    Supported keywords: type, enum, const, properties, required, additionalProperties, items,
    minItems, maxItems, minLength, maxLength, pattern, minimum, maximum, anyOf. A schema that
    misuses one of them raises :class:`~peirce.errors.ConfigError`.
    """
    kind = schema.get("type")
    if kind is not None:
        kinds = [kind] if isinstance(kind, str) else _list(schema, "type")
        if not any(_TYPES[str(k)](value) for k in kinds):
            return [f"{path}: expected {' or '.join(map(str, kinds))}, got {type(value).__name__}"]
    errors: list[str] = []
    if "enum" in schema and value not in _list(schema, "enum"):
        allowed = ", ".join(repr(v) for v in _list(schema, "enum"))
        errors.append(f"{path}: got {value!r}, expected one of {allowed}")
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: got {value!r}, expected {schema['const']!r}")
    if "anyOf" in schema and all(
        schema_errors(value, _schema(s, "'anyOf' alternatives"), path)
        for s in _list(schema, "anyOf")
    ):
        errors.append(f"{path}: fits none of the alternatives")
    if isinstance(value, dict):
        errors += _object_errors(value, schema, path)
    elif isinstance(value, list):
        if len(value) < _int(schema, "minItems", 0):
            errors.append(f"{path}: expected at least {schema['minItems']} items")
        if "maxItems" in schema and len(value) > _int(schema, "maxItems", 0):
            errors.append(f"{path}: expected at most {schema['maxItems']} items")
        if "items" in schema:
            items = _schema(schema["items"], "'items'")
            for i, item in enumerate(value):
                errors += schema_errors(item, items, f"{path}[{i}]")
    elif isinstance(value, str):
        if len(value) < _int(schema, "minLength", 0):
            errors.append(f"{path}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > _int(schema, "maxLength", 0):
            errors.append(f"{path}: longer than {schema['maxLength']} characters")
        if "pattern" in schema and not re.search(str(schema["pattern"]), value):
            errors.append(f"{path}: does not match {schema['pattern']!r}")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < _number(schema, "minimum"):
            errors.append(f"{path}: below the minimum {schema['minimum']}")
        if "maximum" in schema and value > _number(schema, "maximum"):
            errors.append(f"{path}: above the maximum {schema['maximum']}")
    return errors


def _object_errors(value: JSONObject, schema: Mapping[str, JSON], path: str) -> list[str]:
    errors = [
        f"{path}: missing {k!r}" for k in _list_or_empty(schema, "required") if k not in value
    ]
    props = _schema(schema.get("properties", {}), "'properties'")
    extra = schema.get("additionalProperties", True)
    for k, v in value.items():
        if k in props:
            errors += schema_errors(v, _schema(props[k], f"property {k!r}"), f"{path}.{k}")
        elif extra is False:
            errors.append(f"{path}: unexpected key {k!r}")
        elif isinstance(extra, Mapping):
            errors += schema_errors(v, extra, f"{path}.{k}")
    return errors


def _list_or_empty(schema: Mapping[str, JSON], key: str) -> list[JSON]:
    return _list(schema, key) if key in schema else []
