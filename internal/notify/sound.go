package notify

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
)

// Sound plays a short sound when a worker needs a person or has finished, through the
// platform's player (@paneherd-notify-sound on|FILE); with none it can use, it rings the
// terminal bell of the attached clients. It plays on the machine the daemon runs on: over
// SSH that is not where the person sits, so a player that fails rings the bell instead.
type Sound struct {
	server tmux.Server // whose clients' bells ring
	player string      // the player's path; "" rings the bells
	args   []string
	tone   []byte // a sound the player reads on stdin, when no file suits it
	file   string // the sound file played, for Describe
	own    bool   // file is the person's, which may go away
	// why the bells ring rather than a player, for Describe.
	why string
}

// Name is "sound".
func (s Sound) Name() string { return "sound" }

// playTimeout bounds one sound: a player stuck on an audio server that never answers, or
// a long FILE, must not hold the notifier.
const playTimeout = 4 * time.Second

// installPlayers is what to do when no player is found on Linux.
const installPlayers = "install pipewire-bin/pulseaudio-utils/alsa-utils"

// NewSound is the sound backend for setting, "on" (a system sound) or a sound file's path
// (absolute, or starting with ~/), choosing among the players goos has on PATH. server's
// clients get the terminal bell when there is no player. A file that cannot be read is an
// error; "off" is the caller's to handle.
func NewSound(setting, goos string, server tmux.Server) (Sound, error) {
	s := Sound{server: server}
	switch setting {
	case "on":
		s.chooseSystemSound(goos)
		return s, nil
	case "", "off":
		return Sound{}, fmt.Errorf("sound: %q plays nothing: set @paneherd-notify-sound to on or a sound file", setting)
	}
	file, err := soundFile(setting)
	if err != nil {
		return Sound{}, err
	}
	s.chooseFor(file, goos)
	s.own = true
	return s, nil
}

// soundFile is setting as an absolute path to a file paneherd can read.
func soundFile(setting string) (string, error) {
	file := setting
	if rest, ok := strings.CutPrefix(setting, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("sound: %s: %w", setting, err)
		}
		file = filepath.Join(home, rest)
	}
	if !filepath.IsAbs(file) {
		return "", fmt.Errorf("sound: %s is not an absolute path: set @paneherd-notify-sound to /path/to/sound or ~/path/to/sound", setting)
	}
	return file, readable(file)
}

// readable says, in one line with what to do, why file cannot be read.
func readable(file string) error {
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("sound: cannot read %s (%v): set @paneherd-notify-sound to a readable sound file, or on", file, errors.Unwrap(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("sound: %s is not a file: set @paneherd-notify-sound to a sound file, or on", file)
	}
	return nil
}

// players are the programs that play a sound on goos, in the order they are preferred.
func players(goos string) []string {
	if goos == "darwin" {
		return []string{"afplay"}
	}
	return []string{"pw-play", "paplay", "aplay"}
}

// canPlay says whether player plays file's format: aplay knows only raw, WAV, VOC and Au;
// the others read every common format (libsndfile, Core Audio).
func canPlay(player, file string) bool {
	if player != "aplay" {
		return true
	}
	switch strings.ToLower(filepath.Ext(file)) {
	case ".wav", ".voc", ".au":
		return true
	}
	return false
}

// chooseFor picks the first player on PATH that plays file, else the bell and why.
func (s *Sound) chooseFor(file, goos string) {
	found := foundPlayers(goos)
	if len(found) == 0 {
		s.why = noPlayer(goos)
		return
	}
	for _, p := range found {
		if canPlay(filepath.Base(p), file) {
			s.play(p, file)
			return
		}
	}
	s.why = fmt.Sprintf("aplay cannot play %s (give it a .wav file, or %s)", filepath.Base(file), installPlayers)
}

// systemSound is the sound "on" plays on macOS; every macOS has it.
const systemSound = "/System/Library/Sounds/Glass.aiff"

// chooseSystemSound picks the first player on PATH with a system sound it plays: macOS's
// own, the freedesktop sound theme's (Ogg, which aplay cannot read), or for aplay a tone
// made here. Else the bell, and why.
func (s *Sound) chooseSystemSound(goos string) {
	found := foundPlayers(goos)
	if len(found) == 0 {
		s.why = noPlayer(goos)
		return
	}
	theme := themeSound()
	for _, p := range found {
		switch {
		case goos == "darwin":
			s.play(p, systemSound)
			return
		case filepath.Base(p) == "aplay":
			s.player, s.args, s.tone = p, []string{"-q"}, beep()
			return
		case theme != "":
			s.play(p, theme)
			return
		}
	}
	s.why = fmt.Sprintf("%s found, but no sound theme file (install sound-theme-freedesktop, or set @paneherd-notify-sound to a sound file)", filepath.Base(found[0]))
}

// foundPlayers are goos's players on PATH, in order.
func foundPlayers(goos string) []string {
	var found []string
	for _, name := range players(goos) {
		if p, err := exec.LookPath(name); err == nil {
			found = append(found, p)
		}
	}
	return found
}

// noPlayer is why the bell rings when goos has no player on PATH, and what to do.
func noPlayer(goos string) string {
	if goos == "darwin" {
		return "no player found (afplay is not on PATH)"
	}
	return "no player found (" + installPlayers + ")"
}

func (s *Sound) play(player, file string) {
	s.player, s.file, s.args = player, file, []string{file}
	if filepath.Base(player) == "aplay" {
		s.args = []string{"-q", file}
	}
}

// themeNames are the freedesktop sound theme's sounds that suit "a worker wants you", best first.
var themeNames = []string{"message-new-instant.oga", "complete.oga", "bell.oga"}

// themeSound is the freedesktop sound theme's file to play, where the XDG data
// directories have one, else "".
func themeSound() string {
	dirs := []string{os.Getenv("XDG_DATA_HOME")}
	if dirs[0] == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dirs[0] = filepath.Join(home, ".local", "share")
		}
	}
	system := os.Getenv("XDG_DATA_DIRS")
	if system == "" {
		system = "/usr/local/share:/usr/share"
	}
	dirs = append(dirs, filepath.SplitList(system)...)
	for _, name := range themeNames {
		for _, dir := range dirs {
			if f := filepath.Join(dir, "sounds", "freedesktop", "stereo", name); dir != "" && readable(f) == nil {
				return f
			}
		}
	}
	return ""
}

// audible says whether n is worth a sound: what waits for a person (anything critical),
// finished work, a supervisor giving up, and `notify test`; not a stall or an exit.
func audible(n Notification) bool {
	switch n.Event {
	case NeedsConfirmation, Failed, Finished, Supervisor, Test:
		return true
	}
	return n.Critical
}

// Send plays the sound for the events worth one; others play nothing and are ErrSkipped.
func (s Sound) Send(ctx context.Context, n Notification) error {
	if !audible(n) {
		return fmt.Errorf("sound: %s: %w", n.Event, ErrSkipped)
	}
	if s.player == "" {
		if err := s.bell(ctx); err != nil {
			return fmt.Errorf("sound: terminal bell (%s): %w", s.why, err)
		}
		return nil
	}
	err := s.run(ctx)
	if err == nil || ctx.Err() != nil {
		return err
	}
	if s.bell(ctx) == nil {
		return fmt.Errorf("%w; rang the terminal bell instead", err)
	}
	return err
}

// run plays the sound, at most playTimeout.
func (s Sound) run(ctx context.Context) error {
	play, cancel := context.WithTimeout(ctx, playTimeout)
	defer cancel()
	cmd := exec.CommandContext(play, s.player, s.args...)
	if s.tone != nil {
		cmd.Stdin = bytes.NewReader(s.tone)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	name := filepath.Base(s.player)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("sound: %s: %w", name, ctx.Err())
	case play.Err() != nil:
		return fmt.Errorf("sound: %s still playing after %s, stopped: use a sound of a few seconds", name, playTimeout)
	}
	// The last line is the verdict: alsa-lib's complaints come before aplay's.
	if lines := strings.Split(strings.TrimSpace(stderr.String()), "\n"); lines[len(lines)-1] != "" {
		err = fmt.Errorf("%w: %s", err, lines[len(lines)-1])
	}
	return fmt.Errorf("sound: %s: %w (is an audio server running for this user?)", name, err)
}

// bell rings the terminal bell of every attached client.
func (s Sound) bell(ctx context.Context) error {
	clients, err := Clients(ctx, s.server)
	if err != nil {
		return err
	}
	return ringBells(ctx, s.server, clients)
}

// Describe says which player plays which sound, or why the terminal bell rings instead.
// The person's file that has become unreadable since is an error.
func (s Sound) Describe(ctx context.Context) (string, error) {
	switch {
	case s.player == "":
		return "terminal bell: " + s.why, nil
	case s.tone != nil:
		return fmt.Sprintf("%s plays a %s tone made by paneherd", s.player, toneLength), nil
	}
	if s.own {
		if err := readable(s.file); err != nil {
			return "", err
		}
	}
	return s.player + " plays " + s.file, nil
}

// The tone: a short A5 that fades out, so it ends without a click.
const (
	toneLength = 200 * time.Millisecond
	toneRate   = 22050
	toneHz     = 880
)

// wavHeader is a canonical WAV file's header for 16-bit mono PCM.
type wavHeader struct {
	RIFF     [4]byte
	Size     uint32 // of what follows
	WAVE     [4]byte
	Fmt      [4]byte
	FmtSize  uint32
	Format   uint16 // 1: PCM
	Channels uint16
	Rate     uint32
	ByteRate uint32
	Align    uint16
	Bits     uint16
	Data     [4]byte
	DataSize uint32
}

// beep is the tone as a WAV file.
func beep() []byte {
	n := int(toneLength.Seconds() * toneRate)
	samples := make([]int16, n)
	for i := range samples {
		fade := 1 - float64(i)/float64(n)
		samples[i] = int16(0.4 * math.MaxInt16 * fade * math.Sin(2*math.Pi*toneHz*float64(i)/toneRate))
	}
	h := wavHeader{RIFF: [4]byte{'R', 'I', 'F', 'F'}, Size: 36 + 2*uint32(n), WAVE: [4]byte{'W', 'A', 'V', 'E'},
		Fmt: [4]byte{'f', 'm', 't', ' '}, FmtSize: 16, Format: 1, Channels: 1, Rate: toneRate,
		ByteRate: 2 * toneRate, Align: 2, Bits: 16, Data: [4]byte{'d', 'a', 't', 'a'}, DataSize: 2 * uint32(n)}
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, h)
	binary.Write(&b, binary.LittleEndian, samples)
	return b.Bytes()
}
