"""The published output schema of every batch command (JSON Schema, draft 2020-12), and a small
validator for the part of JSON Schema they use.

Every output line is an object that starts with the envelope (``schema_version``, ``command``,
``id``: always a string, ``index``: the record's place, ``verdict``, ``error``: ``null`` or why the
record failed, ``error_code``: ``null`` or the kind of failure, :func:`peirce.errors.error_code`),
then the command's own fields. ``peirce.batch.schemas.SCHEMAS[command]`` is the
schema; ``python -m peirce.batch.schemas DIR`` writes each as ``DIR/<command>.schema.json``.

>>> errors({"id": 1}, {"type": "object", "properties": {"id": {"type": "string"}}})
['$.id: expected string, got int']
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from peirce.batch.job import SCHEMA_VERSION

__all__ = ["SCHEMAS", "errors", "schema"]

_NUM = {"type": ["number", "null"]}
_STR = {"type": "string"}
_OPT_STR = {"type": ["string", "null"]}
_OBJ = {"type": "object"}
_ARR = {"type": "array"}

#: The fields every line starts with.
ENVELOPE: dict[str, Any] = {
    "schema_version": {"type": "string", "const": SCHEMA_VERSION},
    "command": _STR,
    "id": {
        "type": "string",
        "description": (
            "the record's own id (one starting with '#' gets another '#'), "
            "else '#' and its 1-based index"
        ),
    },
    "index": {"type": "integer", "minimum": 1, "description": "line (JSONL) or element number"},
    "verdict": {"type": "string", "description": "'error' when the record failed"},
    "error": _OPT_STR,
    "error_code": {
        "type": ["string", "null"],
        "description": (
            "the kind of failure: bad input's code (syntax, too-large, encoding, unsafe, ...), "
            "timeout, llm, config, capability, backend, worker-lost or internal"
        ),
    },
}
_LEGACY = {"description": "the id as the command wrote it before 1.0 (any type); use 'id'"}

#: command -> (its verdicts, its own fields, the fields present whenever it did not fail)
_COMMANDS: dict[str, tuple[list[str], dict[str, Any], list[str]]] = {
    "check": (
        ["valid", "inconsistent", "refuted", "unsupported", "propagated", "unknown"],
        {
            "record": _LEGACY,
            "report": {
                "type": "object",
                "required": ["steps"],
                "properties": {
                    "steps": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "required": ["index", "text", "status"],
                            "properties": {
                                "index": {"type": "integer"},
                                "text": _STR,
                                "status": {
                                    "enum": [
                                        "valid",
                                        "refuted",
                                        "unsupported",
                                        "propagated",
                                        "inconsistent",
                                        "unknown",
                                    ]
                                },
                                "reason": _OPT_STR,
                            },
                        },
                    },
                    "diagnostics": _ARR,
                },
            },
        },
        ["report"],
    ),
    "ares": (
        ["stable", "flagged", "unknown"],
        {
            "ares": {
                "type": "object",
                "required": ["claims"],
                "properties": {
                    "claims": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["index", "text", "tau", "flagged"],
                            "properties": {
                                "index": {"type": "integer"},
                                "text": _STR,
                                "tau": _NUM,
                                "flagged": {"type": ["boolean", "null"]},
                                "backend": _OPT_STR,
                            },
                        },
                    }
                },
            }
        },
        ["ares"],
    ),
    "logicscore": (
        ["connected", "broken", "circular", "deviated", "unknown"],
        {
            "record": _LEGACY,
            "question": _STR,
            "completeness": _NUM,
            "conciseness": _NUM,
            "determinateness": _NUM,
            "error_type": _STR,
            "chains": _ARR,
            "propositions": _ARR,
            "diagnostics": _ARR,
        },
        ["question", "completeness", "conciseness", "determinateness", "error_type"],
    ),
    "protocol score": (
        ["passed", "format_gate_failed", "gate_failed"],
        {
            "score": {"type": "number"},
            "score_raw": {"type": "number"},
            "format_gate": {"type": "boolean"},
            "consistency_gate": {"type": "boolean"},
            "reason": _OPT_STR,
            "coverage": _ARR,
            "diagnostics": _ARR,
        },
        ["score", "format_gate", "consistency_gate"],
    ),
    "rlt check": (
        ["valid", "invalid"],
        {
            "file": _STR,
            "graph": _OPT_STR,
            "structurally_valid": {"type": "boolean"},
            "root": _OPT_STR,
            "n_nodes": {"type": "integer"},
            "n_edges": {"type": "integer"},
            "steps": _ARR,
            "diagnostics": _ARR,
            "repair": {"type": ["object", "null"]},
            "grounding": {"type": ["object", "null"]},
            "svg": {"type": ["string", "null"], "description": "the drawing, with --draw"},
        },
        ["structurally_valid", "steps", "diagnostics"],
    ),
    "prove": (
        ["entailed", "refuted", "contingent", "inconsistent", "too_complex"],
        {
            "record": _LEGACY,
            "finding": {"type": ["object", "null"]},
            "label": _OPT_STR,
            "agrees": {"type": ["boolean", "null"]},
            "diagnostics": _ARR,
        },
        ["finding", "diagnostics"],
    ),
}


def schema(command: str) -> dict[str, Any]:
    """The JSON Schema of one output line of ``command``."""
    verdicts, fields, required = _COMMANDS[command]
    ok = {
        "if": {"properties": {"error": {"type": "null"}}},
        "then": {
            "required": required,
            "properties": {"verdict": {"enum": verdicts}},
        },
        "else": {"properties": {"verdict": {"const": "error"}, "error": _STR, "error_code": _STR}},
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://peirce.invalid/schemas/{command.replace(' ', '-')}.schema.json",
        "title": f"peirce {command}: one output line (JSONL)",
        "type": "object",
        "required": list(ENVELOPE),
        "properties": {**ENVELOPE, "command": {"const": command}, **fields},
        "allOf": [ok],
    }


#: command -> its schema.
SCHEMAS: dict[str, dict[str, Any]] = {name: schema(name) for name in _COMMANDS}

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def _is(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("integer", "number"):
        return False
    return isinstance(value, _TYPES[name])


def errors(value: Any, spec: dict[str, Any], where: str = "$") -> list[str]:
    """What in ``value`` breaks ``spec`` (the keywords the schemas above use), or ``[]``."""
    out: list[str] = []
    kinds = spec.get("type")
    if kinds is not None:
        names = [kinds] if isinstance(kinds, str) else list(kinds)
        if not any(_is(value, n) for n in names):
            return [f"{where}: expected {' or '.join(names)}, got {type(value).__name__}"]
    if "const" in spec and value != spec["const"]:
        out.append(f"{where}: expected {spec['const']!r}, got {value!r}")
    if "enum" in spec and value not in spec["enum"]:
        out.append(f"{where}: got {value!r}, expected one of {spec['enum']!r}")
    if "minimum" in spec and isinstance(value, (int, float)) and value < spec["minimum"]:
        out.append(f"{where}: {value} is below {spec['minimum']}")
    if isinstance(value, dict):
        for key in spec.get("required", []):
            if key not in value:
                out.append(f"{where}: missing {key!r}")
        for key, sub in spec.get("properties", {}).items():
            if key in value:
                out += errors(value[key], sub, f"{where}.{key}")
    if isinstance(value, list) and "items" in spec:
        for k, item in enumerate(value):
            out += errors(item, spec["items"], f"{where}[{k}]")
    for sub in spec.get("allOf", []):
        out += errors(value, sub, where)
    if "if" in spec:
        branch = "then" if not errors(value, spec["if"], where) else "else"
        out += errors(value, spec.get(branch, {}), where)
    return out


def main(argv: list[str]) -> int:
    """Write every schema into the folder ``argv[0]``."""
    folder = Path(argv[0] if argv else ".")
    folder.mkdir(parents=True, exist_ok=True)
    for name, spec in SCHEMAS.items():
        path = folder / f"{name.replace(' ', '-')}.schema.json"
        path.write_text(json.dumps(spec, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
