package watcher

import (
	"reflect"
	"testing"

	"github.com/mbguard/mbguard/gating"
)

// TestSameStateSeesEveryField keeps the change detection that decides whether a session is
// saved in step with gating.State: a field it ignored would silently stop being persisted.
func TestSameStateSeesEveryField(t *testing.T) {
	base := gating.State{
		Session: "s", Message: "m", Reads: []string{"a"}, Satisfied: false,
		Warned: map[string]bool{"read": true}, Anchors: []string{"x"},
		Recovery: &gating.Recovery{Anchors: []string{"a"}, Read: []string{"b"}, Since: 1},
		Updated:  5,
	}
	snap, _ := snapshot(&base)
	if !sameState(snap, &base) {
		t.Fatal("a snapshot must equal its source")
	}
	touched := base
	touched.Updated = 99
	if !sameState(snap, &touched) {
		t.Error("a new timestamp alone is not a change")
	}
	mutate := func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			v.SetString(v.String() + "!")
		case reflect.Bool:
			v.SetBool(!v.Bool())
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int() + 1)
		case reflect.Slice:
			v.Set(reflect.Append(v, reflect.ValueOf("new")))
		case reflect.Map:
			m := reflect.MakeMap(v.Type())
			m.SetMapIndex(reflect.ValueOf("other"), reflect.ValueOf(true))
			v.Set(m)
		default:
			t.Fatalf("no mutation for kind %s: extend this test and sameState", v.Kind())
		}
	}
	typ := reflect.TypeOf(gating.State{})
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if f.Name == "Updated" {
			continue
		}
		if f.Name == "Recovery" {
			rt := reflect.TypeOf(gating.Recovery{})
			for j := 0; j < rt.NumField(); j++ {
				c, _ := snapshot(&base)
				mutate(reflect.ValueOf(c.Recovery).Elem().Field(j))
				if sameState(snap, c) {
					t.Errorf("sameState ignores Recovery.%s", rt.Field(j).Name)
				}
			}
			c, _ := snapshot(&base)
			c.Recovery = nil
			if sameState(snap, c) {
				t.Error("sameState ignores disarming recovery")
			}
			continue
		}
		c, _ := snapshot(&base)
		mutate(reflect.ValueOf(c).Elem().Field(i))
		if sameState(snap, c) {
			t.Errorf("sameState ignores State.%s", f.Name)
		}
	}
}
