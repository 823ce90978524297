// Package jail runs a shell command with memory-bank/ mounted read-only: the third line of
// mbguard's defence, under which an agent's shell cannot write the bank at all, whatever
// path it computes at run time.
//
// On Linux it uses an unprivileged user and mount namespace (the command's own binary is
// re-executed as the namespace's first process, bind-mounts the bank read-only and execs the
// command), or bubblewrap when the kernel refuses unprivileged namespaces to ordinary
// programs (Ubuntu's AppArmor restriction lets bwrap through). Elsewhere it reports why not,
// and callers fall back to the two other lines.
package jail
