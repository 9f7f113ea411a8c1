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
	"strconv"
	"strings"
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
// of each and the proxy's overhead in percent of the direct round trip;
// and, measured in the same loop, the overhead of a process that does
// nothing but copy bytes both ways (io.Copy): the part of the proxy's cost
// that is being a process between two pipes at all.
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
	// The floor: a process that only copies bytes both ways between the
	// host and the server. What it costs, any proxy process costs.
	relay := startPipeHost(b, append([]string{relayBinary(b)}, server...))

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
		// Node compiles the server's hot paths as it runs: warm them up.
		for range tc.warmup {
			check(straight.roundTrip(b, req))
			check(through.roundTrip(b, req))
			check(relay.roundTrip(b, req))
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
			hosts := []*pipeHost{straight, through, relay}
			times := make([][]time.Duration, len(hosts))
			proxyCPU, relayCPU := cpuTime(b, through), cpuTime(b, relay)
			calls := 0
			for i := 0; b.Loop(); i++ {
				// Each goes first in turn, so none always follows another.
				for j := range hosts {
					k := (i + j) % len(hosts)
					times[k] = append(times[k], timed(hosts[k]))
				}
				calls++
			}
			proxyCPU, relayCPU = cpuTime(b, through)-proxyCPU, cpuTime(b, relay)-relayCPU
			md, mp, mr := median(times[0]), median(times[1]), median(times[2])
			b.ReportMetric(float64(md.Microseconds()), "direct-µs")
			b.ReportMetric(float64(mp.Microseconds()), "proxy-µs")
			b.ReportMetric(100*float64(mp-md)/float64(md), "overhead-%")
			b.ReportMetric(100*float64(mr-md)/float64(md), "copy-relay-overhead-%")
			// The machine's noise moves wall times; the CPU a process
			// spends per call, in the same run, is what the proxy costs.
			b.ReportMetric(float64(proxyCPU.Microseconds())/float64(calls), "proxy-cpu-µs/call")
			b.ReportMetric(float64(relayCPU.Microseconds())/float64(calls), "relay-cpu-µs/call")
			if relayCPU > 0 {
				b.ReportMetric(float64(proxyCPU)/float64(relayCPU), "cpu-ratio")
			}
		})
	}
}

// cpuTime is the CPU time h's process (not its server) has used, user and
// system, from /proc (Linux; in clock ticks of 10 ms: a run of thousands
// of calls makes that fine enough).
func cpuTime(b *testing.B, h *pipeHost) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", h.cmd.Process.Pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	// The fields after the command's name, which is in parentheses and
	// may hold spaces: state is the first; utime and stime the 12th and
	// 13th.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: %s", h.cmd.Process.Pid, data)
	}
	const tick = 10 * time.Millisecond // USER_HZ, 100 on Linux
	return time.Duration(utime+stime) * tick
}

// copyRelay is the floor of BenchmarkProxyRoundTrip: a process between
// host and server that copies bytes both ways and does nothing else.
const copyRelay = `package main

import (
	"io"
	"os"
	"os/exec"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		os.Exit(1)
	}
	go func() { _, _ = io.Copy(in, os.Stdin); in.Close() }()
	_, _ = io.Copy(os.Stdout, out)
	_ = cmd.Wait()
}
`

// relayBinary builds copyRelay.
func relayBinary(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(copyRelay), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module relay\n\ngo 1.26\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", "relay", ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building the copy relay: %v\n%s", err, out)
	}
	return filepath.Join(dir, "relay")
}

// BenchmarkProxyConcurrent: allowed read_text_file calls of an 18-byte
// file with 1, 2, 8 and 64 in flight at once (the host keeps that many
// requests, with distinct ids, written and not yet answered), straight to
// the official filesystem server, through mcp-policy proxy, and through
// the copy relay, each in turn. It reports each one's calls per second.
// The server (one node process) bounds them all; the proxy's calls per
// second staying with the relay's as calls are added shows that no lock
// of the proxy's serialises allowed calls. internal/proxy's
// BenchmarkConcurrent measures the proxy alone, with -mutexprofile.
//
//	npm ci --prefix test/npm && go test ./test/e2e/ -run '^$' -bench ProxyConcurrent -benchtime 2000x
func BenchmarkProxyConcurrent(b *testing.B) {
	node, entry := needOfficialFS(b)
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "small.txt"), []byte("eighteen bytes. :)"), 0o644); err != nil {
		b.Fatal(err)
	}
	server := []string{node, entry, dir}
	hosts := []*pipeHost{
		startPipeHost(b, server),
		startPipeHost(b, append([]string{proxyBinary(b), "proxy", "--"}, server...)),
		startPipeHost(b, append([]string{relayBinary(b)}, server...)),
	}
	path, _ := json.Marshal(filepath.Join(dir, "small.txt"))
	request := func(id int) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":` + string(path) + `}}}` + "\n")
	}
	// run has h answer n calls with inFlight open at once, and returns
	// how long they took.
	run := func(b *testing.B, h *pipeHost, n, inFlight int) time.Duration {
		tokens := make(chan struct{}, inFlight)
		for range inFlight {
			tokens <- struct{}{}
		}
		start := time.Now()
		writeErr := make(chan error, 1)
		go func() {
			for i := range n {
				<-tokens
				if _, err := h.in.Write(request(i)); err != nil {
					writeErr <- err
					return
				}
			}
			writeErr <- nil
		}()
		for range n {
			line, err := h.out.ReadBytes('\n')
			if err != nil || bytes.Contains(line, []byte(`"isError":true`)) || !bytes.Contains(line, []byte("eighteen bytes")) {
				b.Fatalf("answer %.300s (%v)", line, err)
			}
			tokens <- struct{}{}
		}
		elapsed := time.Since(start)
		if err := <-writeErr; err != nil {
			b.Fatal(err)
		}
		return elapsed
	}
	for _, h := range hosts {
		run(b, h, 2000, 8) // node compiles its hot paths as it runs
	}
	for _, inFlight := range []int{1, 2, 8, 64} {
		b.Run(fmt.Sprintf("inflight=%d", inFlight), func(b *testing.B) {
			var took [3]time.Duration
			// In turn, in slices, so that a slow moment of the machine's
			// falls on all three.
			for done := 0; done < b.N; {
				n := min(200, b.N-done)
				for k, h := range hosts {
					took[k] += run(b, h, n, inFlight)
				}
				done += n
			}
			perSecond := func(d time.Duration) float64 { return float64(b.N) / d.Seconds() }
			b.ReportMetric(perSecond(took[0]), "direct-calls/s")
			b.ReportMetric(perSecond(took[1]), "proxy-calls/s")
			b.ReportMetric(perSecond(took[2]), "relay-calls/s")
		})
	}
}

// BenchmarkProxyStartup: from starting mcp-policy proxy (--rules with 10,
// 10,000 or 100,000 rules, in front of fsserver) to the host's first
// answered call, and the proxy's resident memory then, beside the copy
// relay's start-up in front of the same server.
//
//	go test ./test/e2e/ -run '^$' -bench ProxyStartup -benchtime 5x
func BenchmarkProxyStartup(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hi"), 0o644); err != nil {
		b.Fatal(err)
	}
	first := func(b *testing.B, argv []string) (time.Duration, int64) {
		start := time.Now()
		h := startPipeHost(b, argv)
		h.roundTrip(b, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`+"\n"))
		resp := h.roundTrip(b, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fs_read","arguments":{"path":"a.txt"}}}`+"\n"))
		took := time.Since(start)
		if !bytes.Contains(resp, []byte(`"id":1`)) || bytes.Contains(resp, []byte(`"isError":true`)) {
			b.Fatalf("the first call: %s", resp)
		}
		var rss int64
		if status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", h.cmd.Process.Pid)); err == nil {
			for _, line := range strings.Split(string(status), "\n") {
				if kb, ok := strings.CutPrefix(line, "VmRSS:"); ok {
					rss, _ = strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
				}
			}
		}
		h.in.Close()
		_ = h.cmd.Wait()
		return took, rss / 1024
	}
	relay := relayBinary(b)
	for _, n := range []int{10, 10_000, 100_000} {
		rs := make([]string, n)
		for i := range rs {
			rs[i] = fmt.Sprintf(`{"tool":"fs_write","decision":"allow","under":"/srv/r%d"}`, i)
		}
		rulesFile := filepath.Join(b.TempDir(), "rules.json")
		if err := os.WriteFile(rulesFile, []byte("["+strings.Join(rs, ",\n")+"]"), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			var proxyTimes, relayTimes []time.Duration
			var rss int64
			for b.Loop() {
				t, m := first(b, []string{proxyBinary(b), "proxy", "--rules", rulesFile, "--root", "fs=" + dir, "--", fsserver, dir})
				proxyTimes, rss = append(proxyTimes, t), m
				t, _ = first(b, []string{relay, fsserver, dir})
				relayTimes = append(relayTimes, t)
			}
			b.ReportMetric(float64(median(proxyTimes).Milliseconds()), "proxy-first-answer-ms")
			b.ReportMetric(float64(median(relayTimes).Milliseconds()), "relay-first-answer-ms")
			b.ReportMetric(float64(rss), "proxy-rss-MB")
		})
	}
}
