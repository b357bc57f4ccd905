package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"

	"github.com/reactorviz/reactorviz/web"
)

func cmdWeb(e *env, args []string) error {
	f := newFlags("web", "", "Serve reactorviz in the browser: the replay screens and keys, built for\n"+
		"WebAssembly, with every built-in recording and a file picker for traces\n"+
		"recorded with 'run --trace'. A link names a recording and a moment:\n"+
		"URL#spurious-wakeup@16.2s. With --out, write the same files as a static site\n"+
		"(docs/web.md says how to publish it).")
	port := f.Int("port", 8080, "the port to listen on (0: any free port)")
	host := f.String("host", "127.0.0.1", "the address to listen on; the default serves this machine only")
	out := f.String("out", "", "write the site into this directory instead of serving it")
	if _, err := f.parse(e, args, 0, 0); err != nil {
		return err
	}
	if *port < 0 || *port > 65535 {
		return usageErr("web: --port %d: want 0 to 65535", *port)
	}
	site, err := web.Open(e.stderr)
	if err != nil {
		return runtimeErr(err)
	}
	if *out != "" {
		if err := site.WriteTo(*out); err != nil {
			return runtimeErr(err)
		}
		fmt.Fprintf(e.stdout, "wrote the site to %s (%d files; the program is main.wasm, %.1f MiB gzipped as main.wasm.gz)\n",
			*out, len(site.Names())+1, float64(site.WasmGzipSize())/(1<<20))
		return nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return serveSite(ctx, e, site, net.JoinHostPort(*host, strconv.Itoa(*port)))
}

// serveSite serves the site on addr until ctx ends, printing its URL.
func serveSite(ctx context.Context, e *env, site *web.Site, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return runtimeErr(fmt.Errorf("web: %w (choose another with --port, or --port 0)", err))
	}
	fmt.Fprintf(e.stdout, "reactorviz in the browser: http://%s/  (Ctrl-C stops)\n", urlHost(ln.Addr()))
	if err := site.Serve(ctx, ln); err != nil {
		return runtimeErr(err)
	}
	return nil
}

// urlHost is the listener's address as a URL host: an unspecified address
// (--host 0.0.0.0) is reached through loopback on this machine.
func urlHost(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	ip := ta.IP
	if ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(ta.Port))
}
