package e2e

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to the API server, so that a test can cut
// one client (the scheduler) off it: Down closes the listener and every
// open connection (clients see connection refused), Up listens again on
// the same port. TLS passes through (the kubeconfigs skip verification).
type Proxy struct {
	// Kubeconfig is the admin kubeconfig through the proxy.
	Kubeconfig string
	addr       string
	target     string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
}

// StartProxy starts a proxy to cp's API server; cleanup stops it.
func StartProxy(t testing.TB, cp *ControlPlane) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("e2e: proxy: %v", err)
	}
	p := &Proxy{addr: ln.Addr().String(), target: strings.TrimPrefix(cp.URL, "https://"), conns: map[net.Conn]struct{}{}}
	p.Kubeconfig = filepath.Join(cp.Dir, "proxy-"+strings.ReplaceAll(p.addr, ":", "-")+".kubeconfig")
	if err := os.WriteFile(p.Kubeconfig, []byte(kubeconfig("https://"+p.addr, cp.Config.BearerToken)), 0o600); err != nil {
		t.Fatalf("e2e: proxy kubeconfig: %v", err)
	}
	p.serve(ln)
	t.Cleanup(p.Down)
	return p
}

// Via returns a copy of cp whose Kubeconfig goes through the proxy (give
// it to StartScheduler).
func (p *Proxy) Via(cp *ControlPlane) *ControlPlane {
	c := *cp
	c.Kubeconfig = p.Kubeconfig
	return &c
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.forward(c)
		}
	}()
}

func (p *Proxy) forward(c net.Conn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // went down meanwhile
		p.mu.Unlock()
		c.Close()
		s.Close()
		return
	}
	p.conns[c], p.conns[s] = struct{}{}, struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { io.Copy(s, c); done <- struct{}{} }()
	go func() { io.Copy(c, s); done <- struct{}{} }()
	<-done
	c.Close()
	s.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, s)
	p.mu.Unlock()
}

// Down cuts every client of the proxy off the API server.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	p.conns = map[net.Conn]struct{}{}
}

// Up listens again on the proxy's port.
func (p *Proxy) Up(t testing.TB) {
	t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatalf("e2e: proxy up again on %s: %v", p.addr, err)
	}
	p.serve(ln)
}
