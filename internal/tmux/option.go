package tmux

import (
	"context"
	"strings"
)

// ShowOption returns the value of a global option such as
// "@paneherd-interval", or "" when it is not set.
func (s Server) ShowOption(ctx context.Context, name string) (string, error) {
	// -q: an unset user option is "", not an error.
	out, err := s.Run(ctx, nil, "show-options", "-gqv", name)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(out, "\n"), nil
}

// SetOption sets a global option to value, stored verbatim.
func (s Server) SetOption(ctx context.Context, name, value string) error {
	_, err := s.Run(ctx, nil, "set-option", "-g", name, LiteralArg(value))
	return err
}
