package gating

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mbguard/mbguard/bank"
)

func TestContextBlock(t *testing.T) {
	old := strings.Replace(memoryMD, "v7.1", "v7.0", 1)
	noVersion := strings.Replace(memoryMD, "<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n", "", 1)
	fenced := "```\n<!-- MEMORY_BANK_TEMPLATE:v9.9 -->\n```\n" + memoryMD
	tests := []struct {
		name   string
		memory string
		layout bank.Layout
		max    int
		redact func(string) string
		has    []string
		hasnt  []string
		empty  bool
	}{
		{name: "v7.1", memory: memoryMD, layout: bank.LayoutV7, has: []string{ContextSentinel, "</memory-bank>", "Template v7.1.",
			"details/patterns.md", "memory-reader", "USER_BLOCK", "my own notes, hands off", "write/edit"}, hasnt: []string{"truncated"}},
		{name: "older template", memory: old, layout: bank.LayoutV7, has: []string{"Template v7.0", "mbguard upgrade"}},
		{name: "missing template", memory: noVersion, layout: bank.LayoutV7, has: []string{"Template version missing"}},
		{name: "template in a fence is text", memory: fenced, layout: bank.LayoutV7, has: []string{"Template v7.1."}},
		{name: "truncated at the head", memory: memoryMD, layout: bank.LayoutV7, max: 120, has: []string{"# Project Memory", "[… truncated:", "read memory-bank/MEMORY.md"},
			hasnt: []string{"hands off"}},
		{name: "redacted", memory: memoryMD + "key " + secretToken + "\n", layout: bank.LayoutV7,
			redact: func(s string) string { return strings.ReplaceAll(s, secretToken, "REDACTED") }, has: []string{"key REDACTED"}, hasnt: []string{secretToken}},
		{name: "legacy", layout: bank.LayoutLegacy, has: []string{ContextSentinel, "needs migration: run `mbguard migrate`", "</memory-bank>"}},
		{name: "mixed", memory: memoryMD, layout: bank.LayoutMixed, has: []string{"mixed layout", "mbguard migrate"}, hasnt: []string{"hands off"}},
		{name: "no bank", memory: memoryMD, layout: bank.LayoutNone, empty: true},
		{name: "empty bank", layout: bank.LayoutEmpty, empty: true},
		{name: "empty MEMORY.md", memory: "  \n", layout: bank.LayoutV7, empty: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ContextBlock(tc.memory, tc.layout, tc.max, tc.redact)
			if tc.empty {
				if got != "" {
					t.Fatalf("want empty, got %q", got)
				}
				return
			}
			for _, h := range tc.has {
				if !strings.Contains(got, h) {
					t.Errorf("lacks %q:\n%s", h, got)
				}
			}
			for _, h := range tc.hasnt {
				if strings.Contains(got, h) {
					t.Errorf("has %q:\n%s", h, got)
				}
			}
		})
	}
}

func TestContextBlockTruncation(t *testing.T) {
	memory := strings.Repeat("日本語のメモ\n", 3000) // multi-byte, 21000 runes
	got := ContextBlock(memory, bank.LayoutV7, 0, nil)
	if !utf8.ValidString(got) {
		t.Fatal("truncation split a character")
	}
	body := got[strings.Index(got, "--- memory-bank/MEMORY.md ---\n")+len("--- memory-bank/MEMORY.md ---\n"):]
	body = body[:strings.Index(body, "[… truncated")]
	if n := utf8.RuneCountInString(body); n > DefaultMaxChars || n < DefaultMaxChars-10 {
		t.Errorf("kept %d characters, want about %d", n, DefaultMaxChars)
	}
	if !strings.HasSuffix(body, "\n") {
		t.Error("not cut at a line end")
	}
}
