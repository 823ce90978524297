package shell

import (
	"reflect"
	"testing"
	"time"
)

// FuzzClassify checks that no input panics, that the answer is
// deterministic, and that a command is classified quickly.
func FuzzClassify(f *testing.F) {
	for _, c := range cases {
		f.Add(c.cmd)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		start := time.Now()
		r := classify(cmd, "/repo")
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("classify took %v for %d bytes", d, len(cmd))
		}
		if again := classify(cmd, "/repo"); !reflect.DeepEqual(r, again) {
			t.Errorf("not deterministic:\n%+v\n%+v", r, again)
		}
		if r.ParseError != "" && (!r.Write || !r.Unknown) {
			t.Errorf("parse error without fail-safe write: %+v", r)
		}
		if r.Unknown && !r.Write {
			t.Errorf("Unknown without Write: %+v", r)
		}
		if len(r.Writes) > 0 && !r.Write {
			t.Errorf("writes without Write: %+v", r)
		}
		for _, a := range r.Writes {
			if a.Unknown && !a.Tree && !r.Unknown {
				t.Errorf("hint write %+v without Result.Unknown", a)
			}
		}
	})
}
