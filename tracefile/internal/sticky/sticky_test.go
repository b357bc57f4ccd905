package sticky

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) - 1, nil }

func TestWrite(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, []byte("a"), nil); err != nil || b.String() != "a" {
		t.Fatalf("Write = %v, wrote %q", err, b.String())
	}
	earlier := errors.New("disk full")
	if err := Write(&b, []byte("b"), earlier); err != earlier || b.String() != "a" {
		t.Errorf("after an error: Write = %v, wrote %q", err, b.String())
	}
	if err := Write(shortWriter{}, []byte("ab"), nil); err != io.ErrShortWrite {
		t.Errorf("short write: Write = %v, want io.ErrShortWrite", err)
	}
}
