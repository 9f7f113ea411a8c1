// Package layout holds the repository's checks of its own shape, run with
// the tests: docs/layout.md names every package, and every import runs
// down the layers that page draws. It has no code of its own; its tests
// read `go list` and the page.
package layout
