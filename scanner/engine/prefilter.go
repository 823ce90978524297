package engine

import (
	"bytes"
	"encoding/base64"
	"strings"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect/codec"
)

// Two cheap byte scans decide how much of gitleaks a text needs. Both are over-approximations:
// they may say "maybe" for text gitleaks finds nothing in, never "no" for text it finds
// something in, so the findings are exactly those of the full detector. mayHoldEncoded decides
// whether a file needs the decoding passes (whole file, every rule); eachGenericCandidate finds
// the keywords around which generic-api-key can match (genericWindows).
//
// Why: on Markdown notes, 85% of gitleaks' time goes to the generic-api-key rule (its keywords,
// "key", "token", "password"…, are ordinary words in engineering notes, so it runs on most
// text) and the decoding passes (a regular expression hunting for base64, hex, percent and \u
// escapes everywhere). Prose rarely holds either an assignment after such a word or a run of
// base64 letters that decodes to text, and a byte loop proves that ~100× faster than the
// regular expressions do.

// genericRule is gitleaks' catch-all rule, the one worth filtering.
const genericRule = "generic-api-key"

// genericRegex is generic-api-key's expression in gitleaks v8.30.1. mayHoldGeneric encodes
// what every match of exactly this expression needs; a configuration whose rule differs keeps
// the rule on every fragment.
const genericRegex = `(?i)[\w.-]{0,50}?(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})(?:[\x60'"\s;]|\\[nr]|$)`

// genericKeywords are the words one of which every generic-api-key match contains.
var genericKeywords = [][]byte{[]byte("access"), []byte("api"), []byte("auth"), []byte("credential"),
	[]byte("creds"), []byte("key"), []byte("passwd"), []byte("password"), []byte("secret"), []byte("token")}

// withoutGeneric returns cfg without generic-api-key, or false when the rule is absent,
// differs from the expression mayHoldGeneric knows, or another rule depends on it.
func withoutGeneric(cfg config.Config) (config.Config, bool) {
	r, ok := cfg.Rules[genericRule]
	if !ok || r.Regex == nil || r.Regex.String() != genericRegex || r.Path != nil || len(r.RequiredRules) > 0 {
		return cfg, false
	}
	for id, o := range cfg.Rules {
		for _, req := range o.RequiredRules {
			if req.RuleID == genericRule && id != genericRule {
				return cfg, false
			}
		}
	}
	out := cfg
	out.Rules = make(map[string]config.Rule, len(cfg.Rules)-1)
	out.OrderedRules = make([]string, 0, len(cfg.OrderedRules))
	for id, rule := range cfg.Rules {
		if id != genericRule {
			out.Rules[id] = rule
		}
	}
	for _, id := range cfg.OrderedRules {
		if id != genericRule {
			out.OrderedRules = append(out.OrderedRules, id)
		}
	}
	return out, true
}

// caseFolders are the two non-ASCII letters that (?i) folds onto ASCII ones (KELVIN SIGN onto
// k, LATIN SMALL LETTER LONG S onto s); text holding either is left to the regular expressions.
var caseFolders = [][]byte{[]byte("\u212a"), []byte("\u017f")}

func hasCaseFolder(b []byte) bool {
	for _, f := range caseFolders {
		if bytes.Contains(b, f) {
			return true
		}
	}
	return false
}

// Byte classes of genericRegex (Go's \s is [\t\n\f\r ]; \v is added to stay on the safe side).
func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == '\v'
}

// isGap is [ \t\w.-] ∪ [\s'"]: what may stand between the keyword and the operator.
func isGap(c byte) bool {
	return isWord(c) || isSpace(c) || c == '.' || c == '-' || c == '\'' || c == '"'
}

// isOpStart is the first byte of every operator (= > :=… || : => ?= ,).
func isOpStart(c byte) bool { return strings.IndexByte("=>:|?,", c) >= 0 }

// isLead is the rest of an operator and [\x60'"\s=]: what may stand between it and the value.
func isLead(c byte) bool { return isSpace(c) || strings.IndexByte(":=>|`'\"", c) >= 0 }

// isValue is [\w.=-] ∪ [a-z0-9+/]: the characters of the value.
func isValue(c byte) bool { return isWord(c) || strings.IndexByte(".=-+/", c) >= 0 }

// mayHoldGeneric reports whether genericRegex might match in b: some keyword followed, within
// 23 gap bytes, by an operator, then within 8 more bytes by a run of at least 10 value bytes.
func mayHoldGeneric(b []byte) bool {
	if hasCaseFolder(b) {
		return true
	}
	found := false
	eachGenericCandidate(b, func(int) { found = true })
	return found
}

// eachGenericCandidate calls fn with the offset of every keyword in b that such an
// assignment follows, in increasing order. Every match of genericRegex in text without a
// case folder holds one of them.
func eachGenericCandidate(b []byte, fn func(i int)) {
	for i := 0; i+1 < len(b); i++ {
		if p := uint16(b[i])<<8 | uint16(b[i+1]); genericPairs[p/64]&(1<<(p%64)) == 0 {
			continue // every keyword has three bytes or more
		}
		kws := genericByFirst[b[i]]
		for _, kw := range kws {
			if hasPrefixFold(b[i:], kw) && assignmentAfter(b[i+len(kw):]) {
				fn(i)
				break
			}
		}
	}
}

// genericPairs holds the first two bytes of each of genericKeywords, in any case: a letter
// such as 'a' or 's' starts a tenth of the words of a note, the pair of one a few percent.
var genericPairs = func() (t [1 << 16 / 64]uint64) {
	for _, kw := range genericKeywords {
		for _, a := range []byte{kw[0], kw[0] - 'a' + 'A'} {
			for _, b := range []byte{kw[1], kw[1] - 'a' + 'A'} {
				p := uint16(a)<<8 | uint16(b)
				t[p/64] |= 1 << (p % 64)
			}
		}
	}
	return t
}()

// genericByFirst lists genericKeywords by their first byte, in either case.
var genericByFirst = func() (t [256][][]byte) {
	for _, kw := range genericKeywords {
		t[kw[0]] = append(t[kw[0]], kw)
		t[kw[0]-'a'+'A'] = append(t[kw[0]-'a'+'A'], kw)
	}
	return t
}()

// hasPrefixFold reports whether b starts with the lower-case ASCII word kw, in any case.
func hasPrefixFold(b, kw []byte) bool {
	if len(b) < len(kw) {
		return false
	}
	for i, k := range kw {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != k {
			return false
		}
	}
	return true
}

// assignmentAfter checks what follows a keyword: ≤20 of [ \t\w.-] and ≤3 of [\s'"] (together
// ≤23 gap bytes), an operator, ≤3 more operator bytes and ≤5 of [\x60'"\s=] (together ≤8 lead
// bytes), then ≥10 value bytes.
func assignmentAfter(b []byte) bool {
	for i := 0; i < len(b) && i <= 23; i++ {
		if isOpStart(b[i]) {
			for j := i + 1; j < len(b) && j <= i+1+8; j++ {
				if valueRun(b[j:]) {
					return true
				}
				if !isLead(b[j]) {
					break
				}
			}
		}
		if !isGap(b[i]) {
			return false
		}
	}
	return false
}

func valueRun(b []byte) bool {
	if len(b) < 10 {
		return false
	}
	for _, c := range b[:10] {
		if !isValue(c) {
			return false
		}
	}
	return true
}

// mayHoldEncoded reports whether gitleaks' decoder might find a segment in b. Its expression
// (detect/codec) matches a percent escape, a U+XXXX or \uXXXX escape, 32 hex digits, or a run
// of 16 base64 characters; a segment counts only if it decodes to printable text. Without an
// escape, every match lies inside one maximal run of [\w/+-] (with up to two '=' after it), so
// the decoder finds a segment in b only if it finds one in such a run on its own: each run of
// 16 or more is handed to gitleaks' own decoder. Block markers (MACHINE_BLOCK_START…) and git
// commit ids are such runs; they decode to nothing.
func mayHoldEncoded(b []byte) bool {
	// Each byte an escape starts with, searched for on its own: three vectorised searches
	// cost less than one test per byte.
	for _, c := range []byte{'U', '%', '\\'} {
		for at := 0; ; at++ {
			i := bytes.IndexByte(b[at:], c)
			if i < 0 {
				break
			}
			at += i
			if escapeAt(b, at) {
				return true
			}
		}
	}
	return mayHoldBase64(b)
}

// escapeAt reports whether an escape the decoder reads starts at b[i]: U+hhhh, %hh, \u or \\u.
func escapeAt(b []byte, i int) bool {
	switch c := b[i]; {
	case c == 'U' && unicodeEscape(b[i:]):
		return true
	case c == '%' && i+2 < len(b) && isHex(b[i+1]) && isHex(b[i+2]):
		return true
	case c == '\\' && (i+1 < len(b) && isU(b[i+1]) || i+2 < len(b) && b[i+1] == '\\' && isU(b[i+2])):
		return true
	}
	return false
}

// mayHoldBase64 reports whether a run of 16 or more base64 characters decodes to something.
func mayHoldBase64(b []byte) bool {
	var dec *codec.Decoder
	for i := 0; i < len(b); {
		if !isBase64(b[i]) {
			i++
			continue
		}
		j := i
		for j < len(b) && isBase64(b[j]) {
			j++
		}
		if j-i >= 16 {
			k := j
			for k < len(b) && k < j+2 && b[k] == '=' {
				k++
			}
			if decodesToNothing(b[i:k]) {
				i = j
				continue
			}
			if dec == nil {
				dec = codec.NewDecoder()
			}
			if _, segs := dec.Decode(string(b[i:k]), nil); len(segs) > 0 {
				return true
			}
		}
		i = j
	}
	return false
}

// decodesToNothing reports, for a maximal run of base64 characters (and the '=' after it),
// whether gitleaks' decoder certainly finds no segment in it, without running its regular
// expression (a fifth of the scan of an image blob): the run is one match of its base64
// pattern unless it starts with 32 hex digits or holds a U+ escape, and a base64 match
// counts only if it decodes, in the standard or the URL alphabet, to printable ASCII, which
// the first three bytes (from the first four characters) already refute for random data 19
// times in 20.
func decodesToNothing(run []byte) bool {
	hex := 0
	for hex < len(run) && isHex(run[hex]) {
		hex++
	}
	if hex >= 32 || bytes.Contains(run, []byte("U+")) {
		return false
	}
	return !printableQuantum(run, base64.StdEncoding) && !printableQuantum(run, base64.RawURLEncoding)
}

// printableQuantum reports whether the first four characters of run decode, in enc, to three
// printable bytes as gitleaks' decoder counts them ('\t' to '~').
func printableQuantum(run []byte, enc *base64.Encoding) bool {
	var out [3]byte
	if n, err := enc.Decode(out[:], run[:4]); err != nil || n != 3 {
		return false
	}
	for _, c := range out {
		if c <= '\x08' || c >= '\x7f' {
			return false
		}
	}
	return true
}

// unicodeEscape reports whether b starts with what the decoder's U+XXXX pattern needs: four
// hex digits after "U+", then white space or the end of the text. (A bare "U+" occurs about
// once in 4 KB of base64 and would send every image blob to the decoding passes.)
func unicodeEscape(b []byte) bool {
	if len(b) < 6 || b[1] != '+' {
		return false
	}
	for _, c := range b[2:6] {
		if !isHex(c) {
			return false
		}
	}
	return len(b) == 6 || isSpace(b[6])
}

func isBase64(c byte) bool { return base64Bytes[c] }

var base64Bytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isWord(byte(c)) || c == '/' || c == '+' || c == '-'
	}
	return t
}()

func isU(c byte) bool { return c == 'u' || c == 'U' }

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
