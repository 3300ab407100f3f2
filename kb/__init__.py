"""Prolog programs and vocabularies (package data), read with importlib.resources."""
