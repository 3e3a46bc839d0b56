package metrics

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	vm "github.com/VictoriaMetrics/metrics"

	"github.com/paneherd/paneherd/internal/state"
)

// contentType is the text exposition format, version 0.0.4: what Prometheus asks for
// first and what every scraper reads.
const contentType = "text/plain; version=0.0.4; charset=utf-8"

const (
	counter = "counter"
	gauge   = "gauge"
)

// family is one metric: its HELP and TYPE lines, and its series in a vm.Set of its own.
// The library writes HELP lines without text (vm.ExposeMetadata, which is process-wide
// and stays off), so each family writes its own before its series.
type family struct {
	name, kind, help string
	set              *vm.Set
}

func newFamily(name, kind, help string) *family {
	return &family{name: name, kind: kind, help: help, set: vm.NewSet()}
}

// counter is the series with these label pairs (name, value, name, value, …; names in
// order), made at 0 on first use.
func (f *family) counter(labels ...string) *vm.Counter {
	return f.set.GetOrCreateCounter(series(f.name, labels...))
}

// write appends the family to b, unless it has no series.
func (f *family) write(b *bytes.Buffer) {
	var body bytes.Buffer
	f.set.WritePrometheus(&body)
	if body.Len() == 0 {
		return
	}
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n", f.name, f.help, f.name, f.kind)
	b.Write(body.Bytes())
}

// series is a series name in the text format: name{label="value",…}, values escaped.
func series(name string, labels ...string) string {
	if len(labels) == 0 {
		return name
	}
	var b strings.Builder
	b.WriteString(name)
	sep := "{"
	for i := 0; i+1 < len(labels); i += 2 {
		b.WriteString(sep + labels[i] + `="` + labelValue(labels[i+1]) + `"`)
		sep = ","
	}
	b.WriteByte('}')
	return b.String()
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// labelValue escapes v for a label value: the text format escapes backslash, double quote
// and line feed, and nothing else; the library takes a series name as given. The text is
// UTF-8, so invalid bytes become U+FFFD. A worker name or an event may hold any of these.
func labelValue(v string) string {
	return labelEscaper.Replace(strings.ToValidUTF8(v, "\uFFFD"))
}

// paneStates is the panes gauge: one function, asked once at each scrape for every state.
type paneStates struct {
	family *family
	mu     sync.Mutex
	f      func() map[string]int
}

func newPaneStates() *paneStates {
	p := &paneStates{family: newFamily("paneherd_panes", gauge, "Panes watched now, by state.")}
	p.family.set.RegisterMetricsWriter(p.writeGauge)
	return p
}

func (p *paneStates) set(f func() map[string]int) {
	p.mu.Lock()
	p.f = f
	p.mu.Unlock()
}

// writeGauge writes one series per state: every state in state.All, then any other name
// the function gave, sorted.
func (p *paneStates) writeGauge(w io.Writer) {
	p.mu.Lock()
	f := p.f
	p.mu.Unlock()
	counts := map[string]int{}
	if f != nil {
		counts = f()
	}
	var names []string
	for _, st := range state.All {
		names = append(names, string(st))
	}
	var others []string
	for name := range counts {
		if !slices.Contains(names, name) {
			others = append(others, name)
		}
	}
	slices.Sort(others)
	for _, name := range append(names, others...) {
		vm.WriteGaugeUint64(w, series(p.family.name, "state", name), uint64(max(counts[name], 0)))
	}
}
