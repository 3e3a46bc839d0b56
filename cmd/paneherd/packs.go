package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/paneherd/paneherd/packs"
)

var cmdPacks = command{
	name:    "packs",
	summary: "list, show or check packs (per-CLI knowledge)",
	usage:   "packs list [--names]\npacks show [--builtin] NAME\npacks check FILE",
	about: `  list        every pack and where it comes from (builtin, or a file in the user dir)
  show NAME   print the TOML of the pack in force: your file if it loads, else the
              builtin (a file that does not load, an empty one included, is reported
              on stderr and the builtin stays in force)
  check FILE  validate a pack file; errors name the file and line`,
	more: `To copy a builtin and change it:
  paneherd packs show --builtin claude > ~/.config/paneherd/packs/claude.toml

User packs live in $XDG_CONFIG_HOME/paneherd/packs/NAME.toml (default ~/.config/...).
A user pack named like a builtin replaces it whole; one with neither [detect] nor
[[rules]] is an error, and replaces nothing.`,
	link: "[packs.md](packs.md)",
	flags: func(fs *flag.FlagSet) runFunc {
		var o packsOptions
		fs.BoolVar(&o.builtin, "builtin", false, "show: print the builtin whatever the user dir holds")
		fs.BoolVar(&o.names, "names", false, "list: every pack's name, one a line (what show and --pack take; shell completion)")
		return func(ctx context.Context, e *env, args []string) error { return runPacks(ctx, e, fs, &o, args) }
	},
}

type packsOptions struct {
	builtin, names bool
}

func runPacks(ctx context.Context, e *env, fs *flag.FlagSet, o *packsOptions, args []string) error {
	if len(args) == 0 {
		return usagef("packs needs a subcommand")
	}
	switch sub := args[0]; sub {
	case "-h", "--help":
		return flag.ErrHelp
	case "list", "show", "check":
		return runPacksSub(e, fs, o, sub, args[1:])
	default:
		return usagef("unknown packs subcommand %q", sub)
	}
}

func runPacksSub(e *env, fs *flag.FlagSet, o *packsOptions, sub string, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if o.builtin && sub != "show" {
		return usagef("--builtin is for packs show")
	}
	if o.names && sub != "list" {
		return usagef("--names is for packs list")
	}
	switch {
	case sub == "list" && len(rest) == 0 && o.names:
		return packNames(e)
	case sub == "list" && len(rest) == 0:
		return packsList(e)
	case sub == "show" && len(rest) == 1:
		return packsShow(e, rest[0], o.builtin)
	case sub == "check" && len(rest) == 1:
		return packsCheck(e, rest[0])
	}
	return usagef("wrong number of arguments for packs %s", sub)
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

// packNames prints every pack's name, one a line; the problems of packs that did not load
// go to stderr, as for list.
func packNames(e *env) error {
	set := packs.Load(packs.UserDir(e.getenv))
	for _, p := range set.All() {
		if _, err := fmt.Fprintln(e.stdout, p.Name); err != nil {
			return err
		}
	}
	warnProblems(e, set)
	return nil
}

// packsShow prints the pack in force, or with builtin the embedded one without reading the
// user dir: `packs show --builtin claude > claude.toml` must print the builtin though its
// shell has just created claude.toml, empty, in the user dir.
func packsShow(e *env, name string, builtin bool) error {
	if builtin {
		data, ok := packs.Builtin(name)
		if !ok {
			return fmt.Errorf("%w %q: no builtin of that name (builtins: %s)", packs.ErrUnknownPack, name,
				strings.Join(packs.BuiltinNames(), ", "))
		}
		_, err := e.stdout.Write(data)
		return err
	}
	set := packs.Load(packs.UserDir(e.getenv))
	warnProblems(e, set)
	p, err := set.Get(name)
	if err != nil {
		return err
	}
	data, _ := packs.Builtin(name)
	if p.Source != packs.SourceBuiltin {
		if data, err = os.ReadFile(p.Source); err != nil {
			return fmt.Errorf("cannot read %s: %w", p.Source, unwrapPath(err))
		}
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
