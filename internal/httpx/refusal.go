package httpx

import "net/http"

// Refusal reports whether status is a definite refusal: a 4xx answer other
// than 408 (Request Timeout) and 429 (Too Many Requests). The server read
// the request and declined it, so a write it answered this way did not
// take effect; 408 and 429 say "not now" instead, and every other answer
// (a 5xx, or a 2xx whose body is not the server's) leaves the outcome of a
// write unknown.
func Refusal(status int) bool {
	return status >= 400 && status < 500 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests
}
