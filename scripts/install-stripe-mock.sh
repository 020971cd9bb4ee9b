#!/usr/bin/env bash
# Installs stripe-mock (Stripe's own mock of its API, answering from the OpenAPI fixtures) into ./.tools/bin,
# which the Stripe adapter's tests start on free ports (test/support/stripe-mock.ts). Built with `go install`
# through the Go module proxy; an existing binary is kept.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin_dir=${STRIPE_MOCK_INSTALL_DIR:-$root/.tools/bin}
version=${STRIPE_MOCK_VERSION:-v0.203.0}
say() { echo "install-stripe-mock: $*" >&2; }

fixtures=$root/.tools/stripe-mock/fixtures3.json

if [ -x "$bin_dir/stripe-mock" ] && [ -f "$fixtures" ]; then
  say "already installed: $bin_dir/stripe-mock"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  cat >&2 <<HELP
install-stripe-mock: Go is needed to build stripe-mock. Install Go, then run this script again, or by hand:
  GOBIN="$bin_dir" go install github.com/stripe/stripe-mock@$version
HELP
  exit 1
fi

if [ ! -x "$bin_dir/stripe-mock" ]; then
  mkdir -p "$bin_dir"
  say "building github.com/stripe/stripe-mock@$version with go install"
  GOBIN="$bin_dir" go install "github.com/stripe/stripe-mock@$version"
  say "installed $bin_dir/stripe-mock ($version)"
fi

# Its bundled fixtures, which tests copy with a PaymentIntent that succeeds (stripe-mock's own never does).
module_dir=$(go mod download -json "github.com/stripe/stripe-mock@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
mkdir -p "$(dirname "$fixtures")"
cp "$module_dir/embedded/openapi/fixtures3.json" "$fixtures"
chmod u+w "$fixtures"
say "copied its fixtures to $fixtures"
