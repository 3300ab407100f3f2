"""The symbolic core: structure checks, Prolog, Z3, OWL/RDF, entailment and ARES.

Backends are imported lazily; importing this package starts no solver.
"""
