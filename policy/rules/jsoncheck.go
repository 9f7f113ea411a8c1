package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// CheckJSON rejects what encoding/json would silently accept and a security
// library must not: invalid UTF-8 (json replaces it with U+FFFD, so two
// different byte strings would look the same to a rule) and duplicate object
// keys (json keeps the last, while the server behind us may keep the first).
func CheckJSON(data []byte) error {
	_, err := DecodeJSON(data)
	return err
}

// DecodeJSON decodes one JSON value as CheckJSON checks it, in the same
// pass: objects are map[string]any, arrays []any, numbers json.Number
// (their text kept).
func DecodeJSON(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("invalid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	switch tok {
	case json.Delim('{'):
		obj := map[string]any{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("invalid JSON: %v", err)
			}
			k := kt.(string)
			if _, dup := obj[k]; dup {
				return nil, fmt.Errorf("duplicate key %q", k)
			}
			if obj[k], err = decodeValue(dec); err != nil {
				return nil, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("invalid JSON: %v", err)
		}
		return obj, nil
	case json.Delim('['):
		arr := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("invalid JSON: %v", err)
		}
		return arr, nil
	}
	return tok, nil
}
