package outcome

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mbguard/mbguard/host"
)

// Blocked reports whether the check undid anything: the agent must be told.
func (r Report) Blocked() bool { return len(r.Undone) > 0 }

// HostToolNames returns the names of host's own shell, write and edit tools (host.Spec.Tools):
// the model is told which of its tools did what, and which to use, in its host's words (the
// engine calls them Bash, Write and Edit). ok is false for a host that names none.
func HostToolNames(name string) (shell, write, edit string, ok bool) {
	t := host.Get(name).Tools
	return t.Shell, t.Write, t.Edit, t.Shell != ""
}

// hostTool is the host's own name of the engine's tool (Bash, Write, Edit), or tool itself.
func hostTool(name, tool string) string {
	shell, write, edit, ok := HostToolNames(name)
	if !ok {
		return tool
	}
	switch tool {
	case "Bash":
		return shell
	case "Write":
		return write
	case "Edit":
		return edit
	}
	return tool
}

// Message tells the agent what was undone, where its bytes are and which tool to use
// instead, in the host's own tool names (host.Spec.Tools).
func (r Report) Message(hostName string) string {
	if len(r.Undone) == 0 {
		return ""
	}
	var b strings.Builder
	tool := hostTool(hostName, r.Call.Tool)
	if tool == "" {
		tool = "tool"
	}
	bankUndone := r.undid(func(p string) bool { return under(p, "memory-bank") })
	cfgUndone := r.undid(func(p string) bool { return !under(p, "memory-bank") })
	switch {
	case bankUndone && cfgUndone:
		fmt.Fprintf(&b, "[mbguard] undid what the last %s call did to memory-bank/ and to mbguard's configuration: both are back to their known-good state.", tool)
	case cfgUndone:
		fmt.Fprintf(&b, "[mbguard] undid what the last %s call did to mbguard's configuration or hooks: they are back to their known-good state.", tool)
	default:
		fmt.Fprintf(&b, "[mbguard] undid what the last %s call did to memory-bank/: the bank is back to its known-good state.", tool)
	}
	for _, u := range r.Undone {
		fmt.Fprintf(&b, "\n- %s: %s", u.Path, u.Change)
		if w := whyText(u.Why); w != "" {
			b.WriteString(" — " + w)
		}
	}
	if len(r.Settled) > 0 {
		b.WriteString("\n(This includes changes from an earlier call whose result mbguard never saw.)")
	}
	if e := r.evidence(); e != "" {
		b.WriteString("\nEvidence: " + e)
	}
	if r.Quarantine != "" {
		fmt.Fprintf(&b, "\nThe bytes written there are kept in the quarantine (`mbguard quarantine show %s`); only the user can restore them.", r.Quarantine)
	}
	write, edit := "write", "edit"
	if _, w, e, ok := HostToolNames(hostName); ok {
		write, edit = w, e
	}
	if !bankUndone {
		b.WriteString("\nmbguard's configuration, hook files and the git config keys that run code are the user's to change. Next: ask the user to make this change themselves.")
		return b.String()
	}
	tools := write + " or " + edit
	if write == edit {
		tools = write
	}
	fmt.Fprintf(&b, "\nTo change memory-bank/, use the %s tool on a .md file, keeping the block markers and the USER_BLOCK as they are.", tools)
	return b.String()
}

// undid reports whether an undone path is one of those in.
func (r Report) undid(in func(string) bool) bool {
	return slices.ContainsFunc(r.Undone, func(u Undone) bool { return in(u.Path) })
}

// UnguardedText says what an unconfirmed change to user-level hook files means, and the one
// step that ends it.
const UnguardedText = "This session is unguarded until the user confirms them: writes to memory-bank/ and to mbguard's configuration are refused. " +
	"Next: tell the user to review these files and run `mbguard doctor --confirm-user-files` in a terminal (an agent cannot run it)."

// BackgroundMessage tells the agent that the check ran out of time: what the call changed in
// memory-bank/ is still being undone, and the next call waits for it. "" when it did not.
func (r Report) BackgroundMessage() string {
	if !r.Background {
		return ""
	}
	id := r.Call.ID
	if id == "" && len(r.Settled) > 0 {
		id = r.Settled[0].ID
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[mbguard] call %s changed more in memory-bank/ than mbguard could check in time: it is still undoing it in the background", id)
	if n := len(r.Undone); n > 0 {
		fmt.Fprintf(&b, " (%d paths undone so far", n)
		if r.Quarantine != "" {
			fmt.Fprintf(&b, ", kept in `mbguard quarantine show %s`", r.Quarantine)
		}
		b.WriteString(")")
	}
	b.WriteString(". Nothing it changed stands until that check is done. Next: wait a few seconds; the next call waits for it and is refused if it is not done.")
	return b.String()
}

// evidence says why mbguard holds the agent responsible: which call's window the changes
// fell in, and when it opened.
func (r Report) evidence() string {
	at := func(ms int64) string {
		if ms == 0 {
			return "an unknown time"
		}
		return time.UnixMilli(ms).UTC().Format("15:04:05 UTC")
	}
	name := func(c Call) string {
		s := hostTool(c.Host, c.Tool) + " call"
		if c.ID != "" {
			s += " " + strings.TrimSuffix(c.ID, bgSuffix)
		}
		return s
	}
	var parts []string
	for _, c := range r.Settled {
		if strings.HasSuffix(c.ID, bgSuffix) {
			parts = append(parts, fmt.Sprintf("processes %s left running (%s) were still alive", name(c), pids(c.Procs)))
		} else {
			parts = append(parts, fmt.Sprintf("the window of %s, open since %s, closed without its post event", name(c), at(c.Start)))
		}
	}
	if r.Call.Start != 0 && !slices.ContainsFunc(r.Settled, func(c Call) bool { return c.ID == r.Call.ID }) {
		parts = append([]string{fmt.Sprintf("the changes appeared during %s, between its pre check at %s and its post check", name(r.Call), at(r.Call.Start))}, parts...)
	} else if r.Call.Start == 0 && len(r.Settled) == 0 {
		parts = append(parts, fmt.Sprintf("no pre check recorded %s, so every change since the last check was judged as its", name(r.Call)))
	}
	return strings.Join(parts, "; ") + "."
}

func pids(ps []Proc) string {
	var s []string
	for _, p := range ps {
		s = append(s, "pid "+strconv.Itoa(p.PID))
	}
	if len(s) == 0 {
		return "none left"
	}
	return strings.Join(s, ", ")
}

// Notice reports rule-breaking changes made between tool calls, which mbguard kept.
func (r Report) Notice() string {
	var b strings.Builder
	if len(r.Tampered) > 0 {
		b.WriteString("mbguard: its own state was tampered with; nothing forged was used:")
		for _, s := range r.Tampered {
			b.WriteString("\n- " + s)
		}
		b.WriteString("\nNext: tell the user, who can look at `mbguard doctor`.")
	}
	if len(r.Unguarded) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("mbguard: user-level hook settings changed during an agent's call (mbguard does not rewrite files outside the repository):")
		for _, p := range r.Unguarded {
			b.WriteString("\n- " + p)
		}
		b.WriteString("\n" + UnguardedText)
	}
	if len(r.Noticed) == 0 {
		return b.String()
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	b.WriteString("mbguard: memory-bank/ was changed where mbguard cannot hold the agent responsible, and kept as it is (mbguard never reverts a person):")
	for _, p := range r.Noticed {
		b.WriteString("\n- " + p.String())
	}
	b.WriteString("\nRun `mbguard check --all` to see how to fix them.")
	return b.String()
}
