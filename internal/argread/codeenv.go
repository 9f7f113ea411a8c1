package argread

import (
	"regexp"
	"strings"
)

// Code that reads the environment. A code runner's code that prints, or
// hands on, the process's environment puts every secret variable into
// the model's context, as printenv does; so does code that reads one
// variable whose name says it holds a secret. What code may do with one
// variable it names (os.environ["HOME"], process.env.NODE_ENV) is its
// own business. So each spelling of the environment as a whole must be
// followed by one variable's name, taken by member, index or a getter,
// and that name no secret's; any other use (printed, iterated, copied,
// converted, passed on, indexed by a variable) reads the whole.

// environmentSpelling finds the environment as a whole in code: Python's
// os.environ and os.environb, Node's process.env, Deno.env, Bun.env,
// Vite's import.meta.env, Ruby's ENV.
var environmentSpelling = regexp.MustCompile(`\b\w+\.environb?\b|\bprocess\.env\b|\bDeno\.env\b|\bBun\.env\b|\bimport\.meta\.env\b|\bENV\s*[\[.]`)

// environmentTaken finds process's env taken out whole: const {env} =
// process, require('process').env spread.
var environmentTaken = regexp.MustCompile(`\{\s*(?:[\w$]+\s*,\s*)*env\b[^}]*\}\s*(?:=\s*(?:process|require\s*\(\s*['"](?:node:)?process['"]\s*\))|` +
	`from\s*['"](?:node:)?process['"])|` +
	// other languages' environment, whole: Rust's, C#'s, Swift's,
	// Elixir's, Perl's, Julia's printed
	`\bstd::env::vars(?:_os)?\s*\(|\bGetEnvironmentVariables\s*\(|\bprocessInfo\.environment\b|\bSystem\.get_env\s*\(\s*\)|` +
	`%ENV\b|\bglobalThis\s*\[\s*['"]process['"]\s*\]|=\s*(?:globalThis\.)?process\s*[;,\n)]|\b(?:println|print|show|display|dump)\s*\(\s*ENV\s*\)|` +
	`\brequire\s*\(\s*['"](?:node:)?process['"]\s*\)\s*(?:\.\s*env\b|\[\s*['"]env['"])|\$_ENV\b|\$_SERVER\b|\b(?:p|pp|puts|print)\s+ENV\b|/proc/(?:self|\d+)/environ`)

// oneVariable matches what follows a spelling of the environment when
// code takes one variable of it: ".NAME", "['NAME']", ".get('NAME'",
// ".fetch('NAME'" (Ruby), ".setdefault('NAME'", ".pop('NAME'".
var oneVariable = regexp.MustCompile(`^\s*(?:\.\s*(?:get|fetch|setdefault|pop|has|delete|key\?)\s*\(\s*['"\x60]([^'"\x60]{1,128})['"\x60]|` +
	`\[\s*['"\x60]([^'"\x60]{1,128})['"\x60]\s*\]|\.\s*([A-Za-z_]\w*)\s*(\(?))`)

// wholeMembers are the members that give the environment whole, called
// or not (Ruby's ENV.to_h, each; Python's items, keys, values).
var wholeMembers = keySetExact("items", "keys", "values", "copy", "to_h", "to_a", "to_hash", "each", "each_pair", "inspect",
	"to_s", "map", "select", "entries", "toObject", "dup", "clone", "filter", "reject", "sort", "get", "fetch")

// environmentWrites are the methods that change the environment and
// read nothing back (os.environ.update({...}), Deno.env.set(...)).
var environmentWrites = regexp.MustCompile(`^\s*\.\s*(?:update|set|clear)\s*\(`)

// codeReadsEnvironment reports code that reads the environment whole, or
// a secret variable of it.
func codeReadsEnvironment(code string) bool {
	if environmentTaken.MatchString(code) {
		return true
	}
	for _, loc := range environmentSpelling.FindAllStringIndex(code, maxShellReadings) {
		start := loc[1]
		if strings.HasPrefix(code[loc[0]:], "ENV") {
			start = loc[1] - 1 // ENV's "[" or "." is what follows it
		}
		rest := code[start:]
		if environmentWrites.MatchString(rest) {
			continue
		}
		m := oneVariable.FindStringSubmatch(rest)
		if m == nil {
			return true // printed, iterated, copied, passed on, indexed by a variable
		}
		name := m[1] + m[2] + m[3]
		if m[4] == "(" || wholeMembers[name] || strings.HasPrefix(name, "_") || printsSecretVariable("$"+name) {
			return true // a method of the whole (os.environ.copy(), ENV.to_h); a secret's value
		}
	}
	return false
}

// treeDeleters find code that deletes a tree or changes its mode or
// owner: Python's shutil.rmtree and os.removedirs, Node's fs.rm and
// rmSync, rimraf, Ruby's FileUtils.rm_rf, Go's os.RemoveAll, chmod and
// chown.
var treeDeleters = regexp.MustCompile(`\b(?:shutil\.rmtree|rmtree|os\.removedirs|rmSync|rmdirSync|fs\.rm|fs\.rmdir|fsPromises\.rm|` +
	`promises\.rm|rimraf|FileUtils\.rm_r|FileUtils\.remove_dir|os\.RemoveAll|unlink|chmod|chown|lchown|Deno\.remove|emptyDir|` +
	`remove_dir_all|os\.rename|shutil\.move|renameSync|fs\.rename|os\.Rename|File\.rename)\w*\s*\(`)

// treeDeletedWhole finds a tree deleter given the home, the working
// directory or "." as an expression (shutil.rmtree(Path.home()),
// fs.rmSync(os.homedir(), ...), FileUtils.rm_rf(Dir.home)).
var treeDeletedWhole = regexp.MustCompile(`\b(?:rmtree|rmSync|rmdirSync|rm_rf|rm_r|RemoveAll|remove_dir_all|emptyDirSync|emptyDir|` +
	`rimraf(?:\.sync)?|fs\.rm|remove_dir)\s*\(\s*(?:Path\.home\s*\(\s*\)|os\.homedir\s*\(\s*\)|Dir\.home|` +
	`os\.path\.expanduser\s*\(\s*['"]~['"]\s*\)|os\.getcwd\s*\(\s*\)|process\.cwd\s*\(\s*\)|Path\.cwd\s*\(\s*\)|` +
	`os\.Getenv\s*\(\s*"HOME"|['"](?:\.|\.\.|~|/|\./|\.\./)['"])`)

// wholeTree reports a clean absolute path that is a whole tree to code
// that deletes or changes it: "/", the root or a directory above it, the
// home directory.
func (w *walker) wholeTree(p string) bool {
	if p == "" {
		return false
	}
	return p == "/" || p == w.root || w.root != "" && strings.HasPrefix(w.root, p+"/") || w.home != "" && (p == w.home || strings.HasPrefix(w.home, p+"/"))
}
