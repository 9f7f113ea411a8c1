package argread

import (
	"mvdan.cc/sh/v3/syntax"
)

// secretsExpanded reads where a line expands a secret's variable
// ($GITHUB_TOKEN, ${AWS_SECRET_ACCESS_KEY}, an indirect ${!name}): but in
// the words and the standard input of a program that sends a secret where
// it goes (curl -H, gh, docker login --password-stdin: consumesSecrets),
// or in a test of whether it is set ([ -n "$T" ], [[ -z $T ]]), the value
// may be printed, now or by what follows, under a name no list knows:
// x=$T; echo $x, a=( $T ), [[ $T =~ (.+) ]] and BASH_REMATCH, case $T in
// ghp_a*), set -- $T; echo $1, read x <<< "$T". Such a line is unknown.
// (A command that prints the secret itself is the floor's too:
// printsCredentials.)
func (r *shellReader) secretsExpanded(f *syntax.File) {
	found := ""
	var visit func(syntax.Node) bool
	visit = func(n syntax.Node) bool {
		if found != "" {
			return false
		}
		switch x := n.(type) {
		case *syntax.Stmt:
			call, ok := x.Cmd.(*syntax.CallExpr)
			if !ok {
				return true
			}
			switch {
			case consumesSecrets(call) && !keepsInput(call):
				// Its environment, words and input go where the secret
				// is used; what they substitute runs on its own.
				substitutionsIn(call, visit)
				for _, rd := range x.Redirs {
					substitutionsIn(rd, visit)
				}
				return false
			case testsWhetherSet(call):
				for i, a := range call.Args {
					if i > 0 && isSetTest(call.Args[i-1]) {
						substitutionsIn(a, visit)
					} else {
						syntax.Walk(a, visit)
					}
				}
				for _, rd := range x.Redirs {
					syntax.Walk(rd, visit)
				}
				return false
			}
		case *syntax.UnaryTest:
			if x.Op == syntax.TsNempStr || x.Op == syntax.TsEmpStr {
				substitutionsIn(x.X, visit) // [[ -n $GITHUB_TOKEN ]]: set or not, and nothing printed
				return false
			}
		case *syntax.ParamExp:
			if x.Param != nil && (x.Excl || printsSecretVariable("$"+x.Param.Value)) {
				found = "$" + x.Param.Value + ", a secret's value where the line may print it"
				return false
			}
			for _, e := range paramArithmetic(x) {
				if name := secretNameIn(e); name != "" {
					found = name + ", a secret's value in arithmetic"
					return false
				}
			}
		case *syntax.ArithmExp:
			// $((AWS_SECRET_ACCESS_KEY)), $[X]: a bare name's value is
			// evaluated, and bash prints what it cannot in its error.
			if name := secretNameIn(x.X); name != "" {
				found = name + ", a secret's value in arithmetic"
				return false
			}
		case *syntax.ArithmCmd:
			if name := secretNameIn(x.X); name != "" {
				found = name + ", a secret's value in arithmetic"
				return false
			}
		}
		return true
	}
	syntax.Walk(f, visit)
	if found != "" {
		r.unknown(found)
	}
}

// paramArithmetic are the arithmetic parts of a parameter expansion: an
// array's index and a slice's offset and length (${a[X]}, ${x:0:X}).
func paramArithmetic(x *syntax.ParamExp) []syntax.ArithmExpr {
	var out []syntax.ArithmExpr
	if x.Index != nil {
		out = append(out, x.Index)
	}
	if x.Slice != nil {
		if x.Slice.Offset != nil {
			out = append(out, x.Slice.Offset)
		}
		if x.Slice.Length != nil {
			out = append(out, x.Slice.Length)
		}
	}
	return out
}

// secretNameIn is a bare name in arithmetic that names a secret's
// variable, "" for none.
func secretNameIn(e syntax.Node) string {
	if e == nil {
		return ""
	}
	name := ""
	syntax.Walk(e, func(n syntax.Node) bool {
		if lit, ok := n.(*syntax.Lit); ok && name == "" && printsSecretVariable("$"+lit.Value) {
			name = lit.Value
		}
		return name == ""
	})
	return name
}

// substitutionsIn walks only the command substitutions and process
// substitutions in node, each a command line of its own.
func substitutionsIn(node syntax.Node, visit func(syntax.Node) bool) {
	syntax.Walk(node, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			for _, st := range x.Stmts {
				syntax.Walk(st, visit)
			}
			return false
		case *syntax.ProcSubst:
			for _, st := range x.Stmts {
				syntax.Walk(st, visit)
			}
			return false
		}
		return true
	})
}

// testsWhetherSet reports test or [ (whose -n and -z print nothing of
// their operand).
func testsWhetherSet(x *syntax.CallExpr) bool {
	if len(x.Args) == 0 {
		return false
	}
	prog, ok := literalWord(x.Args[0])
	return ok && shellTests[programName(prog)]
}

// isSetTest reports a test's -n or -z.
func isSetTest(w *syntax.Word) bool {
	v, ok := literalWord(w)
	return ok && (v == "-n" || v == "-z")
}

// keepsInput reports a builtin that keeps its standard input in variables
// (read, mapfile), for what follows to print.
func keepsInput(x *syntax.CallExpr) bool {
	if len(x.Args) == 0 {
		return false
	}
	prog, ok := literalWord(x.Args[0])
	return ok && (prog == "read" || prog == "mapfile" || prog == "readarray")
}

// consumesSecrets reports a command whose program sends a secret where it
// goes (secretConsumers: curl, gh, docker login) rather than print it. Not
// true or ":", after which $_ is what they were given.
func consumesSecrets(x *syntax.CallExpr) bool {
	if len(x.Args) == 0 {
		return false
	}
	prog, ok := literalWord(x.Args[0])
	name := programName(prog)
	return ok && secretConsumers[name] && name != "true" && name != ":"
}
