package argread

import (
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

// credentialCommands are, by program, the subcommands that print a secret
// or write one: the environment, a CLI's tokens and keys, a secret
// manager's values, a cluster's secrets, and the logins and settings that
// write a CLI's credentials. What such a command prints is in the model's
// context, as a secret file's contents would be; the floor asks on it (a
// SimpleCommand's Credentials). An empty subcommand is every use of the
// program.
var credentialCommands = map[string][][]string{
	"aws": {{"configure", "get"}, {"configure", "set"}, {"configure", "export-credentials"}, {"configure", "import"},
		{"sts", "get-session-token"}, {"sts", "assume-role"}, {"secretsmanager", "get-secret-value"}, {"ecr", "get-login-password"},
		{"codeartifact", "get-authorization-token"}, {"iam", "create-access-key"}, {"ecr", "get-authorization-token"},
		{"ecr-public", "get-login-password"}, {"secretsmanager", "batch-get-secret-value"}, {"sts", "assume-role-with-web-identity"},
		{"sts", "assume-role-with-saml"}, {"ec2", "get-password-data"}, {"lightsail", "download-default-key-pair"},
		{"cognito-identity", "get-credentials-for-identity"}, {"kms", "decrypt"}, {"rds", "generate-db-auth-token"}, {"eks", "get-token"},
		{"sts", "get-federation-token"}, {"sso", "get-role-credentials"}, {"eks", "update-kubeconfig"}, {"lightsail", "get-instance-access-details"},
		{"ecr", "get-login"}, {"lambda", "get-function-configuration"}},
	"gcloud": {{"auth", "print-access-token"}, {"auth", "print-identity-token"}, {"auth", "application-default", "print-access-token"},
		{"auth", "login"}, {"auth", "activate-service-account"}, {"secrets", "versions", "access"},
		{"iam", "service-accounts", "keys", "create"}, {"config", "set"}, {"sql", "generate-login-token"},
		{"container", "clusters", "get-credentials"}, {"kms", "decrypt"}, {"auth", "application-default", "login"},
		{"config", "config-helper"}, {"auth", "describe"}},
	"az": {{"account", "get-access-token"}, {"keyvault", "secret", "show"}, {"keyvault", "secret", "download"}, {"login"},
		{"ad", "sp", "credential", "reset"}, {"storage", "account", "keys", "list"}, {"acr", "login"}, {"aks", "get-credentials"},
		{"acr", "credential", "show"}, {"cosmosdb", "keys", "list"}, {"storage", "account", "show-connection-string"},
		{"webapp", "deployment", "list-publishing-credentials"}, {"ad", "app", "credential", "reset"}, {"redis", "list-keys"},
		{"servicebus", "namespace", "authorization-rule", "keys", "list"}, {"keyvault", "key", "download"}, {"ad", "sp", "create-for-rbac"},
		{"webapp", "deployment", "list-publishing-profiles"}, {"functionapp", "deployment", "list-publishing-profiles"},
		{"functionapp", "keys", "list"}, {"functionapp", "function", "keys", "list"}, {"webapp", "config", "appsettings", "list"},
		{"functionapp", "config", "appsettings", "list"}, {"cosmosdb", "keys", "list"}, {"eventhubs", "namespace", "authorization-rule", "keys", "list"},
		{"signalr", "key", "list"}, {"search", "admin-key", "show"}, {"cognitiveservices", "account", "keys", "list"}},
	"gh":        {{"auth", "token"}, {"auth", "login"}, {"auth", "refresh"}, {"auth", "setup-git"}, {"config", "set"}, {"auth", "git-credential"}},
	"glab":      {{"auth", "login"}, {"config", "set"}, {"variable", "export"}, {"variable", "get"}},
	"crane":     {{"auth", "get"}, {"auth", "token"}, {"auth", "login"}},
	"consul":    {{"acl", "token", "read"}, {"acl", "token", "create"}, {"acl", "bootstrap"}, {"kv", "get"}},
	"nomad":     {{"var", "get"}, {"acl", "token", "self"}, {"acl", "bootstrap"}},
	"fly":       {{"auth", "token"}},
	"flyctl":    {{"auth", "token"}},
	"doctl":     {{"auth", "init"}, {"auth", "token"}},
	"bws":       {{"secret", "get"}, {"secret", "list"}},
	"passage":   {{"show"}, {}},
	"terraform": {{"state", "pull"}, {"output"}, {"show"}, {"console"}, {"login"}}, // console evaluates any expression: nonsensitive(var.password)
	"tofu":      {{"state", "pull"}, {"output"}, {"show"}, {"console"}},
	"terragrunt": {{"state", "pull"}, {"output"}, {"show"}, {"console"}, {"run-all", "output"}, {"run-all", "show"},
		{"run", "output"}, {"run", "show"}, {"run", "console"}, {"run", "state", "pull"}, {"output-all"}, {"show-all"}},
	"kubectl": {{"get", "secret"}, {"get", "secrets"}, {"describe", "secret"}, {"create", "token"}, {"config", "view"},
		{"config", "set-credentials"}},
	"docker":   {{"login"}},
	"podman":   {{"login"}, {"secret", "inspect"}},
	"helm":     {{"registry", "login"}, {"get", "values"}, {"get", "all"}, {"get", "manifest"}},
	"security": {{"find-generic-password"}, {"find-internet-password"}, {"dump-keychain"}, {"export"}},
	"pass":     {{}},
	"gopass":   {{}},
	"op":       {{"read"}, {"item", "get"}, {"inject"}, {"signin"}, {"document", "get"}, {"run"}},
	"bw":       {{"get"}, {"unlock"}, {"export"}, {"list"}, {"send", "receive"}},
	"vault":    {{"read"}, {"kv", "get"}, {"token"}, {"login"}, {"print", "token"}, {"write"}}, // a write to a secrets engine returns a credential (aws/sts, secret-id)
	"bao":      {{"read"}, {"kv", "get"}, {"token"}, {"login"}, {"print", "token"}, {"write"}}, // OpenBao, Vault's fork: the same CLI
	"openbao":  {{"read"}, {"kv", "get"}, {"token"}, {"login"}, {"print", "token"}, {"write"}},
	"doppler":  {{"secrets"}, {"run"}, {"configs", "tokens"}},
	"heroku":   {{"auth:token"}, {"config"}, {"config:get"}},
	"npm":      {{"token"}, {"login"}, {"adduser"}},
	"git": {{"credential"}, {"credential-store"}, {"credential-cache"}, {"credential-manager"}, {"credential-manager-core"},
		{"credential-osxkeychain"}, {"credential-libsecret"}, {"credential-wincred"}, {"credential-gnome-keyring"}},
	"keyring":     {{"get"}},
	"secret-tool": {{"lookup"}, {"search"}},
	// Secret managers and the tools that decrypt or inject their
	// values: what they print, or put in the environment of the
	// command they run, is the secret.
	"infisical":              {{"export"}, {"secrets"}, {"run"}, {"token"}},
	"chamber":                {{"export"}, {"read"}, {"exec"}, {"env"}},
	"sops":                   {{"decrypt"}, {"exec-env"}, {"exec-file"}, {"edit"}},
	"ansible-vault":          {{"view"}, {"decrypt"}, {"edit"}},
	"aws-vault":              {{"exec"}, {"export"}, {"login"}},
	"envchain":               {{}},
	"lpass":                  {{"show"}, {"export"}},
	"rbw":                    {{"get"}, {"code"}},
	"kwallet-query":          {{}},
	"vercel":                 {{"env", "pull"}},
	"netlify":                {{"env:get"}, {"env:list"}},
	"databricks":             {{"auth", "token"}},
	"hf":                     {{"auth", "token"}},
	"cloudflared":            {{"tunnel", "token"}},
	"wrangler":               {{"secret", "get"}},
	"berglas":                {{"access"}, {"exec"}},
	"teller":                 {{"show"}, {"env"}, {"export"}, {"run"}, {"yaml"}, {"json"}},
	"blackbox_cat":           {{}},
	"git-crypt":              {{"export-key"}, {"unlock"}},
	"dotenvx":                {{"get"}, {"decrypt"}, {"run"}},
	"dotenv":                 {{"get"}, {"list"}, {"run"}},
	"django-admin":           {{"diffsettings"}},
	"envsubst":               {{}},                                    // a template with the environment's values put in
	"wp":                     {{"config", "get"}, {"config", "list"}}, // WordPress's DB_PASSWORD and salts
	"argocd":                 {{"account", "generate-token"}, {"admin", "initial-password"}},
	"crictl":                 {{"inspect"}, {"inspectp"}, {"exec", "env"}}, // a container's environment
	"ctr":                    {{"task", "exec", "env"}, {"container", "info"}},
	"direnv":                 {{"dump"}, {"export"}, {"exec"}},
	"ykman":                  {{"oath", "accounts", "code"}},
	"railway":                {{"variables"}},
	"supabase":               {{"secrets", "list"}, {"status"}}, // status prints the local keys
	"rclone":                 {{"config", "show"}, {"config", "dump"}, {"config", "redacted"}, {"config", "password"}},
	"influx":                 {{"auth", "list"}, {"auth", "ls"}, {"auth", "find"}, {"auth", "create"}, {"config", "list"}, {"config", "ls"}},
	"cf":                     {{"oauth-token"}},
	"ibmcloud":               {{"iam", "oauth-tokens"}, {"iam", "api-key-create"}},
	"conda":                  {{"env", "config", "vars", "list"}},
	"step":                   {{"ca", "token"}, {"oauth"}, {"crypto", "jwt", "sign"}},
	"assume":                 {{}}, // granted's: the role's credentials, into the shell's environment or printed
	"pip":                    {{"config", "list"}, {"config", "get"}, {"config", "debug"}},
	"pip3":                   {{"config", "list"}, {"config", "get"}, {"config", "debug"}},
	"drush":                  {{"uli"}, {"user:login"}}, // a one-time login link
	"git-credential-manager": {{}}, "git-credential-osxkeychain": {{}}, "git-credential-libsecret": {{}},
	"git-credential-store": {{}}, "git-credential-wincred": {{}},
}

// printsCredentials reports a simple command that prints or stores
// credentials: a subcommand of credentialCommands, its words found in
// order among the command's operands (options between them skipped: "aws
// --profile p configure get"); env with no command; gpg exporting a
// secret key.
func printsCredentials(program string, words []string) bool {
	if len(words) == 0 {
		return false
	}
	args := words[1:]
	if printed, decided := programCredential(program, args); decided {
		return printed
	}
	if exposesCredentials(program, args) {
		return true
	}
	if cloudCredential(program, args) {
		return true
	}
	if strings.HasPrefix(program, "docker-credential-") {
		return true // a Docker credential helper: get and list print what it holds
	}
	if program == "aws" && (inOrder([]string{"ssm", "get-parameter"}, args) || inOrder([]string{"ssm", "get-parameters"}, args) ||
		inOrder([]string{"ssm", "get-parameters-by-path"}, args)) && slices.Contains(args, "--with-decryption") {
		return true // a SecureString's value, decrypted
	}
	for _, sub := range credentialCommands[program] {
		if inOrder(sub, args) {
			return true
		}
	}
	return expandsSecret(program, args)
}

// expandsSecret reports a program not known to use a secret without
// printing it, handed a secret variable's value as an operand or as an
// option's value other than a credential's: basename "$GITHUB_TOKEN",
// date -d "$AWS_SECRET_ACCESS_KEY", yes "$TOKEN", awk -v t="$TOKEN",
// git commit -m "$TOKEN" (kept where the next command shows it). What a
// program prints of its operands cannot be listed program by program; a
// client that sends the secret where it goes (curl -H, psql's connection
// string, docker login -p, gh, aws) is listed instead, and so is any
// program given it as a credential option's value (--token "$TOKEN").
func expandsSecret(program string, args []string) bool {
	for i, w := range args {
		if !printsSecretVariable(w) {
			continue
		}
		prev := ""
		if i > 0 {
			prev = args[i-1]
		}
		switch {
		case program == "git" && (prev == "-m" || prev == "--message" || strings.HasPrefix(w, "--message=")):
			return true // a commit's or a tag's message: kept, and shown by the next log
		case shellTests[program] && (prev == "-n" || prev == "-z"):
			continue // [ -n "$TOKEN" ]: set or not, and nothing printed
		case shellTests[program]:
			return true // test "$TOKEN" -eq 1: the error names the value
		case secretConsumers[program]:
			continue
		}
		if name, _, _ := strings.Cut(w, "="); strings.HasPrefix(w, "-") && credentialOption(name) {
			continue // --token=$TOKEN
		}
		if i > 0 && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=") && credentialOption(args[i-1]) {
			continue // --token "$TOKEN"
		}
		return true
	}
	return false
}

// handsOnSecret reports an environment entry that hands this machine's
// secret to what runs with it: NAME alone (its value passed through) or
// NAME=$TOKEN, where a secret's variable is named.
func handsOnSecret(entry string) bool {
	name, val, assigned := strings.Cut(entry, "=")
	return !assigned && printsSecretVariable("$"+name) || assigned && printsSecretVariable(val)
}

// credentialOption reports an option whose name says its value is a
// credential the program uses: a token, a key, a password, a header. A
// one-letter option says nothing by its name (id -u, date -u print their
// operand): the programs whose -p or -u takes a password are consumers.
func credentialOption(opt string) bool {
	name := strings.ToLower(strings.TrimLeft(opt, "-"))
	if len(name) < 2 {
		return false
	}
	for _, word := range []string{"token", "key", "pass", "secret", "auth", "credential", "header", "user", "bearer", "cookie", "login", "dsn", "url"} {
		if strings.Contains(name, word) {
			return true
		}
	}
	return false
}

// secretConsumers are programs that take a secret to use it, not to show
// it: network and database clients, registries' and clouds' CLIs,
// version control, and the shell's tests.
var secretConsumers = keySetExact("curl", "wget", "http", "https", "xh", "httpie", "psql", "pg_dump", "pg_dumpall", "pg_restore",
	"mysql", "mysqldump", "mariadb", "mongosh", "mongo", "mongodump", "mongorestore", "redis-cli", "sqlcmd", "clickhouse-client",
	"git", "gh", "glab", "docker", "podman", "nerdctl", "helm", "kubectl", "oc", "aws", "gcloud", "gsutil", "az", "terraform",
	"tofu", "pulumi", "npm", "yarn", "pnpm", "npx", "bun", "twine", "cargo", "pip", "pip3", "uv", "poetry", "gem", "heroku",
	"vercel", "netlify", "flyctl", "fly", "wrangler", "stripe", "sshpass", "rsync", "scp", "ssh", "ansible", "ansible-playbook",
	"true", ":", "export", "declare", "local", "readonly", "typeset", "unset", "read")

// shellTests are the shell's tests, whose string tests print nothing and
// whose errors print the operand.
var shellTests = keySetExact("test", "[", "[[")

// programCredential is printsCredentials' first check, the program's
// own: decided says it answered (printed is then the answer). Some
// programs' checks only ever find a credential: when they find none, the
// checks that follow in printsCredentials decide, as for any program.
func programCredential(program string, args []string) (printed, decided bool) {
	switch program {
	case "set":
		return len(args) == 0, true // every variable, the environment's included
	case "printenv":
		// Every variable, or those named: a secret's name among them.
		return len(operands(args)) == 0 || slices.ContainsFunc(args, func(w string) bool { return printsSecretVariable("$" + w) }), true
	case "export", "declare", "typeset", "readonly":
		// As a program's words (a container's exec array), not a
		// shell's declaration (printsEnvironment reads that).
		return declarationPrints(args), true
	case "dotenv":
		if slices.Contains(args, "-p") {
			return true, true // dotenv -p NAME: the variable's value, printed
		}
	case "redis-cli", "valkey-cli", "keydb-cli":
		return redisPrintsCredential(redisCLIWords(args)), true
	case "strace", "ltrace":
		// -v prints execve's environment in full, and -e trace=execve
		// with it every program's.
		if slices.ContainsFunc(args, func(w string) bool {
			return strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "v") && len(w) <= 6
		}) {
			return true, true
		}
	case "coreutils":
		// The multi-call binary: --coreutils-prog=NAME runs NAME.
		for i, w := range args {
			if prog, ok := strings.CutPrefix(w, "--coreutils-prog="); ok {
				return printsCredentials(prog, append([]string{prog}, args[i+1:]...)), true
			}
		}
	case "transcrypt":
		return slices.Contains(args, "--display") || slices.Contains(args, "-d"), true // the repository's password
	case "s3cmd":
		if slices.Contains(args, "--dump-config") {
			return true, true // the access and secret keys
		}
	case "ansible-inventory":
		// Every host's variables, the vault's decrypted passwords among them.
		return slices.Contains(args, "--list") || slices.Contains(args, "--host") || slices.Contains(args, "--vars"), true
	case "aws", "gcloud", "gsutil":
		if bucketSecretPrinted(args) {
			return true, true
		}
	case "gh", "glab":
		if ghPrintsToken(args) {
			return true, true
		}
	case "git":
		if gitConfigCredential(args) {
			return true, true
		}
	case "jq", "gojq", "jaq":
		return jqPrintsEnvironment(args), true
	case "ps":
		return psPrintsEnvironment(args), true
	case "kubectl", "oc":
		if kubectlPrintsSecret(args) {
			return true, true
		}
	case "env":
		return envPrintsEnvironment(args), true
	case "gpg", "gpg2":
		return gpgPrintsSecret(args), true
	case "echo", "printf", "print", "cat", "rev", "tee", "expr", "base64", "xxd", "od", "hexdump", "tr", "cut", "head", "tail":
		return printsSecretVariables(args), true
	case "python", "python3":
		// python -m dotenv list|get: a .env file's values.
		if inOrder([]string{"dotenv"}, args) && (inOrder([]string{"dotenv", "list"}, args) || inOrder([]string{"dotenv", "get"}, args)) {
			return true, true
		}
		// manage.py diffsettings: Django's settings, SECRET_KEY and the
		// database's password among them.
		if inOrder([]string{"manage.py", "diffsettings"}, args) {
			return true, true
		}
	case "make", "gmake":
		return makePrintsDatabase(args), true
	case "sops", "age", "rage":
		// -d, --decrypt: the file decrypted onto standard output.
		if slices.Contains(args, "-d") || slices.Contains(args, "--decrypt") {
			return true, true
		}
	case "systemd-creds":
		// cat and decrypt print a service's credential.
		return inOrder([]string{"cat"}, args) || inOrder([]string{"decrypt"}, args), true
	case "stripe":
		return inOrder([]string{"config"}, args) && slices.Contains(args, "--list"), true
	case "pulumi":
		// --show-secrets prints a stack's secret outputs and config;
		// config get prints a secret's value decrypted.
		return slices.Contains(args, "--show-secrets") || inOrder([]string{"config", "get"}, args), true
	case "yarn", "npm", "pnpm":
		if packageConfigToken(args) {
			return true, true
		}
	}
	return false, false
}

// ghPrintsToken reports gh's and glab's words that print the token.
func ghPrintsToken(args []string) bool {
	// auth status -t / --show-token prints the token (-t in a
	// cluster, -th, too); config get of a token.
	if inOrder([]string{"auth", "status"}, args) && (slices.ContainsFunc(args, shortFlag('t')) || slices.Contains(args, "--show-token")) {
		return true
	}
	if inOrder([]string{"config", "get"}, args) && slices.ContainsFunc(args, func(w string) bool { return strings.Contains(strings.ToLower(w), "token") }) {
		return true
	}
	return false
}

// gitConfigCredential reports git config of what holds a credential: an
// extra header with a token in it, a credential helper's settings; and
// git config of every setting, or every one a pattern matches (--list,
// -l, --get-regexp, git config list): an extraheader that CI left in the
// repository's config is among them, and which settings a pattern
// matches (http, "."), the line does not say.
func gitConfigCredential(args []string) bool {
	if !inOrder([]string{"config"}, args) {
		return false
	}
	return slices.ContainsFunc(args, func(w string) bool {
		lw := strings.ToLower(w)
		return strings.Contains(lw, "extraheader") || strings.Contains(lw, "credential") || strings.Contains(lw, "token") ||
			strings.Contains(lw, "password") || lw == "-l" || lw == "list" || lw == "--regexp" || strings.HasPrefix(lw, "--regexp=") ||
			len(lw) >= len("--li") && strings.HasPrefix("--list", lw) || // an unambiguous start, as git reads it
			len(lw) >= len("--get-r") && strings.HasPrefix("--get-regexp", lw)
	})
}

// jqPrintsEnvironment reports jq's words that print the environment or a
// secret's variable.
func jqPrintsEnvironment(args []string) bool {
	for _, w := range args {
		if strings.Contains(w, "$ENV") || jqEnv.MatchString(w) || printsSecretVariable(w) {
			return true // jq -n env, [env], env["X"], {} + env: the environment as JSON
		}
	}
	return false
}

// psPrintsEnvironment reports ps's words that print each process's
// environment.
func psPrintsEnvironment(args []string) bool {
	for _, w := range args {
		if !strings.HasPrefix(w, "-") && strings.ContainsRune(w, 'e') {
			return true // BSD's "ps eww", "ps auxe": each process's environment
		}
		if shortFlag('E')(w) {
			return true // macOS's ps -E: the same
		}
	}
	return false
}

// kubectlPrintsSecret reports kubectl's and oc's get, describe or edit of
// any spelling of secrets: "Secret", "secret/x", "all,secrets"; config
// view --raw; a --raw API path to secrets, percent-encoded or not (the
// API server decodes "%73ecrets").
func kubectlPrintsSecret(args []string) bool {
	verb := ""
	for i := 0; i < len(args); i++ {
		w := args[i]
		if strings.HasPrefix(w, "-") {
			if w == "--raw" && verb == "view" {
				return true
			}
			if w == "--raw" && i+1 < len(args) && namesSecrets(args[i+1]) {
				return true
			}
			if raw, ok := strings.CutPrefix(w, "--raw="); ok && namesSecrets(raw) {
				return true // get --raw=/api/v1/secrets: every Secret, as the API returns it
			}
			if kubectlValues[w] {
				i++ // its value: a namespace, a selector, a format
			}
			continue
		}
		if verb == "" {
			verb = w
			if w == "view-secret" {
				return true // the view-secret plugin: a secret's values, decoded
			}
			continue
		}
		if (verb == "get" || verb == "describe" || verb == "edit") && namesSecrets(w) {
			return true
		}
		if verb == "set" && w == "env" && slices.Contains(args, "--resolve") {
			return true // set env --list --resolve: the secrets' values an env refers to
		}
		if verb == "config" && w == "view" {
			verb = "view"
		}
	}
	return false
}

// namesSecrets reports a word of kubectl's that names secrets, in any
// case, percent-decoded as the API server decodes a path (a word that
// does not decode is read as written).
func namesSecrets(w string) bool {
	if d, err := url.PathUnescape(w); err == nil {
		w = d
	}
	return strings.Contains(strings.ToLower(w), "secret")
}

// redisCLIWords are the Redis command redis-cli is given after its
// options (-h host -p port -a password -n db ...), lower case.
func redisCLIWords(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		w := args[i]
		if len(out) == 0 && strings.HasPrefix(w, "-") {
			switch w {
			case "-h", "-p", "-s", "-a", "-u", "-n", "--user", "--pass", "-r", "-i", "-d", "--cacert", "--cert", "--key", "--sni":
				i++ // the option's value
			}
			continue
		}
		out = append(out, strings.ToLower(w))
	}
	return out
}

// bucketSecretPrinted reports a cloud CLI that prints a bucket's object
// whose name is on the secrets list, or hands out a link to it (gcloud
// storage cat gs://b/.env, aws s3 cp s3://b/.env -, aws s3 presign):
// a secret file, read where it is kept.
func bucketSecretPrinted(args []string) bool {
	ops := operands(args)
	if !slices.Contains(ops, "cat") && !slices.Contains(ops, "presign") && !slices.Contains(args, "-") {
		return false
	}
	for _, w := range args {
		for _, scheme := range []string{"s3://", "gs://", "gcs://"} {
			if rest, ok := strings.CutPrefix(strings.ToLower(w), scheme); ok && strings.Contains(rest, "/") {
				if lexical.SecretFile(lexical.FoldPath("/x/"+path.Base(rest))) != nil {
					return true
				}
			}
		}
	}
	return false
}

// declarationPrints reports export, declare, typeset or readonly with
// nothing to assign (options only): they print the variables, the
// environment's among them; or -p given a secret's name.
func declarationPrints(args []string) bool {
	printing := slices.ContainsFunc(args, func(w string) bool { return strings.HasPrefix(w, "-") && strings.Contains(w, "p") })
	listing := true
	for _, w := range args {
		if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "+") {
			continue
		}
		listing = false
		if printing && printsSecretVariable("$"+w) {
			return true
		}
	}
	return listing
}

// tracesCommands is the shell's xtrace setting after a "set" with args
// (on: -x, -ex, -o xtrace; off: +x, +o xtrace), given what it was: a
// traced command's words are printed expanded, a secret's value with
// them.
func tracesCommands(args []string, on bool) bool {
	for i, w := range args {
		switch {
		case (w == "-o" || w == "+o") && i+1 < len(args) && args[i+1] == "xtrace":
			on = w == "-o"
		case strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "x"):
			on = true
		case strings.HasPrefix(w, "+") && strings.Contains(w, "x"):
			on = false
		}
	}
	return on
}

// envPrintsEnvironment reports env with no command: it prints the
// environment.
func envPrintsEnvironment(args []string) bool {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w == "-u" || w == "--unset" || w == "-C" || w == "--chdir" {
			i++ // the option's value: a variable's name, a directory
			continue
		}
		if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
			return false // env runs a command
		}
	}
	return true
}

// gpgPrintsSecret reports gpg exporting a secret key or decrypting a file.
func gpgPrintsSecret(args []string) bool {
	// gpg takes any unambiguous start of a long option
	// ("--export-secret-key"), and --export-secret-keys' is one.
	for _, w := range args {
		if strings.HasPrefix(w, "--export-se") || strings.HasPrefix(w, "--export-ss") || shortFlag('d')(w) || strings.HasPrefix(w, "--decrypt") {
			return true // a secret key, or a file decrypted onto standard output (-d, -qd)
		}
	}
	return false
}

// printsSecretVariables reports a printing program's words with a
// secret's variable: "echo $AWS_SECRET_ACCESS_KEY".
func printsSecretVariables(args []string) bool {
	for _, w := range args {
		if printsSecretVariable(w) {
			return true
		}
	}
	return false
}

// makePrintsDatabase reports make's -p, which prints make's database:
// every variable, the environment's.
func makePrintsDatabase(args []string) bool {
	for _, w := range args {
		if w == "-p" || w == "--print-data-base" || strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "p") && len(w) <= 4 {
			return true
		}
	}
	return false
}

// packageConfigToken reports a package manager's config get of a
// registry's token or password.
func packageConfigToken(args []string) bool {
	if inOrder([]string{"config", "get"}, args) {
		for _, w := range args {
			lw := strings.ToLower(w)
			if strings.Contains(lw, "auth") || strings.Contains(lw, "token") || strings.Contains(lw, "password") {
				return true
			}
		}
	}
	return false
}

// exposesCredentials is printsCredentials' second check by program: a
// container's secrets or environment, OpenShift's token, ssh's forwarded
// agent, curl's .netrc password.
func exposesCredentials(program string, args []string) bool {
	switch program {
	case "docker", "podman", "nerdctl", "kubectl", "oc", "docker-compose":
		if containerCredential(program, args) {
			return true
		}
	case "ssh":
		// -A forwards the agent: the remote end signs with the keys.
		if slices.Contains(args, "-A") || slices.ContainsFunc(args, func(w string) bool { return strings.EqualFold(w, "-oForwardAgent=yes") }) {
			return true
		}
	case "curl":
		// -n reads ~/.netrc and sends its password to the host.
		if slices.Contains(args, "-n") || slices.Contains(args, "--netrc") || slices.Contains(args, "--netrc-optional") {
			return true
		}
	}
	return false
}

// containerCredential reports a container tool's words that print a
// container's secrets or environment, or a cluster's token.
func containerCredential(program string, args []string) bool {
	// A container's mounted secrets, printed or copied out (exec cat,
	// cp): /run/secrets, a service account's token.
	if slices.ContainsFunc(args, containerSecret) {
		return true
	}
	if program == "docker-compose" && inOrder([]string{"config"}, args) && !slices.Contains(args, "--services") &&
		!slices.Contains(args, "--volumes") && !slices.Contains(args, "-q") && !slices.Contains(args, "--quiet") {
		return true // compose config, the docker-compose spelling
	}
	if inspectPrintsEnvironment(args) {
		return true
	}
	// compose config prints the file with the values it interpolates
	// from .env and env_file, --environment the environment itself.
	if inOrder([]string{"compose", "config"}, args) && !slices.Contains(args, "--services") && !slices.Contains(args, "--volumes") &&
		!slices.Contains(args, "-q") && !slices.Contains(args, "--quiet") || inOrder([]string{"config"}, args) && slices.Contains(args, "--environment") {
		return true
	}
	// exec or run of a command that prints credentials in a container:
	// its environment (and what -e handed it from this one), a secret
	// variable echoed, code that prints the environment.
	if inOrder([]string{"exec"}, args) || inOrder([]string{"run"}, args) {
		if runsCredentialPrinter(args) {
			return true
		}
	}
	// OpenShift's token: whoami -t, a service account's, a secret
	// extracted.
	if program == "oc" && (inOrder([]string{"whoami"}, args) && (slices.Contains(args, "-t") || slices.Contains(args, "--show-token")) ||
		inOrder([]string{"create", "token"}, args) || inOrder([]string{"serviceaccounts", "get-token"}, args) || inOrder([]string{"extract"}, args)) {
		return true
	}
	return false
}

// inspectPrintsEnvironment reports an inspection of a container (docker
// inspect, docker container inspect, podman inspect, docker service
// inspect): it prints the container's configuration, its environment and
// so the secrets handed to it among it, unless a format picks something
// else. An image's, a network's or a volume's inspection holds none.
func inspectPrintsEnvironment(args []string) bool {
	i := slices.Index(args, "inspect")
	if i < 0 || i > 0 && noEnvironmentObjects[args[i-1]] {
		return false
	}
	format, given := "", false
	for j := i + 1; j < len(args); j++ {
		w := args[j]
		switch {
		case (w == "-f" || w == "--format") && j+1 < len(args):
			format, given = args[j+1], true
			j++
		case strings.HasPrefix(w, "--format="):
			format, given = strings.TrimPrefix(w, "--format="), true
		case strings.HasPrefix(w, "-f") && len(w) > 2 && !strings.HasPrefix(w, "--"):
			format, given = w[2:], true
		}
	}
	if !given {
		return true
	}
	compact := strings.ReplaceAll(format, " ", "")
	return strings.Contains(compact, ".Env") || strings.Contains(compact, "{{.}}") || strings.Contains(compact, "json.}}") ||
		strings.Contains(compact, ".Config}}") || strings.Contains(compact, "{{json.Config") || strings.Contains(compact, "{{.Config")
}

// noEnvironmentObjects are the objects whose inspection prints no
// container's environment.
var noEnvironmentObjects = keySet("image", "images", "network", "volume", "plugin", "node", "context", "manifest", "secret", "config", "buildx", "swarm")

// runsCredentialPrinter reports an exec's or a run's words (after the
// container tool's own) where a command that prints credentials starts:
// at a word of its own (docker exec web printenv), or inside a command
// line a shell runs there (sh -c 'echo $DATABASE_URL'), or as code that
// prints the environment (python -c 'print(os.environ)').
func runsCredentialPrinter(args []string) bool {
	for j, w := range args {
		if printsCredentials(programName(w), args[j:]) || strings.ContainsAny(w, ".(/") && codeReadsEnvironment(w) {
			return true // node -p process.env; python3 -c 'print(open("/proc/self/environ").read())'
		}
		if strings.ContainsAny(w, " \t") {
			if printsEnvironmentCode.MatchString(w) {
				return true
			}
			for _, seg := range shellSegments.Split(w, -1) {
				if fields := strings.Fields(strings.NewReplacer(`"`, "", "'", "").Replace(seg)); len(fields) > 0 &&
					printsCredentials(programName(fields[0]), fields) {
					return true
				}
			}
		}
	}
	return false
}

// shellSegments splits a command line where another command starts.
var shellSegments = regexp.MustCompile(`;|&&|\|\||\||\n|\$\(|\x60`)

// printsEnvironmentCode finds code that prints the environment
// (environmentInCode).
var printsEnvironmentCode = regexp.MustCompile(environmentInCode)

// shortFlag reports a word that is a cluster of one-letter flags with c
// among them ("-t", "-th", "-qd").
func shortFlag(c byte) func(string) bool {
	return func(w string) bool { return !strings.Contains(w, "=") && inCluster(w, c) }
}

// inCluster reports a word of short options ("-xzf", not "--x") that holds
// the letter c.
func inCluster(w string, c byte) bool {
	return len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.IndexByte(w[1:], c) >= 0
}

// cloudCredential reports a cloud CLI's subcommand that hands out a
// credential by its verb's shape, beyond the table's: AWS's verbs that
// get or create credentials, keys and secret values, sign, or decrypt
// (get-cluster-credentials, get-api-keys, create-keys-and-certificate,
// credential-helper), gcloud's signing, Azure's SAS tokens, connection
// strings and secrets shown with their values.
func cloudCredential(program string, args []string) bool {
	switch program {
	case "aws", "gcloud", "az", "supabase":
	default:
		return false // every other command, on the path every command takes: no words gathered
	}
	ops := operands(args)
	switch program {
	case "aws":
		for _, w := range ops {
			if strings.HasPrefix(w, "list-") || strings.HasPrefix(w, "describe-") {
				continue
			}
			if strings.Contains(w, "credential") || strings.Contains(w, "api-keys") || strings.Contains(w, "secret-value") ||
				strings.HasPrefix(w, "create-keys") || strings.HasPrefix(w, "sign") || w == "get-connection" || w == "get-function" {
				return true
			}
		}
		return slices.Contains(args, "--include-values") || slices.Contains(args, "--with-decryption")
	case "gcloud":
		return slices.ContainsFunc(ops, func(w string) bool {
			return strings.HasPrefix(w, "sign-") || strings.HasPrefix(w, "print-") && strings.HasSuffix(w, "token")
		})
	case "az":
		for _, w := range ops {
			if w == "generate-sas" || strings.Contains(w, "connection-string") || w == "list-keys" || w == "keys" && slices.Contains(ops, "list") ||
				w == "credential" || w == "credentials" {
				return true
			}
		}
		return slices.Contains(args, "--show-values") || slices.Contains(args, "--show-secrets")
	case "supabase":
		return slices.Contains(ops, "api-keys")
	}
	return false
}

// operands are a command's words that are no options, in lower case: the
// subcommands and names a platform's table reads.
func operands(args []string) []string {
	var ops []string
	for _, w := range args {
		if !strings.HasPrefix(w, "-") {
			ops = append(ops, strings.ToLower(w))
		}
	}
	return ops
}

// containerSecret reports a word that names where a container keeps its
// secrets: Docker's and Compose's /run/secrets, Kubernetes' service
// account and its mounted secrets (as a path, or a container's side of
// cp: "web:/run/secrets/db").
func containerSecret(w string) bool {
	lw := strings.ToLower(w)
	if strings.Contains(lw, "/run/secrets/") || strings.HasSuffix(lw, "/run/secrets") || strings.Contains(lw, "serviceaccount/token") ||
		strings.Contains(lw, "/secrets/kubernetes.io/") {
		return true
	}
	// Any file of the secrets list, inside the container ("web:/app/.env",
	// "cat /proc/1/environ" run there): printed, it is in the model's
	// context as a file of this machine's would be.
	if _, p, ok := strings.Cut(w, ":"); ok && strings.HasPrefix(p, "/") {
		w = p
	}
	if clean, ok := lexical.AbsClean(w); ok && strings.HasPrefix(w, "/") {
		return lexical.SecretFile(lexical.FoldPath(clean)) != nil
	}
	return false
}

// jqEnv finds jq's env builtin as a word of a filter ("env", "[env]",
// "env[\"X\"]", "{} + env"), not a name that has it ("environment").
var jqEnv = regexp.MustCompile(`(^|[^A-Za-z0-9_$.])env($|[^A-Za-z0-9_])`)

// printsSecretVariable reports a word that expands a variable whose name
// says it holds a secret ("$GITHUB_TOKEN", "${DB_PASSWORD}"): printed,
// its value is in the model's context.
func printsSecretVariable(w string) bool {
	if strings.Contains(w, "${!") {
		return true // an indirect expansion: any variable's value, a secret's too
	}
	for _, after, found := strings.Cut(w, "$"); found; _, after, found = strings.Cut(after, "$") {
		rest := strings.TrimPrefix(after, "{")
		end := strings.IndexFunc(rest, func(r rune) bool {
			return !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		})
		if end < 0 {
			end = len(rest)
		}
		name := strings.ToUpper(rest[:end])
		if strings.HasSuffix(name, "_PAT") || name == "PAT" || strings.HasSuffix(name, "_PW") || strings.HasSuffix(name, "_SK") || secretVariableNames[name] {
			return true // a personal access token (GITHUB_PAT), a password (LDAP_BIND_PW), a secret key (STRIPE_SK)
		}
		for _, word := range secretVariableWords {
			if strings.Contains(name, word) {
				return true
			}
		}
	}
	return false
}

// secretVariableWords are what the names of variables that hold secrets
// have in them.
var secretVariableWords = []string{"SECRET", "TOKEN", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "ACCESS_KEY", "PRIVATE_KEY",
	"CREDENTIAL", "SESSION_KEY", "_PASS", "DATABASE_URL", "DSN",
	"_PWD", "MONGODB_URI", "MONGO_URI", "REDIS_URL", "SIGNING_KEY", "WEBHOOK", "AUTHORIZATION", "AUTH_HEADER", "BASIC_AUTH", "NPM_AUTH", "COOKIE", "_KEY", "_SK_", "DB_URL", "DB_URI",
	"JWT", "_CREDS", "OIDC", "CONNECTION_STRING", "CONNSTR", "PASSPHRASE", "BROKER_URL", "AMQP_URL", "CONNECTION_URI",
	"AUTH_CONFIG", "_AUTH", "_PEM", "DATABASE_URI", "MONGODB_URL", "MONGO_URL", "POSTGRES_URL", "MYSQL_URL",
	"MNEMONIC", "SEED_PHRASE", "OP_SESSION", "BW_SESSION", "SSHPASS", "PGPASS"}

// secretVariableNames are whole names of variables that hold secrets
// though no word of secretVariableWords is in them: a kubeconfig's
// contents, an index URL with its password, a bearer token, a one-time
// code.
var secretVariableNames = keySetExact("PW", "PWD_HASH", "OTP", "TOTP", "CREDS", "BEARER", "KUBE_CONFIG", "KUBECONFIG_DATA",
	"KUBECONFIG_CONTENT", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "NPM_CONFIG__AUTH",
	"GOOGLE_CREDENTIALS", "GCP_SA_KEY", "SSH_KEY", "DEPLOY_KEY")

// kubectlValues are kubectl's options whose value is the next word.
var kubectlValues = opts("-n --namespace -l --selector -o --output -f --filename --context --cluster --user -c --container " +
	"--kubeconfig -s --server --field-selector --sort-by --template")

// inOrder reports whether the words of sub appear among the operands of
// args (the words that are no options), in order, others between.
func inOrder(sub, args []string) bool {
	i := 0
	for _, w := range args {
		if i == len(sub) {
			break
		}
		if !strings.HasPrefix(w, "-") && w == sub[i] {
			i++
		}
	}
	return i == len(sub)
}
