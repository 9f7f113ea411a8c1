//go:build !unix

package approvals

// gone: where a process cannot be looked up, a proxy is never known gone;
// its question goes stale instead (StaleAfter).
func (a Asker) gone() bool { return false }
