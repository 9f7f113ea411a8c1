package realpath

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkResolve is what resolving one existing file four directories
// deep costs: the kernel's walk (an O_PATH open, a readlink of its
// /proc/self/fd entry, a close). Compare with BenchmarkSyscall in one run:
// the three system calls are nearly all of it.
func BenchmarkResolve(b *testing.B) {
	file := benchFile(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Resolve(file); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSyscall is one system call that does nearly nothing (an
// lstat of the same file): the unit BenchmarkResolve's cost is counted in.
func BenchmarkSyscall(b *testing.B) {
	file := benchFile(b)
	var st unix.Stat_t
	for b.Loop() {
		if err := unix.Lstat(file, &st); err != nil {
			b.Fatal(err)
		}
	}
}

func benchFile(b *testing.B) string {
	top, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(top, "srv", "projects", "p4")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		b.Fatal(err)
	}
	return file
}
