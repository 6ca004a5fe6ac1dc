# Luma search tools: the two commands a fresh machine needs are `make serve` and `make test`.
# Everything installs itself into .venv (Python 3.13, the Lambda runtime) from pinned requirements.

SHELL := /bin/bash
PYTHON313 ?= $(shell PYENV_VERSION=3.13.0 pyenv which python 2>/dev/null || command -v python3.13 2>/dev/null || echo python3.13)
VENV := .venv
PY := $(VENV)/bin/python
SAM_VENV := .venv-sam
SAM := $(SAM_VENV)/bin/sam
export PYTHONPATH := shared:functions/codex:functions/web:.
export AWS_DEFAULT_REGION ?= us-east-1
export SAM_CLI_TELEMETRY := 0
# sam build's python3.13 workflow looks for python3.13 on PATH.
export PATH := $(dir $(PYTHON313)):$(PATH)

.PHONY: setup serve test lint typecheck pytest bench sam-validate sam-build ci clean

setup: $(VENV)/.installed

$(VENV)/.installed: requirements-dev.txt shared/requirements.txt constraints.txt
	$(PYTHON313) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt -c constraints.txt
	touch $@

## serve: both functions on 127.0.0.1 (codex :9001, web :9002) with the demo index and a local DynamoDB
serve: setup
	$(PY) -m local.serve

## test: lint, type-check and the whole test suite
test: lint typecheck pytest

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: setup
	$(VENV)/bin/mypy

pytest: setup
	$(PY) -m pytest

## bench: the performance benchmark (prints figures; never fails on timings)
bench: setup
	$(PY) -m bench.run

$(SAM_VENV)/.installed: requirements-sam.txt
	$(PYTHON313) -m venv $(SAM_VENV)
	$(SAM_VENV)/bin/pip install -q --disable-pip-version-check -r requirements-sam.txt
	touch $@

## sam-validate / sam-build: what CI checks of template.yaml (no Docker, no AWS account needed)
sam-validate: $(SAM_VENV)/.installed
	$(SAM) validate --lint --region $(AWS_DEFAULT_REGION)

sam-build: $(SAM_VENV)/.installed
	$(SAM) build --region $(AWS_DEFAULT_REGION)

ci: test sam-validate sam-build

clean:
	rm -rf $(VENV) $(SAM_VENV) .aws-sam
