// Round-trip benchmark of `mbguard serve --stdio` from a Node client (no dependencies), against
// the named baseline: the same decision through one `mbguard hook claude` process per call.
//
//   node bench/serve/bench.mjs [--bin PATH] [--n 20000] [--baseline 100]
//
// It builds a throwaway git repository with a memory bank, warms one session (message, read
// of patterns.md), then times a PreToolUse-class request (tool.before of a write to src/app.ts):
// sequentially (send, wait, send) and pipelined (all sent at once). Targets (issue #3):
// p50 <= 0.05 ms, p99 <= 0.5 ms sequential.
import { spawn, spawnSync, execFileSync } from "node:child_process"
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const arg = (name, def) => {
  const i = process.argv.indexOf("--" + name)
  return i > 0 ? process.argv[i + 1] : def
}
const bin = arg("bin", "mbguard")
const N = Number(arg("n", 20000))
const B = Number(arg("baseline", 100))

const dir = mkdtempSync(join(tmpdir(), "mbguard-bench-"))
const write = (rel, s) => {
  mkdirSync(join(dir, rel, ".."), { recursive: true })
  writeFileSync(join(dir, rel), s)
}
execFileSync("git", ["init", "-q", dir])
write("memory-bank/MEMORY.md", "# M\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n## Current Focus\n- bench\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n")
write("memory-bank/details/patterns.md", "# P\n")
write("src/app.ts", "export {}\n")

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}
const ms = (ns) => Number(ns) / 1e6
const fmt = (x) => x.toFixed(4) + " ms"

const child = spawn(bin, ["serve", "--stdio", "--root", dir], { stdio: ["pipe", "pipe", "inherit"] })
const pending = new Map()
let buf = ""
child.stdout.setEncoding("utf8")
child.stdout.on("data", (chunk) => {
  buf += chunk
  let nl
  while ((nl = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, nl)
    buf = buf.slice(nl + 1)
    const r = JSON.parse(line)
    const p = pending.get(r.id)
    pending.delete(r.id)
    p(r)
  }
})
let id = 0
const req = (msg) =>
  new Promise((resolve) => {
    const i = ++id
    pending.set(i, resolve)
    child.stdin.write(JSON.stringify({ id: i, ...msg }) + "\n")
  })
const ev = (kind, extra) => ({ op: "event", event: { kind, host: "opencode", session: "bench", message: "m1", cwd: dir, ...extra } })
const gate = ev("tool.before", { tool: "write", args: { filePath: "src/app.ts", content: "export const x = 1\n" } })

await req(ev("message", {}))
await req(ev("tool.after", { tool: "read", args: { filePath: "memory-bank/details/patterns.md" } }))
const first = await req(gate)
if (first.error || !first.decision) throw new Error("serve did not decide: " + JSON.stringify(first))
for (let i = 0; i < 2000; i++) await req(gate) // warm the JIT and the Go runtime

const seq = []
for (let i = 0; i < N; i++) {
  const t0 = process.hrtime.bigint()
  await req(gate)
  seq.push(ms(process.hrtime.bigint() - t0))
}

// The floor of the transport and protocol layer: a ping, which the Service answers at once.
const pings = []
for (let i = 0; i < N; i++) {
  const t0 = process.hrtime.bigint()
  await req({ op: "ping" })
  pings.push(ms(process.hrtime.bigint() - t0))
}

const pip = []
const t0 = process.hrtime.bigint()
await Promise.all(
  Array.from({ length: N }, () => {
    const s = process.hrtime.bigint()
    return req(gate).then(() => pip.push(ms(process.hrtime.bigint() - s)))
  }),
)
const pipTotal = ms(process.hrtime.bigint() - t0)
const exited = new Promise((r) => child.on("exit", r))
child.stdin.end()
await exited // serve persists its state on the way out

// Baseline: the same decision, one `mbguard hook claude` process per call.
const payload = JSON.stringify({
  hook_event_name: "PreToolUse", session_id: "bench-baseline", cwd: dir,
  tool_name: "Write", tool_input: { file_path: join(dir, "src/app.ts"), content: "export const x = 1\n" },
})
const base = []
for (let i = 0; i < B; i++) {
  const s = process.hrtime.bigint()
  const r = spawnSync(bin, ["hook", "claude"], { input: payload, cwd: dir })
  base.push(ms(process.hrtime.bigint() - s))
  if (r.error) throw r.error
}
rmSync(dir, { recursive: true, force: true })

const s50 = pct(seq, 50), s99 = pct(seq, 99), b50 = pct(base, 50)
console.log(`mbguard serve --stdio, PreToolUse-class decision on a warm session (N=${N})`)
console.log(`  sequential  p50 ${fmt(s50)}  p99 ${fmt(s99)}   (targets p50 <= 0.05 ms, p99 <= 0.5 ms: ${s50 <= 0.05 && s99 <= 0.5 ? "met" : "NOT met"})`)
console.log(`  ping floor  p50 ${fmt(pct(pings, 50))}  p99 ${fmt(pct(pings, 99))}   (pipe + JSON + serve, no decision)`)
console.log(`  pipelined   p50 ${fmt(pct(pip, 50))}  p99 ${fmt(pct(pip, 99))}  throughput ${Math.round(N / (pipTotal / 1000))} decisions/s`)
console.log(`baseline: mbguard hook claude, one process per call (N=${B})`)
console.log(`  p50 ${fmt(b50)}  p99 ${fmt(pct(base, 99))}`)
console.log(`ratio: a process per call is ${(b50 / s50).toFixed(0)}x the serve round trip (p50)`)
