//go:build race

package jobrun_test

// raceDetector: the tests run under the race detector, ten times slower;
// a test that shows the same thing several ways shows it once.
const raceDetector = true
