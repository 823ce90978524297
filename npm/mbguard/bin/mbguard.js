#!/usr/bin/env node
// The mbguard command of the npm package. npm installs, of the optional dependencies
// mbguard-<platform>-<arch>, only the one whose os and cpu fields match this machine; this
// runs the binary inside it with the same arguments, stdin/stdout/stderr and exit code, so
// `npx mbguard hook claude` speaks the hook protocol exactly as the binary does.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");

const supported = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64", "win32-arm64"];
const goInstall = "go install github.com/mbguard/mbguard/cmd/mbguard@latest";

// fail prints why mbguard cannot start and the next step, and exits 2 (mbguard's code for an
// internal error; a hook host then sees the failure instead of a silent pass).
function fail(message) {
  process.stderr.write(`mbguard: ${message}\n`);
  process.exit(2);
}

function binaryPath() {
  const platform = `${process.platform}-${process.arch}`;
  if (!supported.includes(platform)) {
    fail(`no prebuilt binary for ${platform} (there are: ${supported.join(", ")}); build it with Go instead: ${goInstall}`);
  }
  const pkg = `mbguard-${platform}`;
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    fail(
      `the package ${pkg}, which holds the binary for this machine, is not installed ` +
        `(npm leaves optional dependencies out with --omit=optional or --no-optional); ` +
        `reinstall without that flag: npm install mbguard`,
    );
  }
  return path.join(dir, "bin", process.platform === "win32" ? "mbguard.exe" : "mbguard");
}

const bin = binaryPath();
const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });

// A terminal's Ctrl-C reaches the whole process group, the binary included: wait for it to
// finish rather than die first. Signals sent to this process alone are passed on.
process.on("SIGINT", () => {});
for (const sig of ["SIGTERM", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}

child.on("error", (err) => {
  fail(`cannot run ${bin}: ${err.message}; reinstall the package: npm install mbguard`);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so the caller sees what the binary saw.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 2);
});
