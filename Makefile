# One-command set-up: every target installs what it needs into .venv first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# ESLint and Biome, pinned by their lock file, for the compile tests that run them for real.
NODE_TOOLS := tests/tools/node
NODE_STAMP := $(NODE_TOOLS)/node_modules/.installed

.PHONY: setup test-tools demo test bench bench-plot bench-locomo clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,bench]'
	touch $(STAMP)

setup: $(STAMP)

$(NODE_STAMP): $(NODE_TOOLS)/package-lock.json
	npm ci --prefix $(NODE_TOOLS) --no-audit --no-fund --silent
	touch $(NODE_STAMP)

test-tools: $(NODE_STAMP)

demo: setup
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash scripts/demo.sh

test: setup test-tools
	$(PY) -m pytest -q
	neovim-plugin/tests/run.sh
	bash vscode-extension/scripts/ci.sh

bench: setup
	$(PY) bench/perf.py --out bench/results-perf.json
	$(PY) bench/lsp_perf.py --out bench/results-lsp.json
	$(MAKE) bench-plot

bench-plot: setup
	$(PY) bench/plot.py --perf bench/results-perf.json --lsp bench/results-lsp.json --out docs/benchmarks-scale.png

bench-locomo: setup
	$(PY) bench/locomo.py --out bench/results-locomo.json

clean:
	rm -rf $(VENV) build *.egg-info server/*.egg-info
