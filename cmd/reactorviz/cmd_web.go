package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/reactorviz/reactorviz/internal/safetext"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/sim/remote"
	"github.com/reactorviz/reactorviz/tui"
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
	outGiven := false
	f.Visit(func(fl *flag.Flag) { outGiven = outGiven || fl.Name == "out" })
	if outGiven && *out == "" {
		// An empty --out is a mistake (an unset variable, say), not a
		// request to serve.
		return usageErr("web: --out \"\": want a directory to write the site into")
	}
	site, err := web.Open(e.stderr)
	if err != nil {
		return runtimeErr(err)
	}
	if outGiven {
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

// webFlags are --web and where to serve it, for run and serve: the live
// run shown in the browser instead of the terminal.
type webFlags struct {
	on   bool
	host string
	port int
}

func (w *webFlags) register(f *flags, port int) {
	f.BoolVar(&w.on, "web", false, "show the run in the browser instead of the terminal: serve the page and the live run's\nevents over a WebSocket (on 127.0.0.1 unless --web-host says otherwise), print the URL")
	f.StringVar(&w.host, "web-host", "127.0.0.1", "with --web: the address to serve the page on")
	f.IntVar(&w.port, "web-port", port, "with --web: the port to serve the page on (0: any free port)")
}

// liveInBrowser serves the page with a live run of sc on it until SIGINT
// or SIGTERM: each page that opens URL#live runs it, and its restarts run
// it again, in this process, on the engine (sim/remote). The last run's
// summary is printed at the end.
func liveInBrowser(e *env, wf webFlags, sc *scenarios.Scenario, opts sim.Options, paused, serving bool) error {
	if wf.port < 0 || wf.port > 65535 {
		return usageErr("--web-port %d: want 0 to 65535", wf.port)
	}
	if !isLoopback(wf.host) {
		// The page drives the engine (it starts, pauses and stops runs):
		// it is served to this machine only.
		return usageErr("--web-host %s: a live run is shown on a loopback address only", wf.host)
	}
	site, err := web.Open(e.stderr)
	if err != nil {
		return runtimeErr(err)
	}
	host := remote.NewHost(func(w io.Writer) (*sim.Run, error) {
		o := opts
		o.TraceTo = w
		return tui.LiveRun(sc, o)
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", net.JoinHostPort(wf.host, strconv.Itoa(wf.port)))
	if err != nil {
		return runtimeErr(fmt.Errorf("--web: %w (choose another with --web-port, or --web-port 0)", err))
	}
	// The fragment tells the page it shows a live run, and how: the
	// options the terminal's live screen takes from the command line.
	frag := "#live"
	if paused {
		frag += ",paused"
	}
	if serving {
		frag += ",serve"
	}
	fmt.Fprintf(e.stdout, "%s live in the browser: http://%s/%s  (Ctrl-C stops)\n", safetext.Line(sc.Name), urlHost(ln.Addr()), frag)
	err = site.ServeLive(ctx, ln, func(ctx context.Context, c *web.WSConn) error {
		err := host.Serve(ctx, c)
		if errors.Is(err, remote.ErrFellBehind) {
			fmt.Fprintf(e.stderr, "the page was cut off: %v\n", err)
		}
		return err
	})
	if s := host.LastSummary(); s != nil {
		fmt.Fprint(e.stdout, s.Text())
	}
	return uiErr(err)
}
