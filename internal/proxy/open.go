package proxy

import "sync"

// openRequests is a table of the host's open requests of one kind (those
// forwarded to the server, or those being decided), filed under their id's
// reading (idReading).
//
// The reading is a key because refusedID keeps no two of the host's
// requests open whose readings are equal: it is the one rule that lets a
// lenient reader's answer find one request only. So the test refusedID
// makes is one lookup, not a scan of every open request, and an answer
// finds its request by the same lookup; an answer whose id is spelt
// otherwise than its request's (2.0 or "2" for 2) is no answer to it, as
// before, because each entry keeps its id's exact key (idKey) too.
//
// It is a sync.Map, so that no lock shared by all calls is on an allowed
// call's way: since Go 1.24 one is a hash trie, whose lookups take no lock
// and whose changes lock one node, and the keys are distinct ids. Each
// change is one atomic step (CompareAndSwap, CompareAndDelete), so two
// goroutines forgetting one request cannot both take it.
type openRequests[V comparable] struct{ m sync.Map }

// openID is an id as the tables file it: its reading (idReading) and its
// exact key (idKey), each worked out once for a request.
type openID struct{ reading, key string }

func openIDOf(raw []byte) openID { return openID{idReading(raw), idKey(raw)} }

// filed is an entry: the request and the exact key of the id it was filed
// under.
type filed[V comparable] struct {
	key string
	v   V
}

// file files v under id, replacing what was filed under its reading. The
// id is one refusedID took: the goroutine reading the host files the
// request (calls, or pending for one it forwards), and the goroutine
// deciding a call files it in pending, its id held in calls meanwhile.
func (t *openRequests[V]) file(id openID, v V) {
	t.m.Store(id.reading, filed[V]{id.key, v})
}

// underReading is what is filed under reading, whatever its id's spelling.
func (t *openRequests[V]) underReading(reading string) (V, bool) {
	e, ok := t.m.Load(reading)
	if !ok {
		var zero V
		return zero, false
	}
	return e.(filed[V]).v, true
}

// find is what is filed under id, spelt as it was filed.
func (t *openRequests[V]) find(id openID) (V, bool) {
	e, ok := t.m.Load(id.reading)
	if !ok || e.(filed[V]).key != id.key {
		var zero V
		return zero, false
	}
	return e.(filed[V]).v, true
}

// take finds and forgets what is filed under id, spelt as it was filed;
// of two goroutines taking it, one has it.
func (t *openRequests[V]) take(id openID) (V, bool) {
	v, ok := t.find(id)
	if !ok || !t.forget(id, v) {
		var zero V
		return zero, false
	}
	return v, true
}

// replace files by in place of v, if v is still filed under id.
func (t *openRequests[V]) replace(id openID, v, by V) bool {
	return t.m.CompareAndSwap(id.reading, filed[V]{id.key, v}, filed[V]{id.key, by})
}

// forget forgets v if it is still filed under id, and says whether it was.
func (t *openRequests[V]) forget(id openID, v V) bool {
	return t.m.CompareAndDelete(id.reading, filed[V]{id.key, v})
}

// each calls f with every entry, as Range sees them.
func (t *openRequests[V]) each(f func(v V)) {
	t.m.Range(func(_, e any) bool {
		f(e.(filed[V]).v)
		return true
	})
}

// takeAll forgets every entry and returns them: each is had by this call
// alone, not by a take or forget meanwhile.
func (t *openRequests[V]) takeAll() []V {
	var out []V
	t.m.Range(func(reading, e any) bool {
		if t.m.CompareAndDelete(reading, e) {
			out = append(out, e.(filed[V]).v)
		}
		return true
	})
	return out
}

// empty says nothing is filed.
func (t *openRequests[V]) empty() bool {
	empty := true
	t.m.Range(func(_, _ any) bool { empty = false; return false })
	return empty
}
