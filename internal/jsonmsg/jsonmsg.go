package jsonmsg

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// Describe returns err as one short phrase for a message. Type mismatches name the field
// (dotted, as encoding/json reports it) and the two JSON kinds; syntax errors the byte offset.
// Other errors are returned as they are.
func Describe(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &te):
		got, _, _ := strings.Cut(te.Value, " ") // "number -5" → "number"
		where := "the payload"
		if te.Field != "" {
			where = fmt.Sprintf("%q", te.Field)
		}
		return fmt.Sprintf("%s is %s where %s belongs", where, withArticle(got), kindOf(te.Type))
	case errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &se) && strings.Contains(se.Error(), "unexpected end of JSON input"):
		return "the JSON ends too early"
	case errors.As(err, &se):
		msg := strings.TrimPrefix(se.Error(), "json: ")
		return fmt.Sprintf("not valid JSON at byte %d: %s", se.Offset, msg)
	}
	return err.Error()
}

// kindOf names the JSON kind a Go type is decoded from.
func kindOf(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another kind of value"
}

// withArticle turns encoding/json's word for a JSON value into a phrase.
func withArticle(kind string) string {
	switch kind {
	case "array", "object":
		return "an " + kind
	case "number", "string":
		return "a " + kind
	case "bool":
		return "true or false"
	case "null":
		return "null"
	}
	return kind
}
