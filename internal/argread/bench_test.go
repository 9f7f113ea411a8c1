package argread_test

import (
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"mvdan.cc/sh/v3/syntax"

	"github.com/mcp-policy/mcp-policy/internal/argread"
)

// benchLine is internal/rules' BenchmarkDecideCommand's 200-byte line.
func benchLine() string {
	line := `cd packages/api && npm run build -- --mode production && git status --short && grep -rn "TODO" src | head -n 20 > todo.txt; ls -la dist`
	for len(line) < 200 {
		line += " && true"
	}
	return line
}

// BenchmarkParseShellLine is what mvdan.cc/sh's parser alone costs on the
// line: the floor of any reading that parses it (compare with
// BenchmarkReadShellLine and internal/rules' BenchmarkDecide in one run).
func BenchmarkParseShellLine(b *testing.B) {
	line := benchLine()
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Parse(strings.NewReader(line), ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadShellLine is the reader on a call holding the line: the
// parse, each command read by its program, the paths resolved.
func BenchmarkReadShellLine(b *testing.B) {
	r, err := argread.NewReader(nil)
	if err != nil {
		b.Fatal(err)
	}
	line := benchLine()
	b.ReportAllocs()
	for b.Loop() {
		args := [][2]*ast.Term{{ast.StringTerm("command"), ast.StringTerm(line)}, {ast.StringTerm("cwd"), ast.StringTerm("/srv/projects/p4")}}
		if _, err := r.Read(argread.Call{Tool: "run_command", Root: "/srv/projects/p4", Arguments: args}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadPath is the reader on a call holding one path: the
// reading a command line's is compared with.
func BenchmarkReadPath(b *testing.B) {
	r, err := argread.NewReader(nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		args := [][2]*ast.Term{{ast.StringTerm("path"), ast.StringTerm("/srv/projects/p4/src/main.go")}, {ast.StringTerm("content"), ast.StringTerm("x")}}
		if _, err := r.Read(argread.Call{Tool: "write_file", Root: "/srv/projects/p4", Arguments: args}); err != nil {
			b.Fatal(err)
		}
	}
}
