package approvals

import "time"

// SetSessionLife shortens p's sessions, for a test to see one expire.
func SetSessionLife(p *Page, d time.Duration) { p.life = d }
