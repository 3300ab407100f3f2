"""Translators from text (controlled English, DOT, protocols, answers) to the IR."""
