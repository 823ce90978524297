// mbguard plugin for OpenCode, and for Kilo Code, which keeps OpenCode's plugin API: enforces
// memory-bank/ discipline on the agent's tool calls. Written by `mbguard install --agent
// opencode` (or `--agent kilo`); do not edit (reinstall instead). The decisions come from one
// long-lived `mbguard serve --stdio` child per host instance (docs/protocol.md).
//
// Environment:
//   MBGUARD_BIN         the mbguard binary (default: the one install recorded below, else PATH)
//   MBGUARD_TIMEOUT_MS  how long a decision may take before the fail-safe answers (default 2000)
//   MBGUARD_DEBUG=1     let the child log to OpenCode's stderr
//   MBGUARD=0           disable the plugin entirely
//
// Plain JavaScript, no dependencies, one export: both OpenCode plugin loaders accept it.

import { spawn } from "node:child_process"
import { isAbsolute, join } from "node:path"
import { fileURLToPath } from "node:url"

const DEFAULT_BIN = "mbguard"
// the host the plugin runs in, as `mbguard install --agent` names it
const HOST = "opencode"

// BEGIN tool taxonomy: generated from gating.ToolClasses by
// `go test ./hooks -run TestOpenCodePluginToolTable -update`; do not edit.
const TOOL_CLASSES = {
  "agent": "read",
  "apply_patch": "write",
  "askuserquestion": "read",
  "bash": "shell",
  "codesearch": "read",
  "create": "write",
  "edit": "write",
  "exec_command": "shell",
  "exitplanmode": "read",
  "glob": "read",
  "google_web_search": "read",
  "grep": "read",
  "grep_search": "read",
  "list": "read",
  "list_directory": "read",
  "ls": "read",
  "lsp": "read",
  "multiedit": "write",
  "notebookedit": "write",
  "notebookread": "read",
  "patch": "write",
  "powershell": "shell",
  "proxy_task": "read",
  "question": "read",
  "read": "read",
  "read_file": "read",
  "read_many_files": "read",
  "replace": "write",
  "run_shell_command": "shell",
  "search_file_content": "read",
  "shell": "shell",
  "task": "read",
  "todoread": "read",
  "todowrite": "read",
  "tool_search": "read",
  "update_plan": "read",
  "view": "read",
  "view_image": "read",
  "web_fetch": "read",
  "web_search": "read",
  "webfetch": "read",
  "websearch": "read",
  "write": "write",
  "write_file": "write",
  "write_todos": "read",
}
// END tool taxonomy

// toolClass is read, write, shell or unknown; an unknown tool is treated like a write.
const toolClass = (tool) => TOOL_CLASSES[String(tool).toLowerCase()] || "unknown"
const CONTEXT_SENTINEL = "<memory-bank>"
const ANCHOR_SENTINEL = "<memory-bank-anchors>"
const MAX_BACKOFF_MS = 5000

export const MbguardPlugin = async ({ directory, worktree }) => {
  const env = process.env
  if (env.MBGUARD === "0") return {}
  const root = directory || worktree || process.cwd()
  // A relative DEFAULT_BIN is the project's npm install (node_modules/.bin/mbguard), written
  // relative to the work tree so the committed plugin works in every clone.
  const top = worktree && worktree !== "/" ? worktree : root
  const bin = env.MBGUARD_BIN || (DEFAULT_BIN.includes("/") && !isAbsolute(DEFAULT_BIN) ? join(top, DEFAULT_BIN) : DEFAULT_BIN)
  const timeoutMs = Number(env.MBGUARD_TIMEOUT_MS) > 0 ? Number(env.MBGUARD_TIMEOUT_MS) : 2000
  const debug = !!env.MBGUARD_DEBUG && env.MBGUARD_DEBUG !== "0"

  // The child and what we remember of its last answers, so an unanswered request fails safe.
  let child = null
  let nextID = 0
  let failures = 0
  let retryAt = 0
  let lastMode = "warn"
  let lastError = ""
  const pending = new Map() // id -> resolve
  const armed = new Set() // sessions whose recovery gate is known armed
  const messages = new Map() // session -> current user-message id
  const later = new Map() // callID -> text to append to the tool's output
  const compacted = new Set() // sessions whose compaction hook already reported
  const failWarned = new Set() // sessions told the gate is unavailable

  const start = () => {
    if (child) return child
    if (Date.now() < retryAt) return null
    let c
    try {
      c = spawn(bin, ["serve", "--stdio", "--root", root], {
        cwd: root,
        stdio: ["pipe", "pipe", debug ? "inherit" : "pipe"],
        env: { ...env, MBGUARD: "1" },
      })
    } catch (err) {
      fail(`cannot start ${bin}: ${err.message}`)
      return null
    }
    child = c
    let buf = ""
    let stderrTail = ""
    c.stdout.setEncoding("utf8")
    c.stdout.on("data", (chunk) => {
      buf += chunk
      let nl
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl)
        buf = buf.slice(nl + 1)
        if (line.trim()) answer(line)
      }
    })
    if (c.stderr) {
      c.stderr.setEncoding("utf8")
      c.stderr.on("data", (s) => (stderrTail = (stderrTail + s).slice(-500)))
    }
    c.stdin.on("error", () => {}) // EPIPE after a crash; "exit" handles it
    c.on("error", (err) => gone(c, `cannot run ${bin}: ${err.message}`))
    c.on("exit", (code, signal) =>
      gone(c, `mbguard serve exited (${signal || "code " + code})${stderrTail ? ": " + stderrTail.trim() : ""}`),
    )
    // OpenCode must be able to exit while the child idles; the exit handler below kills it.
    c.unref()
    c.stdout.unref?.()
    c.stderr?.unref?.()
    c.stdin.unref?.()
    return c
  }

  const answer = (line) => {
    let resp
    try {
      resp = JSON.parse(line)
    } catch {
      return // garbage on the wire: the request it belonged to times out and fails safe
    }
    const resolve = pending.get(resp.id)
    if (!resolve) return
    pending.delete(resp.id)
    failures = 0
    if (resp.mode) lastMode = resp.mode
    resolve(resp)
  }

  const fail = (why) => {
    lastError = why
    failures++
    retryAt = Date.now() + Math.min(100 * 2 ** (failures - 1), MAX_BACKOFF_MS)
  }

  const gone = (c, why) => {
    if (child !== c) return
    child = null
    fail(why)
    for (const [id, resolve] of pending) {
      pending.delete(id)
      resolve(null)
    }
  }

  const kill = (c, signal) => {
    try {
      c.stdin.end()
      c.kill(signal)
    } catch {}
  }

  process.on("exit", () => child && kill(child, "SIGTERM"))

  // request sends one request and resolves with the response, or null when the child cannot
  // answer in time (the child is then killed and restarted with backoff).
  const request = (msg) => {
    const c = start()
    if (!c) return Promise.resolve(null)
    const id = ++nextID
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (!pending.delete(id)) return
        resolve(null)
        if (child === c) {
          gone(c, `mbguard serve did not answer within ${timeoutMs} ms`)
          kill(c, "SIGKILL")
        }
      }, timeoutMs)
      pending.set(id, (resp) => {
        clearTimeout(timer)
        resolve(resp)
      })
      c.stdin.write(JSON.stringify({ id, ...msg }) + "\n")
    })
  }

  const event = (kind, session, extra, opts) =>
    request({
      op: "event",
      ...opts,
      event: { kind, host: HOST, session, message: messages.get(session), cwd: root, now: Date.now(), ...extra },
    })

  const track = (session, resp) => {
    if (!resp) return
    const rec = resp.decision?.recovery
    if (resp.recovery_armed || rec === "armed") armed.add(session)
    else if (rec === "cleared") armed.delete(session)
  }

  const note = (callID, text) => {
    if (!text || !callID) return
    const prev = later.get(callID)
    later.set(callID, prev ? prev + "\n" + text : text)
  }

  // failSafe decides on our own when the child could not: writes are blocked in block mode or
  // while recovery is armed; otherwise the call goes through with one warning per session.
  const failSafe = (tool, session, callID, resp) => {
    const why = resp?.error || lastError || "no answer"
    if (toolClass(tool) !== "read" && (lastMode === "block" || armed.has(session))) {
      throw new Error(
        `[mbguard] blocked: the memory-bank gate is unavailable (${why}) and writes are blocked ` +
          `${armed.has(session) ? "while post-compaction recovery is armed" : "in block mode"}. ` +
          `Next: retry in a moment; if it persists, ask the user to run \`mbguard doctor\`.`,
      )
    }
    if (!failWarned.has(session)) {
      failWarned.add(session)
      note(callID, `[mbguard] warning: the memory-bank gate is unavailable (${why}); this call was not checked. Next: ask the user to run \`mbguard doctor\`.`)
    }
  }

  const attachedFiles = (parts) => {
    const files = []
    for (const p of parts || []) {
      if (p?.type !== "file" || p.synthetic || typeof p.url !== "string" || !p.url.startsWith("file:")) continue
      try {
        files.push(fileURLToPath(p.url))
      } catch {}
    }
    return files
  }

  return {
    "chat.message": async (input, output) => {
      const session = input?.sessionID || output?.message?.sessionID
      const id = output?.message?.id || input?.messageID
      if (!session || !id) return
      messages.set(session, id)
      const attached = attachedFiles(output?.parts)
      const resp = await event("message", session, { message: id, ...(attached.length ? { attached } : {}) })
      track(session, resp)
    },

    "tool.execute.before": async (input, output) => {
      const { tool, sessionID: session, callID } = input || {}
      if (!tool || !session) return
      const resp = await event("tool.before", session, { tool, args: output?.args || {}, call: callID })
      track(session, resp)
      const d = resp?.decision
      if (!d) return failSafe(tool, session, callID, resp)
      if (d.verdict === "block") throw new Error(d.message || "[mbguard] blocked")
      if (d.verdict === "warn") note(callID, d.message)
      note(callID, resp.notice)
      // the kernel line (kernel.mode on): the shell runs under `mbguard jail`, bank read-only
      if (typeof resp.command === "string" && resp.command && typeof output?.args?.command === "string") {
        output.args.command = resp.command
      }
    },

    "tool.execute.after": async (input, output) => {
      const { tool, sessionID: session, callID } = input || {}
      if (!tool || !session) return
      // the outcome check pairs this with its tool.before by callID and answers before the tool's
      // output reaches the model: an undo comes back as a block appended to that output
      // redact: serve answers with the secrets of the bank files the call named, and of those
      // under a directory it searched that its output shows (the first MiB of it is sent)
      const shown = output && typeof output.output === "string" ? output.output.slice(0, 1 << 20) : undefined
      const resp = await event("tool.after", session, { tool, args: input.args || {}, call: callID }, { redact: true, output: shown })
      track(session, resp)
      // a bank secret the call read is replaced before its output reaches the model
      if (Array.isArray(resp?.redact) && output && typeof output.output === "string") {
        for (const s of resp.redact) {
          if (typeof s !== "string" || !s) continue
          if (output.output.includes(s)) {
            output.output = output.output.split(s).join("REDACTED")
          } else if (s.length >= 16 && output.output.replace(/\r?\n/g, "").includes(s)) {
            // a re-encoding command wraps its lines (base64 at 76 columns): match across them
            const re = new RegExp([...s].map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("(?:\\r?\\n)?"), "g")
            output.output = output.output.replace(re, "REDACTED")
          }
        }
      }
      const d = resp?.decision
      if (d?.verdict === "warn" || d?.verdict === "block") note(callID, d.message)
      note(callID, d?.advice)
      note(callID, resp?.notice)
      const text = later.get(callID)
      later.delete(callID)
      if (text && output && typeof output.output === "string") output.output += "\n\n" + text
    },

    "experimental.chat.system.transform": async (input, output) => {
      if (!Array.isArray(output?.system)) return
      if (output.system.some((s) => typeof s === "string" && s.includes(CONTEXT_SENTINEL))) return
      const resp = await request({ op: "context", session: input?.sessionID || "" })
      const parts = [resp?.context, resp?.notice].filter(Boolean)
      if (parts.length && !output.system.some((s) => typeof s === "string" && s.includes(CONTEXT_SENTINEL))) {
        output.system.push(parts.join("\n\n"))
      }
    },

    "experimental.session.compacting": async (input, output) => {
      const session = input?.sessionID
      if (!session) return
      compacted.add(session)
      const resp = await event("compaction", session, {})
      track(session, resp)
      const advice = resp?.decision?.advice
      if (!advice || !Array.isArray(output?.context)) return
      if (!output.context.some((s) => typeof s === "string" && s.includes(ANCHOR_SENTINEL))) output.context.push(advice)
    },

    event: async ({ event: ev } = {}) => {
      const props = ev?.properties || {}
      const session = props.sessionID || props.info?.id
      if (!session) return
      switch (ev.type) {
        case "session.compacted":
          // the compacting hook arms recovery; report compactions it did not see
          if (!compacted.delete(session)) track(session, await event("compaction", session, {}))
          break
        case "session.deleted":
          messages.delete(session)
          armed.delete(session)
          failWarned.delete(session)
          await event("session.end", session, {})
          break
      }
    },
  }
}
