# bufferlab — one Makefile for every task. `make help` lists the targets.
#
# Needs: python3 (>= 3.11) with pip and venv, and the Rust toolchain (rustup with rustfmt and
# clippy). Everything else is installed into .venv by `make venv`.

SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Stamps: the venv is rebuilt when pyproject.toml changes; the extension module only when a
# Rust source, a Cargo manifest or the lock file changed since the last build.
VENV_STAMP  := $(VENV)/.stamp-venv
BUILD_STAMP := $(VENV)/.stamp-build
RUST_SRCS   := $(shell find crates -name '*.rs' -o -name 'Cargo.toml' 2>/dev/null) Cargo.toml Cargo.lock
EXAMPLE     ?= examples/dumbbell_udp.toml
# apt-get needs root; use sudo when not root.
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: help venv build run wheel test test-rust test-python system-deps fmt lint bench ns2-suites ns2-suites-speed docs clean

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  \033[36m%-12s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(VENV_STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else \
		"error: bufferlab needs Python >= 3.11; found " + sys.version.split()[0] + \
		" (set PYTHON=python3.11)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "maturin>=1.9.4,<2.0"
	@rm -f $(BUILD_STAMP)
	@touch $@

venv: $(BUILD_STAMP) ## Create .venv and install bufferlab (editable, release build) with dev tools

$(BUILD_STAMP): $(VENV_STAMP) $(RUST_SRCS) pyproject.toml
	@echo "building the Rust extension (the first build takes a minute or two; later ones only rebuild what changed)"
	@# cargo's own progress shows; pip's list of requirements already satisfied does not.
	set -o pipefail; source $(BIN)/activate && \
		maturin develop --profile fast --extras dev 2>&1 | grep -v '^Requirement already satisfied'
	@touch $@

build: $(BUILD_STAMP) ## Build the Rust extension into the venv (only if Rust sources changed)

run: $(BUILD_STAMP) ## Install, build and run the first example scenario
	$(BIN)/bufferlab run $(EXAMPLE)

wheel: $(VENV_STAMP) ## Build an installable abi3 wheel (Python >= 3.11) into dist/, profile-guided when llvm-profdata allows: pip install dist/bufferlab-*.whl
	@echo "building the wheel: instrumented build, training runs, optimised build (about 3 x a plain build; without a matching llvm-profdata, one plain build)"
	$(BIN)/python tools/pgo_wheel.py --out dist

system-deps: ## Install the real components some tests drive (tshark, chromium, ns2, csh, Perl getopts.pl) from Debian's packages if missing
	@command -v tshark >/dev/null || { \
		echo "installing tshark (Debian package) for the pcap tests"; \
		export DEBIAN_FRONTEND=noninteractive; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq tshark >/dev/null; }
	@command -v chromium >/dev/null || { \
		echo "installing chromium (Debian package) for the documentation site test"; \
		export DEBIAN_FRONTEND=noninteractive; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; }
	@command -v ns >/dev/null || { \
		echo "installing ns2 (Debian package) for the ns-2 script comparison"; \
		export DEBIAN_FRONTEND=noninteractive; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq ns2 >/dev/null; }
	@perl -e 'require "getopts.pl"' 2>/dev/null || { \
		echo "installing libperl4-corelibs-perl (Debian package; Perl's getopts.pl) for ns-2's validation suites"; \
		export DEBIAN_FRONTEND=noninteractive; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq libperl4-corelibs-perl >/dev/null; }
	@command -v csh >/dev/null || { \
		echo "installing csh (Debian package) for ns-2's validation suites"; \
		export DEBIAN_FRONTEND=noninteractive; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq csh >/dev/null; }

test: $(BUILD_STAMP) system-deps ## Install, build and run every test (Rust and Python)
	cargo test --workspace --release
	$(BIN)/pytest -q tests

test-rust: system-deps ## Run the Rust tests of the whole workspace
	cargo test --workspace --release

test-python: $(BUILD_STAMP) ## Run the Python tests (pytest)
	$(BIN)/pytest -q tests

fmt: $(VENV_STAMP) ## Format Rust and Python sources
	cargo fmt --all
	$(BIN)/ruff format python tests docs/gen

lint: $(BUILD_STAMP) ## Check formatting and lints (rustfmt, clippy -D warnings, ruff, the _core stub)
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests docs/gen
	$(BIN)/ruff format --check python tests docs/gen
	cd python && ../$(BIN)/python -m mypy.stubtest bufferlab._core

ns2-suites: $(BUILD_STAMP) system-deps ## ns-2.35's own validation suites under ns-2 and bufferlab (NS2SUITE_ARGS="--jobs 1"), table into docs/ns2-scripts.md
	$(BIN)/python -m bench.ns2suite --write-docs $(NS2SUITE_ARGS)

ns2-suites-speed: $(BUILD_STAMP) system-deps ## Each test of ns-2.35's suites timed under ns-2 and bufferlab side by side, table into docs/ns2-scripts.md (about 15 min)
	$(BIN)/python -m bench.ns2suite.speed --write-docs $(NS2SPEED_ARGS)

bench: $(BUILD_STAMP) ## Speed and agreement side by side with ns-2 and ns-3 (installs both; BENCH_ARGS="--cases c"), then the CLI's start-up
	@if [ -n "$$HTSIM_SRC" ]; then $(PYTHON) bench/htsim_compare.py; else echo "bench: htsim not compared (set HTSIM_SRC to its source: bench/htsim_compare.py)"; fi
	$(PYTHON) bench/run.py $(BENCH_ARGS)
	$(PYTHON) bench/cli_startup.py

docs: $(BUILD_STAMP) ## Build the documentation site into site/ (MkDocs, strict: a broken link fails)
	$(BIN)/mkdocs build --strict -d site

clean: ## Remove build outputs, the venv and caches
	cargo clean
	rm -rf $(VENV) .pytest_cache .ruff_cache out site
	rm -f python/bufferlab/_core*.so
	find python tests -name __pycache__ -type d -prune -exec rm -rf {} +
