//go:build !race

package rules

// raceEnabled says the tests run with the race detector, which counts
// allocations of its own (and empties sync.Pools at random).
const raceEnabled = false
