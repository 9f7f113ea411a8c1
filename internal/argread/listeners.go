package argread

import (
	"slices"
	"strconv"
	"strings"
)

// Listeners. A command that opens a port to every interface hands what
// it serves to whoever reaches the machine: a notebook server without a
// token runs anyone's code, a debugger's port (dlv --headless, gdbserver)
// too, and a file server publishes the tree it serves, .env and .git
// included, and takes uploads into it when told to. Such a command names
// the unspecified address (0.0.0.0) as a host: an allow that names no
// host does not cover it, and an "always" answer names it. Its spellings:
// an address option's value that is every interface ("*", "0.0.0.0",
// "::", "" before a port: --ip='*', --listen=:2345), and a file server
// that binds every interface unless told otherwise (python -m
// http.server, miniserve, http-server).

// listenOptions are the (folded, last dotted part) names of the options
// that say where a server listens: --ip, --ServerApp.ip, --host, --bind,
// --listen, --address.
var listenOptions = keySetExact("ip", "host", "hostname", "bind", "listen", "address", "addr", "interface", "interfaces", "b", "l", "i", "a")

// defaultOpenServers serve a directory on every interface unless an
// address option says another.
var defaultOpenServers = keySetExact("miniserve", "http-server", "serve", "updog", "dufs", "sfz", "simple-http-server", "httpd", "twistd",
	"static-web-server", "darkhttpd", "webfsd", "gdbserver", "pyftpdlib", "uploadserver", "http.server", "SimpleHTTPServer",
	"RangeHTTPServer")

// everyInterface reports an address a server listens on that is every
// interface: "*", "0.0.0.0", "::", "0", or none before a port (":2345").
func everyInterface(v string) bool {
	host := v
	if i := strings.LastIndexByte(v, ':'); i >= 0 && !strings.HasSuffix(v, "]") && (i == 0 || v[i-1] != ':' || strings.HasPrefix(v, "[")) {
		if port, err := strconv.Atoi(v[i+1:]); err == nil && port >= 0 && port < 65536 {
			host = v[:i]
		}
	}
	if strings.Trim(v, "0123456789") == "" {
		return true // a port alone (serve -l 3000): every interface
	}
	host = strings.Trim(host, "[]'\"")
	return host == "" || host == "*" || host == "0.0.0.0" || host == "::" || host == "0"
}

// listens reads a command's words for a server that listens on every
// interface, and one that lets whoever reaches it write.
func (r *shellReader) listens(c SimpleCommand) {
	if len(c.Words) < 2 {
		return
	}
	server := c.Program
	if (strings.HasPrefix(c.Program, "python") || c.Program == "pypy3") && len(c.Words) > 2 {
		if i := slices.Index(c.Words, "-m"); i > 0 && i+1 < len(c.Words) {
			server = c.Words[i+1] // python -m http.server
		}
	}
	bound := false // an address option given: it says where, read below
	for i, w := range c.Words[1:] {
		opt, value, joined := strings.Cut(w, "=")
		if !strings.HasPrefix(opt, "-") {
			if server == "gdbserver" && everyInterface(w) && strings.HasPrefix(w, ":") {
				r.host(w, "0.0.0.0") // gdbserver :1234
			}
			continue
		}
		name := strings.ToLower(strings.TrimLeft(opt, "-"))
		if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
			name = name[dot+1:] // --ServerApp.ip, --NotebookApp.ip
		}
		if !listenOptions[name] || len(name) == 1 && !defaultOpenServers[server] {
			continue // a one-letter option says where only to the servers listed
		}
		if !joined {
			if i+2 >= len(c.Words) || strings.HasPrefix(c.Words[i+2], "-") {
				if name == "host" {
					r.host(w, "0.0.0.0") // vite --host, alone: every interface
				}
				continue
			}
			value = c.Words[i+2]
		}
		bound = true
		if everyInterface(value) {
			r.host(w, "0.0.0.0")
		}
	}
	if (server == "docker" || server == "podman" || server == "nerdctl") && publishesEverywhere(c.Words) {
		r.host("-p (every interface)", "0.0.0.0") // -p 8888:8888 binds the host's port on every interface
	}
	if (server == "nc" || server == "ncat" || server == "netcat") && hasWordIn(c.Words, "-l", "-lp", "-lk", "-lvp", "-lnvp", "--listen") ||
		server == "socat" && slices.ContainsFunc(c.Words, func(w string) bool { return strings.Contains(strings.ToUpper(w), "-LISTEN:") }) {
		bound = bound || slices.Contains(c.Words, "-s")
		if !bound {
			r.host(server+" -l (every interface)", "0.0.0.0") // nc -l -p 9000: whoever connects gets what is piped in
		}
	}
	if (server == "iperf3" || server == "iperf") && hasWordIn(c.Words, "-s", "--server") && !hasWordIn(c.Words, "-B", "--bind") {
		r.host(server+" -s (every interface)", "0.0.0.0") // whoever reaches the port runs its tests
	}
	if server == "caddy" && slices.Contains(c.Words, "file-server") && !bound {
		r.host("caddy file-server (every interface)", "0.0.0.0")
	}
	if server == "sendmail" && slices.Contains(c.Words, "-t") {
		r.host("sendmail -t", "") // the recipients are the message's own headers: unknown
	}
	if (server == "nc" || server == "ncat" || server == "netcat" || server == "telnet") && !slices.Contains(c.Words, "-l") {
		if h := firstOperand(c.Words[1:]); h != "" && !strings.ContainsAny(h, "./:") {
			r.host(h, strings.ToLower(h)) // nc backup 9000: a host of one label, by its position
		}
	}
	if defaultOpenServers[server] && !bound {
		r.host(server+" (every interface)", "0.0.0.0")
	}
	if takesUploads(server, c.Words) {
		r.unknown(server + ": whoever reaches it writes into the tree it serves")
	}
}

// publishesEverywhere reports docker run's -p or --publish of a port
// with no address, or with every interface's ("8888:8888", "0.0.0.0:80:80"),
// and -P (--publish-all): every port the image exposes, on every interface.
func publishesEverywhere(words []string) bool {
	for i, w := range words {
		v, ok := "", false
		switch {
		case w == "-P" || w == "--publish-all" || w == "--publish-all=true" ||
			len(w) > 2 && w[0] == '-' && w[1] != '-' && strings.ContainsRune(w, 'P') && !strings.ContainsAny(w, "=:"):
			return true // -P, or -P among other letters (-dP)
		case w == "-p" || w == "--publish":
			if i+1 < len(words) {
				v, ok = words[i+1], true
			}
		case strings.HasPrefix(w, "--publish="):
			v, ok = strings.TrimPrefix(w, "--publish="), true
		case strings.HasPrefix(w, "-p") && len(w) > 2 && w[2] >= '0' && w[2] <= '9':
			v, ok = w[2:], true
		}
		if !ok {
			continue
		}
		parts := strings.Split(v, ":")
		if len(parts) < 3 || everyInterface(parts[0]+":0") {
			return true
		}
	}
	return false
}

// firstOperand is the first word that is no option nor an option's
// value of nc's (-p, -w, -s, -x take one), "" for none.
func firstOperand(words []string) string {
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-p" || w == "-w" || w == "-s" || w == "-x" || w == "-e" || w == "-c" || w == "-q" || w == "-i":
			i++
		case strings.HasPrefix(w, "-"):
		default:
			return w
		}
	}
	return ""
}

// takesUploads reports a file server told to take uploads: uploadserver
// always, pyftpdlib -w, miniserve -u (--upload-files), dufs -A
// (--allow-all, --allow-upload).
func takesUploads(server string, words []string) bool {
	switch server {
	case "uploadserver":
		return true
	case "pyftpdlib":
		return hasWordIn(words, "-w", "--write")
	case "miniserve":
		return slices.ContainsFunc(words, func(w string) bool { return w == "-u" || strings.HasPrefix(w, "--upload-files") })
	case "dufs":
		return hasWordIn(words, "-A", "--allow-all", "--allow-upload", "--allow-delete")
	}
	return false
}

// hasWordIn reports one of want among words.
func hasWordIn(words []string, want ...string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return slices.Contains(want, w) })
}
