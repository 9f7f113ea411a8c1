package proxy

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A host's capabilities are read one way, whether initialize declares them
// or a 2026-07-28 request's _meta does.
func TestCapabilitiesReadOneWay(t *testing.T) {
	for caps, want := range map[string]capsSeen{
		`{}`:                                   {},
		`{"elicitation":{}}`:                   {elicit: true, anyElicit: true},
		`{"elicitation":{"form":{}}}`:          {elicit: true, anyElicit: true},
		`{"elicitation":{"url":{}}}`:           {anyElicit: true},
		`{"elicitation":{"form":{},"url":{}}}`: {elicit: true, anyElicit: true},
		`{"roots":{"listChanged":true}}`:       {},
	} {
		p := newProxy(options{}, nil, io.Discard)
		p.readInitialize([]byte(`{"protocolVersion":"2025-11-25","capabilities":` + caps + `}`))
		assert.Equal(t, want, p.session().caps, "initialize %s", caps)
		version, got, ok := modernMeta([]byte(`{"` + metaProtocol + `":"2026-07-28","` + metaClientCaps + `":` + caps + `}`))
		assert.True(t, ok)
		assert.Equal(t, "2026-07-28", version)
		assert.Equal(t, want, got, "_meta %s", caps)
	}
}
