package lexical

import "strings"

// The floor's list of files that hold secrets: keys, tokens, passwords,
// cookies, what a person typed. A read of one puts the secret into the
// model's context, from where any later call can carry it anywhere, so the
// floor asks on every read as well as every change, whatever the tool's
// annotations claim (a "read-only" tool may upload what it reads). Entries
// are matched as sensitiveList's are (see there), and the list is kept
// short on purpose: each entry is a question on a read an agent rarely
// makes on purpose. A project's .env.example is a template, not a secret;
// a public certificate (.crt, a .pem that is not named a key) is public.
//
// docs/floor.md's secrets table is made from this list, and each entry has
// its own test (testdata/floor/secrets.txt).
var secretList = []SensitiveEntry{
	// Private keys: SSH's by their default names anywhere (a key copied
	// to /tmp is still a key), and key stores by their extensions.
	{"KEY1", privateKey, Anywhere, Dir, []string{".ssh", ".gnupg"}},
	{"KEY2", privateKey, Anywhere, File, []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
		"privkey.pem", "private.pem", "private_key.pem", "secring.gpg", "private_key", "adbkey", "key.der", "private.der", "private.asc", "secret.gpg"}}, // Vagrant's private_key, Android's adbkey
	{"KEY6", privateKey, Anywhere, Prefix, []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"}}, // a second key by the default's name: id_rsa_deploy, id_ed25519_github (not its .pub)
	{"KEY3", privateKey, Anywhere, Suffix, []string{".key", "-key.pem", "_key.pem", ".key.pem", ".p12", ".pfx", ".jks", ".keystore", ".p8", ".ppk", ".kdbx", ".keytab",
		".key.bak", ".key.old", ".key.orig", "-key.json", "_key.json", ".pkcs12", "_rsa", "_ed25519", "_ecdsa", "_dsa",
		"_private.pem", "-private.pem", ".private.pem", "_private_key.pem", ".psk"}}, // a key's copies; a cloud service account's key file (gcp-sa-key.json); a JWT signing key; an iwd network's key
	{"KEY5", privateKey, Anywhere, File, []string{"id_rsa.bak", "id_rsa.old", "id_rsa.orig", "id_rsa.backup", "id_rsa.save", "id_rsa.copy", "id_rsa~", "id_rsa.1", "id_dsa.bak", "id_dsa.old", "id_dsa.orig", "id_dsa.backup", "id_dsa.save", "id_dsa.copy", "id_dsa~", "id_dsa.1", "id_ecdsa.bak", "id_ecdsa.old", "id_ecdsa.orig", "id_ecdsa.backup", "id_ecdsa.save", "id_ecdsa.copy", "id_ecdsa~", "id_ecdsa.1", "id_ed25519.bak", "id_ed25519.old", "id_ed25519.orig", "id_ed25519.backup", "id_ed25519.save", "id_ed25519.copy", "id_ed25519~", "id_ed25519.1"}}, // a key's copies
	{"KEY4", privateKey, System, Dir, []string{"/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key", "/etc/ssh/ssh_host_dsa_key",
		"/etc/ssl/private", "/etc/letsencrypt/live", "/etc/letsencrypt/archive", "/etc/pki/tls/private", "/var/lib/kubelet/pki",
		"/etc/dkimkeys", "/etc/pki/ca/private", "/etc/pki/private", "/etc/opendkim/keys",
		"/etc/puppetlabs/puppet/ssl/private_keys", "/etc/puppet/ssl/private_keys", "/var/lib/puppet/ssl/private_keys",
		"/etc/puppetlabs/puppetserver/ca", "/etc/salt/pki", "/var/lib/iwd", "/etc/chef/client.pem"}},

	// Cloud, registry and service credentials.
	{"CRD1", secretCredentials, Anywhere, Dir, []string{".aws", ".azure", ".config/gcloud", ".kube", ".config/gh", ".terraform.d", ".config/op", ".config/doctl",
		".config/hub", ".oci", ".config/helm/registry", ".config/containers/auth.json",
		// CLIs' and services' tokens.
		".config/github-copilot", ".config/glab-cli", ".config/flyctl", ".fly", ".config/netlify", ".local/share/com.vercel.cli",
		".config/configstore", ".huggingface", ".cache/huggingface/token", ".config/ngrok", ".cloudflared", ".wrangler",
		".config/.wrangler", ".config/stripe", ".config/sops", ".config/solana", ".ethereum/keystore", ".bitcoin", ".snowflake",
		".dbt", ".config/hcloud", ".mc", ".config/bitwarden cli", ".docker/contexts", ".subversion/auth", ".kaggle", ".config/filezilla",
		".config/age", ".age", ".config/himalaya", ".aider/oauth-keys.env", ".supabase", ".railway", ".ngrok2", ".doppler", ".lpass",
		".talos", ".tsh", ".mcli", ".config/linode-cli", ".config/scw", ".ovh.conf", ".exoscale", ".config/twilio-cli", ".config/argocd",
		".clasprc.json", ".config/atuin/key", ".chef", ".local/share/containers/auth.json", ".local/share/jupyter/runtime",
		".vercel/auth.json", ".config/helm/repositories.yaml", ".cassandra/cqlshrc", ".config/pypoetry/auth.toml",
		"application support/pypoetry/auth.toml", ".config/cursor/user/globalstorage", "application support/cursor/user/globalstorage",
		".config/windsurf/user/globalstorage", ".config/code - insiders/user/globalstorage", "application support/code/user/globalstorage",
		".qwen", ".config/io.datasette.llm", ".config/code/user/mcp.json", ".aliyun", ".config/openstack", ".bluemix", ".ibmcloud",
		".gitlab-runner", ".python-gitlab.cfg", ".config/python-gitlab.cfg", ".local/share/uv/credentials", ".tccli", ".ucloud",
		".config/doctl", ".config/exoscale", ".scw", ".volcengine", ".huaweicloud", ".oci", ".config/hut",
		".config/tea", ".config/gitea", ".config/glab", ".config/jira", ".jira.d", ".config/sentry", ".config/heroku", ".netlify",
		".config/vercel", ".config/railway", ".config/render", ".codeium/config.json", ".config/github-copilot", ".aider.conf.yml",
		".continue", ".config/mods", ".config/fabric", ".config/openai", ".config/anthropic", ".config/aichat",
		// SSO and SAML token caches; remote IDE servers' copies of the desktop's stores; apps' saved credentials.
		".aws-sso", ".saml2aws", ".okta", ".config/okta", ".gimme-aws-creds", ".aws/sso/cache", ".azure/msal_token_cache.json",
		".vscode-server/data/user/globalstorage", ".vscode-server/data/user/mcp.json", ".cursor-server/data/user/globalstorage",
		".cursor-server/data/user/mcp.json", ".windsurf-server/data/user/globalstorage", ".vscode-server-insiders/data/user/globalstorage",
		".local/share/dbeaverdata/workspace6/general/.dbeaver", ".dbeaver4", ".config/insomnia", "application support/insomnia",
		".config/postman", "application support/postman", ".config/mattermost", ".config/teams", ".config/microsoft/microsoft teams",
		".config/element", ".config/zoom", ".zoom", ".config/gitkraken", ".gitkraken", ".config/sourcegit",
		// AI agents' credentials and the configurations that hold MCP servers' keys.
		".claude/.credentials.json", ".codex/auth.json", ".gemini/oauth_creds.json", ".local/share/opencode/auth.json",
		".claude.json", "claude_desktop_config.json", ".cursor/mcp.json", ".continue/config.json", ".config/code/user/globalstorage",
		".mcp-auth", ".codeium/windsurf/mcp_config.json", ".cache/huggingface/stored_tokens",
		// Kubernetes clients' own copies of clusters' kubeconfigs; CLIs' tokens.
		".config/lens/kubeconfigs", "application support/lens/kubeconfigs", ".k3d", ".kind", ".minikube/profiles",
		".config/shell_gpt", ".twilio-cli", ".jfrog", ".config/turso", ".config/planetscale", ".render", ".config/gspread",
		".config/chezmoi/key.txt", ".config/chezmoi/chezmoi.toml", ".config/openstack/clouds.yaml",
		// Databases' and services' clients; agents' settings that hold MCP servers' keys.
		".snowsql", ".influxdbv2", ".config/mc", ".argocd", ".purple", ".config/atuin/session", ".gemini/settings.json",
		".codex/config.toml", ".config/fish/fish_variables", ".near-credentials", ".rancher/cli2.json", ".vultr-cli.yaml",
		".ipfs/config", ".config/hexchat/servlist.conf", ".ipfs/keystore", "application support/com.vercel.cli"}},
	{"CRD2", secretCredentials, Anywhere, File, []string{".netrc", "_netrc", ".pgpass", ".my.cnf", ".mylogin.cnf", ".git-credentials", ".config/git/credentials",
		".pypirc", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials", ".vault-token", ".terraformrc", ".tofurc", ".docker/config.json",
		".boto", ".s3cfg", ".databrickscfg", ".htpasswd", ".erlang.cookie", "credentials.json", "service-account.json", "serviceaccount.json",
		".config/rclone/rclone.conf", ".config/composer/auth.json", ".composer/auth.json", ".gradle/gradle.properties", ".m2/settings-security.xml",
		".m2/settings.xml", ".config/pip/pip.conf", ".pip/pip.conf", ".sentryclirc", ".sbt/.credentials", ".ivy2/.credentials",
		".nuget/nuget/nuget.config", "key.pem", "deploy_key", ".dev.vars", "local.settings.json", "secrets.yaml", "secrets.yml",
		"secret.yaml", "secret.yml", ".wakatime.cfg", "c.pwd", "c.kdbx", ".pam_environment", ".circleci/cli.yml", ".travis/config.yml",
		".cf/config.json", ".lima/_config/user", ".colima/_lima/_config/user", ".age-key.txt", ".config/sops/age/keys.txt",
		"cookies", ".expo/state.json",
		"secrets.json", ".secrets", "wp-config.php", "terraform.tfstate", ".gitcookies", ".msmtprc", ".authinfo", ".authinfo.gpg",
		".smbcredentials", ".fetchmailrc", "service_account.json", "sasl_passwd", "wpa_supplicant.conf",
		"secrets.toml", "firebase-adminsdk.json", "keyfile.json", "sftp-config.json", ".ftpconfig", "kubeconfig", "kubeconfig.yaml", "kubeconfig.yml",
		"admin.conf", "pgpass", "rootkey.csv", "accesskeys.csv", ".dockerconfigjson", "key4.db", "serviceaccountkey.json", "service-account-key.json", "credentials.xml", "cookies.txt", "cookies.sqlite", "credentials", ".credentials", "creds.json",
		"vault_pass", "vault_pass.txt", ".vault_pass", ".vault_pass.txt", ".vault-pass", "vault_password", ".vault_password", ".ansible-vault-password",
		"clouds.yaml", "secure.yaml", "token.json", "token.pickle", "authorized_user.json", ".sgptrc",
		".mbsyncrc", ".offlineimaprc", ".cqlshrc", ".passwd-s3fs", "passwd-s3fs", ".xauthority", ".dockercfg", ".ssh-agent",
		"initialadminpassword", ".my.cnf.bak", ".mongoshrc.js", ".pgservicefile", "pg_service.conf", ".pg_service.conf", ".mcp.json",
		"key.properties", "keystore.properties", ".config/aerc/accounts.conf", ".weechat/sec.conf", ".config/weechat/sec.conf",
		"kubeconfig.json", "wg0.conf", "wg1.conf", "wg2.conf", // WireGuard's interface files, with their private keys
		"token.txt", "api_key.txt", "api-key.txt", "apikey.txt", ".access_token", "access_token.txt", "htpasswd",
		".config/nuget/nuget.config", ".bunfig.toml"}},
	{"CRD10", secretCredentials, Anywhere, Suffix, []string{".env"}},                                        // prod.env, an env_file by another name
	{"CRD11", secretCredentials, Anywhere, Infix, []string{"-firebase-adminsdk-"}},                          // PROJECT-firebase-adminsdk-ID-HASH.json
	{"CRD3", secretCredentials, Home, File, []string{".npmrc", ".yarnrc.yml", ".yarnrc", ".bundle/config"}}, // a project's .npmrc names a registry; the home one holds its token
	{"CRD4", secretCredentials, Anywhere, Prefix, []string{"client_secret"}},                                // Google's client_secret_<id>.json
	{"CRD5", secretCredentials, System, File, []string{"/etc/shadow", "/etc/gshadow", "/etc/master.passwd", "/etc/security/opasswd", "/etc/grafana/grafana.ini",
		"/etc/environment",
		"/etc/shadow-", "/etc/gshadow-", "/etc/kubernetes/admin.conf", "/etc/rancher/k3s/k3s.yaml", "/etc/mysql/debian.cnf", "/etc/krb5.keytab",
		"/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets", "/etc/ipsec.secrets", "/etc/gitlab/gitlab-secrets.json",
		"/etc/shadow.bak", "/etc/shadow~", "/etc/shadow.old", "/etc/shadow.orig", "/etc/gshadow.bak", "/etc/gshadow~", "/etc/master.passwd.bak",
		"/etc/kubernetes/kubelet.conf", "/etc/kubernetes/controller-manager.conf", "/etc/kubernetes/scheduler.conf", "/etc/kubernetes/super-admin.conf",
		"/etc/ldap.secret", "/etc/pam_ldap.secret", "/etc/libnss-ldap.secret", "/etc/samba/smbpasswd", "/etc/ssmtp/ssmtp.conf", "/etc/exim4/passwd.client",
		"/etc/fetchmailrc", "/etc/msmtprc", "/etc/postfix/sasl_passwd", "/etc/sssd/sssd.conf", "/etc/openldap/ldap.secret",
		"/etc/gitlab-runner/config.toml", "/etc/passwd-s3fs", "/var/lib/extrausers/shadow", "/var/lib/extrausers/gshadow",
		"/etc/redis/redis.conf", "/etc/redis.conf", "/var/lib/grafana/grafana.db"}},
	{"CRD6", secretCredentials, System, Dir, []string{"/run/secrets", "/etc/networkmanager/system-connections", "/etc/wireguard",
		"/var/lib/docker/containers", "/run/user/*/containers", "/var/backups", "/etc/kubernetes/pki",
		"/etc/rancher/k3s", "/var/lib/rancher/k3s/server", "/var/lib/mysql", "/var/lib/postgresql", "/var/lib/pgsql", "/etc/openvpn", "/var/lib/samba/private",
		"/var/lib/docker/overlay2", "/var/lib/docker/volumes", "/var/lib/containers/storage", "/var/lib/kubelet/pods", "/var/lib/jenkins/secrets",
		"/var/lib/cloud", "/var/lib/sss/secrets", "/var/lib/sss/db", "/etc/tcb", "/var/db/dslocal/nodes", "/run/credentials",
		"/var/lib/tailscale", "/var/lib/etcd", "/run/containers", "/var/jenkins_home/secrets",
		"/var/lib/zerotier-one", "/var/lib/netbird", "/var/lib/vault", "/etc/vault.d", "/var/mail", "/var/spool/mail",
		"/etc/gitlab/initial_root_password", "/etc/rancher/rke2", "/var/lib/rancher/rke2/server", "/var/snap/microk8s/current/credentials",
		"/etc/consul.d", "/etc/nomad.d", "/etc/pgbouncer", "/etc/gitlab", "/var/lib/waagent"}}, // /var/run/secrets is /run/secrets, a container's and a pod's; layers and volumes hold their files' secrets
	{"CRD7", secretCredentials, Anywhere, Suffix, []string{".tfstate", ".tfstate.backup", ".tfvars", ".tfvars.json", ".ovpn", ".kubeconfig"}}, // an OpenVPN profile carries its key inline
	{"CRD8", secretCredentials, Anywhere, Prefix, []string{"krb5cc_"}},                                                                        // Kerberos tickets: /tmp/krb5cc_1000
	{"CRD9", secretCredentials, Anywhere, Prefix, []string{"terraform.tfstate."}},                                                             // its backups, terraform.tfstate.1700000000.backup
	{"CRD12", secretCredentials, Anywhere, Suffix, []string{".keyring"}},                                                                      // Ceph's: ceph.client.admin.keyring
	{"CRD13", secretCredentials, Anywhere, Dir, []string{".envs"}},                                                                            // cookiecutter-django's .envs/.production/.django
	{"KEY7", privateKey, Anywhere, Suffix, []string{".pk8", ".private", ".sec"}},                                                              // Android's platform.pk8, DKIM's mail.private
	{"KEY8", privateKey, Anywhere, Prefix, []string{".ssh.", ".gnupg.", "ssh-keys."}},                                                         // an archive or a copy of the key directory: .ssh.tar.gz, .gnupg.bak

	// Environment files: a project's secrets, by convention outside git.
	{"ENV1", secretEnv, Anywhere, Prefix, []string{".env", "#.env"}}, // and Emacs' autosave of one, #.env#

	// Keychains, password stores and browser profiles (cookies, saved
	// passwords, session tokens).
	{"VLT1", secretStore, Anywhere, Dir, []string{".password-store", ".local/share/keyrings", "library/keychains", ".mozilla", ".config/google-chrome",
		".config/chromium", ".config/bravesoftware", ".config/microsoft-edge", ".config/vivaldi", ".config/opera",
		"application support/google/chrome", "application support/firefox", "application support/bravesoftware", "application support/microsoft edge",
		"library/cookies", ".thunderbird", "snap/chromium", "snap/firefox", ".config/slack", ".config/discord",
		".local/share/rbw", ".config/bitwarden", ".config/rbw", ".local/share/gopass", ".config/gopass", ".electrum", ".config/exodus", ".exodus",
		".config/signal", ".local/share/telegramdesktop", "application support/signal", "application support/telegram desktop",
		"application support/bitwarden", ".config/keepassxc", "library/safari", "library/messages", "library/mail",
		"library/application support/addressbook", ".local/share/remmina", ".config/remmina", ".vnc",
		"appdata/roaming/mozilla", "appdata/local/google/chrome/user data", "appdata/local/microsoft/edge/user data",
		"appdata/local/bravesoftware", "appdata/roaming/opera software", "appdata/roaming/microsoft/credentials",
		"appdata/local/microsoft/credentials", "appdata/roaming/microsoft/protect", "appdata/roaming/microsoft/vault",
		"appdata/local/microsoft/vault", ".config/environment.d", ".config/wireguard", ".local/share/qutebrowser", "local storage/leveldb",
		"library/group containers/group.net.whatsapp.whatsapp.shared", ".local/share/evolution",
		".var/app/com.google.chrome", ".var/app/org.chromium.chromium", ".var/app/org.mozilla.firefox", ".var/app/com.brave.browser",
		".var/app/com.microsoft.edge", ".var/app/org.signal.signal", ".var/app/com.slack.slack", ".var/app/com.discordapp.discord",
		".var/app/org.telegram.desktop", ".librewolf", ".waterfox", ".floorp", ".config/google-chrome-beta", ".config/google-chrome-unstable",
		".config/chromium-browser", ".config/yandex-browser", ".config/thorium", ".local/share/kwalletd", ".kde/share/apps/kwallet",
		".local/share/kwallet5", "application support/arc", "application support/vivaldi", "application support/opera software",
		".config/keepass", ".keepass", ".config/1password", ".config/enpass", ".local/share/monero", ".bitmonero", ".ledger-live",
		".config/ledger live", ".config/atomic", ".config/trezor", ".local/share/python_keyring"}}, // the same, installed by Flatpak; more browsers and wallets

	// What a person typed: shells' and REPLs' histories hold the passwords
	// and tokens typed on command lines.
	{"HIS1", secretHistory, Anywhere, File, []string{".bash_history", ".zsh_history", ".zhistory", ".history", ".sh_history", ".ksh_history",
		".python_history", ".node_repl_history", ".psql_history", ".mysql_history", ".sqlite_history", ".rediscli_history", ".irb_history",
		".ts_node_repl_history", "fish_history", ".viminfo", ".dbshell", "mongosh_repl_history", ".ipython/profile_default/history.sqlite",
		".histfile", ".local/state/zsh/history", ".local/share/zsh/history", ".ash_history", ".pry_history", ".rhistory",
		".duckdb_history", ".config/pgcli/history", ".config/litecli/history", ".mycli-history",
		".lesshst", ".wget-hsts", ".local/share/fish/fish_history", ".julia/logs/repl_history.jl", ".scala_history", ".jshell_history",
		".guile_history", ".sqlite_history", ".usql_history", ".cqlsh_history", ".influx_history", ".clickhouse-client-history"}},
	{"HIS2", secretHistory, Anywhere, Dir, []string{".zsh_sessions", ".local/share/atuin", ".local/share/nvim/shada", ".local/state/nvim/shada",
		".local/state/bash", ".local/state/fish", ".bash_sessions"}}, // macOS Terminal's per-session bash histories

	// What an AI agent read and was told in earlier sessions: every tool
	// result, a secret read once or pasted among them.
	{"AGT1", secretTranscript, Anywhere, Dir, []string{".claude/projects", ".codex/sessions", ".gemini/tmp"}},
	{"AGT2", secretTranscript, Anywhere, File, []string{".codex/history.jsonl"}},
	{"HIS3", secretHistory, Anywhere, Prefix, []string{".bash_history-", ".zsh_history-"}}, // a rotated one: .bash_history-20240101

	// A container runtime's socket: whoever reaches it runs containers
	// as root on this machine.
	{"SCK1", secretSocket, System, File, []string{"/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock",
		"/run/k3s/containerd/containerd.sock", "/var/run/cri-dockerd.sock",
		"/run/cri-dockerd.sock", "/var/snap/microk8s/common/run/containerd.sock",
		"/var/run/containerd/containerd.sock", "/run/podman/podman.sock", "/var/run/crio/crio.sock", "/run/crio/crio.sock"}},
	{"SCK3", secretSocket, System, Dir, []string{"/run/user/*/docker.sock", "/run/user/*/containerd"}}, // rootless runtimes'
	{"SCK2", secretSocket, Anywhere, File, []string{".docker/run/docker.sock", ".colima/default/docker.sock", ".orbstack/run/docker.sock",
		".rd/docker.sock", "podman/podman.sock"}},

	// A process's environment and memory.
	{"PRC1", secretProcess, System, Dir, []string{"/proc/*/environ", "/proc/*/task/*/environ", "/proc/*/mem", "/proc/*/task/*/mem", "/proc/kcore"}},

	// Raw disks and memory: every file on a disk, every secret in memory,
	// past the file system's permissions.
	{"DEV1", secretDevice, System, Prefix, []string{"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk",
		"/dev/dm-", "/dev/md", "/dev/loop", "/dev/rdisk", "/dev/zram", "/dev/nbd", "/dev/sr", "/dev/vcs", "/dev/ubd", "/dev/bcache"}},
	{"DEV3", secretDevice, System, Dir, []string{"/dev/input", "/dev/hidraw0", "/dev/uinput", "/dev/snd", "/dev/video0"}}, // what is typed, heard and seen
	{"DEV2", secretDevice, System, Dir, []string{"/dev/mapper", "/dev/disk", "/dev/mem", "/dev/kmem", "/dev/port", "/dev/block", "/dev/root",
		"/dev/vg", "/dev/ubuntu-vg", "/dev/fedora", "/dev/rhel", "/dev/cl", "/dev/centos"}}, // the root's alias, the kernel's by-number names, LVM's volume groups
}

// Why a path is on the secrets list, as the floor's question says it.
const (
	privateKey        = "a private key"
	secretCredentials = "credentials"
	secretEnv         = "an environment file"
	secretStore       = "a password store, keychain or browser profile"
	secretHistory     = "a shell or REPL history (what was typed)"
	secretTranscript  = "an AI agent's session transcripts (what it read and was told)"
	secretProcess     = "a process's environment or memory"
	secretDevice      = "a raw disk or the machine's memory"
	secretSocket      = "a container runtime's socket (root on this machine)"
)

// SecretFile is the secrets list's entry a path falls under, nil for none;
// p is a clean absolute path, folded (FoldPath), as for SensitiveFile. The
// entry is a copy.
func SecretFile(p string) *SensitiveEntry {
	e := secrets.file(p)
	if e == nil {
		// A system's file under another root is the same secret: a
		// snapshot's (/.snapshots/1/snapshot/etc/shadow), the host's
		// mounted into a container (/host/etc/shadow), an image layer's.
		for _, top := range rootedNames {
			for i := strings.Index(p[1:], top); i >= 0 && e == nil; {
				at := 1 + i
				if otherRoot(p[:at]) {
					if e = secrets.file(p[at:]); e != nil {
						break
					}
				}
				next := strings.Index(p[at+1:], top)
				if next < 0 {
					break
				}
				i = at + next
			}
		}
	}
	if e == nil {
		// A Flatpak application keeps its ~/.config and ~/.local/share
		// under ~/.var/app/ID/config and data: the same files.
		if i := strings.Index(p, "/.var/app/"); i >= 0 {
			home, rest := p[:i], p[i+len("/.var/app/"):]
			if _, after, ok := strings.Cut(rest, "/"); ok {
				if sub, ok := strings.CutPrefix(after, "config/"); ok {
					e = secrets.file(home + "/.config/" + sub)
				} else if sub, ok := strings.CutPrefix(after, "data/"); ok {
					e = secrets.file(home + "/.local/share/" + sub)
				}
			}
		}
	}
	if e == nil {
		// A directory's copy holds the same secrets: ~/.kube.bak/config,
		// ~/.password-store.old/x.gpg.
		for end := strings.IndexByte(p[1:], '/') + 1; end > 0 && e == nil; {
			dir := p[:end] // "/home/u/.kube.bak"
			for _, suffix := range backupSuffixes {
				if base, ok := strings.CutSuffix(dir, suffix); ok && !strings.HasSuffix(base, "/") {
					if e = secrets.file(base + p[end:]); e != nil {
						break
					}
				}
			}
			next := strings.IndexByte(p[end+1:], '/')
			if next < 0 {
				break
			}
			end += 1 + next
		}
	}
	if e == nil {
		// A secret's copy is a secret: .git-credentials.bak,
		// .pgpass.old, ssh_host_ed25519_key.orig, .bash_history~.
		for _, suffix := range backupSuffixes {
			if base, ok := strings.CutSuffix(p, suffix); ok && !strings.HasSuffix(base, "/") {
				if e = secrets.file(base); e != nil {
					break
				}
			}
		}
	}
	if e == nil {
		return nil
	}
	c := *e
	return &c
}

// rootedNames are the directories a system's secrets are under, looked for
// under another root too.
var rootedNames = []string{"/etc/", "/root/", "/var/lib/", "/run/", "/var/run/", "/users/", "/home/"}

// otherRoot reports a directory that holds another system's root: a
// container's view of the host, a snapshot, an image's layer, a mounted
// disk, an installer's target. A project's etc/ (a fixture) is none.
func otherRoot(dir string) bool {
	first, rest, _ := strings.Cut(strings.TrimPrefix(dir, "/"), "/")
	switch first {
	case "host", "hostfs", "host-root", "rootfs", "sysroot", "target", "chroot", "newroot", "mnt", "media", ".snapshots", "snapshots":
		return true
	case "run":
		return strings.HasPrefix(rest, "host")
	case "var":
		for _, store := range []string{"lib/docker/", "lib/containers/", "lib/machines/", "lib/lxc/", "lib/lxd/", "lib/incus/", "lib/containerd/", "lib/snapd/"} {
			if strings.HasPrefix(rest, store) {
				return true
			}
		}
	}
	return strings.Contains(dir, "/snapshot") || strings.Contains(dir, "/rootfs")
}

// backupSuffixes are the endings editors, tools and people give a file's
// copy.
var backupSuffixes = []string{".bak", ".old", ".orig", ".backup", ".save", ".copy", "~", ".1", ".swp", ".tmp", ".rpmsave", ".rpmnew",
	".dpkg-old", ".dpkg-dist", ".dpkg-bak", ".pacsave", ".pacnew"}

// SecretEntries returns a copy of the secrets list, in order: what the
// floor page's secrets table is made from.
func SecretEntries() []SensitiveEntry { return copyEntries(secretList) }
