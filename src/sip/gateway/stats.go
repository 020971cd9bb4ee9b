package main

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/emiago/diago"
	"github.com/emiago/diago/media"
	"github.com/pion/rtcp"
)

// callStats is what a call's media did, for the line logged when it ends (and the SIP bench, which reads it):
// how late each 20 ms packet to the far end was sent against its schedule, and the interarrival jitter the far
// end reported for that stream in its RTCP reports (RFC 3550, in ms).
type callStats struct {
	mu        sync.Mutex
	lateness  [501]uint32 // 100 µs buckets up to 50 ms, the last one for anything later
	samples   uint32
	last      time.Time
	peerMaxMs atomic.Int64
}

// sent notes that a packet went out now; packets are due every 20 ms.
func (s *callStats) sent(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.last.IsZero() {
		deviation := now.Sub(s.last) - 20*time.Millisecond
		if deviation < 0 {
			deviation = -deviation
		}
		s.lateness[min(int(deviation/(100*time.Microsecond)), len(s.lateness)-1)]++
		s.samples++
	}
	s.last = now
}

// p99 is the 99th percentile of the send deviations, in µs (to the bucket's upper edge).
func (s *callStats) p99() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.samples == 0 {
		return 0
	}
	want := (uint64(s.samples)*99 + 99) / 100
	var seen uint64
	for bucket, count := range s.lateness {
		seen += uint64(count)
		if seen >= want {
			return int64(bucket+1) * 100
		}
	}
	return int64(len(s.lateness)) * 100
}

// listenRTCP keeps the largest jitter the far end reports for the stream the gateway sends (SSRC `ours`).
func (s *callStats) listenRTCP(med *diago.DialogMedia, ours uint32) {
	session := med.RTPSession()
	if session == nil {
		return
	}
	session.OnReadRTCP(func(pkt rtcp.Packet, _ media.RTPReadStats) {
		var reports []rtcp.ReceptionReport
		switch report := pkt.(type) {
		case *rtcp.ReceiverReport:
			reports = report.Reports
		case *rtcp.SenderReport:
			reports = report.Reports
		}
		for _, rr := range reports {
			if rr.SSRC != ours {
				continue
			}
			ms := int64(rr.Jitter) / 8
			for current := s.peerMaxMs.Load(); ms > current && !s.peerMaxMs.CompareAndSwap(current, ms); current = s.peerMaxMs.Load() {
			}
		}
	})
}
