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
	r.inContainer(nil, "", true, func(dirs []string) { r.line(v, dirs) })
}

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
	words := make([]string, 0, v.Len())
	for i := 0; i < v.Len(); i++ {
		str, ok := v.Elem(i).Value.(ast.String)
		if !ok {
			return false
		}
		words = append(words, string(str))
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
	argv := make([]shellWord, len(words))
	for i, word := range words {
		argv[i] = shellWord{text: word, known: true}
	}
	r.inContainer(nil, "", true, func(dirs []string) { r.command(argv, dirs) })
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
	kept := r.w.out.Paths[:fromPaths]
	for _, v := range r.w.out.Paths[fromPaths:] {
		if v.Resolved == "" {
			continue // unknown inside: the container's own, unless it is a mount's, which its target says
		}
		// What the line writes is known by the container's spelling
		// (markWritten, which reads the host's, runs after).
		v.Written = v.Written || r.written[v.Resolved] || r.changed[v.Resolved]
		for _, m := range mounts {
			rest, ok := strings.CutPrefix(v.Resolved, m.target)
			if !ok || rest != "" && rest[0] != '/' && m.target != "/" {
				continue
			}
			v.Resolved = path.Join(m.source, rest)
			v.Written = v.Written && m.writable
			kept = append(kept, v)
			break
		}
	}
	r.w.out.Paths = kept
	commands := r.w.out.Commands[:fromCommands]
	for _, c := range r.w.out.Commands[fromCommands:] {
		c.Credentials = c.Credentials || slices.ContainsFunc(c.Paths, containerSecret)
		if c.Credentials || own {
			c.Paths = nil // the container's own
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
			}
		case "-w", "--workdir":
			workdir = a.value.text
		}
	}
	at := slices.IndexFunc(words, func(w shellWord) bool { return w.known && w.text == sub })
	for i := at + 1; at >= 0 && i < len(words); i++ {
		if words[i].known && words[i].text == image {
			if cmd := words[i+1:]; len(cmd) > 0 {
				r.inContainer(mounts, workdir, false, func(d []string) { r.command(cmd, d) })
			}
			return
		}
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
		kind := "volume"
		for _, field := range strings.Split(v, ",") {
			k, val, _ := strings.Cut(field, "=")
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "type":
				kind = val
			case "source", "src":
				src = val
			case "target", "destination", "dst":
				m.target = val
			case "readonly", "ro":
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
