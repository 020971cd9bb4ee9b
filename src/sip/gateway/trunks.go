package main

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"
)

// trunk is what the gateway needs to know of one SIP trunk row to let a call in: how it authenticates.
type trunk struct {
	ID       int64    `json:"id"`
	Auth     string   `json:"auth"`
	Allowed  []string `json:"allowed"`
	Username string   `json:"username"`
	Password string   `json:"password"`
}

// LogValue keeps the password out of every log line.
func (t trunk) LogValue() slog.Value {
	return slog.GroupValue(slog.Int64("id", t.ID), slog.String("auth", t.Auth))
}

// allows reports whether an `ip` trunk takes calls from `ip`: one of its addresses or CIDR ranges holds it.
func (t trunk) allows(ip net.IP) bool {
	if t.Auth != "ip" || ip == nil {
		return false
	}
	for _, entry := range t.Allowed {
		if strings.Contains(entry, "/") {
			if _, network, err := net.ParseCIDR(entry); err == nil && network.Contains(ip) {
				return true
			}
			continue
		}
		if allowed := net.ParseIP(entry); allowed != nil && allowed.Equal(ip) {
			return true
		}
	}
	return false
}

// trunkCache remembers for a few seconds which trunks own a number (none included), so that a burst of
// INVITEs, or a scanner walking numbers, costs Parley one lookup per number; concurrent lookups of one number
// share the first.
type trunkCache struct {
	mu      sync.Mutex
	entries map[string]*trunkEntry
	ttl     time.Duration
	lookup  func(ctx context.Context, number string) ([]trunk, error)
}

type trunkEntry struct {
	ready   chan struct{}
	trunks  []trunk
	err     error
	expires time.Time
}

const maxCachedNumbers = 10_000

func newTrunkCache(ttl time.Duration, lookup func(ctx context.Context, number string) ([]trunk, error)) *trunkCache {
	return &trunkCache{entries: map[string]*trunkEntry{}, ttl: ttl, lookup: lookup}
}

func (c *trunkCache) get(ctx context.Context, number string) ([]trunk, error) {
	now := time.Now()
	c.mu.Lock()
	entry := c.entries[number]
	if entry == nil || (entry.expires.Before(now) && isClosed(entry.ready)) {
		if len(c.entries) >= maxCachedNumbers {
			for key, old := range c.entries {
				if isClosed(old.ready) && old.expires.Before(now) {
					delete(c.entries, key)
				}
			}
		}
		entry = &trunkEntry{ready: make(chan struct{})}
		c.entries[number] = entry
		c.mu.Unlock()
		entry.trunks, entry.err = c.lookup(ctx, number)
		entry.expires = time.Now().Add(c.ttl)
		if entry.err != nil {
			// A failed lookup is not remembered: the next INVITE asks again.
			entry.expires = time.Time{}
		}
		close(entry.ready)
		return entry.trunks, entry.err
	}
	c.mu.Unlock()
	select {
	case <-entry.ready:
		return entry.trunks, entry.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
