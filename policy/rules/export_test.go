package rules

// DecodeJSON is decodeJSON, for the external tests and fuzz target that
// hold it to encoding/json.
var DecodeJSON = decodeJSON
