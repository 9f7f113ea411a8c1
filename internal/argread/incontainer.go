package argread

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// What a container runs (docker run's command, a Compose service's
// command and entrypoint) acts on the container's own files, which no
// rule here names, except where a bind mount gives it this machine's: a
// path under a mount's target is the mount's source there, and a write
// to "/h/.git/hooks/pre-commit" with the project mounted at /h is a write
// to the project's hook. So the command is read as a shell would run it
// inside, and of what it names only what reaches this machine is kept:
// the paths under a mount (as this machine's) and the hosts. Its own
// programs are not this machine's, so the floor's command rules do not
// read them (a sudo inside a container is the image's business).
//
// What the image runs of its own (an entrypoint the call does not give)
// cannot be read; a writable mount hands the container the whole tree,
// which the reading of the mount itself marks written.

// mounted is a bind mount a container is given: its source on this
// machine (resolved), its target in the container, and whether the
// container may write through it.
type mounted struct {
	source, target string
	writable       bool
}

// containedLine reads v, a command line run in a container or a pod (a
// Contained argument).
func (w *walker) containedLine(s site, v string) {
	w.out.Acts = true
	r := &shellReader{w: w, s: s.as(Class{Kind: Path, Evidence: Name}), cur: -1}
	mounts, workdir := w.containedMounts()
	r.inContainer(mounts, workdir, true, func(dirs []string) { r.line(v, dirs) })
}

// containedMounts are the mounts a contained command runs with: the
// call's (mountsIn), and a directory of this machine's the call names
// beside the command (a dev container's workspaceFolder), which such a
// tool mounts where it is and under /workspaces, and runs the command in.
func (w *walker) containedMounts() ([]mounted, string) {
	mounts, workdir := w.mounts, ""
	w.shellDirs() // reads the call's directories into w.dirs
	for _, d := range w.dirs {
		if d.resolved == "" || d.resolved == "/" {
			continue
		}
		mounts = append(slices.Clip(mounts), mounted{source: d.resolved, target: d.resolved, writable: true},
			mounted{source: d.resolved, target: "/workspaces/" + path.Base(d.resolved), writable: true})
		if workdir == "" {
			workdir = d.resolved
		}
	}
	return mounts, workdir
}

// statsOnly are the programs that name a file without printing what is in
// it: a secret's name given to them prints no secret.
var statsOnly = keySetExact("df", "du", "ls", "stat", "file", "wc", "test", "[", "realpath", "readlink", "dirname", "basename",
	"mkdir", "touch", "findmnt", "lsof", "namei", "tree")

// credentialCommand keeps a command of another language than a shell's
// (a Redis command) that prints or sets a credential, as a shell
// command that does is kept: the floor asks on it.
func (w *walker) credentialCommand(s site, words []string) {
	if len(w.out.Commands) >= MaxValues {
		w.err = fmt.Errorf("the call holds more than %d commands", MaxValues)
		return
	}
	w.out.Commands = append(w.out.Commands, SimpleCommand{Arg: s.arg, Pointer: s.at.String(), Words: slices.Clone(words),
		Program: strings.ToLower(words[0]), Known: len(words), Credentials: true})
}

// containedArray reads an array of strings under a Contained name as one
// command's words; false for any other array, whose strings are read one
// by one (each a line).
func (w *walker) containedArray(s site, v *ast.Array) bool {
	words, ok := arrayStrings(v)
	if !ok {
		return false
	}
	if len(words) > 0 {
		w.containedArgv(s, words)
	}
	return true
}

// containedArgv reads words, one command's, run in a container or a pod.
func (w *walker) containedArgv(s site, words []string) {
	w.out.Acts = true
	r := &shellReader{w: w, s: s.as(Class{Kind: Path, Evidence: Name}), cur: -1}
	argv := knownWords(words)
	mounts, workdir := w.containedMounts()
	r.inContainer(mounts, workdir, true, func(dirs []string) { r.command(argv, dirs) })
}

// mountsIn are the bind mounts a call's arguments give the container its
// command runs in (run_container's volumes, a Docker API body's
// HostConfig.Binds and Mounts), at the top level or one object down:
// "SRC:DST[:MODE]" strings, {"SRC": {"bind": DST, "mode": M}} maps and
// {"type": "bind", "source": S, "target": T} objects. A relative source
// is the root's.
func (w *walker) mountsIn(args [][2]*ast.Term) []mounted {
	var out []mounted
	var visit func(key string, v *ast.Term, depth int)
	visit = func(key string, v *ast.Term, depth int) {
		switch k := FoldName(key); x := v.Value.(type) {
		case ast.Object:
			if mountNames[k] {
				for _, src := range x.Keys() {
					s, ok1 := src.Value.(ast.String)
					spec, ok2 := x.Get(src).Value.(ast.Object)
					if !ok1 || !ok2 {
						continue
					}
					target, _ := stringMember(spec, "bind")
					mode, _ := stringMember(spec, "mode")
					out = w.appendMount(out, string(s), target, !mountReadOnly(mode))
				}
				return
			}
			if depth < 2 {
				for _, k := range x.Keys() {
					if ks, ok := k.Value.(ast.String); ok {
						visit(string(ks), x.Get(k), depth+1)
					}
				}
			}
		case *ast.Array:
			if !mountNames[k] {
				return
			}
			for i := 0; i < x.Len(); i++ {
				switch e := x.Elem(i).Value.(type) {
				case ast.String:
					if strings.Contains(string(e), "=") {
						out = w.appendMount(out, mountField(string(e), "source", "src", "device"), mountField(string(e), "target", "dst", "destination"),
							!mountReadOnly(string(e)))
						continue
					}
					parts := strings.Split(string(e), ":")
					if len(parts) >= 2 {
						mode := ""
						if len(parts) > 2 {
							mode = parts[2]
						}
						out = w.appendMount(out, parts[0], parts[1], !mountReadOnly(mode))
					}
				case ast.Object:
					src, _ := stringMember(e, "source", "src", "Source")
					target, _ := stringMember(e, "target", "destination", "dst", "Target")
					ro, _ := e.Get(ast.StringTerm("read_only")).Value.(ast.Boolean)
					out = w.appendMount(out, src, target, !bool(ro))
				}
			}
		}
	}
	for _, item := range args {
		if k, ok := item[0].Value.(ast.String); ok {
			visit(string(k), item[1], 0)
		}
	}
	return out
}

// mountField is a --mount text's field of one of names ("source=/x",
// "volume-opt=device=/x"), quotes trimmed; "" for none.
func mountField(m string, names ...string) string {
	for _, f := range strings.Split(m, ",") {
		k, v, _ := strings.Cut(f, "=")
		k = strings.ToLower(strings.Trim(k, ` "'`))
		if k == "volume-opt" {
			k, v, _ = strings.Cut(v, "=")
			k = strings.ToLower(strings.TrimSpace(k))
		}
		if slices.Contains(names, k) {
			return strings.Trim(v, ` "'`)
		}
	}
	return ""
}

// mountNames are the (folded) names of a container's mounts.
var mountNames = keySet("volumes", "volume", "binds", "bind", "mounts", "mount")

// appendMount adds a bind mount of src (resolved against the root) at
// target, when both read as such.
func (w *walker) appendMount(out []mounted, src, target string, writable bool) []mounted {
	if src == "" || !path.IsAbs(target) || strings.ContainsAny(src, "$~") && !strings.HasPrefix(src, "~/") {
		return out
	}
	resolved := w.resolve(w.root, src)
	if resolved == "" {
		return out
	}
	return append(out, mounted{source: resolved, target: path.Clean(target), writable: writable})
}

// stringMember is the first of names that obj has as a string.
func stringMember(obj ast.Object, names ...string) (string, bool) {
	for _, n := range names {
		if t := obj.Get(ast.StringTerm(n)); t != nil {
			if s, ok := t.Value.(ast.String); ok {
				return string(s), true
			}
		}
	}
	return "", false
}

// inContainer reads what a container runs, by read, given its mounts and
// its working directory ("" when the image sets it): a relative path is
// read under each mount's target as well, since the image's directory
// may be any of them. Of its commands, those that print credentials
// (printenv, cat of a container's secret: containerSecret) are kept: what
// they print comes back to the model. The others are kept too when the
// command is the call's whole purpose (an exec tool's, a remote shell's:
// its own), so that a rule over commands ("docker ps*" over ssh) sees
// them; a container that docker run or Compose starts runs its command
// as the image's business, which a rule on docker's words covers.
func (r *shellReader) inContainer(mounts []mounted, workdir string, own bool, read func(dirs []string)) {
	dirs := []string{"/"}
	if path.IsAbs(workdir) {
		dirs = []string{path.Clean(workdir)}
	} else {
		for _, m := range mounts {
			dirs = addDir(dirs, m.target)
		}
	}
	fromPaths, fromCommands, fromHosts := len(r.w.out.Paths), len(r.w.out.Commands), len(r.w.out.Hosts)
	seen, cur, written, changed := maps.Clone(r.seen), r.cur, maps.Clone(r.written), maps.Clone(r.changed)
	read(dirs)
	// A writable bind mount (or mounts that cannot be told: docker exec
	// into a container the line did not start) may be where anything the
	// reading cannot place is: base64 -d | sh, a path built in a
	// variable, os.system's line.
	writable := r.mountsUnknown || slices.ContainsFunc(mounts, func(m mounted) bool { return m.writable })
	kept := r.w.out.Paths[:fromPaths]
	for _, v := range r.w.out.Paths[fromPaths:] {
		if v.Resolved == "" {
			// Unknown inside: the container's own only where no mount
			// can be written (or its text starts in a mount: tee
			// /h/.git/hooks/pre-{commit,push}): kept, unknown.
			if raw, ok := v.Raw.Value.(ast.String); writable || ok && slices.ContainsFunc(mounts, func(m mounted) bool {
				return m.target != "/" && (string(raw) == m.target || strings.HasPrefix(string(raw), m.target+"/"))
			}) {
				kept = append(kept, v)
			}
			continue
		}
		// What the line writes is known by the container's spelling
		// (markUses, which reads the host's, runs after), cleaned as
		// the kernel reads it ("//w/x" is "/w/x").
		v.Written = v.Written || r.written[v.Resolved] || r.changed[v.Resolved]
		m, rest, mapped := mountOf(mounts, path.Clean(v.Resolved))
		switch {
		case mapped && m.source == "":
			// A named volume's: where it is on this machine cannot be
			// told (one bound to the project is the project).
			if v.Written && m.writable {
				v.Resolved = ""
				kept = append(kept, v)
			}
		case mapped:
			v.Resolved = path.Join(m.source, rest)
			v.Written = v.Written && m.writable
			kept = append(kept, v)
		case r.mountsUnknown && v.Written:
			v.Resolved = "" // written where a mount of this machine's may be
			kept = append(kept, v)
		}
	}
	for _, v := range r.w.out.Paths[fromPaths:] {
		if v.Resolved != "" && strings.HasSuffix(v.Resolved, "/environ") && strings.HasPrefix(v.Resolved, "/proc/") {
			r.w.credentialCommand(r.s, []string{"read", v.Resolved}) // tr < /proc/1/environ: a redirection's, which no word names
		}
	}
	r.w.out.Paths = kept
	commands := r.w.out.Commands[:fromCommands]
	for _, c := range r.w.out.Commands[fromCommands:] {
		// What prints a secret file of the container's (cat of the
		// service account's token, of /proc/1/environ; not df or ls),
		// or runs code that prints the environment (python -c
		// 'print(os.environ)', node -p process.env).
		c.Credentials = c.Credentials || !statsOnly[c.Program] && slices.ContainsFunc(c.Paths, containerSecret) ||
			slices.ContainsFunc(c.Words, func(w string) bool { return strings.ContainsAny(w, "(.") && codeReadsEnvironment(w) })
		if c.Credentials || own {
			c.Paths = nil // the container's own
			commands = append(commands, c)
		} else if hostPaths := mappedPaths(c.Paths, mounts); treeChangers[c.Program] && len(hostPaths) > 0 {
			// rm -rf /w, find /w -delete, chmod -R 777 /w on a bind
			// mount: the host's tree, which the floor's tree rules read.
			c.Paths = hostPaths
			commands = append(commands, c)
		}
	}
	r.w.out.Commands = commands
	hosts := r.w.out.Hosts[:fromHosts]
	for _, h := range r.w.out.Hosts[fromHosts:] {
		if !slices.ContainsFunc(hosts, func(o Value) bool { return o.Resolved == h.Resolved && o.Raw.Equal(h.Raw) }) {
			hosts = append(hosts, h) // a URL the container tool's own reading kept (docker run's operands) is kept once
		}
	}
	r.w.out.Hosts = hosts
	r.seen, r.cur, r.written, r.changed = seen, cur, written, changed
}

// treeChangers are the programs that delete, move or change the mode or
// owner of what they name, a whole tree with an option: run in a container
// on a bind mount, they do it to the host's files.
var treeChangers = keySetExact("rm", "rmdir", "shred", "wipe", "srm", "unlink", "chmod", "chown", "chgrp", "setfacl", "chattr",
	"find", "fd", "fdfind", "rsync", "mv")

// mountOf is the mount a container's path is in, the deepest one as the
// kernel's mount table has it (-v ./src:/w -v .:/w/p: /w/p/x is in the
// second), and the path's rest below its target.
func mountOf(mounts []mounted, inside string) (mounted, string, bool) {
	best, rest, found := mounted{}, "", false
	for _, m := range mounts {
		r, ok := strings.CutPrefix(inside, m.target)
		if !ok || r != "" && r[0] != '/' && m.target != "/" {
			continue
		}
		if !found || len(m.target) > len(best.target) {
			best, rest, found = m, r, true
		}
	}
	return best, rest, found
}

// mappedPaths are a container's paths that are in a writable bind mount,
// as the host's paths (a path outside every mount is the container's own,
// one in a read-only mount stays as it is).
func mappedPaths(paths []string, mounts []mounted) []string {
	var out []string
	for _, p := range paths {
		if m, rest, ok := mountOf(mounts, path.Clean(p)); p != "" && ok && m.writable && m.source != "" {
			out = append(out, path.Join(m.source, rest))
		}
	}
	return out
}

// containerCommand reads what docker run's container runs (the words
// after the image) through the bind mounts its options give it.
func (r *shellReader) containerCommand(args []shellArg, words []shellWord, sub, image string, dirs []string) {
	dir := ""
	if len(dirs) == 1 {
		dir = dirs[0]
	}
	var mounts []mounted
	workdir := ""
	for _, a := range args {
		if !a.hasValue || !a.value.known {
			continue
		}
		switch a.opt {
		case "-v", "--volume", "--mount":
			if m, ok := r.bindMount(a.opt, a.value.text, dir); ok {
				mounts = append(mounts, m)
			} else if m, ok := namedVolume(a.opt, a.value.text); ok {
				mounts = append(mounts, m)
			}
		case "-w", "--workdir":
			workdir = a.value.text
		}
	}
	for _, a := range args {
		if (a.opt == "--name") && a.hasValue && a.value.known && len(mounts) > 0 {
			// docker run -d --name w -v .:/h ...; docker exec w sh -c ...:
			// the line's later exec runs through these mounts.
			if r.named == nil {
				r.named = map[string][]mounted{}
			}
			r.named[a.value.text] = mounts
		}
	}
	at := slices.IndexFunc(words, func(w shellWord) bool { return w.known && w.text == sub })
	for i := at + 1; at >= 0 && i < len(words); i++ {
		if words[i].known && words[i].text == image {
			if cmd := words[i+1:]; len(cmd) > 0 {
				r.inContainer(mounts, workdir, false, func(d []string) {
					if strings.HasPrefix(cmd[0].text, "-") {
						// alpine/git -C /w config ...: the words of an
						// entrypoint the image names, which cannot be read.
						r.unknown("what " + image + "'s entrypoint does with " + cmd[0].text)
					}
					r.command(cmd, d)
				})
			}
			return
		}
	}
}

// execInNamed reads docker exec's command in a container this line
// started with bind mounts (r.named), through them; in any other
// container its paths are the container's own, read as before.
func (r *shellReader) execInNamed(words []shellWord) {
	at := slices.IndexFunc(words, func(w shellWord) bool { return w.known && w.text == "exec" })
	for i := at + 1; at >= 0 && i < len(words); i++ {
		w := words[i]
		if !w.known || strings.HasPrefix(w.text, "-") {
			continue // its options (-it, -e X=1: the value is read as a word too, and names no container the line named)
		}
		mounts, ok := r.named[w.text]
		if cmd := words[i+1:]; len(cmd) > 0 {
			// A container the line did not start: its mounts cannot be
			// told, and what its command writes may be this machine's.
			unknown := r.mountsUnknown
			r.mountsUnknown = !ok
			r.inContainer(mounts, "", false, func(d []string) { r.command(cmd, d) })
			r.mountsUnknown = unknown
		}
		return
	}
}

// bindMount reads a docker -v value ("SRC:DST[:MODE]") or a --mount value
// ("type=bind,source=SRC,target=DST[,readonly]") as a bind mount, its
// source resolved in dir; ok is false for a named volume, a tmpfs, or a
// source that cannot be resolved (which the mount's own reading asks
// about).
func (r *shellReader) bindMount(opt, v, dir string) (mounted, bool) {
	var m mounted
	var src string
	m.writable = true
	if opt == "--mount" {
		kind := mountField(v, "type")
		src, m.target = mountField(v, "source", "src"), mountField(v, "target", "destination", "dst")
		if dev := mountField(v, "device"); dev != "" && kind != "bind" {
			src, kind = dev, "bind" // a local volume bound to a directory (volume-opt=device=)
		}
		for _, field := range strings.Split(v, ",") {
			k, val, _ := strings.Cut(field, "=")
			if k = strings.ToLower(strings.Trim(k, ` "'`)); k == "readonly" || k == "ro" {
				val = strings.Trim(val, ` "'`)
				m.writable = val == "false" || val == "0"
			}
		}
		if kind != "bind" {
			return m, false
		}
	} else {
		parts := strings.Split(strings.TrimPrefix(v, "="), ":")
		if len(parts) < 2 || !strings.ContainsAny(parts[0], "/.") {
			return m, false // a named volume, or a target only
		}
		src, m.target = parts[0], parts[1]
		if len(parts) > 2 {
			m.writable = !mountReadOnly(parts[2])
		}
	}
	return r.mountedAt(src, m.target, m.writable, dir)
}

// namedVolume reads -v NAME:TARGET[:MODE] or --mount type=volume as a
// mount of no known source: a volume may be bound to any directory here
// (docker volume create -o device=...), so what is written in it cannot
// be told.
func namedVolume(opt, v string) (mounted, bool) {
	m := mounted{writable: true}
	if opt == "--mount" {
		if kind := mountField(v, "type"); kind != "" && kind != "volume" {
			return m, false
		}
		m.target = mountField(v, "target", "destination", "dst")
		m.writable = !mountReadOnly(strings.ReplaceAll(v, "readonly=false", ""))
	} else {
		parts := strings.Split(strings.TrimPrefix(v, "="), ":")
		if len(parts) < 2 || strings.ContainsAny(parts[0], "/.$") {
			return m, false
		}
		m.target = parts[1]
		if len(parts) > 2 {
			m.writable = !mountReadOnly(parts[2])
		}
	}
	return m, path.IsAbs(m.target)
}

// mountedAt is a bind mount of src (resolved in dir) at target.
func (r *shellReader) mountedAt(src, target string, writable bool, dir string) (mounted, bool) {
	if !path.IsAbs(target) || strings.ContainsAny(src, "$~") || dir == "" && !path.IsAbs(src) {
		return mounted{}, false
	}
	resolved := r.w.resolve(dir, src)
	if resolved == "" {
		return mounted{}, false
	}
	return mounted{source: resolved, target: path.Clean(target), writable: writable}, true
}
