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
		case (a.opt == "-d" || a.opt == "--dbname") && name == "psql" && a.hasValue:
			r.connection(a.value) // -d 'host=... dbname=...'
		case a.opt != "" && !p.values.has(a.opt) && (name == "sqlite3" || name == "duckdb") && !sqliteFlags[a.opt]:
			r.unknown(name + " " + a.opt) // -A (an archive it extracts), and any mode not known to only format
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
			r.connection(a.value) // psql DBNAME USER, mysql DBNAME: names, or a connection string or URI
		default:
			r.read(a.value, dirs)
		}
	}
	if !statement && !hasFileOption(args, p) {
		r.unknown(name + ": the statements it reads from its standard input")
	}
}

// connection reads a database's name that may be a connection string
// ("host=db.example dbname=app") or a URI: the hosts it names.
func (r *shellReader) connection(w shellWord) {
	if !w.known {
		r.unknown(w.text)
		return
	}
	if hosts, ok := connectionHosts(w.text); ok {
		for _, h := range hosts {
			r.host(w.text, h)
		}
		return
	}
	if readsAsURL(w.text) {
		r.hostWord(w)
	}
}

// sqliteFlags are sqlite3's and duckdb's options that only format or
// restrict what they print.
var sqliteFlags = opts("-header -noheader -csv -json -line -list -column -box -table -markdown -html -ascii -tabs -quote " +
	"-readonly -batch -bail -echo -safe -version -help -interactive -stats -no-stdin -nofollow")

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
