package status

import (
	"encoding/json"
	"io"
)

// renderJSON writes rep as indented JSON and a newline.
func renderJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
