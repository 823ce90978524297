package templates

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/bank"
)

// TestTemplatesWellFormed walks every template through the shared bank parser: the templates
// must carry the markers mbguard demands of everyone else.
func TestTemplatesWellFormed(t *testing.T) {
	for _, n := range Names() {
		t.Run(n, func(t *testing.T) {
			b, err := Render(n, nil)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), "{{") {
				t.Errorf("unrendered placeholder in %s", n)
			}
			sc := bank.ScanMarkers(b)
			if len(sc.NearMiss) > 0 {
				t.Errorf("near-miss markers: %+v", sc.NearMiss)
			}
			blocks, ok := bank.ParseBlocks(b)
			if !ok || !blocks.HasMachine || !blocks.HasUser {
				t.Fatalf("blocks: ok=%v machine=%v user=%v", ok, blocks.HasMachine, blocks.HasUser)
			}
			if n != Memory {
				if len(sc.Templates) != 0 {
					t.Errorf("detail template carries a template-version marker")
				}
				return
			}
			if len(sc.Templates) != 1 || !sc.Templates[0].Valid || sc.Templates[0].Version != bank.CurrentTemplate {
				t.Fatalf("template marks: %+v, want one %s", sc.Templates, bank.CurrentTemplate)
			}
			var start int
			for _, m := range sc.Markers {
				if m.Kind == bank.MachineStart {
					start = m.Line
				}
			}
			if sc.Templates[0].Line != start+1 {
				t.Errorf("template marker on line %d, want %d (right after MACHINE_BLOCK_START)", sc.Templates[0].Line, start+1)
			}
			for _, h := range []string{SnapshotHeading, FocusHeading, DecisionsHeading, RoutingHeading, DrillHeading, SafetyHeading, AnswersHeading} {
				if !strings.Contains(string(b[blocks.Machine.Start:blocks.Machine.End]), "\n"+h+"\n") {
					t.Errorf("machine block lacks %q", h)
				}
			}
		})
	}
}

func TestSection(t *testing.T) {
	for _, h := range []string{RoutingHeading, DrillHeading, SafetyHeading, AnswersHeading} {
		t.Run(h, func(t *testing.T) {
			s, err := Section(h)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(s, h+"\n") || strings.Count(s, "\n## ") != 0 || len(bank.ScanMarkers([]byte(s)).Markers) != 0 {
				t.Errorf("section %q:\n%s", h, s)
			}
		})
	}
	if _, err := Section("## Nope"); err == nil {
		t.Error("unknown section: want an error")
	}
}

func TestRenderFillsVars(t *testing.T) {
	b, _ := Render(Memory, map[string]string{"snapshot": "- a CLI for memory banks"})
	if !strings.Contains(string(b), "\n- a CLI for memory banks\n") {
		t.Error("snapshot not filled")
	}
	if _, err := Render("nope.md", nil); err == nil {
		t.Error("unknown template: want an error")
	}
}

// Every section upgrade and migrate copy out of the template on its own is rendered: a literal
// {{snapshot}} once reached banks through Section.
func TestSectionRendered(t *testing.T) {
	for _, h := range []string{SnapshotHeading, FocusHeading, DecisionsHeading, RoutingHeading, DrillHeading, SafetyHeading, AnswersHeading} {
		s, err := Section(h)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(s, "{{") {
			t.Errorf("section %s has an unrendered placeholder:\n%s", h, s)
		}
	}
}

// Placeholders names every {{name}} the embedded templates hold, so the check finding for a
// leftover one knows them all.
func TestPlaceholdersComplete(t *testing.T) {
	known := map[string]bool{}
	for _, p := range Placeholders() {
		known[p] = true
	}
	for _, n := range Names() {
		b, err := files.ReadFile("files/" + n)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range placeholderRe.FindAllStringSubmatch(string(b), -1) {
			if !known[m[1]] {
				t.Errorf("%s: placeholder {{%s}} not listed by Placeholders", n, m[1])
			}
		}
	}
}

var placeholderRe = regexp.MustCompile(`\{\{([a-z_]+)\}\}`)

// TestRoutingPlaces: the places the routing table names are read from the template itself, so a
// change of the table changes what check --stale takes as the bank's own places.
func TestRoutingPlaces(t *testing.T) {
	got, err := RoutingPlaces()
	if err != nil {
		t.Fatal(err)
	}
	want := "details/patterns.md details/tech.md details/progress.md details/requirements/ details/design/ details/learnings/ details/archive/"
	if strings.Join(got, " ") != want {
		t.Errorf("RoutingPlaces() = %q; want %q", got, want)
	}
}
