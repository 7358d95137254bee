//go:build race

package toolcall

// raceSlowdown scales time limits for the race detector, which slows
// reading by up to ten times.
const raceSlowdown = 10
