package store

import "testing"

// TestSchemaIsWhatTheFileSays: the version the daemon reports (paneherd doctor) is the one
// its meta bucket holds, after Open created or migrated it.
func TestSchemaIsWhatTheFileSays(t *testing.T) {
	s := openTemp(t)
	got, err := s.Schema()
	if err != nil || got != schemaVersion {
		t.Fatalf("Schema = %d, %v; want %d", got, err, schemaVersion)
	}
}
