#!/usr/bin/env bash
# Install code-server (it bundles the VS Code 1.100.3 server) from the npm registry into DEST, offline
# from everything but the registries: its stock postinstall downloads from GitHub, so each step is done
# by hand. Needs build-essential, python3, libkrb5-dev and ripgrep (Debian). Nothing is written outside DEST
# except npm's cache, which the caller points into the repository (npm_config_cache).
set -euo pipefail
DEST=${1:?destination folder}; VER=${CS_VERSION:-4.100.3}
if [ -f "$DEST/.installed-$VER" ]; then exit 0; fi
rm -rf "$DEST" && mkdir -p "$DEST" && cd "$DEST"
npm pack "code-server@$VER" --silent >/dev/null
tar xzf "code-server-$VER.tgz" --strip-components=1 && rm "code-server-$VER.tgz"
npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error
npm rebuild argon2 --loglevel=error                 # its prebuilt download from GitHub fails: compiled from source
cd lib/vscode
npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error
mkdir -p node_modules/@vscode/ripgrep/bin && cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg   # its postinstall downloads from GitHub
npm_config_yes=true npm rebuild --loglevel=error      # node-pty, spdlog, kerberos, watcher…; node-pty's postinstall runs `npx node-gyp`
ln -sfn node_modules node_modules.asar
(cd bin/remote-cli && ln -sfn code-linux.sh code-server)
(cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
(cd extensions && npm install --omit=dev --no-audit --no-fund --loglevel=error)
cd "$DEST"
node out/node/entry.js --version
touch "$DEST/.installed-$VER"
