package local

import (
	"bytes"
	"io"
)

// maxLine bounds a buffered partial line; longer lines are written in
// pieces, each with the prefix.
const maxLine = 64 << 10

// prefixWriter writes every line of its input to w as one Write of
// prefix+line, so that lines from parallel runs sharing w stay whole. A
// trailing partial line is held until its newline or Flush. Not safe for
// concurrent use (exec copies each stream from one goroutine).
type prefixWriter struct {
	w      io.Writer
	prefix []byte
	buf    []byte
}

func newPrefixWriter(w io.Writer, prefix string) *prefixWriter {
	return &prefixWriter{w: w, prefix: []byte(prefix)}
}

// Write implements io.Writer; it reports len(p) unless w fails.
func (p *prefixWriter) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.buf = append(p.buf, b...)
			if len(p.buf) >= maxLine {
				if err := p.emit(append(p.buf, '\n')); err != nil {
					return 0, err
				}
			}
			return n, nil
		}
		p.buf = append(p.buf, b[:i+1]...)
		b = b[i+1:]
		if err := p.emit(p.buf); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// emit writes prefix+line and resets the buffer.
func (p *prefixWriter) emit(line []byte) error {
	out := make([]byte, 0, len(p.prefix)+len(line))
	out = append(append(out, p.prefix...), line...)
	p.buf = p.buf[:0]
	_, err := p.w.Write(out)
	return err
}

// Flush writes a held partial line, terminated by a newline.
func (p *prefixWriter) Flush() {
	if len(p.buf) > 0 {
		_ = p.emit(append(p.buf, '\n'))
	}
}
