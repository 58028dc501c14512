#!/usr/bin/env bash
# A short walk-through on a throw-away store: remember, abandon, recall.
set -euo pipefail
export CENOTAPH_HOME="$(mktemp -d)"
trap 'rm -rf "$CENOTAPH_HOME"' EXIT
run() { printf '\n$ %s\n' "$*"; "$@"; }
run cenotaph remember "Embeddings come from fastembed with the MiniLM int8 model, loaded lazily" --project demo
run cenotaph remember "Use BEGIN IMMEDIATE for every write so concurrent writers queue instead of failing" --project demo --kind decision
run cenotaph abandon onnxruntime --reason "SIGILL on Alpine musl" --effort 4 --project demo
run cenotaph recall "should we use onnxruntime for embeddings" --project demo
run cenotaph check onnxruntime numpy --project demo
