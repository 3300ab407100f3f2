"""What several test modules share, imported as ``from tests.helpers.serving import serving``.

``tests`` is a package and pytest imports test modules with ``--import-mode=importlib``, so this
works from any folder without putting the checkout on ``sys.path`` (where its ``peirce/`` folder
would stand in for the installed package); fixtures shared by every module are in
``tests/conftest.py``.

- ``conformance``: the run length, Hypothesis settings and counts of the conformance suites;
- ``fuzz``: the fuzzers' run length, limits, contract and strategies;
- ``ground``: generated Datalog programs and questions (the least model and its compiled core);
- ``hostile``: a scripted hostile upstream on loopback, for the gate's proxy;
- ``postgres``: a temporary PostgreSQL server and a fresh database per test;
- ``prolog_diff``: programs run through ``swipl`` and through peirce, answers compared;
- ``protocols``: generated Sketch-and-Fill protocols and damaged renderings of them;
- ``serving``: the gate's app under uvicorn on loopback, and a small knowledge base for it.
"""
