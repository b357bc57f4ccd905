// Command gensite writes the browser build's generated files into
// web/site, to be embedded: go generate ./web.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/reactorviz/reactorviz/web/internal/sitebuild"
)

func main() {
	// go generate runs in the package's directory, web/.
	root, err := filepath.Abs("..")
	if err == nil {
		err = sitebuild.Build(root, "site", os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensite:", err)
		os.Exit(1)
	}
}
