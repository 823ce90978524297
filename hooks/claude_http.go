package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mbguard/mbguard/host"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
	"github.com/mbguard/mbguard/watcher"
)

// Claude Code's type "http" hooks: with watch.http_port set, `mbguard watch` answers Claude
// Code's events over HTTP on 127.0.0.1 — the same pipeline as `mbguard hook claude`, without a
// process start per event. The HTTP server is cmd/mbguard's (mbguard-hook links none); what
// it serves is here.
//
// Who may send an event: the process that holds the request's client socket (the watcher
// reads it from the process table), judged as a hook process is (origin.go): a request from
// inside an agent's tool call — `curl` in a Bash call, a script it left running — is refused
// and changes nothing. The host's own requests come from the host process itself.
//
// What stays a process: the Bash tool's events. A shell call's outcome check counts the
// processes the call left running by the hook's session and ancestry (outcome.leftBehind),
// which only a hook started by the host shares; install writes a command hook for Bash
// beside the http one, and the http answer for a Bash event is empty.

// HTTPHeader is the header every mbguard http hook request carries (install writes it): a
// request without it — a page the agent's web fetch tool opens — is not a hook event.
const HTTPHeader = "X-Mbguard-Hook"

// HTTPHeaderValue is HTTPHeader's value: the host whose protocol the request speaks.
const HTTPHeaderValue = "claude"

// HTTPEnvHeader carries the host's MBGUARD variable (the escape hatch) to the watcher: Claude
// Code fills it from its environment (allowedEnvVars).
const HTTPEnvHeader = "X-Mbguard-Env"

// HTTPPath is where the watcher answers Claude Code's events.
const HTTPPath = "/hook/claude"

// httpShell is the tool whose events a command hook answers in http mode: Claude Code's
// shell tool, from the host table.
var httpShell = host.Get("claude").Tools.Shell

// HTTPRequest is one Claude Code http hook request as the watcher's server read it.
type HTTPRequest struct {
	Payload []byte
	From    int    // the process that holds the client socket (0: not found)
	Why     string // why From is unknown ("" when it is known)
	Env     string // the HTTPEnvHeader value: the host's MBGUARD
}

// AnswerHTTP answers one Claude Code http hook request: the HTTP status and the JSON body. A
// refusal is Claude Code's JSON form of it (an http hook has no exit code or stderr). A
// request the host did not send gets 403 and the reason: it changed nothing.
func (h *Hook) AnswerHTTP(ctx context.Context, req HTTPRequest) (status int, body []byte) {
	var head struct {
		Event string `json:"hook_event_name"`
		Tool  string `json:"tool_name"`
	}
	_ = json.Unmarshal(req.Payload, &head)
	if claudeToolEvents[head.Event] && head.Tool == httpShell {
		return 200, []byte("{}\n") // the command hook beside this one answers it
	}
	if req.From <= 0 {
		msg := "[mbguard] refused: the process that sent this " + head.Event + " event could not be told (" + req.Why +
			"); nothing was recorded. Next: the person runs mbguard doctor."
		return 403, httpBody(head.Event, Reply{Exit: 2, Stderr: msg}, true)
	}
	hh := *h
	hh.Host = "claude"
	hh.Requester = req.From
	hh.Getenv = httpEnv(req.Env, h.Getenv)
	foreign := false // the call is about a repository this watcher does not answer for
	if connect := h.Connect; connect != nil {
		hh.Connect = func(r repo.Repo, cfg *config.Config) (Doer, func(), error) {
			do, done, err := connect(r, cfg)
			foreign = foreign || errors.Is(err, errNotThisWatcher)
			return do, done, err
		}
	}
	reply := hh.Run(watcher.WithHost(ctx, req.From), bytes.NewReader(req.Payload))
	if reply.Forged {
		return 403, httpBody(reply.Event, Reply{Exit: 2, Stderr: reply.Stderr}, true)
	}
	if foreign {
		// as if nothing answered here: Claude Code refuses the call a PreToolUse guards
		return 409, httpBody(reply.Event, Reply{Exit: 2, Stderr: reply.Stderr}, true)
	}
	return 200, httpBody(reply.Event, reply, claudeGuardEvents[head.Event])
}

// httpEnv is the environment an http hook call is decided by: MBGUARD (the escape hatch) as
// the host sent it, the rest the watcher's — started by the person, so its configuration is
// the one its own Service runs by (the host's other variables are not sent).
func httpEnv(mbguard string, getenv func(string) string) func(string) string {
	return func(k string) string {
		switch {
		case k == "MBGUARD":
			return mbguard
		case getenv == nil:
			return ""
		}
		return getenv(k)
	}
}

// httpBody is reply in an http hook's form: the command hook's stdout JSON as it is, an exit
// 2 (the reason on stderr) as the event's JSON refusal.
func httpBody(event string, r Reply, guard bool) []byte {
	if r.Exit != 2 {
		if len(bytes.TrimSpace(r.Stdout)) == 0 {
			return []byte("{}\n")
		}
		return r.Stdout
	}
	reason := strings.TrimSpace(r.Stderr)
	var out map[string]any
	switch {
	case guard:
		out = map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event,
			"permissionDecision": "deny", "permissionDecisionReason": reason}}
	case event == claudePrompt || event == claudePostTool || event == claudeStop || event == claudeSubagentStop:
		out = map[string]any{"decision": "block", "reason": reason}
	default:
		out = map[string]any{"systemMessage": reason}
	}
	return encodeJSON(out)
}

// errNotThisWatcher is what ConnectOwn gives for another repository's call.
var errNotThisWatcher = errors.New("the watcher on this port answers Claude Code's http hooks for its own repository only")

// ConnectOwn is how the watcher's http server reaches a repository's Service: its own
// Service for its own repository while the configuration is the one it runs by, else a
// Service in this process for that configuration. Another repository is not its to answer
// for: its watcher would take this watcher, not the host, for the sender of the call and
// record the wrong host (origin.go), so the call is not decided (the pipeline's fail-safe
// rule) and the message names the next step.
func ConnectOwn(svc *watcher.Service, now func() time.Time) func(r repo.Repo, cfg *config.Config) (Doer, func(), error) {
	own := watcher.ConfigDigest(svc.Cfg)
	return func(r repo.Repo, cfg *config.Config) (Doer, func(), error) {
		if r.Root != svc.Repo.Root {
			return nil, nil, fmt.Errorf("%w (%s); give %s a watch.http_port of its own and run mbguard watch there", errNotThisWatcher, svc.Repo.Root, r.Root)
		}
		if watcher.ConfigDigest(cfg) == own {
			return func(ctx context.Context, req watcher.Request) (watcher.Response, error) {
				return svc.Handle(ctx, req), nil
			}, func() {}, nil
		}
		// the configuration changed since the watcher started: decide by the new one
		local := watcher.NewService(r, cfg, watcher.ServiceOptions{Now: now})
		return func(ctx context.Context, req watcher.Request) (watcher.Response, error) {
			return local.Handle(ctx, req), nil
		}, func() { local.Close() }, nil
	}
}

// claudeHTTPEvents are the events install points at the watcher (host.Spec.HTTPEvents); the
// others keep the command hook.
var claudeHTTPEvents = func() map[string]bool {
	m := map[string]bool{}
	for _, ev := range host.Get("claude").HTTPEvents {
		m[ev] = true
	}
	return m
}()

// claudeHTTPFile is Claude Code's settings with http hooks (InstallOptions.HTTPPort): the
// events of claudeHTTPEvents POSTed to the watcher, the Bash tool's also on the command hook,
// which answers them; the other events on the command hook alone. A watcher that does not
// answer refuses the calls the guard events would judge (onFailure "block"), as a hook
// process that cannot start does.
func claudeHTTPFile(o InstallOptions, command string) hookFile {
	timeout := int(outcome.HookTimeout / time.Second)
	onFailure := func(ev string) string {
		if claudeGuardEvents[ev] {
			return "block"
		}
		return "continue"
	}
	group := func(matcher string, h claudeHook) json.RawMessage {
		g := claudeGroup{Hooks: []claudeHook{h}}
		if matcher != "" {
			g.Matcher = &matcher
		}
		b, _ := json.Marshal(g)
		return b
	}
	return hookFile{
		host: "claude",
		entry: func(ev string) json.RawMessage {
			matcher := ""
			if claudeToolEvents[ev] {
				matcher = "*"
			}
			if !claudeHTTPEvents[ev] {
				return group(matcher, claudeHook{Type: "command", Command: command, Timeout: timeout, OnFailure: onFailure(ev)})
			}
			return group(matcher, claudeHook{Type: "http", URL: HTTPURL(o.HTTPPort),
				Headers:        map[string]string{HTTPHeader: HTTPHeaderValue, HTTPEnvHeader: "$MBGUARD"},
				AllowedEnvVars: []string{"MBGUARD"}, Timeout: timeout, OnFailure: onFailure(ev)})
		},
		more: func(ev string) []json.RawMessage {
			if !claudeToolEvents[ev] || !claudeHTTPEvents[ev] {
				return nil
			}
			return []json.RawMessage{group(httpShell, claudeHook{Type: "command", Command: command, Timeout: timeout, OnFailure: onFailure(ev)})}
		},
		ours: func(raw json.RawMessage) bool { return isOurGroup(raw, " hook claude") },
	}
}

// HTTPURL is where Claude Code's http hooks reach the watcher.
func HTTPURL(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) + HTTPPath }

// checkHTTPListener, in a hook process of a host whose other events go to the watcher over
// http (watch.http_port), looks at who listens there. Another program on the port — the agent
// may have stopped the watcher and taken it — answers for mbguard and lets every call
// through: this hook refuses the call it guards and tells the model, so the person hears of
// it at the next shell call. A port nobody holds is only told: Claude Code refuses the calls
// those hooks guard by itself (onFailure "block").
func (k *asking) checkHTTPListener() {
	port := k.cfg.Watch.HTTPPort
	if k.h.Requester > 0 || port <= 0 || len(host.Get(k.h.name()).HTTPEvents) == 0 {
		return
	}
	why, taken := watcher.HTTPListener(k.r, port)
	if why == "" {
		return
	}
	if !taken {
		k.a.Context = joinText(k.a.Context, "[mbguard] "+why+": Claude Code refuses the tool calls it guards until the user runs mbguard watch --detach. Next: tell the user.")
		return
	}
	msg := "[mbguard] refused: " + why + ", and Claude Code's http hooks ask whoever listens there; no call runs until the user stops that process and runs mbguard watch --detach (mbguard doctor names it). Next: tell the user."
	if k.c.Kind == callPreTool {
		k.a.Deny = joinText(msg, k.a.Deny)
		return
	}
	k.a.Context = joinText(k.a.Context, msg)
}
