#!/usr/bin/env bash
# The VS Code extension's tests, from a fresh machine: installs what they need (Debian packages,
# npm packages, code-server into vscode-extension/.code-server), builds and packages the extension,
# runs the unit tests (node --test) and the real-editor test (code-server + headless Chromium,
# scripts/e2e.js) against the real `cenotaph serve` of the repository's .venv, and closes with
# `N passed, N failed`. Exits non-zero when anything failed. Artifacts: vscode-extension/test-artifacts/.
# For a quicker second run: QUICK=1 skips the system packages, `npm ci` and the unit tests;
# KEEP=1 keeps the editor's temporary folder (store, workspace, logs) and prints where it is.
set -uo pipefail
EXT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=$(cd "$EXT/.." && pwd)
VENV_BIN=$ROOT/.venv/bin
ART=$EXT/test-artifacts
CS_DIR=$EXT/.code-server
export npm_config_cache=$EXT/.npm-cache npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
[ -f /usr/include/node/node.h ] && export npm_config_nodedir=/usr   # native modules build against these headers, offline
PASSED=0 FAILED=0 START=$SECONDS
mkdir -p "$ART"

say() { printf '\n== %s (%ss)\n' "$*" $((SECONDS - START)); }
finish() {
  say "done"
  echo "${PASSED} passed, ${FAILED} failed"
  [ "$FAILED" -eq 0 ]
  exit
}
# A setup step: its failure counts once and ends the run.
need() {
  local what=$1; shift
  if "$@" >"$ART/$what.log" 2>&1; then return 0; fi
  echo "FAIL - $what (log: $ART/$what.log)"; tail -n 40 "$ART/$what.log"
  FAILED=$((FAILED + 1)); finish
}
# Add a runner's own counts (node's `# pass N`/`# fail N`, or e2e.js's `N passed, N failed`).
count() {
  local log=$1 p f
  p=$(grep -E '^# pass [0-9]+$' "$log" | tail -1 | awk '{print $3}')
  f=$(grep -E '^# fail [0-9]+$' "$log" | tail -1 | awk '{print $3}')
  if [ -z "$p" ]; then
    p=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1 | awk '{print $1}')
    f=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1 | awk '{print $3}')
  fi
  PASSED=$((PASSED + ${p:-0})); FAILED=$((FAILED + ${f:-0}))
  echo "$log: ${p:-0} passed, ${f:-0} failed"
}

if [ -z "${QUICK:-}" ]; then
say "system packages"
APT="apt-get"; [ "$(id -u)" -ne 0 ] && APT="sudo apt-get"
need apt-update $APT update -q
need apt-install env DEBIAN_FRONTEND=noninteractive $APT install -y -q --no-install-recommends \
  chromium libkrb5-dev ripgrep build-essential python3 curl
fi
[ -x "$VENV_BIN/cenotaph" ] || { echo "FAIL - $VENV_BIN/cenotaph is missing: run \`make setup\` first"; FAILED=$((FAILED + 1)); finish; }

say "npm ci, build, package"
cd "$EXT"
[ -z "${QUICK:-}" ] && need npm-ci npm ci --no-audit --no-fund
need config-check node scripts/gen-config.js --check
need tsc npx tsc -p .
need vsce npx vsce package --allow-missing-repository --skip-license -o "$ART/cenotaph.vsix"

if [ -z "${QUICK:-}" ]; then
say "unit tests"
node --test test/*.test.js >"$ART/unit.log" 2>&1
grep -E '^(not )?ok ' "$ART/unit.log"
grep -q '^not ok' "$ART/unit.log" && grep -B2 -A30 '^not ok' "$ART/unit.log" | head -120
count "$ART/unit.log"
grep -qE '^# pass [0-9]+$' "$ART/unit.log" || { echo "FAIL - the unit tests ended without their summary"; tail -n 30 "$ART/unit.log"; FAILED=$((FAILED + 1)); }
fi

say "code-server ${CS_VERSION:-4.100.3}"
need code-server-install bash "$EXT/scripts/install-code-server.sh" "$CS_DIR"
CODE_SERVER=(node "$CS_DIR/out/node/entry.js")

say "real-editor test"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cenotaph-e2e.XXXXXX")
CSPID=
cleanup() {
  [ -n "$CSPID" ] && kill "$CSPID" 2>/dev/null && wait "$CSPID" 2>/dev/null
  if [ -n "${KEEP:-}" ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
# The store: private, prepared with the CLI; code-server (so its extension host, so the server) gets this env.
export CENOTAPH_HOME=$WORK/store XDG_CACHE_HOME=$WORK/cache XDG_STATE_HOME=$WORK/state XDG_DATA_HOME=$WORK/data
export PATH="$VENV_BIN:$PATH"   # the extension's default: `cenotaph` on PATH
# The extension host keeps this environment, as when VS Code is started from a terminal (`code .`),
# instead of one resolved from a login shell, whose PATH would not have the venv.
export VSCODE_CLI=1
PROJECT=example.org/acme/shop
mkdir -p "$WORK/ws" "$WORK/user-data/User" "$WORK/exts"
printf 'project = "%s"\n' "$PROJECT" >"$WORK/ws/.cenotaph.toml"
# A past for the afternoon's mining: moment was declared, then dropped (a candidate from git history).
git -C "$WORK/ws" init -q && git -C "$WORK/ws" config user.name "Ada Lovelace" && git -C "$WORK/ws" config user.email ada@example.org
printf 'requests==2.32.3\nmoment==2.29.4\n' >"$WORK/ws/requirements.txt"
git -C "$WORK/ws" add requirements.txt && GIT_AUTHOR_DATE=2026-01-05T10:00:00Z GIT_COMMITTER_DATE=2026-01-05T10:00:00Z \
  git -C "$WORK/ws" commit -qm "Start the report dates"
printf 'requests==2.32.3\nonnxruntime==1.19.2\nnumpy>=1.26\n' >"$WORK/ws/requirements.txt"
git -C "$WORK/ws" add requirements.txt && GIT_AUTHOR_DATE=2026-02-10T10:00:00Z GIT_COMMITTER_DATE=2026-02-10T10:00:00Z \
  git -C "$WORK/ws" commit -qm "Drop moment: unmaintained, the standard library's datetime does it"
# A managed block written before any lesson was reinforced: the onnxruntime entry (effort 4) is one since.
printf '# Agents\n\nRun the tests.\n\n<!-- cenotaph:begin -->\n<!-- cenotaph:lessons -->\n<!-- cenotaph:end -->\n' >"$WORK/ws/AGENTS.md"
cat >"$WORK/ws/app.py" <<'PY'
import json
import onnxruntime as ort

session = ort.InferenceSession("model.onnx")
print(json.dumps([i.name for i in session.get_inputs()]))
PY
need abandon cenotaph abandon --project "$PROJECT" --effort 4 \
  --reason "SIGILL crash on Alpine (musl libc) in the CI image; replaced by fastembed's CPU wheels" onnxruntime
need contradiction bash -c "cenotaph remember --project '$PROJECT' 'Prefer SQLAlchemy for database access in the billing service.' &&
  cenotaph remember --project '$PROJECT' 'SQLAlchemy sessions leak connections in the billing service; drop it.' 2>&1 | grep -q contradicts"
cat >"$WORK/user-data/User/settings.json" <<'JSON'
{
  "telemetry.telemetryLevel": "off", "update.mode": "none", "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false, "workbench.startupEditor": "none", "security.workspace.trust.enabled": false,
  "workbench.tips.enabled": false, "editor.hover.delay": 300, "chat.commandCenter.enabled": false,
  "chat.mcp.enabled": true
}
JSON
PORT=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
printf 'bind-addr: 127.0.0.1:%s\nauth: none\ncert: false\n' "$PORT" >"$WORK/config.yaml"
CSARGS=(--config "$WORK/config.yaml" --user-data-dir "$WORK/user-data" --extensions-dir "$WORK/exts")
need install-vsix "${CODE_SERVER[@]}" "${CSARGS[@]}" --install-extension "$ART/cenotaph.vsix"
"${CODE_SERVER[@]}" "${CSARGS[@]}" --disable-telemetry --disable-update-check --disable-workspace-trust \
  --disable-getting-started-override "$WORK/ws" >"$ART/code-server.log" 2>&1 &
CSPID=$!
for _ in $(seq 120); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.5; done
WORKSPACE="$WORK/ws" CS_URL="http://127.0.0.1:$PORT/?folder=$WORK/ws" SHOT="$ART/vscode-hover.png" PROJECT="$PROJECT" CENOTAPH="$VENV_BIN/cenotaph" \
  timeout 600 node "$EXT/scripts/e2e.js" 2>&1 | tee "$ART/e2e.log"
count "$ART/e2e.log"
grep -qE '^[0-9]+ passed, [0-9]+ failed$' "$ART/e2e.log" || { echo "FAIL - e2e.js ended without its summary"; FAILED=$((FAILED + 1)); }
# The editor's logs, among them the extension's own (server start, its stderr, errors), are kept beside the screenshot.
rm -rf "$ART/logs" && cp -r "$WORK/user-data/logs" "$ART/logs" 2>/dev/null
find "$ART/logs" -path '*cenotaph.cenotaph*' -name '*.log' -exec cat {} + >"$ART/extension.log" 2>/dev/null
if grep -q FAIL "$ART/e2e.log"; then echo "-- extension log"; tail -n 60 "$ART/extension.log"; fi
finish
