#!/usr/bin/env node
// A stand-in for `mbguard serve --stdio` that misbehaves on purpose (FAKE_MODE):
//   hang        answers the first FAKE_ANSWER requests, then never again
//   garbage     prints junk instead of responses
//   die         exits at once
// Answers carry mode FAKE_GATE_MODE (default warn). Each start appends its pid to FAKE_PIDS.
import { appendFileSync } from "node:fs"
import { createInterface } from "node:readline"

const mode = process.env.FAKE_MODE || "hang"
if (process.env.FAKE_PIDS) appendFileSync(process.env.FAKE_PIDS, process.pid + "\n")
if (mode === "die") process.exit(3)
let answered = 0
const limit = Number(process.env.FAKE_ANSWER || 0)
createInterface({ input: process.stdin }).on("line", (line) => {
  if (mode === "garbage") return void process.stdout.write("not json at all\n")
  const req = JSON.parse(line)
  if (answered++ < limit) {
    process.stdout.write(JSON.stringify({ id: req.id, decision: { verdict: "allow" }, mode: process.env.FAKE_GATE_MODE || "warn" }) + "\n")
  }
})
