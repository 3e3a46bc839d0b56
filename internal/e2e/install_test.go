package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// installVersion is the release the install tests serve.
const installVersion = "0.0.1-test"

// install.sh against a release served from loopback: it downloads and verifies when it can,
// refuses an archive whose checksum does not match, builds with Go when there is no
// release to use, and downloads nothing when bin/paneherd already is the release. It tells
// PANEHERD_ON_STEP each step it starts (the plugin shows it in the status bar).
func TestInstallScript(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" || runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skipf("releases are not built for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	if !onPath("curl") && !onPath("wget") {
		t.Skip("neither curl nor wget is installed: install.sh cannot download")
	}
	served, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	archiveName := fmt.Sprintf("paneherd_%s_%s_%s.tar.gz", installVersion, runtime.GOOS, runtime.GOARCH)
	archive := tarGz(t, map[string][]byte{"paneherd": served, "README.md": []byte("paneherd\n")})
	sum := sha256.Sum256(archive)
	goodSums := hex.EncodeToString(sum[:]) + "  " + archiveName + "\n"
	wrong := sha256.Sum256([]byte("another archive"))
	badSums := hex.EncodeToString(wrong[:]) + "  " + archiveName + "\n"
	noGo := pathWithout(t, "go")
	release := stampedBinary(t, installVersion)

	tests := []struct {
		name     string
		assets   map[string][]byte
		path     string // PATH for install.sh; empty: this one
		before   []byte // bin/paneherd before install.sh runs; nil: none
		wantCode int
		want     []string
		dontWant []string
		steps    string // what install.sh told PANEHERD_ON_STEP, in order
		// installed: "served" (the served binary, byte for byte), "built" (another binary
		// that runs), "kept" (before, untouched) or "" (no bin/paneherd).
		installed string
	}{
		{
			name:      "good archive",
			assets:    map[string][]byte{archiveName: archive, "checksums.txt": []byte(goodSums)},
			want:      []string{"downloading paneherd " + installVersion, "verifying checksum … ok", "checksum verified, no build"},
			dontWant:  []string{"building"},
			steps:     "downloading",
			installed: "served",
		},
		{
			name:      "the release already installed",
			assets:    map[string][]byte{}, // any request fails
			before:    release,
			want:      []string{"bin/paneherd is already paneherd " + installVersion + ", nothing to download"},
			dontWant:  []string{"downloading", "building"},
			installed: "kept",
		},
		{
			name:      "another version installed",
			assets:    map[string][]byte{archiveName: archive, "checksums.txt": []byte(goodSums)},
			before:    served, // paneherd dev
			want:      []string{"downloading paneherd " + installVersion, "checksum verified, no build"},
			steps:     "downloading",
			installed: "served",
		},
		{
			name:      "bad checksum, no Go",
			assets:    map[string][]byte{archiveName: archive, "checksums.txt": []byte(badSums)},
			path:      noGo,
			wantCode:  1,
			want:      []string{"REFUSED", "checksum does not match", "Go is not installed", "release tag", "install Go 1.21 or newer", "https://go.dev/dl/"},
			dontWant:  []string{"building with Go"},
			steps:     "downloading",
			installed: "",
		},
		{
			name:      "bad checksum, Go builds instead",
			assets:    map[string][]byte{archiveName: archive, "checksums.txt": []byte(badSums)},
			want:      []string{"REFUSED", "checksum does not match", "building instead of downloading", "building with Go", "built bin/paneherd"},
			steps:     "downloading building",
			installed: "built",
		},
		{
			name:      "missing asset, Go builds instead",
			assets:    map[string][]byte{"checksums.txt": []byte(goodSums)},
			want:      []string{"downloading paneherd " + installVersion, "failed after", "404", "building instead of downloading", "building with Go", "built bin/paneherd"},
			dontWant:  []string{"verifying checksum"},
			steps:     "downloading building",
			installed: "built",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(releaseHandler(tt.assets))
			defer srv.Close()
			dir := repoCopy(t)
			path := tt.path
			if path == "" {
				path = os.Getenv("PATH")
			}
			bin := filepath.Join(dir, "bin", "paneherd")
			if tt.before != nil {
				os.MkdirAll(filepath.Dir(bin), 0o755)
				if err := os.WriteFile(bin, tt.before, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			steps := filepath.Join(t.TempDir(), "steps")
			tell := filepath.Join(t.TempDir(), "tell")
			os.WriteFile(tell, []byte("#!/bin/sh\nprintf '%s ' \"$1\" >>"+shellQuote(steps)+"\n"), 0o755)
			out, code := runInstall(t, dir, path, srv.URL, "PANEHERD_ON_STEP="+tell)
			if code != tt.wantCode {
				t.Errorf("install.sh: exit %d, want %d", code, tt.wantCode)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output does not say %q", w)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(out, w) {
					t.Errorf("output says %q", w)
				}
			}
			if told, _ := os.ReadFile(steps); strings.TrimSpace(string(told)) != tt.steps {
				t.Errorf("install.sh told PANEHERD_ON_STEP %q, want %q", strings.TrimSpace(string(told)), tt.steps)
			}
			checkInstalled(t, bin, tt.installed, served, tt.before)
			if t.Failed() {
				t.Logf("install.sh output:\n%s", out)
			}
		})
	}
}

// The archive install.sh downloads is the one .goreleaser.yaml names.
func TestInstallScriptArchiveName(t *testing.T) {
	root := repoRoot(t)
	conf, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(root, "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s+name_template:\s*"(paneherd_[^"]*)"`).FindSubmatch(conf)
	if m == nil {
		t.Fatal(".goreleaser.yaml: no archive name_template starting with paneherd_")
	}
	name := string(m[1])
	for field, shell := range map[string]string{"Version": "${version}", "Os": "${os}", "Arch": "${arch}"} {
		name = regexp.MustCompile(`\{\{\s*\.`+field+`\s*\}\}`).ReplaceAllLiteralString(name, shell)
	}
	if want := `archive="` + name + `.tar.gz"`; !bytes.Contains(script, []byte(want)) {
		t.Errorf("install.sh does not download %s, the archive .goreleaser.yaml names (%s)", want, m[1])
	}
	for _, want := range []string{"formats: [tar.gz]", "name_template: checksums.txt", "algorithm: sha256"} {
		if !bytes.Contains(conf, []byte(want)) {
			t.Errorf(".goreleaser.yaml does not say %q, which install.sh relies on", want)
		}
	}
}

// Every release archive ships the license beside the binary: .goreleaser.yaml lists
// LICENSE among the archives' files, and the repository has one.
func TestReleaseArchivesShipTheLicense(t *testing.T) {
	root := repoRoot(t)
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatalf("no license at the repository's root: %v", err)
	}
	if !bytes.HasPrefix(license, []byte("MIT License\n")) || !bytes.Contains(license, []byte("the paneherd authors")) {
		t.Errorf("LICENSE is not the MIT license of the paneherd authors:\n%s", license)
	}
	conf, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// archives: … files: followed by its "- NAME" lines.
	m := regexp.MustCompile(`(?m)^archives:\n(?:[ \t].*\n)*?\s+files:\n((?:\s+- .*\n)+)`).FindSubmatch(conf)
	if m == nil {
		t.Fatal(".goreleaser.yaml: no archives files list")
	}
	if !regexp.MustCompile(`(?m)^\s+- LICENSE$`).Match(m[1]) {
		t.Errorf(".goreleaser.yaml's archives ship %q, not LICENSE", bytes.TrimSpace(m[1]))
	}
}

// releaseHandler serves assets as a GitHub release of installVersion would: /v<version>/<name>.
func releaseHandler(assets map[string][]byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, "/v"+installVersion+"/")
		data, found := assets[name]
		if !ok || !found {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	})
}

// runInstall runs the copy's install.sh for the served release, with env added to its
// environment, and returns its output (stdout and stderr together) and exit code.
func runInstall(t *testing.T, dir, path, url string, env ...string) (string, int) {
	t.Helper()
	// Generous: a fallback build on a cold cache compiles for minutes on a busy machine.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "install.sh"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"PATH="+path,
		"PANEHERD_VERSION="+installVersion,
		"PANEHERD_RELEASE_URL="+url,
		// The release is on loopback: never through a proxy of this machine.
		"no_proxy=127.0.0.1,localhost", "NO_PROXY=127.0.0.1,localhost",
	)
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), exit.ExitCode()
	}
	if err != nil {
		t.Fatalf("run install.sh: %v\n%s", err, out.String())
	}
	return out.String(), 0
}

// checkInstalled checks bin/paneherd against what the case expects (see installed).
func checkInstalled(t *testing.T, bin, installed string, served, before []byte) {
	t.Helper()
	got, err := os.ReadFile(bin)
	switch {
	case installed == "" && err == nil:
		t.Errorf("%s was installed", bin)
	case installed == "":
	case err != nil:
		t.Errorf("nothing installed: %v", err)
	case installed == "kept" && !bytes.Equal(got, before):
		t.Errorf("%s was replaced", bin)
	case installed == "served" && !bytes.Equal(got, served):
		t.Errorf("%s is not the served binary", bin)
	case installed == "built" && bytes.Equal(got, served):
		t.Errorf("%s is the served binary, whose checksum did not match", bin)
	case installed == "built":
		if out, err := exec.Command(bin, "--version").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "paneherd ") {
			t.Errorf("%s --version: %v: %s", bin, err, out)
		}
	}
}

// stampedBinary builds paneherd stamped with version, as a release's binary is.
func stampedBinary(t *testing.T, version string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "paneherd")
	build := exec.Command("go", "build", "-ldflags", "-X main.version="+version, "-o", out, "github.com/paneherd/paneherd/cmd/paneherd")
	if msg, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build paneherd %s: %v\n%s", version, err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// tarGz is a gzipped tar archive of files, as GoReleaser makes them: no directory.
func tarGz(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, data := range files {
		hdr := &tar.Header{Name: name, Mode: 0o755, Size: int64(len(data)), ModTime: time.Now()}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// repoCopy copies the repository's files (tracked, and new ones not ignored: the working
// tree a build would see) into a temp dir, so install.sh writes its bin/ there.
func repoCopy(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	ls := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	ls.Dir = root
	list, err := ls.Output()
	if err != nil {
		t.Skipf("git ls-files in %s: %v (not a git checkout?)", root, err)
	}
	dir := t.TempDir()
	for _, name := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		src := filepath.Join(root, name)
		info, err := os.Lstat(src)
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the working tree, or a symlink
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func onPath(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// pathWithout is a PATH of one temp dir holding links to what install.sh runs, except the
// commands left out.
func pathWithout(t *testing.T, leftOut ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{
		"sh", "tmux", "git", "curl", "wget", "tar", "gzip", "sha256sum", "shasum", "awk", "sed",
		"date", "dirname", "mktemp", "mkdir", "chmod", "mv", "rm", "tail", "uname", "go",
	} {
		if slices.Contains(leftOut, name) {
			continue
		}
		target, err := exec.LookPath(name)
		if err != nil {
			continue // wget or shasum, say: install.sh uses another
		}
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
