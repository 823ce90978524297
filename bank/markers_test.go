package bank

import (
	"reflect"
	"strings"
	"testing"
)

func kinds(s Scan) []MarkerKind {
	var ks []MarkerKind
	for _, m := range s.Markers {
		ks = append(ks, m.Kind)
	}
	return ks
}

func TestScanMarkers(t *testing.T) {
	all := []MarkerKind{MachineStart, MachineEnd, UserStart, UserEnd}
	cases := []struct {
		name    string
		in      string
		want    []MarkerKind
		near    int
		tmpl    int
		lines   []int
		suggest []MarkerKind
	}{
		{name: "well formed", in: "<!-- MACHINE_BLOCK_START -->\nx\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n", want: all, lines: []int{1, 3, 4, 5}},
		{name: "crlf", in: "<!-- MACHINE_BLOCK_START -->\r\n<!-- MACHINE_BLOCK_END -->\r\n", want: []MarkerKind{MachineStart, MachineEnd}, lines: []int{1, 2}},
		{name: "no trailing newline", in: "a\n<!-- USER_BLOCK_END -->", want: []MarkerKind{UserEnd}, lines: []int{2}},
		{name: "backtick fence hides markers", in: "```markdown\n<!-- MACHINE_BLOCK_START -->\n```\n", want: nil},
		{name: "tilde fence hides markers", in: "~~~\n<!-- USER_BLOCK_START -->\n~~~\n<!-- USER_BLOCK_START -->\n", want: []MarkerKind{UserStart}, lines: []int{4}},
		{name: "longer fence needs a longer close", in: "````\n```\n<!-- USER_BLOCK_START -->\n````\n<!-- USER_BLOCK_END -->\n", want: []MarkerKind{UserEnd}, lines: []int{5}},
		{name: "tilde does not close backtick", in: "```\n~~~\n<!-- USER_BLOCK_START -->\n```\n", want: nil},
		{name: "closing fence with info string does not close", in: "```\n``` go\n<!-- USER_BLOCK_START -->\n```\n", want: nil},
		{name: "unclosed fence runs to the end", in: "```\n<!-- USER_BLOCK_START -->\n", want: nil},
		{name: "fence inside a list item", in: "- example:\n    ```\n    <!-- USER_BLOCK_START -->\n    ```\n", want: nil},
		{name: "fence inside a block quote", in: "> ```\n> <!-- USER_BLOCK_START -->\n> ```\n", want: nil},
		{name: "backtick line with backtick info is no fence", in: "```a` <!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n", want: []MarkerKind{UserStart, UserEnd}},
		{name: "closed code span on a backtick line", in: "```a <!-- USER_BLOCK_START --> ```\n", want: nil},
		{name: "inline code hides markers", in: "use `<!-- USER_BLOCK_START -->` to open\n", want: nil},
		{name: "double backtick inline code", in: "use ``<!-- USER_BLOCK_START -->`` ok\n", want: nil},
		{name: "unmatched backtick is text", in: "a ` <!-- USER_BLOCK_START -->\n", want: []MarkerKind{UserStart}},
		{name: "two markers on one line keep order", in: "<!-- USER_BLOCK_END --> <!-- USER_BLOCK_START -->\n", want: []MarkerKind{UserEnd, UserStart}},
		{name: "no spaces is a near miss", in: "<!--MACHINE_BLOCK_START-->\n", near: 1, suggest: []MarkerKind{MachineStart}},
		{name: "lower case is a near miss", in: "<!-- user_block_end -->\n", near: 1, suggest: []MarkerKind{UserEnd}},
		{name: "misspelled block", in: "<!-- USER_BLOK_START -->\n", near: 1, suggest: []MarkerKind{UserStart}},
		{name: "misspelled start still guesses start", in: "<!-- MACHINE_BLOCK_STRAT -->\n", near: 1, suggest: []MarkerKind{MachineStart}},
		{name: "bare word in prose is no attempt", in: "the USER_BLOCK is yours\n", near: 0},
		{name: "near miss in a fence is text", in: "```\n<!--USER_BLOCK_END-->\n```\n", near: 0},
		{name: "template mark", in: "<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n", tmpl: 1},
		{name: "template mark in fence is text", in: "```\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n```\n", tmpl: 0},
		{name: "empty", in: "", want: nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := ScanMarkers([]byte(c.in))
			if got := kinds(s); !reflect.DeepEqual(got, c.want) {
				t.Errorf("markers = %v, want %v", got, c.want)
			}
			if len(s.NearMiss) != c.near {
				t.Errorf("near misses = %+v, want %d", s.NearMiss, c.near)
			}
			for i, k := range c.suggest {
				if i < len(s.NearMiss) && s.NearMiss[i].Suggest != k {
					t.Errorf("suggestion %d = %v, want %v", i, s.NearMiss[i].Suggest, k)
				}
			}
			if len(s.Templates) != c.tmpl {
				t.Errorf("templates = %+v, want %d", s.Templates, c.tmpl)
			}
			if c.lines != nil {
				for i, m := range s.Markers {
					if m.Line != c.lines[i] {
						t.Errorf("marker %d on line %d, want %d", i, m.Line, c.lines[i])
					}
					if got := c.in[m.Offset:m.End]; got != m.Kind.String() {
						t.Errorf("marker %d offsets cover %q", i, got)
					}
				}
			}
		})
	}
}

func TestTemplateMarks(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		valid bool
		want  Version
	}{
		{"canonical", "<!-- MEMORY_BANK_TEMPLATE:v7.1 -->", true, Version{7, 1}},
		{"two digit minor", "<!-- MEMORY_BANK_TEMPLATE:v7.10 -->", true, Version{7, 10}},
		{"no v", "<!-- MEMORY_BANK_TEMPLATE:7.1 -->", false, Version{}},
		{"no minor", "<!-- MEMORY_BANK_TEMPLATE:v7 -->", false, Version{}},
		{"no colon", "<!-- MEMORY_BANK_TEMPLATE v7.1 -->", false, Version{7, 1}},
		{"no spaces", "<!--MEMORY_BANK_TEMPLATE:v7.1-->", false, Version{7, 1}},
		{"lower case", "<!-- memory_bank_template:v7.1 -->", false, Version{7, 1}},
		{"plus sign", "<!-- MEMORY_BANK_TEMPLATE:v+7.1 -->", false, Version{}},
		{"three parts", "<!-- MEMORY_BANK_TEMPLATE:v7.1.2 -->", false, Version{}},
		{"empty", "<!-- MEMORY_BANK_TEMPLATE: -->", false, Version{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := ScanMarkers([]byte(c.in + "\n"))
			if len(s.Templates) != 1 {
				t.Fatalf("templates = %+v, want 1", s.Templates)
			}
			m := s.Templates[0]
			if m.Valid != c.valid {
				t.Errorf("valid = %v, want %v (%+v)", m.Valid, c.valid, m)
			}
			if c.valid && m.Version != c.want {
				t.Errorf("version = %v, want %v", m.Version, c.want)
			}
		})
	}
}

func TestParseVersionAndCompare(t *testing.T) {
	cases := []struct {
		a, b string
		less bool
	}{
		{"v7.9", "v7.10", true},
		{"v7.10", "v7.9", false},
		{"v6.99", "v7.0", true},
		{"v7.1", "v7.1", false},
		{"7.0", "v7.1", true},
	}
	for _, c := range cases {
		t.Run(c.a+"<"+c.b, func(t *testing.T) {
			a, err := ParseVersion(c.a)
			if err != nil {
				t.Fatal(err)
			}
			b, err := ParseVersion(c.b)
			if err != nil {
				t.Fatal(err)
			}
			if a.Less(b) != c.less {
				t.Errorf("%v.Less(%v) = %v", a, b, !c.less)
			}
		})
	}
	for _, bad := range []string{"", "v", "v7", "v7.", "v.1", "va.b", "v-1.2", "v+1.2", "v1.2.3", "v1234567.1"} {
		t.Run("bad "+bad, func(t *testing.T) {
			if _, err := ParseVersion(bad); err == nil {
				t.Errorf("ParseVersion(%q) accepted", bad)
			}
		})
	}
	if got := TemplateMarker(Version{7, 1}); got != "<!-- MEMORY_BANK_TEMPLATE:v7.1 -->" {
		t.Errorf("TemplateMarker = %q", got)
	}
}

func TestParseBlocks(t *testing.T) {
	good := "<!-- MACHINE_BLOCK_START -->\nm\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\nmine\n<!-- USER_BLOCK_END -->\n"
	cases := []struct {
		name string
		in   string
		ok   bool
		user string
	}{
		{"good", good, true, "\nmine\n"},
		{"none", "just text\n", true, ""},
		{"only user", "<!-- USER_BLOCK_START -->x<!-- USER_BLOCK_END -->", true, "x"},
		{"user block documented in a fence", good + "```\n<!-- USER_BLOCK_START -->\n```\n", true, "\nmine\n"},
		{"duplicate", good + "<!-- USER_BLOCK_END -->\n", false, ""},
		{"unclosed", "<!-- USER_BLOCK_START -->\n", false, ""},
		{"end before start", "<!-- USER_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n", false, ""},
		{"nested", "<!-- MACHINE_BLOCK_START -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n<!-- MACHINE_BLOCK_END -->\n", false, ""},
		{"overlapping", "<!-- MACHINE_BLOCK_START -->\n<!-- USER_BLOCK_START -->\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_END -->\n", false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ok := ParseBlocks([]byte(c.in))
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			u, has := UserBlock([]byte(c.in))
			if has != (c.user != "") || string(u) != c.user {
				t.Errorf("UserBlock = %q, %v; want %q", u, has, c.user)
			}
		})
	}
}

func TestMarkerKindHelpers(t *testing.T) {
	if MachineStart.Pair() != MachineEnd || UserEnd.Pair() != UserStart {
		t.Error("Pair is wrong")
	}
	if MachineStart.Name() != "MACHINE_BLOCK_START" || !UserStart.IsStart() || UserEnd.IsStart() {
		t.Error("Name/IsStart are wrong")
	}
	if !strings.Contains(MarkerKind(9).String(), "?") {
		t.Error("an unknown kind must not panic")
	}
}

func TestDetectLayout(t *testing.T) {
	cases := []struct {
		name   string
		exists bool
		names  []string
		want   Layout
	}{
		{"missing", false, nil, LayoutNone},
		{"empty", true, []string{"details"}, LayoutEmpty},
		{"legacy", true, []string{"_index.md", "tech.md"}, LayoutLegacy},
		{"v7", true, []string{"MEMORY.md", "details"}, LayoutV7},
		{"mixed", true, []string{"MEMORY.md", "brief.md"}, LayoutMixed},
		{"cline", true, []string{"projectbrief.md", "activeContext.md", "progress.md"}, LayoutLegacy},
		{"roo spelling", true, []string{"projectBrief.md", "decisionLog.md"}, LayoutLegacy},
		{"cline beside MEMORY.md", true, []string{"MEMORY.md", "systemPatterns.md"}, LayoutMixed},
		{"cline beside skill legacy", true, []string{"brief.md", "activeContext.md"}, LayoutMixed},
		{"progress alone is nobody's", true, []string{"progress.md", "tasks.md"}, LayoutEmpty},
		{"kilo", true, []string{"context.md", "product.md", "tech.md"}, LayoutLegacy},
		{"kilo beside MEMORY.md", true, []string{"MEMORY.md", "context.md", "architecture.md"}, LayoutMixed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := DetectLayout(c.exists, c.names); got != c.want {
				t.Errorf("DetectLayout = %v, want %v", got, c.want)
			}
		})
	}
}

func TestDetectKind(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		want  Kind
	}{
		{"skill", []string{"_index.md", "brief.md", "tech.md", "docs"}, KindSkill},
		{"cline", []string{"projectbrief.md", "productContext.md", "activeContext.md", "systemPatterns.md", "techContext.md", "progress.md"}, KindCline},
		{"cline with extra folders", []string{"projectbrief.md", "activeContext.md", "api"}, KindCline},
		{"roo", []string{"activeContext.md", "decisionLog.md", "productContext.md", "progress.md", "systemPatterns.md"}, KindRoo},
		{"cursor", []string{"tasks.md", "projectbrief.md", "activeContext.md", "creative", "reflection", "archive"}, KindCursor},
		{"kilo", []string{"brief.md", "product.md", "context.md", "architecture.md", "tech.md", "tasks.md"}, KindKilo},
		{"kilo without brief", []string{"context.md", "architecture.md"}, KindKilo},
		{"skill with a context.md", []string{"_index.md", "brief.md", "context.md", "product.md"}, KindSkill},
		{"v7", []string{"MEMORY.md", "details"}, KindV7},
		{"mixed", []string{"MEMORY.md", "activeContext.md"}, KindNone},
		{"empty", []string{"notes.md"}, KindNone},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			if got := DetectKind(c.names); got != c.want {
				t.Errorf("DetectKind = %q, want %q", got, c.want)
			}
		})
	}
}
