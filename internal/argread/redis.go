package argread

import (
	"strings"
	"unicode"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Redis commands. A key-value store's tool ("redis_execute") takes the
// store's own commands under a command line's name: {"command": "GET k"},
// {"commands": [["SET", "k", "v"], "CONFIG SET dir /x"]}. Their keys and
// values are the store's data, no shell's words and no paths; but a few
// commands reach past the store, and those are read:
//
//   - REPLICAOF, SLAVEOF, MIGRATE and CLUSTER MEET connect to the host
//     they name;
//   - MODULE LOAD loads native code from a file: an unknown path, as a
//     program the call cannot read;
//   - CONFIG SET of a file or directory the server writes or loads (dir,
//     dbfilename, logfile, aclfile, ...) changes where it writes: an
//     unknown path (CONFIG SET dir ~/.ssh then SAVE writes a key file);
//   - DEBUG and SCRIPT DEBUG, which reach into the server's process.

// redisValue reads the value of a key-value tool's command argument: a
// command line, a command's words, or a list of either.
func (w *walker) redisValue(s site, t *ast.Term) {
	switch v := t.Value.(type) {
	case ast.String:
		w.redisCommand(s, t, strings.Fields(string(v)))
	case *ast.Array:
		words := make([]string, 0, v.Len())
		flat := true
		for i := 0; i < v.Len(); i++ {
			str, ok := v.Elem(i).Value.(ast.String)
			if !ok || strings.ContainsFunc(string(str), unicode.IsSpace) {
				flat = false
				break
			}
			words = append(words, string(str))
		}
		if flat {
			w.redisCommand(s, t, words) // ["SET", "k", "v"]: one command's words
			return
		}
		for i := 0; i < v.Len(); i++ {
			w.redisValue(site{s.arg, s.class, &pointer{up: s.at, index: i}, s.depth + 1}, v.Elem(i))
		}
	}
}

// redisCommand reads one command's words.
func (w *walker) redisCommand(s site, t *ast.Term, words []string) {
	if len(words) == 0 {
		return
	}
	arg := func(i int) string {
		if i < len(words) {
			return strings.ToLower(strings.Trim(words[i], `"'`))
		}
		return ""
	}
	host := func(i int) {
		if i < len(words) {
			h, _ := weakHostValue(strings.Trim(words[i], `"'`), true)
			w.addHost(s.as(Class{Kind: Host, Evidence: Word}), t, h)
		}
	}
	lower := make([]string, len(words))
	for i := range words {
		lower[i] = arg(i)
	}
	if redisPrintsCredential(lower) {
		w.credentialCommand(s, words)
	}
	switch arg(0) {
	case "replicaof", "slaveof":
		if arg(1) != "no" {
			host(1)
		}
	case "migrate":
		host(1)
	case "cluster":
		if arg(1) == "meet" {
			host(2)
		}
	case "module":
		if arg(1) == "load" || arg(1) == "loadex" {
			w.addPath(s.as(none), t, "") // native code from a file
		}
	case "config":
		// CONFIG SET takes any number of parameter-value pairs.
		for i := 2; arg(1) == "set" && i < len(words); i += 2 {
			if redisFileSettings[arg(i)] || redisExposure[arg(i)] {
				w.addPath(s.as(none), t, "") // where the server writes or loads a file; whom it listens to
				break
			}
		}
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro", "script", "function":
		// Lua run by the server, which can call CONFIG SET and SAVE as
		// a command can: what it does cannot be told here.
		w.addPath(s.as(none), t, "")
	case "sentinel":
		if arg(1) == "set" && strings.Contains(strings.ToLower(strings.Join(words, " ")), "script") {
			w.addPath(s.as(none), t, "") // notification-script, client-reconfig-script: a program it runs
		}
	case "debug":
		w.addPath(s.as(none), t, "")
	}
}

// redisPrintsCredential reports a Redis command (its words, lower case)
// that prints or sets a credential: CONFIG GET of a password or of every
// parameter, ACL GETUSER and ACL LIST (users' password hashes), CONFIG SET
// of a password, ACL SETUSER.
func redisPrintsCredential(words []string) bool {
	if len(words) < 2 {
		return false
	}
	switch words[0] + " " + words[1] {
	case "config get":
		for _, p := range words[2:] {
			if strings.Contains(p, "pass") || strings.Contains(p, "auth") || strings.Contains(p, "user") || strings.Contains(p, "*") {
				return true
			}
		}
	case "config set":
		for i := 2; i < len(words); i += 2 {
			if strings.Contains(words[i], "pass") || strings.Contains(words[i], "auth") {
				return true
			}
		}
	case "acl getuser", "acl list", "acl setuser", "acl save", "acl load":
		return true
	}
	return false
}

// redisExposure are the CONFIG SET parameters that say whom the server
// listens to: its address, its protected mode, its debug and module
// commands.
var redisExposure = map[string]bool{"bind": true, "protected-mode": true, "enable-debug-command": true,
	"enable-module-command": true, "enable-protected-configs": true, "port": true, "tls-port": true}

// redisFileSettings are the CONFIG SET parameters that name a file or a
// directory the server writes, reads or loads.
var redisFileSettings = map[string]bool{
	"dir": true, "dbfilename": true, "logfile": true, "aclfile": true, "appendfilename": true,
	"appenddirname": true, "unixsocket": true, "pidfile": true, "tls-cert-file": true, "tls-key-file": true,
	"tls-ca-cert-file": true, "tls-ca-cert-dir": true, "loadmodule": true, "include": true,
	"cluster-config-file": true,
}
