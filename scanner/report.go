package scanner

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// WriteText prints findings for people: "path:line rule message" and, indented below, the fix.
func WriteText(w io.Writer, fs []Finding) error {
	for _, f := range fs {
		loc := DisplayPath(f.Path)
		if f.Line > 0 {
			loc = fmt.Sprintf("%s:%d", loc, f.Line)
		}
		sev := ""
		if f.Severity == SeverityWarning {
			sev = " (warning)"
		}
		if _, err := fmt.Fprintf(w, "%s %s%s %s\n    fix: %s\n", loc, f.Rule, sev, escapeControl(f.Message), escapeControl(f.Fix)); err != nil {
			return err
		}
	}
	return nil
}

// DisplayPath is a path as a terminal may show it: quoted Go-style ("memory-bank/a\x1b[2K.md")
// when it holds control characters or bytes that are not UTF-8, so a file name cannot move the
// cursor, erase a line or forge a finding in the output; otherwise as it is.
func DisplayPath(p string) string {
	if !utf8.ValidString(p) {
		return strconv.Quote(p)
	}
	if strings.ContainsFunc(p, isControl) {
		return strconv.Quote(p)
	}
	return p
}

// escapeControl writes the control characters and non-UTF-8 bytes of a message (a path it
// names, say) as Go escapes, leaving the rest as it is.
func escapeControl(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, isControl) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == '\u2028' || r == '\u2029'
}

// WriteJSON prints findings as one JSON array (an empty array when clean).
func WriteJSON(w io.Writer, fs []Finding) error {
	if fs == nil {
		fs = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // markers are <!-- … -->: keep them readable
	return enc.Encode(fs)
}

// SARIF 2.1.0, the subset code-scanning uploads read.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID               string       `json:"id"`
		ShortDescription sarifMessage `json:"shortDescription"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifMessage    `json:"message"`
		Locations []sarifLocation `json:"locations"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
)

// WriteSARIF prints findings as a SARIF 2.1.0 log for code-scanning uploads; version is
// mbguard's own.
func WriteSARIF(w io.Writer, fs []Finding, version string) error {
	ids := map[string]int{}
	var rules []sarifRule
	ruleIDs := make([]string, 0, len(Rules))
	for id := range Rules {
		ruleIDs = append(ruleIDs, id)
	}
	sort.Strings(ruleIDs)
	for _, f := range fs {
		if _, ok := Rules[f.Rule]; !ok && !slices.Contains(ruleIDs, f.Rule) {
			ruleIDs = append(ruleIDs, f.Rule)
		}
	}
	for _, id := range ruleIDs {
		desc := Rules[id]
		if desc == "" && strings.HasPrefix(id, SecretRulePrefix) {
			desc = "A secret found by gitleaks rule " + strings.TrimPrefix(id, SecretRulePrefix) + "."
		}
		ids[id] = len(rules)
		rules = append(rules, sarifRule{ID: id, ShortDescription: sarifMessage{desc}})
	}
	results := make([]sarifResult, 0, len(fs))
	for _, f := range fs {
		level := "error"
		if f.Severity == SeverityWarning {
			level = "warning"
		}
		loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: f.Path, URIBaseID: "%SRCROOT%"}}}
		if f.Line > 0 {
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line}
		}
		results = append(results, sarifResult{RuleID: f.Rule, RuleIndex: ids[f.Rule], Level: level,
			Message: sarifMessage{f.Message + " Fix: " + f.Fix}, Locations: []sarifLocation{loc}})
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool:    sarifTool{Driver: sarifDriver{Name: "mbguard", Version: version, InformationURI: "https://github.com/mbguard/mbguard", Rules: rules}},
			Results: results,
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // markers are <!-- … -->: keep them readable
	return enc.Encode(log)
}
