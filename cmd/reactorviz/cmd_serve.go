package main

import (
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/protocol"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
)

func cmdServe(e *env, args []string) error {
	f := newFlags("serve", "", "Serve a protocol to outside clients: curl or wrk (http), redis-benchmark (resp),\nnc (echo); http+resp serves both on one port, as the peer servers do. Stops cleanly on SIGINT or SIGTERM and prints a summary.")
	o := sim.ServeOptions{}
	f.StringVar(&o.Protocol, "protocol", "http", "echo, http, resp, or http+resp (both on one port, as the peer servers)")
	f.StringVar(&o.Model, "model", "multi", "single, multi or master-slave")
	f.IntVar(&o.Bosses, "bosses", 1, "boss loops (master-slave: one SO_REUSEPORT server channel each)")
	f.IntVar(&o.Workers, "workers", 0, "worker loops (0: 2 × CPUs, as Netty)")
	f.StringVar(&o.Addr, "addr", "127.0.0.1:8080", "address to listen on")
	f.IntVar(&o.IORatio, "io-ratio", reactor.DefaultIORatio, "ioRatio of every loop, 1..100")
	f.IntVar(&o.MaxConnections, "max-conns", 10_000, "open connections allowed per server channel")
	f.StringVar(&o.Transport, "transport", "nio", "nio, epoll, or io_uring (Netty 4.2's IoUringIoHandler; exits 3 where the kernel refuses io_uring)")
	f.StringVar(&o.TracePath, "trace", "", "record every event to a JSONL trace `file`")
	allowRemote := f.Bool("allow-remote", false, "allow a non-loopback --addr")
	headless := f.Bool("headless", false, "no TUI")
	asJSON := f.Bool("json", false, "print the final summary as JSON on stdout")
	noTrace := f.Bool("no-trace", false, "emit no events at all (the default unless --trace or the TUI asks for them)")
	d := f.Duration("duration", 0, "stop after this long (0: run until SIGINT/SIGTERM)")
	var ui uiFlags
	ui.register(f)
	var wf webFlags
	wf.register(f, 8081) // serve's own port is 8080
	cpuProfile := f.String("cpuprofile", "", "write a CPU profile of the whole run to `file`, the TUI's fold and drawing included when it is open (read it with go tool pprof)")
	if _, err := f.parse(e, args, 0, 0); err != nil {
		return err
	}
	if err := checkServe(&o, *allowRemote, *noTrace); err != nil {
		return err
	}
	if *d < 0 {
		// As run refuses it: a negative duration would otherwise mean
		// "no timeout" and serve until killed.
		return usageErr("--duration %v: duration must be positive, or 0 to serve until SIGINT/SIGTERM", *d)
	}
	if err := needLive("serve"); err != nil {
		return err
	}
	if wf.on {
		if *headless || *asJSON || *cpuProfile != "" {
			return usageErr("serve: --web shows the run in the browser; --headless, --json and --cpuprofile are for a run in this terminal")
		}
		sc, opts, err := serveRun(o, *d)
		if err != nil {
			return err
		}
		return liveInBrowser(e, wf, sc, opts, ui.paused, true)
	}
	if *cpuProfile != "" {
		// With the TUI open the profile holds the UI's share too: the
		// collector's drain, the model's fold and the redraws run on the
		// server's cores, and that cost is what such a profile is for.
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return runtimeErr(err)
		}
		defer stop()
	}
	if !*headless && !*asJSON && e.stdoutTTY && serveTUI != nil {
		return serveTUI(o, *d, ui, e.stdout)
	}
	return serveHeadless(e, o, *d, *asJSON)
}

// startCPUProfile profiles the process into path until the returned func
// runs. The loops' threads are profiled like any other: a locked goroutine
// gets its own profiling timer.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// serveTUI opens the live view on a serving engine, and on quit prints the
// summary the headless serve prints to out; set by tui.go.
// serveRun is the scenario and run options of a serve with the TUI or in
// the browser: one that runs until stopped, or for d.
func serveRun(o sim.ServeOptions, d time.Duration) (*scenarios.Scenario, sim.Options, error) {
	sc, err := sim.ServeScenario(o)
	if err != nil {
		return nil, sim.Options{}, runtimeErr(err)
	}
	opts := sim.ServeRunOptions(o)
	if d > 0 {
		opts.Forever = false
		if err := setDuration(sc, d); err != nil {
			return nil, sim.Options{}, &exitError{exitUsage, err}
		}
	}
	return sc, opts, nil
}

var serveTUI func(o sim.ServeOptions, d time.Duration, ui uiFlags, out io.Writer) error

func checkServe(o *sim.ServeOptions, allowRemote, noTrace bool) error {
	switch {
	case !slices.Contains(protocol.Names, o.Protocol):
		return usageErr("serve: --protocol %q (want echo, http, resp or http+resp)", o.Protocol)
	case o.Workers < 0 || o.Workers > 256:
		return usageErr("serve: --workers %d (want 0..256)", o.Workers)
	case o.Bosses < 1 || o.Bosses > 64:
		return usageErr("serve: --bosses %d (want 1..64)", o.Bosses)
	case reactor.ValidateIORatio(o.IORatio) != nil:
		return usageErr("serve: --io-ratio %d (want 1..100)", o.IORatio)
	case !slices.Contains(sim.Transports, o.Transport):
		return usageErr("serve: --transport %q (want nio, epoll or io_uring)", o.Transport)
	case o.MaxConnections < 1:
		return usageErr("serve: --max-conns %d (want >= 1)", o.MaxConnections)
	case noTrace && o.TracePath != "":
		return usageErr("serve: --no-trace and --trace exclude each other")
	}
	if _, err := parseModels(o.Model); err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return usageErr("serve: --addr %q: %v", o.Addr, err)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return usageErr("serve: --addr %q: the port must be a number from 0 to 65535", o.Addr)
	}
	if !allowRemote && !isLoopback(host) {
		return usageErr("serve: --addr %s is not a loopback address; pass --allow-remote to serve beyond this machine", o.Addr)
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

func serveHeadless(e *env, o sim.ServeOptions, d time.Duration, asJSON bool) error {
	// Catch the signals before saying we serve, so a Ctrl-C that follows
	// the message at once still gets a graceful shutdown and a summary.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	sc, err := sim.ServeScenario(o)
	if err != nil {
		return runtimeErr(err)
	}
	run, err := sim.New(sc, sim.ServeRunOptions(o))
	if err != nil {
		return runtimeErr(err)
	}
	if err := run.Start(); err != nil {
		return runtimeErr(err)
	}
	fmt.Fprintf(e.stderr, "reactorviz: serving %s on %v (model %s); stop with Ctrl-C\n", o.Protocol, run.Addrs(), o.Model)
	var timeout <-chan time.Time
	if d > 0 {
		timeout = time.After(d)
	}
	select {
	case <-sig:
	case <-timeout:
	}
	run.Stop()
	err = run.Err()
	if asJSON {
		e.stdout.Write(run.Summary().JSON())
	} else {
		fmt.Fprint(e.stdout, run.Summary().Text())
	}
	if err != nil {
		return runtimeErr(err)
	}
	return nil
}
