#!/usr/bin/env bash
# Lints the Rego sources in rego/:
#   1. opa fmt       every file formatted as `go tool opa fmt` would
#   2. opa check     the modules compile with stock OPA, given capabilities
#                    that declare the mcp.* builtins
#   3. regal lint    with .regal/config.yaml and the same capabilities
# The capabilities come from `policy-eval capabilities` and are written to a
# temporary directory. Every step runs; the exit status is non-zero if any
# step found a problem.
#
# Regal is built from the tools module (tools/go.mod), which pins the OPA
# version Regal needs; set REGAL to a prebuilt regal binary to skip that.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

caps="$tmp/capabilities.json"
if ! go run ./cmd/policy-eval capabilities >"$caps"; then
	echo "lint: policy-eval capabilities failed" >&2
	exit 2
fi

status=0
fail() {
	echo "lint: $1" >&2
	status=1
}

echo "== opa fmt"
go tool opa fmt --list --fail rego/ || fail "rego/ is not formatted (go tool opa fmt -w rego/)"

echo "== opa check"
go tool opa check --capabilities "$caps" rego/ || fail "opa check failed"

echo "== regal lint"
# Regal resolves capabilities.from.file against its working directory, so
# the config it reads is the repository's plus an absolute path.
config="$tmp/regal.yaml"
{
	cat .regal/config.yaml
	printf '\ncapabilities:\n  from:\n    file: %s\n' "$caps"
} >"$config"
export REGAL_DISABLE_VERSION_CHECK=1
if [ -n "${REGAL:-}" ]; then
	"$REGAL" lint --config-file "$config" "$root/rego" || fail "regal lint failed"
else
	(cd tools && go tool regal lint --config-file "$config" "$root/rego") || fail "regal lint failed"
fi

if [ "$status" -eq 0 ]; then
	echo "lint: ok"
fi
exit "$status"
