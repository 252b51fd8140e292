package arkts

import (
	"bytes"

	"tracestreamer/parser/jsonscan"
)

// kind classifies one inspector message.
type kind uint8

const (
	kindOther   kind = iota // events nothing reads: progress, heap stats, …
	kindChunk               // HeapProfiler.addHeapSnapshotChunk
	kindMarker              // a response with an empty result: {"id":N,"result":{}}
	kindProfile             // a response carrying result.profile
	kindInvalid             // not a JSON object
)

// chunkMethod is the event that carries heap snapshot text.
const chunkMethod = "HeapProfiler.addHeapSnapshotChunk"

// message is a routed inspector message.
type message struct {
	kind kind
	id   int64 // response id (markers, profiles)
	// chunk is the snapshot text of a chunk event, unescaped into the buffer
	// passed to route.
	chunk []byte
	// profile is the raw JSON of result.profile (a slice of the message).
	profile []byte
	err     error // kindInvalid: why
}

// route parses the head of one inspector message: its method or id and, for
// the messages that matter, the chunk text or the profile object. It never looks
// for substrings, so a function called "chunk" or a URL with "profile" in it
// does not confuse it. chunkBuf receives a chunk's text.
func route(msg []byte, chunkBuf []byte) message {
	// Fast path for the exact markers the plugin waits for.
	if len(msg) == 20 && bytes.HasPrefix(msg, []byte(`{"id":`)) && bytes.HasSuffix(msg, []byte(`,"result":{}}`)) &&
		msg[6] >= '0' && msg[6] <= '9' {
		return message{kind: kindMarker, id: int64(msg[6] - '0')}
	}
	js := jsonscan.NewBytes(msg)
	var m message
	var method []byte
	hasID, hasResult, emptyResult, hasChunk := false, false, false, false
	err := js.Object(func(key []byte) (err error) {
		switch string(key) {
		case "id":
			var c byte
			if c, err = js.Peek(); err == nil && (c == '-' || (c >= '0' && c <= '9')) {
				m.id, err = js.ReadInt()
				hasID = err == nil
			} else if err == nil {
				err = js.SkipValue()
			}
		case "method":
			var c byte
			if c, err = js.Peek(); err == nil && c == '"' {
				method, err = js.ReadString(method[:0])
			} else if err == nil {
				err = js.SkipValue()
			}
		case "params":
			hasChunk, err = readParams(js, &m, chunkBuf)
		case "result":
			hasResult = true
			emptyResult, err = readResult(js, &m, msg)
		default:
			err = js.SkipValue()
		}
		return err
	})
	if err != nil {
		if prof := profileFallback(msg); prof != nil {
			return message{kind: kindProfile, id: 3, profile: prof}
		}
		return message{kind: kindInvalid, err: err}
	}
	if !js.AtEOF() {
		return message{kind: kindInvalid, err: js.Errorf("data after the message")}
	}
	switch {
	case hasChunk && (method == nil || string(method) == chunkMethod):
		m.kind = kindChunk
	case hasID && m.profile != nil:
		m.kind = kindProfile
	case hasID && hasResult && emptyResult:
		m.kind = kindMarker
	default:
		m.kind = kindOther
	}
	return m
}

// isObject reports whether an object follows; anything else is skipped.
func isObject(js *jsonscan.Decoder) (bool, error) {
	c, err := js.Peek()
	if err != nil || c == '{' {
		return err == nil, err
	}
	return false, js.SkipValue()
}

// readParams reads an event's params object, unescaping params.chunk.
func readParams(js *jsonscan.Decoder, m *message, chunkBuf []byte) (hasChunk bool, err error) {
	if ok, err := isObject(js); !ok {
		return false, err
	}
	err = js.Object(func(key []byte) (err error) {
		if string(key) != "chunk" {
			return js.SkipValue()
		}
		hasChunk = true
		c, err := js.Peek()
		if err != nil {
			return err
		}
		if c == '"' {
			m.chunk, err = js.ReadString(chunkBuf[:0])
			return err
		}
		// Not a string: the reference appends the value's JSON text.
		start := js.Offset()
		err = js.SkipValue()
		m.chunk = append(chunkBuf[:0], js.Bytes(start, js.Offset())...)
		return err
	})
	return hasChunk, err
}

// readResult reads a response's result object, noting whether it is empty and
// where its profile member is.
func readResult(js *jsonscan.Decoder, m *message, msg []byte) (empty bool, err error) {
	if ok, err := isObject(js); !ok {
		return false, err
	}
	empty = true
	err = js.Object(func(key []byte) error {
		empty = false
		if _, err := js.Peek(); err != nil {
			return err
		}
		start := js.Offset()
		if err := js.SkipValue(); err != nil {
			return err
		}
		if string(key) == "profile" {
			m.profile = msg[start:js.Offset()]
		}
		return nil
	})
	return empty, err
}

// profilePrefix starts the Profiler.stop response exactly as the ArkTS runtime
// writes it.
var profilePrefix = []byte(`{"id":3,"result":{"profile":`)

// profileFallback returns the profile object of a Profiler.stop response that
// is not valid JSON, cut out by its fixed framing, so that the profile decoder
// can try to repair it (the ArkTS runtime does not escape function names).
func profileFallback(msg []byte) []byte {
	msg = bytes.TrimRight(msg, " \t\r\n")
	if !bytes.HasPrefix(msg, profilePrefix) || !bytes.HasSuffix(msg, []byte("}}")) || len(msg) < len(profilePrefix)+2 {
		return nil
	}
	return msg[len(profilePrefix) : len(msg)-2]
}
