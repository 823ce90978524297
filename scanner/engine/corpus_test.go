package engine

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/zricethezav/gitleaks/v8/cmd/generate/config/utils"
)

// gitleaksDir is the pinned gitleaks module's directory in the module cache.
var gitleaksDir = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/zricethezav/gitleaks/v8").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m gitleaks: %w", err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", fmt.Errorf("gitleaks is not in the module cache (run go mod download)")
	}
	return dir, nil
})

// ruleSamples returns the true and false positives gitleaks' own rule definitions test
// themselves with (cmd/generate/config/rules, the `tps` and `fps` of each rule), read from the
// pinned module's source. Samples built by calling gitleaks' generators are evaluated here:
// utils' functions are called as they are; secrets.NewSecret (a random string matching a
// pattern) is replaced by sampleOf, which does the same with a fixed seed.
func ruleSamples(t testing.TB) []string {
	t.Helper()
	dir, err := gitleaksDir()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "cmd", "generate", "config", "rules", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no rule sources under %s: %v", dir, err)
	}
	sort.Strings(files)
	rnd := rand.New(rand.NewPCG(1, 2))
	var out []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ev := &evaluator{env: map[string][]string{}, rnd: rnd}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				as, ok := n.(*ast.AssignStmt)
				if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
					return true
				}
				id, ok := as.Lhs[0].(*ast.Ident)
				if !ok {
					return true
				}
				vals := ev.eval(as.Rhs[0])
				if vals != nil {
					ev.env[id.Name] = vals
				}
				if id.Name == "tps" || id.Name == "fps" {
					out = append(out, vals...)
				}
				return true
			})
		}
	}
	return out
}

// evaluator evaluates the expressions gitleaks' rule files build their samples with; nil
// means "cannot".
type evaluator struct {
	env map[string][]string
	rnd *rand.Rand
}

func (e *evaluator) one(x ast.Expr) (string, bool) {
	v := e.eval(x)
	if len(v) != 1 {
		return "", false
	}
	return v[0], true
}

func (e *evaluator) eval(x ast.Expr) []string {
	switch x := x.(type) {
	case *ast.BasicLit:
		if x.Kind == token.STRING {
			if s, err := strconv.Unquote(x.Value); err == nil {
				return []string{s}
			}
		}
	case *ast.ParenExpr:
		return e.eval(x.X)
	case *ast.Ident:
		return e.env[x.Name]
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return nil
		}
		a, ok1 := e.one(x.X)
		b, ok2 := e.one(x.Y)
		if ok1 && ok2 {
			return []string{a + b}
		}
	case *ast.CompositeLit:
		var out []string
		for _, el := range x.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			out = append(out, e.eval(el)...)
		}
		if out == nil {
			out = []string{}
		}
		return out
	case *ast.CallExpr:
		return e.call(x)
	}
	return nil
}

func (e *evaluator) call(x *ast.CallExpr) []string {
	var name string
	switch f := x.Fun.(type) {
	case *ast.Ident:
		name = f.Name
	case *ast.SelectorExpr:
		if p, ok := f.X.(*ast.Ident); ok {
			name = p.Name + "." + f.Sel.Name
		}
	}
	if name == "append" {
		var out []string
		for _, a := range x.Args {
			out = append(out, e.eval(a)...)
		}
		return out
	}
	var args []string
	for _, a := range x.Args {
		s, ok := e.one(a)
		if !ok {
			return nil
		}
		args = append(args, s)
	}
	str := func(fn func(string) string) []string {
		if len(args) != 1 {
			return nil
		}
		return []string{fn(args[0])}
	}
	switch name {
	case "secrets.NewSecret":
		if len(args) == 1 {
			if s, ok := sampleOf(args[0], e.rnd); ok {
				return []string{s}
			}
		}
	case "utils.GenerateSampleSecret":
		if len(args) == 2 {
			return []string{utils.GenerateSampleSecret(args[0], args[1])}
		}
	case "utils.GenerateSampleSecrets":
		if len(args) == 2 {
			return utils.GenerateSampleSecrets(args[0], args[1])
		}
	case "utils.Numeric":
		return str(utils.Numeric)
	case "utils.Hex":
		return str(utils.Hex)
	case "utils.AlphaNumeric":
		return str(utils.AlphaNumeric)
	case "utils.AlphaNumericExtendedShort":
		return str(utils.AlphaNumericExtendedShort)
	case "utils.AlphaNumericExtended":
		return str(utils.AlphaNumericExtended)
	case "utils.AlphaNumericExtendedLong":
		return str(utils.AlphaNumericExtendedLong)
	case "utils.Hex8_4_4_4_12":
		return []string{utils.Hex8_4_4_4_12()}
	case "fmt.Sprintf":
		if len(args) >= 1 {
			rest := make([]any, len(args)-1)
			for i, a := range args[1:] {
				rest[i] = a
			}
			return []string{fmt.Sprintf(args[0], rest...)}
		}
	case "strings.Repeat":
		if len(x.Args) == 2 {
			if lit, ok := x.Args[1].(*ast.BasicLit); ok {
				if n, err := strconv.Atoi(lit.Value); err == nil && len(args) == 2 {
					return []string{strings.Repeat(args[0], n)}
				}
			}
		}
	}
	return nil
}

// sampleOf returns a random string that the pattern matches (printable ASCII where the pattern
// allows it), as gitleaks' generator does.
func sampleOf(pattern string, rnd *rand.Rand) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	var gen func(re *syntax.Regexp)
	reps := func(min, max int) int {
		if max < 0 || max > min+8 {
			max = min + 8
		}
		return min + rnd.IntN(max-min+1)
	}
	gen = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpLiteral:
			b.WriteString(string(re.Rune))
		case syntax.OpCharClass:
			var ascii [][2]rune
			for i := 0; i+1 < len(re.Rune); i += 2 {
				lo, hi := max(re.Rune[i], ' '), min(re.Rune[i+1], '~')
				if lo <= hi {
					ascii = append(ascii, [2]rune{lo, hi})
				}
			}
			if len(ascii) == 0 {
				if len(re.Rune) > 0 {
					b.WriteRune(re.Rune[0])
				}
				return
			}
			r := ascii[rnd.IntN(len(ascii))]
			b.WriteRune(r[0] + rune(rnd.IntN(int(r[1]-r[0]+1))))
		case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
			b.WriteByte(byte('a' + rnd.IntN(26)))
		case syntax.OpCapture:
			gen(re.Sub[0])
		case syntax.OpConcat:
			for _, s := range re.Sub {
				gen(s)
			}
		case syntax.OpAlternate:
			gen(re.Sub[rnd.IntN(len(re.Sub))])
		case syntax.OpStar:
			for range reps(0, -1) {
				gen(re.Sub[0])
			}
		case syntax.OpPlus:
			for range reps(1, -1) {
				gen(re.Sub[0])
			}
		case syntax.OpQuest:
			if rnd.IntN(2) == 0 {
				gen(re.Sub[0])
			}
		case syntax.OpRepeat:
			for range reps(re.Min, re.Max) {
				gen(re.Sub[0])
			}
		}
	}
	gen(re)
	return b.String(), true
}

// filler is Markdown prose with the words gitleaks' keywords are made of, and no secret.
func filler(n int, rnd *rand.Rand) string {
	words := strings.Fields("the token budget key decision password policy secret store auth flow api access curl command " +
		"we keep notes about deploys and the cache layer because retries were slow github slack aws heroku")
	var b strings.Builder
	for b.Len() < n {
		for range 40 + rnd.IntN(40) {
			b.WriteString(words[rnd.IntN(len(words))])
			b.WriteByte(' ')
		}
		b.WriteString(".\n")
		if rnd.IntN(3) == 0 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// key is what a finding is compared by.
type key struct {
	Rule               string
	StartLine, EndLine int
	StartColumn        int
	Secret, Match      string
}

func keys[F interface{ ~[]E }, E any](fs F, conv func(E) key) []key {
	out := make([]key, 0, len(fs))
	for _, f := range fs {
		out = append(out, conv(f))
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}
