# The two commands of the README (Install): `make render` and `make test`.
# Both create .venv when it is missing. `make render` installs mpigen with its runtime
# dependencies and the dashboard extra (overlays/monitored asks for a Grafana dashboard);
# `make test` adds the test extras and MPICH. A stamp file per level records what is
# installed, so each level is installed once (again when pyproject.toml changes).
# `make dist` needs neither: only the build tools (DIST_STAMP).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
RENDER_STAMP := $(VENV)/.mpigen-render
TEST_STAMP   := $(VENV)/.mpigen-test
DIST_STAMP   := $(VENV)/.mpigen-dist

.PHONY: install install-render install-test render test test-quick dist release-tag golden schemas bench clean \
        system-packages

# The development set-up (everything `make test` needs), as before the split.
install: install-test
install-render: $(RENDER_STAMP)
install-test: $(TEST_STAMP) system-packages

# What the tests run besides Python, from Debian's packages when missing: OpenSSH's server
# (the jobset end-to-end test runs it in its pretend workers), zsh and fish (the completion
# tests load mpigen's scripts in them), promtool and prometheus from prometheus (the rendered alerts
# are checked and unit-tested with promtool, the dashboard's queries run on a prometheus the test
# starts; the package's service is not needed), kubectl from kubernetes-client and jq (docs/operating.md's
# commands, which tests/system/test_operating_doc.py runs against a local API server), and, for a
# user who is not root, uidmap (the suite then
# runs as root of a user namespace of the user's, whose other ids are the user's subordinate
# ids: tests/support/user_namespace.py). apt-get update only if the install fails: a fresh
# machine's package lists may be stale. Not root: say how, and go on (`make test` then stops
# with one line saying what is missing, or, for zsh and fish, those tests skip or fail under CI).
SYSTEM_PACKAGES := /usr/sbin/sshd:openssh-server /usr/bin/zsh:zsh /usr/bin/fish:fish /usr/bin/promtool:prometheus \
                   /usr/bin/prometheus:prometheus /usr/bin/kubectl:kubernetes-client /usr/bin/jq:jq
USER_NAMESPACE_PACKAGES := /usr/bin/newuidmap:uidmap
system-packages:
	@missing=""; for item in $(SYSTEM_PACKAGES) $$([ "$$(id -u)" = 0 ] || echo $(USER_NAMESPACE_PACKAGES)); do \
	  [ -x "$${item%%:*}" ] || missing="$$missing $${item#*:}"; done; \
	if [ "$$(uname -s)" = Linux ] && [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing$$missing for the tests"; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing || \
	    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; }; \
	  else \
	    echo "Some tests need$$missing; install with:"; \
	    echo "  sudo apt-get install -y --no-install-recommends$$missing"; \
	  fi; \
	fi; \
	if [ "$$(uname -s)" = Linux ] && [ "$$(id -u)" != 0 ] && ! grep -qs "^\($$(id -un)\|$$(id -u)\):" /etc/subuid; then \
	  first=$$(cat /etc/subuid /etc/subgid 2>/dev/null | awk -F: 'BEGIN {n = 100000} NF == 3 && $$2 + $$3 > n {n = $$2 + $$3} END {print n}'); \
	  echo "The tests need a range of subordinate ids for $$(id -un); add one with:"; \
	  echo "  sudo usermod --add-subuids $$first-$$((first + 65535)) --add-subgids $$first-$$((first + 65535)) $$(id -un)"; \
	fi

# The virtual environment every level installs into, made once, with a Python mpigen runs on.
$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "mpigen needs Python 3.11 or newer; run: make PYTHON=python3.11 ...")'
	$(PYTHON) -m venv $(VENV)

$(RENDER_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dashboard]'
	touch $(RENDER_STAMP)

$(TEST_STAMP): $(RENDER_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	# MPICH for the end-to-end test, beside (not over) Open MPI's mpirun in the venv.
	if [ "$$(uname -s)" = Linux ]; then $(BIN)/python -m pip install --quiet --no-deps --prefix $(VENV)/mpich 'mpich>=4.2'; fi
	touch $(TEST_STAMP)

render: $(RENDER_STAMP)
	$(BIN)/mpigen render

# The tiers (docs/development.md, Running the tests): the import contracts and tests/unit, in
# this process, as this user, in well under two minutes (`make test-quick`, while working);
# then tests/acceptance (the command line) beside them on every core (pytest-xdist; what cannot
# run beside itself shares an xdist_group, tests/support/tiers.py); then tests/system (tools,
# root, other users, the pretend cluster), one test at a time. A user who is not root runs the
# suite as root of a user namespace of the user's, so that the tests that act as root (as user
# nobody, tmpfs mounts, the pretend cluster) run rather than skip. PYTEST_FLAGS adds options
# (PYTEST_FLAGS="-x" to stop at the first failure, PYTEST_WORKERS=1 for one worker).
PYTEST_WORKERS ?= auto
PYTEST_FLAGS   ?=
test: $(TEST_STAMP) system-packages
	$(BIN)/lint-imports --no-logo
	$(BIN)/python -m tests.support.user_namespace $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup \
	  $(PYTEST_FLAGS) tests/unit tests/acceptance
	$(BIN)/python -m tests.support.user_namespace $(BIN)/python -m pytest $(PYTEST_FLAGS) tests/system

test-quick: $(TEST_STAMP)
	$(BIN)/lint-imports --no-logo
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) $(PYTEST_FLAGS) tests/unit

# The release files, as pip installs them (docs/tutorial.md, step 1): the sdist, then the wheel
# built from it (so a file the sdist misses is missing from the wheel too), each checked by
# twine as PyPI would. dist/ holds this build alone: no wheel of an older version left beside it.
# It needs build and twine alone, in the same .venv: not mpigen, its dependencies, the test
# extras or MPICH (build installs setuptools>=77 in an environment of its own, for the build).
DIST_TOOLS := 'build>=1.2' 'twine>=5'
$(DIST_STAMP): Makefile | $(BIN)/python
	$(BIN)/python -m pip install --quiet $(DIST_TOOLS)
	touch $(DIST_STAMP)

dist: $(DIST_STAMP)
	rm -rf dist
	$(BIN)/python -m build --outdir dist .
	$(BIN)/twine check --strict dist/*

# The release tag the docs pin (docs/development.md, Releasing): the annotated tag v<version>
# of pyproject.toml on the commit checked out. It refuses a working tree with changes (the tag
# would name a commit that is not what you see) and a tag of that name on another commit (a
# release is never moved: bump the version); on this commit already, it says so and succeeds.
release-tag:
	@version=$$($(PYTHON) -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])') \
	  || { echo "release-tag: cannot read the version of pyproject.toml (Python 3.11 or newer: make PYTHON=python3.11 release-tag)"; exit 2; }; \
	tag="v$$version"; \
	if [ -n "$$(git status --porcelain)" ]; then \
	  echo "release-tag: the working tree has changes (git status); commit or stash them, then run make release-tag again"; exit 2; fi; \
	head=$$(git rev-parse HEAD); \
	if tagged=$$(git rev-parse --quiet --verify "refs/tags/$$tag^{commit}"); then \
	  if [ "$$tagged" = "$$head" ]; then echo "$$tag already tags $$head"; exit 0; fi; \
	  echo "release-tag: $$tag already tags $$tagged, not $$head; a release is never moved:" \
	       "raise the version in pyproject.toml (and the docs' pins) for a new one"; exit 2; fi; \
	git tag --annotate --message "mpigen $$version" "$$tag" && \
	echo "Tagged $$head as $$tag; publish it with: git push origin $$tag"

# Regenerate the committed expected output after a reviewed change (the CRD cases need
# the test extras' kubernetes-validate).
golden: $(TEST_STAMP)
	$(BIN)/python -m tests.support.golden --update

# The JSON Schemas editors read (the examples' `# yaml-language-server: $$schema=` lines).
schemas: $(RENDER_STAMP)
	$(BIN)/mpigen schema --kind MPIJobBlueprint > schemas/blueprint.schema.json
	$(BIN)/mpigen schema --kind Overlay > schemas/overlay.schema.json
	$(BIN)/mpigen schema --kind Config > schemas/config.schema.json

# BENCH_FLAGS="--against REV" times another revision side by side (docs/performance.md).
bench: $(TEST_STAMP)
	$(BIN)/python bench/bench.py $(BENCH_FLAGS)

clean:
	rm -rf $(VENV) rendered dist build
