package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	iofs "io/fs"
	"slices"
	"strings"
	"testing"
)

// TestOpsListsEveryOperation: every Op constant declared in this package is in Ops, which
// the daemon's handler table is checked against (a constant left out of both would pass
// that check unanswered).
func TestOpsListsEveryOperation(t *testing.T) {
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi iofs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := 0
	for _, f := range pkgs["wire"].Files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				for i, name := range spec.(*ast.ValueSpec).Names {
					if !strings.HasPrefix(name.Name, "Op") {
						continue
					}
					declared++
					lit, ok := spec.(*ast.ValueSpec).Values[i].(*ast.BasicLit)
					if !ok || !slices.Contains(Ops, strings.Trim(lit.Value, `"`)) {
						t.Errorf("%s is not in Ops", name.Name)
					}
				}
			}
		}
	}
	if declared != len(Ops) {
		t.Errorf("%d Op constants declared, %d in Ops", declared, len(Ops))
	}
}
