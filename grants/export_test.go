package grants

import "time"

// SetRename replaces the rename step of Save, so a test can interrupt a Save
// at its last moment; the returned func restores it.
func SetRename(f func(oldpath, newpath string) error) (restore func()) {
	old := rename
	rename = f
	return func() { rename = old }
}

// SetNow replaces the store's clock, so a test can let a grant expire;
// the returned func restores it.
func SetNow(f func() time.Time) (restore func()) {
	old := now
	now = f
	return func() { now = old }
}

// ParsePins is the pins file reader, for its fuzz target.
var ParsePins = parsePins
