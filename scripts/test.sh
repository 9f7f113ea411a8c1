#!/usr/bin/env bash
# The whole test suite, set-up included, on a fresh machine: what .ci/run
# runs and what README.md tells a developer to run.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step says how long it took, and the last line the whole run's time:
# the test command's budget is a few minutes on two cores, and a step that
# grows is seen where it grows.
steps=0
began=$SECONDS
step_began=$SECONDS
took() { [ "$steps" -eq 0 ] || printf -- '-- step %d took %ds\n' "$steps" $((SECONDS - step_began)); }
step() { took; steps=$((steps + 1)); step_began=$SECONDS; printf '\n== %s\n' "$*"; }

step "npm: the official filesystem MCP server, for the end-to-end tests"
(cd test/npm && npm ci --no-audit --no-fund --loglevel=error)

step "chromium, for the approvals page's browser test"
if command -v chromium >/dev/null 2>&1 || [ -n "${CHROMIUM:-}" ]; then
	echo "found: ${CHROMIUM:-$(command -v chromium)}"
elif [ "${CI:-}" = true ]; then
	echo "chromium is missing (apt-get install chromium): CI does not skip its test"; exit 1
else
	echo "not found: the browser test is skipped (apt-get install chromium, or set CHROMIUM; .ci/run installs it)"
fi

step "PostgreSQL: the grants store's tests start their own server (internal/pgtest)"
if [ -n "${MCP_POLICY_TEST_PG:-}" ]; then
	echo "using the server MCP_POLICY_TEST_PG names"
elif pg_bin=$(compgen -G '/usr/lib/postgresql/*/bin/initdb' | sort -V | tail -1) && [ -n "$pg_bin" ]; then
	echo "from $(dirname "$pg_bin"), on a Unix socket in a temporary directory$([ "$(id -u)" = 0 ] && echo ", as nobody")"
elif command -v initdb >/dev/null; then
	echo "from $(dirname "$(command -v initdb)")"
elif [ "${CI:-}" = true ]; then
	echo "PostgreSQL is missing (apt-get install postgresql): CI does not skip its tests"; exit 1
else
	echo "PostgreSQL is missing (apt-get install postgresql): its tests will skip"
fi

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
	echo "not gofmt-formatted:"; echo "$unformatted"; exit 1
fi

step "go vet, go mod tidy"
go vet ./...
go mod tidy -diff

step "staticcheck"
# Built from the lint-tools module (tools/go.mod) and run over this one;
# test/e2e/staticcheck.conf says why SA1019 is off there.
staticcheck=$(go -C tools tool -n staticcheck)
"$staticcheck" ./...
(cd tools && go mod tidy -diff)

step "Guard tests: each of the engine's assumptions about OPA, broken in turn, fails its named test"
command -v python3 >/dev/null || { echo "the guard step needs python3 (apt-get install python3)"; exit 1; }
python3 scripts/guard-mutations.py

step "Rego: opa fmt, opa check, Regal"
bash scripts/lint.sh

step "The README's main command: the tour of the proxy deciding a real server's calls"
go run ./test/tour >/dev/null

step "Rego tests (policy-eval test, builtins registered)"
go run ./cmd/policy-eval test rego/

step "Fuzz the path, URL, glob, fold and floor builtins, the JSON reader, the grants and pins readers, argument discovery, the approvals digest and arguments shown, the escaping of what a human reads, the proxy's line reader, and the fast decision path against OPA's own, briefly (the seeds also run in go test)"
# The budget is a count of runs, not a duration: Go 1.26's fuzz coordinator
# can report "context deadline exceeded", and fail, when a duration runs out
# while a worker is mid-run (golang/go#75804, fixed in Go 1.27). A count sets
# no deadline, so a loaded machine only makes the run slower. 10,000 runs
# take 1-10 s per target on this project's 2-core machine: a check that
# each target runs and finds nothing quickly. Fuzzing for long is
# FUZZTIME=1000000x bash scripts/test.sh, or one target's go test -fuzz.
fuzz_runs="${FUZZTIME:-10000x}"
# A new interesting input is minimised for up to 60 s by default, with no
# execution counted meanwhile: in one CI run a target's count stood still
# for 35 of its 54 s, and with 1000 minimising runs still for 35 s (a
# long command line takes some 35 ms to read). 100 runs bound the stall
# to a few seconds and still shorten what is kept.
# A bounded count keeps the step's time to the runs asked for.
minimize_runs="${FUZZMINIMIZE:-100x}"
go test ./internal/matching/ -run '^$' -fuzz '^FuzzContains$' -fuzztime "$fuzz_runs" -fuzzminimizetime "$minimize_runs"
for target in FuzzResolve FuzzScope FuzzCleanAbs FuzzUnevaluable FuzzURLHost FuzzLenientHosts FuzzMatchTool FuzzFoldPath FuzzIPSpellings FuzzSensitiveFile; do
	go test ./internal/lexical/ -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzz_runs" -fuzzminimizetime "$minimize_runs"
done
go test ./internal/strictjson/ -run '^$' -fuzz '^FuzzDecodeJSON$' -fuzztime "$fuzz_runs" -fuzzminimizetime "$minimize_runs"
# Two engines per configuration decide each run: a third of the runs.
go test ./internal/rules/ -run '^$' -fuzz '^FuzzFastPathIsThePlainPath$' -fuzztime "${FUZZTIME:-3000x}" -fuzzminimizetime "$minimize_runs"
go test ./grants/ -run '^$' -fuzz '^FuzzParseGrants$' -fuzztime "$fuzz_runs" -fuzzminimizetime "$minimize_runs"
go test ./grants/ -run '^$' -fuzz '^FuzzParsePins$' -fuzztime "$fuzz_runs" -fuzzminimizetime "$minimize_runs"
for target in FuzzArgumentsSeen FuzzCommandLine FuzzPatch FuzzComposeFile; do
	go test ./internal/argread/ -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzz_runs" -fuzzminimizetime "$minimize_runs"
done
for target in FuzzDigest FuzzShowArguments; do
	go test ./internal/approvals/ -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzz_runs" -fuzzminimizetime "$minimize_runs"
done
go test ./internal/visible/ -run '^$' -fuzz '^FuzzLines$' -fuzztime "$fuzz_runs" -fuzzminimizetime "$minimize_runs"
for target in FuzzReadMessage FuzzEnvelope FuzzReadToolsCallParams; do
	go test ./internal/proxy/ -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzz_runs" -fuzzminimizetime "$minimize_runs"
done

step "go test -race"
# The end-to-end tests run side by side (each starts its own proxy and
# servers, and spends most of its time waiting on them): eight at once
# keep two cores busy where one at a time left them idle two thirds of
# the run.
go test -race -count=1 -parallel 8 ./...

# set -e stopped at the first failing step: reaching here, every one passed.
took
echo
echo "steps: ${steps} passed, 0 failed, in $((SECONDS - began))s"
