// Package fakemodel serves scripted model APIs on 127.0.0.1 for the real-host end-to-end
// tests: the OpenAI Responses API (Codex CLI), Gemini's streamGenerateContent (Gemini CLI) and
// Chat Completions (Copilot CLI). A test gives a script of steps — tool calls and text answers —
// and afterwards reads every request the host sent, to assert on what reached the model: the
// refusal reason in a tool result, the memory bank at session start, the anchor block after a
// compaction.
//
// Steps are played in the order the host asks for agent turns, counted over the whole run, so
// the count survives a compaction that drops earlier tool results from the conversation.
// Requests that are not agent turns (a compaction summary, a title) get a text reply and do
// not advance the script. Every server is bounded: past MaxRequests it answers 400, so a host
// that loops ends instead of running until the test times out.
package fakemodel
