// Drives the OpenCode plugin's hooks the way OpenCode calls them, outside OpenCode, and prints
// one JSON line per step: {step, threw, message, output}. Usage:
//   node harness.mjs <plugin.js> <project dir> <steps.json>
// steps: [{hook, input, output, killChild?, sleepMs?}] (killChild SIGKILLs the newest pid in FAKE_PIDS
// or in MBGUARD_PIDS while the hook's request is in flight).
import { readFileSync } from "node:fs"
import { pathToFileURL } from "node:url"

const [plugin, dir, stepsFile] = process.argv.slice(2)
const { MbguardPlugin } = await import(pathToFileURL(plugin).href)
const hooks = await MbguardPlugin({ directory: dir, worktree: dir })
const steps = JSON.parse(readFileSync(stepsFile, "utf8"))
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const newestPid = () => {
  const f = process.env.FAKE_PIDS
  const pids = readFileSync(f, "utf8").trim().split("\n")
  return Number(pids[pids.length - 1])
}
for (const [i, s] of steps.entries()) {
  if (s.sleepMs) await sleep(s.sleepMs)
  const output = s.output ?? {}
  let threw = false, message = ""
  // settle at once so a rejection is never unhandled while we sleep before the kill
  const call = hooks[s.hook](s.input, output).then(() => null, (err) => err)
  if (s.killChild) {
    await sleep(s.killAfterMs ?? 50)
    process.kill(newestPid(), "SIGKILL")
  }
  const err = await call
  if (err) {
    threw = true
    message = err.message
  }
  console.log(JSON.stringify({ step: i, hook: s.hook, threw, message, output }))
}
process.exit(0)
