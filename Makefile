# Two commands do all the set-up on a fresh Debian machine with Python 3.11:
#   make demo   runs peirce on the bundled examples, offline
#   make test   runs lint, type checks, the whole test suite and a fast set against the built wheel
# Both install what they need (system packages when absent, a virtual environment, the package)
# and are fast when run again.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TESTSTAMP := $(VENV)/.installed-distributed
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test test-fast test-alone tree wheel-test lint layers typecheck pytest docs fuzz sanitize bench-load bench-batch bench-classic bench-replicas kill-trials system venv bench clean conformance-control

# The main job on the bundled examples, offline: chains checked step by step, questions answered
# with proofs, a knowledge base queried, ARES stability scores, an RLT validated, a procedure
# checked (this sequence breaks it, so that command exits 1), long-form answers scored.
demo: venv
	$(BIN)/peirce demo
	$(BIN)/peirce check examples/chains.jsonl
	$(BIN)/peirce ares examples/claims.json
	$(BIN)/peirce rlt check examples/rlt_better.dot
	$(BIN)/peirce protocol check examples/pancake_late_heat.json --graph examples/pancakes.json; test $$? -eq 1
	$(BIN)/peirce logicscore examples/answers.jsonl

test: lint layers typecheck pytest docs wheel-test

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# One tree of the package as it is installed (engine/ as peirce/engine, ...: the package-dir
# mapping of pyproject.toml), links to the sources in real folders, laid out again on each run:
# every tool that reads the package from disk and cannot follow the editable install's import
# hook reads it (mypy, import-linter, the API reference, the doctest walker).
TREE := build/tree
tree: venv
	@$(BIN)/python tools/package_tree.py $(TREE)

# The import rule (see ARCHITECTURE.md), checked by import-linter on the tree.
layers: venv $(TESTSTAMP) tree
	cd $(TREE) && PYTHONPATH=. $(CURDIR)/$(BIN)/lint-imports --config $(CURDIR)/pyproject.toml

typecheck: venv $(TESTSTAMP) tree
	cd $(TREE) && $(CURDIR)/$(BIN)/mypy --config-file $(CURDIR)/pyproject.toml --cache-dir $(CURDIR)/build/mypy-cache

# The tests exercise every face: every extra is installed for them ('all': the server, the report,
# the LLM client, OWL, Ray for the batch on a local node, MCP; and the docs site's tools), and the
# type checks read them too. The demo needs the core only.
# PYTHONSAFEPATH=1: the checkout's folders are never put on sys.path, so the tests import peirce
# as it is installed, never its peirce/ folder by accident (tests/helpers/__init__.py says how
# the tests share code without it).
pytest: venv $(TESTSTAMP) tree
	PYTHONSAFEPATH=1 $(BIN)/python -m pytest -q

# The fast lane: every test not marked slow (tests/conftest.py says which), in under a minute.
test-fast: venv $(TESTSTAMP) tree
	PYTHONSAFEPATH=1 $(BIN)/python -m pytest -q -m "not slow"

# Every test file on its own, each in a fresh interpreter, two at a time: a file that passes only
# after another has imported or set something fails here (about 5 minutes on 2 cores).
test-alone: venv $(TESTSTAMP) tree
	$(BIN)/python tests/run_alone.py

# The wheel a user installs, tested from outside the checkout: built, installed in a fresh virtual
# environment in a temporary folder, and a fast set of tests run there from a copy of tests/ (the
# doctest walker imports every module of the installed wheel, so a module, data file or compiled
# core missing from it fails). The wheel is installed without its dependencies, which are this
# environment's, seen through a .pth line (the wheel's own files are what is tested; installing
# them all again would take minutes); nothing of the checkout is on the path.
WHEEL_TESTS ?= test_doctests.py test_public_api.py test_prolog.py test_console_prolog.py \
  test_cnl.py test_fol_reader.py test_ground_core.py test_kb_saved.py test_llm_complete.py \
  test_errors_pickle.py
wheel-test: venv $(TESTSTAMP)
	@rm -rf build/dist
	$(BIN)/python -m pip wheel -q --no-deps -w build/dist .
	@out=$$(mktemp -d) && trap 'rm -rf "$$out"' EXIT && \
	$(PYTHON) -m venv --without-pip "$$out/venv" && \
	$(BIN)/python -m pip -q --python "$$out/venv/bin/python" install --no-deps build/dist/peirce-*.whl && \
	$(BIN)/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])" \
	  > "$$(echo $$out/venv/lib/python3*/site-packages)/dependencies.pth" && \
	cp -r tests pyproject.toml "$$out/" && cd "$$out" && \
	venv/bin/python -P -c "import sys, peirce.engine._ground as g; assert g.__file__.startswith(sys.prefix), g.__file__" && \
	PYTHONSAFEPATH=1 venv/bin/python -m pytest -q -p no:cacheprovider -m "not slow" $(addprefix tests/,$(WHEEL_TESTS))

# The long fuzzing run (SECURITY.md): 100,000 generated inputs per reader of untrusted text.
# It takes hours on 2 cores; it can be run a part at a time, e.g.
#   make fuzz FUZZ_TESTS=tests/fuzz/test_fuzz_dot.py FUZZ_STATS=fuzz-stats.jsonl
# Hypothesis keeps every input it has tried in memory (several GiB by 100,000 for some readers):
# on a small machine run the count in rounds of other seeds, each adding a line to FUZZ_STATS:
#   make fuzz FUZZ_EXAMPLES=25000 FUZZ_SEED=1 ...   (then FUZZ_SEED=2, 3, 4)
FUZZ_TESTS ?= tests/fuzz tests/test_server_schema.py
FUZZ_STATS ?=
FUZZ_EXAMPLES ?= 100000
FUZZ_SEED ?=
fuzz: venv $(TESTSTAMP)
	PYTHONSAFEPATH=1 PEIRCE_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) PEIRCE_FUZZ_STATS=$(FUZZ_STATS) $(BIN)/python -m pytest -q $(FUZZ_TESTS) -p no:cacheprovider --durations=0 $(if $(FUZZ_SEED),--hypothesis-seed=$(FUZZ_SEED))

# Generated Prolog programs with control constructs (cut, negation, if-then-else, all-solutions,
# lists) answered by peirce's engine and by swipl, first six answers in order (make test runs 60).
CONTROL_PROGRAMS ?= 1000
CONTROL_SEED ?= 30
conformance-control: venv
	PYTHONSAFEPATH=1 PEIRCE_CONTROL_PROGRAMS=$(CONTROL_PROGRAMS) PEIRCE_CONTROL_SEED=$(CONTROL_SEED) $(BIN)/python -m pytest -q -p no:cacheprovider tests/test_conformance_control.py tests/test_console_prolog_classic.py

# The compiled core (engine/_ground.c) under AddressSanitizer and UndefinedBehaviorSanitizer: built
# into build/sanitize and found there first (put ahead on peirce.engine's path for this run only),
# its tests run with more generated programs (SANITIZE_EXAMPLES); the installed core is untouched.
SANITIZE_EXAMPLES ?= 5000
SANITIZE_RUN = import sys, pytest, peirce.engine as e; e.__path__.insert(0, "build/sanitize"); \
  import peirce.engine._ground as g; assert "/build/sanitize/" in g.__file__, g.__file__; \
  sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "tests/test_ground_core.py", "tests/test_ground_ask.py"]))
sanitize: venv
	@rm -rf build/sanitize && mkdir -p build/sanitize
	cc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
	  -shared -fPIC $$($(BIN)/python -c "import sysconfig; print('-I' + sysconfig.get_paths()['include'])") \
	  engine/_ground.c -o build/sanitize/_ground$$($(BIN)/python -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
	LD_PRELOAD="$$(cc -print-file-name=libasan.so) $$(cc -print-file-name=libubsan.so)" \
	  ASAN_OPTIONS=detect_leaks=0 PEIRCE_CORE_EXAMPLES=$(SANITIZE_EXAMPLES) \
	  $(BIN)/python -c '$(SANITIZE_RUN)'

# Load and scale runs (their own targets, not part of the tests): latency of peirce serve at
# increasing request rates; the batch runner on 100,000 records with kill -9 and --resume.
bench-load: venv $(TESTSTAMP)
	$(BIN)/python bench/gate_load.py

bench-batch: venv $(TESTSTAMP)
	$(BIN)/python bench/batch_scale.py

# The console's proof engine on the classic Prolog programs of the tests, beside swipl itself.
bench-classic: venv
	$(BIN)/python bench/prolog_classic.py

# kill -9 of one of two replicas on one PostgreSQL under load, 10 times: every decision a client
# received must be in the log, every knowledge base version whole (the tests run it once).
kill-trials: venv $(TESTSTAMP)
	PYTHONSAFEPATH=1 PEIRCE_KILL_TRIALS=10 $(BIN)/python -m pytest -q tests/test_replicas.py -k kill

# Two replicas against one on one PostgreSQL (a temporary server of the system's packages unless
# DATABASE is given): latency at fixed rates, saturated throughput, decisions logged, audit cost.
bench-replicas: venv $(TESTSTAMP)
	$(BIN)/python bench/gate_load.py --replicas 2 --workers 1 $(if $(DATABASE),--database $(DATABASE))

# System packages, each installed only when its command is absent.
system:
	@missing=""; \
	command -v swipl >/dev/null 2>&1 || missing="$$missing swi-prolog-nox"; \
	command -v dot   >/dev/null 2>&1 || missing="$$missing graphviz"; \
	command -v java  >/dev/null 2>&1 || missing="$$missing default-jre-headless"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v cc    >/dev/null 2>&1 || missing="$$missing gcc"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

venv: system $(STAMP)

# (setup.py builds the compiled core, engine/_ground.c: a change to it installs again)
$(STAMP): pyproject.toml setup.py engine/_ground.c
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

$(TESTSTAMP): $(STAMP)
	$(BIN)/python -m pip install -q -e '.[dev,all,docs]'
	touch $(TESTSTAMP)

# The documentation site (MkDocs Material, the API reference from the docstrings), built strictly:
# a broken reference or a page missing from the navigation fails. Into build/site. (Every code
# block of the docs runs in the tests: tests/test_docs_code.py.)
docs: venv $(TESTSTAMP) tree
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir build/site

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
