#!/usr/bin/env bash
# Builds Parley's SIP gateway (src/sip/gateway, Go: sipgo and diago) into ./.tools/bin/parley-sip, through the
# Go module proxy, unless the binary there was built from the same sources (a hash of them sits beside it).
# The first build downloads the modules and takes about a minute on two cores; later ones take seconds.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin_dir=${SIP_GATEWAY_INSTALL_DIR:-$root/.tools/bin}
source_dir=$root/src/sip/gateway
binary=$bin_dir/parley-sip
say() { echo "install-sip-gateway: $*" >&2; }

sources_hash=$(cd "$source_dir" && find . -maxdepth 1 -type f \( -name '*.go' -o -name 'go.mod' -o -name 'go.sum' \) ! -name '*_test.go' -print0 \
  | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if [ -x "$binary" ] && [ "$(cat "$binary.sum" 2>/dev/null)" = "$sources_hash" ]; then
  say "up to date: $binary"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  cat >&2 <<HELP
install-sip-gateway: Go is not installed, so the SIP gateway cannot be built. Install Go 1.24 or later
(https://go.dev/dl/), then start Parley again; or set SIP_ENABLED=false to run without SIP trunks.
HELP
  exit 1
fi

mkdir -p "$bin_dir"
say "building $binary with $(go version | cut -d' ' -f3)"
started=$SECONDS
# Built beside the target, then moved into place: a running gateway keeps its binary, and no half-written
# file is ever taken for a good one.
partial="$binary.tmp.$$"
trap 'rm -f "$partial"' EXIT
(cd "$source_dir" && CGO_ENABLED=0 go build -trimpath -o "$partial" .)
mv -f "$partial" "$binary"
echo "$sources_hash" > "$binary.sum"
say "built $binary in $((SECONDS - started)) s"
