package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// prettyFlag is --pretty: indent the JSON plan. Its default is "when
// standard output is a terminal"; scripts reading a pipe keep the compact
// single-line plan unless they ask.
type prettyFlag struct {
	on, set bool
}

func addPrettyFlag(cmd *cobra.Command, p *prettyFlag) {
	cmd.Flags().BoolVar(&p.on, "pretty", false, "indent the JSON plan (default: when standard output is a terminal)")
}

// resolve reads whether --pretty was given and returns the setting for w.
func (p *prettyFlag) resolve(cmd *cobra.Command, w io.Writer) bool {
	p.set = cmd.Flags().Changed("pretty")
	if p.set {
		return p.on
	}
	return isTerminal(w)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// indentWriter indents every Write that holds one whole JSON document (the
// plan drivers write their document in one call) and passes anything else
// through unchanged. The plan keeps its contract: events stay strings.
type indentWriter struct{ w io.Writer }

func (iw indentWriter) Write(p []byte) (int, error) {
	trimmed := bytes.TrimSpace(p)
	if len(trimmed) == 0 || (trimmed[0] != '[' && trimmed[0] != '{') || !json.Valid(trimmed) {
		return iw.w.Write(p)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, trimmed, "", "  "); err != nil {
		return iw.w.Write(p)
	}
	buf.WriteByte('\n')
	if _, err := iw.w.Write(buf.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}
