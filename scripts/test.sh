#!/usr/bin/env bash
# The whole test suite, set-up included, on a fresh machine: what .ci/run
# runs and what README.md tells a developer to run.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "npm: the official filesystem MCP server, for the end-to-end tests"
(cd test/npm && npm ci --no-audit --no-fund --loglevel=error)

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
	echo "not gofmt-formatted:"; echo "$unformatted"; exit 1
fi

step "go vet"
go vet ./...

step "Rego: opa fmt, opa check, Regal"
bash scripts/lint.sh

step "Rego tests (policy-eval test, builtins registered)"
go run ./cmd/policy-eval test rego/

step "Fuzz the path, URL and glob builtins and the JSON reader briefly (the seeds also run in go test)"
for target in FuzzContains FuzzResolve FuzzCleanAbs FuzzURLHost FuzzMatchTool; do
	go test ./builtins/ -run '^$' -fuzz "^${target}\$" -fuzztime "${FUZZTIME:-10s}"
done
go test ./policy/rules/ -run '^$' -fuzz '^FuzzDecodeJSON$' -fuzztime "${FUZZTIME:-10s}"

step "go test -race"
go test -race -count=1 ./...
