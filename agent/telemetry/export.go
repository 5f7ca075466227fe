package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cenkalti/backoff/v5"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// maxAnswer bounds what is read of a collector's answer: an OTLP answer
// is a few bytes, its partial success or its error.
const maxAnswer = 64 << 10

// maxAttempts bounds the attempts of one batch, which the time left
// bounds too.
const maxAttempts = 5

// userAgent says who sends the spans, as the OTLP specification asks
// an exporter to.
const userAgent = "react-agent OTLP/HTTP exporter"

// exporter sends spans to a collector over OTLP/HTTP, in protobuf, as
// the OTLP specification (v1.10.0) says: one POST a batch, tried again
// after a 429, 502, 503 or 504, or a connection that failed, while the
// time of the batch allows and as long as the collector asks with
// Retry-After; a redirect is not followed. It is safe for concurrent
// use.
type exporter struct {
	url     string        // where the spans are posted
	headers http.Header   // sent with each batch
	gzip    bool          // whether the batches are compressed
	timeout time.Duration // bounds each batch, its attempts and their waits
	client  *http.Client  // follows no redirect

	// stopped is done once Shutdown is called, and ends the batches
	// under way, each of which holds mu to read.
	stopped context.Context
	stop    context.CancelFunc
	mu      sync.RWMutex
}

// newExporter returns an exporter that posts to endpoint with client.
func newExporter(endpoint string, headers map[string]string, gzip bool, timeout time.Duration, client *http.Client) *exporter {
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v)
	}
	h.Set("Content-Type", "application/x-protobuf")
	h.Set("User-Agent", userAgent)
	if gzip {
		h.Set("Content-Encoding", "gzip")
	}
	e := &exporter{url: endpoint, headers: h, gzip: gzip, timeout: timeout, client: client}
	e.stopped, e.stop = context.WithCancel(context.Background())
	return e
}

// errStopped is the error of a batch after Shutdown.
var errStopped = errors.New("the exporter is shut down")

// ExportSpans sends spans to the collector, within the exporter's
// timeout and ctx.
func (e *exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.stopped.Err() != nil {
		return errStopped
	}
	body := appendRequest(nil, spans)
	if len(body) == 0 {
		return nil
	}
	if e.gzip {
		// The fastest compression: a batch is compressed once, in the
		// second the end of a run has, and most of its text repeats.
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		zw.Write(body) // a bytes.Buffer takes all
		zw.Close()
		body = buf.Bytes()
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	defer context.AfterFunc(e.stopped, cancel)()

	wait := &backoff.ExponentialBackOff{InitialInterval: 500 * time.Millisecond, RandomizationFactor: 0.5,
		Multiplier: 2, MaxInterval: 5 * time.Second}
	wait.Reset()
	for attempt := 1; ; attempt++ {
		err := e.post(ctx, body)
		var again *retryable
		if !errors.As(err, &again) {
			return err
		}
		if attempt == maxAttempts {
			return attempts(again.err, attempt)
		}
		delay := wait.NextBackOff()
		if again.after > delay {
			delay = again.after
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < delay {
			if again.after > 0 {
				return fmt.Errorf("%w, and asked for a wait (Retry-After: %s) longer than the time the spans have", again.err, again.afterText)
			}
			return attempts(again.err, attempt)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return attempts(again.err, attempt)
		case <-t.C:
		}
	}
}

// attempts is err, the error of the last of n attempts, saying how many
// there were.
func attempts(err error, n int) error {
	if n == 1 {
		return err
	}
	return fmt.Errorf("%w (%d attempts)", err, n)
}

// Shutdown ends the batches under way, and returns once they have, or
// when ctx ends; the exporter sends no more, and keeps no connection.
func (e *exporter) Shutdown(ctx context.Context) error {
	e.stop()
	ended := make(chan struct{})
	go func() {
		e.mu.Lock() // once each batch under way has ended
		e.mu.Unlock()
		close(ended)
	}()
	defer e.client.CloseIdleConnections()
	select {
	case <-ended:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryable is the error of an attempt that may be made again, after
// the time the collector asked for, if it did.
type retryable struct {
	err       error
	after     time.Duration
	afterText string // the Retry-After header, as the collector wrote it
}

func (r *retryable) Error() string { return r.err.Error() }
func (r *retryable) Unwrap() error { return r.err }

// post sends body once. Its error is a *retryable when the attempt may be
// made again.
func (e *exporter) post(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header = e.headers.Clone()
	resp, err := e.client.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL is said once, by the caller
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Errorf("nothing listens at %s (connection refused): is the collector running?", req.URL.Host)
		}
		// What Go's client says of an answer in HTTP/2's frames, which
		// begin with a length of three bytes, a SETTINGS frame's small.
		if strings.Contains(err.Error(), `malformed HTTP response "\x00\x00`) {
			return errors.New("the collector answered in HTTP/2 without TLS, as an OTLP/gRPC port (4317) does: name the collector's OTLP/HTTP port, 4318")
		}
		// A collector that hung up without an answer is tried again, as
		// the specification says; one that is not there is not: it is
		// most often not started, and a retry would cost the run's end
		// its whole second.
		var opErr *net.OpError
		if errors.As(err, &opErr) && opErr.Op != "dial" || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return &retryable{err: err}
		}
		return err
	}
	defer resp.Body.Close()
	answer, readErr := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	tooLong := len(answer) > maxAnswer
	answer = answer[:min(len(answer), maxAnswer)]
	if resp.Header.Get("Content-Encoding") == "gzip" {
		answer = gunzip(answer)
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		if readErr != nil {
			return fmt.Errorf("the collector's answer broke off: %w", readErr)
		}
		return acceptance(mediaType, answer, tooLong)
	case code >= 300 && code < 400:
		where := ""
		if loc := resp.Header.Get("Location"); loc != "" {
			where = " to " + clip(loc, 200)
		}
		return fmt.Errorf("the collector redirected the spans%s (%s); they were not sent there, for the headers, which may hold keys, would go along: name the address they are to go to", where, resp.Status)
	}
	err = fmt.Errorf("the collector answered %s%s", clip(resp.Status, 60), said(mediaType, answer))
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		r := &retryable{err: err}
		if v := resp.Header.Get("Retry-After"); v != "" {
			r.after, r.afterText = retryAfter(v), clip(v, 40)
		}
		return r
	}
	return err
}

// acceptance is the outcome of a batch the collector took with a 2xx
// answer: its partial success, if it rejected some spans or warned.
func acceptance(mediaType string, answer []byte, tooLong bool) error {
	if tooLong {
		return fmt.Errorf("the collector answered with more than %d KiB, which no OTLP collector does: is it the collector's OTLP/HTTP address?", maxAnswer>>10)
	}
	var (
		rejected int64
		message  string
		err      error
	)
	switch mediaType {
	case "application/x-protobuf":
		rejected, message, err = partialSuccess(answer)
	case "application/json":
		// As the OTLP/JSON encoding writes it, an int64 in a string.
		var r struct {
			PartialSuccess struct {
				RejectedSpans json.Number `json:"rejectedSpans"`
				ErrorMessage  string      `json:"errorMessage"`
			} `json:"partialSuccess"`
		}
		if err = json.Unmarshal(answer, &r); err == nil {
			message = r.PartialSuccess.ErrorMessage
			if n := strings.Trim(string(r.PartialSuccess.RejectedSpans), `"`); n != "" {
				rejected, _ = strconv.ParseInt(n, 10, 64)
			}
		}
	case "text/html":
		return errors.New("the collector answered with a web page, not OTLP: is it the collector's OTLP/HTTP address, its port 4318, and not a web UI's?")
	default:
		return nil
	}
	switch {
	case err != nil && len(answer) > 0:
		return fmt.Errorf("the collector's answer is not OTLP: %w", err)
	case rejected > 0:
		return fmt.Errorf("the collector rejected %d of the spans%s", rejected, sayMessage(message))
	case message != "":
		return &warning{clip(message, 300)}
	}
	return nil
}

// warning is what a collector said of spans it took whole.
type warning struct{ message string }

func (w *warning) Error() string { return "the collector took the spans and said: " + w.message }

// said is what the collector said in an error's body, as text after
// ": ", or "".
func said(mediaType string, answer []byte) string {
	text := string(answer)
	switch mediaType {
	case "application/x-protobuf":
		m, err := statusMessageOf(answer)
		if err != nil {
			return ""
		}
		text = m
	case "application/json":
		var s struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(answer, &s) == nil && s.Message != "" {
			text = s.Message
		}
	case "text/html":
		return ""
	}
	return sayMessage(text)
}

// sayMessage is ": " and message on one line, cut short, or "".
func sayMessage(message string) string {
	message = strings.Join(strings.Fields(message), " ")
	if message == "" {
		return ""
	}
	return ": " + clip(message, 300)
}

// clip cuts s, a collector's text, to at most n bytes, at a character,
// with an ellipsis when cut, and writes its control characters and
// bytes that are not UTF-8 as \x escapes.
func clip(s string, n int) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if i >= n {
			b.WriteString("…")
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsControl(r) || r == utf8.RuneError && size == 1 {
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, "\\x%02x", c)
			}
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// gunzip is the text that the gzip b holds, at most maxAnswer bytes of
// it, or b when it is no gzip.
func gunzip(b []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return b
	}
	text, _ := io.ReadAll(io.LimitReader(zr, maxAnswer))
	return text
}

// retryAfter is the wait a Retry-After header asks for: a number of
// seconds or a date. One too long to count is the longest a Duration
// holds.
func retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if secs, err := strconv.ParseUint(v, 10, 64); err == nil {
		if secs > uint64(math.MaxInt64/int64(time.Second)) {
			return math.MaxInt64
		}
		return time.Duration(secs) * time.Second
	} else if errors.Is(err, strconv.ErrRange) {
		return math.MaxInt64
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}
