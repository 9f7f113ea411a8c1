#!/usr/bin/env bash
# Builds and tests mcp-policy against the newest OPA the module proxy
# serves, in a copy of the tree (this one is left as it is). The engine's
# fast path leans on OPA behaviour outside OPA's public contract; the guard
# tests (internal/regoeval/guard_test.go) name each assumption and the
# differential test (internal/rules) holds the decisions to OPA's public API,
# so an upgrade that breaks one fails here by name before it lands.
#   scripts/opa-latest.sh            # the engine, the rules and the policy
#   scripts/opa-latest.sh ./...      # everything
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./internal/regoeval/ ./internal/rules/ ./policy/ ./builtins/ ./internal/matching/ ./internal/lexical/ ./cmd/policy-eval/)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git ls-files -z | xargs -0 cp --parents -t "$work"
cd "$work"
current=$(go list -m -f '{{.Version}}' github.com/open-policy-agent/opa)
go get github.com/open-policy-agent/opa@latest
go mod tidy
latest=$(go list -m -f '{{.Version}}' github.com/open-policy-agent/opa)
echo "== OPA $current -> $latest"
go build ./...
go vet "${pkgs[@]}"
go test -count=1 "${pkgs[@]}"
echo "== mcp-policy builds and passes against OPA $latest"
