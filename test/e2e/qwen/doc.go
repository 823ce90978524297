// Package qwen drives the real Qwen Code CLI (@qwen-code/qwen-code, pinned in test/hosts)
// headless against the shared fake model, with mbguard's hooks written by
// `mbguard install --agent qwen`.
package qwen
