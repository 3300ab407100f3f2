"""The server's default bounds, kept apart so that the command line reads them without loading
the gate."""

from __future__ import annotations

__all__ = ["MAX_MEMORY_MB", "MAX_REQUESTS"]

#: Requests a worker process serves before it is replaced, and the resident memory (MiB) past
#: which it is replaced after a request: a worker's memory grows with the vocabularies its
#: knowledge bases bring (about 1 MiB a request with new names), as the batch runner's do.
MAX_REQUESTS = 200
MAX_MEMORY_MB = 512
