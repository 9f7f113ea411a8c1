package argread

import (
	"path"
	"slices"
	"strings"

	awkparser "github.com/benhoyt/goawk/parser"
)

// What a command's words name depends on its program. programs is the
// table of the programs whose words are read otherwise than by default;
// any other program is read by default: each word that is not an option is
// a path relative to the working directory (a URL is a host instead), an
// option's value written "--opt=value" is a path when it reads as a file's
// name, and a later word that names a shell or an interpreter is read as
// the command it starts (an unknown wrapper: "nohup2 sh -c '...'").
//
// Options are read as getopt reads them: "-abc" is three flags unless one
// of them takes a value, "-ofile" and "-o file" give -o the value "file",
// "--name=value" and "--name value" (for a name that takes one) too, and
// "--" ends the options.

// progKind is how a program's words are read.
type progKind uint8

const (
	// progWrapper runs the command after its options (and skip words).
	progWrapper progKind = iota
	// progShell runs a command line (-c) or a script, or reads commands
	// from its standard input.
	progShell
	// progInterpreter runs code given inline (an option in code), a
	// module, or a script.
	progInterpreter
	// progNetwork reaches the hosts its operands name.
	progNetwork
	// progRemote reaches a host (its first operand); what follows is a
	// command run there (ssh), not here.
	progRemote
	// progCopy copies between local paths and remote ones (host:path).
	progCopy
	// progCd changes the working directory.
	progCd
	// progUnknown runs what cannot be read here (eval, source, popd).
	progUnknown
	// progContainer names images, containers and what runs inside them;
	// only its file options and mounts are local.
	progContainer
	// progGit is git: global options, then a subcommand.
	progGit
	// progScript is a program whose first operand is a script of its
	// own language (awk, sed): read by check, else unknown.
	progScript
	// progLookup looks a name up and runs nothing (command -v, which).
	progLookup
	// progData takes data, not files: its operands are no paths (echo,
	// printf, kill, sleep); its file options still are.
	progData
	// progPattern takes a pattern first (unless -e or -f gives it), then
	// files: grep, rg.
	progPattern
	// progFind is find: start points, then an expression whose -exec
	// runs a command.
	progFind
	// progJq is jq: a filter, then files.
	progJq
	// progCLI is a command-line program of a platform (gcloud, aws, az,
	// gh, terraform): subcommands and names, read by their shape, but for
	// its file options and the operands of the subcommands that take
	// local files (cli.go).
	progCLI
	// progSQL is a database's client: the statement its code option gives
	// is SQL (read as SQL is), its files and host are read, and without a
	// statement it runs what its standard input holds (sqlclient.go).
	progSQL
)

// program is a row of the table.
type program struct {
	kind progKind
	// values are the options that take a value (a separate word, or
	// after "=" or attached to a short option).
	values set
	// files are the options whose value is a local path; hosts, those
	// whose value is a host or URL; code, those whose value (or presence,
	// for a shell's -c) is code to run; lines, those whose value is a
	// command line; chdir, those that change the working directory; conn,
	// those whose value is a database's name or connection string
	// (pg_dump -d 'host=x dbname=y').
	files, hosts, code, lines, chdir, conn set
	// skip is how many operands a wrapper reads before its command
	// (timeout's duration); skipPaths says they are paths (flock's lock).
	skip      int
	skipPaths bool
	// stdin says the command's arguments come in part from its standard
	// input as well (xargs): they are unknown.
	stdin bool
	// joined: the wrapper runs its words joined into one command line
	// (watch).
	joined bool
	// each: every operand is a command line of its own (hyperfine's
	// benchmarks).
	each bool
	// runs are the subcommands after which its words are a command it
	// runs (uv run, poetry run, mise exec): read as a wrapper's are.
	runs set
	// inPlace: -i and --in-place take a backup suffix, which may name a
	// directory (sed).
	inPlace bool
	// shellArgs: the words after its options are a shell's arguments
	// (capsh -- -c LINE runs bash -c LINE).
	shellArgs bool
	// check is a script's check (progScript): true when the script runs
	// nothing and writes nothing.
	check func(string) bool
	// privileged runs its command as another user.
	privileged bool
	// recurses: a pattern program that searches each directory's tree
	// (rg, ag, ack), as grep does with -r.
	recurses bool
	// follow are the options with which it follows the links it finds
	// in a tree it reads (grep -R, rg -L, rsync -L, scp -r).
	follow set
	// sends: an operand's "@file" is a file it uploads (curl, HTTPie).
	sends bool
	// shellBuiltin: the wrapper runs its command in the shell itself (a
	// cd through it moves the shell).
	shellBuiltin bool
	// local are a progCLI's subcommands (words joined by a space) whose
	// operands are local files; singleDash: its long options take one
	// dash ("-var-file=x").
	local      set
	names      set
	singleDash bool
}

type set map[string]bool

func opts(s string) set {
	out := set{}
	for _, o := range strings.Fields(s) {
		out[o] = true
	}
	return out
}

var (
	shellProgram = program{kind: progShell, values: opts("-o +o -O +O --rcfile --init-file"), files: opts("--rcfile --init-file")}
	// nonPOSIXShell runs code in a language of its own: -c and --commands
	// are code, a script a path.
	nonPOSIXShell = program{kind: progInterpreter, values: opts("-c --commands --config --env-config -e"), code: opts("-c --commands -e"),
		files: opts("--config --env-config")}
	python = program{kind: progInterpreter, values: opts("-c -m -W -X -Q"), code: opts("-c")}
	nodeJS = program{kind: progInterpreter, values: opts("-e --eval -p --print -r --require --import --loader --experimental-loader -C --conditions --input-type --env-file"),
		code: opts("-e --eval -p --print"), files: opts("-r --require --import --loader --experimental-loader --env-file")}
	vim     = program{kind: progInterpreter, values: opts("-c --cmd -S -u -i"), code: opts("-c --cmd"), files: opts("-S -u -i")}
	clojure = program{kind: progInterpreter, values: opts("-e --eval -M -X -T -A -Sdeps -i --init"), code: opts("-e --eval -M -X -T -Sdeps"),
		files: opts("-i --init")}
	perl = program{kind: progInterpreter, values: opts("-e -E -I -M -m -x"), code: opts("-e -E -M -m")}
	ruby = program{kind: progInterpreter, values: opts("-e -I -r -C -x"), code: opts("-e"), chdir: opts("-C")}
	awk  = program{kind: progScript, values: opts("-v -F -f --file --assign --field-separator -i --include -l --load -E --exec --source -e"),
		code: opts("-i --include -l --load --source -e -f --file -E --exec"), check: awkRunsNothing} // -i: gawk's include, awk code
	// A script in a file (-f) is code this reader does not see: it may
	// write (sed's w, awk's print >) or run a command (e, system()).
	sed = program{kind: progScript, values: opts("-e --expression -f --file -l --line-length"), code: opts("-f --file"), check: sedRunsNothing, inPlace: true}
	ssh = program{kind: progRemote, values: opts("-i -F -E -S -o -J -p -l -L -R -D -b -c -e -m -O -Q -W -w -B -I"),
		files: opts("-i -E -S"), hosts: opts("-J"), code: opts("-o -F -I")} // a config file may name a ProxyCommand; -I loads a PKCS#11 library
	curl = program{kind: progNetwork,
		values: opts("-o --output -T --upload-file -K --config -b --cookie -c --cookie-jar -D --dump-header --cacert --capath --cert -E --key --trace --trace-ascii --stderr " +
			"--netrc-file -x --proxy --preproxy --resolve --connect-to --doh-url -d --data --data-binary --data-raw --data-ascii --data-urlencode -F --form --form-string " +
			"-H --header -X --request -A --user-agent -e --referer -u --user -U --proxy-user -m --max-time --connect-timeout -r --range -w --write-out -z --time-cond " +
			"--retry --retry-delay --retry-max-time -Y --speed-limit -y --speed-time --limit-rate --max-filesize --max-redirs --interface -Q --quote --url -C --continue-at " +
			"--output-dir --unix-socket --abstract-unix-socket --json --variable --oauth2-bearer --aws-sigv4 --ciphers --tls-max --proto --proto-redir"),
		files: opts("-o --output -T --upload-file -K --config -c --cookie-jar -D --dump-header --cacert --capath --cert -E --key --trace --trace-ascii --stderr --netrc-file --output-dir --unix-socket " +
			"--etag-save --etag-compare --libcurl --hsts --alt-svc --ssl-sessions"),
		hosts: opts("-x --proxy --preproxy --doh-url --url"), code: opts("--expand-url --variable")}
	wget = program{kind: progNetwork,
		values: opts("-O --output-document -o --output-file -a --append-output -P --directory-prefix -i --input-file --post-file --body-file --load-cookies --save-cookies " +
			"-e --execute --header -U --user-agent --user --password --post-data --body-data --method -t --tries -T --timeout -w --wait -Q --quota --limit-rate " +
			"-e --referer --ca-certificate --certificate --private-key --config -l --level -A --accept -R --reject -D --domains -X --exclude-directories -I --include-directories"),
		files: opts("-O --output-document -o --output-file -a --append-output -P --directory-prefix -i --input-file --post-file --body-file --load-cookies --save-cookies --ca-certificate --certificate --private-key --config"),
		code:  opts("-e --execute --use-askpass")}
	container = program{kind: progContainer,
		values: opts("-v --volume --mount -f --file --env-file -e --env -w --workdir -p --publish -u --user --name --network --entrypoint -l --label -H --host " +
			"-t --tag --build-arg --platform --target --secret --ssh --build-context --cidfile --iidfile -c --context --config --log-driver --log-opt --kubeconfig -n --namespace " +
			"-o --output --cache-from --cache-to --add-host --dns -m --memory --cpus --restart --hostname --env-file --project-directory --profile --pull " +
			"--from-file --from-env-file --from-literal --set --set-string --set-file --set-json --post-renderer --post-renderer-args -k --kustomize " +
			"--key --cert --ca-file --values --version --repo --kube-apiserver --url --docker --type --selector --container --image --replicas --port --timeout --wait-for"),
		files: opts("-f --file --env-file --cidfile --iidfile --config --kubeconfig --project-directory -o --output --rootfs"), hosts: opts("-H --host --server -s --add-host --dns --repo --kube-apiserver --url")}
	mysqlClient = program{kind: progSQL, values: opts("-e --execute -h --host -P --port -u --user -D --database -S --socket " +
		"--defaults-file --defaults-extra-file --init-command --tee"), code: opts("-e --execute --init-command"),
		files: opts("--defaults-file --defaults-extra-file -S --socket --tee"), hosts: opts("-h --host")}
	mongoTool = program{kind: progData, values: opts("-h --host --port -u --username -p --password -d --db -c --collection -o --out --archive --uri --config --authenticationDatabase -q --query --queryFile --file"),
		hosts: opts("-h --host"), files: opts("-o --out --config --queryFile --file")}
	keyValueClient = program{kind: progData, values: opts("-h -p -s -a -u -n --user --pass -r -i -d --cacert --cert --key --sni --tls"),
		hosts: opts("-h -u"), files: opts("-s --cacert --cert --key")}
	// PostgreSQL's client programs other than psql: the server their
	// host option (or a connection string operand) names.
	pgClient = program{kind: progData, values: opts("-h --host -p --port -U --username -d --dbname -f --file -j --jobs -n --schema -N " +
		"--exclude-schema -t --table -T --exclude-table -F --format -Z --compress -E --encoding -L --use-list -D --pgdata -S --superuser-password"),
		hosts: opts("-h --host"), files: opts("-f --file -L --use-list -D --pgdata"), conn: opts("-d --dbname")}
	// pgClients are the rows of pgClient: their operands are databases'
	// names or connection strings (pg_restore's, its archive).
	pgClients = keySetExact("pg_dump", "pg_dumpall", "pg_restore", "pg_isready", "pg_basebackup", "pgbench", "createdb", "dropdb",
		"createuser", "dropuser", "vacuumdb", "reindexdb", "clusterdb", "pg_receivewal", "pg_recvlogical")
	// LDAP's clients: the server -h or -H names; -y, a password's file.
	ldapClient = program{kind: progData, values: opts("-h -H -p -D -b -s -f -y -w -o -e -E -l -z -a -P -Y -U -R -X -O -T"),
		hosts: opts("-h -H"), files: opts("-f -y -T")} // -x, -Z, -n, -v: flags
	// SNMP's tools: the agent's host, then object names (read as hosts
	// too: an OID names nothing here, and asks).
	snmpClient = program{kind: progNetwork, values: opts("-v -c -u -l -a -A -x -X -r -t -O -m -M -n -e -E -y -Y -I -C -L -Cc")}
	mqttClient = program{kind: progData, values: opts("-h -p -t -m -f -u -P -i -q -L --cafile --cert --key --id -k"),
		hosts: opts("-h -L"), files: opts("-f --cafile --cert --key")}
	mailer  = program{kind: progNetwork, values: opts("-s -a -A -c -b -r -S -q -u"), files: opts("-a -A -q")}
	wrapper = func(values, chdir string, skip int) program {
		return program{kind: progWrapper, values: opts(values), chdir: opts(chdir), skip: skip}
	}
)

// programs is the table, by program name (its base name, lower case).
var programs = map[string]program{
	// Wrappers: each runs the command after its options.
	"sudo": {kind: progWrapper, values: opts("-u -g -C -h -p -D -r -t -U -T --user --group --close-from --host --prompt --chdir --role --type --other-user --command-timeout"),
		chdir: opts("-D --chdir"), privileged: true},
	"doas":         {kind: progWrapper, values: opts("-u -C"), privileged: true},
	"run0":         {kind: progWrapper, values: opts("-u --user -g --group -D --chdir --setenv --nice --unit --property --slice --description"), chdir: opts("-D --chdir"), privileged: true},
	"pkexec":       {kind: progWrapper, values: opts("--user"), privileged: true},
	"su":           {kind: progWrapper, values: opts("-c --command -s --shell -g --group -G --supp-group -w --whitelist-environment"), lines: opts("-c --command"), privileged: true, skip: -1},
	"runuser":      {kind: progWrapper, values: opts("-c --command -s --shell -g --group -G --supp-group -u --user -w"), lines: opts("-c --command"), privileged: true, skip: -1},
	"env":          {kind: progWrapper, values: opts("-u --unset -C --chdir -S --split-string -a --argv0"), chdir: opts("-C --chdir"), code: opts("-S --split-string")},
	"nice":         wrapper("-n --adjustment", "", 0),
	"nohup":        wrapper("", "", 0),
	"timeout":      wrapper("-s --signal -k --kill-after", "", 1),
	"time":         {kind: progWrapper, values: opts("-f --format -o --output"), files: opts("-o --output")},
	"command":      {kind: progWrapper, shellBuiltin: true},
	"builtin":      {kind: progWrapper, shellBuiltin: true},
	"exec":         wrapper("-a", "", 0),
	"stdbuf":       wrapper("-i -o -e --input --output --error", "", 0),
	"ionice":       wrapper("-c -n -p -P -u --class --classdata --pid --pgid --uid", "", 0),
	"chrt":         wrapper("-T -P -D --sched-runtime --sched-period --sched-deadline", "", 1),
	"setsid":       wrapper("", "", 0),
	"unbuffer":     wrapper("", "", 0),
	"caffeinate":   wrapper("-w -t", "", 0),
	"nocorrect":    wrapper("", "", 0),
	"noglob":       wrapper("", "", 0),
	"strace":       {kind: progWrapper, values: opts("-o -e -p -s -a -u -E -P -I -b -O -S -X"), files: opts("-o")},
	"ltrace":       {kind: progWrapper, values: opts("-o -e -p -s -a -u -E -n"), files: opts("-o")},
	"torsocks":     wrapper("-u -p -a -P", "", 0),
	"proxychains":  {kind: progWrapper, values: opts("-f"), files: opts("-f")},
	"proxychains4": {kind: progWrapper, values: opts("-f"), files: opts("-f")},
	"firejail":     wrapper("", "", 0),
	// Commands run as another user by the tools containers use in
	// place of sudo, and a sandbox's way out to its host.
	"gosu":          {kind: progWrapper, skip: 1, privileged: true},
	"setuidgid":     {kind: progWrapper, skip: 1, privileged: true},
	"s6-setuidgid":  {kind: progWrapper, skip: 1, privileged: true},
	"please":        {kind: progWrapper, values: opts("-u --user -g --group -d --dir -t --target -a --allowed -c --check -e --env"), chdir: opts("-d --dir"), privileged: true},
	"dzdo":          {kind: progWrapper, values: opts("-u -g -C -h -p -D -r -t -U -T --user --group --chdir"), chdir: opts("-D --chdir"), privileged: true},
	"pbrun":         {kind: progWrapper, values: opts("-u -h -l"), privileged: true},
	"pmrun":         {kind: progWrapper, values: opts("-u -h"), privileged: true},
	"pfexec":        {kind: progWrapper, privileged: true},
	"ksu":           {kind: progWrapper, skip: 1, values: opts("-n -c -C -k -t -e -f -l -z -Z -q -a"), privileged: true},
	"sudo-rs":       {kind: progWrapper, values: opts("-u -g -C -h -p -D -r -t -U -T --user --group --chdir"), chdir: opts("-D --chdir"), privileged: true},
	"su-exec":       {kind: progWrapper, skip: 1, privileged: true},
	"chpst":         {kind: progWrapper, values: opts("-u -U -b -e -n -l -L -m -d -o -p -f -c -r -t -/"), privileged: true},
	"setpriv":       {kind: progWrapper, values: opts("--reuid --regid --groups --inh-caps --ambient-caps --bounding-set --securebits --selinux-label --apparmor-profile --landlock-access --landlock-rule"), privileged: true},
	"flatpak-spawn": wrapper("--directory --env --forward-fd --unset-env --app-path --usr-path --sandbox-expose --sandbox-expose-ro --sandbox-expose-path --sandbox-expose-path-ro --sandbox-a11y-own-name", "--directory", 0),
	"capsh":         {kind: progWrapper, shellArgs: true, privileged: true},
	// Project tools that run a command in the project's environment.
	"uv":      {values: opts("--with --python -p --env-file --directory --project --package --extra --group --index --from --isolated"), runs: opts("run tool")},
	"uvx":     {kind: progWrapper, values: opts("--with --python -p --from --index")},
	"poetry":  {values: opts("-C --directory -P --project"), runs: opts("run")},
	"pipenv":  {runs: opts("run")},
	"stack":   {values: opts("--stack-yaml --work-dir --resolver --compiler --eval"), code: opts("--eval"), runs: opts("exec")},
	"cabal":   {values: opts("--project-file --builddir"), runs: opts("exec")},
	"bundle":  {values: opts("--gemfile"), runs: opts("exec")}, // bundle exec rails ...: bundle's exec, not the shell's
	"conda":   {values: opts("-n --name -p --prefix --cwd"), runs: opts("run")},
	"mamba":   {values: opts("-n --name -p --prefix --cwd"), runs: opts("run")},
	"pdm":     {values: opts("-p --project"), runs: opts("run")},
	"rye":     {runs: opts("run")},
	"hatch":   {values: opts("-e --env"), runs: opts("run")},
	"pixi":    {values: opts("-e --environment --manifest-path"), runs: opts("run exec")},
	"devbox":  {values: opts("-c --config"), runs: opts("run")},
	"mise":    {values: opts("-C --cd -E --env"), runs: opts("x exec")},
	"chronic": wrapper("", "", 0),
	// Runners that load an environment (a .env file, assignments) and run
	// the command after it: what it is, is read (npx cross-env printenv).
	"cross-env":       {kind: progWrapper},
	"cross-env-shell": {kind: progWrapper, each: true},
	"env-cmd":         {kind: progWrapper, values: opts("-f --file -e --environments -r --rc-file")},
	"dotenv":          {kind: progWrapper, values: opts("-e -v -c -p -f")},
	"envdir":          {kind: progWrapper, skip: 1, skipPaths: true},
	// Runners of command lines: watchexec's command (a shell runs it),
	// concurrently's each operand, nodemon's --exec; npx and its kin run a
	// package's program with what follows.
	"concurrently": {kind: progWrapper, values: opts("-n --names -c --prefix-colors -p --prefix -k --kill-others -s --success -r --raw --max-processes -m"), each: true},
	"nodemon":      {kind: progWrapper, values: opts("-x --exec -w --watch -e --ext -i --ignore -d --delay --signal"), lines: opts("-x --exec")},
	"npx":          {kind: progWrapper, values: opts("-p --package -c --call"), lines: opts("-c --call")},
	"bunx":         {kind: progWrapper, values: opts("-p --package")},
	"pnpx":         {kind: progWrapper, values: opts("-p --package -c")},
	"watchexec": {kind: progWrapper, values: opts("-e --exts -w --watch -i --ignore -d --debounce -s --signal --shell -f --filter --project-origin --workdir"),
		code: opts("--shell"), joined: true}, // its command's words joined, for a shell
	"nix":   {values: opts("--file -f --expr --override-input"), code: opts("--expr"), runs: opts("develop shell run")},
	"xidel": {kind: progInterpreter, values: opts("-e --extract --xquery --xpath --css --follow -f --extract-file"), code: opts("-e --extract --xquery --xpath --follow -f"), files: opts("--extract-file")},
	// Programs whose operands are command lines, each run by a shell.
	"hyperfine": {kind: progWrapper, values: opts("-w --warmup -m --min-runs -M --max-runs -r --runs -s --setup -p --prepare -c --cleanup --conclude -P --parameter-scan -D --parameter-step-size -L --parameter-list -S --shell --style -u --time-unit --export-asciidoc --export-csv --export-json --export-markdown --export-orgmode --output --input -n --command-name --sort --reference"),
		lines: opts("-s --setup -p --prepare -c --cleanup --conclude --reference"), code: opts("-S --shell"), files: opts("--export-asciidoc --export-csv --export-json --export-markdown --export-orgmode --input"), each: true},
	"flock":  {kind: progWrapper, values: opts("-w --timeout -E --conflict-exit-code -c --command"), lines: opts("-c --command"), skip: 1, skipPaths: true},
	"chroot": {kind: progWrapper, values: opts("--userspec --groups"), skip: 1, skipPaths: true, chdir: opts("--chroot")},
	"xargs": {kind: progWrapper, values: opts("-I -n -P -d -E -e -L -l -s -a --arg-file --delimiter --max-args --max-procs --replace --eof --max-lines --max-chars --process-slot-var"),
		files: opts("-a --arg-file"), stdin: true},
	"parallel": {kind: progWrapper, values: opts("-j --jobs -S --sshlogin --arg-file -a --delay --timeout --joblog --results --tmpdir"), files: opts("-a --arg-file --joblog --results --tmpdir"), stdin: true, joined: true},
	"watch":    {kind: progWrapper, values: opts("-n --interval -d --differences -g -x -t"), joined: true},
	"busybox":  wrapper("", "", 0),
	"systemd-run": {kind: progWrapper, values: opts("-p --property -u --unit -E --setenv --working-directory --slice --description -M --machine -H --host"),
		chdir: opts("--working-directory")},

	// Shells.
	"sh": shellProgram, "bash": shellProgram, "zsh": shellProgram, "dash": shellProgram, "ksh": shellProgram, "mksh": shellProgram,
	"ash": shellProgram, "fish": shellProgram, "tcsh": shellProgram, "csh": shellProgram, "yash": shellProgram, "rbash": shellProgram,
	"osh": shellProgram, "pdksh": shellProgram, "oksh": shellProgram, "loksh": shellProgram, "lksh": shellProgram, "hush": shellProgram,
	"posh": shellProgram, "sash": shellProgram, "jsh": shellProgram, "bosh": shellProgram,
	// Shells of languages of their own: -c's code is not a POSIX line.
	"nu": nonPOSIXShell, "nushell": nonPOSIXShell, "xonsh": nonPOSIXShell, "elvish": nonPOSIXShell, "ysh": nonPOSIXShell, "oil": nonPOSIXShell,
	"rc": nonPOSIXShell, "es": nonPOSIXShell, "ion": nonPOSIXShell, "scsh": nonPOSIXShell, "murex": nonPOSIXShell,

	// Interpreters that run code given inline.
	"python": python, "python2": python, "python3": python, "pypy": python, "pypy3": python, "ipython": python, "ipython3": python,
	"m4":   {kind: progInterpreter, values: opts("-D --define -U --undefine -I --include -o --error-output"), files: opts("-I --include -o --error-output")},
	"node": nodeJS, "nodejs": nodeJS, "bun": nodeJS, "deno": {kind: progInterpreter, values: opts("--eval"), code: opts("--eval")},
	"perl": perl, "ruby": ruby, "raku": perl, "rakudo": perl, "perl6": perl, "truffleruby": ruby, "jruby": ruby,
	"qjs":        {kind: progInterpreter, values: opts("-e --eval -I --include -m --module"), code: opts("-e --eval")},
	"php":        {kind: progInterpreter, values: opts("-r -B -R -E -F -f -c -d -z -S -t"), code: opts("-r -B -R -E -F -d"), files: opts("-f -c -z")},
	"lua":        {kind: progInterpreter, values: opts("-e -l"), code: opts("-e")},
	"luajit":     {kind: progInterpreter, values: opts("-e -l -b -j"), code: opts("-e")},
	"rscript":    {kind: progInterpreter, values: opts("-e"), code: opts("-e")},
	"osascript":  {kind: progInterpreter, values: opts("-e -l -s"), code: opts("-e")},
	"pwsh":       {kind: progInterpreter, values: opts("-c -command -commandwithargs -cwa -encodedcommand -ec -e -f -file -wd -workingdirectory"), code: opts("-c -command -commandwithargs -cwa -encodedcommand -ec -e"), chdir: opts("-wd -workingdirectory")},
	"powershell": {kind: progInterpreter, values: opts("-c -command -encodedcommand -ec -e -f -file"), code: opts("-c -command -encodedcommand -ec -e")},
	"tclsh":      {kind: progInterpreter},
	"julia":      {kind: progInterpreter, values: opts("-e --eval -E --print -L --load -p --procs"), code: opts("-e --eval -E --print"), files: opts("-L --load")},
	"groovy":     {kind: progInterpreter, values: opts("-e"), code: opts("-e")},
	"jshell":     {kind: progInterpreter},
	"vim":        vim, "view": vim, "rvim": vim, "vimdiff": vim,
	"nvim":  {kind: progInterpreter, values: opts("-c --cmd -S -u -i -l"), code: opts("-c --cmd -l"), files: opts("-S -u -i")},
	"emacs": {kind: progInterpreter, values: opts("--eval -eval -l --load -load -f --funcall -funcall"), code: opts("--eval -eval -f --funcall -funcall"), files: opts("-l --load -load")},
	// More languages' runners (red team: an interpreter the table did not
	// know ran its inline code as a file's name): Lisps, ML and the JVM's
	// and BEAM's scripting, numeric languages.
	"racket":  {kind: progInterpreter, values: opts("-e --eval -f --load -r --script -t --require -l --lib -p -k"), code: opts("-e --eval -l --lib -p"), files: opts("-f --load -r --script -t --require")},
	"guile":   {kind: progInterpreter, values: opts("-c -l -e -s -L -C -x"), code: opts("-c -e"), files: opts("-l -s")},
	"sbcl":    {kind: progInterpreter, values: opts("--eval --load --script --core --userinit --sysinit"), code: opts("--eval"), files: opts("--load --script --core --userinit --sysinit")},
	"clisp":   {kind: progInterpreter, values: opts("-x -i -c -l -M"), code: opts("-x"), files: opts("-i -c -l -M")},
	"ecl":     {kind: progInterpreter, values: opts("-eval --eval -load --load -shell --shell"), code: opts("-eval --eval"), files: opts("-load --load -shell --shell")},
	"octave":  {kind: progInterpreter, values: opts("--eval -p --path"), code: opts("--eval")},
	"matlab":  {kind: progInterpreter, values: opts("-r -batch -sd"), code: opts("-r -batch"), chdir: opts("-sd")},
	"elixir":  {kind: progInterpreter, values: opts("-e --eval -r -pr --erl -S"), code: opts("-e --eval --erl -S"), files: opts("-r -pr")},
	"iex":     {kind: progInterpreter, values: opts("-e --eval -S --erl --dot-iex"), code: opts("-e --eval -S --erl"), files: opts("--dot-iex")},
	"erl":     {kind: progInterpreter, values: opts("-eval -s -run -pa -pz -config -args_file"), code: opts("-eval -s -run"), files: opts("-config -args_file")},
	"escript": {kind: progInterpreter},
	"ghc":     {kind: progInterpreter, values: opts("-e -o -i"), code: opts("-e")},
	"ghci":    {kind: progInterpreter, values: opts("-e -ghci-script"), code: opts("-e"), files: opts("-ghci-script")},
	"runghc":  {kind: progInterpreter}, "runhaskell": {kind: progInterpreter},
	"jrunscript": {kind: progInterpreter, values: opts("-e -f -l -cp -classpath"), code: opts("-e"), files: opts("-f")},
	"scala":      {kind: progInterpreter, values: opts("-e -cp -classpath -i"), code: opts("-e"), files: opts("-i")},
	"kotlin":     {kind: progInterpreter, values: opts("-e -cp -classpath"), code: opts("-e")},
	"kotlinc":    {kind: progInterpreter, values: opts("-e -script -cp -classpath -d"), code: opts("-e"), files: opts("-script")},
	"clojure":    clojure, "clj": clojure,
	"bb":      {kind: progInterpreter, values: opts("-e --eval -f --file -x -m --main -cp --classpath"), code: opts("-e --eval -x -m --main"), files: opts("-f --file")},
	"wish":    {kind: progInterpreter},
	"swift":   {kind: progInterpreter, values: opts("-e"), code: opts("-e")},
	"dart":    {kind: progInterpreter},
	"crystal": {kind: progInterpreter, values: opts("-e"), code: opts("-e")},
	"nim":     {kind: progInterpreter, values: opts("--eval"), code: opts("--eval")},
	"ocaml":   {kind: progInterpreter},
	"tsx":     {kind: progInterpreter, values: opts("-e --eval -p --print --import --require"), code: opts("-e --eval -p --print"), files: opts("--import --require")},
	"ts-node": {kind: progInterpreter, values: opts("-e --eval -p --print -r --require"), code: opts("-e --eval -p --print"), files: opts("-r --require")},

	// Scripts of a language of their own, read by a check.
	"awk": awk, "gawk": awk, "mawk": awk, "nawk": awk,
	"sed": sed, "gsed": sed,

	// Programs that run what cannot be read here.
	"eval": {kind: progUnknown}, "source": {kind: progUnknown}, ".": {kind: progUnknown}, "popd": {kind: progUnknown},
	"trap": {kind: progUnknown}, "alias": {kind: progUnknown}, "fc": {kind: progUnknown}, "coproc": {kind: progUnknown},
	"at": {kind: progUnknown}, "batch": {kind: progUnknown}, "crontab": {kind: progUnknown}, "script": {kind: progUnknown},
	"expect": {kind: progUnknown}, "tmux": {kind: progUnknown}, "screen": {kind: progUnknown}, "nsenter": {kind: progUnknown},
	"unshare": {kind: progUnknown}, "ssh-agent": {kind: progUnknown}, "dbus-run-session": {kind: progUnknown},

	// The working directory.
	"cd": {kind: progCd, values: opts("")}, "pushd": {kind: progCd, values: opts("")},

	// Programs that take data, not files, and builtins that touch none.
	"echo": {kind: progData}, "printf": {kind: progData, values: opts("-v")}, "true": {kind: progData}, "false": {kind: progData},
	"sleep": {kind: progData}, "kill": {kind: progData, values: opts("-s -n")}, "killall": {kind: progData}, "pkill": {kind: progData}, "exit": {kind: progData},
	"return": {kind: progData}, "set": {kind: progData}, "unset": {kind: progData}, "shift": {kind: progData}, "test": {kind: progData},
	"[": {kind: progData}, "expr": {kind: progData}, "seq": {kind: progData}, "yes": {kind: progData}, "id": {kind: progData},
	"whoami": {kind: progData}, "uname": {kind: progData}, "basename": {kind: progData}, "dirname": {kind: progData},
	"printenv": {kind: progData}, "read": {kind: progData}, "wait": {kind: progData}, "jobs": {kind: progData}, "bg": {kind: progData},
	"fg": {kind: progData}, "disown": {kind: progData}, "umask": {kind: progData}, "ulimit": {kind: progData}, "getopts": {kind: progData},
	"break": {kind: progData}, "continue": {kind: progData}, ":": {kind: progData}, "nproc": {kind: progData}, "arch": {kind: progData},
	"tty": {kind: progData}, "groups": {kind: progData}, "clear": {kind: progData}, "tput": {kind: progData}, "ps": {kind: progData},
	"top": {kind: progData}, "htop": {kind: progData}, "free": {kind: progData}, "uptime": {kind: progData}, "history": {kind: progUnknown},
	"date":  {kind: progData, values: opts("-d --date -f --file -r --reference -s --set"), files: opts("-f --file -r --reference")},
	"times": {kind: progData}, "local": {kind: progData}, "typeset": {kind: progData},

	// A pattern, then files.
	"grep": {kind: progPattern, follow: opts("-R --dereference-recursive"), values: opts("-e --regexp -f --file -m --max-count -A --after-context -B --before-context -C --context --include --exclude --exclude-dir --exclude-from -d --directories -D --devices --label --binary-files --group-separator"),
		files: opts("-f --file --exclude-from")},
	"egrep": {kind: progPattern, values: opts("-e --regexp -f --file -m --max-count -A -B -C --include --exclude --exclude-dir"), files: opts("-f --file")},
	"fgrep": {kind: progPattern, values: opts("-e --regexp -f --file -m --max-count -A -B -C --include --exclude --exclude-dir"), files: opts("-f --file")},
	"rg": {kind: progPattern, values: opts("--pre --hostname-bin -e --regexp -f --file -m --max-count -A --after-context -B --before-context -C --context -g --glob --iglob -t --type -T --type-not " +
		"-j --threads --max-depth -d -M --max-columns --sort --sortr --pre --pre-glob -E --encoding --engine --ignore-file --path-separator -r --replace --type-add --colors --color " +
		"--max-filesize --dfa-size-limit --regex-size-limit --context-separator --field-context-separator --field-match-separator"),
		files: opts("-f --file --ignore-file"), code: opts("--pre --hostname-bin"), recurses: true, follow: opts("-L --follow")},
	"ag": {kind: progPattern, values: opts("-A -B -C -G --file-search-regex -g -m --max-count --ignore --depth -p --path-to-ignore --pager"), files: opts("-p --path-to-ignore"), code: opts("--pager"), recurses: true, follow: opts("-f --follow")},
	// ugrep and the other searchers of trees.
	"ugrep": {kind: progPattern, recurses: true, follow: opts("-R --dereference-recursive -S"), values: opts("-e --regexp -f --file -m --max-count -A -B -C -g --glob --include --exclude -t --file-type -d --directories -M"),
		files: opts("-f --file")},
	"ug":   {kind: progPattern, recurses: true, follow: opts("-R --dereference-recursive -S"), values: opts("-e --regexp -f --file -m --max-count -A -B -C -g --glob --include --exclude -t --file-type -d --directories -M"), files: opts("-f --file")},
	"sift": {kind: progPattern, recurses: true, values: opts("-e --regexp -f --patterns-file -A -B -C --ext --exclude-path --include-path")},
	"pt":   {kind: progPattern, recurses: true, follow: opts("-f --follow"), values: opts("-A -B -C -G --file-search-regexp --depth")},
	"rga":  {kind: progPattern, recurses: true, follow: opts("-L --follow"), values: opts("-e --regexp -f --file -g --glob -t --type")},
	"ack": {kind: progPattern, values: opts("-A -B -C -m --max-count --type --ignore-dir --ignore-file -g --pager --ackrc"), files: opts("--ackrc"),
		code: opts("--pager"), recurses: true, follow: opts("--follow")}, // --pager: a program, run by a shell
	"find": {kind: progFind},
	"jq":   {kind: progJq}, "yq": {kind: progJq}, "gojq": {kind: progJq}, "jaq": {kind: progJq},

	// Looking a name up runs nothing.
	"which": {kind: progLookup}, "type": {kind: progLookup}, "whereis": {kind: progLookup},

	// Programs that run code given as an argument, a script on their
	// standard input, or a pager or helper program of the caller's.
	"hash": {kind: progUnknown}, "shopt": {kind: progUnknown}, "mapfile": {kind: progUnknown}, "readarray": {kind: progUnknown},
	"complete": {kind: progUnknown}, "compgen": {kind: progUnknown}, "dc": {kind: progUnknown}, "bc": {kind: progUnknown},
	"r": {kind: progUnknown}, "ex": {kind: progUnknown}, "vi": {kind: progUnknown}, "ed": {kind: progUnknown},
	"gdb": {kind: progUnknown}, "lldb": {kind: progUnknown}, "gnuplot": {kind: progUnknown}, "man": {kind: progUnknown},
	"psql": {kind: progSQL, values: opts("-c --command -f --file -h --host -p --port -U --username -d --dbname -o --output -L --log-file " +
		"-v --set --variable -P --pset -F --field-separator -R --record-separator -T --table-attr"),
		code: opts("-c --command"), files: opts("-f --file -o --output -L --log-file"), hosts: opts("-h --host")},
	"mysql": mysqlClient, "mariadb": mysqlClient,
	"sqlite3": {kind: progSQL, values: opts("-cmd -init -separator -newline -nullvalue"), code: opts("-cmd"), files: opts("-init")},
	"duckdb":  {kind: progSQL, values: opts("-c -s -cmd -init -separator"), code: opts("-c -s -cmd"), files: opts("-init")},
	"sqlcmd":  {kind: progSQL, values: opts("-S -U -P -d -Q -q -i -o -H -l -t"), code: opts("-Q -q"), files: opts("-i -o"), hosts: opts("-S")},
	"clickhouse-client": {kind: progSQL, values: opts("-q --query -h --host --port -u --user -d --database --queries-file"),
		code: opts("-q --query"), files: opts("--queries-file"), hosts: opts("-h --host")},
	"clickhouse": {kind: progUnknown}, "cqlsh": {kind: progUnknown},
	"mongosh": {kind: progUnknown}, "mongo": {kind: progUnknown}, "xdg-open": {kind: progUnknown}, "open": {kind: progUnknown},
	"sshpass": {kind: progUnknown}, "patch": {kind: progUnknown}, "cpio": {kind: progUnknown}, "sg": {kind: progUnknown},
	"nix-shell": {kind: progUnknown}, "ln": {kind: progUnknown}, "link": {kind: progUnknown},
	"taskset": wrapper("-c --cpu-list", "", 1), "numactl": wrapper("-C -N -m -i -p --physcpubind --cpunodebind --membind --interleave --preferred", "", 0),
	"fakeroot": wrapper("-l --lib --faked -s -i", "", 0), "xvfb-run": wrapper("-n --server-num -s --server-args -f --auth-file -e --error-file", "", 0), "nmap": {kind: progNetwork, values: opts("-p -oN -oX -oG -oA -iL --script -e -S")}, "masscan": {kind: progNetwork, values: opts("-p --rate")},
	// Clients whose operands are the hosts they reach.
	"ssh-keyscan": {kind: progNetwork, values: opts("-p -T -t -f -O"), files: opts("-f")},
	"curlie":      curl,
	"gnutls-cli": {kind: progNetwork, values: opts("-p --port --x509cafile --x509certfile --x509keyfile --priority --sni-hostname --alpn -r --rehandshake"),
		files: opts("--x509cafile --x509certfile --x509keyfile")},
	"rdesktop": {kind: progNetwork, values: opts("-u -d -s -c -p -n -k -g -a -r -x -T")}, "xfreerdp": {kind: progNetwork}, "xfreerdp3": {kind: progNetwork},
	"snmpwalk": snmpClient, "snmpget": snmpClient, "snmpset": snmpClient, "snmpbulkwalk": snmpClient, "snmpgetnext": snmpClient,
	// yt-dlp's options that run a program, load code or a config, or
	// read the user's credentials are unknown: --exec, --netrc-cmd,
	// --downloader, --ffmpeg-location, --plugin-dirs, Exec postprocessors,
	// --alias (options of its own making), --netrc, a browser's cookies.
	"yt-dlp": {kind: progNetwork, values: opts("-o --output -f --format -a --batch-file --cookies --config-location --config-locations -P --paths --proxy " +
		"--exec --exec-before-download --netrc-cmd --downloader --external-downloader --downloader-args --external-downloader-args " +
		"--ffmpeg-location --plugin-dirs --use-postprocessor --alias --postprocessor-args --ppa --print-to-file --cookies-from-browser " +
		"--download-archive --load-info-json -u --username -p --password --client-certificate --client-certificate-key --netrc-location"),
		code: opts("--exec --exec-before-download --netrc-cmd --downloader --external-downloader --downloader-args --external-downloader-args " +
			"--ffmpeg-location --plugin-dirs --use-postprocessor --alias --postprocessor-args --ppa --print-to-file --cookies-from-browser --netrc " +
			"--config-location --config-locations --netrc-location"),
		files: opts("-o --output -a --batch-file --cookies -P --paths --download-archive --load-info-json --client-certificate --client-certificate-key"),
		hosts: opts("--proxy")},
	"youtube-dl": {kind: progNetwork, values: opts("-o --output -f --format -a --batch-file --cookies --config-location --proxy --exec -u --username -p --password"),
		code: opts("--exec"), files: opts("-o --output -a --batch-file --cookies --config-location"), hosts: opts("--proxy")},
	"links": {kind: progNetwork}, "lynx": {kind: progNetwork}, "w3m": {kind: progNetwork}, "elinks": {kind: progNetwork}, "tftp": {kind: progNetwork},

	// Network programs: their operands are URLs or hosts.
	"curl": curl, "wget": wget, "wget2": wget,
	"http": {kind: progNetwork, sends: true, values: opts("-a --auth -A --auth-type --session --session-read-only -o --output --cert --cert-key --verify --proxy"),
		files: opts("-o --output --cert --cert-key --session --session-read-only"), hosts: opts("--proxy")},
	"https":  {kind: progNetwork, sends: true, values: opts("-a --auth -A --auth-type --session -o --output --cert --cert-key --verify --proxy"), files: opts("-o --output --cert --cert-key --session"), hosts: opts("--proxy")},
	"xh":     {kind: progNetwork, sends: true, values: opts("-a --auth -A --auth-type --session -o --output --cert --cert-key --verify --proxy"), files: opts("-o --output --cert --cert-key --session"), hosts: opts("--proxy")},
	"aria2c": {kind: progNetwork, values: opts("-d --dir -o --out -i --input-file -x -s -j"), files: opts("-d --dir -o --out -i --input-file")},
	"ping":   {kind: progNetwork, values: opts("-c -i -s -t -W -w -I -p -Q -M -l")}, "ping6": {kind: progNetwork, values: opts("-c -i -s -t -W -w -I")},
	"traceroute": {kind: progNetwork, values: opts("-m -p -q -w -i -s -f -z")}, "tracepath": {kind: progNetwork, values: opts("-l -m -p")},
	"mtr": {kind: progNetwork, values: opts("-c -i -s")}, "dig": {kind: progNetwork, values: opts("-p -t -c -b -f -k -q -x -y"), files: opts("-f -k")},
	"drill": {kind: progNetwork, values: opts("-p -t -c -k -r -s -y -b -q"), files: opts("-k -r")}, "kdig": {kind: progNetwork, values: opts("-p -t -c -b -k -q -x -y"), files: opts("-k")},
	"nslookup": {kind: progNetwork}, "host": {kind: progNetwork, values: opts("-t -c -N -R -W")}, "whois": {kind: progNetwork, values: opts("-h -p"), hosts: opts("-h")},
	// Clients of data stores and brokers: the server their host option
	// names (the data they send is the store's).
	"redis-cli":  keyValueClient,
	"valkey-cli": keyValueClient,
	"keydb-cli":  keyValueClient,
	"redis-benchmark": {kind: progData, values: opts("-h -p -s -a -c -n -d -P -t -r --user --dbnum --threads --cacert --cert --key"),
		hosts: opts("-h"), files: opts("-s --cacert --cert --key")},
	// MongoDB's tools: --host and -h name the server, as --uri's host does.
	"mongodump": mongoTool, "mongorestore": mongoTool, "mongoexport": mongoTool, "mongoimport": mongoTool,
	"mongostat": mongoTool, "mongotop": mongoTool, "mongofiles": mongoTool,
	"mosquitto_pub": mqttClient,
	"mosquitto_sub": mqttClient,
	"pg_dump":       pgClient, "pg_dumpall": pgClient, "pg_restore": pgClient, "pg_isready": pgClient, "pg_basebackup": pgClient,
	"pgbench": pgClient, "createdb": pgClient, "dropdb": pgClient, "createuser": pgClient, "dropuser": pgClient, "vacuumdb": pgClient,
	"reindexdb": pgClient, "clusterdb": pgClient, "pg_receivewal": pgClient, "pg_recvlogical": pgClient,
	"ldapsearch": ldapClient, "ldapmodify": ldapClient, "ldapadd": ldapClient, "ldapdelete": ldapClient, "ldapwhoami": ldapClient,
	"ldappasswd": ldapClient, "ldapcompare": ldapClient, "ldapmodrdn": ldapClient,
	"iperf3": {kind: progData, values: opts("-c --client -p --port -B --bind -t --time -b --bitrate -l --length -P --parallel -f --format --logfile -J"),
		hosts: opts("-c --client"), files: opts("--logfile")},
	"iperf": {kind: progData, values: opts("-c --client -p --port -B --bind -t --time -b --bandwidth -l --len -P --parallel -f --format"),
		hosts: opts("-c --client")},
	"etcdctl": {kind: progData, values: opts("--endpoints --cacert --cert --key --user --password --dial-timeout --command-timeout"),
		hosts: opts("--endpoints"), files: opts("--cacert --cert --key")},
	"nats": {kind: progData, values: opts("-s --server --creds --user --password --tlscert --tlskey --tlsca --context --nkey"),
		hosts: opts("-s --server"), files: opts("--creds --tlscert --tlskey --tlsca --nkey")},
	// Mailers: a recipient's address names its domain, the host the
	// message (and what is attached or piped in) goes to.
	"mail":      mailer,
	"mailx":     mailer,
	"s-nail":    mailer,
	"bsd-mailx": mailer,
	"mutt":      {kind: progNetwork, values: opts("-s -a -c -b -F -i -H -e -f"), files: opts("-a -F -i -H -f"), code: opts("-e")},
	"neomutt":   {kind: progNetwork, values: opts("-s -a -c -b -F -i -H -e -f"), files: opts("-a -F -i -H -f"), code: opts("-e")},
	"mpack":     {kind: progNetwork, values: opts("-s -d -c -o -m"), files: opts("-d -o")},
	"ssmtp":     {kind: progNetwork, values: opts("-f -F -au -ap -C"), files: opts("-C")},
	"sendemail": {kind: progNetwork, values: opts("-f -t -cc -bcc -u -m -a -s -xu -xp -o -l"), files: opts("-a -l"), hosts: opts("-t -cc -bcc -s")},
	"sendmail":  {kind: progNetwork, values: opts("-f -F -r -O -o -B -N -R -V -X -C"), files: opts("-C -X")},
	"msmtp":     {kind: progNetwork, values: opts("-a --account -C --file --host --from -f"), files: opts("-C --file"), hosts: opts("--host")},
	"swaks": {kind: progNetwork, values: opts("--to -t --from -f --server -s --port -p --attach --attach-type --body --header --auth-user " +
		"--auth-password -au -ap --data -d --helo"), files: opts("--attach --body --data -d"), hosts: opts("--to -t --server -s")},
	"nc":     {kind: progNetwork, values: opts("-e -c -p -s -w -x -X -i -q -I -O -T -V"), code: opts("-e -c"), hosts: opts("-x -s")},
	"ncat":   {kind: progNetwork, values: opts("-e --exec -c --sh-exec --lua-exec -p -s -w -x --proxy"), code: opts("-e --exec -c --sh-exec --lua-exec"), hosts: opts("-x --proxy -s")},
	"netcat": {kind: progNetwork, values: opts("-e -c -p -s -w -x -X"), code: opts("-e -c"), hosts: opts("-x -s")},
	"telnet": {kind: progNetwork, values: opts("-l -b -e -n")}, "socat": {kind: progUnknown},
	"ftp": {kind: progNetwork}, "lftp": {kind: progUnknown}, "smbclient": {kind: progUnknown}, "openssl": {kind: progUnknown},

	"ssh": ssh, "dbclient": ssh, "mosh": {kind: progRemote, values: opts("--ssh -p --port --server"), code: opts("--ssh --server")},
	"autossh": ssh, "ssh-copy-id": ssh,
	"sshfs": {kind: progCopy, values: opts("-o -p -F"), files: opts("-F"), code: opts("-o")},
	"scp":   {kind: progCopy, follow: opts("-r"), values: opts("-i -F -o -P -S -c -l -J -D -X"), files: opts("-i -F"), hosts: opts("-J"), code: opts("-S -o")},
	"sftp":  {kind: progRemote, values: opts("-i -F -o -P -S -b -B -c -D -J -l -R -s"), files: opts("-i -F -b"), hosts: opts("-J"), code: opts("-S -s -o -D")},
	"rsync": {kind: progCopy, follow: opts("-L --copy-links -k --copy-dirlinks --copy-unsafe-links"), values: opts("-e --rsh --rsync-path --exclude --include --exclude-from --include-from --files-from --filter -f --log-file --password-file " +
		"--backup-dir --partial-dir --temp-dir -T --compare-dest --copy-dest --link-dest --chmod --chown --timeout --bwlimit --max-size --min-size --port --address --sockopts --out-format --log-file-format --info --debug"),
		files: opts("--exclude-from --include-from --files-from --log-file --password-file --backup-dir --partial-dir --temp-dir -T --compare-dest --copy-dest --link-dest"),
		code:  opts("-e --rsh --rsync-path")},

	"git": {kind: progGit, values: opts("-C -c --git-dir --work-tree --namespace --exec-path --config-env --super-prefix --list-cmds --attr-source"),
		files: opts("--git-dir --work-tree"), code: opts("-c --exec-path --config-env")},

	"docker": container, "podman": container, "buildah": container, "nerdctl": container, "docker-compose": container, "kubectl": container, "oc": container, "helm": container, "ctr": container,
}

// programName is the table's name for a program word: its base name, in
// lower case (a case-blind file system finds CURL as curl), without a
// version ("python3.12" is python3).
func programName(word string) string {
	name := strings.ToLower(path.Base(strings.ReplaceAll(word, "\\", "/")))
	name = strings.TrimSuffix(name, ".exe")
	if _, ok := programs[name]; ok {
		return name
	}
	if i := strings.IndexByte(name, '.'); i > 0 && name != "." {
		if trimmed := strings.TrimRight(name[:i], "0123456789"); trimmed != "" {
			if _, ok := programs[name[:i]]; ok {
				return name[:i] // python3.12
			}
			if _, ok := programs[trimmed]; ok {
				return trimmed
			}
		}
	}
	if trimmed := strings.TrimRight(name, "0123456789.-"); trimmed != name && trimmed != "" {
		if _, ok := programs[trimmed]; ok {
			return trimmed // perl5.36, ruby3, lua5.4, pip-3
		}
	}
	return name
}

// codeVariable reports an environment variable through which a command's
// program loads or runs other code: set on a command line, it makes the
// command unknown.
func codeVariable(name string) bool {
	n := strings.ToUpper(name)
	switch {
	case strings.HasPrefix(n, "LD_"), strings.HasPrefix(n, "DYLD_"), strings.HasPrefix(n, "GIT_"), strings.HasPrefix(n, "NPM_CONFIG_"),
		strings.HasPrefix(n, "YARN_"), strings.HasPrefix(n, "PIP_"), strings.HasSuffix(n, "_PROXY"), strings.HasPrefix(n, "CARGO_"),
		strings.HasPrefix(n, "UV_"), strings.HasPrefix(n, "POETRY_"), strings.HasPrefix(n, "PNPM_"), strings.HasPrefix(n, "CGO_"),
		strings.HasPrefix(n, "PYTEST_"), strings.HasPrefix(n, "DOTNET_"), strings.HasPrefix(n, "COMPLUS_"):
		return true // git's and package managers' settings run programs, write files, reach hosts
	}
	switch n {
	case "RIPGREP_CONFIG_PATH", "GREP_OPTIONS", "LESSCLOSE":
		return true // a config or a program the command reads and runs (rg's --pre)
	case "PATH", "BASH_ENV", "ENV", "PROMPT_COMMAND", "PS4", "IFS", "SHELLOPTS", "BASHOPTS", "CDPATH", "HOME",
		"PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "NODE_OPTIONS", "NODE_PATH", "PERL5LIB", "PERL5OPT", "PERLLIB", "RUBYLIB", "RUBYOPT",
		"GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXEC_PATH", "GIT_EDITOR", "GIT_PAGER", "GIT_ASKPASS", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_PARAMETERS",
		"GIT_DIR", "GIT_WORK_TREE", "EDITOR", "VISUAL", "PAGER", "LESSOPEN", "SSH_ASKPASS", "SUDO_ASKPASS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
		"CLASSPATH", "GOFLAGS", "RUSTC_WRAPPER", "ZDOTDIR", "XDG_CONFIG_HOME", "MAKEFLAGS", "HISTFILE", "GOPROXY", "GONOSUMDB", "GOPRIVATE",
		// Compilers, linkers and their flags a build runs (CC=/tmp/evil go
		// test), test runners' plugins, JVM and .NET agents, pagers and
		// browsers a program opens.
		"CC", "CXX", "CPP", "LD", "AR", "AS", "FC", "NM", "RANLIB", "STRIP", "OBJCOPY", "RUSTC", "RUSTDOC", "RUSTFLAGS", "RUSTDOCFLAGS",
		"RUSTC_WORKSPACE_WRAPPER", "GOTOOLCHAIN", "GOROOT", "GOENV", "JDK_JAVA_OPTIONS", "MAVEN_OPTS", "GRADLE_OPTS", "GRADLE_USER_HOME",
		"MANPAGER", "BROWSER", "SHELL", "BUNDLE_GEMFILE", "GEM_HOME", "GEM_PATH", "PYTHONUSERBASE", "PYTHONEXECUTABLE", "VIRTUAL_ENV",
		"TOX_TESTENV_PASSENV", "NODE_REPL_EXTERNAL_MODULE", "ELECTRON_RUN_AS_NODE", "CORECLR_PROFILER_PATH", "LUA_INIT", "LUA_PATH", "LUA_CPATH",
		"LESS", "LESSKEY", "LESSKEYIN", "VIMINIT", "EXINIT", "MYVIMRC",
		// glibc's and other loaders' module paths: iconv's gconv modules,
		// locales, OpenSSL's engines and config, GTK's and Qt's modules,
		// Python's site hooks.
		"GCONV_PATH", "LOCPATH", "NLSPATH", "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES", "GTK_MODULES", "GTK_PATH",
		"QT_PLUGIN_PATH", "GIO_MODULE_DIR", "GST_PLUGIN_PATH", "SSL_CERT_FILE", "PYTHONSAFEPATH", "PYTHONBREAKPOINT", "PYTHONINSPECT",
		"TCLLIBPATH", "R_PROFILE", "R_PROFILE_USER", "R_ENVIRON", "R_ENVIRON_USER", "JULIA_LOAD_PATH", "JULIA_DEPOT_PATH", "PHPRC", "PHP_INI_SCAN_DIR",
		// A CLI's configuration (a kubeconfig's credential plugin runs a
		// program) or the host it talks to, named elsewhere than where
		// the command line reads it.
		"KUBECONFIG", "KUBECTL_EXTERNAL_DIFF", "DOCKER_HOST", "DOCKER_CONFIG", "DOCKER_CONTEXT", "DOCKER_CERT_PATH",
		"TF_CLI_CONFIG_FILE", "TF_PLUGIN_CACHE_DIR", "TF_DATA_DIR", "HELM_PLUGINS", "HELM_CONFIG_HOME", "HELM_DATA_HOME",
		"AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_ENDPOINT_URL", "CLOUDSDK_CONFIG", "AZURE_CONFIG_DIR",
		"GH_CONFIG_DIR", "GH_HOST", "WGETRC", "CURL_HOME", "GNUPGHOME", "SSH_AUTH_SOCK", "CONTAINER_HOST":
		return true
	}
	return false
}

// awkRunsNothing reports an awk program that runs no command, writes no
// file and reads nothing but its input: no system(), no print or printf
// redirected to a file or a pipe, no getline from a file or a command,
// and no ENVIRON, PROCINFO, ARGV or ARGC (the environment's secrets, and
// the list of files it goes on to read). The program is parsed and
// compiled by GoAWK, whose parser tells a comparison ("NR>1") from a
// redirection and a regular expression ("/a|b/") from a pipe; what it
// cannot parse (gawk's @include and @load among it) is asked.
func awkRunsNothing(prog string) (nothing bool) {
	defer func() {
		if recover() != nil {
			nothing = false
		}
	}()
	if strings.Contains(prog, "@load") || strings.Contains(prog, "@include") || strings.Contains(prog, "@namespace") {
		return false // gawk's directives: a shared library or another file's code
	}
	compiled, err := awkparser.ParseProgram([]byte(prog), nil)
	if err != nil {
		return false
	}
	var code strings.Builder
	if compiled.Disassemble(&code) != nil {
		return false
	}
	for line := range strings.Lines(code.String()) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		op, last := f[1], f[len(f)-1]
		switch {
		case (op == "Print" || op == "Printf") && (last == ">" || last == ">>" || last == "|"):
			return false
		case strings.HasPrefix(op, "Getline") && (slices.Contains(f, "|") || slices.Contains(f, "<")):
			return false
		case op == "CallBuiltin" && len(f) > 2 && f[2] == "BuiltinSystem":
			return false
		}
		for _, name := range f[2:] {
			switch strings.Trim(name, `"`) {
			case "ENVIRON", "PROCINFO", "ARGV", "ARGC":
				return false
			}
		}
	}
	return true
}

// sedRunsNothing reports a sed script that runs no command and writes or
// reads no file of its own: its commands are read one by one, and only
// those that print, delete, substitute (without the w and e flags),
// transliterate, branch or edit the hold space pass. Anything else (w, r,
// R, W, e, a substitution's w or e flag, a form not read here) is asked.
func sedRunsNothing(script string) bool {
	s := script
	for {
		s = strings.TrimLeft(s, " \t\n;")
		if s == "" {
			return true
		}
		var ok bool
		if s, ok = sedSkipAddresses(s); !ok {
			return false
		}
		if s == "" {
			return true
		}
		if s, ok = sedSkipCommand(s[0], s[1:]); !ok {
			return false
		}
	}
}

// sedSkipAddresses is s after a command's addresses: numbers, $,
// /regex/, \cREGEXc, ranges, steps, !. It is not ok when a regex does
// not end.
func sedSkipAddresses(s string) (string, bool) {
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return s, true
		}
		c := s[0]
		switch {
		case c >= '0' && c <= '9' || c == '$' || c == ',' || c == '~' || c == '!' || c == '+':
			s = s[1:]
			continue
		case c == '/':
			end, ok := sedDelimited(s[1:], '/')
			if !ok {
				return "", false
			}
			s = s[1+end+1:]
			s = strings.TrimLeft(s, "IM")
			continue
		case c == '\\' && len(s) > 1:
			end, ok := sedDelimited(s[2:], s[1])
			if !ok {
				return "", false
			}
			s = s[2+end+1:]
			continue
		}
		return s, true
	}
}

// sedSkipCommand is s, what follows the command c, after c's arguments.
// It is not ok for a command that runs, reads or writes (or one not read
// here).
func sedSkipCommand(c byte, s string) (string, bool) {
	switch c {
	case 'p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', '=', 'l', 'q', 'Q', 'z', '{', '}', 'F':
	case 'b', 't', 'T', ':':
		s = sedToEnd(s) // a label
	case 'y':
		for range 2 {
			if s == "" {
				return "", false
			}
			end, ok := sedDelimited(s[1:], s[0])
			if !ok {
				return "", false
			}
			s = s[1+end:]
		}
		s = s[1:]
	case 's':
		if s == "" {
			return "", false
		}
		d := s[0]
		for range 2 {
			end, ok := sedDelimited(s[1:], d)
			if !ok {
				return "", false
			}
			s = s[1+end:]
		}
		s = s[1:]
		flags := s
		if i := strings.IndexAny(flags, ";\n}"); i >= 0 {
			flags = flags[:i]
		}
		if strings.ContainsAny(flags, "weWE") {
			return "", false
		}
		s = s[len(flags):]
	default:
		return "", false // w, r, R, W, e, a, i, c, v and anything else
	}
	return s, true
}

// sedDelimited is the index in s of the first d not escaped by "\".
func sedDelimited(s string, d byte) (int, bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case d:
			return i, true
		case '\n':
			return 0, false
		}
	}
	return 0, false
}

// sedToEnd skips to the end of a command that runs to its line's end or
// a ";".
func sedToEnd(s string) string {
	if i := strings.IndexAny(s, ";\n"); i >= 0 {
		return s[i:]
	}
	return ""
}
