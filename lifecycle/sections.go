package lifecycle

import (
	"strings"
	"unicode"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/templates"
)

// sectionNames are what each fixed section of MEMORY.md is called in the banks seen in real
// repositories: the template's English, memory-bank-skill's Chinese, and common variants. A
// heading is compared without its "##", a leading emoji or number, a trailing bracketed note
// ("(Still Binding)", "（意图驱动）", "【必读】") and letter case.
var sectionNames = map[string][]string{
	templates.SnapshotHeading:  {"project snapshot", "snapshot", "project overview", "项目快照", "项目概览", "项目概述", "项目概况", "專案快照", "プロジェクト概要"},
	templates.FocusHeading:     {"current focus", "focus", "active context", "当前焦点", "当前重点", "当前关注", "当前任务", "目前焦点", "現在のフォーカス"},
	templates.DecisionsHeading: {"decision highlights", "key decisions", "decisions", "决策亮点", "决策要点", "关键决策", "重要决策", "决策摘要", "決策重點", "主要な決定"},
	templates.RoutingHeading:   {"routing rules", "routing", "路由规则", "路由", "路由規則", "ルーティング"},
	templates.DrillHeading:     {"drill down protocol", "drill down", "下钻协议", "逐层深入", "下钻规则", "ドリルダウン"},
	templates.SafetyHeading:    {"write safety rules", "write safety", "safety rules", "写入安全规则", "写入安全", "安全规则", "写入规则", "書き込み安全ルール"},
	templates.AnswersHeading:   {"top quick answers", "quick answers", "快速问答", "快速回答", "常见问答", "常见问题", "よくある質問"},
}

// intentWords mark a routing heading as the intent-driven one of v7.1 rather than the plain,
// topic-based one of older templates.
var intentWords = []string{"intent", "意图", "意圖", "意図"}

// bracketPairs are the bracketed notes a heading may end in.
var bracketPairs = [][2]string{{"(", ")"}, {"（", "）"}, {"[", "]"}, {"【", "】"}, {"〔", "〕"}}

// splitHeading returns a "## " heading's name, normalised for comparison, and its trailing
// bracketed note, if any.
func splitHeading(h string) (name, note string) {
	h = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(h), "#"))
	for {
		found := false
		for _, p := range bracketPairs {
			if strings.HasSuffix(h, p[1]) {
				if i := strings.LastIndex(h, p[0]); i >= 0 {
					note = strings.TrimSpace(h[i+len(p[0]):len(h)-len(p[1])]) + " " + note
					h = strings.TrimSpace(h[:i])
					found = true
				}
			}
		}
		if !found {
			break
		}
	}
	// a leading emoji, number or symbol ("⚠️", "1.", "§") is decoration
	h = strings.TrimLeftFunc(h, func(r rune) bool { return !unicode.IsLetter(r) })
	h = strings.TrimRightFunc(h, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
	h = strings.ToLower(h)
	h = strings.NewReplacer("-", " ", "_", " ", "：", " ", ":", " ").Replace(h)
	return strings.Join(strings.Fields(h), " "), strings.ToLower(strings.TrimSpace(note))
}

// sectionOf names the fixed section a heading line stands for; legacyRouting is true for a
// routing heading that does not say it is intent-driven (the plain one of older templates).
func sectionOf(heading string) (fixed string, legacyRouting bool) {
	name, note := splitHeading(heading)
	if name == "" {
		return "", false
	}
	for _, h := range fixedSections {
		for _, n := range sectionNames[h] {
			if name != n && !strings.HasPrefix(name, n+" ") && !(isCJK(n) && strings.Contains(name, n)) {
				continue
			}
			if h != templates.RoutingHeading {
				return h, false
			}
			for _, w := range intentWords {
				if strings.Contains(name, w) || strings.Contains(note, w) {
					return h, false
				}
			}
			return templates.LegacyRoutingHeading, true
		}
	}
	return "", false
}

func isCJK(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
			return true
		}
	}
	return false
}

// sectionsByMeaning returns the fixed sections the "## " headings of a machine block stand for
// (outside fenced code), keyed by the template heading; the plain legacy routing heading is
// keyed by templates.LegacyRoutingHeading.
func sectionsByMeaning(s string) map[string]bool {
	m := make(map[string]bool)
	var fence bank.Fence
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimRight(l, "\r \t")
		if fence.Line([]byte(l)) || !strings.HasPrefix(l, "## ") {
			continue
		}
		if h, _ := sectionOf(l); h != "" {
			m[h] = true
		}
	}
	return m
}
