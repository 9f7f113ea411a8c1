package proxy

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The host's session: what initialize said, read on its way past.

// hostSession is what the host said of itself in initialize (Proxy.session).
type hostSession struct {
	protocol string // negotiated (the server's answer), else asked for
	caps     capsSeen
	client   string // its name and version, as it gave them
}

// readInitialize notes what the host can do, and says on stderr whether
// its questions can reach the human.
func (p *Proxy) readInitialize(params []byte) {
	var in struct {
		ProtocolVersion string             `json:"protocolVersion"`
		Capabilities    clientCapabilities `json:"capabilities"`
		ClientInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"clientInfo"`
	}
	if err := json.Unmarshal(params, &in); err != nil {
		return
	}
	caps := in.Capabilities.seen()
	client := strings.TrimSpace(in.ClientInfo.Name + " " + in.ClientInfo.Version)
	p.setSession(func(s *hostSession) { s.protocol, s.caps, s.client = in.ProtocolVersion, caps, client })
	host := "the host"
	if client != "" {
		host = fmt.Sprintf("the host %.60q", client)
	}
	p.warnf("%s", p.routeLine(host, caps))
}

func (p *Proxy) readInitializeResult(result []byte) {
	var out struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if json.Unmarshal(result, &out) != nil {
		return
	}
	if out.ProtocolVersion != "" {
		p.setSession(func(s *hostSession) { s.protocol = out.ProtocolVersion })
	}
	p.useServerSpecs(out.ServerInfo.Name)
}

// session is what the host said of itself in initialize. Every decided
// request reads it, without a lock.
func (p *Proxy) session() hostSession {
	if s := p.info.Load(); s != nil {
		return *s
	}
	return hostSession{}
}

// setSession changes the session with change, under p.mu, so that two
// changes do not lose either.
func (p *Proxy) setSession(change func(*hostSession)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.session()
	change(&s)
	p.info.Store(&s)
}
