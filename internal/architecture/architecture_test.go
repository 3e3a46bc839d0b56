// Package architecture holds no code, only the test that keeps the import rules of
// ARCHITECTURE.md §2 true: it reads the table from the document itself, so the two cannot
// drift apart.
package architecture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/paneherd/paneherd"

// root is the module's directory, seen from this package's.
const root = "../.."

// listedPackage is the part of `go list -json` the rules need.
type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

// importRule names the only packages allowed to import a path or anything under it.
type importRule struct {
	prefix  string
	allowed []string
}

// The rules under §2's table that imports can show.
var importRules = []importRule{
	{"net/http", []string{"internal/metrics", "internal/llm", "internal/notify"}},
	{"go.etcd.io/bbolt", []string{"store"}},
	{"github.com/modelcontextprotocol/go-sdk", []string{"internal/mcpserver"}},
	// Front ends read the records through internal/wire; only who writes the store imports it.
	{module + "/store", []string{"internal/daemon", "internal/watcher", "internal/supervisor"}},
}

// knowsOnly names the only packages of the module a package may import.
var knowsOnly = map[string][]string{
	"store":          {"internal/wire"},
	"internal/query": {"internal/paths", "internal/wire"}, // the socket only
}

// TestLayers checks every package's imports (tests' own imports aside: a test may use a
// helper from a row above) against the layer table of ARCHITECTURE.md §2.
func TestLayers(t *testing.T) {
	rows := readLayerTable(t)
	pkgs := listPackages(t)
	listed := map[string]bool{}
	for _, p := range pkgs {
		rel := relative(p.ImportPath)
		listed[rel] = true
		row, ok := rows[rel]
		if !ok {
			t.Errorf("%s is in no row of the layer table: add it to ARCHITECTURE.md §2, in a row above every package it imports", rel)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := relative(imp)
			if depRow, ok := rows[dep]; ok && depRow >= row {
				t.Errorf("%s (row %d) imports %s (row %d): imports point down only (ARCHITECTURE.md §2)", rel, row, dep, depRow)
			}
		}
	}
	for pkg := range rows {
		if !listed[pkg] {
			t.Errorf("ARCHITECTURE.md §2 lists %s, which is no package with Go files: remove it from the table", pkg)
		}
	}
}

func TestOnlyNamedPackagesImport(t *testing.T) {
	for _, p := range listPackages(t) {
		rel := relative(p.ImportPath)
		for _, imp := range p.Imports {
			for _, rule := range importRules {
				if under(imp, rule.prefix) && !slices.Contains(rule.allowed, rel) {
					t.Errorf("%s imports %s: only %s may (ARCHITECTURE.md §2)", rel, imp, strings.Join(rule.allowed, ", "))
				}
			}
		}
	}
}

func TestPackagesKnowOnlyWhatTheyNeed(t *testing.T) {
	for _, p := range listPackages(t) {
		rel := relative(p.ImportPath)
		allowed, ok := knowsOnly[rel]
		if !ok {
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"/") && !slices.Contains(allowed, relative(imp)) {
				t.Errorf("%s imports %s: it knows only %s (ARCHITECTURE.md §2)", rel, relative(imp), strings.Join(allowed, ", "))
			}
		}
	}
}

// TestOnlyDaemonOpensStore holds the rule an import cannot show: other packages import
// store for its records, and only internal/daemon opens the database.
func TestOnlyDaemonOpensStore(t *testing.T) {
	for _, p := range listPackages(t) {
		rel := relative(p.ImportPath)
		if rel == "internal/daemon" || rel == "store" {
			continue
		}
		for _, name := range p.GoFiles {
			for _, at := range storeOpenCalls(t, filepath.Join(p.Dir, name)) {
				t.Errorf("%s uses store.Open: only internal/daemon opens the store (ARCHITECTURE.md §2)", at)
			}
		}
	}
}

// readLayerTable parses the fenced block of ARCHITECTURE.md §2 into package -> row. A
// line starts with its row's number, or with spaces to go on with the row above; a word
// starting with "(" begins a remark that runs to the end of the line.
func readLayerTable(t *testing.T) map[string]int {
	t.Helper()
	block := layerBlock(t)
	rows := map[string]int{}
	row := -1
	for _, line := range strings.Split(block, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if n, err := strconv.Atoi(fields[0]); err == nil {
			row, fields = n, fields[1:]
		} else if row < 0 {
			t.Fatalf("ARCHITECTURE.md §2: the layer table's first line %q starts with no row number", line)
		}
		for _, f := range fields {
			if strings.HasPrefix(f, "(") {
				break
			}
			if prev, ok := rows[f]; ok {
				t.Errorf("ARCHITECTURE.md §2 lists %s in rows %d and %d", f, prev, row)
			}
			rows[f] = row
		}
	}
	if len(rows) == 0 {
		t.Fatal("ARCHITECTURE.md §2: the layer table lists no package")
	}
	return rows
}

// layerBlock returns the first fenced block under the heading "## 2.".
func layerBlock(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatalf("read the layer table: %v", err)
	}
	inSection, inBlock := false, false
	var block strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			if inSection {
				t.Fatal("ARCHITECTURE.md §2 has no fenced block with the layer table")
			}
			inSection = strings.HasPrefix(line, "## 2.")
		case inSection && strings.HasPrefix(line, "```"):
			if inBlock {
				return block.String()
			}
			inBlock = true
		case inBlock:
			block.WriteString(line + "\n")
		}
	}
	t.Fatal("ARCHITECTURE.md has no section \"## 2.\" with a closed fenced block")
	return ""
}

// listPackages returns the module's packages that have Go files to build: a package of
// tests alone (this one, internal/e2e) cannot be imported and stands outside the layers.
func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -json ./...: %v\n%s", err, stderr.String())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("read go list's output: %v", err)
		}
		if len(p.GoFiles) > 0 {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs
}

// storeOpenCalls returns file:line of each use of store.Open in a file, by whatever name
// the file imports store under.
func storeOpenCalls(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	local := ""
	for _, spec := range file.Imports {
		if p, _ := strconv.Unquote(spec.Path.Value); p == module+"/store" {
			local = "store"
			if spec.Name != nil {
				local = spec.Name.Name
			}
		}
	}
	if local == "" {
		return nil
	}
	var uses []string
	ast.Inspect(file, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Open" {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == local {
			pos := fset.Position(sel.Pos())
			uses = append(uses, fmt.Sprintf("%s:%d", fromRoot(pos.Filename), pos.Line))
		}
		return true
	})
	return uses
}

// fromRoot shortens a file's path to the repository's root.
func fromRoot(path string) string {
	if abs, err := filepath.Abs(root); err == nil {
		if rel, err := filepath.Rel(abs, path); err == nil {
			return rel
		}
	}
	return path
}

func relative(importPath string) string {
	return strings.TrimPrefix(importPath, module+"/")
}

func under(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}
