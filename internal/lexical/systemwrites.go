package lexical

import "strings"

// The places where a file written outside every root changes what runs
// for every user, every shell or every program of a kind: the system's
// configuration, programs, libraries and packages' scripts, the kernel's
// interfaces, and the hidden files and directories of a home, where
// programs keep the settings, plugins and scripts they load (a zsh
// prompt's cache, an editor's init file, a kernel spec, a completion).
// The floor's list of files whose change runs code names the best known
// of them; there are more than any list holds, and an agent writes into
// none of them in its ordinary work outside the project it was given, so
// a write there is asked whatever its name. Only writes: reading
// /etc/os-release or ~/.gitconfig is no question here.
var systemWriteList = []SensitiveEntry{
	{"SYSW1", "the system's own configuration, programs, libraries, boot files and packages' data and scripts", System, Dir,
		[]string{"/etc", "/private/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/opt",
			"/var/lib", "/private/var/lib", "/var/spool", "/private/var/spool", "/var/www", "/library", "/system", "/applications",
			"/docker-entrypoint.d", "/docker-entrypoint-initdb.d", "/snap"}},
	{"SYSW2", "the kernel's interfaces (/proc, /sys)", System, Dir, []string{"/proc", "/sys"}},
	{"SYSW3", "a home's hidden files and directories (~/.cache, ~/.config, ~/.local, an application's ~/.name): the settings, plugins and scripts its programs load", Home, Dir,
		[]string{"~/.*"}},
	{"SYSW4", "a home's own installs of a language or package manager, on its PATH", Home, Dir,
		[]string{"~/miniconda3", "~/miniconda", "~/anaconda3", "~/anaconda", "~/miniforge3", "~/mambaforge", "~/micromamba", "~/.linuxbrew", "~/sdk"}},
}

// SystemWrite is the entry of systemWriteList a path falls under, for a
// path already clean, absolute and folded; nil for any other. A
// directory is an entry with everything under it.
func SystemWrite(p string) *SensitiveEntry {
	for i := range 2 {
		for _, n := range systemWriteList[i].Names {
			if strings.HasPrefix(p, n) && (len(p) == len(n) || p[len(n)] == '/') {
				return systemWriteCopy(i)
			}
		}
	}
	below, ok := belowHome(p)
	if !ok || below == "" {
		return nil
	}
	first, _, _ := strings.Cut(below, "/")
	if strings.HasPrefix(first, ".") && first != "." && first != ".." {
		return systemWriteCopy(2)
	}
	for _, n := range systemWriteList[3].Names {
		if name := strings.TrimPrefix(n, "~/"); first == name {
			return systemWriteCopy(3)
		}
	}
	return nil
}

// belowHome is what a path names under the home directory it is in (a
// user's in one of homeParents, or root's), and whether it is in one.
func belowHome(p string) (string, bool) {
	for _, home := range []string{"/root", "/var/root"} {
		if rest, ok := strings.CutPrefix(p, home+"/"); ok {
			return rest, true
		}
	}
	for _, parent := range homeParents {
		rest, ok := strings.CutPrefix(p, parent)
		if !ok {
			continue
		}
		user, below, _ := strings.Cut(rest, "/")
		if user == "" {
			return "", false
		}
		return below, true
	}
	return "", false
}

func systemWriteCopy(i int) *SensitiveEntry {
	c := systemWriteList[i]
	return &c
}

// SystemWriteEntries returns a copy of the list, in order: what the
// floor page says.
func SystemWriteEntries() []SensitiveEntry { return copyEntries(systemWriteList) }
