package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/httpx"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// simFlags are the options of `fullsend sim`.
type simFlags struct {
	addr      string
	seed      string
	searchLag time.Duration
	selected  map[string]*bool
}

// simBackend is one emulator `fullsend sim` can serve. To add another,
// append an entry to simBackends: its flag is --<name>.
type simBackend struct {
	name  string
	usage string
	build func(app *App, f *simFlags) (http.Handler, error)
}

var simBackends = []simBackend{
	{"jira", "serve the Jira Cloud emulator", buildJiraSim},
	{"github", "serve the GitHub REST emulator", func(*App, *simFlags) (http.Handler, error) {
		return githubsim.New(githubsim.Options{}).Handler(), nil
	}},
	{"gitlab", "serve the GitLab REST emulator", func(*App, *simFlags) (http.Handler, error) {
		return gitlabsim.New(gitlabsim.Options{}).Handler(), nil
	}},
}

// newSimCmd builds `fullsend sim`: it serves the selected emulators (all
// when none is selected) on loopback until interrupted, printing one
// "NAME BASE_URL" line per emulator on stdout.
func newSimCmd(app *App, runF func(context.Context, *simFlags) error) *cobra.Command {
	f := &simFlags{selected: map[string]*bool{}}
	if runF == nil {
		runF = app.runSim
	}
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Serve local API emulators (Jira, GitHub, GitLab) on loopback until interrupted",
		Long: "Serve local API emulators on loopback until SIGINT or SIGTERM.\n" +
			"With a fixed --addr port, the emulators use consecutive ports in flag order.\n" +
			"--seed loads a Jira world from a JSON file (see docs/jira.md).",
		Example: `  fullsend sim
  fullsend sim --seed examples/sim/seed.yaml
  fullsend sim --jira --addr 127.0.0.1:18080 --seed examples/rehearsal/seed.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runF(ctx, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "addr", "127.0.0.1:0", "loopback host:port to listen on (port 0 picks free ports)")
	fl.StringVar(&f.seed, "seed", "", "JSON file with the Jira emulator's initial world")
	fl.DurationVar(&f.searchLag, "jira-search-lag", 0, "delay before Jira search sees writes (eventual consistency)")
	for _, b := range simBackends {
		f.selected[b.name] = fl.Bool(b.name, false, b.usage)
	}
	return cmd
}

func buildJiraSim(app *App, f *simFlags) (http.Handler, error) {
	s := jirasim.New(jirasim.Options{SearchLag: f.searchLag})
	if f.seed == "" {
		return s.Handler(), nil
	}
	file, err := os.Open(f.seed)
	if err != nil {
		return nil, UserError(fmt.Errorf("--seed: %v", err))
	}
	defer file.Close()
	sd, err := jirasim.ParseSeed(file)
	if err != nil {
		return nil, UserError(fmt.Errorf("--seed %s: %v", f.seed, err))
	}
	keys, err := s.ApplySeed(sd)
	if err != nil {
		return nil, UserError(fmt.Errorf("--seed %s: %v", f.seed, err))
	}
	app.Log.Info("jira emulator seeded", "file", f.seed, "issues", len(keys))
	return s.Handler(), nil
}

func (app *App) runSim(ctx context.Context, f *simFlags) error {
	host, portText, err := net.SplitHostPort(f.addr)
	if err != nil {
		return UserError(fmt.Errorf("--addr %q: want host:port", f.addr))
	}
	if !httpx.IsLoopback(host) {
		return UserError(fmt.Errorf("--addr %q: emulators listen on loopback only (127.0.0.1, ::1 or localhost)", f.addr))
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return UserError(fmt.Errorf("--addr %q: invalid port", f.addr))
	}
	var chosen []simBackend
	for _, b := range simBackends {
		if *f.selected[b.name] {
			chosen = append(chosen, b)
		}
	}
	if len(chosen) == 0 {
		chosen = simBackends
	}
	if f.seed != "" && !*f.selected["jira"] && len(chosen) != len(simBackends) {
		return UserError(errors.New("--seed applies to the Jira emulator; add --jira"))
	}
	if port != 0 && port+len(chosen)-1 > 65535 {
		return UserError(fmt.Errorf("--addr %q: %d emulators need ports %d to %d; pick a lower port", f.addr, len(chosen), port, port+len(chosen)-1))
	}
	var servers []*http.Server
	defer func() {
		for _, s := range servers {
			s.Close()
		}
	}()
	errc := make(chan error, len(chosen))
	for i, b := range chosen {
		h, err := b.build(app, f)
		if err != nil {
			return err
		}
		p := port
		if port != 0 {
			p = port + i
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p)))
		if err != nil {
			return fmt.Errorf("%s emulator: %w", b.name, err)
		}
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		servers = append(servers, srv)
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
		fmt.Fprintf(app.Stdout, "%s http://%s\n", b.name, ln.Addr())
	}
	app.Log.Info("emulators running; interrupt to stop", "count", len(chosen))
	select {
	case <-ctx.Done():
		return nil
	case err := <-errc:
		return fmt.Errorf("emulator stopped: %w", err)
	}
}
