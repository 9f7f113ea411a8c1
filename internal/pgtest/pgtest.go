// Package pgtest runs a real PostgreSQL for tests: one server per test
// binary, in a temporary directory, listening only on a Unix socket, as an
// unprivileged user (PostgreSQL refuses to run as root, and CI runs as
// root), stopped when the tests end; and a fresh database per test.
//
// MCP_POLICY_TEST_PG names a server to use instead (a URL whose role may
// create databases). Without one, the server is made with Debian's
// postgresql binaries (/usr/lib/postgresql/*/bin, or initdb on PATH).
// When neither can be had, the tests that need it skip — except under CI
// (CI=true), where they fail, so CI cannot pass without having run them.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvDSN names an existing server to test against instead of starting one.
const EnvDSN = "MCP_POLICY_TEST_PG"

// Server is a running PostgreSQL.
type Server struct {
	base *url.URL // the server's URL, database "postgres"

	// Set when this package started the server.
	bin, data, sock, runAs string
	mu                     sync.Mutex
	owned                  bool // Own's: one test's alone, which it may kill
}

var (
	once    sync.Once
	shared  *Server
	initErr error
)

// Main runs a package's tests and stops the server they started, if any:
// call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop stops the server the tests started, if any, and removes its
// files: for a TestMain that does more than Main.
func Stop() {
	if shared != nil && shared.data != "" {
		_ = shared.stop("fast")
		os.RemoveAll(filepath.Dir(shared.data))
	}
}

// Get returns the package's server, starting it on first use, or skips t
// (fails it under CI) when there is none to be had.
func Get(t testing.TB) *Server {
	t.Helper()
	once.Do(func() { shared, initErr = start() })
	if initErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL: %v (CI=true: not skipping)", initErr)
		}
		t.Skipf("PostgreSQL: %v", initErr)
	}
	return shared
}

// Own starts a server for t alone, stopped and removed when t ends: for a
// test that kills its server (Kill), so that tests running beside it keep
// theirs. It skips, or fails under CI, as Get does; and skips when
// MCP_POLICY_TEST_PG names the server, which a test cannot stop.
func Own(t testing.TB) *Server {
	t.Helper()
	if Get(t).data == "" {
		t.Skipf("pgtest: %s names a server this test cannot stop", EnvDSN)
	}
	s, err := start()
	if err != nil {
		t.Fatalf("pgtest: starting a server of the test's own: %v", err)
	}
	s.owned = true
	t.Cleanup(func() {
		_ = s.stop("fast")
		os.RemoveAll(filepath.Dir(s.data))
	})
	return s
}

// NewDatabase creates an empty database for t on the package's server,
// dropped when t ends, and returns its URL.
func NewDatabase(t testing.TB) string {
	t.Helper()
	return Get(t).NewDatabase(t)
}

// NewDatabase creates an empty database for t on s, dropped when t ends,
// and returns its URL.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "t_" + hex.EncodeToString(b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = s.exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	return s.URL(name)
}

// URL is the server's URL for database db.
func (s *Server) URL(db string) string {
	u := *s.base
	u.Path = "/" + db
	return u.String()
}

func (s *Server) exec(ctx context.Context, sql string) error {
	c, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, sql)
	return err
}

// Kill stops the server at once, as a crash or a pulled cable would: every
// connection is cut. Only a server of the test's own (Own) can be killed:
// the package's is every other test's too.
func (s *Server) Kill(t testing.TB) {
	t.Helper()
	if !s.owned {
		t.Fatal("pgtest: Kill a server of the test's own (pgtest.Own): the package's server is every test's")
	}
	if err := s.stop("immediate"); err != nil {
		t.Fatalf("pgtest: killing the server: %v", err)
	}
}

// Restart starts a server Kill stopped, on the same socket and data.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.startServer(); err != nil {
		t.Fatalf("pgtest: restarting the server: %v", err)
	}
}

// startServer starts the server on its socket only (no TCP), without
// fsync: a test's data need not survive a power cut.
func (s *Server) startServer() error {
	return s.pgctl("start", "-w", "-t", "60", "-l", filepath.Join(filepath.Dir(s.data), "log"),
		"-o", "-k "+s.sock+" -c listen_addresses='' -F -c max_connections=300")
}

func start() (*Server, error) {
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		u, err := url.Parse(dsn)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", EnvDSN, err)
		}
		return &Server{base: u}, nil
	}
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin}
	if os.Geteuid() == 0 {
		// PostgreSQL refuses root; nobody owns nothing it could harm.
		s.runAs = "nobody"
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	s.data, s.sock = filepath.Join(dir, "data"), filepath.Join(dir, "sock")
	if err := os.Mkdir(s.sock, 0o700); err != nil {
		return nil, err
	}
	if s.runAs != "" {
		u, err := user.Lookup(s.runAs)
		if err != nil {
			return nil, err
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for _, p := range []string{dir, s.sock} {
			if err := os.Chown(p, uid, gid); err != nil {
				return nil, err
			}
		}
	}
	if out, err := s.command(filepath.Join(bin, "initdb"), "-D", s.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	s.base = &url.URL{Scheme: "postgres", Path: "/postgres", User: url.User("postgres"),
		RawQuery: url.Values{"host": {s.sock}, "sslmode": {"disable"}}.Encode()}
	if err := s.startServer(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.watch(dir)
	return s, nil
}

// watch starts a watchdog that stops the server and removes dir once this
// process is gone, however it went: a test binary killed (a timeout, ^C,
// a closed pipe) never runs Main's Stop, and would leave the server
// running. It runs as this process's user, who may signal this process;
// its own process group keeps it out of the test's signals.
func (s *Server) watch(dir string) {
	stop := s.command(filepath.Join(s.bin, "pg_ctl"), "stop", "-m", "immediate", "-D", s.data)
	script := `while kill -0 "$0" 2>/dev/null; do sleep 1; done; "$@" >/dev/null 2>&1; rm -rf "$DIR"`
	c := exec.Command("sh", append([]string{"-c", script, strconv.Itoa(os.Getpid())}, stop.Args...)...)
	c.Env = append(os.Environ(), "DIR="+dir)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if c.Start() == nil {
		_ = c.Process.Release()
	}
}

func (s *Server) stop(mode string) error {
	return s.pgctl("stop", "-w", "-m", mode)
}

func (s *Server) pgctl(args ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	args = append(args, "-D", s.data)
	out, err := s.command(filepath.Join(s.bin, "pg_ctl"), args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl %s: %v: %s", args[0], err, out)
	}
	return nil
}

// command runs name as the server's user.
func (s *Server) command(name string, args ...string) *exec.Cmd {
	if s.runAs != "" {
		args = append([]string{"-u", s.runAs, "--", name}, args...)
		name = "runuser"
	}
	c := exec.Command(name, args...)
	c.Dir = os.TempDir() // a directory the server's user may enter
	// Its own process group: a test's ^C must not kill the server before
	// Main stops it cleanly.
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return c
}

// findBin is the directory of Debian's newest PostgreSQL binaries, or of
// initdb on PATH.
func findBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no PostgreSQL binaries (apt-get install postgresql), and " + EnvDSN + " is not set")
}
