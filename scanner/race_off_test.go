//go:build !race

package scanner

const raceOn = false
