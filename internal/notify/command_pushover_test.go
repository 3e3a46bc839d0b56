package notify

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// docs/notifications.md's Pushover recipe, run as written (its URL pointed at a loopback stand-in for
// Pushover's API) by the command backend: the server gets the keys, the title and message
// as they are, priority 1 for a dialog; a title that names a file is not that file's
// contents, and nothing in the event runs.
func TestCommandPushoverRecipeFromTheDocs(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("the recipe runs curl, which is not installed")
	}
	type post struct{ fields map[string]string }
	posts := make(chan post, 1)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/1/messages.json" || r.ParseMultipartForm(1<<20) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		p := post{fields: map[string]string{}}
		for k, v := range r.MultipartForm.Value {
			p.fields[k] = strings.Join(v, ",")
		}
		posts <- p
		w.Write([]byte(`{"status":1,"request":"x"}`))
	}))
	defer api.Close()

	script := strings.Replace(docsRecipe(t, "# paneherd-pushover:"),
		"url=https://api.pushover.net/1/messages.json", "url="+api.URL+"/1/messages.json", 1)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "paneherd-pushover"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	// curl reads ~/.curlrc and the proxy variables: neither may send this elsewhere.
	t.Setenv("HOME", t.TempDir())
	for _, v := range []string{"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"} {
		t.Setenv(v, "")
	}
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("the contents of a private file"), 0o600); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "ran")
	n := hostileNotification(marker)
	n.Title = "@" + secret
	n.Body = "<" + secret + "\n" + n.Body

	c, err := NewCommand(filepath.Join(dir, "paneherd-pushover"), 10*time.Second, "devbox")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send(context.Background(), n); err != nil {
		t.Fatalf("Send: %v", err)
	}
	var got post
	select {
	case got = <-posts:
	default:
		t.Fatal("the stand-in for Pushover got nothing")
	}
	want := NewEventObject(n, "devbox")
	for k, v := range map[string]string{"token": "YOUR_APP_TOKEN", "user": "YOUR_USER_KEY",
		"title": want.Title, "message": want.Body, "priority": "1"} {
		if got.fields[k] != v {
			t.Errorf("%s = %q, want %q", k, got.fields[k], v)
		}
	}
	if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a command in the event ran: %s exists", marker)
	}
}

// docsRecipe is docs/notifications.md's sh code block whose second line is first.
func docsRecipe(t *testing.T, first string) string {
	t.Helper()
	page, err := os.ReadFile("../../docs/notifications.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(page), "```sh\n")[1:] {
		script, _, _ := strings.Cut(block, "```")
		if strings.HasPrefix(script, "#!/bin/sh\n"+first) {
			return script
		}
	}
	t.Fatalf("docs/notifications.md has no sh block starting with %q", first)
	return ""
}
