package argread

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDefaultClassOfNames(t *testing.T) {
	for class, names := range map[Class][]string{
		namedPath: {"path", "Paths", "FILE_PATH", "filePath", "file-name", "filenames", "pathname",
			"destination_path", "new_path", "oldPath", "sourcePdfPath", "configFile", "input_file",
			"executablePath", "log.file", "dockerfile",
			// A name's class is its folded spelling's (red team 4): case,
			// separators and numbers do not hide it.
			"outputPath", "OUTPUTPATH", "outputpath", "Output_Path", "outputPATH", "savepath", "SavePath", "save path", "save.path",
			"notepath", "logfile", "outputfile", "newfile", "zipFile", "PDFPath", "pdfpath", "targetFilePath", "textfile",
			"file1", "path2", "path_2", "FILE_1", "s3path", "indexPath", "sshKeyPath", "outputJsonPath", "profilePath", "zipfile",
			"cli_path", "clipath", "cliPath", "ClipAth", "clip_path", "zip_file", "Profile_Path"},
		namedDir: {"dir", "dirs", "directory", "directories", "folder", "cwd", "root", "repo_path", "repoPath", "workingDirectory",
			"outputDir", "userDataDir", "project_root", "base_dir", "downloadFolder", "folderName", "dirname",
			"downloaddir", "DOWNLOADDIR", "tmpdir", "filedir", "dirPath", "dirpath", "projectroot", "dir2", "workspaceFolder"},
		wordPath: {"pathInProject", "file_type", "fileCount", "path_in_repo", "FILETYPE", "filecount", "pathinproject"},
		wordDir:  {"folder_id", "folderid", "directoryId"},
		namedHost: {"host", "hostname", "ip", "ip_address", "remoteHost", "REMOTEHOST", "redishost", "db_host", "hostName", "host2",
			"ipv4", "IPv6", "hostIpv4", "ipv4_address", "syslog_host", "sysloghost", "debugHost", "debughost", "log_host"},
		// The ending "ip" reads an address or a dotted name (red team 6:
		// "sshIp" spells "ship", and a stop word there hid it).
		weakIPName: {"server_ip", "serverIp", "SERVERIP", "remote_ip", "clientIp", "hostIp", "localIp", "vip", "ssh_ip", "switch_ip",
			"sshIp", "sship", "switchIp", "sip", "dip", "relationship", "membership", "roundTrip", "tip", "gzip"},
		weakHostName: {
			"address", "addresses", "addr", "server", "servers", "domain", "domains", "peer", "peers", "proxy", "proxies",
			"serverAddress", "server_address", "bindAddr", "dnsServer", "subdomain", "httpProxy", "email_address",
			"job_server", "jobServer"},
		// A path as often as a place, an element or a format.
		weakPathName: {"source", "sources", "src", "dest", "dst", "\u017Fource", "to", "from", "output", "target", "destination", "zip_to"},
		weakURLName:  {"origin", "ORIGIN", "origins"},
		labelName:    {"name", "title", "label", "entityName", "entity_name", "displayName", "names"},
		namedURL: {"url", "URLs", "uri", "href", "link", "links", "endpoint", "webhook", "callback", "callbackUrl", "redirect_uri",
			"baseURL", "serverUrl", "imageUrl", "CALLBACKURL", "imageurl", "url2", "hyperlink", "permalink"},
		namedContent: {"content", "text", "body", "oldText", "newText", "old_string", "newString", "message", "commitMessage",
			"description", "query", "prompt", "data", "observations", "stdin", "\u017Fubstring", "CONTENT", "sql", "statement", "jql"},
		exclusionName: {"exclude", "excludePatterns", "ignore_paths", "EXCLUDEPATHS"},
		none: {"mode", "profile", "xpath", "tail", "head", "pattern", "id", "count",
			"destinationType", "urlencoded", "pathway", "topic",
			// Words that end like a path, URL or host word, and are not.
			"userProfile", "userprofile", "profiles", "XPath", "jsonPath", "JSONPATH", "curl", "purl", "followSymlinks",
			"follow_links", "symlink", "hardlinks", "unlink", "ghost", "zip", "skip", "tooltip", "showTooltip",
			"strip", "clip", "md5", "sha256", "base64", "dirForOutput", "percentile", "observer",
			// Red team 5: a stop word is a whole word between "_", "-", "."
			// or the name's ends.
			"user_profile", "ghost_mode", "follow-symlinks", "backup.zip", "pathway", "PROFILE"},
	} {
		for _, n := range names {
			assert.Equal(t, class, nameClass(n), "%s", n)
		}
	}
}

// A name's class is its folded spelling's: every spelling encoding/json
// would match to one field, or FoldName folds to one name, is one class.
func TestDefaultClassIsAFunctionOfTheFoldedName(t *testing.T) {
	for _, n := range []string{"outputPath", "sourcePDFPath", "XPath", "jsonPath", "remoteIp", "userDataDir", "callbackURL",
		"file_1", "pathInProject", "folder_id", "userProfile", "followSymlinks", "redisHost", "logFile"} {
		for _, spelling := range []string{strings.ToLower(n), strings.ToUpper(n), strings.ReplaceAll(n, "_", ""), "_" + n, n + "-"} {
			assert.Equal(t, nameClass(n), nameClass(spelling), "%s and %s", n, spelling)
		}
	}
}

func TestSplitWords(t *testing.T) {
	for in, want := range map[string][]string{
		"sourcePDFPath":    {"source", "pdf", "path"},
		"file_path":        {"file", "path"},
		"URLPath":          {"url", "path"},
		"callback-url":     {"callback", "url"},
		"log.file":         {"log", "file"},
		"x2File":           {"x2", "file"},
		"ALLCAPS":          {"allcaps"},
		"workingDirectory": {"working", "directory"},
	} {
		assert.Equal(t, want, splitWords(in), in)
	}
}
