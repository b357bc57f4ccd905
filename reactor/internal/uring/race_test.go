//go:build race

package uring

const raceEnabled = true
