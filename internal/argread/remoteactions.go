package argread

import "strings"

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
		{"variable", "set"}, {"workflow", "run"}, {"pr", "merge"}, {"extension", "install"}, {"alias", "set"},
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
	"vercel":    {"vercel.com", [][]string{{"deploy"}, {"--prod"}, {"remove"}, {"env", "add"}}},
	"netlify":   {"netlify.com", [][]string{{"deploy"}, {"sites:delete"}, {"env:set"}}},
	"heroku":    {"heroku.com", [][]string{{"run"}, {"apps:destroy"}, {"config:set"}, {"ps:exec"}}},
	"doctl":     {"digitalocean.com", [][]string{{"compute", "ssh"}, {"compute", "droplet", "delete"}, {"apps", "create"}}},
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
		return "", inOrder([]string{"push"}, args) && (hasOption(args, "--force") || hasOption(args, "-f") ||
			hasOption(args, "--force-with-lease") || hasOption(args, "--mirror") || hasOption(args, "--delete") || hasOption(args, "-d") ||
			hasOption(args, "--prune") || slicesHasPrefix(args, "+") || slicesHasPrefix(args, ":"))
	}
	if program == "docker" && hasOption(args, "--ssh") && inOrder([]string{"build"}, args) {
		return "", true // the agent's keys handed to the build
	}
	a, ok := remoteActions[program]
	if !ok {
		return "", false
	}
	for _, sub := range a.subs {
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
	return "", false
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
