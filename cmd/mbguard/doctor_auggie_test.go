package main

import (
	"os"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/internal/repo"
)

// TestDoctorAuggie: an Auggie install is reported with the backend switch it depends on, and a
// missing rule file is a warning with the step that writes it.
func TestDoctorAuggie(t *testing.T) {
	root := t.TempDir()
	o := hooks.InstallOptions{Root: root, Home: t.TempDir(), Binary: "/opt/mbguard"}
	spec, _ := hooks.LookupHost("auggie")
	if ch := ownHostChecks["auggie"](repo.Repo{Root: root}, o, spec); ch.Status != checkInfo {
		t.Fatalf("nothing installed: %+v", ch)
	}
	if _, err := hooks.InstallAuggie(o); err != nil {
		t.Fatal(err)
	}
	ch := ownHostChecks["auggie"](repo.Repo{Root: root}, o, spec)
	if ch.Status != checkOK || !strings.Contains(ch.Detail, "only when Augment's backend enables hooks") {
		t.Errorf("installed: %+v", ch)
	}
	os.Remove(hooks.AuggieRulePath(o))
	ch = ownHostChecks["auggie"](repo.Repo{Root: root}, o, spec)
	if ch.Status != checkWarn || !strings.Contains(ch.Next, "mbguard install --agent auggie") {
		t.Errorf("rule file gone: %+v", ch)
	}
}
