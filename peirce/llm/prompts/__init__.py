"""Versioned prompt templates (package data)."""
