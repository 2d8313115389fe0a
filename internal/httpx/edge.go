package httpx

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/redact"
)

// redactTransport removes registered secrets (redact.Global) from
// transport errors and from the bodies of error answers (status 400 and
// above), where servers and proxies sometimes echo the credential they
// rejected. Success bodies pass untouched.
type redactTransport struct{ next http.RoundTripper }

func (t redactTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, redact.Error(err)
	}
	if resp.StatusCode < 400 || resp.Body == nil {
		return resp, nil
	}
	data, rerr := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	clean := []byte(redact.String(string(data)))
	var body io.Reader = bytes.NewReader(clean)
	if rerr != nil {
		body = io.MultiReader(body, errReader{rerr})
	} else {
		resp.ContentLength = int64(len(clean))
		resp.Header.Set("Content-Length", strconv.Itoa(len(clean)))
	}
	resp.Body = io.NopCloser(body)
	return resp, nil
}

// CloseIdleConnections forwards to the wrapped transport.
func (t redactTransport) CloseIdleConnections() { CloseIdle(t.next) }

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// Snippet returns at most n bytes of b as a single printable line, for
// error messages about unexpected bodies.
func Snippet(b []byte, n int) string {
	s := string(b)
	if len(s) > n {
		s = s[:n] + "…"
	}
	return strings.Join(strings.Fields(strings.ToValidUTF8(s, "?")), " ")
}
