package proc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

// Version is the version of the program p runs, read from the files it was started from,
// without running anything: the "version" of the npm package that holds its executable
// or, under an interpreter (node), its script; or a "versions/X.Y.Z" directory or file on
// that path (Claude Code's native installer). "" when neither says, when the process is
// not this user's, or when the package's files belong to another user (root's are
// trusted: global installs).
func Version(p Process) string {
	return versionIn("/proc", os.Geteuid(), p)
}

// versionIn is Version over a process table at root, for user uid.
func versionIn(root string, uid int, p Process) string {
	dir := filepath.Join(root, strconv.Itoa(p.PID))
	if !ownedBy(dir, uid) {
		return ""
	}
	for _, path := range programPaths(dir, p.Args) {
		if v := versionOfPath(path, uid); v != "" {
			return v
		}
	}
	return ""
}

// programPaths are the files a process may run from: its executable, then its first
// argument and its script (the first argument after argv[0] that is no option, as node
// takes it), relative ones resolved against the process's directory, symbolic links
// resolved (npm's bin links point into the package).
func programPaths(dir string, args []string) []string {
	var paths []string
	if exe, err := os.Readlink(filepath.Join(dir, "exe")); err == nil {
		paths = append(paths, exe)
	}
	if len(args) > 0 {
		paths = append(paths, args[0])
	}
	for _, a := range args[min(1, len(args)):] {
		if !strings.HasPrefix(a, "-") {
			paths = append(paths, a)
			break
		}
	}
	cwd, _ := os.Readlink(filepath.Join(dir, "cwd"))
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			if cwd == "" || !strings.Contains(p, "/") {
				continue // a bare name was found on PATH: the executable says where
			}
			p = filepath.Join(cwd, p)
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			out = append(out, real)
		}
	}
	return out
}

// versionsDir is a version directory or file on a path: ".../versions/2.1.197[/...]".
var versionsDir = regexp.MustCompile(`/versions/(\d+(?:\.\d+)+)(?:/|$)`)

// versionOfPath reads the version of the program at path: a versions/X.Y.Z on it, or the
// package.json of the npm package it is in (the nearest directory up whose parent is
// node_modules, or a scope under it).
func versionOfPath(path string, uid int) string {
	if m := versionsDir.FindStringSubmatch(path); m != nil {
		return m[1]
	}
	pkg := packageRoot(path)
	if pkg == "" {
		return ""
	}
	return packageVersion(filepath.Join(pkg, "package.json"), uid)
}

// packageRoot is the npm package directory path lies in, "" when it is in none. The
// innermost node_modules counts: a package's own dependencies are packages too.
func packageRoot(path string) string {
	parts := strings.Split(path, "/")
	for i := len(parts) - 2; i >= 1; i-- {
		if parts[i] != "node_modules" {
			continue
		}
		end := i + 2
		if strings.HasPrefix(parts[i+1], "@") {
			end++
		}
		if end > len(parts)-1 { // path is the package directory itself, or a scope
			return ""
		}
		return strings.Join(parts[:end], "/")
	}
	return ""
}

// maxPackageJSON bounds what is read of a package.json: a CLI's is a few kilobytes.
const maxPackageJSON = 256 << 10

// platformSuffix is what a platform package adds to its version: Codex's native binary
// comes in "@openai/codex-linux-x64" at "0.169.0-linux-x64", the CLI's own 0.169.0.
var platformSuffix = regexp.MustCompile(`-(?:linux|darwin|win32|windows|freebsd)(?:-[a-z0-9]+)*$`)

// packageVersion reads "version" from a package.json that is a regular file of uid's or
// root's, of bounded size.
func packageVersion(file string, uid int) string {
	fi, err := os.Lstat(file)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxPackageJSON || !ownerTrusted(fi, uid) {
		return ""
	}
	data, err := os.ReadFile(file)
	if err != nil || len(data) > maxPackageJSON {
		return ""
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return ""
	}
	return platformSuffix.ReplaceAllString(strings.TrimSpace(pkg.Version), "")
}

// ownedBy reports whether the file at path belongs to uid (a /proc/PID directory belongs
// to the process's user).
func ownedBy(path string, uid int) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == uid
}

func ownerTrusted(fi os.FileInfo, uid int) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && (int(st.Uid) == uid || st.Uid == 0)
}
