package options

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/remote"
)

// Opt is one declared option whose value reads as a T: SendQuiet.In(values) is a
// time.Duration. Load checked the value (or put the default in its place), so reading it
// cannot fail.
type Opt[T any] struct {
	name  string
	parse func(string) T
}

// Name is the option's name without Prefix.
func (o Opt[T]) Name() string { return o.name }

// In is the option's value in v.
func (o Opt[T]) In(v Values) T { return o.parse(v.get(o.name)) }

// Option is the declaration of one @paneherd-... tmux option, as All lists it.
type Option struct {
	Name    string // without the "@paneherd-" prefix
	Default string
	Doc     string
	// Kind is how a value is checked: one of Allowed, a duration, a count (0 or more), a
	// positive whole number, a percent (0 to 100), SSH destinations (remote.ParseHosts),
	// or any text.
	Kind    kind
	Allowed []string
}

type kind int

const (
	kindText kind = iota
	kindEnum
	kindDuration
	kindCount
	kindPositive
	kindHosts
	kindSSH
	kindPercent
)

// Prefix starts every paneherd option.
const Prefix = "@paneherd-"

// All is every option, in the order docs/options.md lists them (a test writes that table
// from this one): the order table.go declares them in. It has no initializer of its own,
// so every declaration there is ready at once and Go initializes them in that order.
var All []Option

// declare adds o to All and returns it typed.
func declare[T any](o Option, parse func(string) T) Opt[T] {
	All = append(All, o)
	return Opt[T]{name: o.Name, parse: parse}
}

// text is an option of any text.
func text(name, def, doc string) Opt[string] {
	return declare(Option{name, def, doc, kindText, nil}, func(s string) string { return s })
}

// enum is an option whose value is one of allowed.
func enum(name, def, doc string, allowed ...string) Opt[string] {
	return declare(Option{name, def, doc, kindEnum, allowed}, func(s string) string { return s })
}

// onOff is an option set "on" or "off", read as true when on.
func onOff(name, def, doc string) Opt[bool] {
	return declare(Option{name, def, doc, kindEnum, []string{"on", "off"}}, func(s string) bool { return s == "on" })
}

// duration is an option of a duration (1s, 500ms), 0 or more.
func duration(name, def, doc string) Opt[time.Duration] {
	return declare(Option{name, def, doc, kindDuration, nil}, func(s string) time.Duration {
		d, _ := time.ParseDuration(s)
		return d
	})
}

// count is an option of a whole number, 0 or more.
func count(name, def, doc string) Opt[int] {
	return declare(Option{name, def, doc, kindCount, nil}, atoi)
}

// positive is an option of a whole number, 1 or more.
func positive(name, def, doc string) Opt[int] {
	return declare(Option{name, def, doc, kindPositive, nil}, atoi)
}

// percent is an option of a whole percent, 0 to 100.
func percent(name, def, doc string) Opt[int] {
	return declare(Option{name, def, doc, kindPercent, nil}, atoi)
}

// hostList is an option of SSH destinations separated by blanks, as remote.ParseHosts
// reads them; empty by default.
func hostList(name, doc string) Opt[[]remote.Host] {
	return declare(Option{name, "", doc, kindHosts, nil}, func(s string) []remote.Host {
		hosts, _ := remote.ParseHosts(s)
		return hosts
	})
}

// sshOptions is an option of ssh options, split as sh splits them and checked as
// remote.NewConn takes them; empty by default.
func sshOptions(name, doc string) Opt[string] {
	return declare(Option{name, "", doc, kindSSH, nil}, func(s string) string { return s })
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// check says what is wrong with a value for the option, if anything.
func (o Option) check(value string) error {
	switch o.Kind {
	case kindEnum:
		for _, a := range o.Allowed {
			if value == a {
				return nil
			}
		}
		return fmt.Errorf("is not one of %s", strings.Join(o.Allowed, ", "))
	case kindDuration:
		if d, err := time.ParseDuration(value); err != nil || d < 0 {
			return errors.New("is not a duration (like 1s or 500ms)")
		}
	case kindCount:
		if n, err := strconv.Atoi(value); err != nil || n < 0 {
			return errors.New("is not a count")
		}
	case kindPositive:
		if n, err := strconv.Atoi(value); err != nil || n < 1 {
			return errors.New("is not a positive whole number")
		}
	case kindPercent:
		if n, err := strconv.Atoi(value); err != nil || n < 0 || n > 100 {
			return errors.New("is not a whole percent (0 to 100)")
		}
	case kindHosts:
		if _, err := remote.ParseHosts(value); err != nil {
			return err
		}
	case kindSSH:
		if _, err := remote.SSHOptions(value); err != nil {
			return err
		}
	}
	return nil
}
