package tracker

import (
	"strings"
	"unicode/utf8"

	"tracestreamer/parser/jsonscan"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/stat"
)

// Texts the trackers decode from inside an element's members (stack frames,
// V8 profile nodes, memory dumps, object snapshots) are stored as TEXT: valid
// UTF-8, invalid UTF-8 and lone surrogate escapes replaced by U+FFFD
// (docs/format/traceevent.md#text). Each text so replaced is counted once
// (json_string, invalid_data), as the event decoder counts an element's own
// strings and ids.

// textCount counts the replaced texts of one element (or top-level member)
// at byte offset off; a nil st counts nothing (the texts are counted
// elsewhere, as the args of an M event are).
type textCount struct {
	st  Stats
	off int64
}

// add counts one replaced text when bad is set.
func (c textCount) add(bad bool) {
	if bad && c.st != nil {
		c.st.Add(stat.JSONString, stat.InvalidData, 1, c.off)
	}
}

// decoded counts s, decoded from the JSON value raw (by NormaliseID,
// argString or event.StringValue), when decoding replaced something in it.
// A text without U+FFFD had nothing replaced: raw is looked at again only
// for one with it.
func (c textCount) decoded(s string, raw []byte) {
	if !strings.Contains(s, "\uFFFD") {
		return
	}
	c.add(replacedIn(raw))
}

// replacedIn tells whether decoding the JSON value raw replaces something by
// U+FFFD: it holds invalid UTF-8, or is a string with a lone surrogate escape.
func replacedIn(raw []byte) bool {
	return !utf8.Valid(raw) || event.LoneSurrogateString(raw)
}

// member returns the string member key of the JSON object obj as argString
// does, counting it when decoding replaced something in it.
func (c textCount) member(obj []byte, key string) (string, bool) {
	s, ok := argString(obj, key)
	if ok && strings.Contains(s, "\uFFFD") {
		raw, _ := event.ArgRaw(obj, key)
		c.add(replacedIn(raw))
	}
	return s, ok
}

// keys turns the member names an object decoder reads into text.
type keys struct {
	c    textCount
	js   *jsonscan.Decoder
	seen int64 // js.LoneSurrogates after the previous name
}

// text returns name k, just read by the decoder, with invalid UTF-8 replaced,
// counting it when it held invalid UTF-8 or a lone surrogate escape (which
// the decoder replaced). Values must be skipped, not decoded, between names.
func (k *keys) text(name []byte) string {
	bad := k.js.LoneSurrogates != k.seen
	k.seen = k.js.LoneSurrogates
	s := string(name)
	if !utf8.ValidString(s) {
		bad = true
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	k.c.add(bad)
	return s
}
