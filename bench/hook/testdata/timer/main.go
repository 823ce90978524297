// Command timer runs each given binary N times with the same stdin, interleaved so machine
// noise hits all of them alike, and prints the median and mean wall time per start and the
// ratios of the last binary (mbguard) to the others.
//
// Usage: timer -n 200 -stdin payload.json -dir repo name=cmd... (the command is split on spaces)
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 200, "runs per binary")
	stdin := flag.String("stdin", "", "file fed to every run")
	dir := flag.String("dir", ".", "working directory of every run")
	flag.Parse()
	payload, err := os.ReadFile(*stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "timer:", err)
		os.Exit(2)
	}
	type bin struct {
		name string
		argv []string
		runs []time.Duration
	}
	var bins []*bin
	for _, a := range flag.Args() {
		name, cmd, _ := strings.Cut(a, "=")
		bins = append(bins, &bin{name: name, argv: strings.Fields(cmd)})
	}
	for i := 0; i < *n+5; i++ {
		for _, b := range bins {
			c := exec.Command(b.argv[0], b.argv[1:]...)
			c.Dir = *dir
			c.Stdin = bytes.NewReader(payload)
			var out bytes.Buffer
			c.Stdout, c.Stderr = &out, &out
			t0 := time.Now()
			err := c.Run()
			d := time.Since(t0)
			if err != nil && !strings.Contains(err.Error(), "exit status") {
				fmt.Fprintf(os.Stderr, "timer: %s: %v\n", b.name, err)
				os.Exit(2)
			}
			if i >= 5 { // warm-up runs are not counted
				b.runs = append(b.runs, d)
			}
		}
	}
	med := map[string]time.Duration{}
	for _, b := range bins {
		sort.Slice(b.runs, func(i, j int) bool { return b.runs[i] < b.runs[j] })
		var sum time.Duration
		for _, r := range b.runs {
			sum += r
		}
		med[b.name] = b.runs[len(b.runs)/2]
		fmt.Printf("%-28s median %7.2f ms   mean %7.2f ms   p90 %7.2f ms   (%d runs)\n", b.name,
			ms(med[b.name]), ms(sum/time.Duration(len(b.runs))), ms(b.runs[len(b.runs)*9/10]), len(b.runs))
	}
	last := bins[len(bins)-1]
	for _, b := range bins[:len(bins)-1] {
		fmt.Printf("ratio %s / %s = %.2fx  (difference %+.2f ms)\n", last.name, b.name,
			float64(med[last.name])/float64(med[b.name]), ms(med[last.name]-med[b.name]))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
