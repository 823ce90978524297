package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// replyRules are the hosts' rules for a hook's reply, from HOSTS.md and the hosts' own schemas:
// what each host accepts per event. A reply a host rejects is a failed hook there, and on most
// hosts a failed hook lets the call run, so no reply mbguard renders may break these
// (TestEveryReplyIsOneTheHostAccepts).
var replyRules = map[string]func(event string, r Reply) error{
	"claude":  claudeShapedRule(claudeShapedHost{contextEvents: claudeContextEvents, exit2Blocks: true, postDecision: true}),
	"qwen":    claudeShapedRule(claudeShapedHost{contextEvents: qwenContextEvents, exit2Blocks: true}),
	"droid":   claudeShapedRule(claudeShapedHost{contextEvents: qwenContextEvents, exit2Blocks: true}),
	"codex":   codexRule,
	"gemini":  geminiRule,
	"copilot": copilotRule,
	"crush":   crushRule,
	"cursor":  cursorRule,
	"auggie":  claudeShapedRule(claudeShapedHost{contextEvents: auggieContextEvents, exit2Blocks: true}),
	"cline":   clineRule,
}

// auggieContextEvents: Auggie drops what SessionStart and PromptSubmit print; only PostToolUse's
// hookSpecificOutput.additionalContext reaches its model (appended to the tool's result).
var auggieContextEvents = map[string]bool{claudePostTool: true}

// AcceptsReply reports why host would reject reply r to event (nil when it accepts it).
func AcceptsReply(host, event string, r Reply) error {
	rule, ok := replyRules[host]
	if !ok {
		return fmt.Errorf("no reply rules for host %q", host)
	}
	return rule(event, r)
}

// replyObject decodes stdout as one JSON object (nil for an empty stdout).
func replyObject(r Reply) (map[string]json.RawMessage, error) {
	s := bytes.TrimSpace(r.Stdout)
	if len(s) == 0 {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(s, &m); err != nil {
		return nil, fmt.Errorf("stdout is not one JSON object: %v", err)
	}
	return m, nil
}

func keysOf(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// onlyKeys fails when m holds a key outside allowed.
func onlyKeys(m map[string]json.RawMessage, allowed ...string) error {
	for _, k := range keysOf(m) {
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("key %q is not one this event takes (%s)", k, strings.Join(allowed, ", "))
		}
	}
	return nil
}

func stringField(m map[string]json.RawMessage, k string) (string, bool) {
	raw, ok := m[k]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

type claudeShapedHost struct {
	contextEvents map[string]bool
	exit2Blocks   bool
	postDecision  bool // PostToolUse takes {"decision":"block","reason"}
}

// qwenContextEvents take hookSpecificOutput.additionalContext on Qwen Code and Droid.
var qwenContextEvents = map[string]bool{claudeSessionStart: true, claudePrompt: true, claudePostTool: true, claudePostFailure: true}

// wantReason fails when m's key is not a non-empty string: a refusal the model gets no reason
// for.
func wantReason(m map[string]json.RawMessage, key string) error {
	if s, _ := stringField(m, key); strings.TrimSpace(s) == "" {
		return fmt.Errorf("a refusal with no %s", key)
	}
	return nil
}

// decisionRule checks m's top-level "decision": only value, only where ok, with a reason.
func decisionRule(m map[string]json.RawMessage, value string, ok bool, event string) error {
	d, has := m["decision"]
	if !has {
		return nil
	}
	if s, _ := stringField(m, "decision"); !ok || s != value {
		return fmt.Errorf("decision %s on %s", d, event)
	}
	return wantReason(m, "reason")
}

// permissionRule checks a permissionDecision in obj: only a deny (mbguard only ever refuses),
// only where ok, with its reason.
func permissionRule(obj map[string]json.RawMessage, ok bool, event string) error {
	pd, has := stringField(obj, "permissionDecision")
	if !has && obj["permissionDecision"] == nil {
		return nil
	}
	if !ok || pd != "deny" {
		return fmt.Errorf("permissionDecision %q on %s: only a deny, only on the gate", pd, event)
	}
	return wantReason(obj, "permissionDecisionReason")
}

// hookSpecific returns m's hookSpecificOutput (nil when there is none), which must be an object
// naming the event it answers and holding only keys.
func hookSpecific(m map[string]json.RawMessage, event string, keys ...string) (map[string]json.RawMessage, error) {
	raw, ok := m["hookSpecificOutput"]
	if !ok {
		return nil, nil
	}
	var hso map[string]json.RawMessage
	if err := json.Unmarshal(raw, &hso); err != nil {
		return nil, fmt.Errorf("hookSpecificOutput is not an object: %v", err)
	}
	if name, _ := stringField(hso, "hookEventName"); name != event {
		return nil, fmt.Errorf("hookSpecificOutput.hookEventName %q answers %s", name, event)
	}
	return hso, onlyKeys(hso, append(keys, "hookEventName")...)
}

// onlyOn fails when obj holds key on an event where ok is false.
func onlyOn(obj map[string]json.RawMessage, key string, ok bool, event string) error {
	if _, has := obj[key]; has && !ok {
		return fmt.Errorf("%s on %s, which does not take it", key, event)
	}
	return nil
}

// exitRule: exit 0 always, or exit 2 on a gate with the reason on stderr where gates refuse
// by exit code.
func exitRule(r Reply, gate bool) error {
	switch {
	case r.Exit == 0:
		return nil
	case r.Exit == 2 && !gate:
		return fmt.Errorf("exit 2 off the gate: only a gate refuses by exit code")
	case r.Exit == 2 && strings.TrimSpace(r.Stderr) == "":
		return fmt.Errorf("exit 2 with nothing on stderr: the model gets no reason")
	case r.Exit == 2:
		return nil
	}
	return fmt.Errorf("exit %d: a hook that fails lets the call run", r.Exit)
}

// claudeShapedRule checks Claude Code's shape (and Qwen Code's and Droid's, which copy it):
// exit 0 or 2, exit 2 only on a gate and with a reason on stderr, hookSpecificOutput naming the
// event it answers and only on the events that take it, a deny with its reason.
func claudeShapedRule(h claudeShapedHost) func(string, Reply) error {
	return func(event string, r Reply) error {
		gate := event == claudePreTool || event == claudePreSkillShell
		if err := exitRule(r, gate && h.exit2Blocks); err != nil {
			return err
		}
		m, err := replyObject(r)
		if err != nil || m == nil {
			return err
		}
		if err := onlyKeys(m, "hookSpecificOutput", "decision", "reason"); err != nil {
			return err
		}
		if err := decisionRule(m, "block", h.postDecision && event == claudePostTool, event); err != nil {
			return err
		}
		hso, err := hookSpecific(m, event, "additionalContext", "updatedToolOutput", "permissionDecision", "permissionDecisionReason")
		if err != nil || hso == nil {
			return err
		}
		return errors.Join(onlyOn(hso, "additionalContext", h.contextEvents[event], event),
			onlyOn(hso, "updatedToolOutput", event == claudePostTool, event),
			permissionRule(hso, event == claudePreTool, event))
	}
}

// codexRule: Codex CLI 0.171.0 treats many replies as a failed hook, and a failed hook lets the
// command run (HOSTS.md §8): a bare allow or ask, decision "approve", continue/suppressOutput/
// stopReason, a deny with an empty reason, exit 2 with an empty stderr, updatedInput,
// updatedMCPToolOutput, hookSpecificOutput on Stop. To allow it wants nothing at all.
func codexRule(event string, r Reply) error {
	if r.Exit != 0 {
		return fmt.Errorf("exit %d: Codex takes a refusal as JSON; any failed hook lets the call run", r.Exit)
	}
	m, err := replyObject(r)
	if err != nil || m == nil {
		return err
	}
	if err := onlyKeys(m, "hookSpecificOutput", "decision", "reason"); err != nil {
		return err
	}
	if err := decisionRule(m, "block", event == codexPostTool, event); err != nil {
		return err
	}
	if err := onlyOn(m, "hookSpecificOutput", event != "Stop", event); err != nil {
		return err
	}
	hso, err := hookSpecific(m, event, "additionalContext", "permissionDecision", "permissionDecisionReason")
	if err != nil || hso == nil {
		return err
	}
	return errors.Join(onlyOn(hso, "additionalContext", codexContextEvents[event], event),
		permissionRule(hso, event == codexPreTool, event))
}

// geminiRule: Gemini CLI reads JSON on stdout on every reply; a refusal is {"decision":"deny",
// "reason"} on BeforeTool (and replaces the result on AfterTool); context rides in
// hookSpecificOutput.
func geminiRule(event string, r Reply) error {
	if r.Exit != 0 {
		return fmt.Errorf("exit %d: Gemini CLI fails open on exit 1", r.Exit)
	}
	m, err := replyObject(r)
	if err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("empty stdout: Gemini CLI wants JSON on every reply")
	}
	if err := onlyKeys(m, "hookSpecificOutput", "decision", "reason"); err != nil {
		return err
	}
	if err := decisionRule(m, "deny", event == geminiBeforeTool || event == geminiAfterTool, event); err != nil {
		return err
	}
	if err := onlyOn(m, "hookSpecificOutput", event != geminiBeforeTool && event != geminiSessionEnd, event); err != nil {
		return err
	}
	_, err = hookSpecific(m, event, "additionalContext")
	return err
}

// copilotRule: Copilot CLI reads JSON on stdout on every reply; preToolUse takes
// permissionDecision (the PascalCase dialect also hookSpecificOutput), postToolUse
// modifiedResult, the others additionalContext.
func copilotRule(event string, r Reply) error {
	if r.Exit != 0 {
		return fmt.Errorf("exit %d: on Copilot CLI exit 2's reason never reaches the model", r.Exit)
	}
	m, err := replyObject(r)
	if err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("empty stdout: Copilot CLI wants JSON on every reply")
	}
	if err := onlyKeys(m, "permissionDecision", "permissionDecisionReason", "hookSpecificOutput", "modifiedResult", "additionalContext"); err != nil {
		return err
	}
	pre := strings.EqualFold(event, copilotPreTool)
	post := strings.EqualFold(event, copilotPostTool) || strings.EqualFold(event, copilotPostFailure)
	if err := errors.Join(permissionRule(m, pre, event),
		onlyOn(m, "hookSpecificOutput", pre && event[0] >= 'A' && event[0] <= 'Z', event),
		onlyOn(m, "modifiedResult", post, event)); err != nil {
		return err
	}
	if raw, ok := m["modifiedResult"]; ok {
		var mr map[string]json.RawMessage
		if err := json.Unmarshal(raw, &mr); err != nil {
			return fmt.Errorf("modifiedResult is not an object: %v", err)
		}
		if rt, _ := stringField(mr, "resultType"); rt != "success" && rt != "failure" {
			return fmt.Errorf("modifiedResult.resultType %q", rt)
		}
	}
	return nil
}

// crushRule: Crush's one event, PreToolUse: {"decision":"deny","reason"} refuses, {"context"}
// appends to the result; exit 1 fails open.
func crushRule(event string, r Reply) error {
	if r.Exit != 0 {
		return fmt.Errorf("exit %d: mbguard refuses on Crush with JSON", r.Exit)
	}
	m, err := replyObject(r)
	if err != nil || m == nil {
		return err
	}
	if err := onlyKeys(m, "decision", "reason", "context"); err != nil {
		return err
	}
	return decisionRule(m, "deny", true, event)
}

// cursorRule: Cursor wants a JSON object on every path (an empty stdout is no answer); the
// "before" events answer {"permission"} (beforeReadFile nothing else), beforeSubmitPrompt
// {"continue"}, postToolUse and sessionStart {"additional_context"}, the rest {}.
func cursorRule(event string, r Reply) error {
	if r.Exit != 0 {
		return fmt.Errorf("exit %d: Cursor takes the decision as JSON with exit 0", r.Exit)
	}
	m, err := replyObject(r)
	if err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("empty stdout: Cursor wants JSON on every reply")
	}
	var allowed []string
	switch event {
	case cursorPreTool, cursorPreShell:
		allowed = []string{"permission", "user_message", "agent_message"}
	case cursorReadFile:
		allowed = []string{"permission"}
	case cursorPrompt:
		allowed = []string{"continue"}
	case cursorPostTool, cursorPostFailure, cursorSessionStart:
		allowed = []string{"additional_context"}
	}
	if err := onlyKeys(m, allowed...); err != nil {
		return err
	}
	if slices.Contains(allowed, "permission") {
		p, _ := stringField(m, "permission")
		if p != "allow" && p != "deny" {
			return fmt.Errorf("permission %q on %s: want allow or deny", p, event)
		}
		if p == "deny" && event != cursorReadFile {
			if msg, _ := stringField(m, "agent_message"); strings.TrimSpace(msg) == "" {
				return fmt.Errorf("a deny without agent_message: the model gets no reason")
			}
		}
	}
	return nil
}

// clineRule: Cline ignores exit codes and stderr and reads one JSON object from stdout (bad
// JSON lets the call run). cancel: true ends the whole task without telling the model, so
// mbguard never sends it; a refusal replaces the input (overrideInput, PreToolUse only) and
// must say why in contextModification.
func clineRule(event string, r Reply) error {
	if r.Exit != 0 {
		return fmt.Errorf("exit %d: Cline ignores exit codes, so a refusal by exit code lets the call run", r.Exit)
	}
	m, err := replyObject(r)
	if err != nil || m == nil {
		return err
	}
	if err := onlyKeys(m, "cancel", "contextModification", "context", "errorMessage", "overrideInput"); err != nil {
		return err
	}
	if raw, ok := m["cancel"]; ok && string(raw) != "false" {
		return fmt.Errorf("cancel %s: Cline ends the whole task and the model is never told", raw)
	}
	raw, ok := m["overrideInput"]
	if !ok {
		return nil
	}
	if event != clinePreTool {
		return fmt.Errorf("overrideInput on %s: only PreToolUse replaces a tool's input", event)
	}
	var in map[string]any
	if json.Unmarshal(raw, &in) != nil {
		return fmt.Errorf("overrideInput %s is not a JSON object", raw)
	}
	if msg, _ := stringField(m, "contextModification"); strings.TrimSpace(msg) == "" {
		return fmt.Errorf("an overrideInput without contextModification: the model gets no reason")
	}
	return nil
}
