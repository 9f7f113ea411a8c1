#!/usr/bin/env python3
"""Each guard test in internal/regoeval/guard_test.go fires when the OPA
behaviour it guards goes: this breaks each assumption in turn (in the
source, restored afterwards) and requires a named guard test to fail.
Run from the repository root; scripts/test.sh runs it."""
import os, subprocess, sys
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "internal", "regoeval"))
muts = [
 ("sink never matches", "decide.go", "	if s == nil || s.doc == nil || s.doc != input {", "	if true || s == nil || s.doc == nil || s.doc != input {"),
 ("input document always built", "query.go", "	sink := withSink(ctx, input, rules)\n", "	sink := withSink(ctx, input, rules)\n	sink.document()\n"),
 ("rule cache rebuilt per call", "query.go", "	if c.arr != arr || c.set == nil {", "	if true || c.arr != arr || c.set == nil {"),
 ("prune does not recognise", "prune.go", "	if len(c.Body) != 1 {\n		return nil", "	if true || len(c.Body) != 1 {\n		return nil"),
 ("no prune", "query.go", "	modules, err := parseModules(s.Modules, !s.Plain)", "	modules, err := parseModules(s.Modules, false)"),
 ("OPA cache", "query.go", "		WithVirtualCache(cache).\n", "		WithVirtualCache(topdown.NewVirtualCache()).WithStrictBuiltinErrors(cache != nil).\n"),
 ("hints not known", "query.go", "known = []func(*rego.Rego){rego.Unknowns(inputUnknowns), rego.ParsedInput(", "known = []func(*rego.Rego){rego.Unknowns([]string{\"input\"}), rego.ParsedInput("),
 ("residual shape not recognised", "direct.go", "func isInput(t *ast.Term) bool { return t.Value.Compare(ast.InputRootRef) == 0 }", "func isInput(t *ast.Term) bool { return t.Value.Compare(ast.InputRootDocument.Value) == 0 }"),
 ("refuter finds every set empty", "refute.go", "		if r.mayHold(b, 0) {", "		if false && r.mayHold(b, 0) {"),
 ("refuter finds no set empty", "refute.go", "		if r.mayHold(b, 0) {", "		if true || r.mayHold(b, 0) {"),
 ("refuter compares wrongly", "refute.go", "			return x.Value.Compare(y.Value) == 0 && then()", "			return x.Value.Compare(y.Value) != 0 && then()"),
 ("refuter takes a builtin's false for true", "refute.go", "		return !ast.Boolean(false).Equal(result.Value) && then()", "		return then()"),
 ("refuter skips what it cannot read", "refute.go", "	case e.Negated || len(e.With) > 0:\n		return true", "	case e.Negated || len(e.With) > 0:\n		return false"),
 ("no interning", "values.go", "var fieldsInterned = func() bool { ast.InternStringTerm(fieldNames...); return true }()", "var fieldsInterned = func() bool { return true }()"),
]
bad = []
for name, f, a, b in muts:
    src = open(f).read()
    assert a in src, name
    open(f, 'w').write(src.replace(a, b, 1))
    try:
        r = subprocess.run(["go", "test", "-count=1", "-run", "TestGuard", "."], capture_output=True, text=True)
        fails = [l.strip() for l in r.stdout.splitlines() if l.startswith("--- FAIL")]
        if fails:
            print(f"guard: {name}: caught by {', '.join(f.split()[2] for f in fails)}")
        else:
            bad.append(name)
            print(f"guard: {name}: NOT caught: {r.stdout[-400:]}{r.stderr[-400:]}")
    finally:
        open(f, 'w').write(src)
if bad:
    sys.exit(f"guard: no guard test caught: {', '.join(bad)}")
