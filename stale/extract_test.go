package stale

import (
	"fmt"
	"strings"
	"testing"
)

func refsOf(md string) []string {
	var out []string
	for _, r := range Extract([]byte(md)) {
		s := fmt.Sprintf("%d %s %s", r.Line, r.Kind, r.Name)
		if r.Link {
			s += " link"
		}
		if r.Historical {
			s += " historical"
		}
		if r.Planned {
			s += " planned"
		}
		out = append(out, s)
	}
	return out
}

func TestExtract(t *testing.T) {
	for name, tc := range map[string]struct {
		md   string
		want []string
	}{
		"code span path":       {"Auth is in `src/auth/session.ts:42`.", []string{"1 path src/auth/session.ts"}},
		"dot slash script":     {"Run `./scripts/deploy.sh --prod`.", []string{"1 path scripts/deploy.sh"}},
		"directory":            {"See `src/cart/`.", []string{"1 path src/cart"}},
		"path with spaces":     {"Notes in `docs/My Notes.md`.", []string{"1 path docs/My Notes.md"}},
		"link":                 {"[h](../src/a.go#L3) and [u](https://x.dev/a/b) and [s](#top)", []string{"1 path ../src/a.go link"}},
		"route group link":     {"[l](<src/app/(dashboard)/layout.tsx>) and [p](src/app/(auth)/page.tsx)", []string{"1 path src/app/(dashboard)/layout.tsx link", "1 path src/app/(auth)/page.tsx link"}},
		"link with space":      {"[n](docs/My%20Notes.md)", []string{"1 path docs/My Notes.md link"}},
		"reference link":       {"[h]: src/handler.go", []string{"1 path src/handler.go link"}},
		"prose path":           {"The handler (src/api/handler.go) reads it.", []string{"1 path src/api/handler.go"}},
		"prose and/or":         {"Use client/server and/or 1/2 on 2026/01/02.", []string{"1 path client/server", "1 path and/or"}},
		"urls and externals":   {"`https://a.io/b/c` `github.com/x/y` `/etc/hosts` `~/.config/x` `@scope/pkg` `$HOME/x`", nil},
		"make":                 {"Run `make migrate` and `make -j4 build test`.", []string{"1 make migrate", "1 make build", "1 make test"}},
		"make other dir":       {"`make -C web build`", nil},
		"npm run":              {"`npm run seed`, `pnpm dev`, `pnpm install`, `yarn build`, `npm install`", []string{"1 script seed", "1 script dev", "1 script build"}},
		"just and task":        {"`just fmt` then `task lint`", []string{"1 just fmt", "1 task lint"}},
		"method call":          {"`UserStore.flush()` batches", []string{"1 symbol UserStore", "1 symbol flush"}},
		"declarations":         {"`func ParseConfig`, `class CartService`, `def handle`", []string{"1 symbol ParseConfig", "1 symbol CartService", "1 symbol handle"}},
		"receiver dropped":     {"`this.save()`", []string{"1 symbol save"}},
		"plain word not sym":   {"`UserStore` and `cache.ttl`", nil},
		"shell fence":          {"```sh\n$ make build && npm run dev\n./bin/tool x\n# make gone\n```", []string{"2 make build", "2 script dev", "3 path bin/tool"}},
		"code fence skipped":   {"```go\nimport \"legacy/api/handler\"\nfoo.Bar()\n```\n`src/x.go`", []string{"5 path src/x.go"}},
		"tree drawing":         {"```\nproject/\n├── src/old.go\n```", nil},
		"comment skipped":      {"<!-- `src/a.go` -->\n<!--\nsrc/b.go\n-->\n`src/c.go`", []string{"5 path src/c.go"}},
		"historical section":   {"# A\n## Old\n<!-- mbguard:historical -->\n`src/a.go`\n### deeper\n`src/b.go`\n## New\n`src/c.go`", []string{"4 path src/a.go historical", "6 path src/b.go historical", "8 path src/c.go"}},
		"historical file":      {"<!-- mbguard:verified 2026-11-26 -->\n# A\n`src/a.go`\n## B\n`src/b.go`", []string{"3 path src/a.go historical", "5 path src/b.go historical"}},
		"historical line":      {"`src/a.go` <!-- mbguard:historical -->\n`src/b.go`", []string{"1 path src/a.go historical", "2 path src/b.go"}},
		"planned":              {"`docs/shots/` does not exist yet; DO NOT create `server/prisma/`", []string{"1 path docs/shots planned", "1 path server/prisma planned"}},
		"crlf":                 {"`src/a.go`\r\n`make x`\r\n", []string{"1 path src/a.go", "2 make x"}},
		"full-width punct":     {"写入 memory-bank/，然后 Read memory-bank/_index.md；之后 docs/文档/a.md。", []string{"1 path memory-bank", "1 path memory-bank/_index.md", "1 path docs/文档/a.md"}},
		"script family":        {"`pnpm test:e2e:chromium/firefox` and `npm run lint:fix`", []string{"1 script test:e2e:chromium", "1 script test:e2e:firefox", "1 script lint:fix"}},
		"elided and xxx":       {"`memory-bank/details/requirements/REQ-005-...` and REQ-005-… and docs/design-xxx.md", nil},
		"folder content":       {"Output goes to `dist/server/...`.", []string{"1 path dist/server"}},
		"redirect output":      {"`echo foo > memory-bank/test.md` and `cat src/in.txt >> logs/out.txt`", []string{"1 path src/in.txt"}},
		"bun pm":               {"`bun pm cache rm`", nil},
		"unchecked task":       {"- [ ] Add `docs/bench.md`\n- [x] Add `docs/done.md`", []string{"1 path docs/bench.md planned", "2 path docs/done.md"}},
		"making verb item":     {"- Create `docs/bench.md` and run `npm run bench`\n1. Add tests/a.test.ts\nWe create docs/x.md", []string{"1 path docs/bench.md planned", "1 script bench planned", "2 path tests/a.test.ts planned", "3 path docs/x.md"}},
		"next step":            {"Next step: record results to `docs/perf.md`; future cleanup: move to tests/utils", []string{"1 path docs/perf.md planned", "1 path tests/utils planned"}},
		"trailing punct":       {"see src/a.go, src/b.go; and (src/c.go).", []string{"1 path src/a.go", "1 path src/b.go", "1 path src/c.go"}},
		"glob and placeholder": {"`src/*.go` `src/<name>.ts` `src/{a,b}.go`", nil},
	} {
		t.Run(name, func(t *testing.T) {
			got := refsOf(tc.md)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Extract(%q)\n got %q\nwant %q", tc.md, got, tc.want)
			}
		})
	}
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{"`src/a.go`", "[x](../a b.md)", "```sh\nmake a\n```", "<!-- mbguard:historical -->\n# h\n`a/b`", "`UserStore.flush()`", "~~~\n`x/y`\n~~~"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		for _, r := range Extract([]byte(md)) {
			if r.Name == "" || r.Line < 1 || r.Line > strings.Count(md, "\n")+1 {
				t.Fatalf("bad ref %+v", r)
			}
			if r.Kind == KindPath && (strings.HasPrefix(r.Name, "/") || strings.Contains(r.Name, "://")) {
				t.Fatalf("external path %+v", r)
			}
		}
	})
}
