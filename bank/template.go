package bank

import (
	"fmt"
	"strconv"
	"strings"
)

// CurrentTemplate is the template version this mbguard writes.
var CurrentTemplate = Version{7, 1}

// Version is a template version vMAJOR.MINOR, compared numerically (v7.10 > v7.9).
type Version struct{ Major, Minor int }

// String renders the version as "v7.1".
func (v Version) String() string { return fmt.Sprintf("v%d.%d", v.Major, v.Minor) }

// Less reports whether v is older than w.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	return v.Minor < w.Minor
}

// ParseVersion parses "v7.1" or "7.1".
func ParseVersion(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	maj, min, ok := strings.Cut(t, ".")
	if !ok {
		return Version{}, fmt.Errorf("template version %q: want vMAJOR.MINOR such as v7.1", s)
	}
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(min)
	if err1 != nil || err2 != nil || !digits(maj) || !digits(min) || len(maj) > 6 || len(min) > 6 {
		return Version{}, fmt.Errorf("template version %q: want vMAJOR.MINOR such as v7.1", s)
	}
	return Version{a, b}, nil
}

// TemplateMark is one <!-- MEMORY_BANK_TEMPLATE:… --> found outside code.
type TemplateMark struct {
	Line    int
	Raw     string // what stood after the colon
	Version Version
	Valid   bool
}

// TemplateMarker renders the marker for v.
func TemplateMarker(v Version) string { return "<!-- MEMORY_BANK_TEMPLATE:" + v.String() + " -->" }

func parseTemplateMark(raw string, line int) TemplateMark {
	m := TemplateMark{Line: line, Raw: raw}
	if strings.HasPrefix(raw, "v") {
		if v, err := ParseVersion(raw); err == nil {
			m.Version, m.Valid = v, true
		}
	}
	return m
}

// digits reports whether s is one or more ASCII digits (Atoi alone would accept "+7").
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
