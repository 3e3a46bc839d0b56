package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
	bolt "go.etcd.io/bbolt"
)

var fixedNow = func() time.Time { return t0 }

const asideSuffix = ".corrupt-20260301T120000Z"

func randomBytes(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// writePaneherdDB writes a real database spanning many pages and returns
// its bytes.
func writePaneherdDB(t *testing.T, path string) []byte {
	t.Helper()
	s, err := Open(path, Options{HistoryLimit: 1000})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	var ts []wire.Transition
	for i := 0; i < 400; i++ {
		ts = append(ts, transition(fmt.Sprintf("%%%d", i%7), t0, strings.Repeat("x", 100)))
	}
	if err := s.Apply(Batch{Put: []wire.Pane{{ID: "%1"}}, Transitions: ts}); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return readFile(t, path)
}

// writeBoltDB writes a bbolt file whose content fill decides.
func writeBoltDB(t *testing.T, path string, fill func(tx *bolt.Tx) error) []byte {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(fill); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return readFile(t, path)
}

func writeFile(t *testing.T, path string, data []byte) []byte {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return data
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// damage rewrites the file at path with edit applied to its bytes.
func damage(t *testing.T, path string, edit func([]byte) []byte) []byte {
	t.Helper()
	return writeFile(t, path, edit(readFile(t, path)))
}

func TestOpenMovesUnusableFileAside(t *testing.T) {
	page := os.Getpagesize()
	tests := []struct {
		name  string
		setup func(t *testing.T, path string) []byte
	}{
		{"random bytes", func(t *testing.T, path string) []byte {
			return writeFile(t, path, randomBytes(64<<10))
		}},
		{"short garbage", func(t *testing.T, path string) []byte {
			return writeFile(t, path, []byte("this is not a database\n"))
		}},
		{"truncated", func(t *testing.T, path string) []byte {
			writePaneherdDB(t, path)
			return damage(t, path, func(b []byte) []byte { return b[:5*page] })
		}},
		{"meta pages zeroed", func(t *testing.T, path string) []byte {
			writePaneherdDB(t, path)
			return damage(t, path, func(b []byte) []byte {
				clear(b[:2*page])
				return b
			})
		}},
		{"garbage pages behind valid meta", func(t *testing.T, path string) []byte {
			writePaneherdDB(t, path)
			return damage(t, path, func(b []byte) []byte {
				copy(b[2*page:], randomBytes(len(b)-2*page))
				return b
			})
		}},
		{"another program's bbolt file", func(t *testing.T, path string) []byte {
			return writeBoltDB(t, path, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("users"))
				if err != nil {
					return err
				}
				return b.Put([]byte("alice"), []byte("admin"))
			})
		}},
		{"meta of another app", func(t *testing.T, path string) []byte {
			return writeBoltDB(t, path, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket(bucketMeta)
				if err != nil {
					return err
				}
				return b.Put(keyApp, []byte(`"otherapp"`))
			})
		}},
		{"newer schema", func(t *testing.T, path string) []byte {
			writePaneherdDB(t, path)
			return writeBoltDB(t, path, func(tx *bolt.Tx) error {
				return tx.Bucket(bucketMeta).Put(keySchema, []byte(strconv.Itoa(schemaVersion+1)))
			})
		}},
		{"panes bucket missing", func(t *testing.T, path string) []byte {
			writePaneherdDB(t, path)
			return writeBoltDB(t, path, func(tx *bolt.Tx) error {
				return tx.DeleteBucket(bucketPanes)
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := testPath(t)
			original := tt.setup(t, path)
			s := mustOpen(t, path, Options{Now: fixedNow})

			aside := path + asideSuffix
			if got := s.Recovered(); !strings.Contains(got, path) || !strings.Contains(got, aside) {
				t.Errorf("Recovered() = %q, want it to name %s and %s", got, path, aside)
			}
			if got, err := os.ReadFile(aside); err != nil || !bytes.Equal(got, original) {
				t.Errorf("the aside file %s does not hold the original bytes (err %v)", aside, err)
			}
			if got := paneIDs(t, s); len(got) != 0 {
				t.Errorf("fresh database has panes %v", got)
			}
			mustApply(t, s, Batch{Put: []wire.Pane{{ID: "%5"}}})
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			s = mustOpen(t, path, Options{Now: fixedNow, LockTimeout: 200 * time.Millisecond})
			if s.Recovered() != "" {
				t.Errorf("reopening the fresh database recovered again: %s", s.Recovered())
			}
			if got := paneIDs(t, s); !reflect.DeepEqual(got, []string{"%5"}) {
				t.Errorf("fresh database after reopen: panes = %v, want [%%5]", got)
			}
		})
	}
}

// TestCheckLengthCatchesTruncation cuts the file under an open handle, the
// way a full disk or a careless copy leaves it, and expects checkLength to
// refuse it before anything reads the missing pages.
func TestCheckLengthCatchesTruncation(t *testing.T) {
	path := testPath(t)
	full := writePaneherdDB(t, path)
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.View(checkLength); err != nil {
		t.Fatalf("checkLength on the whole file = %v, want nil", err)
	}
	if err := os.Truncate(path, int64(len(full)/2)); err != nil {
		t.Fatal(err)
	}
	if err := db.View(checkLength); !errors.Is(err, errCorrupt) {
		t.Fatalf("checkLength on a truncated file = %v, want errCorrupt", err)
	}
}

func TestMoveAsideNeverOverwrites(t *testing.T) {
	path := testPath(t)
	first := writeFile(t, path, []byte("first bad file"))
	s := mustOpen(t, path, Options{Now: fixedNow})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, []byte("second bad file"))
	s = mustOpen(t, path, Options{Now: fixedNow})

	if got := readFile(t, path+asideSuffix); !bytes.Equal(got, first) {
		t.Errorf("first aside file now holds %q", got)
	}
	if got := readFile(t, path+asideSuffix+"-2"); string(got) != "second bad file" {
		t.Errorf("second aside file holds %q", got)
	}
	if !strings.Contains(s.Recovered(), asideSuffix+"-2") {
		t.Errorf("Recovered() = %q, want the -2 name", s.Recovered())
	}
}

func TestOpenEmptyFileIsFresh(t *testing.T) {
	path := testPath(t)
	writeFile(t, path, nil)
	s := mustOpen(t, path, Options{})
	if s.Recovered() != "" {
		t.Fatalf("an empty file was treated as unusable: %s", s.Recovered())
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only the database", len(entries))
	}
}

// TestSchemaOnDisk pins the layout other versions of paneherd rely on.
func TestSchemaOnDisk(t *testing.T) {
	path := testPath(t)
	s := mustOpen(t, path, Options{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket([]byte("meta"))
		if meta == nil {
			return errors.New("no meta bucket")
		}
		var app string
		var schema int
		if err := json.Unmarshal(meta.Get([]byte("app")), &app); err != nil || app != "paneherd" {
			return fmt.Errorf("meta/app = %q", meta.Get([]byte("app")))
		}
		if err := json.Unmarshal(meta.Get([]byte("schema")), &schema); err != nil || schema != schemaVersion {
			return fmt.Errorf("meta/schema = %q", meta.Get([]byte("schema")))
		}
		for _, name := range []string{"panes", "history", "notifications", "triggers", "queue"} {
			if tx.Bucket([]byte(name)) == nil {
				return fmt.Errorf("no %s bucket", name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestEveryOlderSchemaHasAMigration(t *testing.T) {
	if len(migrations) != schemaVersion-1 {
		t.Fatalf("%d migrations for schema %d: every older schema needs one step", len(migrations), schemaVersion)
	}
}

func TestGuardedTurnsPanicIntoCorrupt(t *testing.T) {
	err := guarded(func() error { panic("invalid page type") })
	if !errors.Is(err, errCorrupt) || !strings.Contains(err.Error(), "invalid page type") {
		t.Fatalf("guarded = %v, want errCorrupt with the panic message", err)
	}
}

// TestOpenSurvivesAnyTruncation cuts a real database at every size where
// bbolt's reading changes: around its meta-page probes (1 KiB steps), its
// page boundaries, and the high-water mark its meta page records. A cut
// below the mark loses pages the meta promises, so the file is moved aside;
// a cut at or above it drops only unused tail space and keeps the data.
func TestOpenSurvivesAnyTruncation(t *testing.T) {
	full := writePaneherdDB(t, testPath(t))
	hwm := highWaterMark(t, full)
	for _, size := range truncationSizes(len(full), hwm) {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			path := testPath(t)
			writeFile(t, path, full[:size])
			s := mustOpen(t, path, Options{Now: fixedNow})

			switch {
			case size == 0:
				if s.Recovered() != "" || len(paneIDs(t, s)) != 0 {
					t.Errorf("an empty file: Recovered() = %q, panes %v; want a fresh database", s.Recovered(), paneIDs(t, s))
				}
			case size < hwm:
				if !strings.Contains(s.Recovered(), path+asideSuffix) {
					t.Errorf("Recovered() = %q, want it to name the aside file", s.Recovered())
				}
				if got := readFile(t, path+asideSuffix); !bytes.Equal(got, full[:size]) {
					t.Errorf("the aside file holds %d bytes, not the %d truncated ones", len(got), size)
				}
				if got := paneIDs(t, s); len(got) != 0 {
					t.Errorf("fresh database has panes %v", got)
				}
			default:
				if s.Recovered() != "" {
					t.Errorf("a cut at or above the high-water mark (%d) was treated as damage: %s", hwm, s.Recovered())
				}
				if got := paneIDs(t, s); !reflect.DeepEqual(got, []string{"%1"}) {
					t.Errorf("panes = %v, want [%%1] kept", got)
				}
			}
			mustApply(t, s, Batch{Put: []wire.Pane{{ID: "%5"}}})
		})
	}
}

// highWaterMark is how many bytes the pages of the database in data need,
// as its newest meta page records: the file may be longer than that.
func highWaterMark(t *testing.T, data []byte) int {
	t.Helper()
	path := filepath.Join(t.TempDir(), "copy.db")
	writeFile(t, path, data)
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var size int64
	err = db.View(func(tx *bolt.Tx) error {
		size = tx.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return int(size)
}

// truncationSizes lists 0, 1, and one byte either side of every boundary
// below n: bbolt's 1 KiB meta probes, each page, and the high-water mark.
func truncationSizes(n, hwm int) []int {
	page := os.Getpagesize()
	marks := []int{1024, 2048, hwm, n}
	for p := page; p < n; p += page {
		marks = append(marks, p)
	}
	seen := map[int]bool{}
	sizes := []int{0, 1}
	for _, m := range marks {
		sizes = append(sizes, m-1, m, m+1)
	}
	var out []int
	for _, s := range sizes {
		if s >= 0 && s < n && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}
