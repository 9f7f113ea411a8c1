package proxy

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/stderrtail"
)

// upstream is the MCP server the proxy stands in front of, as a stream of
// JSON-RPC messages.
type upstream interface {
	// send writes one message, newline included.
	send(msg []byte) error
	// recv returns the next message, valid until the next recv; an error
	// once the server is gone.
	recv() ([]byte, error)
	// stop ends the server (for a process: stdin closed, then SIGTERM,
	// then SIGKILL, to its whole process group) and waits for it.
	stop()
	// exit waits for the server to be gone and says how it ended: the
	// status to exit with (a signal N is 128+N) and why, for messages.
	exit() (code int, why string)
	// stoppedByUs says the server ended because stop asked it to.
	stoppedByUs() bool
}

// lineReader reads newline-delimited messages into a buffer of its own,
// read into as much at a time as the buffer holds, and returns each
// message (its newline included) as a slice of that buffer, valid until
// the next call: a message is copied once, from the pipe.
//
// A line longer than max (when max is not 0) is not kept: it is read
// through to its newline and dropped, its first bytes kept to tell what
// it answers, and next reports it as a *lineTooLong. The buffer then
// never holds more than max and a read.
type lineReader struct {
	r       io.Reader
	buf     []byte
	start   int // buf[start:end] is unread
	end     int
	scanned int // buf[start:scanned] holds no newline
	err     error
	max     int
}

const (
	readSize   = 64 << 10
	keepBuffer = 4 << 20 // a buffer grown past this is let go once empty
	// DefaultMaxLine bounds one message, each way, unless --max-line says
	// otherwise: well above any call's arguments (at most 32 MiB) and the
	// answers real servers give, well below what exhausts memory.
	DefaultMaxLine = 64 << 20
	// MaxMaxLine is the largest --max-line: a message of a gigabyte is
	// no tool's, and the buffer's arithmetic stays far from overflow.
	MaxMaxLine = 1 << 30
	// headKept is how much of a line too long is kept to read its id.
	headKept = 4 << 10
)

// lineTooLong is a line longer than its reader's max, dropped. head and
// tail are its first and last bytes, from which the request it is, or
// answers, may be read (the SDKs write the id first or last).
type lineTooLong struct {
	head, tail []byte
	size       int64
	max        int
	// lines, when not 0, is an SSE event's count of lines when joining
	// them would cost more than joinBudget.
	lines int
}

// newLineTooLong is line, over max, as far as it was read: its head, its
// tail and its length so far.
func newLineTooLong(line []byte, max int) *lineTooLong {
	return &lineTooLong{head: bytes.Clone(line[:min(len(line), headKept)]), tail: keepTail(nil, line), size: int64(len(line)), max: max}
}

// idAtEnd is the id written as the line's last member (`...,"id":7}`, as
// the official TypeScript servers write it), nil for none.
func (e *lineTooLong) idAtEnd() []byte {
	if m := lastID.FindSubmatch(e.tail); m != nil && validID(m[1]) {
		return m[1]
	}
	return nil
}

// lastID is an object's last member when it is its id, a number or a
// string.
var lastID = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*}\s*$`)

// keepTail is the last headKept bytes of tail and more.
func keepTail(tail, more []byte) []byte {
	if len(more) >= headKept {
		return append(tail[:0], more[len(more)-headKept:]...)
	}
	tail = append(tail, more...)
	if len(tail) > headKept {
		tail = append(tail[:0], tail[len(tail)-headKept:]...)
	}
	return tail
}

func (e *lineTooLong) Error() string {
	if e.lines > 0 {
		return fmt.Sprintf("a message cut into %d lines or more, too many to join for the limit of %d bytes (--max-line raises it)", e.lines, e.max)
	}
	return fmt.Sprintf("a message of %d bytes, longer than the limit of %d bytes (--max-line raises it)", e.size, e.max)
}

// skipLine drops the line at lr.start, longer than lr.max, through its
// newline (or the end of the stream), and lets a grown buffer go.
func (lr *lineReader) skipLine() error {
	e := newLineTooLong(lr.buf[lr.start:lr.end], lr.max)
	if len(lr.buf) > readSize {
		lr.buf = make([]byte, readSize)
	}
	lr.start, lr.end, lr.scanned = 0, 0, 0
	for lr.err == nil {
		n, err := lr.r.Read(lr.buf)
		lr.err = err
		if i := bytes.IndexByte(lr.buf[:n], '\n'); i >= 0 {
			e.size += int64(i)
			e.tail = keepTail(e.tail, lr.buf[:i])
			lr.end = copy(lr.buf, lr.buf[i+1:n])
			break
		}
		e.size += int64(n)
		e.tail = keepTail(e.tail, lr.buf[:n])
	}
	return e
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: r, buf: make([]byte, readSize)}
}

// next returns the next line that is not blank; a last line without its
// newline is still a message.
func (lr *lineReader) next() ([]byte, error) {
	for {
		if i := bytes.IndexByte(lr.buf[lr.scanned:lr.end], '\n'); i >= 0 {
			nl := lr.scanned + i
			line := lr.buf[lr.start : nl+1]
			lr.start, lr.scanned = nl+1, nl+1
			if lr.max > 0 && len(line)-1 > lr.max {
				// Over the limit, though it came whole in one read.
				return nil, newLineTooLong(line[:len(line)-1], lr.max)
			}
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			return line, nil
		}
		lr.scanned = lr.end
		if lr.max > 0 && lr.end-lr.start > lr.max {
			return nil, lr.skipLine()
		}
		if lr.err != nil {
			line := lr.buf[lr.start:lr.end]
			lr.start, lr.scanned = lr.end, lr.end
			if len(bytes.TrimSpace(line)) > 0 {
				return append(line, '\n'), nil
			}
			return nil, lr.err
		}
		if lr.start == lr.end {
			// Nothing unread: the next message starts at the front, and
			// is not moved there when the buffer's end is reached.
			lr.start, lr.end, lr.scanned = 0, 0, 0
			if len(lr.buf) > keepBuffer {
				lr.buf = make([]byte, readSize)
			}
		}
		if lr.end == len(lr.buf) {
			if lr.start > 0 {
				n := copy(lr.buf, lr.buf[lr.start:lr.end])
				lr.start, lr.end, lr.scanned = 0, n, n
			}
			if lr.end > len(lr.buf)/2 {
				size := 2 * len(lr.buf)
				if lr.max > 0 {
					// Room for a line of max bytes and the read that
					// finds it longer: no more.
					size = min(size, lr.max+readSize)
				}
				bigger := make([]byte, size)
				copy(bigger, lr.buf[:lr.end])
				lr.buf = bigger
			}
		}
		n, err := lr.r.Read(lr.buf[lr.end:])
		lr.end += n
		if err != nil {
			lr.err = err
		}
	}
}

// buffered says bytes of the stream are read and not yet returned: the
// start of a message, at least, is already here.
func (lr *lineReader) buffered() bool { return lr.start < lr.end }

// lineWriter writes whole messages, one at a time.
type lineWriter struct {
	mu    sync.Mutex
	w     io.Writer
	err   error
	onErr func(error)
}

// write writes msg, which ends in a newline. After a failure every write
// fails, and onErr has been told once.
func (lw *lineWriter) write(msg []byte) error {
	lw.mu.Lock()
	if lw.err != nil {
		err := lw.err
		lw.mu.Unlock()
		return err
	}
	_, err := lw.w.Write(msg)
	var notify func(error)
	if err != nil {
		lw.err = err
		notify = lw.onErr
	}
	lw.mu.Unlock()
	if notify != nil {
		notify(err)
	}
	return err
}

// stdioUpstream is a server subprocess over its stdin and stdout.
type stdioUpstream struct {
	command string
	cmd     *exec.Cmd
	stdin   *os.File
	out     *lineReader
	w       lineWriter
	tail    *stderrtail.Buffer

	exited   chan struct{} // closed once the process is reaped
	drained  chan struct{} // closed once stdout reached EOF
	stopOnce sync.Once
	mu       sync.Mutex
	state    *os.ProcessState
	waitErr  error
	stopped  bool // stop was called before the process ended
}

// startStdio starts command in a process group of its own, its stderr
// copied to stderr.
func startStdio(command string, args []string, stderr io.Writer, maxLine int) (*stdioUpstream, error) {
	path, err := exec.LookPath(command)
	if err != nil {
		return nil, err
	}
	// Pipes of our own rather than cmd.StdoutPipe: Wait must not close
	// stdout while a last response is still in it.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	// Roomy pipes: a 1 MB answer is written in one go rather than in
	// 64 KB turns of the server and the proxy.
	growPipe(inW)
	growPipe(outR)
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = sysProcAttr()
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	out := newLineReader(blocking(outR))
	out.max = maxLine
	u := &stdioUpstream{command: command, cmd: cmd, stdin: inW, out: out,
		tail: &stderrtail.Buffer{Tee: stderr}, exited: make(chan struct{}), drained: make(chan struct{})}
	u.w.w = inW
	go func() {
		_, _ = io.Copy(u.tail, errR)
		errR.Close()
	}()
	go func() {
		err := cmd.Wait()
		u.mu.Lock()
		u.state, u.waitErr = cmd.ProcessState, err
		u.mu.Unlock()
		close(u.exited)
	}()
	return u, nil
}

func (u *stdioUpstream) send(msg []byte) error { return u.w.write(msg) }

func (u *stdioUpstream) recv() ([]byte, error) {
	line, err := u.out.next()
	if _, tooLong := err.(*lineTooLong); err != nil && !tooLong {
		u.closeDrained()
	}
	return line, err
}

func (u *stdioUpstream) closeDrained() {
	select {
	case <-u.drained:
	default:
		close(u.drained)
	}
}

// Grace periods of stop: how long a server has to leave after its stdin
// closes, and after SIGTERM.
const (
	stdinGrace = 2 * time.Second
	termGrace  = 2 * time.Second
)

func (u *stdioUpstream) stop() {
	u.stopOnce.Do(func() {
		u.mu.Lock()
		if u.state == nil {
			u.stopped = true
		}
		u.mu.Unlock()
		_ = u.stdin.Close()
		select {
		case <-u.exited:
		case <-time.After(stdinGrace):
			u.signal(syscall.SIGTERM)
			select {
			case <-u.exited:
			case <-time.After(termGrace):
				u.signal(syscall.SIGKILL)
				<-u.exited
			}
		}
		// Whatever the server started and left behind in its group goes
		// with it.
		u.signal(syscall.SIGKILL)
	})
}

// signal signals the server's process group.
func (u *stdioUpstream) signal(sig syscall.Signal) {
	if p := u.cmd.Process; p != nil {
		_ = killGroup(p.Pid, sig)
	}
}

func (u *stdioUpstream) exit() (int, string) {
	// The process may end before its last words are read, and stdout may
	// stay open after it ends (a child of it holding the pipe): wait for
	// both, but for the second only a little.
	select {
	case <-u.exited:
		select {
		case <-u.drained:
		case <-time.After(500 * time.Millisecond):
		}
	case <-u.drained:
		select {
		case <-u.exited:
		case <-time.After(stdinGrace):
			u.stop()
		}
	}
	<-u.exited
	// What the server started and left behind in its group goes with it
	// (npx's node, when npx is killed).
	u.signal(syscall.SIGKILL)
	u.mu.Lock()
	defer u.mu.Unlock()
	code, why := 1, "the MCP server exited"
	if st := u.state; st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
			why = fmt.Sprintf("the MCP server was killed by signal %d (%s)", int(ws.Signal()), ws.Signal())
		} else {
			code = st.ExitCode()
			why = fmt.Sprintf("the MCP server exited with status %d", code)
		}
	} else if u.waitErr != nil {
		why = "the MCP server: " + u.waitErr.Error()
	}
	return code, why + u.tail.Suffix()
}

func (u *stdioUpstream) stoppedByUs() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.stopped
}
