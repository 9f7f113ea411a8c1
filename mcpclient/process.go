package mcpclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"sort"
	"sync"
	"time"
)

// process is the server subprocess, started and stopped by the client
// itself rather than by the transport, so that a start-up that fails is
// killed at once and a broken server is stopped.
type process struct {
	cmd     *exec.Cmd
	stdin   *os.File
	stdout  *os.File
	exited  chan struct{}
	err     error // cmd.Wait's, once exited
	once    sync.Once
	stopErr error
}

// startProcess starts command with env, its stderr copied to stderr. The
// pipes are the client's own: Wait does not close stdout under a reader,
// and a child of the server holding stderr does not hold up Wait.
func startProcess(command string, args, env []string, stderr io.Writer) (*process, *os.File, *os.File, error) {
	path, err := exec.LookPath(command)
	if err != nil {
		return nil, nil, nil, err
	}
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (*os.File, *os.File, error) {
		r, w, err := os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, nil, nil, err
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, nil, nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, nil, nil, err
	}
	inR.Close()
	outW.Close()
	errW.Close()
	p := &process{cmd: cmd, stdin: inW, stdout: outR, exited: make(chan struct{})}
	go func() {
		_, _ = io.Copy(stderr, errR)
		errR.Close()
	}()
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, inW, outR, nil
}

// Grace periods of stop.
const (
	stdinGrace = 2 * time.Second
	termGrace  = 2 * time.Second
)

// stop has the server leave — stdin closed, then SIGTERM, then SIGKILL —
// and returns how it exited (an *exec.ExitError for a status other than 0).
func (p *process) stop() error { return p.leave(stdinGrace) }

// terminate has a server that broke its stream leave: SIGTERM at once,
// then SIGKILL.
func (p *process) terminate() error { return p.leave(0) }

func (p *process) leave(grace time.Duration) error {
	p.once.Do(func() {
		_ = p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(grace):
			terminate(p.cmd.Process)
			select {
			case <-p.exited:
			case <-time.After(termGrace):
				_ = p.cmd.Process.Kill()
				<-p.exited
			}
		}
		p.stdout.Close()
		p.stopErr = p.err
	})
	return p.stopErr
}

// kill ends the server at once.
func (p *process) kill() {
	p.once.Do(func() {
		_ = p.cmd.Process.Kill()
		_ = p.stdin.Close()
		<-p.exited
		p.stdout.Close()
		p.stopErr = p.err
	})
}

// errBrokenStream ends the transport's reading when the server writes
// something that is not JSON-RPC.
var errBrokenStream = errors.New("the server's stdout is not JSON-RPC")

// checkedStdout passes the server's stdout on line by line, each checked
// to be JSON (blank lines pass). A line that is not ends the stream: the
// transport sees an error, fails every call waiting on it, and onBad is
// told what the server wrote.
type checkedStdout struct {
	r       *bufio.Reader
	pending []byte
	err     error
	onBad   func(line []byte)
}

func (c *checkedStdout) Read(p []byte) (int, error) {
	for len(c.pending) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		line, err := c.r.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 && !json.Valid(t) {
			c.onBad(t)
			c.err = errBrokenStream
			return 0, c.err
		}
		c.pending, c.err = line, err
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

func sortStrings(s []string) { sort.Strings(s) }
