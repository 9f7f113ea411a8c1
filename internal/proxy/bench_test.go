package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/cliconfig"
)

// The proxy in one process with its host and its server, over OS pipes as
// mcp-policy proxy has them, for profiles (-cpuprofile, -mutexprofile)
// that hold nothing but the relay: test/e2e's BenchmarkProxyRoundTrip
// measures the real binary in front of the real server, where a profile
// would be mostly node's. The server here is canned: it answers with the
// bytes the official filesystem server answers read_text_file with, so
// the relay scans, decides and forwards what it does in production.

// benchTool is read_text_file as the official filesystem server lists it.
const benchTool = `{"name":"read_text_file","title":"Read Text File","description":"Read the complete contents of a file from the file system as text. Handles various text encodings and provides detailed error messages if the file cannot be read. Use this tool when you need to examine the contents of a single file. Use the 'head' parameter to read only the first N lines of a file, or the 'tail' parameter to read only the last N lines of a file. Operates on the file as text regardless of extension. Only works within allowed directories.","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"path":{"type":"string"},"tail":{"description":"If provided, returns only the last N lines of the file","type":"number"},"head":{"description":"If provided, returns only the first N lines of the file","type":"number"}},"required":["path"]},"annotations":{"readOnlyHint":true,"openWorldHint":false},"execution":{"taskSupport":"forbidden"},"outputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"content":{"type":"string"}},"required":["content"],"additionalProperties":false}}`

// cannedServer answers like the official filesystem server: initialize
// (naming itself as it does, so its argument specs apply), tools/list, and
// every tools/call with the result text. Requests are answered in order,
// one at a time, as node does.
func cannedServer(in io.Reader, out io.Writer, text string) {
	quoted, _ := json.Marshal(text)
	result := []byte(`{"content":[{"type":"text","text":` + string(quoted) + `}],"structuredContent":{"content":` + string(quoted) + `}}`)
	lr := newLineReader(in)
	var buf []byte
	for {
		line, err := lr.next()
		if err != nil {
			return
		}
		env, err := parseEnvelope(bytes.TrimSpace(line))
		if err != nil || env.id == nil {
			continue
		}
		buf = append(buf[:0], `{"result":`...)
		switch env.method {
		case methodInitialize:
			buf = append(buf, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"secure-filesystem-server","version":"0.2.0"}}`...)
		case methodToolsList:
			buf = append(buf, `{"tools":[`+benchTool+`]}`...)
		default:
			buf = append(buf, result...)
		}
		buf = append(buf, `,"jsonrpc":"2.0","id":`...)
		buf = append(buf, env.id...)
		buf = append(buf, "}\n"...)
		if _, err := out.Write(buf); err != nil {
			return
		}
	}
}

// pipeUpstream is the server's end of two OS pipes, read as stdioUpstream
// reads a process's stdout.
type pipeUpstream struct {
	w    lineWriter
	in   *os.File
	out  *lineReader
	once sync.Once
	end  func()
}

func (u *pipeUpstream) send(msg []byte) error { return u.w.write(msg) }
func (u *pipeUpstream) recv() ([]byte, error) { return u.out.next() }
func (u *pipeUpstream) stop()                 { u.once.Do(u.end) }
func (u *pipeUpstream) exit() (int, string)   { return 0, "the canned server ended" }
func (u *pipeUpstream) stoppedByUs() bool     { return true }

// benchPipe is an OS pipe grown as the proxy grows its own.
func benchPipe(b *testing.B) (*os.File, *os.File) {
	b.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	growPipe(w)
	return r, w
}

// benchHost is a host's end of a stream to a server: the proxy, the canned
// server itself, or a copy relay in front of it.
type benchHost struct {
	in  *os.File
	out *lineReader
}

func (h *benchHost) send(b *testing.B, msg []byte) {
	if _, err := h.in.Write(msg); err != nil {
		b.Fatal(err)
	}
}

func (h *benchHost) recv(b *testing.B) []byte {
	line, err := h.out.next()
	if err != nil {
		b.Fatal(err)
	}
	return line
}

func (h *benchHost) roundTrip(b *testing.B, msg []byte) []byte {
	h.send(b, msg)
	return h.recv(b)
}

// startCanned starts a canned server answering text, and returns the ends
// its host writes to and reads from.
func startCanned(b *testing.B, text string) (toServer *os.File, fromServer *os.File) {
	inR, inW := benchPipe(b)
	outR, outW := benchPipe(b)
	go func() {
		cannedServer(inR, outW, text)
		outW.Close()
	}()
	b.Cleanup(func() { inW.Close(); outR.Close(); inR.Close() })
	return inW, outR
}

// directHost talks to a canned server straight.
func directHost(b *testing.B, text string) *benchHost {
	in, out := startCanned(b, text)
	h := &benchHost{in: in, out: newLineReader(out)}
	h.initialize(b)
	return h
}

// copyHost talks to a canned server through two io.Copy goroutines: the
// floor of any relay.
func copyHost(b *testing.B, text string) *benchHost {
	toSrv, fromSrv := startCanned(b, text)
	hostInR, hostInW := benchPipe(b)
	hostOutR, hostOutW := benchPipe(b)
	go func() { _, _ = io.Copy(toSrv, hostInR) }()
	go func() { _, _ = io.Copy(hostOutW, fromSrv) }()
	b.Cleanup(func() { hostInW.Close(); hostOutR.Close() })
	h := &benchHost{in: hostInW, out: newLineReader(hostOutR)}
	h.initialize(b)
	return h
}

// proxyHost talks to a canned server through a Proxy with the default
// rules, as mcp-policy proxy runs with no flags.
func proxyHost(b *testing.B, text string) *benchHost {
	b.Helper()
	cfg, err := cliconfig.Flags{Timeout: 5 * time.Second}.Load()
	if err != nil {
		b.Fatal(err)
	}
	store, err := cfg.OpenGrants()
	if err != nil {
		b.Fatal(err)
	}
	hostInR, hostInW := benchPipe(b)
	hostOutR, hostOutW := benchPipe(b)
	p, err := New(Options{Config: cfg, Grants: store, Ask: AskElicit, AskTimeout: 5 * time.Second, Stderr: io.Discard}, hostOutW)
	if err != nil {
		b.Fatal(err)
	}
	toSrv, fromSrv := startCanned(b, text)
	up := &pipeUpstream{in: toSrv, out: newLineReader(blocking(fromSrv))}
	up.w.w = toSrv
	up.end = func() { toSrv.Close() }
	done := make(chan int, 1)
	go func() { done <- p.Run(up, hostInR, nil) }()
	b.Cleanup(func() {
		hostInW.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			b.Error("the proxy did not stop when the host left")
		}
		hostOutR.Close()
	})
	h := &benchHost{in: hostInW, out: newLineReader(hostOutR)}
	h.initialize(b)
	return h
}

// initialize is the handshake of test/e2e's pipe host: no tools/list, so
// the proxy lists the tools itself before the first call.
func (h *benchHost) initialize(b *testing.B) {
	b.Helper()
	h.roundTrip(b, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`+"\n"))
	h.send(b, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"))
}

// benchRead is a read_text_file request with id.
func benchRead(id int) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/srv/bench/small.txt"}}}` + "\n")
}

// benchText is the text of a read of size bytes: lines of the kind test/e2e
// reads, quotes and tabs included, so the answer has escapes to scan.
func benchText(size int) string {
	var big bytes.Buffer
	for i := 0; big.Len() < size; i++ {
		fmt.Fprintf(&big, "line %6d: the quick brown fox jumps over the lazy dog, \"quoted\"\t and tabbed.\n", i)
	}
	return big.String()[:size]
}

// checkRead fails unless line is the server's answer to request id.
func checkRead(b *testing.B, line []byte, id, size int) {
	if len(line) < size || bytes.Contains(line, []byte(`"isError":true`)) || !bytes.HasSuffix(line, []byte(`"id":`+strconv.Itoa(id)+"}\n")) {
		b.Fatalf("answer to %d: %.300s", id, line)
	}
}

// BenchmarkRelayCall is one allowed read_text_file at a time, of 18 bytes
// and of 1 MB, straight to the canned server, through the Proxy and
// through a copy relay, in turn in one loop. It reports the median of each
// one's round trips; the proxy's overhead over the copy relay's is what the proxy
// adds to being a relay at all. A CPU profile of it is the relay's:
//
//	go test ./internal/proxy -run '^$' -bench RelayCall/18B -cpuprofile cpu.out
func BenchmarkRelayCall(b *testing.B) {
	for _, size := range []int{18, 1 << 20} {
		name := "18B"
		if size > 18 {
			name = "1MB"
		}
		text := benchText(size)
		if size == 18 {
			text = "eighteen bytes. :)"
		}
		b.Run(name, func(b *testing.B) {
			hosts := []*benchHost{directHost(b, text), proxyHost(b, text), copyHost(b, text)}
			for id := range 20 {
				for _, h := range hosts {
					checkRead(b, h.roundTrip(b, benchRead(id)), id, size)
				}
			}
			times := make([][]time.Duration, len(hosts))
			for i := 0; b.Loop(); i++ {
				// Each goes first in turn, so none always follows another.
				for j := range hosts {
					k := (i + j) % len(hosts)
					start := time.Now()
					line := hosts[k].roundTrip(b, benchRead(i))
					times[k] = append(times[k], time.Since(start))
					checkRead(b, line, i, size)
				}
			}
			µs := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
			d, p, c := µs(medianOf(times[0])), µs(medianOf(times[1])), µs(medianOf(times[2]))
			b.ReportMetric(d, "direct-µs")
			b.ReportMetric(p, "proxy-µs")
			b.ReportMetric(c, "copy-µs")
			b.ReportMetric(p-d, "proxy-over-direct-µs")
			b.ReportMetric(c-d, "copy-over-direct-µs")
		})
	}
}

// medianOf is the median of ds, which it sorts: a pause of the collector
// or of the machine moves it less than it moves a mean.
func medianOf(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// BenchmarkConcurrent is allowed calls through the Proxy with 1, 2, 8 and
// 64 in flight at once: the host keeps that many requests (distinct ids)
// written and not yet answered. The canned server answers at once, so
// calls per second are bounded by the CPU the relay spends per call (this
// machine has two cores, shared with the host and the server); a lock
// every call took would show as contention in -mutexprofile and as
// throughput falling as calls are added.
//
//	go test ./internal/proxy -run '^$' -bench Concurrent -mutexprofile mutex.out
func BenchmarkConcurrent(b *testing.B) {
	h := proxyHost(b, "eighteen bytes. :)")
	for _, inFlight := range []int{1, 2, 8, 64} {
		b.Run(fmt.Sprintf("inflight=%d", inFlight), func(b *testing.B) {
			tokens := make(chan struct{}, inFlight)
			for range inFlight {
				tokens <- struct{}{}
			}
			n := b.N
			written := make(chan struct{})
			b.ResetTimer()
			start := time.Now()
			go func() {
				defer close(written)
				for i := range n {
					<-tokens
					if _, err := h.in.Write(benchRead(i)); err != nil {
						b.Error(err)
						return
					}
				}
			}()
			seen := make([]bool, n)
			for range n {
				line := h.recv(b)
				env, err := parseEnvelope(bytes.TrimSpace(line))
				id, _ := strconv.Atoi(string(env.id))
				if err != nil || id < 0 || id >= n || seen[id] || bytes.Contains(line, []byte(`"isError":true`)) {
					b.Fatalf("answer %.300s", line)
				}
				seen[id] = true
				tokens <- struct{}{}
			}
			elapsed := time.Since(start)
			<-written
			b.ReportMetric(float64(n)/elapsed.Seconds(), "calls/s")
		})
	}
}
