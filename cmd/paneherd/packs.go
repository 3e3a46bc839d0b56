package main

import (
	"context"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/paneherd/paneherd/packs"
)

const packsUsage = `usage: paneherd packs list | show NAME | check FILE

  list        every pack and where it comes from (builtin, or a file in the user dir)
  show NAME   print a pack's TOML (copy a builtin into the user dir to change it)
  check FILE  validate a pack file; errors name the file and line

User packs live in $XDG_CONFIG_HOME/paneherd/packs/NAME.toml (default ~/.config/...).
A user pack named like a builtin replaces it whole.
`

func runPacks(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return usagef(packsUsage, "packs needs a subcommand")
	}
	switch sub, rest := args[0], args[1:]; {
	case sub == "-h" || sub == "--help":
		return &helpRequested{usage: packsUsage}
	case sub == "list" && len(rest) == 0:
		return packsList(e)
	case sub == "show" && len(rest) == 1:
		return packsShow(e, rest[0])
	case sub == "check" && len(rest) == 1:
		return packsCheck(e, rest[0])
	case sub == "list" || sub == "show" || sub == "check":
		return usagef(packsUsage, "wrong number of arguments for packs %s", sub)
	default:
		return usagef(packsUsage, "unknown packs subcommand %q", sub)
	}
}

func packsList(e *env) error {
	set := packs.Load(packs.UserDir(e.getenv))
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tRULES\tDESCRIPTION")
	for _, p := range set.All() {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", p.Name, p.Source, len(p.Rules), p.Description)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	warnProblems(e, set)
	return nil
}

func packsShow(e *env, name string) error {
	set := packs.Load(packs.UserDir(e.getenv))
	p, err := set.Get(name)
	if err != nil {
		return err
	}
	var data []byte
	if p.Source == packs.SourceBuiltin {
		data, _ = packs.Builtin(name)
	} else if data, err = os.ReadFile(p.Source); err != nil {
		return fmt.Errorf("cannot read %s: %w", p.Source, unwrapPath(err))
	}
	_, err = e.stdout.Write(data)
	return err
}

func packsCheck(e *env, path string) error {
	p, err := packs.ParseFile(path)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "%s: ok: pack %q, %d rules\n", path, p.Name, len(p.Rules))
	return err
}
