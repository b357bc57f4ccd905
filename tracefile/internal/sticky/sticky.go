// Package sticky holds the write step the trace file writers share. They
// buffer whole lines and keep the first write error: after a failure
// nothing more is written, so a full disk cuts a file once, at a buffer
// boundary, rather than leaving stray lines after a gap.
package sticky

import "io"

// Write writes buf to w unless err, an earlier write's error, is set, and
// returns the error to keep: err if set, else this write's, a short write
// counting as io.ErrShortWrite.
func Write(w io.Writer, buf []byte, err error) error {
	if err != nil || len(buf) == 0 {
		return err
	}
	n, err := w.Write(buf)
	if err == nil && n < len(buf) {
		err = io.ErrShortWrite
	}
	return err
}
