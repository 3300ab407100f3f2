"""The HTML report of a batch run: ``peirce report`` (see ARCHITECTURE.md)."""
