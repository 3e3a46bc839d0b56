package notify

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paneherd/paneherd/internal/secrets"
	"github.com/paneherd/paneherd/statusline"
)

// Webhook posts each notification to a URL (@paneherd-notify-webhook), in one of three
// formats (@paneherd-notify-webhook-format): "json", paneherd's event object; "ntfy", a
// message as ntfy.sh and self-hosted ntfy take it; "slack", {"text": …}, which Slack's,
// Discord's Slack-compatible and Mattermost's incoming webhooks take. The URL is a
// credential (an ntfy topic, a Slack hook's path): only RedactURL's form of it is ever
// shown, in errors, Describe and so in logs, doctor and status.
type Webhook struct {
	url     *url.URL
	format  string
	host    string        // this machine's name, for the person with several
	timeout time.Duration // one request, answer included
	client  *http.Client
}

// WebhookFormats are the values of @paneherd-notify-webhook-format; the first is the default.
var WebhookFormats = []string{"json", "ntfy", "slack"}

const (
	webhookTimeout = 10 * time.Second
	// webhookAnswerMax bounds what is read of an answer: its status says whether it worked,
	// and the start of its body why not.
	webhookAnswerMax = 4 << 10
	// ntfyMessageMax is ntfy's default message size limit: a longer body arrives as an
	// attachment file instead of a notification's text.
	ntfyMessageMax = 4096
)

// NewWebhook checks the options and returns the backend; host names this machine in
// the JSON event and the ntfy tags. Its error is one line that never repeats the URL.
func NewWebhook(rawURL, format, host string) (Webhook, error) {
	u, err := parseWebhookURL(rawURL)
	if err != nil {
		return Webhook{}, err
	}
	format = strings.ToLower(strings.TrimSpace(format))
	if format == "" {
		format = WebhookFormats[0]
	}
	if !slices.Contains(WebhookFormats, format) {
		return Webhook{}, fmt.Errorf("webhook: unknown @paneherd-notify-webhook-format %q: use json, ntfy or slack", format)
	}
	return Webhook{url: u, format: format, host: statusline.Clean(host), timeout: webhookTimeout, client: webhookClient()}, nil
}

// parseWebhookURL accepts an http or https URL with a host.
func parseWebhookURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, errors.New("webhook: @paneherd-notify-webhook is empty: set it to the http(s) URL to post to")
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error quotes the whole URL, secret parts and all
		}
		return nil, fmt.Errorf("webhook: @paneherd-notify-webhook is not a URL (%v): write it as https://HOST/PATH", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, errors.New("webhook: @paneherd-notify-webhook must start with http:// or https:// (e.g. https://ntfy.sh/TOPIC)")
	}
	if u.Hostname() == "" {
		return nil, errors.New("webhook: @paneherd-notify-webhook names no host: write it as https://HOST/PATH")
	}
	return u, nil
}

// webhookClient never follows a redirect: the request would carry the notification (and
// any credentials in the URL) to wherever the first server points, and a hook's URL does
// not move. The proxy is the environment's (HTTPS_PROXY, NO_PROXY), as for curl and every
// other tool on the machine, since behind a proxy it is the only way out; Describe names it.
func webhookClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy: http.ProxyFromEnvironment,
			// One request every few minutes gains nothing from a kept connection, and an
			// idle one would hold a socket and two goroutines until the server drops it.
			DisableKeepAlives: true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Name is "webhook".
func (w Webhook) Name() string { return "webhook" }

// Describe says where notifications go, for doctor and `notify test`, without asking the
// server anything.
func (w Webhook) Describe(context.Context) (string, error) {
	what := map[string]string{"json": "JSON events", "ntfy": "ntfy messages", "slack": "Slack messages"}[w.format]
	s := fmt.Sprintf("posts %s to %s", what, w.Redacted())
	if proxy := w.proxy(); proxy != "" {
		s += " through the proxy " + proxy
	}
	return s, nil
}

// Redacted is the URL as it may be shown: RedactURL.
func (w Webhook) Redacted() string { return RedactURL(w.url.String()) }

// proxy is the proxy requests go through, redacted, or "".
func (w Webhook) proxy() string {
	t, ok := w.client.Transport.(*http.Transport)
	if !ok || t.Proxy == nil {
		return ""
	}
	p, err := t.Proxy(&http.Request{URL: w.url})
	if err != nil || p == nil {
		return ""
	}
	return RedactURL(p.String())
}

// RedactURL is a URL with what may be a secret hidden: the scheme and host stay, the
// user info goes, and a path, query or fragment becomes "…" (https://ntfy.sh/…).
func RedactURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "an unreadable URL"
	}
	s := u.Scheme + "://" + u.Host
	if strings.Trim(u.Path, "/") != "" || u.Opaque != "" || u.RawQuery != "" || u.Fragment != "" {
		s += "/…"
	}
	return statusline.Clean(s)
}

// Send posts n, cleaned by Outbound, within the backend's timeout and ctx.
func (w Webhook) Send(ctx context.Context, n Notification) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("webhook: not sent to %s: %w", w.Redacted(), err)
	}
	limit := w.timeout
	if d, ok := ctx.Deadline(); ok && time.Until(d) < limit {
		limit = time.Until(d)
	}
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	req, err := w.request(ctx, Outbound(n))
	if err != nil {
		return w.transportError(ctx, limit, err)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return w.transportError(ctx, limit, err)
	}
	defer resp.Body.Close()
	return w.answerError(resp)
}

// request builds the POST of n in the backend's format.
func (w Webhook) request(ctx context.Context, n Notification) (*http.Request, error) {
	var p payload
	switch w.format {
	case "ntfy":
		p = ntfyPayload(n, w.host)
	case "slack":
		p = slackPayload(n)
	default:
		p = jsonPayload(n, w.host)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url.String(), bytes.NewReader(p.body))
	if err != nil {
		return nil, err
	}
	for k, v := range p.header {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", "paneherd")
	return req, nil
}

// transportError words a failure to get an answer. net/http's errors (url.Error) quote
// the whole URL: only what they wrap is kept, with the URL redacted.
func (w Webhook) transportError(ctx context.Context, limit time.Duration, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("webhook: no answer from %s within %s: %w", w.Redacted(), limit.Round(100*time.Millisecond), context.DeadlineExceeded)
	}
	return fmt.Errorf("webhook: post to %s: %w", w.Redacted(), err)
}

// answerError is nil for a 2xx answer, else says what the server answered and what to do.
func (w Webhook) answerError(resp *http.Response) error {
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil // delivered: what the body says does not matter
	}
	// A body that never ends is cut off by the request's deadline; what was read stands.
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, webhookAnswerMax))
	status := statusline.Clean(resp.Status)
	switch code := resp.StatusCode; {
	case code >= 300 && code < 400:
		to := "nowhere (no Location)"
		if loc, err := resp.Location(); err == nil {
			to = RedactURL(loc.String())
		}
		return fmt.Errorf("webhook: %s answered %s, a redirect to %s: not followed; set @paneherd-notify-webhook to the URL that answers itself", w.Redacted(), status, to)
	case code >= 400 && code < 500:
		return fmt.Errorf("webhook: %s answered %s%s: check @paneherd-notify-webhook and its format", w.Redacted(), status, w.said(answer))
	default:
		return fmt.Errorf("webhook: %s answered %s%s: the server failed; paneherd does not retry", w.Redacted(), status, w.said(answer))
	}
}

// said is the start of a failed answer's body, which often says why (Slack's
// "invalid_token", ntfy's JSON error): one line, secrets masked, and without the URL's
// own secret parts in case the server repeats them.
func (w Webhook) said(answer []byte) string {
	s := strings.TrimSpace(statusline.Clean(secrets.Mask(strings.ToValidUTF8(string(answer), "?"))))
	password, _ := w.url.User.Password()
	for _, part := range []string{w.url.User.String(), password, w.url.EscapedPath(), w.url.Path, w.url.RawQuery} {
		if len(strings.Trim(part, "/")) > 0 {
			s = strings.ReplaceAll(s, part, "…")
		}
	}
	if s == "" {
		return ""
	}
	return " (" + cut(s, 120) + ")"
}

// payload is what one format posts.
type payload struct {
	header http.Header
	body   []byte
}

// jsonPayload is paneherd's event object, the one a program gets on stdin (EventObject;
// EventJSON runs Outbound too, which changes nothing the second time).
func jsonPayload(n Notification, host string) payload {
	return payload{http.Header{"Content-Type": {"application/json"}}, EventJSON(n, host)}
}

// slackPayload is {"text": "*TITLE*\nBODY"}. Slack reads &, < and > as markup
// (<!channel> notifies a whole channel, <URL|text> hides a link): a screen's text must not.
func slackPayload(n Notification) payload {
	esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	text := "*" + esc.Replace(n.Title) + "*\n" + esc.Replace(n.Body)
	// A string always encodes (invalid UTF-8 becomes U+FFFD).
	body, _ := json.Marshal(struct {
		Text string `json:"text"`
	}{text})
	return payload{http.Header{"Content-Type": {"application/json"}}, body}
}

// ntfyPayload is ntfy's publish request: the message as the body, the rest in its
// headers (their X- names: plain "Priority" is also HTTP's RFC 9218 header, which a
// proxy such as Cloudflare sets and ntfy then ignores).
func ntfyPayload(n Notification, host string) payload {
	h := http.Header{}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	if n.Title != "" {
		h.Set("X-Title", headerText(n.Title))
	}
	priority := "default"
	if n.Critical {
		priority = "urgent"
	}
	h.Set("X-Priority", priority)
	h.Set("X-Tags", ntfyTags(n, host))
	return payload{h, []byte(cut(n.Body, ntfyMessageMax))}
}

// ntfyTags are an emoji by event (ntfy shows a tag named like an emoji as that emoji),
// and this machine's name as a plain tag when it is a plain host name (a comma would
// split it).
func ntfyTags(n Notification, host string) string {
	tag := map[Event]string{NeedsConfirmation: "warning", Failed: "rotating_light", Supervisor: "rotating_light",
		Finished: "white_check_mark", Stalled: "hourglass", Exited: "stop_sign"}[n.Event]
	if tag == "" {
		tag = "bell"
	}
	if host != "" && strings.Trim(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") == "" {
		tag += "," + host
	}
	return tag
}

// headerText is s as an HTTP header value ntfy reads back as s: printable ASCII as it
// is, anything else as an RFC 2047 encoded word, which ntfy decodes. Text containing
// "=?" is encoded too, else ntfy would decode what a pane wrote as if it were one.
func headerText(s string) string {
	plain := !strings.Contains(s, "=?")
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] < 0x7f
	}
	if plain {
		return s
	}
	return "=?utf-8?b?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// cut shortens s to at most max bytes, on a character boundary, ending in "…".
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	end := max - len("…")
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "…"
}
