// Command dashboardpng draws docs/img/dashboard.png: it plays the
// emulator scenario (package scenario), evaluates every panel of the
// Grafana dashboard over the scraped samples and draws them (package
// render). scripts/render-dashboard.sh runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"image/png"
	"os"
	"time"

	"github.com/fullsend-dev/fullsend/deploy/grafana/dashboard"
	"github.com/fullsend-dev/fullsend/deploy/grafana/render"
	"github.com/fullsend-dev/fullsend/deploy/grafana/scenario"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "dashboardpng:", err)
		os.Exit(1)
	}
}

func run() error {
	file := flag.String("dashboard", "grafana/fullsend.json", "the Grafana dashboard JSON")
	out := flag.String("out", "../docs/img/dashboard.png", "the PNG to write")
	minutes := flag.Int("minutes", 60, "simulated minutes")
	seed := flag.Uint64("seed", 1, "the scenario's seed")
	flag.Parse()
	d, err := dashboard.Load(*file)
	if err != nil {
		return err
	}
	samples, err := scenario.Run(context.Background(), scenario.Options{Minutes: *minutes, Seed: *seed})
	if err != nil {
		return err
	}
	panels, err := render.Evaluate(d, samples, 2*time.Minute)
	if err != nil {
		return err
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(f, render.Draw(d, panels)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
