package deliver

import (
	"reflect"
	"testing"
	"time"
)

func TestStrokesPressKeysOneAtATimeOnlyWithAGap(t *testing.T) {
	keys := []string{"C-c", "C-c", "C-c"}
	if got := strokes(PressRequest{Keys: keys}); !reflect.DeepEqual(got, [][]string{keys}) {
		t.Errorf("without a gap: %q; want one send-keys with every key", got)
	}
	want := [][]string{{"C-c"}, {"C-c"}, {"C-c"}}
	if got := strokes(PressRequest{Keys: keys, Gap: 300 * time.Millisecond}); !reflect.DeepEqual(got, want) {
		t.Errorf("with a gap: %q; want %q", got, want)
	}
}
