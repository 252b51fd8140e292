package event

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"tracestreamer/internal/testutil"
	"tracestreamer/parser/traceevent/tokenizer"
)

// TestRecordRoundTrip sends every event of the real node and Chromium traces,
// and events with every field set, through an event record.
func TestRecordRoundTrip(t *testing.T) {
	inputs := map[string]io.Reader{
		"node":     bytes.NewReader(testutil.Fixture(t, "node/trace.json")),
		"chromium": bytes.NewReader(testutil.Fixture(t, "chromium/trace.json.gz")),
		"every field": bytes.NewReader([]byte(`[
			{"ph":"Xy","ts":"1.5","dur":-1,"tts":3,"tdur":"x","pid":"gpu","tid":-7,"name":"n","cat":"","args":{"a":[1]},
			 "id":"0x1","id2":{"local":2},"scope":"s","s":"g","bp":"e","bind_id":"b","flow_in":true,"flow_out":true,
			 "sf":3,"esf":"4","cname":"good","stack":[1],"ts":2,"z":1,},
			{"ph":"i","args":"__stripped__","pid":0,"tid":0,"name":"\u00e9\ud800"},
			{"ph":"C","args":[1],"id":null,"name":7}]`)),
	}
	for name, in := range inputs {
		r, err := tokenizer.NewReader(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n := 0
		for {
			el, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			ev, err := Decode(el)
			if err != nil {
				continue
			}
			checkRecord(t, ev)
			n++
		}
		if n < 3 {
			t.Errorf("%s: %d events checked", name, n)
		}
	}
}

func TestRecordCorrupt(t *testing.T) {
	ev, err := Decode(&tokenizer.Element{Raw: []byte(`{"ph":"X","ts":1,"dur":2,"name":"n","args":{"a":1}}`)})
	if err != nil {
		t.Fatal(err)
	}
	rec := AppendRecord(nil, ev)
	var d Decoder
	for _, bad := range [][]byte{nil, rec[:1], rec[:len(rec)-1], append(rec[:len(rec):len(rec)], 0),
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 'X'}} {
		if _, err := d.DecodeRecord(bad); !errors.Is(err, ErrRecord) {
			t.Errorf("DecodeRecord(%x) error %v, want %v", bad, err, ErrRecord)
		}
	}
}
