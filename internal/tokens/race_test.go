//go:build race

package tokens

// raceEnabled: the race detector makes the encoder some ten times slower.
const raceEnabled = true
