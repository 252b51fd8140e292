package rawheap

import (
	"fmt"
	"io"
)

// recordSpill keeps the bodies of a static dump's object records (instances,
// arrays, string objects: nearly all of a dump) as the file has them, in a
// scratch file or, without one, in memory, so that the builder can read
// them again in each of its passes rather than hold them decoded beside the
// graph (docs/format/rawheap.md#static-dumps-300).
type recordSpill struct {
	f    ScratchFile // nil: in mem, below (also once a write to f failed)
	mem  []byte
	size int64
	recs []spilledRecord
	err  error // the first write or read that failed
	buf  []byte
}

// spilledRecord is where a record's body is in the spill and in the dump.
type spilledRecord struct {
	at, fileOff int64
	length      uint32
	count       uint32
	tag         uint8
	truncated   bool
}

func newRecordSpill(f ScratchFile) *recordSpill { return &recordSpill{f: f} }

// add keeps a record's body: what was read of it, count items announced.
func (s *recordSpill) add(tag uint8, fileOff int64, body []byte, count uint32, truncated bool) {
	if s.err != nil {
		return
	}
	if s.f != nil {
		if _, err := s.f.WriteAt(body, s.size); err != nil {
			// Kept in memory from here on, with what the file holds.
			mem := make([]byte, s.size, s.size+int64(len(body)))
			if rerr := readFull(s.f, mem, 0); rerr != nil {
				s.err = fmt.Errorf("%w (and reading it back: %v)", err, rerr)
				return
			}
			s.f, s.mem = nil, mem
		}
	}
	if s.f == nil {
		s.mem = append(s.mem, body...)
	}
	s.recs = append(s.recs, spilledRecord{at: s.size, fileOff: fileOff, length: uint32(len(body)), count: count,
		tag: tag, truncated: truncated})
	s.size += int64(len(body))
}

// body reads back record r's body; it is valid until the next call.
func (s *recordSpill) body(r *spilledRecord) ([]byte, error) {
	if s.f == nil {
		return s.mem[r.at : r.at+int64(r.length)], nil
	}
	if cap(s.buf) < int(r.length) {
		s.buf = make([]byte, r.length)
	}
	b := s.buf[:r.length]
	if err := readFull(s.f, b, r.at); err != nil {
		return nil, err
	}
	return b, nil
}

// readFull reads len(b) bytes at off; an io.EOF with them all is no error.
func readFull(f io.ReaderAt, b []byte, off int64) error {
	if len(b) == 0 {
		return nil
	}
	n, err := f.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	return err
}

// each hands vis the object items of the records of tag, decoded again
// from the spill as readStatic decoded them (its problems are not reported
// again). A read that fails ends the pass and sets s.err.
func (s *recordSpill) each(d *staticDump, tag uint8, vis objectVisitor) {
	sr := &staticReader{d: d, vis: vis, prob: func(Problem) {}, transient: true}
	for i := range s.recs {
		r := &s.recs[i]
		if r.tag != tag || s.err != nil {
			continue
		}
		b, err := s.body(r)
		if err != nil {
			s.err = fmt.Errorf("reading back the object records at offset %d: %w", r.fileOff, err)
			return
		}
		c := &cursor{b: b, base: r.fileOff}
		switch tag {
		case tagInstanceDump:
			sr.instanceItems(c, r.count)
		case tagArrayDump:
			sr.arrayItems(c, r.count, r.truncated)
		case tagStringDump:
			sr.stringItems(c, r.count)
		}
	}
}

// visitFuncs is an objectVisitor of functions; a nil one skips its items.
type visitFuncs struct {
	inst func(rec *staticInstance, vals []fieldValue)
	arr  func(rec *staticArray)
	str  func(rec *staticString, text []byte)
}

func (v visitFuncs) instance(rec *staticInstance, vals []fieldValue) { v.inst(rec, vals) }
func (v visitFuncs) array(rec *staticArray)                          { v.arr(rec) }
func (v visitFuncs) stringObj(rec *staticString, text []byte)        { v.str(rec, text) }

// eachInstance hands f the instances in dump order with their field values
// (valid until f returns).
func (d *staticDump) eachInstance(f func(rec *staticInstance, vals []fieldValue)) {
	if d.spill != nil {
		d.spill.each(d, tagInstanceDump, visitFuncs{inst: f})
		return
	}
	var vals []fieldValue
	for i := range d.instances {
		rec := &d.instances[i]
		vals = vals[:0]
		for j := range rec.vn {
			vals = append(vals, d.value(rec.vstart+j))
		}
		f(rec, vals)
	}
}

// eachArray hands f the arrays in dump order.
func (d *staticDump) eachArray(f func(rec *staticArray)) {
	if d.spill != nil {
		d.spill.each(d, tagArrayDump, visitFuncs{arr: f})
		return
	}
	for i := range d.arrays {
		f(&d.arrays[i])
	}
}

// eachString hands f the string objects in dump order with their content
// (valid until f returns).
func (d *staticDump) eachString(f func(rec *staticString, text []byte)) {
	if d.spill != nil {
		d.spill.each(d, tagStringDump, visitFuncs{str: f})
		return
	}
	for i := range d.stringObjs {
		rec := &d.stringObjs[i]
		f(rec, d.text[rec.cstart:rec.cstart+rec.clen])
	}
}
