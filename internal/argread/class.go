package argread

// Kind is what a value is read as.
type Kind uint8

const (
	// None: nothing says what the value is, so its shape decides (see
	// values.go): what reads as a path or a URL is an unknown one, an IP
	// address or a remote path's host is a host.
	None Kind = iota
	// Path is a local path, resolved against the tool's root.
	Path
	// Dir is a local path the tool acts on as a directory: an "always"
	// answer's scope is the directory itself, not its parent.
	Dir
	// URL is a URL, its host read; a file: URI, or a value that is no
	// URL as written, is a path too.
	URL
	// PathOrURL is either (a schema allows both): a URL if it reads as
	// one, else a path.
	PathOrURL
	// Host is a host name or an IP address.
	Host
	// Content is text or a file's contents: never a path or URL itself,
	// but a JSON document in it is read, unless the schema declares the
	// argument a string (a server may parse JSON passed as a string).
	Content
	// Text is what an argument spec declares text: nothing in it is read,
	// not even an option.
	Text
	// Ignore is what an argument spec declares neither a path nor a URL
	// (a git ref, an entity's name): only what a command line would read
	// as an option ("-...") is an unknown path.
	Ignore
	// Label is a name that holds names ("name", "title", "entityName"):
	// its value is read by its shape, but an absolute path is one only
	// where it starts in a directory that holds files (labelPath): an
	// entity named "/api/v2/orders" is no path.
	Label
	// Command is a command line's words ("args": ["-f", "x.yaml"]): a word
	// that names a file (a path, a relative path with a separator, a dot
	// name, an option's value) is an unknown path, relative to where the
	// command runs.
	Command
	// Shell is a shell command line ("command": "cd /etc && cat shadow"),
	// parsed as bash parses it and read command by command (shell.go); an
	// array of strings under it is one command's words (argv), or under a
	// plural name one command line each.
	Shell
	// Patch is a patch (a unified or git diff, or Codex's "*** Begin
	// Patch" format): every file it changes is a path (patch.go).
	Patch
	// Compose is a Compose file's text (compose.go): its bind mounts,
	// build contexts and files are paths.
	Compose
	// Contained is a command line, or one command's words, that runs in a
	// container or a pod (an exec tool's command): its paths are the
	// container's own, but what it prints of credentials (the
	// environment, a service account's token) comes back, and the hosts it
	// reaches are reached (incontainer.go).
	Contained
	// Data is what the user marked the server's data in the rules (a
	// DataMark): nothing in it is read, at any depth, but a value that
	// names a file the floor guards (data.go).
	Data
)

// Evidence is how a class is known, weakest first. Stronger evidence
// outranks weaker: an argument spec beats a schema's format, a format
// beats a name, a name beats the shape of a value.
type Evidence uint8

const (
	// Shape: nothing but the value's shape (Kind None).
	Shape Evidence = iota
	// Word: a word inside the name ("pathInProject", "file_type"). Only
	// a string counts: a "fileCount" is a number.
	Word
	// Weak: a name that holds its kind as often as something else
	// ("address", "server", "serverIp"): a value is one only when it reads
	// as one, else it is read by its shape.
	Weak
	// Name: the name says so ("path", "outputDir", "callbackUrl"). A value
	// that is no string there is an unknown one.
	Name
	// Format: the tool's input schema says so ("format": "path").
	Format
	// Specified: an argument spec says so: what a person wrote.
	Specified
)

// Class is what an argument's name, the tool's schema or an argument spec
// says of the values under it.
type Class struct {
	Kind     Kind
	Evidence Evidence
	// Values: the argument is an object whose values (not its keys, which
	// are names) are of Kind (a schema's additionalProperties).
	Values bool
	// Dotted, for a Weak Host: a name of one label other than localhost
	// is no host ("membership": "gold" under a name ending in "ip").
	Dotted bool
	// ByTool: only the tool's name gave it (an "input" of a tool whose
	// name says it executes): a string under it is of Kind, an object's
	// members are read by their own names (execute_davis_analyzer's
	// {"input": {"timeSeriesData": ...}} holds no command lines).
	ByTool bool
	// Remote, for Ignore: a path on the machine at the other end ("an
	// SFTP tool's remotePath"): no local path, but an option in it is
	// read, and so is a file the floor guards (a deploy key downloaded
	// into the project comes to the model next).
	Remote bool
}

// none is the class of a name nothing says anything of.
var none = Class{}

// local reports a class of local paths: a string under it is a path.
func (c Class) local() bool { return c.Kind == Path || c.Kind == Dir }

// urlish reports a class of URLs, or URLs and paths.
func (c Class) urlish() bool { return c.Kind == URL || c.Kind == PathOrURL }

// weak reports a class whose values are read as its kind only when they
// read as one (Weak evidence).
func (c Class) weak() bool { return c.Evidence == Weak }

// strict reports a class under which a value that is not a string (a
// number, a boolean, null) is an unknown path or host: the name, format or
// spec says a path or a URL is there, and the server will read something
// else than the rules saw.
func (c Class) strict() bool {
	if c.Values || c.Evidence < Name {
		return false
	}
	switch c.Kind {
	case Path, Dir, URL, PathOrURL, Host:
		return true
	}
	return false
}

// keysArePaths reports a class under which an object's keys are paths: an
// object under a path's name maps paths to something (a multi-file write's
// {"a.md": "...", ".git/x": "..."}).
func (c Class) keysArePaths() bool { return c.local() && !c.Values }

// valueClass is the class of the values of an object of this class: the
// schema's map of names to paths, URLs or hosts.
func (c Class) valueClass() Class { return Class{Kind: c.Kind, Evidence: c.Evidence} }

// inner is the class of a value under key in an object of this class,
// when key itself says nothing (keyClass is none).
func (c Class) inner(key string, keyClass Class) Class {
	switch {
	case c.Kind == Data:
		return c // what the user marked data is data all the way down
	case c.Values:
		return c.valueClass() // what the schema says of the map's values, whatever the key's name
	case c.keysArePaths() && (keyClass == none || keyClass.Kind == Label):
		// A path held another way ({"path": {"value": "x"}}, a list of
		// files' {"name": "x"}): a string under a key that says nothing,
		// or holds a name, is a path, unless the key reads as a file name,
		// whose value is the file's contents.
		if isFileName(key) {
			return none
		}
		return Class{Kind: c.Kind, Evidence: Word}
	case keyClass != none:
		return keyClass
	case c.Kind == Ignore || c.Kind == Text || c.Kind == Command:
		return c // an ignored argument's fields are ignored too; a command's flags are its words
	case c.Kind == Shell && c.Evidence == Name && !c.ByTool:
		return c // {"hooks": {"pre": "make lint"}}: each hook's command line
	}
	return none
}
