// Command keyrecorder stands in for an agent in end-to-end tests: it turns on bracketed
// paste as the real CLIs do, records every byte it receives, one read per line in hex,
// and shows a screen: a captured one (-screen) until the first input, a changing "busy"
// one for a while (-busy), then a shell-like prompt that readdraws after each Enter, or
// another captured screen (-after: what the agent draws once a dialog is answered).
package main

import (
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

func main() {
	logPath := flag.String("log", "", "file to record input in")
	screen := flag.String("screen", "", "a captured screen to show until the first input")
	busy := flag.Duration("busy", 0, "look busy (changing output) this long first")
	stall := flag.Duration("stall", 0, "then show one frozen 'working' line this long")
	after := flag.String("after", "", "a captured screen to show after the first input, instead of the prompt")
	flag.Parse()
	raw := exec.Command("stty", "raw", "-echo")
	raw.Stdin = os.Stdin
	raw.Run()
	fmt.Print("\x1b[?2004h") // bracketed paste on
	log, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for end := time.Now().Add(*busy); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		fmt.Printf("\r\nworking %d", time.Now().UnixMilli())
	}
	if *stall > 0 {
		fmt.Print("\x1b[H\x1b[2Jworking on it\r\n")
		time.Sleep(*stall)
	}
	show(*screen)
	record(log, *after)
}

func show(screen string) {
	if screen == "" {
		fmt.Print("\x1b[H\x1b[2Jrecorder$ ")
		return
	}
	b, _ := os.ReadFile(screen)
	fmt.Print("\x1b[H\x1b[2J" + strings.ReplaceAll(strings.TrimRight(string(b), "\n"), "\n", "\r\n"))
}

// record logs each read; after input a captured screen gives way to the prompt (or the
// after screen, for good), and an Enter redraws it, so a sender sees the screen change.
func record(log *os.File, after string) {
	buf := make([]byte, 4096)
	n := 0
	for {
		k, err := os.Stdin.Read(buf)
		if err != nil {
			return
		}
		log.WriteString(hex.EncodeToString(buf[:k]) + "\n")
		n += k
		if after != "" {
			show(after)
			continue
		}
		if strings.Contains(string(buf[:k]), "\r") || n == k {
			fmt.Printf("\x1b[H\x1b[2Jgot %d bytes\r\nrecorder$ ", n)
		}
	}
}
