# The two commands of the README Quick start: `make render` and `make test`.
# Both create .venv when it is missing and install mpigen into it.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.mpigen-installed

.PHONY: install render test golden bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "mpigen needs Python 3.11 or newer; run: make PYTHON=python3.11 ...")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	# MPICH for the end-to-end test, beside (not over) Open MPI's mpirun in the venv.
	if [ "$$(uname -s)" = Linux ]; then $(BIN)/python -m pip install --quiet --no-deps --prefix $(VENV)/mpich 'mpich>=4.2'; fi
	touch $(STAMP)

render: $(STAMP)
	$(BIN)/mpigen render

test: $(STAMP)
	$(BIN)/lint-imports --no-logo
	$(BIN)/python -m pytest

# Regenerate the committed expected output after a reviewed change.
golden: $(STAMP)
	$(BIN)/python -m tests.support.golden --update

# BENCH_FLAGS="--against REV" times another revision side by side (README, Speed).
bench: $(STAMP)
	$(BIN)/python bench/bench.py $(BENCH_FLAGS)

clean:
	rm -rf $(VENV) rendered
