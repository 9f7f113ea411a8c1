package approvals

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcp-policy/mcp-policy/internal/visible"
)

// WriteQuestion writes a pending question as `mcp-policy approve` lists it
// (a summary: the question's message) or shows it (full: every argument
// too), with the command lines that answer it. Everything from the
// question is escaped for the terminal: no escape sequence in it can move
// the cursor, retitle the window or redraw the lines of another question.
func WriteQuestion(w io.Writer, q Question, grantsFile string, full bool) {
	approve := Command("approve", grantsFile)
	fmt.Fprintf(w, "%s  %s, asked %s ago by process %d on %s (server: %s)\n", q.ID, visible.Whole(q.Tool),
		time.Since(q.Asked).Round(time.Second), q.Asker.PID, visible.Whole(q.Asker.Machine), visible.Whole(q.Asker.Server))
	for _, line := range strings.Split(visible.Lines(q.Message), "\n") {
		fmt.Fprintf(w, "    %s\n", line)
	}
	if full {
		fmt.Fprintln(w, "  All its arguments, in full (this is what runs):")
		for _, line := range strings.Split(visible.Lines(q.Arguments), "\n") {
			fmt.Fprintf(w, "    %s\n", line)
		}
	} else {
		fmt.Fprintf(w, "  Its arguments in full: %s show %s\n", approve, q.ID)
	}
	for _, o := range q.Options {
		fmt.Fprintf(w, "  %s %s %s   # %s\n", approve, o.Word(), q.ID, o.Label())
	}
	fmt.Fprintln(w)
}
