package argread

import "strings"

// credentialCommands are, by program, the subcommands that print a secret
// or write one: the environment, a CLI's tokens and keys, a secret
// manager's values, a cluster's secrets, and the logins and settings that
// write a CLI's credentials. What such a command prints is in the model's
// context, as a secret file's contents would be; the floor asks on it (a
// SimpleCommand's Credentials). An empty subcommand is every use of the
// program.
var credentialCommands = map[string][][]string{
	"printenv": {{}},
	"aws": {{"configure", "get"}, {"configure", "set"}, {"configure", "export-credentials"}, {"configure", "import"},
		{"sts", "get-session-token"}, {"sts", "assume-role"}, {"secretsmanager", "get-secret-value"}, {"ecr", "get-login-password"},
		{"codeartifact", "get-authorization-token"}, {"iam", "create-access-key"}},
	"gcloud": {{"auth", "print-access-token"}, {"auth", "print-identity-token"}, {"auth", "application-default", "print-access-token"},
		{"auth", "login"}, {"auth", "activate-service-account"}, {"secrets", "versions", "access"},
		{"iam", "service-accounts", "keys", "create"}, {"config", "set"}},
	"az": {{"account", "get-access-token"}, {"keyvault", "secret", "show"}, {"keyvault", "secret", "download"}, {"login"},
		{"ad", "sp", "credential", "reset"}, {"storage", "account", "keys", "list"}, {"acr", "login"}, {"aks", "get-credentials"}},
	"gh": {{"auth", "token"}, {"auth", "login"}, {"auth", "refresh"}, {"auth", "setup-git"}, {"config", "set"}},
	"kubectl": {{"get", "secret"}, {"get", "secrets"}, {"describe", "secret"}, {"create", "token"}, {"config", "view"},
		{"config", "set-credentials"}},
	"docker":      {{"login"}},
	"podman":      {{"login"}},
	"helm":        {{"registry", "login"}},
	"security":    {{"find-generic-password"}, {"find-internet-password"}, {"dump-keychain"}, {"export"}},
	"pass":        {{}},
	"gopass":      {{}},
	"op":          {{"read"}, {"item", "get"}, {"inject"}, {"signin"}},
	"bw":          {{"get"}, {"unlock"}, {"export"}},
	"vault":       {{"read"}, {"kv", "get"}, {"token"}, {"login"}, {"print", "token"}},
	"doppler":     {{"secrets"}},
	"heroku":      {{"auth:token"}},
	"npm":         {{"token"}, {"login"}, {"adduser"}},
	"git":         {{"credential"}, {"credential-store"}, {"credential-cache"}},
	"keyring":     {{"get"}},
	"secret-tool": {{"lookup"}},
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
	switch program {
	case "env":
		for _, w := range args {
			if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
				return false // env runs a command
			}
		}
		return true
	case "gpg", "gpg2":
		for _, w := range args {
			if w == "--export-secret-keys" || w == "--export-secret-subkeys" || w == "--export-ssh-key" {
				return true
			}
		}
		return false
	}
	for _, sub := range credentialCommands[program] {
		if inOrder(sub, args) {
			return true
		}
	}
	return false
}

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
