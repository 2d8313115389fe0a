package input

import (
	"fmt"
	"io"
	"os"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// ReadPayload returns an event driver's payload: data when it is non-nil,
// else the contents of the file at path, or of stdin when path is "-". A
// payload over limit bytes is an error. Errors start with driver and name
// the file; src names where the payload came from.
func ReadPayload(driver string, data []byte, path string, stdin io.Reader, limit int) (payload []byte, src string, err error) {
	if data != nil {
		if len(data) > limit {
			return nil, "", fmt.Errorf("%s: payload is larger than %s", driver, event.SizeText(int64(limit)))
		}
		return data, "payload", nil
	}
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, "", fmt.Errorf("%s: payload file: %w", driver, err)
		}
		defer f.Close()
		r = f
	} else if r == nil {
		return nil, "", fmt.Errorf("%s: --input-file - but no standard input", driver)
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, "", fmt.Errorf("%s: reading %s: %w", driver, path, err)
	}
	if len(b) > limit {
		return nil, "", fmt.Errorf("%s: %s is larger than %s", driver, path, event.SizeText(int64(limit)))
	}
	return b, path, nil
}
