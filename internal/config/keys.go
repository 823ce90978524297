package config

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// keyField is one configuration key as Config's struct declares it: the koanf path, where the
// value lives, and its tag, whose doc, enum, min and pattern only the schema reads (every
// configuration load walks the keys; looking those up each time cost a hook call 0.04 ms).
type keyField struct {
	key   string
	index []int
	typ   reflect.Type
	tag   reflect.StructTag
}

// enum is the values the enum tag allows, nil when it sets none.
func (f keyField) enum() []string {
	if e := f.tag.Get("enum"); e != "" {
		return strings.Split(e, ",")
	}
	return nil
}

// fields walks Config's koanf tags once: every key, its Go field, and its schema facts.
var fields = sync.OnceValue(func() []keyField {
	var out []keyField
	var walk func(t reflect.Type, prefix string, index []int)
	walk = func(t reflect.Type, prefix string, index []int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			name := sf.Tag.Get("koanf")
			if name == "" || name == "-" {
				continue
			}
			idx := append(append([]int(nil), index...), i)
			if sf.Type.Kind() == reflect.Struct {
				walk(sf.Type, prefix+name+".", idx)
				continue
			}
			out = append(out, keyField{key: prefix + name, index: idx, typ: sf.Type, tag: sf.Tag})
		}
	}
	walk(reflect.TypeOf(Config{}), "", nil)
	return out
})

func field(key string) (keyField, bool) {
	for _, f := range fields() {
		if f.key == key {
			return f, true
		}
	}
	return keyField{}, false
}

// closest is the known key nearest to a mistyped one (gating.mod → gating.mode), or "".
func closest(key string) string {
	best, bestD := "", 0
	for _, f := range fields() {
		d := distance(key, f.key)
		if best == "" || d < bestD {
			best, bestD = f.key, d
		}
	}
	if bestD > max(2, len(key)/3) {
		return ""
	}
	return best
}

// unknownKey words the error for a key Config does not declare, with the likely meant one.
func unknownKey(key string) string {
	if c := closest(key); c != "" {
		return "unknown key " + strconv.Quote(key) + " (did you mean " + c + "? known keys: mbguard config --keys)"
	}
	return "unknown key " + strconv.Quote(key) + " (known keys: mbguard config --keys)"
}

// distance is the Levenshtein distance of two short strings.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// SchemaURL is where editors can fetch the schema; init writes it into .mbguard.yaml.
const SchemaURL = "https://raw.githubusercontent.com/mbguard/mbguard/main/docs/mbguard.schema.json"

// Schema is a JSON Schema (draft 2020-12) of .mbguard.yaml, generated from Config's own
// declaration and the defaults, so editors complete and validate the file.
func Schema() ([]byte, error) {
	def := defaults()
	root := map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"$id":                  SchemaURL,
		"title":                "mbguard configuration (.mbguard.yaml)",
		"type":                 "object",
		"additionalProperties": false,
	}
	props := map[string]any{}
	for _, f := range fields() {
		parts := strings.Split(f.key, ".")
		obj := props
		for _, p := range parts[:len(parts)-1] {
			sec, ok := obj[p].(map[string]any)
			if !ok {
				sec = map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{}}
				obj[p] = sec
			}
			obj = sec["properties"].(map[string]any)
		}
		prop := map[string]any{"description": f.tag.Get("doc"), "default": def[f.key]}
		switch f.typ.Kind() {
		case reflect.String:
			prop["type"] = "string"
		case reflect.Bool:
			prop["type"] = "boolean"
		case reflect.Int:
			prop["type"] = "integer"
		case reflect.Slice:
			prop["type"] = "array"
			prop["items"] = map[string]any{"type": "string"}
		}
		if enum := f.enum(); len(enum) > 0 {
			prop["enum"] = enum
		}
		if m := f.tag.Get("min"); m != "" {
			n, _ := strconv.Atoi(m)
			prop["minimum"] = n
		}
		if pat := f.tag.Get("pattern"); pat != "" {
			prop["pattern"] = pat
		}
		obj[parts[len(parts)-1]] = prop
	}
	root["properties"] = props
	b, err := json.MarshalIndent(root, "", "  ")
	return append(b, '\n'), err
}
