// Package jsonmsg words encoding/json's errors for the people and agents who read mbguard's
// messages: what was wrong and where, in JSON's terms ("an array where a string belongs"),
// never Go's type names ("Go value of type hooks.ClaudePayload").
package jsonmsg
