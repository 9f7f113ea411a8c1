package rules

import (
	"errors"

	"github.com/mcp-policy/mcp-policy/internal/argread"
)

// ArgumentSpec says how one tool's arguments name paths, directories, URLs
// and text, beyond what is read by default (docs/arguments.md): a glob over
// tool names, and lists of argument names, compared as the policy compares
// argument names: with "_" and "-" left out and Unicode case-folded, so
// "filePath", "file_path" and "FILEPATH" are one name.
type ArgumentSpec = argread.Spec

// Limits on what one call may hold: past them the call is refused as a bad
// call, with the limit named, rather than decided at any cost.
const (
	// MaxArgumentsBytes bounds a call's arguments text.
	MaxArgumentsBytes = 32 << 20
	// MaxArgumentValues bounds the paths and URLs found in one call.
	MaxArgumentValues = argread.MaxValues
	// MaxArgumentDepth bounds how deep arguments nest (objects and arrays,
	// JSON inside strings included).
	MaxArgumentDepth = argread.MaxDepth
)

// ParseArgumentSpecs decodes a JSON array of argument specs strictly
// (unknown fields and duplicate keys are errors) and validates it; what
// names the source in errors.
func ParseArgumentSpecs(data []byte, what string) ([]ArgumentSpec, error) {
	return argread.ParseSpecs(data, what)
}

// specError is a spec's validation error as a *ValidationError.
func specError(err error) error {
	var se *argread.SpecError
	if errors.As(err, &se) {
		return &ValidationError{Rule: se.Spec, Field: se.Field, Msg: se.Msg}
	}
	return err
}
