package scanner

import (
	"fmt"
	"io"
	"strings"
)

// WriteGitHub writes findings as GitHub Actions workflow commands: one ::error or ::warning
// annotation per finding, shown on the pull request's diff at its file and line.
func WriteGitHub(w io.Writer, fs []Finding) error {
	for _, f := range fs {
		level := "error"
		if f.Severity == SeverityWarning {
			level = "warning"
		}
		props := "file=" + ghProperty(f.Path)
		if f.Line > 0 {
			props += fmt.Sprintf(",line=%d", f.Line)
		}
		props += ",title=" + ghProperty("mbguard "+f.Rule)
		msg := f.Message
		if f.Fix != "" {
			msg += "\nfix: " + f.Fix
		}
		if _, err := fmt.Fprintf(w, "::%s %s::%s\n", level, props, ghData(msg)); err != nil {
			return err
		}
	}
	return nil
}

// WriteSummary writes a Markdown job summary: a count line and a table of the findings.
func WriteSummary(w io.Writer, fs []Finding) error {
	errs, warns := 0, 0
	for _, f := range fs {
		if f.Severity == SeverityError {
			errs++
		} else {
			warns++
		}
	}
	var b strings.Builder
	b.WriteString("## mbguard check\n\n")
	if len(fs) == 0 {
		b.WriteString("memory-bank/ passed: no findings.\n")
	} else {
		fmt.Fprintf(&b, "%d error(s), %d warning(s) in memory-bank/. Run `mbguard check` locally for the fixes.\n\n", errs, warns)
		b.WriteString("| file | line | rule | severity | message |\n|---|---|---|---|---|\n")
		for _, f := range fs {
			line := ""
			if f.Line > 0 {
				line = fmt.Sprint(f.Line)
			}
			fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s | %s |\n", mdCell(DisplayPath(f.Path)), line, mdCell(f.Rule), f.Severity, mdCell(f.Message))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ghData escapes a workflow command's message (GitHub's rules: %, CR, LF).
func ghData(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(escapeControl(l), "%", "%25")
	}
	return strings.Join(lines, "%0A")
}

// ghProperty escapes a workflow command property value (also : and ,).
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", ":", "%3A", ",", "%2C").Replace(escapeControl(s))
}

// mdCell keeps a table cell on one line and its pipes literal.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\r", " ", "\n", " ", "`", "'").Replace(escapeControl(s))
}
