package mcpclient

import (
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"sort"
	"time"
	"unicode/utf8"
)

// fieldSchema is what an elicitation form may say of one field (the
// restricted JSON Schema of MCP's elicitation: primitives, single and
// multiple choice).
type fieldSchema struct {
	Type      string     `json:"type"`
	Enum      []any      `json:"enum"`
	OneOf     []constOpt `json:"oneOf"`
	MinLength *int       `json:"minLength"`
	MaxLength *int       `json:"maxLength"`
	Minimum   *float64   `json:"minimum"`
	Maximum   *float64   `json:"maximum"`
	Format    string     `json:"format"`
	MinItems  *int       `json:"minItems"`
	MaxItems  *int       `json:"maxItems"`
	Items     *struct {
		Type  string     `json:"type"`
		Enum  []any      `json:"enum"`
		AnyOf []constOpt `json:"anyOf"`
	} `json:"items"`
}

type constOpt struct {
	Const any `json:"const"`
}

// checkContent checks an accepted answer against the form the server
// asked for: no field the form lacks, every required field, each value of
// its field's type, choice, length, range and format. A request with no
// form (URL mode) accepts no content at all.
func checkContent(schema any, content map[string]any) error {
	if schema == nil {
		if len(content) > 0 {
			return fmt.Errorf("the request has no form, but the answer has content")
		}
		return nil
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return err
	}
	var form struct {
		Properties map[string]fieldSchema `json:"properties"`
		Required   []string               `json:"required"`
	}
	if err := json.Unmarshal(b, &form); err != nil {
		return fmt.Errorf("the form: %w", err)
	}
	names := make([]string, 0, len(content))
	for k := range content {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		f, ok := form.Properties[k]
		if !ok {
			return fmt.Errorf("field %q is not in the form", k)
		}
		if err := f.check(content[k]); err != nil {
			return fmt.Errorf("field %q: %w", k, err)
		}
	}
	for _, k := range form.Required {
		if _, ok := content[k]; !ok {
			return fmt.Errorf("field %q is required", k)
		}
	}
	return nil
}

func (f fieldSchema) check(v any) error {
	switch f.Type {
	case "string":
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string, not %T", v)
		}
		n := utf8.RuneCountInString(s)
		if f.MinLength != nil && n < *f.MinLength {
			return fmt.Errorf("shorter than %d characters", *f.MinLength)
		}
		if f.MaxLength != nil && n > *f.MaxLength {
			return fmt.Errorf("longer than %d characters", *f.MaxLength)
		}
		if choices := append(append([]any{}, f.Enum...), consts(f.OneOf)...); len(choices) > 0 && !oneOf(s, choices) {
			return fmt.Errorf("%q is not one of the choices", s)
		}
		return checkFormat(f.Format, s)
	case "number", "integer":
		x, ok := number(v)
		if !ok {
			return fmt.Errorf("want a number, not %T", v)
		}
		if f.Type == "integer" && x != math.Trunc(x) {
			return fmt.Errorf("%v is not an integer", x)
		}
		if f.Minimum != nil && x < *f.Minimum {
			return fmt.Errorf("%v is below %v", x, *f.Minimum)
		}
		if f.Maximum != nil && x > *f.Maximum {
			return fmt.Errorf("%v is above %v", x, *f.Maximum)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("want true or false, not %T", v)
		}
	case "array":
		items, ok := v.([]any)
		if !ok {
			if ss, isStrings := v.([]string); isStrings {
				for _, s := range ss {
					items = append(items, s)
				}
				ok = true
			}
		}
		if !ok {
			return fmt.Errorf("want a list, not %T", v)
		}
		if f.MinItems != nil && len(items) < *f.MinItems {
			return fmt.Errorf("fewer than %d choices", *f.MinItems)
		}
		if f.MaxItems != nil && len(items) > *f.MaxItems {
			return fmt.Errorf("more than %d choices", *f.MaxItems)
		}
		if f.Items != nil {
			choices := append(append([]any{}, f.Items.Enum...), consts(f.Items.AnyOf)...)
			for _, it := range items {
				s, ok := it.(string)
				if !ok {
					return fmt.Errorf("want strings in the list, not %T", it)
				}
				if len(choices) > 0 && !oneOf(s, choices) {
					return fmt.Errorf("%q is not one of the choices", s)
				}
			}
		}
	}
	return nil
}

func consts(opts []constOpt) []any {
	out := make([]any, len(opts))
	for i, o := range opts {
		out[i] = o.Const
	}
	return out
}

func oneOf(s string, choices []any) bool {
	for _, c := range choices {
		if c == s {
			return true
		}
	}
	return false
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func checkFormat(format, s string) error {
	var err error
	switch format {
	case "email":
		_, err = mail.ParseAddress(s)
	case "uri":
		var u *url.URL
		if u, err = url.Parse(s); err == nil && u.Scheme == "" {
			err = fmt.Errorf("no scheme")
		}
	case "date":
		_, err = time.Parse(time.DateOnly, s)
	case "date-time":
		_, err = time.Parse(time.RFC3339, s)
	}
	if err != nil {
		return fmt.Errorf("%q is not a valid %s", s, format)
	}
	return nil
}
