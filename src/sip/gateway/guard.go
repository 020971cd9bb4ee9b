package main

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// guard decides, before a packet is parsed, whether its source may be heard: every source address has a token
// bucket, small for sources the gateway does not know and large for trusted ones (a trunk's address that
// matched, a caller that authenticated, a trunk the gateway dialed). A source whose INVITEs keep being refused
// (unknown numbers, failed authentication: a scanner) is blocked for a while. Dropping happens at the socket,
// so a flood costs a map lookup per packet and never reaches the SIP parser, the transaction layer or Parley.
type guard struct {
	mu           sync.Mutex
	sources      map[string]*source
	unknownRate  float64
	unknownBurst float64
	trustedRate  float64
	trustedBurst float64
	maxSources   int
	dropped      atomic.Uint64
	now          func() time.Time
}

type source struct {
	tokens       float64
	last         time.Time
	trustedUntil time.Time
	blockedUntil time.Time
	refusals     int
	refusedSince time.Time
}

const (
	// Refused INVITEs from one untrusted source within refusalWindow before it is blocked for blockFor.
	refusalLimit  = 5
	refusalWindow = time.Minute
	blockFor      = time.Minute
	// A source not heard from for this long is forgotten (its bucket would be full again anyway).
	idleFor = 2 * time.Minute
)

func newGuard(unknownRate, trustedRate float64) *guard {
	return &guard{
		sources:      map[string]*source{},
		unknownRate:  unknownRate,
		unknownBurst: unknownRate * 3,
		trustedRate:  trustedRate,
		trustedBurst: trustedRate * 2,
		maxSources:   65536,
		now:          time.Now,
	}
}

// allow spends a token of the source's bucket; false drops the packet unread.
func (g *guard) allow(ip string) bool {
	now := g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.sources[ip]
	if s == nil {
		if len(g.sources) >= g.maxSources {
			g.sweepLocked(now)
			if len(g.sources) >= g.maxSources {
				g.dropped.Add(1)
				return false
			}
		}
		s = &source{tokens: g.unknownBurst, last: now}
		g.sources[ip] = s
	}
	trusted := now.Before(s.trustedUntil)
	if !trusted && now.Before(s.blockedUntil) {
		g.dropped.Add(1)
		return false
	}
	rate, burst := g.unknownRate, g.unknownBurst
	if trusted {
		rate, burst = g.trustedRate, g.trustedBurst
	}
	s.tokens = min(burst, s.tokens+now.Sub(s.last).Seconds()*rate)
	s.last = now
	if s.tokens < 1 {
		g.dropped.Add(1)
		return false
	}
	s.tokens--
	return true
}

// trust lets a source send at the trusted rate for `d`.
func (g *guard) trust(ip string, d time.Duration) {
	now := g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.sources[ip]
	if s == nil {
		s = &source{last: now}
		g.sources[ip] = s
	}
	if until := now.Add(d); until.After(s.trustedUntil) {
		s.trustedUntil = until
	}
	s.tokens = max(s.tokens, g.trustedBurst)
	s.blockedUntil = time.Time{}
}

// refused counts an INVITE the gateway turned away; too many from an untrusted source block it.
func (g *guard) refused(ip string) {
	now := g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.sources[ip]
	if s == nil || now.Before(s.trustedUntil) {
		return
	}
	if now.Sub(s.refusedSince) > refusalWindow {
		s.refusals, s.refusedSince = 0, now
	}
	s.refusals++
	if s.refusals >= refusalLimit {
		s.blockedUntil = now.Add(blockFor)
	}
}

func (g *guard) sweepLocked(now time.Time) {
	for ip, s := range g.sources {
		if now.Sub(s.last) > idleFor && now.After(s.trustedUntil) && now.After(s.blockedUntil) {
			delete(g.sources, ip)
		}
	}
}

// sweep forgets idle sources; run now and then.
func (g *guard) sweep() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.sweepLocked(g.now())
}

func hostOf(address string) string {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return address
	}
	return host
}

// guardedPacketConn drops datagrams from sources the guard will not hear before sipgo reads them.
type guardedPacketConn struct {
	net.PacketConn
	guard *guard
}

func (c *guardedPacketConn) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		n, addr, err := c.PacketConn.ReadFrom(b)
		if err != nil || c.guard.allow(hostOf(addr.String())) {
			return n, addr, err
		}
	}
}

// guardedListener closes connections from sources the guard will not hear as soon as they are accepted.
type guardedListener struct {
	net.Listener
	guard *guard
}

func (l *guardedListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil || l.guard.allow(hostOf(conn.RemoteAddr().String())) {
			return conn, err
		}
		_ = conn.Close()
	}
}
