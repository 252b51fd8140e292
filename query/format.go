package query

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"tracestreamer/store"
)

// writer prints results in one format.
type writer interface {
	// begin starts result number n (0-based) with these columns.
	begin(names []string, n int) error
	row(vals []Value) error
	end() error
}

func newWriter(f Format, w io.Writer) (writer, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	switch f {
	case Table:
		return &tableWriter{w: bw}, nil
	case CSV:
		return &delimWriter{w: bw, sep: ',', field: csvField}, nil
	case TSV:
		return &delimWriter{w: bw, sep: '\t', field: tsvField}, nil
	case JSON, NDJSON:
		return &jsonWriter{w: bw, lines: f == NDJSON}, nil
	}
	return nil, fmt.Errorf("unknown format %q", f)
}

// formatFloat writes a REAL so that it reads back as the same double and
// never looks like an integer: 3.0, 0.1, 1e+21.
func formatFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eIN") {
		s += ".0"
	}
	return s
}

// blobHex is a blob as PostgreSQL's bytea hex form: \x0a1b.
func blobHex(b string) string { return `\x` + hex.EncodeToString([]byte(b)) }

// tableWriter aligns columns. The widths come from the first tableSample
// rows of a result, so a result of any size streams; a later, wider value
// widens its line only.
type tableWriter struct {
	w       *bufio.Writer
	names   []string
	sample  [][]string
	numeric []bool // right-aligned: every value sampled is a number or NULL
	widths  []int
	rows    int64
	started bool // the sample has been printed
}

const tableSample = 1000

func (t *tableWriter) begin(names []string, n int) error {
	if n > 0 {
		t.w.WriteByte('\n')
	}
	t.names, t.sample, t.rows, t.started = names, t.sample[:0], 0, false
	t.numeric = make([]bool, len(names))
	for i := range t.numeric {
		t.numeric[i] = true
	}
	return nil
}

// tableCell is a value as the table shows it: NULL as NULL, a blob as x'…'
// (SQL's blob literal), and text that could be read as either, or that holds
// control characters or leading or trailing spaces, quoted with JSON's
// escapes. Every other text is shown as it is.
func tableCell(v Value) (s string, number bool) {
	switch v.Kind {
	case store.KindNull:
		return "NULL", true
	case store.KindInt:
		return strconv.FormatInt(v.Int, 10), true
	case store.KindFloat:
		return formatFloat(v.Float), true
	case store.KindBlob:
		return "x'" + hex.EncodeToString([]byte(v.Text)) + "'", false
	}
	t := v.Text
	if t == "" || t == "NULL" || strings.HasPrefix(t, `"`) || strings.HasPrefix(t, "x'") || !utf8.ValidString(t) ||
		strings.IndexFunc(t, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 ||
		unicode.IsSpace(rune(t[0])) || unicode.IsSpace(rune(t[len(t)-1])) {
		return strconv.Quote(t), false
	}
	return t, false
}

func (t *tableWriter) row(vals []Value) error {
	cells := make([]string, len(vals))
	for i, v := range vals {
		var number bool
		cells[i], number = tableCell(v)
		if !number {
			t.numeric[i] = false
		}
	}
	t.rows++
	if !t.started {
		t.sample = append(t.sample, cells)
		if len(t.sample) == tableSample {
			t.flushSample()
		}
		return nil
	}
	return t.line(cells)
}

func (t *tableWriter) flushSample() {
	t.started = true
	t.widths = make([]int, len(t.names))
	for i, n := range t.names {
		t.widths[i] = utf8.RuneCountInString(n)
	}
	for _, cells := range t.sample {
		for i, c := range cells {
			t.widths[i] = max(t.widths[i], utf8.RuneCountInString(c))
		}
	}
	t.line(t.names)
	rule := make([]string, len(t.names))
	for i, w := range t.widths {
		rule[i] = strings.Repeat("-", w)
	}
	t.line(rule)
	for _, cells := range t.sample {
		t.line(cells)
	}
	t.sample = t.sample[:0]
}

func (t *tableWriter) line(cells []string) error {
	for i, c := range cells {
		pad := t.widths[i] - utf8.RuneCountInString(c)
		last := i == len(cells)-1
		if i > 0 {
			t.w.WriteString("  ")
		}
		if t.numeric[i] && pad > 0 {
			t.w.WriteString(strings.Repeat(" ", pad))
			pad = 0
		}
		t.w.WriteString(c)
		if pad > 0 && !last {
			t.w.WriteString(strings.Repeat(" ", pad))
		}
	}
	return t.w.WriteByte('\n')
}

func (t *tableWriter) end() error {
	if !t.started {
		t.flushSample()
	}
	s := "s"
	if t.rows == 1 {
		s = ""
	}
	fmt.Fprintf(t.w, "(%d row%s)\n", t.rows, s)
	return t.w.Flush()
}

// delimWriter writes CSV or TSV: a header line, then a line per row.
type delimWriter struct {
	w     *bufio.Writer
	sep   byte
	field func(v Value) string
}

func (d *delimWriter) begin(names []string, n int) error {
	if n > 0 {
		d.w.WriteByte('\n')
	}
	for i, name := range names {
		if i > 0 {
			d.w.WriteByte(d.sep)
		}
		d.w.WriteString(d.field(Value{Kind: store.KindText, Text: name}))
	}
	return d.w.WriteByte('\n')
}

func (d *delimWriter) row(vals []Value) error {
	for i, v := range vals {
		if i > 0 {
			d.w.WriteByte(d.sep)
		}
		d.w.WriteString(d.field(v))
	}
	return d.w.WriteByte('\n') // as encoding/csv's Writer (UseCRLF false)
}

func (d *delimWriter) end() error { return d.w.Flush() }

// csvField quotes a field where encoding/csv's Writer does (a comma, quote,
// CR or LF inside, or a leading space) and also an empty text, which
// encoding/csv writes like a NULL: NULL is an empty field, an empty text "".
// A blob is \x and its bytes in hex (PostgreSQL's bytea form).
func csvField(v Value) string {
	var s string
	switch v.Kind {
	case store.KindNull:
		return ""
	case store.KindInt:
		return strconv.FormatInt(v.Int, 10)
	case store.KindFloat:
		return formatFloat(v.Float)
	case store.KindBlob:
		return blobHex(v.Text)
	default:
		s = v.Text
	}
	if s == "" || strings.ContainsAny(s, ",\"\r\n") || unicode.IsSpace([]rune(s)[0]) {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// tsvField writes a value as PostgreSQL's text COPY format does: NULL is \N,
// a backslash, tab, LF and CR in text are escaped, so a blob's \x… cannot be
// text.
func tsvField(v Value) string {
	switch v.Kind {
	case store.KindNull:
		return `\N`
	case store.KindInt:
		return strconv.FormatInt(v.Int, 10)
	case store.KindFloat:
		return formatFloat(v.Float)
	case store.KindBlob:
		return blobHex(v.Text)
	}
	return tsvEscaper.Replace(v.Text)
}

var tsvEscaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

// jsonWriter writes each row as an object keyed by column name; a name
// repeated in a result gets its position appended (id, id_2). INT and REAL
// are numbers (infinities the strings "Infinity" and "-Infinity"), NULL null,
// a blob {"blob_hex": "0a1b"}.
type jsonWriter struct {
	w     *bufio.Writer
	lines bool
	keys  []string
	n     int64
}

func (j *jsonWriter) begin(names []string, n int) error {
	j.keys = j.keys[:0]
	seen := map[string]bool{}
	for i, name := range names {
		if seen[name] {
			name = fmt.Sprintf("%s_%d", name, i+1)
		}
		seen[name] = true
		j.keys = append(j.keys, jsonString(name))
	}
	j.n = 0
	if !j.lines {
		j.w.WriteByte('[')
	}
	return nil
}

func (j *jsonWriter) row(vals []Value) error {
	if !j.lines {
		if j.n > 0 {
			j.w.WriteByte(',')
		}
		j.w.WriteByte('\n')
	}
	j.n++
	j.w.WriteByte('{')
	for i, v := range vals {
		if i > 0 {
			j.w.WriteByte(',')
		}
		j.w.WriteString(j.keys[i])
		j.w.WriteByte(':')
		switch v.Kind {
		case store.KindNull:
			j.w.WriteString("null")
		case store.KindInt:
			j.w.WriteString(strconv.FormatInt(v.Int, 10))
		case store.KindFloat:
			switch {
			case math.IsInf(v.Float, 1):
				j.w.WriteString(`"Infinity"`)
			case math.IsInf(v.Float, -1):
				j.w.WriteString(`"-Infinity"`)
			default:
				j.w.WriteString(formatFloat(v.Float))
			}
		case store.KindBlob:
			j.w.WriteString(`{"blob_hex":"` + hex.EncodeToString([]byte(v.Text)) + `"}`)
		default:
			j.w.WriteString(jsonString(v.Text))
		}
	}
	_, err := j.w.WriteString("}")
	if j.lines {
		err = j.w.WriteByte('\n')
	}
	return err
}

func (j *jsonWriter) end() error {
	if !j.lines {
		if j.n > 0 {
			j.w.WriteByte('\n')
		}
		j.w.WriteString("]\n")
	}
	return j.w.Flush()
}

// jsonString is s as a JSON string, with <, > and & as they are (invalid
// UTF-8 becomes U+FFFD, as encoding/json writes it).
func jsonString(s string) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
