package argread

import (
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// The command-line programs MCP servers wrap (a run_gcloud_command's
// "args", a terraform tool's argv) take subcommands and the platform's
// names: services, regions, formats, resource paths. Their words are read
// by the program's grammar, a row of the table below: the options that
// take a local file are paths, and so are the operands of the subcommands
// that copy or upload local files (gcloud storage cp, aws s3 sync, gh
// release upload); every other word is read by its shape, a path only
// when it reads as a file's name ("./dist", ".env", "~/x", "@params.json",
// "file://policy.json"), a host when it is a URL or an address.
// "europe-west1" and "yaml" after "--region" and "--format" are no files.

// cli makes a table row for a command-line program: the options that take
// a value (so that their values are not read as subcommands), those whose
// value is the platform's name whatever its shape (a repository, a query,
// an object's key), those whose value is a local file, and the subcommands
// whose operands are local files. singleDash: its long options take one dash (terraform's
// "-var-file=x").
func cli(values, names, files, chdir string, local []string, singleDash bool) program {
	p := program{kind: progCLI, values: opts(values + " " + names), names: opts(names), files: opts(files), chdir: opts(chdir),
		singleDash: singleDash}
	if len(local) > 0 {
		p.local = set{}
		for _, l := range local {
			p.local[l] = true
		}
	}
	return p
}

// cliPrograms are the rows of the command-line programs, added to the
// programs table. What each reads was taken from its reference (gcloud's,
// the AWS CLI's, az's, gh's and terraform's documentation of their global
// and file-taking flags).
var cliPrograms = map[string]program{
	"gcloud": cli("--project --account --configuration --verbosity --impersonate-service-account --billing-project "+
		"--region --zone --limit --page-size --trace-token --location --service --platform --memory --cpu "+
		"--max-instances --min-instances --port --timeout --concurrency --set-env-vars --update-env-vars --labels "+
		"--update-labels --member --role --machine-type --network --subnet --cluster --namespace",
		"--format --filter --flatten --sort-by --uri --keyring --key --version --image --tag",
		"--flags-file --key-file --credential-file-override --source --env-vars-file --build-env-vars-file --metadata-from-file "+
			"--ssh-key-file --config --cert-file --private-key-file --certificate --private-key --ignore-file --output-file "+
			"--output-dir --file --log-file --destination --pem-file --keystore --truststore --substitutions-file --startup-script "+
			"--plaintext-file --ciphertext-file --data-file",
		"", []string{"storage cp", "storage mv", "storage rsync", "alpha storage cp", "beta storage cp", "builds submit",
			"app deploy", "compute scp", "iam service-accounts keys create"}, false),
	"gsutil": cli("-o -h -p -u", "", "-D", "", []string{"cp", "mv", "rsync"}, false),
	"bq": cli("--project_id --location --dataset_id --max_rows", "--format", "--flagfile --credential_file --service_account_private_key_file",
		"", []string{"load"}, false),
	"aws": cli("--profile --region --output --endpoint-url --color --cli-read-timeout --cli-connect-timeout --instance-ids "+
		"--function-name --stack-name --table-name --cluster --service --name --max-items --page-size --starting-token",
		"--query --bucket --key --prefix --log-group-name --secret-id --role-arn",
		"--ca-bundle --cli-input-json --cli-input-yaml --zip-file --template-body --template-file --policy-document --body --outfile",
		"", []string{"s3 cp", "s3 mv", "s3 sync", "cloudformation package", "lambda invoke", "s3api get-object"}, false),
	"az": cli("--subscription --resource-group -g --name -n --location -l --output -o --account-name --container-name -c "+
		"--sku --image --size --tags --vnet-name --subnet",
		"--query --ids --scope --assignee --role",
		"--file -f --source -s --template-file --parameters --local-path --destination -d --file-path --ssh-key-value "+
			"--ssh-key-values --custom-data --certificate-file --yaml --config-file --cert-file --key-file --certificate --password-file", "",
		[]string{"storage blob upload", "storage blob upload-batch", "storage blob download", "storage blob download-batch",
			"storage file upload", "storage copy", "acr build", "webapp deploy", "functionapp deploy"}, false),
	"gh": cli("-b --body -t --title -L --limit -s --state -a --assignee -l --label -B --base -H --head -m --milestone "+
		"-X --method --header -f --raw-field",
		"-R --repo --json -q --jq --template",
		"-F --body-file --input -D --dir -O --output -e --env-file", "", []string{"release upload",
			"release create", "gist create", "gist edit", "ssh-key add", "gpg-key add", "repo clone", "extension install"}, false),
	"terraform": terraform, "tofu": terraform,
}

var terraform = cli("-var -target -lock-timeout -parallelism -replace -input -lock -refresh -json -no-color", "",
	"-var-file -state -state-out -backup -out -plugin-dir -backend-config -from-module -config -generate-config-out -test-directory",
	"-chdir", []string{"apply", "show", "import", "console", "graph"}, true)

func init() {
	for name, p := range cliPrograms {
		programs[name] = p
	}
}

// cli reads a command-line program's words: its file options as paths,
// the leading bare words as its subcommand, the operands of a subcommand
// that takes local files as paths, and every other word (an operand, an
// option's value) by its shape.
func (r *shellReader) cli(p *program, words []shellWord, dirs []string) {
	args, _ := parseArgs(words, p, false)
	dirs = r.options(p, args, dirs)
	var sub []string
	var localOps []string // a local subcommand's operands, in order
	recursive := false
	local, subDone := false, false
	for _, a := range args {
		if a.opt == "-r" || a.opt == "--recursive" || a.opt == "-R" {
			recursive = true
		}
		if local && a.opt == "" && a.value.known {
			localOps = append(localOps, a.value.text)
		}
		switch {
		case a.opt != "":
			subDone = subDone || len(sub) > 0
			t := a.value.text
			switch {
			case !a.hasValue || p.files.has(a.opt) || p.chdir.has(a.opt):
			case optionNamesFile(a.opt):
				r.read(a.value, dirs) // --plaintext-file, --key-path: a row that misses one must not hide it
			case p.names.has(a.opt) && a.value.known:
				// The platform's name (a repository "acme/api", an object
				// key): no local file, whatever its shape.
			case !(a.value.known && (readsAsURL(t) || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "@/"))):
				r.byShape(a.value, dirs) // what options() did not read
			}
		case !a.value.known:
			r.unknown(a.value.text)
		case local && !readsAsURL(a.value.text):
			r.read(a.value, dirs) // a URL is the other end (s3://bucket/key, gs://b/o)
		case !subDone && len(sub) < maxSubcommandWords && isSubcommandWord(a.value.text):
			sub = append(sub, a.value.text)
			for i := range sub {
				// "beta storage mv" is "storage mv": a release track,
				// a group, then the subcommand.
				local = local || p.local[strings.Join(sub[i:], " ")]
			}
		default:
			subDone = true
			r.byShape(a.value, dirs)
		}
	}
	// A sync, or a recursive copy, from the cloud into a local directory
	// writes files by the names the bucket holds (.bashrc among them, in
	// a home): which ones cannot be told.
	if len(localOps) >= 2 && readsAsURL(localOps[0]) && !readsAsURL(localOps[len(localOps)-1]) &&
		(recursive || strings.HasSuffix(strings.Join(sub, " "), "sync")) {
		r.unknown("the files " + localOps[0] + " holds, written into " + localOps[len(localOps)-1])
	}
	// The other way, a local directory synced or copied recursively up
	// sends every file under it: a tree read whole (a home's secrets
	// with it).
	if len(localOps) >= 2 && !readsAsURL(localOps[0]) && readsAsURL(localOps[len(localOps)-1]) &&
		(recursive || strings.HasSuffix(strings.Join(sub, " "), "sync")) {
		for _, op := range localOps[:len(localOps)-1] {
			if !readsAsURL(op) {
				r.treeRead(shellWord{text: op, known: true}, dirs)
			}
		}
	}
}

// optionNamesFile reports an option whose name says its value is a local
// file or directory, read as an argument's name is ("--plaintext-file",
// "--key-path", "--output-dir").
func optionNamesFile(opt string) bool {
	name := strings.TrimLeft(opt, "-")
	if len(name) < 2 {
		return false // -f, -o: what they take is the row's to say
	}
	c := nameClass(name)
	return c.local() && c.Evidence >= Name
}

// cliFiles reads the value of a command-line program's file option: a
// path, or a list of them ("key=file,key2=file2": gcloud's
// --metadata-from-file), each perhaps "@file", "file://file" or
// "fileb://file" (az's and the AWS CLI's ways to name a file to read).
func (r *shellReader) cliFiles(w shellWord, dirs []string) {
	if !w.known {
		r.unknown(w.text)
		return
	}
	for _, part := range strings.Split(w.text, ",") {
		if k, v, ok := strings.Cut(part, "="); ok && !strings.ContainsAny(k, "/\\") {
			part = v
		}
		switch {
		case hasPrefixFold(part, "file://") || hasPrefixFold(part, "fileb://"):
			_, part, _ = strings.Cut(part, "://")
		case strings.HasPrefix(part, "@"):
			part = part[1:]
		}
		r.path(part, dirs, false)
	}
}

// maxCLIWords bounds the words of an array read as a program's: past it,
// the array is read word by word, as any command's words are.
const maxCLIWords = 4096

// maxSubcommandWords bounds the words a subcommand is read from
// ("iam service-accounts keys create").
const maxSubcommandWords = 4

// isSubcommandWord reports a word that can be a subcommand's: lower-case
// letters, digits and "-".
func isSubcommandWord(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// byShape reads a word of a command-line program that nothing says is a
// file: a path when it reads as one (and each part of a "k=v" or a list
// "a,b" that does: "--metadata-from-file=key=~/.ssh/id_rsa"), a local
// file when it is "@file" or "file://..." (az's and the AWS CLI's way to
// pass a file's contents), a host when it is a URL or an address.
func (r *shellReader) byShape(w shellWord, dirs []string) {
	if !w.known {
		r.unknown(w.text)
		return
	}
	t := w.text
	switch {
	case t == "":
		return
	case hasPrefixFold(t, "file://") || hasPrefixFold(t, "fileb://"):
		_, p, _ := strings.Cut(t, "://")
		r.path(p, dirs, false)
		return
	case t[0] == '@' && len(t) > 1:
		r.path(t[1:], dirs, false)
		return
	case readsAsURL(t):
		r.hostWord(w)
		return
	}
	if h, ok := readsAsIPAddress(t); ok {
		r.host(t, h)
		return
	}
	key, _, kv := strings.Cut(t, "=")
	if kv && strings.ContainsAny(key, "/\\") {
		kv = false // "a/b=c" is a path with "=" in it
	}
	if (readsAsCommandFile(t) || hasExtension(t)) && t[0] != '-' && !kv {
		r.path(t, dirs, false) // ./dist, .env, key.pem, buildspec.yml
	}
	if strings.ContainsAny(t, "=,") {
		for _, part := range strings.FieldsFunc(t, func(c rune) bool { return c == ',' }) {
			if _, v, ok := strings.Cut(part, "="); ok {
				part = v
			}
			if part != t {
				r.byShape(shellWord{text: part, known: true}, dirs)
			}
		}
	}
}

// cliArray reads an array of words under a command's name ("args") as the
// words of the command-line program the tool runs, when it is known: by
// the tool's name (run_gcloud_command, terraform_plan) or by the array's
// first word (["kubectl", "get", "pods"]). It reports whether it read it.
func (w *walker) cliArray(s site, v *ast.Array) bool {
	if v.Len() == 0 || v.Len() > maxCLIWords {
		return false
	}
	words, ok := arrayStrings(v)
	if !ok {
		return false
	}
	first := programName(strings.TrimSpace(words[0]))
	switch prog := w.tool.program; {
	case prog != "" && first != prog:
		words = append([]string{prog}, words...)
	case prog == "":
		if p, ok := programs[first]; !ok || p.kind != progCLI && p.kind != progContainer && p.kind != progGit {
			return false
		}
	}
	w.shellArgv(s, words)
	return true
}

// programCall reads a call to a tool that runs kubectl or helm and takes
// its words as fields (Flux159's kubectl_get {"resourceType":
// "secrets"}, kubectl_generic {"command": "get", "resourceType":
// "secret"}): the subcommand (the tool's name after the program, and a
// command or subCommand argument), the resource, its name and the flags
// object, in that order, are the program's words, read as a command's
// are. Each field is read on its own as well.
func (w *walker) programCall(args [][2]*ast.Term) {
	prog := w.tool.program
	if programVerbs[prog] == nil {
		return // a program whose subcommands this reader knows: kubectl, oc, helm
	}
	field, key := map[string]*ast.Term{}, map[string]string{}
	first := ""
	for _, item := range args {
		k := string(item[0].Value.(ast.String))
		field[FoldName(k)], key[FoldName(k)] = item[1], k
		if first == "" && callFields[FoldName(k)] {
			first = k
		}
	}
	words := []string{prog}
	after := false
	for _, word := range splitWords(w.tool.name) {
		switch {
		case after && programVerbs[prog][word]:
			words = append(words, word) // kubectl_get: get
		case after && !toolNameFillers[word]:
			// kubectl_context, install_helm_chart: a tool of the server's
			// own, whose fields ("operation": "set") are its words, not
			// the program's: read by their names.
			return
		}
		after = after || word == prog || programAliases[word] == prog
	}
	for _, names := range [][]string{{"command", "cmd", "action", "verb", "operation"}, {"subcommand"},
		{"resourcetype", "resource", "resources", "kind"}, {"resourcename", "name"}} {
		for _, n := range names {
			if s, ok := stringField(field, n); ok && strings.TrimSpace(s) != "" {
				fields := strings.Fields(s)
				if len(fields) > 0 && programName(fields[0]) == prog {
					return // a whole command line, the program's name first: read as the argument's own
				}
				if strings.ContainsAny(s, "$`;|&<>'\"\\(){}") {
					// A command line of its own: the program's, as a shell
					// that the server hands it to would run it.
					w.shellLine(site{key[n], shellName, &pointer{key: key[n], isKey: true}, 1}, ast.StringTerm(prog+" "+s), prog+" "+s)
					return
				}
				words = append(words, fields...)
				break
			}
		}
	}
	if t := field["flags"]; t != nil {
		f, ok := t.Value.(ast.Object)
		if !ok {
			return
		}
		for _, k := range f.Keys() {
			name, ok := k.Value.(ast.String)
			if !ok {
				return
			}
			flag := "--" + string(name)
			if len(name) == 1 {
				flag = "-" + string(name)
			}
			switch v := f.Get(k).Value.(type) {
			case ast.Boolean:
				if v {
					words = append(words, flag)
				}
			case ast.String:
				words = append(words, flag+"="+string(v))
			default:
				words = append(words, flag+"="+v.String())
			}
		}
	}
	if first == "" || len(words) == 1 || !programVerbs[prog][words[1]] || words[1] == "exec" || words[1] == "attach" {
		// an exec tool's command is the pod's (contained), no kubectl word
		return
	}
	// What the command reads is the tool's to claim (kubectl_get is
	// read-only); what it acts on remotely or prints of credentials is
	// not, and then the call acts (Reading.Acts).
	acts, hosts, commands := w.out.Acts, len(w.out.Hosts), len(w.out.Commands)
	w.shellArgv(site{first, shellName, &pointer{key: first, isKey: true}, 1}, words)
	credentials := slices.ContainsFunc(w.out.Commands[commands:], func(c SimpleCommand) bool { return c.Credentials })
	w.out.Acts = acts || len(w.out.Hosts) > hosts || credentials
}

// stringField is the string under the folded name n, if there is one.
func stringField(field map[string]*ast.Term, n string) (string, bool) {
	if t := field[n]; t != nil {
		s, ok := t.Value.(ast.String)
		return string(s), ok
	}
	return "", false
}

var (
	// toolNameFillers are the words of a tool's name that are no
	// subcommand and no object of the server's own (kubectl_generic,
	// run_kubectl_command).
	toolNameFillers = keySetExact("generic", "command", "commands", "cmd", "cli", "tool", "run", "exec", "execute", "mcp", "raw")
	// callFields are the fields programCall reads a command from.
	callFields = keySet("command", "cmd", "action", "verb", "operation", "subcommand", "resourceType", "resource", "resources",
		"kind", "resourceName", "flags")
	// programVerbs are, by program, the subcommands a tool's name may
	// give after the program's name (kubectl_get, helm_install).
	programVerbs = map[string]map[string]bool{
		"kubectl": kubectlVerbs, "oc": kubectlVerbs,
		"helm": keySetExact("install", "upgrade", "uninstall", "delete", "list", "ls", "status", "get", "history", "rollback",
			"template", "repo", "search", "show", "pull", "push", "lint", "package", "dependency", "plugin", "registry", "test", "verify"),
	}
	kubectlVerbs = keySetExact("get", "describe", "logs", "apply", "delete", "create", "patch", "replace", "scale", "rollout", "exec",
		"edit", "label", "annotate", "expose", "run", "set", "explain", "top", "cordon", "uncordon", "drain", "taint", "cp", "attach",
		"debug", "diff", "wait", "events", "autoscale", "auth", "certificate", "port-forward", "proxy", "api-resources", "api-versions",
		"version", "kustomize", "config")
)

// toolProgram is the command-line program a tool's name says it runs
// ("run_gcloud_command", "kubectl_apply", "awsCli"): a word of the name
// that is a program read by its grammar. "" for none.
func toolProgram(name string) string {
	for _, word := range splitWords(name) {
		if alias, ok := programAliases[word]; ok {
			word = alias
		}
		if p, ok := programs[word]; ok && (p.kind == progCLI || p.kind == progContainer || p.kind == progGit) {
			return word
		}
	}
	return ""
}

// programAliases are the words tool names use for a program other than
// its own name ("azure_cli" runs az).
var programAliases = map[string]string{"azure": "az", "k8s": "kubectl", "kubernetes": "kubectl", "opentofu": "tofu"}
