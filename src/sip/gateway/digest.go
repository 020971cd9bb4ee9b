package main

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"sync"
	"time"

	"github.com/icholy/digest"
)

// nonces hands out digest challenges (RFC 7616 with qop=auth, MD5 as SIP carriers speak it) and accepts each
// nonce once, within its lifetime: a captured Authorization header cannot be replayed for a second call.
type nonces struct {
	mu       sync.Mutex
	issued   map[string]time.Time
	lifetime time.Duration
	realm    string
}

const maxOutstandingNonces = 100_000

func newNonces(realm string, lifetime time.Duration) *nonces {
	return &nonces{issued: map[string]time.Time{}, lifetime: lifetime, realm: realm}
}

// challenge returns a fresh challenge; `stale` tells a client whose nonce expired to retry without asking its user.
func (n *nonces) challenge(stale bool) *digest.Challenge {
	raw := make([]byte, 24)
	_, _ = rand.Read(raw)
	nonce := base64.RawURLEncoding.EncodeToString(raw)
	now := time.Now()
	n.mu.Lock()
	if len(n.issued) >= maxOutstandingNonces {
		for value, expires := range n.issued {
			if now.After(expires) {
				delete(n.issued, value)
			}
		}
	}
	if len(n.issued) < maxOutstandingNonces {
		n.issued[nonce] = now.Add(n.lifetime)
	}
	n.mu.Unlock()
	return &digest.Challenge{Realm: n.realm, Nonce: nonce, Algorithm: "MD5", QOP: []string{"auth"}, Stale: stale}
}

// take consumes a nonce: true when it was issued here, has not expired and was not used before.
func (n *nonces) take(nonce string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	expires, ok := n.issued[nonce]
	delete(n.issued, nonce)
	return ok && time.Now().Before(expires)
}

// verify checks credentials for a request against a username and password, for a nonce already taken.
func (n *nonces) verify(cred *digest.Credentials, method, username, password string) bool {
	if cred.Username != username || cred.Realm != n.realm {
		return false
	}
	chal := &digest.Challenge{Realm: n.realm, Nonce: cred.Nonce, Algorithm: "MD5"}
	if cred.QOP != "" {
		if cred.QOP != "auth" {
			return false
		}
		chal.QOP = []string{"auth"}
	}
	expected, err := digest.Digest(chal, digest.Options{Method: method, URI: cred.URI, Username: username, Password: password, Cnonce: cred.Cnonce, Count: cred.Nc})
	if err != nil {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(expected.Response), []byte(cred.Response)) == 1
}
