package lexical

import "strings"

// The directories where secrets are kept, asked when a tool reads every
// file under one (grep -r, rg, tar c, cp -r, find -exec, a search of
// files' contents): the keys and tokens in them are read though the call
// names none. A project, /tmp or /srv is no such directory: a tree read
// there is ordinary work, and a secret named in it is asked by the
// secrets list.
var secretTreeList = []SensitiveEntry{
	{"TREE1", "the file system's root or a directory above every home, with the keys in each", System, Dir,
		[]string{"/", "/home", "/users", "/var/home", "/usr/home", "/export/home", "/private", "/private/var", "/var",
			"/mnt", "/media"}}, // another system's disks, a Windows home seen from WSL
	{"TREE2", "a home directory (or its .config, .local or Library), where keys, tokens and histories are kept", Home, Dir,
		[]string{"~", "~/.config", "~/.local", "~/.local/share", "~/library", "~/library/application support", "~/snap", "~/.var/app",
			"/root", "/var/root"}},
	{"TREE3", "the system's configuration and run-time secrets (/etc/shadow, TLS keys, mounted secrets)", System, Dir,
		[]string{"/etc", "/private/etc", "/run", "/var/run", "/run/secrets", "/var/run/secrets", "/var/lib"}},
	{"TREE4", "/proc: every process's environment, command line and memory", System, Dir, []string{"/proc", "/proc/*"}},
	{"TREE5", "a directory with files of the secrets list in it (/etc/kubernetes, /run/user/1000, /dev)", System, Dir, nil},
}

// homeParents are the directories homes are made in.
var homeParents = []string{"/home/", "/users/", "/var/home/", "/usr/home/", "/export/home/"}

// SecretTree is the entry of secretTreeList a directory is, for a path
// already clean, absolute and folded; nil for any other. Only the
// directory itself is an entry: a directory under one is not (a project
// under the home is ordinary work).
func SecretTree(p string) *SensitiveEntry {
	if strings.HasPrefix(p, "/proc/") {
		return entryCopy(3)
	}
	for i := range secretTreeList {
		for _, n := range secretTreeList[i].Names { // "~" and "/proc/*" equal no path: read below and above
			if n == p {
				return entryCopy(i)
			}
		}
	}
	if holdsSystemSecret(p) {
		return entryCopy(4)
	}
	for _, parent := range homeParents {
		rest, ok := strings.CutPrefix(p, parent)
		if !ok || rest == "" {
			continue
		}
		user, below, _ := strings.Cut(rest, "/")
		if user == "" {
			return nil
		}
		for _, n := range secretTreeList[1].Names {
			if name, ok := strings.CutPrefix(n, "~"); ok && strings.TrimPrefix(name, "/") == below {
				return entryCopy(1)
			}
		}
	}
	return nil
}

// holdsSystemSecret reports a directory above a file or directory the
// secrets list names by its place on the system (/etc/kubernetes holds
// admin.conf, /run/user/1000 holds containers/auth.json, /dev holds the
// raw disks): a "*" in the list's name stands for any one name.
func holdsSystemSecret(p string) bool {
	dir := strings.Split(strings.TrimSuffix(p, "/"), "/")
	for _, names := range systemSecretNames {
		if len(names) <= len(dir) {
			continue
		}
		above := true
		for i, d := range dir {
			if names[i] != d && names[i] != "*" {
				above = false
				break
			}
		}
		if above {
			return true
		}
	}
	return false
}

// systemSecretNames are the names of the secrets list's entries placed on
// the system, each split at "/", once: a prefix entry's last name is "*"
// ("/dev/sd": any name in /dev).
var systemSecretNames = func() [][]string {
	var out [][]string
	for _, e := range secretList {
		if e.Where != System {
			continue
		}
		for _, n := range e.Names {
			names := strings.Split(n, "/")
			if e.Kind == Prefix {
				names[len(names)-1] = "*"
			}
			out = append(out, names)
		}
	}
	return out
}()

func entryCopy(i int) *SensitiveEntry {
	c := secretTreeList[i]
	return &c
}

// SecretTreeEntries returns a copy of the list of directories where
// secrets are kept, in order: what the floor page's table is made from.
func SecretTreeEntries() []SensitiveEntry { return copyEntries(secretTreeList) }
