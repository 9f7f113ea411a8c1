package argread

import (
	"slices"
	"strings"
)

// Remote actions. A platform's command-line program reaches the
// platform's API wherever it runs: "run_command under /srv/app" confines
// the files a line names, not what `aws ssm send-command` runs on a fleet
// or what `gh repo delete` deletes. The subcommands below change, run code
// on, or publish to something remote (or install what runs later, or hand
// a credential on), so the command names the platform's host: an allow
// that names no host does not cover it (an allow covers every dimension
// a call names), and an "always" answer names the host. What only reads
// or lists (gh pr list, kubectl get, terraform plan, aws s3 ls) names
// none: a rule under the project covers it as before.

// remoteActions are, by program, the subcommands that act remotely (their
// words in order among the operands, as inOrder reads them), and the host
// each program reaches. Where the line cannot tell which server that is
// (a cluster, a state backend), the host is the platform's name
// ("kubernetes", "terraform"): a rule or an "always" answer can name it,
// as it could not name an unknown host.
var remoteActions = map[string]struct {
	host string
	subs [][]string
}{
	"aws": {"amazonaws.com", [][]string{{"ssm", "send-command"}, {"ssm", "start-session"}, {"ecs", "execute-command"},
		{"ec2-instance-connect"}, {"iam", "create-user"}, {"iam", "create-access-key"}, {"iam", "attach-user-policy"},
		{"iam", "attach-role-policy"}, {"iam", "put-user-policy"}, {"iam", "put-role-policy"}, {"iam", "create-login-profile"},
		{"iam", "update-assume-role-policy"}, {"lambda", "update-function-code"}, {"lambda", "invoke"},
		{"ec2", "terminate-instances"}, {"ec2", "run-instances"}, {"ec2", "modify-instance-attribute"},
		{"cloudformation", "delete-stack"}, {"cloudformation", "deploy"}, {"s3", "rb"}, {"s3api", "delete-bucket"},
		{"s3api", "put-bucket-policy"}, {"rds", "delete-db-instance"}, {"eks", "delete-cluster"}}},
	"gcloud": {"googleapis.com", [][]string{{"compute", "ssh"}, {"compute", "scp"}, {"compute", "instances", "add-metadata"},
		{"compute", "project-info", "add-metadata"}, {"compute", "instances", "delete"}, {"compute", "instances", "create"},
		{"projects", "add-iam-policy-binding"}, {"projects", "delete"}, {"iam", "service-accounts", "create"},
		{"run", "deploy"}, {"functions", "deploy"}, {"app", "deploy"}, {"container", "clusters", "delete"},
		{"sql", "instances", "delete"}, {"cloud-shell", "ssh"}}},
	"az": {"azure.com", [][]string{{"vm", "run-command"}, {"vm", "extension", "set"}, {"vm", "user", "update"},
		{"vm", "delete"}, {"group", "delete"}, {"role", "assignment", "create"}, {"ad", "user", "create"},
		{"webapp", "deploy"}, {"functionapp", "deploy"}, {"aks", "command", "invoke"}, {"ssh", "vm"}}},
	"kubectl": {"kubernetes", [][]string{{"exec"}, {"delete"}, {"apply"}, {"create"}, {"replace"}, {"patch"}, {"edit"}, {"scale"},
		{"drain"}, {"cordon"}, {"run"}, {"set"}, {"attach"}, {"debug"}, {"rollout", "undo"}, {"rollout", "restart"},
		{"port-forward"}, {"cp"}, {"label"}, {"annotate"}, {"taint"}, {"auth", "reconcile"}}},
	"helm": {"kubernetes", [][]string{{"install"}, {"upgrade"}, {"uninstall"}, {"delete"}, {"rollback"}, {"plugin", "install"}}},
	"gh": {"github.com", [][]string{{"repo", "delete"}, {"repo", "archive"}, {"repo", "edit"}, {"repo", "rename"},
		{"release", "create"}, {"release", "delete"}, {"release", "upload"}, {"secret", "set"}, {"secret", "delete"},
		{"variable", "set"}, {"workflow", "run"}, {"pr", "merge"}, {"extension", "install"}, {"alias", "set"}, {"alias", "import"},
		{"api", "-X"}, {"ssh-key", "add"}, {"gpg-key", "add"}, {"codespace", "ssh"}, {"codespace", "delete"}}},
	"glab": {"gitlab.com", [][]string{{"repo", "delete"}, {"release", "create"}, {"release", "delete"}, {"variable", "set"},
		{"ci", "run"}, {"mr", "merge"}, {"alias", "set"}}},
	"terraform": {"terraform", [][]string{{"apply"}, {"destroy"}, {"import"}, {"state", "rm"}, {"state", "push"}, {"taint"}}},
	"tofu":      {"terraform", [][]string{{"apply"}, {"destroy"}, {"import"}, {"state", "rm"}, {"state", "push"}, {"taint"}}},
	"pulumi":    {"pulumi", [][]string{{"up"}, {"destroy"}, {"refresh"}, {"import"}, {"state", "delete"}}},
	"npm":       {"registry.npmjs.org", [][]string{{"publish"}, {"unpublish"}, {"deprecate"}, {"dist-tag", "add"}, {"owner", "add"}}},
	"pnpm":      {"registry.npmjs.org", [][]string{{"publish"}}},
	"yarn":      {"registry.npmjs.org", [][]string{{"publish"}, {"npm", "publish"}}},
	"cargo":     {"crates.io", [][]string{{"publish"}, {"yank"}, {"owner"}}},
	"twine":     {"upload.pypi.org", [][]string{{"upload"}}},
	"gem":       {"rubygems.org", [][]string{{"push"}, {"yank"}}},
	"docker":    {"docker.io", [][]string{{"plugin", "install"}, {"push"}, {"context", "use"}}},
	"podman":    {"docker.io", [][]string{{"push"}}},
	"flyctl":    {"fly.io", [][]string{{"deploy"}, {"ssh"}, {"apps", "destroy"}, {"secrets", "set"}}},
	"fly":       {"fly.io", [][]string{{"deploy"}, {"ssh"}, {"apps", "destroy"}, {"secrets", "set"}}},
	"netlify":   {"netlify.com", [][]string{{"deploy"}, {"sites:delete"}, {"env:set"}}},
	"heroku":    {"heroku.com", [][]string{{"run"}, {"apps:destroy"}, {"config:set"}, {"ps:exec"}}},
	"doctl":     {"digitalocean.com", [][]string{{"compute", "ssh"}, {"compute", "droplet", "delete"}, {"apps", "create"}}},
	// Deploy tools: what they run, they run on the servers their
	// inventories name.
	"ansible":          {"ansible", [][]string{{}}},
	"ansible-playbook": {"ansible", [][]string{{}}},
	"nomad":            {"nomad", [][]string{{"job", "run"}, {"job", "stop"}, {"run"}, {"alloc", "exec"}, {"var", "put"}}},
	"kamal":            {"kamal", [][]string{{"deploy"}, {"setup"}, {"app"}, {"remove"}, {"rollback"}}},
	"cap":              {"capistrano", [][]string{{"deploy"}, {}}},
	// File sharing through a public relay or service: what is sent goes
	// there.
	"croc":           {"croc.schollz.com", [][]string{{"send"}}},
	"sendme":         {"iroh.computer", [][]string{{"send"}}},
	"onionshare-cli": {"torproject.org", [][]string{{}}},
	"onionshare":     {"torproject.org", [][]string{{}}},
	"tmole":          {"tunnelmole.com", [][]string{{}}},
	"frpc":           {"", [][]string{{}}}, // frp's client: the server its configuration names
	"code":           {"visualstudio.com", [][]string{{"tunnel"}}},
	"code-insiders":  {"visualstudio.com", [][]string{{"tunnel"}}},
	"wormhole":       {"relay.magic-wormhole.io", [][]string{{"send"}}},
	"ffsend":         {"send.vis.ee", [][]string{{"upload"}, {"up"}, {"u"}}},
	"b2":             {"backblazeb2.com", [][]string{{"upload-file"}, {"file", "upload"}, {"sync"}}},
	"mc":             {"min.io", [][]string{{"cp"}, {"mirror"}, {"mv"}, {"put"}, {"pipe"}}},
	// Public tunnels: a port of this machine, reachable from anywhere.
	"ngrok":       {"ngrok.com", [][]string{{}}},
	"lt":          {"localtunnel.me", [][]string{{}}},
	"localtunnel": {"localtunnel.me", [][]string{{}}},
	"bore":        {"bore.pub", [][]string{{"local"}}},
	"cloudflared": {"cloudflare.com", [][]string{{"tunnel"}, {"access", "tcp"}}},
	"tailscale":   {"tailscale.com", [][]string{{"funnel"}, {"serve"}}},
	"zrok":        {"zrok.io", [][]string{{"share"}}},
	"loclx":       {"localxpose.io", [][]string{{"tunnel"}}},
	"devtunnel":   {"devtunnels.ms", [][]string{{"host"}}},
	// Platforms' command-line programs, by the verbs that change what
	// they host (platformVerbs); "vercel" alone deploys.
	"vercel":     {"vercel.com", nil},
	"firebase":   {"firebase.google.com", nil},
	"wrangler":   {"cloudflare.com", nil},
	"supabase":   {"supabase.com", nil},
	"railway":    {"railway.app", nil},
	"hcloud":     {"hetzner.cloud", nil},
	"cdk":        {"amazonaws.com", nil},
	"eb":         {"amazonaws.com", nil},
	"sam":        {"amazonaws.com", nil},
	"amplify":    {"amazonaws.com", nil},
	"copilot":    {"amazonaws.com", nil},
	"serverless": {"amazonaws.com", nil},
	"sls":        {"amazonaws.com", nil},
	"render":     {"render.com", nil},
	"neonctl":    {"neon.tech", nil},
	"pscale":     {"planetscale.com", nil},
	"turso":      {"turso.tech", nil},
	"linode-cli": {"linode.com", nil},
	"scw":        {"scaleway.com", nil},
	"civo":       {"civo.com", nil},
}

// platformVerbs are the words that change, run code on, or remove what a
// platform hosts, for the programs of remoteActions and any other: among
// a command's first operands, its host is the platform's (the program's
// name for a program not listed: "make deploy" names make).
var (
	platformVerbs = keySetExact("deploy", "publish", "unpublish", "destroy", "terminate", "delete", "remove", "rm", "up", "push",
		"release", "rollback", "promote", "scale", "restart", "redeploy", "transfer", "exec", "ssh", "console", "set", "unset", "add",
		"create", "import", "apply", "update", "invoke", "revoke", "rotate", "purge", "attach", "detach", "reset", "link", "run")
	// publishVerbs are the words that publish or deploy whatever the
	// program: a script or a target named so does too ("npm run deploy",
	// "make release").
	publishVerbs = keySetExact("deploy", "publish", "unpublish", "release", "destroy", "terminate", "yank", "redeploy", "upload")
	// hostingPlatforms are the programs of remoteActions whose listed
	// subcommands are examples, not all: any platform verb names the host.
	hostingPlatforms = keySetExact("glab", "doctl", "fly", "flyctl", "heroku", "netlify")
	// releasePrograms publish by their name alone.
	releasePrograms = keySetExact("semantic-release", "release-it", "np", "goreleaser", "changeset", "lerna", "twine")
	// localPlatformVerbs are a platform program's words that act here
	// (a local emulator, a link to a project): vercel dev, supabase start.
	localPlatformVerbs = keySetExact("dev", "start", "stop", "serve", "build", "init", "login", "logout", "whoami", "help",
		"version", "status", "emulators:start", "emulators:exec", "gen", "generate", "new", "test", "lint", "format", "open", "list",
		"ls", "logs", "log", "info", "inspect", "get", "show", "describe", "view", "pull", "diff", "plan", "synth", "validate")
)

// platformVerb is the host a command's remote action reaches by its verb
// (platformVerbs, publishVerbs), for a program the tables above do not
// decide.
func platformVerb(program string, args []string) (string, bool) {
	ops := operands(args)
	if len(ops) > 3 {
		ops = ops[:3]
	}
	a, platform := remoteActions[program]
	host := program
	if platform {
		host = a.host
	}
	if releasePrograms[program] {
		return host, true
	}
	if program == "vercel" && (len(ops) == 0 || ops[0] == "--prod") {
		return host, true // vercel alone deploys the directory
	}
	for _, op := range ops {
		if strings.ContainsAny(op, "/.") {
			break // a path, a resource's name: the verbs are before it
		}
		for _, word := range strings.FieldsFunc(op, func(r rune) bool { return r == '-' || r == '_' || r == ':' }) {
			if publishVerbs[word] || strings.HasPrefix(word, "publish") || strings.HasPrefix(word, "deploy") {
				return host, true // npm run deploy:prod, make release, cdk destroy, sbt publishSigned
			}
			if platform && (a.subs == nil || hostingPlatforms[program]) && platformVerbs[word] && !localPlatformVerbs[op] {
				return host, true // hcloud server delete, railway up, supabase db push
			}
		}
	}
	return "", false
}

// platformReads are, by program, the verbs of a platform CLI that only
// read or list: any other subcommand changes something remote, and names
// the platform's host (remoteActionHost), whether or not the table above
// lists it.
var platformReads = map[string]func(ops []string) bool{
	"aws": func(ops []string) bool {
		if len(ops) < 2 {
			return true // aws help, aws configure: no service action
		}
		v := ops[1]
		for _, read := range []string{"describe-", "list-", "get-", "head-", "wait", "filter-", "search-", "lookup-", "batch-get-",
			"select-", "validate-", "estimate-", "simulate-", "preview-", "check-", "test-", "start-query", "stop-query"} {
			if strings.HasPrefix(v, read) {
				return true
			}
		}
		if ops[0] == "s3" && (v == "cp" || v == "sync") {
			return !strings.HasPrefix(ops[len(ops)-1], "s3://") // a download writes here; an upload's bucket is its host
		}
		return v == "help" || v == "tail" || v == "query" || v == "scan" || ops[0] == "s3" && (v == "ls" || v == "presign") ||
			ops[0] == "sts" || ops[0] == "configure" || ops[0] == "sso"
	},
	"gcloud": func(ops []string) bool {
		return len(ops) == 0 || slices.ContainsFunc(ops, func(w string) bool {
			return w == "list" || w == "describe" || strings.HasPrefix(w, "get-") || w == "help" || w == "info" || w == "read" ||
				w == "tail" || w == "config" || w == "auth" || w == "print-settings" || w == "version" || w == "components"
		})
	},
	"az": func(ops []string) bool {
		return len(ops) == 0 || slices.ContainsFunc(ops, func(w string) bool {
			return w == "list" || w == "show" || strings.HasPrefix(w, "get") || w == "help" || w == "wait" || w == "login" ||
				w == "account" || w == "version" || w == "query" || w == "exists" || w == "tail"
		})
	},
	"gh": func(ops []string) bool {
		if len(ops) == 0 {
			return true
		}
		switch ops[0] {
		case "api":
			return true // its method is read apart (remoteActionHost)
		case "auth", "browse", "help", "status", "search", "completion", "config", "extension", "alias":
			return true // local, or in the table
		}
		last := lastVerb(ops)
		return last == "list" || last == "view" || last == "status" || last == "diff" || last == "checks" || last == "download" ||
			last == "checkout" || last == "clone" || last == "watch" || last == "ls" || last == "logs" || len(ops) == 1
	},
	"kubectl": func(ops []string) bool {
		ops = verbsOnly(ops)
		if len(ops) == 0 {
			return true
		}
		switch ops[0] {
		case "get", "describe", "logs", "top", "explain", "api-resources", "api-versions", "version", "cluster-info", "config",
			"auth", "diff", "events", "wait", "completion", "plugin", "kustomize", "help", "options", "krew":
			return true
		case "rollout":
			return len(ops) > 1 && (ops[1] == "status" || ops[1] == "history")
		}
		return false
	},
	"helm": func(ops []string) bool {
		ops = verbsOnly(ops)
		if len(ops) == 0 {
			return true
		}
		switch ops[0] {
		case "list", "ls", "status", "get", "history", "show", "template", "lint", "search", "repo", "version", "env", "dependency",
			"pull", "verify", "completion", "help", "create", "package", "registry":
			return true
		}
		return false
	},
	"terraform": terraformReads, "tofu": terraformReads,
	"pulumi": func(ops []string) bool {
		if len(ops) == 0 {
			return true
		}
		switch ops[0] {
		case "preview", "whoami", "version", "about", "logs", "login", "new", "plugin", "config", "help", "schema", "package":
			return true
		case "stack":
			return len(ops) < 2 || ops[1] == "ls" || ops[1] == "output" || ops[1] == "select" || ops[1] == "history" || ops[1] == "export"
		}
		return false
	},
}

func terraformReads(ops []string) bool {
	if len(ops) == 0 {
		return true
	}
	switch ops[0] {
	case "plan", "validate", "fmt", "show", "output", "providers", "version", "graph", "init", "console", "get", "login", "help", "metadata":
		// (terraform test applies its runs' configurations for real.)
		return true
	case "state":
		return len(ops) < 2 || ops[1] == "list" || ops[1] == "show" || ops[1] == "pull"
	case "workspace":
		return len(ops) < 2 || ops[1] == "list" || ops[1] == "show" || ops[1] == "select"
	}
	return false
}

// verbsOnly drops from ops the words before the first that reads as a
// subcommand's (letters and dashes): an option's value ("--kubeconfig
// ~/.kube/config get", "-n prod get") comes among them.
func verbsOnly(ops []string) []string {
	for i, w := range ops {
		if w != "" && !strings.ContainsFunc(w, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '-') }) {
			return ops[i:]
		}
	}
	return nil
}

// lastVerb is the last operand that is a subcommand's word (lower case,
// letters, digits and dashes: "delete", "add-metadata"), "" for none.
func lastVerb(ops []string) string {
	last := ""
	for _, w := range ops {
		if w == "" || strings.ContainsAny(w, "/=:.@") {
			break // a resource's name or a value: the subcommand ended
		}
		last = w
	}
	return last
}

// remoteActionHost is the host a command's remote action reaches, and
// whether it is one: the program's platform ("" when the line cannot
// tell which: a cluster, a git remote, a state backend).
func remoteActionHost(program string, words []string) (string, bool) {
	if len(words) == 0 {
		return "", false
	}
	args := words[1:]
	if program == "git" {
		// A push that rewrites or deletes what the remote holds; the
		// remote is the repository's to say: unknown, asked each time.
		// An ordinary push is the project's own work.
		return "", inOrder([]string{"push"}, args) && (hasLongOption(args, "--force") || hasOption(args, "-f") ||
			hasLongOption(args, "--force-with-lease") || hasLongOption(args, "--force-if-includes") ||
			hasLongOption(args, "--mirror") || hasLongOption(args, "--delete") || hasOption(args, "-d") ||
			hasLongOption(args, "--prune") || slicesHasPrefix(args, "+") || slicesHasPrefix(args, ":"))
	}
	if program == "docker" && hasOption(args, "--ssh") && inOrder([]string{"build"}, args) {
		return "", true // the agent's keys handed to the build
	}
	if (program == "docker" || program == "podman") && (inOrder([]string{"build"}, args) || inOrder([]string{"buildx"}, args)) &&
		(hasOption(args, "--push") || slices.ContainsFunc(args, func(w string) bool { return strings.Contains(w, "type=registry") })) {
		return "docker.io", true // built and pushed: docker push's
	}
	a, ok := remoteActions[program]
	if !ok || a.subs == nil {
		return platformVerb(program, args)
	}
	if program == "gh" || program == "glab" {
		// --hostname sends the stored token to that host, read or not;
		// so does -R HOST/OWNER/REPO (gh's form for another host).
		for i, w := range args {
			repo := ""
			switch {
			case (w == "-R" || w == "--repo") && i+1 < len(args):
				repo = args[i+1]
			case strings.HasPrefix(w, "--repo="):
				repo = strings.TrimPrefix(w, "--repo=")
			}
			if strings.Count(repo, "/") >= 2 {
				host, _, _ := strings.Cut(repo, "/")
				return host, true
			}
			if h, ok := strings.CutPrefix(w, "--hostname="); ok {
				return h, true
			}
			if w == "--hostname" && i+1 < len(args) {
				return args[i+1], true
			}
		}
	}
	if (program == "gh" || program == "glab") && inOrder([]string{"api"}, args) && ghAPIWrites(args) {
		return a.host, true // gh api -X DELETE, -f fields (a POST)
	}
	if reads, ok := platformReads[program]; ok {
		if !reads(operands(args)) {
			return a.host, true // a verb that is no read: it changes something remote
		}
	}
	for _, sub := range a.subs {
		if len(sub) == 0 {
			return a.host, true // every use of the program
		}
		if strings.HasPrefix(sub[len(sub)-1], "-") {
			if inOrder(sub[:len(sub)-1], args) && hasOption(args, sub[len(sub)-1]) {
				return a.host, true // gh api -X DELETE, vercel --prod
			}
			continue
		}
		if inOrder(sub, args) {
			return a.host, true
		}
	}
	if _, ok := platformReads[program]; ok {
		return "", false // its reads are listed: kubectl get deploy reads deployments
	}
	return platformVerb(program, args)
}

// ghAPIWrites reports a gh api call that is no GET: a method given (-X
// DELETE, -XPOST, --method=PUT), or fields (-f, -F, --field, --raw-field,
// --input), which make it a POST.
func ghAPIWrites(args []string) bool {
	for i, w := range args {
		switch {
		case w == "-X" || w == "--method":
			if i+1 < len(args) && !strings.EqualFold(args[i+1], "GET") {
				return true
			}
		case strings.HasPrefix(w, "-X") && len(w) > 2:
			if !strings.EqualFold(w[2:], "GET") {
				return true
			}
		case strings.HasPrefix(w, "--method="):
			if !strings.EqualFold(strings.TrimPrefix(w, "--method="), "GET") {
				return true
			}
		case w == "-f" || w == "-F" || w == "--field" || w == "--raw-field" || w == "--input" ||
			strings.HasPrefix(w, "--field=") || strings.HasPrefix(w, "--raw-field="):
			if !slices.Contains(args, "GET") {
				return true
			}
		}
	}
	return false
}

// hasOption reports an option among args, alone or with its value
// joined ("--ssh=default").
func hasOption(args []string, opt string) bool {
	for _, w := range args {
		if w == opt || strings.HasPrefix(w, opt+"=") {
			return true
		}
	}
	return false
}

// hasLongOption is hasOption for a program whose option parser takes an
// unambiguous start of a long option for it (git's, GNU getopt_long):
// "--del" and "--mir" are git push's --delete and --mirror. A start that
// is ambiguous the program refuses, so reading it as opt only asks more.
func hasLongOption(args []string, opt string) bool {
	for _, w := range args {
		name, _, _ := strings.Cut(w, "=")
		if len(name) >= 3 && strings.HasPrefix(opt, name) {
			return true
		}
	}
	return false
}

// slicesHasPrefix reports an operand that starts with prefix (a refspec's
// "+" forcing it, its ":" deleting the remote ref).
func slicesHasPrefix(args []string, prefix string) bool {
	for _, w := range args {
		if strings.HasPrefix(w, prefix) && len(w) > 1 {
			return true
		}
	}
	return false
}
