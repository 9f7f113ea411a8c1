package argread

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"go.yaml.in/yaml/v3"
)

// A Compose file (docker compose, podman compose) names the local paths a
// project mounts and builds from, parsed with go.yaml.in/yaml/v3 (the YAML
// organisation's parser; JSON is YAML too). Read, relative to the call's
// directory argument (else the root):
//
//   - each service's bind mounts: "SRC:DST[:mode]" whose SRC is a path
//     (a bare name is a named volume), and {type: bind, source: SRC};
//   - each service's build context (a URL is a host), its dockerfile,
//     env_file (strings, or {path: X}), and devices' host side;
//   - top-level secrets' and configs' file, a named volume's
//     driver_opts.device, include and extends.file;
//   - what gives a container the host itself (privileged, pid: host,
//     network_mode: host, ipc: host, userns_mode: host, cap_add
//     SYS_ADMIN or ALL, a mount of the Docker socket or of "/") is an
//     unknown path: it reaches every file the rules could name.
//
// A document that does not parse, or that is not a mapping, is an unknown
// path; one with no services, include or top-level files names nothing.

// maxComposeBytes bounds the document read; a longer one is unknown.
const maxComposeBytes = 1 << 20

// composeString reads v, a Compose file's text, at s; a value of one line
// that is no JSON object is the Compose file's path instead
// ("compose_file": "docker-compose.yml").
func (w *walker) composeString(s site, t *ast.Term, v string) {
	if trimmed := strings.TrimSpace(v); !strings.ContainsAny(trimmed, "\n{") {
		if s.class.Evidence >= Name {
			w.pathString(s.as(Class{Kind: Path, Evidence: s.class.Evidence}), t, v)
		} else {
			w.str(s.as(namedContent), t, v)
		}
		return
	}
	r := &shellReader{w: w, s: s.as(Class{Kind: Path, Evidence: Name}), cur: -1}
	dirs := w.shellDirs()
	if len(w.dirs) == 0 && w.root == "" {
		dirs = []string{""}
	}
	if len(v) > maxComposeBytes {
		r.unknown("a Compose file of more than 1 MiB")
		return
	}
	docs, err := composeDocs(v)
	if s.class.Evidence < Name && (err != nil || !isComposeDoc(docs[0])) {
		// Only the tool's name said Compose (compose_email's body is a
		// letter): text that is no Compose file is content.
		w.str(s.as(namedContent), t, v)
		return
	}
	if err != nil {
		r.unknown(fmt.Sprintf("a Compose file that does not parse (%v)", firstLine(err.Error())))
		return
	}
	for _, doc := range docs {
		c := composeReader{r: r, dirs: dirs}
		c.read(doc) // every document: "---" and a second file's services after it are read too
	}
}

// maxComposeDocs bounds the documents of one Compose text read.
const maxComposeDocs = 64

// composeDocs are the YAML documents of v, each a mapping (an empty one
// for an empty document); an error for text that does not parse, or for
// a document that is no mapping.
func composeDocs(v string) ([]map[string]any, error) {
	dec := yaml.NewDecoder(strings.NewReader(v))
	var docs []map[string]any
	for len(docs) <= maxComposeDocs {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return []map[string]any{nil}, err
		}
		docs = append(docs, doc)
	}
	if len(docs) > maxComposeDocs {
		return []map[string]any{nil}, fmt.Errorf("more than %d documents", maxComposeDocs)
	}
	if len(docs) == 0 {
		docs = append(docs, nil)
	}
	return docs, nil
}

// isComposeDoc reports a document with a Compose file's top-level keys.
func isComposeDoc(doc map[string]any) bool {
	for _, k := range []string{"services", "include", "secrets", "configs", "volumes"} {
		if _, ok := doc[k]; ok {
			return true
		}
	}
	return false
}

type composeReader struct {
	r    *shellReader
	dirs []string
	// named are the named volumes bound to a directory of this machine
	// (driver_opts device with o: bind), by name, their targets blank.
	named map[string]mounted
}

func (c composeReader) read(doc map[string]any) {
	c.named = c.namedVolumes(doc)
	services, _ := doc["services"].(map[string]any)
	for _, name := range sortedKeys(services) {
		svc, ok := services[name].(map[string]any)
		if !ok {
			continue
		}
		c.service(svc)
	}
	for _, section := range []string{"secrets", "configs"} {
		m, _ := doc[section].(map[string]any)
		for _, k := range sortedKeys(m) {
			if e, ok := m[k].(map[string]any); ok {
				c.path(e["file"])
				if name, ok := e["environment"].(string); ok {
					c.handsOver(section + " " + k + " from the environment's " + name) // a variable of this machine's, handed to the containers
				}
			}
		}
	}
	switch inc := doc["include"].(type) {
	case []any:
		for _, e := range inc {
			switch x := e.(type) {
			case map[string]any:
				c.paths(x["path"])
				c.path(x["project_directory"])
				c.paths(x["env_file"])
			default:
				c.path(x)
			}
		}
	case nil:
	default:
		c.path(inc)
	}
}

// commands reads a service's or a hook's entrypoint and command, run in
// its container through its mounts.
func (c composeReader) commands(m map[string]any, mounts []mounted, workdir string) {
	for _, k := range []string{"entrypoint", "command"} {
		switch x := m[k].(type) {
		case string:
			c.r.inContainer(mounts, workdir, false, func(dirs []string) { c.r.line(x, dirs) })
		case []any:
			words := make([]shellWord, 0, len(x))
			for _, e := range x {
				s, ok := e.(string)
				words = append(words, shellWord{text: s, known: ok})
			}
			c.r.inContainer(mounts, workdir, false, func(dirs []string) { c.r.command(words, dirs) })
		}
	}
}

// environment reads a service's environment: a variable passed through
// from this machine's environment ("- GITHUB_TOKEN", "GITHUB_TOKEN:",
// "TOKEN=${GITHUB_TOKEN}") whose name says it holds a secret hands the
// secret to the container, which may send it anywhere.
func (c composeReader) environment(v any) {
	var entries []string
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				entries = append(entries, s)
			}
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			switch val := x[k].(type) {
			case nil:
				entries = append(entries, k)
			case string:
				entries = append(entries, k+"="+val)
			}
		}
	}
	for _, e := range entries {
		if handsOnSecret(e) {
			c.handsOver("environment " + e)
		}
	}
}

// handsOver keeps what hands a secret of this machine's (an environment
// variable's value) to the containers, as a command that prints
// credentials is kept: the floor asks on it.
func (c composeReader) handsOver(what string) {
	c.r.w.out.Acts = true
	c.r.w.credentialCommand(c.r.s, []string{"compose", what})
}

// namedVolumes reads the top-level volumes: a local volume whose
// driver_opts bind a directory of this machine (device) gives whoever
// mounts it that directory, whole and writable unless "o" says ro; an NFS
// or CIFS server's address is a host.
func (c composeReader) namedVolumes(doc map[string]any) map[string]mounted {
	named := map[string]mounted{}
	volumes, _ := doc["volumes"].(map[string]any)
	for _, k := range sortedKeys(volumes) {
		e, ok := volumes[k].(map[string]any)
		if !ok {
			continue
		}
		opts, ok := e["driver_opts"].(map[string]any)
		if !ok {
			continue
		}
		o, _ := opts["o"].(string)
		writable := !mountReadOnly(o)
		from := len(c.r.w.out.Paths)
		c.r.tree = true
		c.path(opts["device"])
		c.r.tree = false
		if writable {
			markPathsWritten(c.r.w, from)
		}
		if dev, ok := opts["device"].(string); ok && len(c.r.w.out.Paths) > from && c.r.w.out.Paths[from].Resolved != "" {
			named[k] = mounted{source: c.r.w.out.Paths[from].Resolved, writable: writable}
			if clean := strings.TrimRight(dev, "/"); clean == "" || strings.HasSuffix(clean, "docker.sock") {
				c.r.unknown("a volume of " + dev) // the host's root or its Docker daemon
			}
		}
		for _, h := range fieldValues(o, "addr") {
			c.r.hostWord(shellWord{text: h, known: true}) // an NFS or CIFS server
		}
	}
	return named
}

// service reads one service: the files and directories it reads, what
// gives its container the host, and what its command does through its
// mounts.
func (c composeReader) service(svc map[string]any) {
	c.build(svc["build"])
	c.paths(svc["env_file"])
	if e, ok := svc["extends"].(map[string]any); ok {
		c.path(e["file"])
	}
	var mounts []mounted
	if vols, ok := svc["volumes"].([]any); ok {
		for _, v := range vols {
			if m, ok := c.volume(v); ok {
				mounts = append(mounts, m)
			}
		}
	}
	workdir, _ := svc["working_dir"].(string)
	c.commands(svc, mounts, workdir)
	// Lifecycle hooks run commands in the container too, and may run
	// them privileged.
	for _, k := range []string{"post_start", "pre_stop"} {
		hooks, _ := svc[k].([]any)
		for _, h := range hooks {
			hook, ok := h.(map[string]any)
			if !ok {
				c.r.unknown(fmt.Sprint(h))
				continue
			}
			if truthy(hook["privileged"]) {
				c.r.unknown(k + " privileged: true")
			}
			dir, _ := hook["working_dir"].(string)
			if dir == "" {
				dir = workdir
			}
			c.commands(hook, mounts, dir)
		}
	}
	c.environment(svc["environment"])
	if devs, ok := svc["devices"].([]any); ok {
		for _, d := range devs {
			if s, ok := d.(string); ok {
				src, _, _ := strings.Cut(s, ":")
				c.path(src)
			}
		}
	}
	// Compose Watch syncs a host directory into the container (and
	// rebuilds from it): every file under it.
	if dev, ok := svc["develop"].(map[string]any); ok {
		if watch, ok := dev["watch"].([]any); ok {
			for _, e := range watch {
				if m, ok := e.(map[string]any); ok {
					c.context(m["path"])
				}
			}
		}
	}
	c.hostAccess(svc)
}

// build reads a service's build: its contexts, its Dockerfile and its
// secrets' files.
func (c composeReader) build(build any) {
	switch b := build.(type) {
	case map[string]any:
		c.context(b["context"])
		c.path(b["dockerfile"])
		if more, ok := b["additional_contexts"].(map[string]any); ok {
			for _, k := range sortedKeys(more) {
				c.context(more[k]) // another context: a directory sent whole, or an image or URL
			}
		}
		if more, ok := b["additional_contexts"].([]any); ok {
			for _, e := range more {
				if str, ok := e.(string); ok {
					_, v, _ := strings.Cut(str, "=")
					c.context(v)
				}
			}
		}
		if secrets, ok := b["secrets"].([]any); ok {
			for _, s := range secrets {
				if m, ok := s.(map[string]any); ok {
					c.path(m["file"])
				}
			}
		}
		// build.ssh hands the build this machine's SSH agent ("default")
		// or a key file ("id=path").
		if keys, ok := b["ssh"].([]any); ok {
			for _, k := range keys {
				s, _ := k.(string)
				if _, file, ok := strings.Cut(s, "="); ok {
					c.path(file)
				} else {
					c.handsOver("build ssh " + s)
				}
			}
		}
	case nil:
	default:
		c.context(b)
	}
}

// hostAccess reads a service's settings that give the container the host.
func (c composeReader) hostAccess(svc map[string]any) {
	// What gives the container the host: every file the rules could name.
	// Compose reads a boolean written as a string too ("true", yes).
	if truthy(svc["privileged"]) {
		c.r.unknown("privileged: true")
	}
	if hosts, ok := svc["extra_hosts"].([]any); ok {
		for _, e := range hosts {
			if str, ok := e.(string); ok {
				if i := strings.IndexAny(str, ":="); i > 0 {
					c.r.hostWord(shellWord{text: strings.Trim(str[i+1:], "[]"), known: true}) // a name pointed at this address
				}
			}
		}
	}
	if b, ok := svc["build"].(map[string]any); ok {
		if n, ok := b["network"].(string); ok && strings.EqualFold(n, "host") {
			c.r.unknown("build network: host")
		}
	}
	if rules, ok := svc["device_cgroup_rules"].([]any); ok && len(rules) > 0 {
		c.r.unknown("device_cgroup_rules") // the host's devices, by number
	}
	if opts, ok := svc["security_opt"].([]any); ok {
		for _, o := range opts {
			if str, ok := o.(string); ok && (strings.Contains(str, "unconfined") || strings.Contains(str, "label:disable") || strings.Contains(str, "label=disable")) {
				c.r.unknown("security_opt: " + str)
			}
		}
	}
	for _, k := range []string{"pid", "network_mode", "ipc", "userns_mode", "uts", "cgroup"} {
		if s, ok := svc[k].(string); ok && (strings.EqualFold(s, "host") || strings.HasPrefix(s, "container:")) {
			c.r.unknown(k + ": " + s) // the host's, or another container's outside this project (its secrets, its network)
		}
	}
	if from, ok := svc["volumes_from"].([]any); ok {
		for _, f := range from {
			if s, ok := f.(string); ok && strings.HasPrefix(s, "container:") {
				c.r.unknown("volumes_from: " + s)
			}
		}
	}
	if image, ok := svc["image"].(string); ok {
		if reg, _, ok := strings.Cut(image, "/"); ok && (strings.ContainsAny(reg, ".:") || reg == "localhost") {
			c.r.hostWord(shellWord{text: reg, known: true}) // the registry the daemon pulls from
		}
	}
	if caps, ok := svc["cap_add"].([]any); ok {
		for _, cp := range caps {
			if s, ok := cp.(string); ok {
				switch strings.ToUpper(strings.TrimPrefix(strings.ToUpper(s), "CAP_")) {
				case "SYS_ADMIN", "ALL", "SYS_PTRACE", "SYS_MODULE", "DAC_READ_SEARCH", "SYS_RAWIO", "BPF":
					c.r.unknown("cap_add: " + s)
				}
			}
		}
	}
}

// truthy reports a YAML value Compose reads as true: the boolean, or a
// string of one ("true", "yes", "on", "1", any case).
func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes", "y", "on", "1":
			return true
		}
		// ${P:-true}: what Compose puts in is the environment's, which
		// this reading cannot see; it may be true.
		return strings.Contains(x, "${") || strings.HasPrefix(strings.TrimSpace(x), "$")
	case int:
		return x != 0
	}
	return false
}

// volume reads one entry of a service's volumes, and gives it as a bind
// mount of this machine's directory when it is one (a named volume bound
// to a device is).
func (c composeReader) volume(v any) (mounted, bool) {
	var src, target string
	writable := true
	switch x := v.(type) {
	case string:
		var rest, mode string
		src, rest, _ = strings.Cut(x, ":")
		target, mode, _ = strings.Cut(rest, ":")
		if !strings.ContainsAny(src, "/\\~$.") {
			return c.namedMount(src, target, !mountReadOnly(mode)) // a named volume
		}
		writable = !mountReadOnly(mode)
	case map[string]any:
		target, _ = x["target"].(string)
		if t, _ := x["type"].(string); t == "volume" {
			s, _ := x["source"].(string)
			return c.namedMount(s, target, !truthy(x["read_only"]))
		}
		if t, _ := x["type"].(string); t != "" && t != "bind" {
			return mounted{}, false // tmpfs, an image, a pipe
		}
		writable = !truthy(x["read_only"])
		s, ok := x["source"].(string)
		if !ok {
			c.path(x["source"])
			return mounted{}, false
		}
		src = s
	default:
		c.r.unknown(fmt.Sprint(v))
		return mounted{}, false
	}
	// What the container is given it reads whole: a home's secrets with it;
	// and, unless read-only, what runs in it may write all of it.
	from := len(c.r.w.out.Paths)
	c.r.tree = true
	c.path(src)
	c.r.tree = false
	if writable {
		markPathsWritten(c.r.w, from)
	}
	if clean := strings.TrimRight(src, "/"); clean == "" || strings.HasSuffix(clean, "docker.sock") {
		c.r.unknown("a mount of " + src) // the host's root or its Docker daemon
	}
	if len(c.r.w.out.Paths) == from+1 && c.r.w.out.Paths[from].Resolved != "" && path.IsAbs(target) {
		return mounted{source: c.r.w.out.Paths[from].Resolved, target: path.Clean(target), writable: writable}, true
	}
	return mounted{}, false
}

// namedMount is a named volume mounted at target, as the directory of
// this machine it is bound to (namedVolumes), if it is.
func (c composeReader) namedMount(name, target string, writable bool) (mounted, bool) {
	m, ok := c.named[name]
	if !ok || !path.IsAbs(target) {
		return mounted{}, false
	}
	return mounted{source: m.source, target: path.Clean(target), writable: writable && m.writable}, true
}

// context reads a build context: a path, or a URL (a git repository) whose
// host the daemon reaches.
func (c composeReader) context(v any) {
	if s, ok := v.(string); ok && (strings.HasPrefix(s, "docker-image://") || strings.HasPrefix(s, "service:")) {
		return // another image or service as a context: no local files
	}
	if s, ok := v.(string); ok && readsAsURL(s) {
		c.r.hostWord(shellWord{text: s, known: true})
		return
	}
	// Every file under it is sent to the daemon (or synced): a tree read
	// whole, so a home's secrets are asked.
	c.r.tree = true
	c.path(v)
	c.r.tree = false
}

// paths reads a string or a list of strings, or of {path: X}.
func (c composeReader) paths(v any) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				c.path(m["path"])
				continue
			}
			c.path(e)
		}
	case nil:
	default:
		c.path(x)
	}
}

// path reads one value that is a path: a string with "${...}"
// interpolation or a leading "~" is unknown, any other non-string too.
func (c composeReader) path(v any) {
	switch x := v.(type) {
	case nil:
	case string:
		if strings.Contains(x, "$") || strings.HasPrefix(x, "~") {
			c.r.unknown(x)
			return
		}
		c.r.path(x, c.dirs, false)
	default:
		c.r.unknown(fmt.Sprint(v))
	}
}

// sortedKeys are a mapping's keys in order, so that a reading is the same
// from call to call.
func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
