package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxBody bounds how much of a response is read: an answer is a few hundred bytes.
const maxBody = 1 << 20

// instructions is the system prompt.
const instructions = `You read one terminal screen: the ANSI-stripped text of a tmux pane that runs an AI coding agent (Claude Code, Codex, Gemini CLI, Aider, ...) or a shell. Say what the program in the pane is doing now, judging by the bottom of the screen; older output above may no longer apply.

Answer with only a JSON object, no other text:
{"state": "...", "summary": "...", "actions_needed": ["..."]}

state, exactly one of:
- READY: idle at its prompt, waiting for the next instruction.
- BUSY: working (thinking, running a tool or command, streaming output).
- NEEDS_CONFIRMATION: waits for a person to approve, choose or answer something.
- ERROR: failed, and will not get past it without a person.
- UNKNOWN: you are not sure.

summary: one short line (at most 100 characters) of what the screen shows or asks.
actions_needed: what a person would need to do, each a short line (at most 5); [] when nothing.

Some values on the screen may be replaced by markers such as "…[masked key]": secrets hidden before the screen was sent.`

// chatRequest is the body of POST {URL}/chat/completions.
type chatRequest struct {
	Model          string         `json:"model"`
	Messages       []chatMessage  `json:"messages"`
	ResponseFormat responseFormat `json:"response_format"`
	Temperature    float64        `json:"temperature"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type responseFormat struct {
	Type string `json:"type"`
}

// chatResponse is the part of a reply read: the first choice's text, or the error that
// some servers send with status 200.
type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Error *apiError `json:"error"`
}

type apiError struct {
	Message string `json:"message"`
}

// ask sends the masked screen and returns the validated answer.
func (c *Client) ask(ctx context.Context, masked string) (Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := c.request(ctx, masked)
	if err != nil {
		return Answer{}, err
	}
	c.requests.Add(1)
	resp, err := c.http.Do(req)
	if err != nil {
		return Answer{}, c.transportError(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return Answer{}, c.transportError(ctx, err)
	}
	if len(body) > maxBody {
		return Answer{}, fmt.Errorf("response over %d bytes", maxBody)
	}
	if resp.StatusCode != http.StatusOK {
		return Answer{}, statusError(resp.Status, body)
	}
	content, err := replyText(body)
	if err != nil {
		return Answer{}, err
	}
	return parseAnswer(content)
}

// request builds the POST.
func (c *Client) request(ctx context.Context, masked string) (*http.Request, error) {
	body, err := json.Marshal(chatRequest{
		Model: c.cfg.Model,
		Messages: []chatMessage{
			{Role: "system", Content: instructions},
			{Role: "user", Content: masked},
		},
		ResponseFormat: responseFormat{Type: "json_object"},
	})
	if err != nil {
		return nil, err
	}
	url := strings.TrimRight(c.cfg.URL, "/") + "/chat/completions"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.cfg.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.Key)
	}
	return req, nil
}

// transportError says "no answer within" for the client's own timeout.
func (c *Client) transportError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %s: %w", c.cfg.Timeout, context.DeadlineExceeded)
	}
	return err
}

// statusError names the status and, when the body says one, the server's message.
func statusError(status string, body []byte) error {
	var r chatResponse
	if json.Unmarshal(body, &r) == nil && r.Error != nil && r.Error.Message != "" {
		return fmt.Errorf("HTTP %s: %s", status, oneLine(r.Error.Message, 200))
	}
	return fmt.Errorf("HTTP %s: %s", status, oneLine(string(body), 200))
}

// replyText is choices[0].message.content.
func replyText(body []byte) (string, error) {
	var r chatResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return "", fmt.Errorf("%w: the response is not JSON: %v", ErrBadAnswer, err)
	}
	if r.Error != nil && r.Error.Message != "" {
		return "", fmt.Errorf("the server says: %s", oneLine(r.Error.Message, 200))
	}
	if len(r.Choices) == 0 || r.Choices[0].Message.Content == nil {
		return "", fmt.Errorf("%w: the response has no choices[0].message.content", ErrBadAnswer)
	}
	return *r.Choices[0].Message.Content, nil
}

// oneLine is s on one line, cut to at most n bytes, for an error message.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}
