package model

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
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

// TestApplyTemplateSurvivesAClosedKeptAliveConnection: /apply-template
// changes nothing on the server, so a request of it that meets a kept-alive
// connection the server has just closed is sent again on a new one, rather
// than failing the step with EOF (which the agent then retried, with a
// warning on every run against llama-server).
func TestApplyTemplateSurvivesAClosedKeptAliveConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go closesKeptAlive(ln, "rendered")
	c := &llamacpp{base: "http://" + ln.Addr().String(), hc: &http.Client{}}
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")}
	for i := range 5 {
		got, err := c.applyTemplate(context.Background(), msgs)
		if err != nil || got != "rendered" {
			t.Fatalf("call %d: %q, %v; want the prompt, on a new connection when the kept-alive one is closed", i+1, got, err)
		}
	}
}
