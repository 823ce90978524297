// Command events times one binary against the hello-world baseline on several hook payloads,
// interleaved (baseline, then hook, payload after payload, round after round) so that machine
// noise hits both alike, and prints a table of medians and ratios, the worst ratio and
// whether the targets hold.
//
// Usage: events -n 60 -dir repo -hello ./hello -hook "./mbguard hook claude" -plain "PreToolUse Bash" \
//
//	"SessionStart=ss.json" "PreToolUse Bash=pre.json" ...
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

type event struct {
	name    string
	payload []byte
	hello   []time.Duration
	hook    []time.Duration
}

func main() {
	n := flag.Int("n", 60, "runs per binary and event")
	dir := flag.String("dir", ".", "working directory of every run")
	hello := flag.String("hello", "", "baseline command")
	hook := flag.String("hook", "", "hook command")
	plain := flag.String("plain", "", "comma-separated events held to the plain target")
	worstTarget := flag.Float64("worst", 3.0, "target for the worst ratio")
	plainTarget := flag.Float64("plain-target", 2.0, "target for the plain events")
	flag.Parse()
	var evs []*event
	for _, a := range flag.Args() {
		name, file, _ := strings.Cut(a, "=")
		b, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, "events:", err)
			os.Exit(2)
		}
		evs = append(evs, &event{name: name, payload: b})
	}
	run := func(cmd string, payload []byte) time.Duration {
		argv := strings.Fields(cmd)
		c := exec.Command(argv[0], argv[1:]...)
		c.Dir = *dir
		c.Stdin = bytes.NewReader(payload)
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		t0 := time.Now()
		err := c.Run()
		d := time.Since(t0)
		if err != nil && !strings.Contains(err.Error(), "exit status") {
			fmt.Fprintf(os.Stderr, "events: %s: %v\n", cmd, err)
			os.Exit(2)
		}
		return d
	}
	const warm = 3
	for i := 0; i < *n+warm; i++ {
		for _, e := range evs {
			h, k := run(*hello, e.payload), run(*hook, e.payload)
			if i >= warm {
				e.hello, e.hook = append(e.hello, h), append(e.hook, k)
			}
		}
	}
	isPlain := map[string]bool{}
	for _, p := range strings.Split(*plain, ",") {
		isPlain[strings.TrimSpace(p)] = true
	}
	fmt.Printf("| event | mbguard | hello-world | × hello-world |\n|---|---|---|---|\n")
	worst, worstName, plainWorst := 0.0, "", 0.0
	for _, e := range evs {
		h, k := median(e.hello), median(e.hook)
		r := float64(k) / float64(h)
		fmt.Printf("| %s | %.1f ms | %.1f ms | %.1f× |\n", e.name, ms(k), ms(h), r)
		if r > worst {
			worst, worstName = r, e.name
		}
		if isPlain[e.name] && r > plainWorst {
			plainWorst = r
		}
	}
	fmt.Printf("\nworst ratio: %.2f× (%s); target ≤ %.1f×: %s\n", worst, worstName, *worstTarget, verdict(worst <= *worstTarget))
	if plainWorst > 0 {
		fmt.Printf("plain PreToolUse ratio: %.2f×; target ≤ %.1f×: %s\n", plainWorst, *plainTarget, verdict(plainWorst <= *plainTarget))
	}
	fmt.Printf("medians of %d interleaved runs per binary and event (after %d warm-up rounds)\n", *n, warm)
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}
