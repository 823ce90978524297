//go:build race

package engine

// raceOn makes the heaviest single-goroutine differential tests sample less under the race
// detector (10-20x slower), which has nothing to find in them; CI runs them in full without it.
const raceOn = true
