package main

import (
	"testing"
	"time"

	"github.com/icholy/digest"
)

func TestNoncesAreFreshAndAcceptedOnce(t *testing.T) {
	n := newNonces("parley", time.Minute)
	first, second := n.challenge(false), n.challenge(false)
	if first.Nonce == second.Nonce {
		t.Fatal("two challenges share a nonce")
	}
	cred, err := digest.Digest(first, digest.Options{Method: "INVITE", URI: "sip:+4930123456@gw.example", Username: "pbx", Password: "right", Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !n.take(cred.Nonce) || !n.verify(cred, "INVITE", "pbx", "right") {
		t.Fatal("the right password was refused")
	}
	if n.verify(cred, "INVITE", "pbx", "wrong") || n.verify(cred, "INVITE", "other", "right") {
		t.Fatal("a wrong password or username was accepted")
	}
	if n.take(cred.Nonce) {
		t.Fatal("a nonce was accepted twice: a captured header could be replayed")
	}
	if n.take("made-up") {
		t.Fatal("a nonce never issued was accepted")
	}
}

func TestNoncesExpire(t *testing.T) {
	n := newNonces("parley", time.Millisecond)
	challenge := n.challenge(false)
	time.Sleep(5 * time.Millisecond)
	if n.take(challenge.Nonce) {
		t.Fatal("an expired nonce was accepted")
	}
}
