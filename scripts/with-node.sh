#!/usr/bin/env bash
# Runs `node "$@"` on Node >= 22.18 (Parley runs its TypeScript through Node's type stripping).
# The system Node is used when it is new enough; otherwise Node 24 is installed from the npm registry into
# ~/.cache/parley-node, beside the system Node and without touching it.
set -euo pipefail

wanted_major=24
cache=${PARLEY_NODE_CACHE:-$HOME/.cache/parley-node}

node_ok() {
  "$1" -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=18)?0:1)' 2>/dev/null
}

if command -v node >/dev/null 2>&1 && node_ok node; then
  exec node "$@"
fi
if [ ! -x "$cache/node_modules/.bin/node" ] || ! node_ok "$cache/node_modules/.bin/node"; then
  echo "with-node: the system Node ($(node --version 2>/dev/null || echo none)) is older than 22.18;" \
       "installing Node $wanted_major into $cache" >&2
  npm install --prefix "$cache" --no-fund --no-audit --loglevel=error "node@$wanted_major" >&2
fi
export PATH="$cache/node_modules/.bin:$PATH"
exec node "$@"
