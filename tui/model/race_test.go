//go:build race

package model_test

// raceEnabled is set when the tests run under the race detector, which
// makes folding the largest recordings too slow to be worth it there.
const raceEnabled = true
