//go:build !unix

package web

// oNoFollow: where there is no O_NOFOLLOW, the Lstat before the open is
// the check.
const oNoFollow = 0
