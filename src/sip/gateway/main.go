// Command parley-sip is Parley's SIP gateway: it answers and places calls for the SIP trunks users create,
// and bridges each answered call to Parley's media role as a Media Streams WebSocket, as a carrier would. Its
// parent, Parley's sip role (src/roles/sip.ts), starts it, decides everything about trunks, calls and billing,
// and talks to it over this process's standard input and output (control.go). SIP signalling is sipgo's, RTP
// and its codecs diago's.
package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/emiago/diago"
	"github.com/emiago/diago/media"
	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
)

// outgoingTransport names the transport the gateway's own calls go out on.
const outgoingTransport = "udp-out"

// settings come from the environment Parley's sip role gives the gateway (src/config/sip.ts reads them first).
type settings struct {
	host       string
	port       int
	publicHost string
	rtpMin     int
	rtpMax     int
	tlsPort    int
	tlsCert    string
	tlsKey     string
	// What the gateway's own calls offer: 0 plain RTP, 1 SRTP with SDES keys (diago's MediaSRTP).
	outboundSRTP int
	// Packets per second a source may send before it is trusted, and after.
	unknownRate float64
	trustedRate float64
	logLevel    slog.Level
}

func env(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

func envInt(name string, fallback int) (int, error) {
	value := os.Getenv(name)
	if value == "" {
		return fallback, nil
	}
	n, err := strconv.Atoi(value)
	if err != nil {
		return 0, fmt.Errorf("%s must be a whole number, got %q", name, value)
	}
	return n, nil
}

func readSettings() (settings, error) {
	s := settings{host: env("SIP_HOST", "0.0.0.0"), publicHost: os.Getenv("SIP_PUBLIC_HOST"), tlsCert: os.Getenv("SIP_TLS_CERT"), tlsKey: os.Getenv("SIP_TLS_KEY")}
	var err error
	for _, field := range []struct {
		name     string
		target   *int
		fallback int
	}{{"SIP_PORT", &s.port, 5060}, {"RTP_PORT_MIN", &s.rtpMin, 10000}, {"RTP_PORT_MAX", &s.rtpMax, 20000}, {"SIP_TLS_PORT", &s.tlsPort, 5061}} {
		if *field.target, err = envInt(field.name, field.fallback); err != nil {
			return s, err
		}
	}
	unknown, err := envInt("SIP_UNKNOWN_SOURCE_RATE", 20)
	if err != nil {
		return s, err
	}
	s.unknownRate, s.trustedRate = float64(unknown), 2000
	switch srtp := env("SIP_OUTBOUND_SRTP", "off"); srtp {
	case "off":
	case "sdes":
		s.outboundSRTP = 1
	default:
		return s, fmt.Errorf("SIP_OUTBOUND_SRTP must be off or sdes, got %q", srtp)
	}
	if err := s.logLevel.UnmarshalText([]byte(env("SIP_LOG_LEVEL", "info"))); err != nil {
		return s, err
	}
	if s.publicHost == "" {
		s.publicHost = s.host
	}
	return s, nil
}

func main() {
	s, err := readSettings()
	if err != nil {
		fmt.Fprintln(os.Stderr, "parley-sip:", err)
		os.Exit(2)
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: s.logLevel}))
	if err := run(s, log); err != nil {
		log.Error("the SIP gateway stopped", "error", err)
		os.Exit(1)
	}
}

func run(s settings, log *slog.Logger) error {
	media.RTPPortStart, media.RTPPortEnd = s.rtpMin, s.rtpMax
	sip.SIPDebug = false
	guard := newGuard(s.unknownRate, s.trustedRate)
	udp, err := net.ListenPacket("udp", net.JoinHostPort(s.host, strconv.Itoa(s.port)))
	if err != nil {
		return err
	}
	port := udp.LocalAddr().(*net.UDPAddr).Port
	tcp, err := net.Listen("tcp", net.JoinHostPort(s.host, strconv.Itoa(port)))
	if err != nil {
		return err
	}
	publicHost := s.publicHost
	if ip := net.ParseIP(publicHost); ip != nil && ip.IsUnspecified() {
		// Bound to every interface with nothing said: advertise the interface address diago would pick.
		if resolved, _, err := sip.ResolveInterfacesIP("ip4", nil); err == nil {
			publicHost = resolved.String()
		}
	}
	s.publicHost = publicHost
	mediaIP := net.ParseIP(publicHost)
	if mediaIP == nil {
		if ips, err := net.LookupIP(publicHost); err == nil && len(ips) > 0 {
			mediaIP = ips[0]
		}
	}
	ua, err := sipgo.NewUA(sipgo.WithUserAgent("Parley"))
	if err != nil {
		return err
	}
	server, err := sipgo.NewServer(ua, sipgo.WithServerLogger(log))
	if err != nil {
		return err
	}
	ctl := newControl(os.Stdout, log)
	g := &gateway{log: log, ctl: ctl, guard: guard, settings: s}
	trunkLookup := func(ctx context.Context, number string) ([]trunk, error) {
		var answer struct {
			Trunks []trunk `json:"trunks"`
		}
		err := ctl.ask(ctx, "trunks", map[string]string{"number": number}, &answer)
		return answer.Trunks, err
	}
	g.admission = &admission{trunks: newTrunkCache(3*time.Second, trunkLookup), nonces: newNonces("parley", 30*time.Second), guard: guard, draining: g.draining.Load}
	// Calls that come in are answered with SRTP (SDES keys, RFC 4568) when their offer asks for it and with plain
	// RTP otherwise; calls the gateway places go out on a transport of their own that offers plain RTP, which
	// every trunk takes, or SRTP only where the deployment says its carriers want it (SIP_OUTBOUND_SRTP: a trunk
	// has no setting of its own for it).
	transport := func(kind string, port int) diago.Transport {
		return diago.Transport{Transport: kind, BindHost: s.host, BindPort: port, ExternalHost: publicHost, ExternalPort: port, MediaExternalIP: mediaIP, MediaSRTP: 1}
	}
	outgoing := transport("udp", port)
	outgoing.ID, outgoing.MediaSRTP = outgoingTransport, s.outboundSRTP
	options := []diago.DiagoOption{
		diago.WithServer(server), diago.WithLogger(log), diago.WithServerRequestMiddleware(g.admission.middleware),
		diago.WithTransport(transport("udp", port)), diago.WithTransport(transport("tcp", port)), diago.WithTransport(outgoing),
	}
	var tlsListener net.Listener
	if s.tlsCert != "" && s.tlsKey != "" {
		certificate, err := tls.LoadX509KeyPair(s.tlsCert, s.tlsKey)
		if err != nil {
			return fmt.Errorf("SIP_TLS_CERT/SIP_TLS_KEY: %w", err)
		}
		config := &tls.Config{Certificates: []tls.Certificate{certificate}, MinVersion: tls.VersionTLS12}
		if tlsListener, err = tls.Listen("tcp", net.JoinHostPort(s.host, strconv.Itoa(s.tlsPort)), config); err != nil {
			return err
		}
		tlsTransport := transport("tls", tlsListener.Addr().(*net.TCPAddr).Port)
		tlsTransport.TLSConf = config
		options = append(options, diago.WithTransport(tlsTransport))
	}
	g.dg = diago.NewDiago(ua, options...)
	g.dg.HandleFunc(g.inbound)
	ctl.handle("dial", g.dial)
	ctl.handle("hangup", g.hangup)
	ctl.handle("transfer", g.transfer)
	ctl.handle("warm-transfer", g.warmTransfer)
	ctl.handle("drain", g.drain)

	errs := make(chan error, 4)
	go func() { errs <- server.ServeUDP(&guardedPacketConn{PacketConn: udp, guard: guard}) }()
	go func() { errs <- server.ServeTCP(&guardedListener{Listener: tcp, guard: guard}) }()
	if tlsListener != nil {
		go func() { errs <- server.ServeTLS(&guardedListener{Listener: tlsListener, guard: guard}) }()
	}
	go func() {
		for range time.Tick(time.Minute) {
			guard.sweep()
		}
	}()
	ready := map[string]any{"udp": udp.LocalAddr().String(), "tcp": tcp.Addr().String(), "publicHost": publicHost}
	if tlsListener != nil {
		ready["tls"] = tlsListener.Addr().String()
	}
	ctl.tell("ready", ready)
	log.Info("SIP gateway listening", "udp", udp.LocalAddr().String(), "tcp", tcp.Addr().String(), "publicHost", publicHost)
	// Parley's end of the pipe closing means Parley is gone: the gateway goes with it.
	go func() { errs <- ctl.serve(context.Background(), os.Stdin) }()
	err = <-errs
	_ = udp.Close()
	_ = tcp.Close()
	return err
}
