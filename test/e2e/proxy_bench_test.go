//go:build unix

package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// pipeHost is the cheapest host there is: JSON-RPC lines written to and
// read from a server's pipes, nothing decoded but what the benchmark
// checks. Against it the proxy's cost is not hidden behind a client
// library's own JSON handling.
type pipeHost struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startPipeHost(b *testing.B, argv []string) *pipeHost {
	b.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	h := &pipeHost{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	b.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	h.roundTrip(b, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`+"\n"))
	if _, err := in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		b.Fatal(err)
	}
	return h
}

// roundTrip writes one request and reads the one line that answers it.
func (h *pipeHost) roundTrip(b *testing.B, req []byte) []byte {
	if _, err := h.in.Write(req); err != nil {
		b.Fatal(err)
	}
	line, err := h.out.ReadBytes('\n')
	if err != nil {
		b.Fatal(err)
	}
	return line
}

// BenchmarkProxyRoundTrip: an allowed read_text_file of the official
// filesystem server, straight over its pipes and through mcp-policy proxy
// (decided by the default read-only rule, forwarded byte for byte), in
// turn in one loop, for an 18-byte and a 1 MB file. It reports the median
// of each and the proxy's overhead in percent of the direct round trip.
//
//	npm ci --prefix test/npm && go test ./test/e2e/ -run '^$' -bench ProxyRoundTrip -benchtime 2000x
func BenchmarkProxyRoundTrip(b *testing.B) {
	node, entry := needOfficialFS(b)
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	small := []byte("eighteen bytes. :)")
	var big bytes.Buffer
	for i := 0; big.Len() < 1<<20; i++ {
		fmt.Fprintf(&big, "line %6d: the quick brown fox jumps over the lazy dog, \"quoted\"\t and tabbed.\n", i)
	}
	for name, content := range map[string][]byte{"small.txt": small, "big.txt": big.Bytes()[:1<<20]} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	server := []string{node, entry, dir}
	straight := startPipeHost(b, server)
	through := startPipeHost(b, append([]string{proxyBinary(b), "proxy", "--"}, server...))

	request := func(file string) []byte {
		p, _ := json.Marshal(filepath.Join(dir, file))
		return []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":` + string(p) + `}}}` + "\n")
	}
	for _, tc := range []struct {
		name   string
		file   string
		size   int
		warmup int
	}{
		{"18B", "small.txt", len(small), 2000},
		{"1MB", "big.txt", 1 << 20, 30},
	} {
		req := request(tc.file)
		check := func(resp []byte) {
			if len(resp) < tc.size || bytes.Contains(resp, []byte(`"isError":true`)) || !bytes.Contains(resp, []byte(`"id":7`)) {
				b.Fatalf("response %.300s", resp)
			}
		}
		// Node compiles the server's hot paths as it runs: warm both up.
		for range tc.warmup {
			check(straight.roundTrip(b, req))
			check(through.roundTrip(b, req))
		}
		// Through the proxy, the server's answer is the same bytes.
		if d, p := straight.roundTrip(b, req), through.roundTrip(b, req); !bytes.Equal(d, p) {
			b.Fatalf("the proxy changed the answer:\ndirect %.200s\nproxy  %.200s", d, p)
		}
		b.Run(tc.name, func(b *testing.B) {
			timed := func(h *pipeHost) time.Duration {
				start := time.Now()
				check(h.roundTrip(b, req))
				return time.Since(start)
			}
			var d, p []time.Duration
			for i := 0; b.Loop(); i++ {
				// Each goes first in turn, so neither always follows the other.
				if i%2 == 0 {
					d, p = append(d, timed(straight)), append(p, timed(through))
				} else {
					p, d = append(p, timed(through)), append(d, timed(straight))
				}
			}
			md, mp := median(d), median(p)
			b.ReportMetric(float64(md.Microseconds()), "direct-µs")
			b.ReportMetric(float64(mp.Microseconds()), "proxy-µs")
			b.ReportMetric(100*float64(mp-md)/float64(md), "overhead-%")
		})
	}
}
