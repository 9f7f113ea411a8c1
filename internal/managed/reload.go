package managed

import (
	"os"
	"os/signal"
)

// ReloadOnSignal reads the rule files again on each SIGHUP (where there is
// one), until the returned function is called; say tells the human when
// there is nothing to read again.
func (m *Managed) ReloadOnSignal(say func(string)) (stop func()) {
	if len(reloadSignals) == 0 {
		return func() {}
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, reloadSignals...)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-ch:
				switch {
				case m.Files != nil:
					m.Files.Reload()
				case m.Plane != nil && m.Plane.HasBundles():
					say("SIGHUP: the rules come from the bundles of --config, which OPA polls; nothing to reload")
				default:
					say("SIGHUP: no --rules or --policy files to reload")
				}
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
