package model

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

// closesKeptAlive serves HTTP on ln as a server that closes an idle
// connection just as the client reuses it (llama-server does so now and
// then between two steps): on each connection it answers the first request
// with prompt, keeping the connection alive, and closes it on the second
// without an answer.
func closesKeptAlive(ln net.Listener, prompt string) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			r := bufio.NewReader(conn)
			req, err := http.ReadRequest(r)
			if err != nil {
				return
			}
			io.Copy(io.Discard, req.Body)
			body := `{"prompt":"` + prompt + `"}`
			io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "+
				strconv.Itoa(len(body))+"\r\n\r\n"+body)
			http.ReadRequest(r) // the reused connection's request: closed unanswered
		}()
	}
}

// TestACallOnAClosedKeptAliveConnectionIsToBeMadeAgainAtOnce: a request
// that meets a kept-alive connection the server has just closed, before
// any answer (llama-server does so now and then between two steps), is
// not sent again behind the caller's back, nor failed as a server that
// cannot be reached: its error says to make it again at once, which goes
// out on a new connection.
func TestACallOnAClosedKeptAliveConnectionIsToBeMadeAgainAtOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go closesKeptAlive(ln, "rendered")
	c := &llamacpp{base: "http://" + ln.Addr().String(), hc: &http.Client{}}
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")}
	for i := range 6 {
		got, err := c.applyTemplate(context.Background(), msgs)
		if i%2 == 0 {
			if err != nil || got != "rendered" {
				t.Fatalf("call %d: %q, %v; want the prompt, on a new connection", i+1, got, err)
			}
			continue
		}
		e := explain(Classify(context.Background(), err), "llamacpp", "m", c.base)
		if !e.Temporary || e.Retry != RetryStaleConnection || !e.Retry.AtOnce() || e.Fix != NoSetting || strings.Contains(e.Error(), "cannot reach") {
			t.Fatalf("call %d: %v (%+v); want an error that says to make the call again at once", i+1, err, e)
		}
	}
}
