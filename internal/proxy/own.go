package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// The proxy's own requests to either side: ids no one else's can take, and their answers.

func (p *Proxy) ownID(raw []byte) bool {
	return len(raw) > 0 && raw[0] == '"' && strings.HasPrefix(idKey(raw), "s"+p.prefix)
}

// newID is a fresh id of the proxy's own, as raw JSON.
func (p *Proxy) newID() []byte {
	return strconv.AppendQuote(nil, p.prefix+strconv.FormatUint(p.nextID.Add(1), 10))
}

// peer is one side of the relay, the host or the server, as the proxy's
// own requests see it: the one engine that sends them, waits for their
// answers, and withdraws them (request) serves both.
type peer struct {
	name  string
	write func(msg []byte)
	// gone is closed when the side can answer no more (nil: never, the
	// side's going answers its requests instead); goneWhy, called with
	// p.mu held, says why, "" while it can answer.
	gone    <-chan struct{}
	goneWhy func() string
	own     map[string]chan reply // the requests awaiting an answer, by idKey; under p.mu
}

// ownAnswered takes the channel of the proxy's own request to side that
// a response with id answers. Only an id of the proxy's can be one
// (ownID), so any other response passes without p.mu: the answers to the
// host's calls are most of what the server sends.
func (p *Proxy) ownAnswered(side *peer, id []byte) (chan reply, bool) {
	if !p.ownID(id) {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return side.take(idKey(id))
}

// take removes and returns the channel of the request key answers, when
// it is one of the proxy's own to this side. p.mu is held.
func (s *peer) take(key string) (chan reply, bool) {
	ch, ok := s.own[key]
	delete(s.own, key)
	return ch, ok
}

// request sends to a request of the proxy's own and waits for its answer:
// the response's result or error, or an error when the side goes or fails
// it (reply.fail). If ctx ends first the request is withdrawn: forgotten,
// and cancelled with a notification.
func (p *Proxy) request(ctx context.Context, to *peer, method string, params any) (reply, error) {
	id := p.newID()
	key := idKey(id)
	ch := make(chan reply, 1)
	p.mu.Lock()
	if why := to.goneWhy(); why != "" {
		p.mu.Unlock()
		return reply{}, errors.New(why)
	}
	to.own[key] = ch
	p.mu.Unlock()
	to.write(requestMessage(id, method, params))
	p.waitStarts()
	defer p.waitEnds()
	forget := func() {
		p.mu.Lock()
		to.take(key)
		p.mu.Unlock()
	}
	select {
	case r := <-ch:
		if r.fail != "" {
			return r, errors.New(r.fail)
		}
		return r, nil
	case <-to.gone:
		forget()
		return reply{}, errors.New(to.name + " is gone")
	case <-ctx.Done():
		forget()
		to.write(notification(notifyCancelled, map[string]any{"requestId": json.RawMessage(id), "reason": context.Cause(ctx).Error()}))
		return reply{}, context.Cause(ctx)
	}
}
