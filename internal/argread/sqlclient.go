package argread

import (
	"github.com/open-policy-agent/opa/v1/ast"
)

// sqlClient reads a database client's words (psql, mysql, sqlite3,
// duckdb, sqlcmd, clickhouse-client): its options by the table (a file
// it reads or writes, the server's host), the statement its code option
// gives read as SQL is (a psql meta-command in it, "\\! cmd", is
// unknown; a file COPY names is a path), sqlite3's and duckdb's
// database file and statement as operands. Without a statement it runs
// what its standard input holds (a here-document, a pipe), which is not
// read here: unknown.
func (r *shellReader) sqlClient(p *program, name string, words []shellWord, dirs []string) {
	args, _ := parseArgs(words, p, false)
	statement := false
	operands := 0
	for _, a := range args {
		switch {
		case a.opt != "" && p.code.has(a.opt) && a.hasValue:
			statement = true
			r.sqlWord(a.value)
		case a.opt != "":
			r.options(p, []shellArg{a}, dirs)
		case (name == "sqlite3" || name == "duckdb") && operands == 0:
			operands++
			r.read(a.value, dirs) // the database's file
		case (name == "sqlite3" || name == "duckdb") && operands == 1:
			operands++
			statement = true
			r.sqlWord(a.value)
		case name == "psql" || name == "mysql" || name == "mariadb":
			// psql DBNAME USER, mysql DBNAME: names, or a connection URI
			if readsAsURL(a.value.text) {
				r.hostWord(a.value)
			}
		default:
			r.read(a.value, dirs)
		}
	}
	if !statement && !hasFileOption(args, p) {
		r.unknown(name + ": the statements it reads from its standard input")
	}
}

// sqlWord reads a word that is a SQL statement.
func (r *shellReader) sqlWord(w shellWord) {
	if !w.known {
		r.unknown(w.text)
		return
	}
	r.w.sqlText(r.s.as(Class{Kind: Content, Evidence: Name}), ast.StringTerm(w.text), w.text)
}

// hasFileOption reports a file option among args whose file the client
// runs the statements of (psql -f, sqlcmd -i, --queries-file).
func hasFileOption(args []shellArg, p *program) bool {
	for _, a := range args {
		switch a.opt {
		case "-f", "--file", "-i", "--queries-file", "-init":
			if p.files.has(a.opt) {
				return true
			}
		}
	}
	return false
}
