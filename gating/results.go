package gating

import "strings"

// WriteResults returns, for every memory-bank/ path a write tool call writes, the exact text
// the tool leaves there when the arguments and the current content (read through fx) tell it:
// a Write's content, an Edit applied in memory, a patch applied. A path whose result cannot be
// known (an edit whose oldString is not found verbatim) is left out. The outcome check accepts
// on those paths only that text after the call: a shell overwrite in a parallel call is not
// taken for the tool's write.
func WriteResults(tool string, args map[string]any, cwd string, fx Facts) map[string]string {
	a := parseAction(tool, args, cwd, fx, 0)
	if a.bad != "" {
		return nil
	}
	out := map[string]string{}
	for _, w := range a.writes {
		if !w.inRepo || !strings.HasPrefix(w.rel, bankDir+"/") {
			continue
		}
		base, ok := fx.Read(w.rel)
		if w.op == opPatch && w.src != w.rel {
			base, ok = fx.Read(w.src)
		}
		switch w.op {
		case opWrite:
			out[w.rel] = w.content
		case opEdit:
			if !ok {
				base = ""
			}
			if next, known := applyEdits(base, w.edits); known {
				out[w.rel] = next
			}
		case opPatch:
			if ok {
				if next, known := w.patch.Apply(base); known {
					out[w.rel] = next
				}
			}
		}
	}
	return out
}
