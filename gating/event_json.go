package gating

import "encoding/json"

// UnmarshalJSON decodes an Event whose args may be any JSON value. A tool call whose args are
// not an object (a string, a list) is kept with no arguments rather than refused as a malformed
// request: the engine then judges it as a call it cannot read — a write of unknown target,
// refused — instead of the host being told "malformed request" and letting the call through.
func (e *Event) UnmarshalJSON(b []byte) error {
	type plain Event // without this method
	var raw struct {
		plain
		Args any `json:"args,omitempty"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*e = Event(raw.plain)
	e.Args, _ = raw.Args.(map[string]any)
	return nil
}
