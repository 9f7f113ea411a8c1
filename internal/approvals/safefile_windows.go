//go:build windows

package approvals

import (
	"io/fs"
	"os"
)

// openFlags: Windows has no FIFOs nor O_NOFOLLOW; the regular-file check
// after opening still refuses anything but a file.
const openFlags = os.O_RDONLY

// checkOwner: a directory's owner and ACL are not checked on Windows;
// keep the grants file in a directory only you can write (your profile).
func checkOwner(string, fs.FileInfo) error { return nil }
