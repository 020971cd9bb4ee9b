#!/usr/bin/env bash
# Installs the Temporal CLI (which runs `temporal server start-dev`) into ./.tools/bin.
#   1. the official release archive, when the internet is reachable;
#   2. otherwise a build from source with `go install`, through the Go module proxy;
#   3. otherwise it says how to do it by hand.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin_dir=${TEMPORAL_INSTALL_DIR:-$root/.tools/bin}
# v1.5.1 is the newest tag that `go install` accepts: later tags carry a `replace` directive in go.mod.
go_version=${TEMPORAL_CLI_GO_VERSION:-v1.5.1}
say() { echo "install-temporal: $*" >&2; }

if [ -x "$bin_dir/temporal" ]; then
  say "already installed: $bin_dir/temporal ($("$bin_dir/temporal" --version 2>/dev/null | head -1))"
  exit 0
fi
mkdir -p "$bin_dir"

case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) os="" ;; esac
case "$(uname -m)" in x86_64|amd64) arch=amd64 ;; aarch64|arm64) arch=arm64 ;; *) arch="" ;; esac

if [ -n "$os" ] && [ -n "$arch" ] && command -v curl >/dev/null 2>&1; then
  say "trying the official release archive for $os/$arch"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  if curl -fsSL --connect-timeout 5 --max-time 300 -o "$tmp/temporal.tar.gz" \
       "https://temporal.download/cli/archive/latest?platform=$os&arch=$arch" \
     && tar -xzf "$tmp/temporal.tar.gz" -C "$tmp" temporal; then
    install -m 0755 "$tmp/temporal" "$bin_dir/temporal"
    say "installed $bin_dir/temporal from the release archive"
    exit 0
  fi
  say "the release archive is out of reach"
fi

if command -v go >/dev/null 2>&1; then
  say "building github.com/temporalio/cli/cmd/temporal@$go_version with go install (a few minutes on first run)"
  if GOBIN="$bin_dir" go install "github.com/temporalio/cli/cmd/temporal@$go_version"; then
    say "installed $bin_dir/temporal ($go_version, built from source)"
    exit 0
  fi
  say "go install failed"
fi

cat >&2 <<HELP
install-temporal: could not install the Temporal CLI. Do it by hand, then start Parley again:
  - download the archive for your platform from https://temporal.download/cli/archive/latest?platform=$os&arch=$arch
    and put its 'temporal' binary in $bin_dir (or anywhere on PATH), or
  - with Go installed: GOBIN="$bin_dir" go install github.com/temporalio/cli/cmd/temporal@$go_version
  - or run Temporal elsewhere and set TEMPORAL_ADDRESS=host:7233 so Parley starts none.
HELP
exit 1
