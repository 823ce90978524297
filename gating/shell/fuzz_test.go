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
	for _, cmd := range rootCauseSeeds {
		f.Add(cmd)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		start := time.Now()
		r := classify(cmd, "/repo", nil)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("classify took %v for %d bytes", d, len(cmd))
		}
		if again := classify(cmd, "/repo", nil); !reflect.DeepEqual(r, again) {
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

// rootCauseSeeds are one command per root cause of issue 8 §3 (the full tables
// are in gating's rootcause_test.go).
var rootCauseSeeds = []string{
	// what a command carries, shows or reads by a run-time word (hooks' secretRefusal)
	"cp -t /tmp memory-bank/a.md && tar -C memory-bank -czf /tmp/b.tgz details",
	"git show :2:memory-bank/a.md HEAD:: && git cat-file -p : && git log -p -- . ':!memory-bank'",
	"curl -F 'f=@memory-bank/a.md;type=x' -d @ -T '' file://",
	"for f in a b; do for g in $f/*; do for h in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do cat $f $g $h; done; done; done",
	`for f; do cat "$f"; done; for x in $(ls); do awk -f "$x"; done`,
	"git checkout -- ':/'",
	"git -c alias.x='!rm -rf memory-bank' x",
	"git --work-tree=memory-bank checkout HEAD -- .",
	"flock /tmp/l rm memory-bank/MEMORY.md",
	"script -qc 'rm memory-bank/MEMORY.md' /dev/null",
	"sqlite3 /tmp/db '.output memory-bank/x.json' 'select 1'",
	"python3 -m zipfile -c memory-bank/x.zip src",
	"tar --remove-files -czf /tmp/b.tgz memory-bank",
	"iconv -f utf-8 -t ascii -o memory-bank/MEMORY.md README.md",
	"trap 'rm memory-bank/MEMORY.md' EXIT",
	"source <(echo 'rm memory-bank/MEMORY.md')",
	"mapfile -C 'rm memory-bank/MEMORY.md #' -c 1 < /etc/hosts",
	"shopt -s expand_aliases; alias ls='rm memory-bank/MEMORY.md'; ls",
	`awk '{print > FILENAME}' memory-bank/MEMORY.md`,
	"sed 's/a/b/w memory-bank/x.json' src/app.ts",
	"vim -c 'w! memory-bank/x.json' -c q src/app.ts",
	`rm $'memory-ban\x6b/MEMORY.md'`,
	"shopt -s nocaseglob; rm MEMORY-BANK/*.md",
	"export CDPATH=/repo/memory-bank; cd details && rm tech.md",
	"x=memory; rm -rf ${x}-bank",
	"exec 3<memory-bank/MEMORY.md; cp /tmp/x /dev/fd/3",
	"ln -s memory-bank x; rm x/MEMORY.md",
	`python3 -c "open('memory-' + 'bank/x.json','w')"`,
	`node -e "require('fs').openSync('memory-bank/MEMORY.md','w')"`,
	"fd . memory-bank -x rm",
}
