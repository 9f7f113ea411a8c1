package grants

// SetRename replaces the rename step of Save, so a test can interrupt a Save
// at its last moment; the returned func restores it.
func SetRename(f func(oldpath, newpath string) error) (restore func()) {
	old := rename
	rename = f
	return func() { rename = old }
}
