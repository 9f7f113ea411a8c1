package proxy

// Reading the host: the one reader of its stream, and its hand-over to a goroutine standing by while anything waits (see the package doc's Concurrency).

// readHost reads the host's messages while it holds lr, the one reader of
// the host's stdin. A decided request (a tools/call, resources/read,
// prompts/get or completion/complete) is decided by the goroutine that read
// it (decideReading), so that no handing over stands between the host's
// request and the server; whoever holds lr when the call is decided reads
// on. Whoever reads end of input closes hostDone.
func (p *Proxy) readHost(lr *lineReader) {
	for {
		msg, err := lr.next()
		if tooLong, ok := err.(*lineTooLong); ok {
			p.hostLineTooLong(tooLong)
			continue
		}
		if err != nil {
			p.doneOnce.Do(func() { close(p.hostDone) })
			return
		}
		hc := p.fromHost(msg)
		if hc == nil || p.decideReading(hc, lr) {
			continue
		}
		// Another goroutine reads the host now: stand by to be handed
		// the reader in turn.
		p.standing.Add(1)
		select {
		case lr = <-p.reader:
			p.standing.Add(-1)
		case <-p.ctx.Done():
			return
		}
	}
}

// decideReading decides hc on the goroutine that read it, which holds lr,
// and says whether it still does. Handing lr to another goroutine costs a
// wake-up of another thread per call, more than a small call's whole
// decision, so lr is handed over only when that buys something: at once
// when more of the host's input is already buffered (another goroutine
// reads it while this one decides) or when anything is waiting (see
// waitStarts), and otherwise as soon as anything starts waiting: nothing
// the host sends — the human's answer above all — waits behind a call
// that waits.
func (p *Proxy) decideReading(hc *hostCall, lr *lineReader) bool {
	defer p.answering.Add(-1)
	if lr.buffered() {
		p.handOver(lr)
		p.runCall(hc)
		return false
	}
	// Held first, then the count read: a wait that starts after the
	// count is read finds lr held, and hands it over itself.
	p.heldReader.Store(lr)
	if p.waiting.Load() > 0 {
		p.freeHostReader()
	}
	p.runCall(hc)
	return p.heldReader.CompareAndSwap(lr, nil)
}

// waitStarts is said by whatever is about to wait while a call is decided
// or answered — for the roots to settle (awaitRoots), for an answer of the
// host's or the server's (request, hostRound, forwardCall) — and waitEnds
// when it has done: meanwhile no call is decided holding the host's
// reader, and a call that holds it now hands it over, so the host is read
// while anything waits. That covers the one wait the proxy cannot mark,
// the policy's ask lock, inside package policy: a call waits on it only
// while another call holds it, and a call holds it to ask the human,
// through request or hostRound, that is, waiting.
func (p *Proxy) waitStarts() {
	p.waiting.Add(1)
	p.freeHostReader()
}

func (p *Proxy) waitEnds() { p.waiting.Add(-1) }

// freeHostReader hands the host's reader on if a goroutine deciding a
// call holds it (decideReading).
func (p *Proxy) freeHostReader() {
	if lr := p.heldReader.Swap(nil); lr != nil {
		p.handOver(lr)
	}
}

// handOver gives lr to a goroutine standing by, starting one if none is.
func (p *Proxy) handOver(lr *lineReader) {
	if p.standing.Load() == 0 {
		p.standing.Add(1)
		go p.standBy()
	}
	p.reader <- lr
}

// standBy waits to be handed the reader.
func (p *Proxy) standBy() {
	select {
	case lr := <-p.reader:
		p.standing.Add(-1)
		p.readHost(lr)
	case <-p.ctx.Done():
	}
}
