package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/httpx"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
	"github.com/fullsend-dev/fullsend/sim/simseed"
)

// simFlags are the options of `fullsend sim`.
type simFlags struct {
	addr      string
	seed      string
	searchLag time.Duration
	selected  map[string]*bool
}

// simBackend is one emulator `fullsend sim` can serve. To add another,
// append an entry to simBackends: its flag is --<name>. build makes the
// handler from the seed (nil without --seed); env is what a client
// exports to reach it at base.
type simBackend struct {
	name  string
	usage string
	build func(app *App, f *simFlags, sd *simseed.File) (http.Handler, error)
	env   func(base string, sd *simseed.File) []string
	// seeded reports whether the seed has a section for this emulator.
	seeded func(sd *simseed.File) bool
}

var simBackends = []simBackend{
	{"jira", "serve the Jira Cloud emulator", buildJiraSim, jiraEnv, func(sd *simseed.File) bool { return sd.Jira != nil }},
	{"github", "serve the GitHub REST emulator", func(_ *App, _ *simFlags, sd *simseed.File) (http.Handler, error) {
		s, err := sd.NewGitHub()
		if err != nil {
			return nil, UserError(fmt.Errorf("--seed: %v", err))
		}
		return s.Handler(), nil
	}, func(base string, sd *simseed.File) []string {
		return []string{"GITHUB_API_URL=" + base + "/", "GITHUB_TOKEN=" + sd.GitHubToken()}
	}, func(sd *simseed.File) bool { return sd.GitHub != nil }},
	{"gitlab", "serve the GitLab REST emulator", func(_ *App, _ *simFlags, sd *simseed.File) (http.Handler, error) {
		return gitlabsim.New(sd.GitLabOptions()).Handler(), nil
	}, func(base string, sd *simseed.File) []string {
		return []string{"GITLAB_API_URL=" + base + "/api/v4", "GITLAB_TOKEN=" + sd.GitLabToken()}
	}, func(sd *simseed.File) bool { return sd.GitLab != nil }},
}

func jiraEnv(base string, sd *simseed.File) []string {
	email, token := sd.JiraCredentials()
	return []string{"JIRA_BASE_URL=" + base, "JIRA_USER_EMAIL=" + email, "JIRA_TOKEN=" + token}
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
			"--seed loads the starting world of every emulator from one YAML or JSON file\n" +
			"(docs/simulators.md; example: examples/sim/seed.yaml). Prints one NAME URL line\n" +
			"per emulator, then one `export ...` line with the environment to point fullsend at them.",
		Example: `  fullsend sim
  fullsend sim --seed examples/sim/seed.yaml
  fullsend sim --jira --addr 127.0.0.1:18080 --seed examples/rehearsal/seed.json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runF(ctx, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "addr", "127.0.0.1:0", "loopback host:port to listen on (port 0 picks free ports)")
	fl.StringVar(&f.seed, "seed", "", "YAML/JSON file with the emulators' initial world and tokens (docs/simulators.md)")
	fl.DurationVar(&f.searchLag, "jira-search-lag", 0, "delay before Jira search sees writes (eventual consistency)")
	for _, b := range simBackends {
		f.selected[b.name] = fl.Bool(b.name, false, b.usage)
	}
	return cmd
}

func buildJiraSim(app *App, f *simFlags, sd *simseed.File) (http.Handler, error) {
	s := jirasim.New(sd.JiraOptions(jirasim.Options{SearchLag: f.searchLag}))
	keys, err := sd.ApplyJira(s)
	if err != nil {
		return nil, UserError(fmt.Errorf("--seed %s: %v", f.seed, err))
	}
	if f.seed != "" {
		app.Log.Info("jira emulator seeded", "file", f.seed, "issues", len(keys))
	}
	return s.Handler(), nil
}

// readSeed parses --seed; without it every emulator starts empty.
func readSeed(path string) (*simseed.File, error) {
	if path == "" {
		return &simseed.File{}, nil
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, UserError(fmt.Errorf("--seed: %v", err))
	}
	defer file.Close()
	sd, err := simseed.Parse(file)
	if err != nil {
		return nil, UserError(fmt.Errorf("--seed %s: %v", path, err))
	}
	return sd, nil
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
	sd, err := readSeed(f.seed)
	if err != nil {
		return err
	}
	for _, b := range simBackends {
		if b.seeded(sd) && !slices.ContainsFunc(chosen, func(c simBackend) bool { return c.name == b.name }) {
			return UserError(fmt.Errorf("--seed %s has a %s section; add --%s", f.seed, b.name, b.name))
		}
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
	exports := []string{}
	for i, b := range chosen {
		h, err := b.build(app, f, sd)
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
		base := "http://" + ln.Addr().String()
		fmt.Fprintf(app.Stdout, "%s %s\n", b.name, base)
		exports = append(exports, b.env(base, sd)...)
	}
	fmt.Fprintf(app.Stdout, "export %s\n", strings.Join(exports, " "))
	app.Log.Info("emulators running; interrupt to stop", "count", len(chosen))
	select {
	case <-ctx.Done():
		return nil
	case err := <-errc:
		return fmt.Errorf("emulator stopped: %w", err)
	}
}
