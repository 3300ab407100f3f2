"""The fuzzers of untrusted text (``make fuzz`` runs them long; their shared pieces are
``tests.helpers.fuzz``)."""
