// Package e2eproject sets up what every real-host end-to-end test starts from: a real git
// repository with an isolated HOME and git configuration, a v7.1 memory bank written by the
// real `mbguard init`, and the mbguard binary built from this module and put first on PATH, so
// the hook commands `mbguard install` writes run the code under test.
package e2eproject
