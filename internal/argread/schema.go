package argread

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/mcp-policy/mcp-policy/reasons"
)

// schemaKeys are the property names a tool's input schema marks as paths
// ("format": "path"), URLs ("format": "uri" and the like) or hosts
// ("format": "hostname", "ipv4"), at any depth, or whose values are (a
// format on additionalProperties), and the ones it declares strings.
type schemaKeys struct {
	paths, dirs, urls map[string]bool
	hosts             map[string]bool // format hostname, idn-hostname, ipv4, ipv6
	// valuePaths, valueURLs and valueHosts name objects whose values (not
	// keys) are paths, URLs or hosts: a format on additionalProperties or
	// patternProperties.
	valuePaths, valueDirs, valueURLs, valueHosts map[string]bool
	// strings are the property names declared a string (or a string or
	// null) wherever they are declared: a JSON document in one is text.
	strings   map[string]bool
	ownReason bool // a top-level "reason" property that is not package reasons' own
	// restPaths, restURLs and restHosts say the top-level arguments the
	// schema does not declare (its root's additionalProperties or
	// patternProperties) are paths, URLs or hosts; top are the ones it
	// declares.
	restPaths, restDirs, restURLs, restHosts bool
	top                                      map[string]bool
}

// maxSchemaSteps bounds the schema objects parseSchemaKeys reads.
const maxSchemaSteps = 1 << 20

// parseSchemaKeys walks a JSON Schema: properties, items, prefixItems,
// additionalItems, additionalProperties, unevaluatedProperties,
// patternProperties, propertyNames, dependentSchemas, the combinators,
// if, then and else, and local $refs. A $ref is followed once for each
// name and kind it is reached under (so a cycle ends, and a definition
// shared by a path and a host is read for both). A description is not
// enough: only formats and types count.
func parseSchemaKeys(params json.RawMessage) schemaKeys {
	keys := schemaKeys{paths: map[string]bool{}, dirs: map[string]bool{}, urls: map[string]bool{}, strings: map[string]bool{},
		hosts: map[string]bool{}, valuePaths: map[string]bool{}, valueDirs: map[string]bool{}, valueURLs: map[string]bool{},
		valueHosts: map[string]bool{}, top: map[string]bool{}}
	var root any
	if json.Unmarshal(params, &root) != nil {
		return keys
	}
	sw := &schemaWalker{keys: keys, root: root, followed: map[schemaRefUse]bool{}, anchors: schemaAnchors(root)}
	sw.walk("", root, 0, false)
	keys = sw.keys
	if obj, ok := root.(map[string]any); ok {
		if props, ok := obj["properties"].(map[string]any); ok {
			if r, ok := props[reasons.Argument].(map[string]any); ok {
				keys.ownReason = r["description"] != reasons.Description
			}
		}
	}
	return keys
}

// schemaWalker is parseSchemaKeys' walk of one schema: the keys found so
// far, and the refs followed.
type schemaWalker struct {
	keys     schemaKeys
	root     any
	anchors  map[string]any
	followed map[schemaRefUse]bool
	// steps bounds the walk: refs followed under many names read parts
	// of a schema more than once, and no real schema takes this many.
	steps int
}

// schemaRefUse is a ref followed, under the name and kind it is reached
// under.
type schemaRefUse struct {
	ref, name string
	values    bool
}

// walk reads the schema of the argument named name ("" for the
// top-level object itself); values says it is the schema of that
// object's values (additionalProperties), not of the argument itself.
func (sw *schemaWalker) walk(name string, node any, depth int, values bool) {
	obj, ok := node.(map[string]any)
	if sw.steps++; !ok || depth > MaxDepth || sw.steps > maxSchemaSteps {
		return
	}
	for _, k := range []string{"$ref", "$dynamicRef"} {
		ref, ok := obj[k].(string)
		if !ok || sw.followed[schemaRefUse{ref, name, values}] {
			continue
		}
		sw.followed[schemaRefUse{ref, name, values}] = true
		if target, ok := resolveLocalRef(sw.root, ref, sw.anchors); ok {
			sw.walk(name, target, depth, values) // as if written here: a chain of refs is no deeper
		}
	}
	if format, ok := obj["format"].(string); ok && (name != "" || values) {
		sw.format(name, format, values)
	}
	if props, ok := obj["properties"].(map[string]any); ok {
		for k, v := range props {
			if name == "" && !values {
				sw.keys.top[k] = true
			}
			declared, seen := sw.keys.strings[k]
			sw.keys.strings[k] = isStringSchema(v) && (declared || !seen)
			sw.walk(k, v, depth+1, false)
		}
	}
	sw.subschemas(name, obj, depth, values)
}

// format keeps what a format says of the argument named name (of its
// values, with values; of the root's undeclared arguments, for "").
func (sw *schemaWalker) format(name, format string, values bool) {
	keys := &sw.keys
	paths, dirs, urls, hosts := keys.paths, keys.dirs, keys.urls, keys.hosts
	if values {
		paths, dirs, urls, hosts = keys.valuePaths, keys.valueDirs, keys.valueURLs, keys.valueHosts
	}
	if name == "" { // the root's own values: its undeclared arguments
		paths, dirs, urls, hosts = map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	}
	switch strings.ToLower(format) {
	case "path", "file-path", "filepath":
		paths[name] = true
	case "directory", "dir", "directory-path", "dir-path":
		dirs[name] = true // as explicit as a path, and a directory
	case "uri", "url", "uri-reference", "iri", "iri-reference":
		urls[name] = true
	case "hostname", "idn-hostname", "ipv4", "ipv6", "host-name", "ip-address": // the last two: draft 3's
		hosts[name] = true
	}
	if name == "" {
		keys.restPaths = keys.restPaths || paths[""]
		keys.restDirs = keys.restDirs || dirs[""]
		keys.restURLs = keys.restURLs || urls[""]
		keys.restHosts = keys.restHosts || hosts[""]
	}
}

// subschemas walks the schemas in obj beyond its properties: its values',
// its keys', its elements', the combinators' and the conditional ones.
func (sw *schemaWalker) subschemas(name string, obj map[string]any, depth int, values bool) {
	// An object's values, by any name: its additional and pattern
	// properties.
	sw.walk(name, obj["additionalProperties"], depth+1, true)
	sw.walk(name, obj["unevaluatedProperties"], depth+1, true)
	if pattern, ok := obj["patternProperties"].(map[string]any); ok {
		for _, v := range pattern {
			sw.walk(name, v, depth+1, true)
		}
	}
	sw.walk(name, obj["propertyNames"], depth+1, false) // its keys: an object under a path's name has paths for keys
	for _, k := range []string{"items", "additionalItems", "unevaluatedItems", "contains", "not", "if", "then", "else"} {
		sw.walk(name, obj[k], depth+1, values) // an array's elements are named by the array
	}
	for _, k := range []string{"prefixItems", "anyOf", "oneOf", "allOf", "items"} {
		if list, ok := obj[k].([]any); ok {
			for _, v := range list {
				sw.walk(name, v, depth+1, values)
			}
		}
	}
	// Schemas that apply when a property is there, to the object
	// itself (draft 2019-09's dependentSchemas, draft 7's
	// dependencies; a dependency's list of names is no schema).
	for _, k := range []string{"dependentSchemas", "dependencies"} {
		if deps, ok := obj[k].(map[string]any); ok {
			for _, v := range deps {
				sw.walk(name, v, depth+1, values)
			}
		}
	}
}

// resolveLocalRef finds the schema a $ref or $dynamicRef names within the
// document: a JSON Pointer fragment ("#/$defs/P", percent-decoded as a
// URI fragment is) or an anchor ("#P"), after the document's own $id if
// it is written out ("https://x/s#/$defs/P"). A ref to another document
// is not followed.
func resolveLocalRef(root any, ref string, anchors map[string]any) (any, bool) {
	base, fragment, found := strings.Cut(ref, "#")
	if !found {
		return nil, false
	}
	if base != "" {
		m, _ := root.(map[string]any)
		if id, _ := m["$id"].(string); id == "" || strings.TrimSuffix(id, "#") != base {
			return nil, false
		}
	}
	if !strings.HasPrefix(fragment, "/") && fragment != "" {
		target, ok := anchors[fragment]
		return target, ok
	}
	target := root
	for _, part := range strings.Split(fragment, "/")[1:] {
		if d, err := url.PathUnescape(part); err == nil {
			part = d // a URI fragment: "#/$defs/My%20Path"
		}
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, _ := target.(map[string]any)
		target = m[part]
	}
	return target, target != nil
}

// schemaAnchors are the subschemas of a schema by their $anchor and
// $dynamicAnchor names.
func schemaAnchors(root any) map[string]any {
	anchors := map[string]any{}
	var scan func(node any, depth int)
	scan = func(node any, depth int) {
		if depth > MaxDepth {
			return
		}
		switch n := node.(type) {
		case map[string]any:
			for _, k := range []string{"$anchor", "$dynamicAnchor"} {
				if a, ok := n[k].(string); ok {
					if _, taken := anchors[a]; !taken {
						anchors[a] = n
					}
				}
			}
			for _, v := range n {
				scan(v, depth+1)
			}
		case []any:
			for _, v := range n {
				scan(v, depth+1)
			}
		}
	}
	scan(root, 0)
	return anchors
}

// isStringSchema reports a schema that admits a string and nothing else
// but null: {"type": "string"}, {"type": ["string", "null"]}, or an anyOf
// or oneOf of those (pydantic's Optional[str]). A server that parses JSON
// passed as a string (FastMCP) does so for any other type.
func isStringSchema(node any) bool {
	obj, ok := node.(map[string]any)
	if !ok {
		return false
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if list, ok := obj[k].([]any); ok && len(list) > 0 {
			str := false
			for _, v := range list {
				switch sub, _ := v.(map[string]any); {
				case isStringSchema(v):
					str = true
				case sub["type"] != "null":
					return false
				}
			}
			return str
		}
	}
	switch t := obj["type"].(type) {
	case string:
		return t == "string"
	case []any:
		str := false
		for _, x := range t {
			switch x {
			case "string":
				str = true
			case "null":
			default:
				return false
			}
		}
		return str
	}
	return false
}
