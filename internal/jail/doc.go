// Package jail runs a shell command with memory-bank/ mounted read-only: the third line of
// mbguard's defence, under which an agent's shell cannot write the bank at all, whatever
// path it computes at run time.
//
// On Linux it uses bubblewrap when installed (cheapest, and what Ubuntu's AppArmor
// restriction on unprivileged namespaces lets through), else an unprivileged user and mount
// namespace of its own: the calling binary is re-executed as the namespace's first process,
// bind-mounts the bank read-only and execs the command. Elsewhere it reports why not, and
// callers fall back to the two other lines.
package jail
