// Command httppost times Claude Code's http hook path against a process start: it POSTs a
// hook payload to mbguard watch n times (a new connection each, as a client that keeps none
// alive), and, interleaved with those, starts the baseline program n times with the same
// payload on stdin. It prints the median of each and their ratio (http / start).
//
//	httppost -n 200 -exec ./hello http://127.0.0.1:PORT/hook/claude payload.json
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"time"
)

func main() {
	n := flag.Int("n", 100, "requests and starts to time")
	baseline := flag.String("exec", "", "the `program` to start as the baseline")
	flag.Parse()
	if flag.NArg() != 2 || *baseline == "" {
		fmt.Fprintln(os.Stderr, "usage: httppost -n N -exec PROGRAM URL PAYLOAD")
		os.Exit(2)
	}
	url, payload := flag.Arg(0), flag.Arg(1)
	body, err := os.ReadFile(payload)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	post := func() time.Duration {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Mbguard-Hook", "claude")
		t := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		d := time.Since(t)
		if resp.StatusCode != http.StatusOK {
			fmt.Fprintln(os.Stderr, "status", resp.Status)
			os.Exit(1)
		}
		return d
	}
	start := func() time.Duration {
		cmd := exec.Command(*baseline)
		cmd.Stdin = bytes.NewReader(body)
		t := time.Now()
		_ = cmd.Run()
		return time.Since(t)
	}
	post() // warm both
	start()
	var hs, ss []time.Duration
	for range *n {
		hs = append(hs, post())
		ss = append(ss, start())
	}
	h, s := median(hs), median(ss)
	fmt.Printf("%.2f %.4fs %.4fs\n", float64(h)/float64(s), h.Seconds(), s.Seconds())
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
