package outcome

import (
	"flag"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/docsection"
)

var update = flag.Bool("update", false, "rewrite docs/acting.md's table of outcomes")

// TestDocsShowTheTable keeps docs/acting.md's table the one the code uses.
func TestDocsShowTheTable(t *testing.T) {
	docsection.Block{
		Page:  "../../docs/acting.md",
		Begin: "<!-- outcomes: made by internal/outcome (go test ./internal/outcome -update) -->\n",
		End:   "<!-- end of outcomes -->\n",
	}.Check(t, Markdown(), *update)
}

func TestUnknownOutcomeIsAnError(t *testing.T) {
	for _, o := range []Outcome{"", "SOMETHING_NEW", "delivered"} {
		if Code(o) == 0 || OK(o) {
			t.Errorf("Code(%q) = %d: an outcome the table does not know must not be a success", o, Code(o))
		}
	}
}

func TestTableIsWellFormed(t *testing.T) {
	seen := map[Outcome]bool{}
	last := 0
	for _, e := range Table {
		if seen[e.Outcome] {
			t.Errorf("%s is in the table twice", e.Outcome)
		}
		seen[e.Outcome] = true
		if e.Code < last {
			t.Errorf("%s: code %d out of order", e.Outcome, e.Code)
		}
		last = e.Code
		if e.Code == Unknown || e.Code == 2 {
			t.Errorf("%s: code %d is the code of an error or a usage error", e.Outcome, e.Code)
		}
		if len(e.Commands) == 0 || e.Meaning == "" {
			t.Errorf("%s: no commands or no meaning", e.Outcome)
		}
	}
}

func TestUsageListsACommandsOutcomes(t *testing.T) {
	u := Usage("wait")
	for _, o := range []Outcome{Completed, NotFound, Timeout} {
		if !strings.Contains(u, string(o)) {
			t.Errorf("wait's usage lacks %s:\n%s", o, u)
		}
	}
	if strings.Contains(u, string(Delivered)) {
		t.Errorf("wait's usage lists a send outcome:\n%s", u)
	}
}
