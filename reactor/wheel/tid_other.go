//go:build !linux

package wheel

// gettid has no thread id to give where the live engine does not run (the
// wheel serves only that engine); 0 is the id no wheel thread records.
func gettid() int { return 0 }
