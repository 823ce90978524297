// Command inittrace runs a program n times with GODEBUG=inittrace=1 and prints the median
// total package-initialisation time per start and the packages (grouped by module) that cost
// the most, by their median: where a hook's start-up goes before main runs.
//
//	inittrace -n 30 -stdin payload.json -top 8 -- ./mbguard hook claude
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

func main() {
	n := flag.Int("n", 30, "runs")
	stdin := flag.String("stdin", "", "file to feed on stdin")
	top := flag.Int("top", 8, "how many modules to list")
	dir := flag.String("dir", "", "working directory")
	byPkg := flag.Bool("pkg", false, "group by package instead of module")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: inittrace [-n N] [-stdin FILE] [-top K] -- program args...")
		os.Exit(2)
	}
	var in []byte
	if *stdin != "" {
		b, err := os.ReadFile(*stdin)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		in = b
	}
	var totals []float64
	perMod := map[string][]float64{}
	for i := 0; i < *n; i++ {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = *dir
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		cmd.Stdin = bytes.NewReader(in)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		_ = cmd.Run() // a hook may exit non-zero; its init still ran
		total := 0.0
		mods := map[string]float64{}
		sc := bufio.NewScanner(&errb)
		for sc.Scan() {
			// init github.com/x/y @0.4 ms, 0.011 ms clock, 0 bytes, 0 allocs
			f := strings.Fields(sc.Text())
			if len(f) < 5 || f[0] != "init" {
				continue
			}
			ms, err := strconv.ParseFloat(f[4], 64)
			if err != nil {
				continue
			}
			total += ms
			key := module(f[1])
			if *byPkg {
				key = strings.ReplaceAll(f[1], "%2e", ".")
			}
			mods[key] += ms
		}
		totals = append(totals, total)
		for m, ms := range mods {
			perMod[m] = append(perMod[m], ms)
		}
	}
	type row struct {
		mod string
		med float64
	}
	var rows []row
	for m, v := range perMod {
		for len(v) < *n {
			v = append(v, 0)
		}
		rows = append(rows, row{m, median(v)})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].med > rows[j].med })
	fmt.Printf("  package init, median of %d starts: %.2f ms; costliest (median ms):", *n, median(totals))
	for i := 0; i < len(rows) && i < *top; i++ {
		fmt.Printf(" %s %.2f", rows[i].mod, rows[i].med)
		if i+1 < len(rows) && i+1 < *top {
			fmt.Print(",")
		}
	}
	fmt.Println()
}

// module groups a package path by its module-ish root: the standard library as "std",
// github.com/a/b/... as github.com/a/b.
func module(pkg string) string {
	pkg = strings.ReplaceAll(pkg, "%2e", ".")
	parts := strings.Split(pkg, "/")
	if !strings.Contains(parts[0], ".") {
		return "std"
	}
	if len(parts) >= 3 {
		return strings.Join(parts[:3], "/")
	}
	return pkg
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
