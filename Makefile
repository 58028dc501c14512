# One-command set-up: every target installs what it needs into .venv first.
PYTHON ?= python3
# The tests start hundreds of Python processes (servers, commands, hooks). Where the environment
# says not to write bytecode, each compiles every module it imports that pip did not (the
# language server's and the MCP server's, the tests') from source again: writing it once saves
# 0.25 s of each `cenotaph serve` and half of each pytest worker's collection (7.0 → 3.3 s).
unexport PYTHONDONTWRITEBYTECODE
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# ESLint and Biome, pinned by their lock file, for the compile tests that run them for real.
NODE_TOOLS := tests/tools/node
NODE_STAMP := $(NODE_TOOLS)/node_modules/.installed

.PHONY: setup test-tools demo test test-python test-neovim test-vscode dist vsix bench bench-plot bench-locomo pg-up pg-down clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,bench]'
	touch $(STAMP)

setup: $(STAMP)

$(NODE_STAMP): $(NODE_TOOLS)/package-lock.json
	npm ci --prefix $(NODE_TOOLS) --no-audit --no-fund --silent
	touch $(NODE_STAMP)

# Debian's Chromium, which the console's browser tests drive (tests/console/test_browser.py), as
# vscode-extension/scripts/ci.sh installs it.
CHROMIUM := /usr/bin/chromium
APT := $(if $(filter 0,$(shell id -u)),,sudo )apt-get
$(CHROMIUM):
	$(APT) update -q
	DEBIAN_FRONTEND=noninteractive $(APT) install -y -q --no-install-recommends chromium

test-tools: $(NODE_STAMP) $(CHROMIUM)

demo: setup
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash scripts/demo.sh

# The three suites run side by side (each one's output printed whole when it ends): 11–11½ min
# on a fresh clone here (docs/benchmarks.md). The suite is CPU-bound on two cores, mostly the
# processes it starts, so this saves the editors' wall time, not their CPU; pytest runs on three
# workers.
test: setup test-tools
	$(MAKE) --no-print-directory -k -j3 --output-sync=target test-python test-neovim test-vscode

test-python: setup test-tools
	$(PY) -m pytest -q -n 3 --dist worksteal --durations=25

test-neovim: setup
	neovim-plugin/tests/run.sh

test-vscode: setup
	bash vscode-extension/scripts/ci.sh

# The wheel and the sdist (the wheel with the models' tokenizer and lemma files) in dist/, for
# `uv tool install` or `pipx install`; built with the test extra's `build` and setuptools, offline.
dist: setup
	rm -rf dist
	$(PY) -m build --no-isolation --outdir dist .
	@ls dist

# Native modules build against the system's Node headers where they are (offline), as ci.sh does.
NPM_NODEDIR := $(if $(wildcard /usr/include/node/node.h),npm_config_nodedir=/usr)

# The VS Code extension as vscode-extension/cenotaph.vsix (`code --install-extension` it). It
# records this checkout's server (checkout.json), found when `cenotaph` is not on PATH.
vsix: setup
	cd vscode-extension && $(NPM_NODEDIR) npm ci --no-audit --no-fund && npx tsc -p .
	cd vscode-extension && node -e 'require("fs").writeFileSync("checkout.json", JSON.stringify({cenotaph: process.argv[1]}) + "\n")' \
	  "$(CURDIR)/$(VENV)/bin/cenotaph" && npx vsce package --allow-missing-repository --skip-license -o cenotaph.vsix; \
	  status=$$?; rm -f checkout.json; exit $$status
	@echo "built vscode-extension/cenotaph.vsix: code --install-extension vscode-extension/cenotaph.vsix"

bench: setup
	$(PY) bench/perf.py --out bench/results-perf.json
	$(PY) bench/lsp_perf.py --out bench/results-lsp.json
	$(PY) bench/pg_perf.py --out bench/results-pg.json
	$(MAKE) bench-plot

bench-plot: setup
	$(PY) bench/plot.py --perf bench/results-perf.json --lsp bench/results-lsp.json \
	  $(if $(wildcard bench/results-pg.json),--pg bench/results-pg.json) --out docs/benchmarks-scale.png

bench-locomo: setup
	$(PY) bench/locomo.py --cv --jobs 2 --out bench/results-locomo.json

# A local PostgreSQL with pgvector for a team or a developer (scripts/pg.sh: PGDEV_DIR, PGDEV_PORT,
# PGDEV_LISTEN). It prints the line to use: CENOTAPH_STORE=postgresql://…
pg-up: setup
	@VENV=$(VENV) bash scripts/pg.sh start

pg-down:
	@VENV=$(VENV) bash scripts/pg.sh stop

clean:
	rm -rf $(VENV) build dist *.egg-info server/*.egg-info
