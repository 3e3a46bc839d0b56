package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrNotLoopback is returned by Serve for an address other than a loopback one: the
// metrics name panes and workers, which is no business of anyone on the network, and
// the endpoint has no authentication.
var ErrNotLoopback = errors.New("not a loopback address (the metrics name panes and workers): give 127.0.0.1:PORT, [::1]:PORT or localhost:PORT")

// Server serves a Set's metrics over HTTP at /metrics.
type Server struct {
	l   net.Listener
	srv *http.Server
}

// Serve listens on addr (host:port; port 0 picks one) and serves the metrics at /metrics
// until Close. Only loopback addresses are served: an IP literal such as 127.0.0.1 or
// ::1, or localhost, which must resolve to one; an empty host (every interface) or any
// other is refused with ErrNotLoopback before anything listens.
func (s *Set) Serve(addr string) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen %q: %w", addr, err)
	}
	if !loopbackHost(host) {
		return nil, fmt.Errorf("metrics: listen %q: %w", addr, ErrNotLoopback)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	// localhost is whatever the resolver says: trust the address actually bound.
	tcp, ok := l.Addr().(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		l.Close()
		return nil, fmt.Errorf("metrics: listen %q: bound %s: %w", addr, l.Addr(), ErrNotLoopback)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", s.Handler())
	srv := &http.Server{Handler: onlyHosts(servedHosts(host, tcp.Port), mux), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(l) // returns http.ErrServerClosed at Close
	return &Server{l: l, srv: srv}, nil
}

// loopbackHost: an IP literal on the loopback network, or localhost.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// servedHosts are the Host headers a request may name: the address listened on and the
// loopback's names, with the port.
func servedHosts(host string, port int) map[string]bool {
	hosts := map[string]bool{}
	for _, h := range []string{host, "localhost", "127.0.0.1", "::1"} {
		hosts[strings.ToLower(net.JoinHostPort(h, strconv.Itoa(port)))] = true
	}
	return hosts
}

// onlyHosts refuses a request that names another host: a web page the person opens can
// have its own domain resolve to 127.0.0.1 (DNS rebinding) and read the metrics, which
// name panes and workers, as same-origin; its requests name that domain.
func onlyHosts(hosts map[string]bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts[strings.ToLower(r.Host)] {
			http.Error(w, "paneherd metrics: ask for localhost or the address served, not another host name", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Addr is the address served, with the port chosen when 0 was asked for.
func (s *Server) Addr() string { return s.l.Addr().String() }

// Close stops listening and waits up to 2 s for scrapes under way, then drops them.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		return s.srv.Close()
	}
	return nil
}
