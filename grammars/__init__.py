"""Lark grammars (package data), read with importlib.resources."""
