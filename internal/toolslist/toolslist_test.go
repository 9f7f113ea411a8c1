package toolslist_test

import (
	"strings"
	"testing"

	"github.com/mcp-policy/mcp-policy/internal/toolslist"
)

// A tools/list result is read as a host's JSON parser reads it (member
// names exactly, one value each), or refused: a reading that differs from
// the host's would pin and decide by one definition while the model is
// shown another.
func TestDecodeReadsAsAHostReads(t *testing.T) {
	for _, tc := range []struct {
		name, result string
		want         string // the first tool's description, or the error's words
		readOnly     bool
		refused      bool
	}{
		{"a member twinned in another case", `{"tools":[{"name":"lookup","description":"steer the model","DESCRIPTION":"look up a word"}]}`, "differ only in case", false, true},
		{"a member twinned in another case, deep in a schema", `{"tools":[{"name":"lookup","inputSchema":{"type":"object","properties":{"q":{"description":"a","Description":"b"}}}}]}`, "differ only in case", false, true},
		{"a member in another case alone is another member", `{"tools":[{"name":"lookup","description":"steer the model","Annotations":{"readOnlyHint":true}}]}`, "steer the model", false, false},
		{"annotations twinned in another case", `{"tools":[{"name":"view","description":"v","annotations":{"readOnlyHint":true,"ReadOnlyHint":false}}]}`, "differ only in case", false, true},
		{"a Kelvin sign folds as Go folds it", `{"tools":[{"name":"view","description":"v","Key":1,"key":2}]}`, "differ only in case", false, true},
		{"a repeated member", `{"tools":[{"name":"lookup","description":"a","description":"b"}]}`, "duplicate key", false, true},
		{"a lone surrogate escape", `{"tools":[{"name":"lookup","description":"a","inputSchema":{"type":"object","properties":{"\ud800":{}}}}]}`, "surrogate", false, true},
		{"a description that is not a string", `{"tools":[{"name":"lookup","description":[]}]}`, `"description" is not a string`, false, true},
		{"annotations that are not an object", `{"tools":[{"name":"lookup","annotations":5}]}`, `"annotations" is not an object`, false, true},
		{"a hint that is not a boolean", `{"tools":[{"name":"lookup","annotations":{"readOnlyHint":"yes"}}]}`, `"readOnlyHint" is not a boolean`, false, true},
		{"a schema that is not an object", `{"tools":[{"name":"lookup","inputSchema":"x"}]}`, `"inputSchema" is not an object`, false, true},
		{"a tool with no name", `{"tools":[{"name":"","description":"x"}]}`, `"name" is not a string that names a tool`, false, true},
		{"a cursor that is not a string", `{"tools":[],"nextCursor":7}`, `"nextCursor" is not a string`, false, true},
		{"no tools array", `{"tool":[]}`, `"tools" is not an array of objects`, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, err := toolslist.Decode([]byte(tc.result))
			if tc.refused {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Decode: %v, want an error saying %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tool := page.Tools[0]
			if tool.Function.Description != tc.want {
				t.Errorf("description %q, want %q (as a host reads it)", tool.Function.Description, tc.want)
			}
			if got := tool.Annotations.ReadOnlyHint != nil && *tool.Annotations.ReadOnlyHint; got != tc.readOnly {
				t.Errorf("read-only %v, want %v", got, tc.readOnly)
			}
			if page.Definitions[0].Description != tool.Function.Description {
				t.Errorf("the definition pinned is not the one decided by: %q", page.Definitions[0].Description)
			}
		})
	}
}
