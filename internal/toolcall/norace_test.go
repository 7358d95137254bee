//go:build !race

package toolcall

// raceSlowdown scales time limits for the race detector, which is off.
const raceSlowdown = 1
