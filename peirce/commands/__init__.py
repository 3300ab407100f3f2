"""Subcommands of the ``peirce`` command line, one module each."""
