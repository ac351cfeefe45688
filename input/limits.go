package input

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// Limits bound what a reader accepts, far above what a real file holds, so
// that a hostile or broken one fails with a clear error instead of taking
// minutes or gigabytes. A zero field takes its default.
type Limits struct {
	// Bytes is the largest file: DefaultMaxBytes.
	Bytes int
	// Values is the most values a file decodes to, aliases expanded:
	// DefaultMaxValues.
	Values int
	// String is the longest string value, in bytes: DefaultMaxString.
	String int
	// Key is the longest mapping key, in bytes: DefaultMaxKey.
	Key int
}

// The default limits. baton's own inputs are far below them: its largest
// scenario file is 21 KB and expands to some 3,000 values.
const (
	DefaultMaxBytes  = 1 << 20 // 1 MiB
	DefaultMaxValues = 200_000
	DefaultMaxString = 256 << 10 // 256 KiB
	DefaultMaxKey    = 1 << 10   // 1 KiB
)

func (l Limits) withDefaults() Limits {
	return Limits{
		Bytes:  cmp.Or(l.Bytes, DefaultMaxBytes),
		Values: cmp.Or(l.Values, DefaultMaxValues),
		String: cmp.Or(l.String, DefaultMaxString),
		Key:    cmp.Or(l.Key, DefaultMaxKey),
	}
}

// ReadFile reads a file of at most limit bytes; a larger one is an
// [*Error] naming the file, its size and the limit, read no further. what
// names the file's kind in the message ("a protocol").
func ReadFile(path string, limit int, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > limit {
		size := "more than " + Size(limit)
		if st, err := f.Stat(); err == nil {
			size = fmt.Sprintf("%d bytes", st.Size())
		}
		return nil, &Error{File: path, Problem: fmt.Sprintf("%s: larger than the %s %s may be", size, Size(limit), what)}
	}
	return data, nil
}

// Size writes a byte count for a message: "1 MiB", "256 KiB", "512 bytes".
func Size(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// scanText finds the first byte that cannot be in a text file: invalid
// UTF-8, or a control character YAML does not allow (anything below space
// but tab, line feed and carriage return; DEL; the C1 controls but NEL;
// U+FFFE and U+FFFF). It returns its position and what it is, or "".
func scanText(data []byte) (Pos, string) {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return Pos{line, col}, fmt.Sprintf("invalid UTF-8 (byte 0x%02x): not a text file", data[i])
		case r == '\n':
			line, col = line+1, 0
		case r < ' ' && r != '\t' && r != '\r',
			r == 0x7f, r >= 0x80 && r <= 0x9f && r != 0x85, r == 0xfffe, r == 0xffff:
			return Pos{line, col}, fmt.Sprintf("control character U+%04X: not allowed in YAML (is it a text file?)", r)
		}
		i += size
		col++
	}
	return Pos{}, ""
}
