package main

import (
	"context"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
	"github.com/icholy/digest"
)

// How long a source that authenticated, or matched a trunk's addresses, is heard at the trusted rate.
const trustFor = time.Hour

// admission turns a new INVITE into the trunk it belongs to, or refuses it before any dialog exists (a refused
// INVITE leaves nothing behind, in the gateway or in Parley): 404 for a number no trunk has, 403 for a source an
// `ip` trunk does not list, a digest challenge (401) for an `auth` trunk, 403 for wrong credentials.
type admission struct {
	trunks   *trunkCache
	nonces   *nonces
	guard    *guard
	draining func() bool
	// The trunk each admitted INVITE belongs to, for the call handler that runs next.
	admitted sync.Map
}

func (a *admission) middleware(next sipgo.RequestHandler) sipgo.RequestHandler {
	return func(req *sip.Request, tx sip.ServerTransaction) {
		if req.Method == sip.OPTIONS && a.draining() {
			respond(tx, req, 503, "Service Unavailable")
			return
		}
		if req.Method != sip.INVITE || hasToTag(req) {
			next(req, tx)
			return
		}
		if a.draining() {
			respond(tx, req, 503, "Service Unavailable")
			return
		}
		respond(tx, req, 100, "Trying")
		found, ok := a.authorize(req, tx)
		if !ok {
			return
		}
		key := admittedKey(req)
		a.admitted.Store(key, found)
		defer a.admitted.Delete(key)
		next(req, tx)
	}
}

// trunkOf hands the call handler the trunk its INVITE was admitted for.
func (a *admission) trunkOf(req *sip.Request) (trunk, bool) {
	value, ok := a.admitted.Load(admittedKey(req))
	if !ok {
		return trunk{}, false
	}
	return value.(trunk), true
}

// admittedKey names an INVITE's transaction: the dialog layer hands the handler a copy of the request.
func admittedKey(req *sip.Request) string {
	branch := ""
	if via := req.Via(); via != nil {
		branch, _ = via.Params.Get("branch")
	}
	return req.CallID().Value() + "|" + branch
}

func (a *admission) authorize(req *sip.Request, tx sip.ServerTransaction) (trunk, bool) {
	source := hostOf(req.Source())
	number := req.Recipient.User
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	candidates, err := a.trunks.get(ctx, number)
	if err != nil {
		respond(tx, req, 503, "Service Unavailable")
		return trunk{}, false
	}
	if number == "" || len(candidates) == 0 {
		a.guard.refused(source)
		respond(tx, req, 404, "Not Found")
		return trunk{}, false
	}
	ip := net.ParseIP(source)
	var withCredentials []trunk
	for _, t := range candidates {
		if t.allows(ip) {
			a.guard.trust(source, trustFor)
			return t, true
		}
		if t.Auth == "auth" {
			withCredentials = append(withCredentials, t)
		}
	}
	if len(withCredentials) == 0 {
		a.guard.refused(source)
		respond(tx, req, 403, "Forbidden")
		return trunk{}, false
	}
	header := req.GetHeader("Authorization")
	if header == nil {
		a.challenge(tx, req, false)
		return trunk{}, false
	}
	cred, err := digest.ParseCredentials(header.Value())
	if err != nil {
		a.guard.refused(source)
		respond(tx, req, 400, "Bad Request")
		return trunk{}, false
	}
	if !a.nonces.take(cred.Nonce) {
		a.challenge(tx, req, true)
		return trunk{}, false
	}
	for _, t := range withCredentials {
		if a.nonces.verify(cred, req.Method.String(), t.Username, t.Password) {
			a.guard.trust(source, trustFor)
			return t, true
		}
	}
	a.guard.refused(source)
	respond(tx, req, 403, "Forbidden")
	return trunk{}, false
}

func (a *admission) challenge(tx sip.ServerTransaction, req *sip.Request, stale bool) {
	res := sip.NewResponseFromRequest(req, 401, "Unauthorized", nil)
	res.AppendHeader(sip.NewHeader("WWW-Authenticate", a.nonces.challenge(stale).String()))
	_ = tx.Respond(res)
}

func respond(tx sip.ServerTransaction, req *sip.Request, code int, reason string) {
	_ = tx.Respond(sip.NewResponseFromRequest(req, code, reason, nil))
}

func hasToTag(req *sip.Request) bool {
	to := req.To()
	if to == nil || to.Params == nil {
		return false
	}
	_, ok := to.Params.Get("tag")
	return ok
}

// callerOf is the caller's number: the From user part, or the P-Asserted-Identity's when From hides it.
func callerOf(req *sip.Request) string {
	from := ""
	if h := req.From(); h != nil {
		from = h.Address.User
	}
	if from != "" && !strings.EqualFold(from, "anonymous") {
		return from
	}
	if h := req.GetHeader("P-Asserted-Identity"); h != nil {
		var uri sip.Uri
		value := strings.TrimSpace(h.Value())
		if start, end := strings.Index(value, "<"), strings.Index(value, ">"); start >= 0 && end > start {
			value = value[start+1 : end]
		}
		if err := sip.ParseUri(value, &uri); err == nil && uri.User != "" {
			return uri.User
		}
	}
	return from
}
