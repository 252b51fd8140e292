package arkts

import (
	"bytes"

	"google.golang.org/protobuf/proto"

	"tracestreamer/proto/hiprofpb"
)

// Census counts what the ArkTS records of a capture hold without decoding
// snapshots or profiles (tracestreamer info): the messages by kind, and the
// heap files and CPU profiles they make up, by the markers the Parser reads.
type Census struct {
	Configs   int64 // arkts-plugin_config records
	Messages  int64 // arkts-plugin records
	Chunks    int64 // HeapProfiler.addHeapSnapshotChunk messages
	ChunkText int64 // bytes of snapshot text in them
	Snapshots int64 // heap snapshots ended by a marker
	Timelines int64 // heap timelines ended by a marker
	Profiles  int64 // responses carrying a CPU profile
	Invalid   int64 // messages that are not JSON objects
	Mode      int32 // the last config's heap mode (ModeSnapshot without one, as the Parser)
	// Open is set when snapshot chunks came after the last marker (the
	// conversion completes such a snapshot if its text is whole).
	Open bool

	configSeen, timelineStarted bool
	buf                         []byte
}

// NewCensus returns an empty census.
func NewCensus() *Census { return &Census{Mode: ModeSnapshot} }

// Config counts an "arkts-plugin_config" record.
func (c *Census) Config(data []byte) {
	c.Configs++
	var cfg hiprofpb.ArkTSConfig
	if proto.Unmarshal(data, &cfg) == nil {
		c.Mode = int32(cfg.Type)
		c.configSeen = true
	}
}

// Result counts an "arkts-plugin" record.
func (c *Census) Result(data []byte) {
	c.Messages++
	msg, err := resultBytes(data)
	if err != nil {
		c.Invalid++
		return
	}
	if i := bytes.IndexByte(msg, 0); i >= 0 {
		msg = msg[:i]
	}
	m := route(msg, c.buf[:0])
	switch m.kind {
	case kindInvalid:
		c.Invalid++
	case kindChunk:
		c.Chunks++
		c.ChunkText += int64(len(m.chunk))
		c.buf = m.chunk
		c.Open = true
	case kindProfile:
		c.Profiles++
	case kindMarker:
		switch m.id {
		case 1, 2:
			mode := c.Mode
			if !c.configSeen && m.id == 1 && !c.Open {
				mode, c.Mode = ModeTimeline, ModeTimeline
			}
			if mode == ModeTimeline && m.id == 1 {
				c.timelineStarted = true
				return
			}
			if !c.Open {
				return
			}
			if mode == ModeTimeline || (mode != ModeSnapshot && c.timelineStarted && m.id == 2) {
				c.Timelines++
			} else {
				c.Snapshots++
			}
			c.Open, c.timelineStarted = false, false
		}
	}
}
