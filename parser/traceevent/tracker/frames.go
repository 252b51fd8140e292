package tracker

import (
	"math"
	"strconv"

	"tracestreamer/parser/jsonscan"
	"tracestreamer/parser/traceevent/event"
)

// Frame is one stack_frame row (docs/format/traceevent.md#samples-and-stack-frames).
type Frame struct {
	ID           int
	Source       string // "stackFrames", "metadata" or "v8_profile"
	Ipid         int    // -1: NULL (top-level frames)
	CPUProfileID int    // -1: not a V8 profile frame
	Key          string
	ParentID     int // -1: NULL
	Name         string
	Category     string
	URL          string
	ScriptID     string
	Line, Column int64
	HasLine      bool
	parentKey    string
	hasParent    bool
	// off is the input byte offset of what defined the frame (a top-level
	// frame's value, the M or ProfileChunk event) and file the input it is
	// in (Frames.NextFile), for the warning about an unknown parent.
	off  int64
	file int
}

// Frames collects stack frames; parents are resolved by Resolve.
type Frames struct {
	Rows  []Frame
	byKey map[frameScope]map[string]int
	file  int // the input read now: frames of earlier ones are resolved at the end too
}

type frameScope struct {
	source  string
	ipid    int
	profile int
}

// globalScope is the namespace of the top-level stackFrames, which sf and
// esf refer to.
var globalScope = frameScope{"stackFrames", -1, -1}

// NewFrames returns an empty collection.
func NewFrames() *Frames { return &Frames{byKey: map[frameScope]map[string]int{}} }

// NextFile tells that the frames added from now on come from the next input
// file. Resolve names byte offsets in the last file only: its count is
// reported with that file's name.
func (f *Frames) NextFile() { f.file++ }

// AtFrameValue, as AddStackFrames' at, has each frame keep the input byte
// offset where its own value starts. It is no offset, nor -1 (the project's
// "not known"), so that neither is taken for it.
const AtFrameValue int64 = math.MinInt64

// AddStackFrames reads a stackFrames object (key → {name, category?, parent?}),
// top-level (ipid -1, source "stackFrames") or from an M event ("metadata").
// It returns the number of frames it made. off is the input byte offset
// where raw starts (-1: not known, where st is nil and at is given). Texts with invalid UTF-8 or lone surrogate escapes are
// replaced and counted to st at the offset where their frame's value starts;
// st nil: they are counted elsewhere (an M event's args are). Each frame
// keeps the offset at (the M event's), or with AtFrameValue that of its
// value, for Resolve's warning.
func (f *Frames) AddStackFrames(raw []byte, source string, ipid int, st Stats, off, at int64) (int, error) {
	js := jsonscan.NewBytes(raw)
	scope := frameScope{source: source, ipid: ipid, profile: -1}
	n := len(f.Rows)
	c := textCount{st, off}
	names := keys{c: c, js: js}
	err := js.Object(func(k []byte) error {
		js.Peek()                 // past the space before the value
		c.off = off + js.Offset() // where the frame's value starts
		names.c.off = c.off
		fr := Frame{ID: len(f.Rows), Source: source, Ipid: ipid, CPUProfileID: -1, Key: names.text(k), ParentID: -1,
			off: at, file: f.file}
		if at == AtFrameValue {
			fr.off = c.off
		}
		start := js.Offset()
		if err := js.SkipValue(); err != nil {
			return err
		}
		val := event.TrimSpace(raw[start:js.Offset()])
		if len(val) > 0 && val[0] == '{' {
			if s, ok := c.member(val, "name"); ok {
				fr.Name = s
			}
			if s, ok := c.member(val, "category"); ok {
				fr.Category = s
			}
			if p, ok := event.ArgRaw(val, "parent"); ok {
				fr.parentKey, fr.hasParent = NormaliseID(p)
				c.decoded(fr.parentKey, p)
			}
		}
		f.add(scope, fr)
		return nil
	})
	return len(f.Rows) - n, err
}

func (f *Frames) add(scope frameScope, fr Frame) int {
	m := f.byKey[scope]
	if m == nil {
		m = map[string]int{}
		f.byKey[scope] = m
	}
	m[fr.Key] = fr.ID
	f.Rows = append(f.Rows, fr)
	return fr.ID
}

// Ref returns the frame id of an sf/esf value (raw JSON), which names a
// frame of the global (top-level stackFrames) namespace by its normalised
// id: valid is false for a value that is no id, found for an id naming no
// frame. The usual ids are looked up without making their text.
func (f *Frames) Ref(raw []byte) (id int, valid, found bool) {
	key, ok := idBytes(raw)
	if !ok {
		return -1, false, false
	}
	id, found = f.byKey[globalScope][string(key)]
	return id, true, found
}

// addV8Node adds a node of a V8 CPU profile (ProfileChunk) as a frame; off
// is the input byte offset of the ProfileChunk event.
func (f *Frames) addV8Node(profile, ipid int, n v8Node, off int64) int {
	scope := frameScope{source: "v8_profile", ipid: ipid, profile: profile}
	fr := Frame{ID: len(f.Rows), Source: "v8_profile", Ipid: ipid, CPUProfileID: profile,
		Key: strconv.FormatInt(n.ID, 10), ParentID: -1, Name: n.FunctionName, URL: n.URL, ScriptID: n.ScriptID,
		Line: n.Line, Column: n.Column, HasLine: true, off: off, file: f.file}
	if n.HasParent {
		fr.parentKey, fr.hasParent = strconv.FormatInt(n.Parent, 10), true
	}
	return f.add(scope, fr)
}

// v8Frame returns the frame of node id of a V8 profile.
func (f *Frames) v8Frame(profile, ipid int, id int64) (int, bool) {
	var num [20]byte // the key's text without a string each
	fr, ok := f.byKey[frameScope{"v8_profile", ipid, profile}][string(strconv.AppendInt(num[:0], id, 10))]
	return fr, ok
}

// Resolve sets every frame's parent from its parent key, within its scope.
// It returns the number of parents that name no frame (json_stack_frames
// not_match) and the lowest byte offset, in the file read last, of the
// frames that have them (-1: none there).
func (f *Frames) Resolve() (unknown, first int64) {
	first = -1
	for i := range f.Rows {
		fr := &f.Rows[i]
		if !fr.hasParent || fr.ParentID >= 0 {
			continue
		}
		scope := frameScope{fr.Source, fr.Ipid, fr.CPUProfileID}
		if p, ok := f.byKey[scope][fr.parentKey]; ok {
			fr.ParentID = p
		} else {
			unknown++
			if fr.file == f.file && (first < 0 || fr.off < first) {
				first = fr.off
			}
		}
	}
	return unknown, first
}

// v8Node is a node of a V8 CPU profile carried by ProfileChunk events.
type v8Node struct {
	ID           int64
	Parent       int64
	HasParent    bool
	FunctionName string
	URL          string
	ScriptID     string
	Line, Column int64
	Children     []int64
}
