"""The HTTP face: ``peirce serve``, the verify-before-display gate over HTTP.

See ARCHITECTURE.md.
"""
