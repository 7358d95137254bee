//go:build !race

package jobrun_test

const raceDetector = false
