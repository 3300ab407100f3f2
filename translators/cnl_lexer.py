"""The lexer lark is given for the controlled English: the tokens come already made by
:func:`peirce.translators.cnl_tokens.tokenize` (a class at module level, so that lark can save the
parse tables that name it; see :mod:`peirce.translators.grammar_cache`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from lark import Token
from lark.lexer import Lexer

if TYPE_CHECKING:
    from lark.common import LexerConf

__all__ = ["GivenTokens"]


class GivenTokens(Lexer):
    """The tokens come already made by :func:`~peirce.translators.cnl_tokens.tokenize`."""

    def __init__(self, lexer_conf: LexerConf) -> None:
        pass

    # lark calls a custom lexer with the parse input alone (its "interface 0")
    def lex(self, data: list[Token]) -> Iterator[Token]:  # type: ignore[override]
        return iter(data)
